import Foundation

// embed-kernels ENUM OUTPUT FILE.cl…: writes OUTPUT, a Swift file declaring `public enum ENUM` with each
// file's bytes as a static named after the file (`L2Normalization.cl` → `l2Normalization`). Run by the
// EmbedKernels build plugin.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: embed-kernels ENUM OUTPUT FILE.cl…\n".utf8))
    exit(64)
}
var text = """
    // Written by the EmbedKernels build plugin from the .cl files of this target's folder.

    /// Each `.cl` file of this folder, as bytes.
    public enum \(arguments[1]) {

    """
for path in arguments.dropFirst(3).sorted() {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    text +=
        "    public static let \(name.prefix(1).lowercased() + name.dropFirst()): [UInt8] = ["
        + bytes.map(String.init).joined(separator: ",") + "]\n"
}
text += "}\n"
try text.write(toFile: arguments[2], atomically: true, encoding: .utf8)
