import Foundation
import ImageKernels

/// People's names as they are stored: without spaces around them, in Unicode's composed form (so that
/// "Zoë" typed on any keyboard finds the same person), at most `maximumLength` characters, and plain text
/// (no line breaks, no control characters, no bytes that were not UTF-8).
public enum PersonName {
    /// The longest name kept, in characters.
    public static let maximumLength = 100

    /// `name` as it is stored, or why it cannot be a name.
    public static func stored(_ name: String) throws(CatalogError) -> String {
        let stored = normalized(name)
        func refuse(_ reason: String) -> CatalogError { .invalidName(name: name, reason: reason) }
        guard !stored.isEmpty else { throw refuse("it is empty or only spaces") }
        guard stored.count <= maximumLength else {
            throw refuse("\(stored.count) characters, more than \(maximumLength)")
        }
        guard !FileSystemPath.hasRawBytes(stored) else { throw refuse("it is not UTF-8 text") }
        let breaks: [Unicode.GeneralCategory] = [.control, .lineSeparator, .paragraphSeparator]
        guard !stored.unicodeScalars.contains(where: { breaks.contains($0.properties.generalCategory) }) else {
            throw refuse("it holds a line break or a control character")
        }
        return stored
    }

    /// `name` as it would be stored, for finding a person by name.
    static func normalized(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }
}
