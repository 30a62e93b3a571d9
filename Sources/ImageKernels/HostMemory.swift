import Foundation

/// Host bytes that a context's device reads in place where it shares the host's memory (the CPU device),
/// so that large data many renders read, such as a gallery's stored faces, need not be copied to become
/// resident (``RenderContext/makeResidentImage(_:sharing:)``). At least 64-byte aligned; new memory is
/// not initialised, and the owner writes it and tells the resident images over it what changed.
public final class HostMemory: @unchecked Sendable {
    public let byteCount: Int
    public let baseAddress: UnsafeMutableRawPointer
    /// False for a file's mapped contents, which are only read.
    public let isWritable: Bool
    private let mapped: Bool

    /// Memory of `byteCount` bytes. `populated` maps all its pages in one call up front (from 1 MiB on),
    /// for memory about to be written through: faulting them in one at a time as a copy first touches
    /// them is several times slower on virtual machines.
    public init(byteCount: Int, populated: Bool = false) {
        self.byteCount = byteCount
        isWritable = true
        if populated, byteCount >= 1 << 20,
            let pages = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0),
            pages != MAP_FAILED
        {
            (baseAddress, mapped) = (pages, true)
        } else {
            (baseAddress, mapped) = (.allocate(byteCount: max(byteCount, 1), alignment: 64), false)
        }
    }

    /// The contents of the file at `path`, mapped read-only with all their pages up front: a file laid out
    /// for the device (a gallery's stored faces) is ready as soon as the system's cache holds it, without
    /// a copy. A change to the file by another process may show through; replace such files by renaming.
    /// Nil where the file is not a regular one, cannot be opened or mapped, or is empty.
    public init?(mappingFileAt path: String) {
        guard let (file, size) = try? RegularFile.open(path) else { return nil }
        defer { close(file) }
        guard size > 0, let pages = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file, 0), pages != MAP_FAILED
        else {
            return nil
        }
        (byteCount, baseAddress, isWritable, mapped) = (size, pages, false, true)
    }

    deinit {
        if mapped { munmap(baseAddress, byteCount) } else { baseAddress.deallocate() }
    }

    /// The bytes, to read, or to write where the memory ``isWritable``.
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: baseAddress, count: byteCount)
    }
}
