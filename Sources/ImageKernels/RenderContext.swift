import Foundation

/// Renders image recipes on a device.
///
/// The context plans the graph (each node once, even when shared), keeps intermediate buffers in a
/// pool and reuses them as soon as their last consumer has run, and builds each program once. When an
/// OpenCL device cannot go on (a program that does not build, device memory exhausted), the context
/// says why in one line on stderr, moves its resident images to the CPU device and carries on there
/// with every kernel's CPU twin. Renders on one context can run at once on several threads (indexing's
/// batches do); they share its pool.
public final class RenderContext: @unchecked Sendable {
    /// Guards the device, pool, resident images and schedules; `countsLock` guards the counts.
    private let lock = NSLock(), countsLock = NSLock()
    private var currentDevice: Device
    private var pool: BufferPool
    private var totals = RenderStatistics()
    private var residents: [WeakResident] = []
    private var overrides: [String: KernelSchedule] = [:]
    private var scheduleKind: DeviceKind?
    private var reason: String?
    /// Each filter's time in the renders of ``timingFilters(_:)``, while it runs.
    private var filterTimes: [FilterTime]?
    /// Whether the context moves to the CPU device when its OpenCL device cannot go on (else the error
    /// is thrown: for developing kernels).
    public let fallsBack: Bool

    private struct WeakResident {
        weak var image: ResidentImage?
    }

    /// A context on `device` that keeps up to `pooledBytes` of intermediate buffers between renders for
    /// reuse.
    public init(device: Device, pooledBytes: Int = 256 << 20, fallsBack: Bool = true) {
        currentDevice = device
        pool = BufferPool(budget: pooledBytes)
        self.fallsBack = fallsBack
    }

    /// A context on ``Device/best``: the device `IMAGEKERNELS_DEVICE` names, else the best one here.
    public convenience init(pooledBytes: Int = 256 << 20) throws(RenderError) {
        self.init(device: try Device.best, pooledBytes: pooledBytes)
    }

    /// `context`, or a new context on ``Device/best`` when it is nil: for types whose context is optional.
    public static func orDefault(_ context: RenderContext?) throws(RenderError) -> RenderContext {
        if let context { return context }
        return try RenderContext()
    }

    /// The device renders run on.
    public var device: Device {
        lock.withLock { currentDevice }
    }

    /// Why the context moved to the CPU device, or nil while it is on the device it was made with.
    public var fallbackReason: String? {
        lock.withLock { reason }
    }

    /// Bytes of intermediate buffers kept for reuse (at most `pooledBytes` after each render).
    public var pooledBytes: Int {
        lock.withLock { pool.bytes }
    }

    /// Counts since the context was made.
    public var statistics: RenderStatistics {
        countsLock.withLock { totals }
    }

    /// Runs the kernel with this entry point on `schedule` instead of its own for the device (nil: its
    /// own again): for benchmarks that compare schedules.
    public func setSchedule(_ schedule: KernelSchedule?, forKernel entryPoint: String) {
        lock.withLock { overrides[entryPoint] = schedule }
    }

    /// Runs kernels on OpenCL devices with the schedules written for `kind` instead of the device's own
    /// (nil: its own again): to test GPU-shaped kernels on an OpenCL CPU device, and to compare shapes.
    public func useSchedules(of kind: DeviceKind?) {
        lock.withLock { scheduleKind = kind }
    }

    /// Runs `body` and returns what it returns with each filter its renders encoded, in order, and its time:
    /// for profiles of a network's layers. On the CPU device a filter's time is its kernels' own; on an OpenCL
    /// device only the time to enqueue them. Run one such body at a time on a context.
    public func timingFilters<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (T, [FilterTime]) {
        lock.withLock { filterTimes = [] }
        defer { lock.withLock { filterTimes = nil } }
        let result = try body()
        return (result, lock.withLock { filterTimes ?? [] })
    }

    /// Renders one recipe to pixels.
    public func render(_ image: Image) throws(RenderError) -> PixelBuffer {
        try render([image])[0]
    }

    /// Renders several recipes in one pass; nodes they share are computed once.
    public func render(_ images: [Image]) throws(RenderError) -> [PixelBuffer] {
        let device = self.device
        defer { lock.withLock { pool.trim() } }
        do {
            return try RenderPass(context: self, device: device).run(images)
        } catch {
            try fallBack(afterRenderOn: device, error)
            return try RenderPass(context: self, device: self.device).run(images)
        }
    }

    /// An image that stays on this context's device between renders and can be rewritten in place,
    /// for data many renders read: a gallery of face descriptors, say.
    public func makeResidentImage(_ pixels: PixelBuffer) throws(RenderError) -> ResidentImage {
        try makeResidentImage(pixels.descriptor, contents: pixels.bytes[...])
    }

