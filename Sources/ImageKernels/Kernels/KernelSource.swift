/// One OpenCL C source file: a filter family's kernels. Modules embed their `.cl` files and wrap each in
/// one of these, made once (a `static let`); your own kernels do the same, or pass the text inline.
public struct KernelSource: Hashable, Sendable {
    /// The file's name without extension, for logs and build errors (`GaussianBlur`).
    public let name: String
    /// The OpenCL C text.
    public let text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// A source from the bytes of an embedded `.cl` file (SwiftPM's `.embedInCode` resources).
    public init(name: String, bytes: [UInt8]) {
        self.init(name: name, text: String(decoding: bytes, as: UTF8.self))
    }

    /// Hashes the name and the text's length, not the whole text: programs are looked up on every launch,
    /// and equality still compares the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(text.utf8.count)
    }
}

/// A source and the build options that specialise it: what a device builds once and caches.
struct KernelProgram: Hashable, Sendable {
    let source: KernelSource
    let options: String

    var name: String { source.name }
}
