import BenchmarkSupport
import Foundation
import ImageKernels
import Synchronization
import TestSupport
import Testing

// README example begins
/// A user-defined filter in the style of a Core Image kernel: OpenCL C source, the struct of its
/// arguments (the OpenCL parameters by name and in order) and a Swift twin for the CPU device.
struct Invert: Filter {
    var name: String { "invert" }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var count: Int32
    }

    static let kernel = Kernel<Arguments>(
        "invert",
        in: KernelSource(
            name: "Invert",
            text: """
                __kernel void invert(__global const float* src, __global float* dst, int count) {
                    int i = get_global_id(0);
                    if (i < count) dst[i] = 1.0f - src[i];
                }
                """)
    ) { arguments, _ in
        let src = arguments.src.elements, dst = arguments.dst.elements
        for i in 0..<Int(arguments.count) { dst[i] = 1 - src[i] }
    }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try singleInput(inputs, of: .float32)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        try encoder.launch(
            Self.kernel, Arguments(src: .init(encoder.input), dst: .init(encoder.output), count: Int32(count)),
            over: [count])
    }
}
// README example ends

/// Adds a constant written into its OpenCL source: programs of one name and source length that differ
/// only in that digit must each build and run as themselves.
struct AddDigit: Filter {
    let digit: Int
    var name: String { "add digit" }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try singleInput(inputs, of: .float32)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let digit = Float(digit)
        let kernel = Kernel<Invert.Arguments>(
            "add",
            in: KernelSource(
                name: "add",
                text: """
                    __kernel void add(__global const float* src, __global float* dst, int count) {
                        int i = get_global_id(0);
                        if (i < count) dst[i] = src[i] + \(self.digit).0f;
                    }
                    """)
        ) { arguments, _ in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for i in 0..<Int(arguments.count) { dst[i] = src[i] + digit }
        }
        let count = encoder.output.descriptor.elementCount
        try encoder.launch(
            kernel, Invert.Arguments(src: .init(encoder.input), dst: .init(encoder.output), count: Int32(count)),
            over: [count])
    }
}

/// A filter whose OpenCL source does not compile; its twin writes 7s.
struct Broken: Filter {
    var name: String { "broken" }

    struct Arguments: KernelArguments {
        var dst: KernelMutableBuffer<Float>
        var count: Int32
    }

    static let kernel = Kernel<Arguments>(
        "broken",
        in: KernelSource(
            name: "broken",
            text: """
                __kernel void broken(__global float* dst, int count) { dst[0] = oops; }
                """)
    ) { arguments, _ in
        arguments.dst.elements.update(repeating: 7, count: Int(arguments.count))
    }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try singleInput(inputs)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        try encoder.launch(Self.kernel, Arguments(dst: .init(encoder.output), count: Int32(count)), over: [count])
    }
}

/// A filter whose Swift arguments list the OpenCL parameters in another order.
struct Reordered: Filter {
    var name: String { "reordered" }

    struct Arguments: KernelArguments {
        var count: Int32
        var dst: KernelMutableBuffer<Float>
    }

    static let kernel = Kernel<Arguments>(
        "fill",
        in: KernelSource(
            name: "fill",
            text: """
                __kernel void fill(__global float* dst, int count) { int i = get_global_id(0); if (i < count) dst[i] \
                = 1.0f; }
                """)
    ) { arguments, _ in
        arguments.dst.elements.update(repeating: 1, count: Int(arguments.count))
    }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try singleInput(inputs)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        try encoder.launch(Self.kernel, Arguments(count: Int32(count), dst: .init(encoder.output)), over: [count])
    }
}

