/// Pixels kept on one context's device between renders and rewritten in place, so that data many
/// renders read (a gallery of descriptors, a detector's model) crosses to the device once, not once per
/// render. When the context falls back to the CPU device, its resident images move with it.
public final class ResidentImage: @unchecked Sendable {
    public let descriptor: ImageDescriptor
    /// The buffer and its device: changed only by the context, under its lock, when it falls back.
    var buffer: any DeviceBuffer
    var device: Device
    /// The host memory the image was made over, if any.
    public let memory: HostMemory?
    /// Whether the device reads that memory itself rather than a copy of it.
    public var sharesMemory: Bool {
        guard let memory else { return false }
        return (buffer as? CPUBuffer)?.memory === memory
    }
    private let context: RenderContext

    init(
        descriptor: ImageDescriptor, buffer: any DeviceBuffer, device: Device, context: RenderContext,
        memory: HostMemory? = nil
    ) {
        self.descriptor = descriptor
        self.buffer = buffer
        self.device = device
        self.context = context
        self.memory = memory
    }

    /// A recipe leaf that reads these pixels; render it with the context that made them.
    public var image: Image { Image(self) }

    /// Overwrites bytes from `offset` on with those of `values`; renders after this see the new values. An
    /// error where the device reads memory that is not writable (a mapped file) in place.
    public func write<Element>(_ values: ArraySlice<Element>, atByteOffset offset: Int) throws(RenderError) {
        try context.write(values, to: self, offset: offset)
    }

    /// For an image made over host memory: these bytes of it changed; renders after this see them.
    public func didModify(_ range: Range<Int>) throws(RenderError) {
        try context.update(self, range)
    }
}
