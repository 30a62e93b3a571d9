/// A named image operation with typed parameters, applied lazily to images.
///
/// A filter says what its output looks like (``outputDescriptor(for:)``) and encodes the kernel
/// launches that compute it (``encode(_:)``); the ``RenderContext`` decides the device and buffers.
/// Built-in filters have fluent helpers on ``Image``; your own filter is a type conforming to this
/// protocol whose kernels carry OpenCL C source and a Swift CPU twin (see ``Kernel``).
public protocol Filter: Sendable {
    /// The name shown in logs, errors and stage sheets.
    var name: String { get }
    /// The output's descriptor for inputs of these descriptors; throws for inputs it cannot take.
    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor
    /// Encodes the launches that fill `encoder.output` from `encoder.inputs`.
    func encode(_ encoder: KernelEncoder) throws(RenderError)
}

extension Filter {
    /// The single input's descriptor, checked for count and element type.
    public func singleInput(_ inputs: [ImageDescriptor], of type: ElementType? = nil) throws(RenderError)
        -> ImageDescriptor
    {
        guard inputs.count == 1, let input = inputs.first else {
            throw .invalidInput(filter: name, reason: "takes one input, got \(inputs.count)")
        }
        if let type, input.elementType != type {
            throw .invalidInput(
                filter: name, reason: "takes \(type.rawValue) images, got \(input.elementType.rawValue)")
        }
        guard input.width > 0, input.height > 0, input.planeCount > 0 else {
            throw .invalidInput(filter: name, reason: "input \(input) is empty")
        }
        return input
    }
}

extension Filter {
    /// The single input's descriptor, checked to hold one of `types`.
    public func singleInput(_ inputs: [ImageDescriptor], oneOf types: [ElementType]) throws(RenderError)
        -> ImageDescriptor
    {
        let input = try singleInput(inputs)
        guard types.contains(input.elementType) else {
            throw .invalidInput(
                filter: name,
                reason:
                    "takes \(types.map(\.rawValue).joined(separator: " or ")) images, got \(input.elementType.rawValue)"
            )
        }
        return input
    }
}

/// A rendered image on a device: its buffer and what it holds.
public struct DeviceImage: Sendable {
    public let buffer: any DeviceBuffer
    public let descriptor: ImageDescriptor
}

/// Hands a filter its inputs and output on the device and launches its kernels.
public final class KernelEncoder {
    /// The rendered inputs, in the order the filter was applied with.
    public let inputs: [DeviceImage]
    /// Where the filter writes its result.
    public let output: DeviceImage
    /// The device the launches run on.
    public let device: Device
    private let pass: RenderContext.RenderPass

    init(inputs: [DeviceImage], output: DeviceImage, device: Device, pass: RenderContext.RenderPass) {
        self.inputs = inputs
        self.output = output
        self.device = device
        self.pass = pass
    }

    /// The first input.
    public var input: DeviceImage { inputs[0] }

    /// The schedule `kernel` runs with here: the context's override for it, else its default for this
    /// kind of device, a cooperative work-group cut to the device's size limit. Filters whose launch
    /// depends on it (a reduction's group size, a GPU shape's work-items a row) read it first.
    public func schedule<Arguments>(for kernel: Kernel<Arguments>) -> KernelSchedule {
        pass.schedule(for: kernel)
    }

    /// Launches a kernel over `size` elements per dimension (OpenCL rounds the work up to whole
    /// work-groups; kernels check their bounds), with `schedule` or, by default, the kernel's schedule here.
    public func launch<Arguments>(
        _ kernel: Kernel<Arguments>, _ arguments: Arguments, over size: [Int],
        schedule: KernelSchedule? = nil
    ) throws(RenderError) {
        try pass.launch(
            kernel, arguments, grid: KernelGrid(size: size, schedule: schedule ?? pass.schedule(for: kernel)))
    }

    /// Scratch space for this filter, returned to the context's pool when the filter is encoded.
    public func temporaryImage(_ descriptor: ImageDescriptor) throws(RenderError) -> DeviceImage {
        DeviceImage(buffer: try pass.temporaryBuffer(byteCount: descriptor.byteCount), descriptor: descriptor)
    }
}