@Suite struct RenderGraphTests {
    static var devices: [DeviceChoice] { TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu] }

    @Test(arguments: devices)
    func customFilterRoundTrips(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let input = TestImages.random(
            ImageDescriptor(width: 19, height: 7, batch: 3, elementType: .float32),
            using: &generator)
        let context = RenderContext(device: try TestDevices.device(choice))
        let once = try context.render(Image(input).applying(Invert()))
        #expect(once.floatValues == input.floatValues.map { 1 - $0 }, "seed \(generator.seed)")
        let twice = try context.render(Image(input).applying(Invert()).applying(Invert()))
        #expect(zip(twice.floatValues, input.floatValues).allSatisfy { abs($0 - $1) < 1e-6 }, "seed \(generator.seed)")
    }

    @Test(arguments: devices)
    func programsDifferingOnlyInTextStayApart(_ choice: DeviceChoice) throws {
        let input = try PixelBuffer(width: 5, height: 3, values: (0..<15).map(Float.init))
        let context = RenderContext(device: try TestDevices.device(choice))
        for digit in [1, 7, 1, 3] {
            let output = try context.render(Image(input).applying(AddDigit(digit: digit)))
            #expect(output.floatValues == input.floatValues.map { $0 + Float(digit) }, "digit \(digit)")
        }
    }

    @Test(arguments: devices)
    func residentImagesTakeSlicesAndZeroTheRest(_ choice: DeviceChoice) throws {
        let context = RenderContext(device: try TestDevices.device(choice))
        let values = (0..<20).map(Float.init), descriptor = ImageDescriptor(width: 6, height: 2, elementType: .float32)
        let resident = try context.makeResidentImage(descriptor, contents: values[3..<8])
        #expect(try context.render(resident.image).floatValues == [3, 4, 5, 6, 7] + [Float](repeating: 0, count: 7))
        try resident.write(values[10..<12], atByteOffset: 8 * 4)
        #expect(try context.render(resident.image).floatValues == [3, 4, 5, 6, 7, 0, 0, 0, 10, 11, 0, 0])
        #expect(throws: RenderError.self) { try resident.write(values[0..<2], atByteOffset: 11 * 4) }
        #expect(throws: RenderError.self) { try context.makeResidentImage(descriptor, contents: values[0..<13]) }
    }

    /// A resident image over host memory renders that memory, and what changed in it once told; the CPU
    /// device reads the memory itself.
    @Test(arguments: devices)
    func residentImagesShareHostMemory(_ choice: DeviceChoice) throws {
        let context = RenderContext(device: try TestDevices.device(choice))
        let memory = HostMemory(byteCount: 12 * 4), floats = memory.bytes.bindMemory(to: Float.self)
        for index in floats.indices { floats[index] = Float(index) }
        let resident = try context.makeResidentImage(
            ImageDescriptor(width: 5, height: 2, elementType: .float32), sharing: memory)
        #expect(try context.render(resident.image).floatValues == (0..<10).map(Float.init))
        floats[2] = 20
        floats[3] = 30
        try resident.didModify(8..<16)
        #expect(try context.render(resident.image).floatValues == [0, 1, 20, 30] + (4..<10).map(Float.init))
        #expect(resident.memory === memory)
        #expect(resident.sharesMemory == (choice == .cpu))
        #expect(throws: RenderError.self) { try resident.didModify(36..<44) }
        #expect(throws: RenderError.self) {
            try context.makeResidentImage(ImageDescriptor(width: 13, height: 1, elementType: .float32), sharing: memory)
        }
        // Populated memory (mapped up front from 1 MiB on) serves the same way.
        let large = HostMemory(byteCount: (1 << 20) + 12, populated: true),
            values = large.bytes.bindMemory(to: Float.self)
        for index in values.indices { values[index] = Float(index % 1000) }
        let whole = try context.makeResidentImage(
            ImageDescriptor(width: values.count, height: 1, elementType: .float32), sharing: large)
        #expect(try context.render(whole.image).floatValues == values.indices.map { Float($0 % 1000) })
        // A file's contents, mapped: read in place on the CPU device, where writing them is an error (the
        // mapping is read-only); copied elsewhere, where the copy takes writes.
        let path = NSTemporaryDirectory() + "host-memory-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data([Float](arrayLiteral: 7, 8, 9).withUnsafeBytes { Array($0) }).write(to: URL(fileURLWithPath: path))
        let file = try #require(HostMemory(mappingFileAt: path))
        #expect(file.byteCount == 12 && !file.isWritable)
        let mapped = try context.makeResidentImage(
            ImageDescriptor(width: 3, height: 1, elementType: .float32), sharing: file)
        #expect(try context.render(mapped.image).floatValues == [7, 8, 9])
        #expect(mapped.sharesMemory == (choice == .cpu))
        if choice == .cpu {
            #expect(throws: RenderError.self) { try mapped.write([Float(1)][...], atByteOffset: 0) }
        } else {
            try mapped.write([Float(1)][...], atByteOffset: 0)
            #expect(try context.render(mapped.image).floatValues == [1, 8, 9])
        }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(HostMemory(mappingFileAt: path) == nil, "an empty file")
        #expect(HostMemory(mappingFileAt: path + "-missing") == nil)
        #expect(HostMemory(mappingFileAt: NSTemporaryDirectory()) == nil, "a folder")
    }

    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func syntaxErrorCarriesBuildLog() throws {
        let image = Image(try PixelBuffer(width: 2, height: 2, values: [Float](repeating: 0, count: 4)))
        let strict = RenderContext(device: try TestDevices.openCL.get(), fallsBack: false)
        let said = try StandardError.captured {
            #expect {
                try strict.render(image.applying(Broken()))
            } throws: { error in
                guard case RenderError.buildFailed(let program, let log) = error else { return false }
                return program == "broken" && log.contains("oops")
            }
        }
        #expect(!said.contains("falling back"), "\(said)")
        #expect(
            strict.device.kind != .cpu && strict.fallbackReason == nil,
            "a context that does not fall back stays on OpenCL")
    }

    /// A program that does not build moves a context to the CPU device, which runs the kernel's twin; the
    /// context says why.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func buildFailureFallsBackToTheTwin() throws {
        let image = Image(try PixelBuffer(width: 3, height: 2, values: [Float](repeating: 0, count: 6)))
        let context = RenderContext(device: try TestDevices.openCL.get())
        let resident = try context.makeResidentImage(try PixelBuffer(width: 3, height: 1, values: [Float]([1, 2, 3])))
        let memory = HostMemory(byteCount: 8), floats = memory.bytes.bindMemory(to: Float.self)
        (floats[0], floats[1]) = (4, 5)
        let shared = try context.makeResidentImage(
            ImageDescriptor(width: 2, height: 1, elementType: .float32), sharing: memory)
        let said = try StandardError.captured {
            let values = try context.render(image.applying(Broken())).floatValues
            #expect(values == [Float](repeating: 7, count: 6))
        }
        #expect(said.contains("imagekernels: falling back to the CPU device: "), "\(said)")
        #expect(context.device.kind == .cpu && context.statistics.fallbacks == 1)
        #expect(
            context.fallbackReason?.contains("'broken' failed to build") == true,
            "\(context.fallbackReason ?? "no reason")")
        // Resident images came along: they render, and take writes, on the CPU device.
        try resident.write([Float(9)][...], atByteOffset: 4)
        #expect(try context.render(resident.image).floatValues == [1, 9, 3])
        // One over host memory now reads that memory in place.
        floats[1] = 6
        #expect(shared.sharesMemory)
        #expect(try context.render(shared.image).floatValues == [4, 6])
    }

    /// Arguments that disagree with the source's parameters are refused before anything runs, on every device.
    @Test(arguments: devices)
    func mismatchedArgumentsAreRefused(_ choice: DeviceChoice) throws {
        let image = Image(try PixelBuffer(width: 2, height: 2, values: [Float](repeating: 0, count: 4)))
        let context = RenderContext(device: try TestDevices.device(choice))
        #expect {
            try context.render(image.applying(Reordered()))
        } throws: { error in
            guard case RenderError.kernelSignature(let kernel, let reason) = error else { return false }
            return kernel == "fill"
                && reason.contains("parameter 1 is `__global float* dst` in OpenCL C but `int count` in Swift")
        }
    }

    /// A schedule set for a kernel changes how it runs, not what it computes.
    @Test(arguments: devices)
    func scheduleOverridesKeepResults(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let input = TestImages.random(
            ImageDescriptor(width: 37, height: 23, batch: 3, elementType: .uint8), using: &generator)
        let recipe = Image(input).gaussianBlurred(sigma: 1.5).contrastEqualized()
        let context = RenderContext(device: try TestDevices.device(choice))
        let reference = try context.render(recipe)
        context.setSchedule(KernelSchedule(workGroup: [8, 2, 1]), forKernel: "gaussian_rows")
        context.setSchedule(KernelSchedule(workGroup: [128]), forKernel: "equalize_power_sum")
        let scheduled = try context.render(recipe)
        #expect(TestImages.difference(scheduled, reference, tolerance: 1e-5) == nil, "seed \(generator.seed)")
    }

    @Test(arguments: devices)
    func sharedSubgraphRendersOnce(_ choice: DeviceChoice) throws {
        let source = Image(try PixelBuffer(width: 16, height: 12, batch: 2, values: [UInt8](repeating: 90, count: 384)))
        let blurred = source.gaussianBlurred(sigma: 1)  // conversion (1 launch) + blur (2 launches)
        let gamma = blurred.gammaAdjusted(0.5)  // 1 launch
        let equalized = blurred.contrastEqualized()  // 3 launches
        let context = RenderContext(device: try TestDevices.device(choice))
        let results = try context.render([gamma, equalized, blurred])
        #expect(results.count == 3)
        #expect(context.statistics.launches == 7)
        #expect(context.statistics.nodesRendered == 5)
    }

    /// Profiles see each filter a render encodes once, in order, with what it read and made; renders outside
    /// `timingFilters` keep no times.
    @Test(arguments: devices)
    func filtersAreTimedOnlyWhereAsked(_ choice: DeviceChoice) throws {
        let source = Image(try PixelBuffer(width: 16, height: 12, batch: 2, values: [UInt8](repeating: 90, count: 384)))
        let blurred = source.gaussianBlurred(sigma: 1)
        let context = RenderContext(device: try TestDevices.device(choice))
        let (results, times) = try context.timingFilters { () throws(RenderError) in
            try context.render([blurred.gammaAdjusted(0.5), blurred])
        }
        #expect(results.count == 2)
        #expect(times.map(\.filter.name) == ["convert to float32", "gaussian σ1.0", "gamma 0.5"])
        #expect(times.map(\.output) == [results[1].descriptor, results[1].descriptor, results[0].descriptor])
        #expect(times[0].inputs == [ImageDescriptor(width: 16, height: 12, channels: 1, batch: 2, elementType: .uint8)])
        #expect(times.allSatisfy { $0.seconds >= 0 })
        let (_, later) = context.timingFilters { () -> Void in }
        _ = try context.render(blurred)
        #expect(later.isEmpty)
    }

    @Test(arguments: devices)
    func intermediateBuffersAreReused(_ choice: DeviceChoice) throws {
        let source = Image(try PixelBuffer(width: 32, height: 32, batch: 4, values: [UInt8](repeating: 7, count: 4096)))
        let chain = source.gammaAdjusted(0.2).differenceOfGaussians(sigma1: 1, sigma2: 2).contrastEqualized()
            .localBinaryPattern().blockHistograms()
        let context = RenderContext(device: try TestDevices.device(choice))
        _ = try context.render(chain)
        let first = context.statistics
        // Within one render, the float planes of finished stages serve later ones.
        #expect(first.buffersReused > 0)
        _ = try context.render(chain)
        let second = context.statistics
        #expect(
            second.buffersAllocated == first.buffersAllocated, "a second render of the same chain allocates nothing")
    }

    /// Renders on one context from several threads at once (indexing's batches) give what they give one
    /// after another, and every one is counted.
    @Test(arguments: devices)
    func concurrentRendersMatchSerialOnes(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let inputs = (0..<12).map { index in
            TestImages.random(
                ImageDescriptor(width: 31 + index, height: 17, batch: 2, elementType: .uint8), using: &generator)
        }
        @Sendable func recipe(_ input: PixelBuffer) -> Image {
            Image(input).gammaAdjusted(0.5).differenceOfGaussians(sigma1: 1, sigma2: 2).contrastEqualized()
        }
        let context = RenderContext(device: try TestDevices.device(choice))
        let serial = try inputs.map { try context.render(recipe($0)).floatValues }
        let results = Mutex([Int: [Float]]())
        let failures = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            do {
                let values = try context.render(recipe(inputs[index])).floatValues
                results.withLock { $0[index] = values }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let concurrent = results.withLock { $0 }
        for index in inputs.indices {
            #expect(concurrent[index] == serial[index], "input \(index), seed \(generator.seed)")
        }
        #expect(context.statistics.renders == 2 * inputs.count)
    }

    /// Renders that fail on the OpenCL device at once move the context to the CPU device once, and each is
    /// rendered there.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func concurrentFailuresFallBackOnce() throws {
        let context = RenderContext(device: try TestDevices.openCL.get())
        let image = Image(try PixelBuffer(width: 3, height: 2, values: [Float](repeating: 0, count: 6)))
        let results = Mutex([[Float]]())
        let said = try StandardError.captured {
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                let values = (try? context.render(image.applying(Broken())).floatValues) ?? []
                results.withLock { $0.append(values) }
            }
        }
        #expect(said.components(separatedBy: "falling back to the CPU device").count == 2, "\(said)")
        #expect(results.withLock { $0 } == [[Float]](repeating: [Float](repeating: 7, count: 6), count: 6))
        #expect(context.device.kind == .cpu && context.statistics.fallbacks == 1)
    }

    /// Renders of many sizes (a gallery of photos) keep no more than the pool's budget between renders,
    /// the sizes used last kept.
    @Test(arguments: devices)
    func pooledBuffersStayWithinTheBudget(_ choice: DeviceChoice) throws {
        let context = RenderContext(device: try TestDevices.device(choice), pooledBytes: 1 << 20)
        for side in stride(from: 100, to: 400, by: 7) {
            let photo = Image(
                try PixelBuffer(
                    width: side, height: side - 30, values: [UInt8](repeating: 9, count: side * (side - 30))))
            _ = try context.render(photo.gaussianBlurred(sigma: 2))
            #expect(context.pooledBytes <= 1 << 20)
        }
        let last = Image(try PixelBuffer(width: 120, height: 90, values: [UInt8](repeating: 9, count: 120 * 90)))
            .gaussianBlurred(sigma: 2)
        _ = try context.render(last)
        let allocated = context.statistics.buffersAllocated
        _ = try context.render(last)
        #expect(context.statistics.buffersAllocated == allocated, "the size just used is still pooled")
    }

    @Test func invalidRecipeFailsWhenRendered() throws {
        let image = Image(try PixelBuffer(width: 4, height: 4, values: [UInt8](repeating: 0, count: 16)))
        let cropped = image.cropped(to: PixelRect(x: 2, y: 2, width: 4, height: 1))
        #expect(throws: RenderError.self) { try cropped.descriptor }
        #expect {
            try RenderContext(device: .cpu).render(cropped.gammaAdjusted(0.5))
        } throws: { error in
            guard case RenderError.invalidInput(let filter, _) = error else { return false }
            return filter.hasPrefix("crop")
        }
    }

    @Test func gpuChoiceFailsClearlyWithoutGPU() throws {
        let gpus = ((try? Device.openCLDevices()) ?? []).filter { $0.kind == .openCL(.gpu) }
        if gpus.isEmpty {
            #expect(throws: RenderError.self) { try Device.select(.gpu) }
        } else {
            #expect(try Device.select(.gpu).kind == .openCL(.gpu))
        }
        #expect(try Device.select(.cpu).kind == .cpu)
    }
}