    /// A resident image of `descriptor` whose first bytes are those of `contents` and the rest zeros:
    /// for data packed in place in a larger array, which would otherwise be copied into a
    /// ``PixelBuffer`` first.
    public func makeResidentImage<Element>(_ descriptor: ImageDescriptor, contents: ArraySlice<Element>)
        throws(RenderError) -> ResidentImage
    {
        lock.lock()
        defer { lock.unlock() }
        let buffer = try withFallback { () throws(RenderError) in
            try currentDevice.backend.makeBuffer(byteCount: descriptor.byteCount)
        }
        let byteCount = try upload(contents, to: buffer, on: currentDevice, offset: 0, limit: descriptor.byteCount)
        _ = try upload(
            [UInt8](repeating: 0, count: descriptor.byteCount - byteCount)[...], to: buffer, on: currentDevice,
            offset: byteCount, limit: descriptor.byteCount)
        return register(ResidentImage(descriptor: descriptor, buffer: buffer, device: currentDevice, context: self))
    }

    /// A resident image over the first bytes of `memory`, read in place where the device shares host memory
    /// (the CPU device) and copied to it where not: for large data already laid out in host memory, such as
    /// a gallery's stored faces. Change the bytes in `memory`, then say which with
    /// ``ResidentImage/didModify(_:)``.
    public func makeResidentImage(_ descriptor: ImageDescriptor, sharing memory: HostMemory) throws(RenderError)
        -> ResidentImage
    {
        guard descriptor.byteCount <= memory.byteCount else {
            throw .sizeMismatch(expected: descriptor.byteCount, actual: memory.byteCount)
        }
        lock.lock()
        defer { lock.unlock() }
        let buffer = try withFallback { () throws(RenderError) in
            try self.buffer(sharing: memory, descriptor.byteCount, on: currentDevice)
        }
        return register(
            ResidentImage(descriptor: descriptor, buffer: buffer, device: currentDevice, context: self, memory: memory))
    }

    /// Runs `body`, and once more on the CPU device if the device failed in a way that warrants falling back
    /// (the lock held).
    private func withFallback<T>(_ body: () throws(RenderError) -> T) throws(RenderError) -> T {
        do {
            return try body()
        } catch {
            try fallBack(after: error)
            return try body()
        }
    }

    /// A buffer of `device` over `memory` itself, or a copy of its first `byteCount` bytes where the device
    /// cannot share it.
    private func buffer(sharing memory: HostMemory, _ byteCount: Int, on device: Device) throws(RenderError)
        -> any DeviceBuffer
    {
        if let shared = device.backend.makeBuffer(sharing: memory) { return shared }
        let buffer = try device.backend.makeBuffer(byteCount: byteCount)
        try upload(
            UnsafeRawBufferPointer(start: memory.baseAddress, count: byteCount), to: buffer, on: device, offset: 0,
            limit: byteCount)
        return buffer
    }

    private func register(_ resident: ResidentImage) -> ResidentImage {
        residents.removeAll { $0.image == nil }
        residents.append(WeakResident(image: resident))
        return resident
    }

    /// Sends changed bytes of a resident image's host memory to its buffer, unless the buffer is that memory.
    func update(_ resident: ResidentImage, _ range: Range<Int>) throws(RenderError) {
        lock.lock()
        defer { lock.unlock() }
        guard range.lowerBound >= 0, range.upperBound <= resident.descriptor.byteCount else {
            throw .sizeMismatch(expected: resident.descriptor.byteCount, actual: range.upperBound)
        }
        guard let memory = resident.memory, !resident.sharesMemory else { return }
        try upload(
            UnsafeRawBufferPointer(start: memory.baseAddress + range.lowerBound, count: range.count),
            to: resident.buffer,
            on: resident.device, offset: range.lowerBound, limit: resident.descriptor.byteCount)
    }

    func write<Element>(_ values: ArraySlice<Element>, to resident: ResidentImage, offset: Int) throws(RenderError) {
        lock.lock()
        defer { lock.unlock() }
        _ = try upload(
            values, to: resident.buffer, on: resident.device, offset: offset, limit: resident.descriptor.byteCount)
    }

