import Foundation

/// Progress for a person watching; the tables go to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("nbnn-bench: \(message)\n".utf8))
}
