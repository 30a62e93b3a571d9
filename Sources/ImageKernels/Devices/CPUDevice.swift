import Foundation

/// Host memory standing in for a device buffer: its own, or an owner's shared with it.
final class CPUBuffer: DeviceBuffer, @unchecked Sendable {
    let memory: HostMemory

    init(memory: HostMemory) {
        self.memory = memory
    }

    var byteCount: Int { memory.byteCount }
    var pointer: UnsafeMutableRawPointer { memory.baseAddress }
}

/// Runs each kernel's Swift twin; kernels parallelise themselves with ``CPUParallel``.
struct CPUBackend: DeviceBackend {
    func makeBuffer(byteCount: Int) -> any DeviceBuffer {
        CPUBuffer(memory: HostMemory(byteCount: byteCount))
    }

    func makeBuffer(sharing memory: HostMemory) -> (any DeviceBuffer)? {
        CPUBuffer(memory: memory)
    }

    func upload(_ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, offset: Int) throws(RenderError) {
        let target = try cpuBuffer(buffer, minimumBytes: offset + bytes.count)
        guard target.memory.isWritable else {
            throw .invalidInput(filter: "upload", reason: "the buffer is a mapped file's memory, which is only read")
        }
        if let base = bytes.baseAddress { (target.pointer + offset).copyMemory(from: base, byteCount: bytes.count) }
    }

    func download(_ buffer: any DeviceBuffer, byteCount: Int) throws(RenderError) -> [UInt8] {
        let source = try cpuBuffer(buffer, minimumBytes: byteCount)
        return Array(UnsafeRawBufferPointer(start: source.pointer, count: byteCount))
    }

    func launch<Arguments>(_ kernel: Kernel<Arguments>, _ arguments: Arguments, grid: KernelGrid) throws(RenderError) {
        for case .buffer(let buffer) in try arguments.bindings(for: kernel.entryPoint) {
            _ = try cpuBuffer(buffer, minimumBytes: 0)
        }
        kernel.cpu(arguments, grid)
    }

    private func cpuBuffer(_ buffer: any DeviceBuffer, minimumBytes: Int) throws(RenderError) -> CPUBuffer {
        guard let cpu = buffer as? CPUBuffer else {
            throw .deviceUnavailable("a buffer of another device was passed to the CPU device")
        }
        guard cpu.byteCount >= minimumBytes else {
            throw .sizeMismatch(expected: minimumBytes, actual: cpu.byteCount)
        }
        return cpu
    }
}

/// Splits CPU kernel work across cores.
public enum CPUParallel {
    /// The most ranges work is cut into: eight a core, so that cores that finish early take more. Read once:
    /// Foundation reads the core count from the cgroup's files at every call (10 % of BlazeFace's time).
    public static let chunkCount = ProcessInfo.processInfo.activeProcessorCount * 8

    /// Calls `body` with consecutive ranges that together cover `0..<count`, in parallel.
    public static func forEachRange(_ count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let chunks = min(count, chunkCount)
        if chunks == 1 {
            body(0..<count)
            return
        }
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            body(count * chunk / chunks..<count * (chunk + 1) / chunks)
        }
    }

    /// `transform` of each element, worked out in parallel, the results in the elements' order.
    public static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        let slots = UnsafeMutableBufferPointer<Result?>.allocate(capacity: elements.count)
        slots.initialize(repeating: nil)
        defer {
            _ = slots.deinitialize()
            slots.deallocate()
        }
        // Each index is written by one range only.
        nonisolated(unsafe) let results = slots
        forEachRange(elements.count) { range in
            for index in range { results[index] = transform(elements[index]) }
        }
        return results.compactMap { $0 }
    }
}
