/// Host bytes that a context's device reads in place where it shares the host's memory (the CPU device),
/// so that large data many renders read, such as a gallery's stored faces, need not be copied to become
/// resident (``RenderContext/makeResidentImage(_:sharing:)``). Allocated 64-byte aligned and not
/// initialised; the owner writes them and tells the resident images over them what changed.
public final class HostMemory: @unchecked Sendable {
    public let byteCount: Int
    public let baseAddress: UnsafeMutableRawPointer

    public init(byteCount: Int) {
        self.byteCount = byteCount
        baseAddress = .allocate(byteCount: max(byteCount, 1), alignment: 64)
    }

    deinit { baseAddress.deallocate() }

    /// The bytes, to read or write.
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: baseAddress, count: byteCount)
    }
}
