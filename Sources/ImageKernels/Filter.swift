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
    public func singleInput(_ inputs: [ImageDescriptor], of type: ElementType? = nil) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 1, let input = inputs.first else {
            throw .invalidInput(filter: name, reason: "takes one input, got \(inputs.count)")
        }
        if let type, input.elementType != type {
            throw .invalidInput(filter: name, reason: "takes \(type.rawValue) images, got \(input.elementType.rawValue)")
        }
        guard input.width > 0, input.height > 0, input.planeCount > 0 else {
            throw .invalidInput(filter: name, reason: "input \(input) is empty")
        }
        return input
    }
}

extension Filter {
    /// The single input's descriptor, checked to hold one of `types`.
    public func singleInput(_ inputs: [ImageDescriptor], oneOf types: [ElementType]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs)
        guard types.contains(input.elementType) else {
            throw .invalidInput(filter: name, reason: "takes \(types.map(\.rawValue).joined(separator: " or ")) images, got \(input.elementType.rawValue)")
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
    private let context: RenderContext.RenderPass

    init(inputs: [DeviceImage], output: DeviceImage, device: Device, context: RenderContext.RenderPass) {
        self.inputs = inputs
        self.output = output
        self.device = device
        self.context = context
    }

    /// The first input.
    public var input: DeviceImage { inputs[0] }

    /// Launches a kernel over `globalSize` work-items in groups of `localSize` (OpenCL rounds the
    /// global size up to whole groups; kernels check their bounds).
    public func launch(_ kernel: Kernel, _ arguments: [KernelArgument], globalSize: [Int], localSize: [Int]) throws(RenderError) {
        try context.launch(kernel, arguments, globalSize: globalSize, localSize: localSize)
    }

    /// Launches a kernel with one work-item per pixel: global size (width, height, planes).
    public func launchPerPixel(_ kernel: Kernel, _ arguments: [KernelArgument], over descriptor: ImageDescriptor) throws(RenderError) {
        try launch(kernel, arguments, globalSize: [descriptor.width, descriptor.height, descriptor.planeCount],
                   localSize: [32, 4, 1])
    }

    /// Launches a kernel with one work-item per element of a whole stack.
    public func launchPerElement(_ kernel: Kernel, _ arguments: [KernelArgument], count: Int) throws(RenderError) {
        try launch(kernel, arguments, globalSize: [count], localSize: [256])
    }

    /// Scratch space for this filter, returned to the context's pool when the filter is encoded.
    public func temporaryImage(_ descriptor: ImageDescriptor) throws(RenderError) -> DeviceImage {
        DeviceImage(buffer: try context.temporaryBuffer(byteCount: descriptor.byteCount), descriptor: descriptor)
    }
}
