import Foundation

/// Host bytes that a context's device reads in place where it shares the host's memory (the CPU device),
/// so that large data many renders read, such as a gallery's stored faces, need not be copied to become
/// resident (``RenderContext/makeResidentImage(_:sharing:)``). At least 64-byte aligned and not
/// initialised; the owner writes them and tells the resident images over them what changed.
public final class HostMemory: @unchecked Sendable {
    public let byteCount: Int
    public let baseAddress: UnsafeMutableRawPointer
    private let mapped: Bool

    /// Memory of `byteCount` bytes. `populated` maps all its pages in one call up front (from 1 MiB on),
    /// for memory about to be written through: faulting them in one at a time as a copy first touches
    /// them took up to 5× longer for a new process's 60 MB on this project's VMs.
    public init(byteCount: Int, populated: Bool = false) {
        self.byteCount = byteCount
        if populated, byteCount >= 1 << 20,
           let pages = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0),
           pages != MAP_FAILED {
            (baseAddress, mapped) = (pages, true)
        } else {
            (baseAddress, mapped) = (.allocate(byteCount: max(byteCount, 1), alignment: 64), false)
        }
    }

    deinit {
        if mapped { munmap(baseAddress, byteCount) } else { baseAddress.deallocate() }
    }

    /// The bytes, to read or write.
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: baseAddress, count: byteCount)
    }
}
