import Foundation
import ImageKernels

/// An indexed photo's file, open for reading, checked to be still the photo the catalog describes: the
/// same size and modification time, or the same size and bytes (the content hash indexing stored), as
/// indexing itself tells an unchanged file. Whatever hands a stored photo to a person (the server's files
/// and thumbnails, the copies `duplicates` advises on, the print `similar` starts from) goes through this,
/// so that a file recorded as failed, removed since, or replaced by other bytes or by a link to another
/// file is never taken for the photo. Reads come from the descriptor opened when it was checked: a name
/// changed afterwards does not change what is read.
public final class IndexedFile: Sendable {
    /// Why a stored file is not the photo the catalog describes.
    public enum Stale: Error, Sendable, Equatable, CustomStringConvertible {
        /// The catalog records the file as failed (with why): it was never indexed as a photo.
        case notAPhoto(String)
        /// The file is gone or cannot be read (why).
        case missing(String)
        /// The file holds other bytes than were indexed.
        case changed

        public var description: String {
            switch self {
            case .notAPhoto(let reason): "not an indexed photo (\(reason))"
            case .missing(let reason): "gone since it was indexed (\(reason))"
            case .changed: "changed since it was indexed"
            }
        }
    }

    public let record: ImageRecord
    /// The file's size in bytes.
    public let size: Int
    private let descriptor: Int32

    /// Opens the record's file and checks it, reading it through only where its modification time differs.
    public init(_ record: ImageRecord) throws(Stale) {
        guard record.status == .indexed else { throw .notAPhoto(record.error ?? "failed") }
        if let (library, _) = LibraryRoots.split(record.path) {
            throw .missing(
                "library \(library) has no folder on this machine: `cbir index FOLDER --library \(library)` names it")
        }
        let opened: (descriptor: Int32, size: Int)
        do { opened = try RegularFile.open(record.path) } catch { throw .missing(error.description) }
        self.record = record
        descriptor = opened.descriptor
        size = opened.size
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int64(size) == record.size else { throw .changed }
        if FolderListing.modified(status) != record.modified {
            let hash: String
            do { hash = try ContentHash.ofFile(descriptor) } catch { throw .missing(error.description) }
            guard hash == record.hash else { throw .changed }
        }
    }

    deinit { close(descriptor) }

    /// How much a read takes at most while the file is checked or streamed.
    public static let chunkSize = 1 << 16

    /// Up to `count` bytes from `offset`; fewer at the end of the file.
    public func read(from offset: Int, count: Int) throws(Stale) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, min(count, size - offset)))
        var filled = 0
        while filled < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(offset + filled))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw read < 0 ? .missing(String(cString: strerror(errno))) : .changed
            }
            filled += read
        }
        return bytes
    }

    /// The whole file.
    public func contents() throws(Stale) -> [UInt8] {
        try read(from: 0, count: size)
    }

    /// Why the record's file is no longer the photo it describes, or nil when it still is: by its status
    /// alone where its size and modification time are the stored ones (nothing opened), else as opening
    /// it checks.
    public static func staleness(of record: ImageRecord) -> Stale? {
        var status = stat()
        if record.status == .indexed, FileSystemPath.withCString(record.path, { stat($0, &status) }) == 0,
            RegularFile.failure(status) == nil, Int64(status.st_size) == record.size,
            FolderListing.modified(status) == record.modified
        {
            return nil
        }
        do {
            _ = try IndexedFile(record)
            return nil
        } catch {
            return error
        }
    }
}
