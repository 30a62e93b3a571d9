import Foundation
import ImageKernels

/// A trash as the freedesktop.org Trash specification lays it out, so that a desktop's file manager lists what
/// was moved there and restores it: `files/` holds the files, `info/NAME.trashinfo` where each came from and
/// when. A file goes to the home trash (`$XDG_DATA_HOME/Trash`) where it lies on the home trash's file system,
/// else to its own mount's (`$top/.Trash/$uid` where the administrator made `.Trash` sticky, else
/// `$top/.Trash-$uid`), so that it is renamed, never copied.
struct Trash: Sendable, Equatable {
    /// The folder holding `files/` and `info/`.
    let folder: String
    /// The mount's top folder that a mount's own trash records paths inside; nil for the home trash, which
    /// records absolute paths.
    let top: String?

    /// The home trash, by the environment's `XDG_DATA_HOME` or `HOME`.
    static func home(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Trash? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return Trash(folder: data + "/Trash", top: nil)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return Trash(folder: home + "/.local/share/Trash", top: nil)
    }

    /// The trash a file at `path` (absolute) goes to.
    static func `for`(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(FileMove.Failure) -> Trash
    {
        guard let own = device(of: path) else { throw FileMove.Failure(description: "\(path) is gone") }
        if let home = home(environment), device(of: nearestExisting(home.folder)) == own { return home }
        var top = FileSystemPath.folder(of: path)
        while top != "/", device(of: FileSystemPath.folder(of: top)) == own { top = FileSystemPath.folder(of: top) }
        let user = getuid(), shared = (top == "/" ? "" : top) + "/.Trash"
        var status = stat()
        if FileSystemPath.withCString(shared, { lstat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFDIR,
            status.st_mode & S_ISVTX != 0
        {
            return Trash(folder: shared + "/\(user)", top: top)
        }
        return Trash(folder: (top == "/" ? "" : top) + "/.Trash-\(user)", top: top)
    }

    /// A name in the trash for the file at `source` that neither `files/` nor `info/` holds yet, nor `excluding`
    /// (names given out but not yet taken): its own name, else `name.2.ext`, `name.3.ext` and so on. Makes the
    /// trash's folders where they are missing.
    func freeName(for source: String, excluding: Set<String> = []) throws(FileMove.Failure) -> (
        file: String, info: String
    ) {
        for sub in ["", "/files", "/info"] where !FileMove.exists(folder + sub) {
            try FileMove.makeFolders(for: folder + sub + "/x")
            _ = FileSystemPath.withCString(folder + sub) { chmod($0, 0o700) }
        }
        let name =
            FileSystemPath.bytes(of: source).split(separator: UInt8(ascii: "/")).last.map {
                FileSystemPath.string($0)
            } ?? "photo"
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let (stem, suffix) = dot.map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
        for number in 1...10_000 {
            let candidate = number == 1 ? name : "\(stem).\(number)\(suffix)"
            let file = folder + "/files/" + candidate, info = folder + "/info/" + candidate + ".trashinfo"
            if !excluding.contains(file) && !FileMove.exists(file) && !FileMove.exists(info) { return (file, info) }
        }
        throw FileMove.Failure(description: "the trash \(folder) holds 10,000 files named \(name)")
    }

    /// Writes the `.trashinfo` of `source` at `info`, which must not exist yet (another program's, taken
    /// meanwhile, is never replaced), synced.
    func writeInfo(_ info: String, for source: String, date: Date = Date()) throws(FileMove.Failure) {
        var recorded = source
        if let top, source.hasPrefix(top == "/" ? "/" : top + "/") {
            recorded = String(source.dropFirst(top == "/" ? 1 : top.count + 1))
        }
        let text = "[Trash Info]\nPath=\(Self.escaped(recorded))\nDeletionDate=\(Self.localTime(date))\n"
        let descriptor = FileSystemPath.withCString(info) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else {
            throw FileMove.Failure(description: "cannot write \(info): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count,
            fsync(descriptor) == 0
        else {
            FileMove.removeName(info)
            throw FileMove.Failure(description: "cannot write \(info): \(String(cString: strerror(errno)))")
        }
        try FileMove.syncFolders(of: [info])
    }

    /// The `Path=` a `.trashinfo` file records, decoded; nil where it cannot be read.
    static func recordedPath(in info: String) -> String? {
        guard let bytes = try? RegularFile.contents(of: info, limit: 1 << 16) else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Path=".utf8)) {
            return unescaped(line.dropFirst(5))
        }
        return nil
    }

    /// A path as the specification records it: its bytes, those outside RFC 2396's unreserved set and "/"
    /// escaped as `%XX`.
    static func escaped(_ path: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()/".utf8)
        return FileSystemPath.bytes(of: path).map {
            kept.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0)
        }
        .joined()
    }

    private static func unescaped(_ text: some Collection<UInt8>) -> String {
        var bytes: [UInt8] = [], rest = Array(text)[...]
        while let first = rest.first {
            if first == UInt8(ascii: "%"), rest.count >= 3,
                let value = UInt8(String(decoding: rest.dropFirst().prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(first)
                rest = rest.dropFirst()
            }
        }
        return FileSystemPath.string(bytes)
    }

    /// `YYYY-MM-DDThh:mm:ss` in local time, as the specification asks.
    private static func localTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970), parts = tm()
        localtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    private static func device(of path: String) -> dev_t? {
        var status = stat()
        return FileSystemPath.withCString(path) { stat($0, &status) } == 0 ? status.st_dev : nil
    }

    /// The path, or the nearest folder above it that exists.
    private static func nearestExisting(_ path: String) -> String {
        var path = path
        while path != "/", !FileMove.exists(path) { path = FileSystemPath.folder(of: path) }
        return path
    }
}