    /// Copies an array's bytes into a device buffer of `limit` bytes; returns how many.
    private func upload<Element>(
        _ values: ArraySlice<Element>, to buffer: any DeviceBuffer, on device: Device, offset: Int,
        limit: Int
    ) throws(RenderError) -> Int {
        // Array's withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        let uploaded = values.withUnsafeBytes { bytes in
            Result { () throws(RenderError) in try upload(bytes, to: buffer, on: device, offset: offset, limit: limit) }
        }
        try uploaded.get()
        return values.count * MemoryLayout<Element>.stride
    }

    /// Copies bytes into a device buffer of `limit` bytes at `offset`, and counts them.
    private func upload(
        _ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, on device: Device, offset: Int,
        limit: Int
    ) throws(RenderError) {
        guard offset >= 0, offset + bytes.count <= limit else {
            throw .sizeMismatch(expected: limit, actual: offset + bytes.count)
        }
        try device.backend.upload(bytes, to: buffer, offset: offset)
        count { $0.bytesUploaded += bytes.count }
    }

    /// Adds to the counts.
    private func count(_ change: (inout RenderStatistics) -> Void) {
        countsLock.withLock { change(&totals) }
    }

    /// Moves to the CPU device after a render on `device` failed with `error` where that warrants it, unless
    /// a render beside it has moved it already.
    private func fallBack(afterRenderOn device: Device, _ error: RenderError) throws(RenderError) {
        lock.lock()
        defer { lock.unlock() }
        if currentDevice === device { try fallBack(after: error) }
    }

    /// Moves to the CPU device after `error` where it warrants that (else throws it): one line on stderr,
    /// resident images copied over, pooled buffers of the old device dropped. The lock is held.
    private func fallBack(after error: RenderError) throws(RenderError) {
        guard fallsBack, error.warrantsFallback, currentDevice.kind != .cpu else { throw error }
        let why = error.description.split(whereSeparator: \.isNewline).joined(separator: " | ").replacingOccurrences(
            of: ": | ", with: ": ")
        let line = "\(currentDevice): \(why.count > 300 ? why.prefix(300) + "…" : why)"
        Device.log("falling back to the CPU device: \(line)")
        for case let resident? in residents.map(\.image) where resident.device !== Device.cpu {
            if let memory = resident.memory {
                resident.buffer = try buffer(sharing: memory, resident.descriptor.byteCount, on: .cpu)
                resident.device = .cpu
                continue
            }
            let bytes = try resident.device.backend.download(resident.buffer, byteCount: resident.descriptor.byteCount)
            let moved = try Device.cpu.backend.makeBuffer(byteCount: resident.descriptor.byteCount)
            _ = try upload(bytes[...], to: moved, on: Device.cpu, offset: 0, limit: resident.descriptor.byteCount)
            resident.buffer = moved
            resident.device = .cpu
        }
        currentDevice = .cpu
        pool.removeAll()
        reason = line
        count { $0.fallbacks += 1 }
    }

    /// One render: the plan and its live buffers. It takes buffers from the context's pool and gives them
    /// back under the context's lock, the pool's only while the context is on its device.
    final class RenderPass {
        private let context: RenderContext
        let device: Device
        private var temporaries: [any DeviceBuffer] = []

        init(context: RenderContext, device: Device) {
            self.context = context
            self.device = device
        }

        func run(_ images: [Image]) throws(RenderError) -> [PixelBuffer] {
            let order = Self.topologicalOrder(images)
            var remainingUses: [ObjectIdentifier: Int] = [:]
            for node in order {
                if case .filter(_, let inputs) = node.content {
                    for input in inputs { remainingUses[ObjectIdentifier(input.node), default: 0] += 1 }
                }
            }
            for image in images { remainingUses[ObjectIdentifier(image.node), default: 0] += 1 }

            var rendered: [ObjectIdentifier: DeviceImage] = [:]
            var residents: Set<ObjectIdentifier> = []  // their buffers belong to a ResidentImage, not the pool
            let timed = context.lock.withLock { context.filterTimes != nil }
            for node in order {
                let descriptor = try node.descriptor.get()
                if case .resident(let resident) = node.content {
                    // Read under the lock: a render beside this one may be moving it to the CPU device.
                    let (residentDevice, buffer) = context.lock.withLock { (resident.device, resident.buffer) }
                    guard residentDevice === device else {
                        throw .deviceUnavailable("a resident image of \(residentDevice) was rendered on \(device)")
                    }
                    rendered[ObjectIdentifier(node)] = DeviceImage(buffer: buffer, descriptor: descriptor)
                    residents.insert(ObjectIdentifier(node))
                    continue
                }
                let output = DeviceImage(
                    buffer: try takeBuffer(byteCount: descriptor.byteCount), descriptor: descriptor)
                switch node.content {
                case .buffer(let pixels):
                    _ = try context.upload(
                        pixels.bytes[...], to: output.buffer, on: device, offset: 0, limit: descriptor.byteCount)
                case .resident:
                    break
                case .filter(let filter, let inputs):
                    let inputImages = try inputs.map { (input) throws(RenderError) in try Self.find(input, in: rendered)
                    }
                    let start = timed ? DispatchTime.now().uptimeNanoseconds : 0
                    try filter.encode(KernelEncoder(inputs: inputImages, output: output, device: device, pass: self))
                    if timed {
                        let time = FilterTime(
                            filter: filter, inputs: inputImages.map(\.descriptor), output: descriptor,
                            seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                        context.lock.withLock { context.filterTimes?.append(time) }
                    }
                    temporaries.forEach(giveBack)
                    temporaries = []
                    for input in inputs {
                        let id = ObjectIdentifier(input.node)
                        remainingUses[id, default: 1] -= 1
                        if remainingUses[id] == 0, !residents.contains(id), let done = rendered.removeValue(forKey: id)
                        {
                            giveBack(done.buffer)
                        }
                    }
                }
                rendered[ObjectIdentifier(node)] = output
                context.count { $0.nodesRendered += 1 }
            }
            var results: [PixelBuffer] = []
            for image in images {
                let image = try Self.find(image, in: rendered)
                let bytes = try device.backend.download(image.buffer, byteCount: image.descriptor.byteCount)
                context.count { $0.bytesDownloaded += bytes.count }
                results.append(PixelBuffer(unchecked: image.descriptor, bytes: bytes))
            }
            for (id, image) in rendered where !residents.contains(id) { giveBack(image.buffer) }
            context.count { $0.renders += 1 }
            return results
        }

        /// The rendered form of an image; the topological order guarantees it is there.
        private static func find(_ image: Image, in rendered: [ObjectIdentifier: DeviceImage]) throws(RenderError)
            -> DeviceImage
        {
            guard let found = rendered[ObjectIdentifier(image.node)] else {
                throw .invalidInput(filter: "render", reason: "a node was used before it was rendered")
            }
            return found
        }

        /// Every node the images depend on, inputs before the filters that read them, each once.
        private static func topologicalOrder(_ images: [Image]) -> [Image.Node] {
            var order: [Image.Node] = []
            var visited: Set<ObjectIdentifier> = []
            func visit(_ node: Image.Node) {
                guard visited.insert(ObjectIdentifier(node)).inserted else { return }
                if case .filter(_, let inputs) = node.content {
                    for input in inputs { visit(input.node) }
                }
                order.append(node)
            }
            for image in images { visit(image.node) }
            return order
        }

        func schedule<Arguments>(for kernel: Kernel<Arguments>) -> KernelSchedule {
            let (override, kind) = context.lock.withLock {
                (context.overrides[kernel.entryPoint], context.scheduleKind)
            }
            guard device.kind != .cpu else { return override ?? kernel.schedules.cpu }
            var schedule = override ?? kernel.schedules[kind ?? device.kind]
            if schedule.cooperative {
                schedule.workGroup = schedule.workGroup.fitting(device.capabilities.maxWorkGroupSize)
            }
            return schedule
        }

        func launch<Arguments>(_ kernel: Kernel<Arguments>, _ arguments: Arguments, grid: KernelGrid)
            throws(RenderError)
        {
            try kernel.checkSignatureOnce()
            try device.backend.launch(kernel, arguments, grid: grid)
            context.count { $0.launches += 1 }
        }

        func temporaryBuffer(byteCount: Int) throws(RenderError) -> any DeviceBuffer {
            let buffer = try takeBuffer(byteCount: byteCount)
            temporaries.append(buffer)
            return buffer
        }

        private func takeBuffer(byteCount: Int) throws(RenderError) -> any DeviceBuffer {
            let pooled = context.lock.withLock {
                context.currentDevice === device ? context.pool.take(byteCount: byteCount) : nil
            }
            if let reused = pooled {
                context.count { $0.buffersReused += 1 }
                return reused
            }
            context.count { $0.buffersAllocated += 1 }
            return try device.backend.makeBuffer(byteCount: byteCount)
        }

        private func giveBack(_ buffer: any DeviceBuffer) {
            context.lock.withLock {
                if context.currentDevice === device { context.pool.give(buffer) }
            }
        }
    }
}

/// One filter encoded in a render and the time it took (``RenderContext/timingFilters(_:)``).
public struct FilterTime: Sendable {
    public let filter: any Filter
    /// What it read (its weights among them) and what it made.
    public let inputs: [ImageDescriptor]
    public let output: ImageDescriptor
    public let seconds: Double
}

/// What a context has done: for tests, benchmarks and the curious.
public struct RenderStatistics: Sendable, Equatable {
    /// Completed renders.
    public var renders = 0
    /// Graph nodes computed (sources uploaded plus filters encoded).
    public var nodesRendered = 0
    /// Kernel launches.
    public var launches = 0
    /// Device buffers created.
    public var buffersAllocated = 0
    /// Device buffers taken again from the pool.
    public var buffersReused = 0
    public var bytesUploaded = 0
    public var bytesDownloaded = 0
    /// Moves to the CPU device (0 or 1).
    public var fallbacks = 0
}
