import Foundation
import ImageKernels

/// People's names as they are stored: without spaces around them, in Unicode's composed form (so that
/// "Zoë" typed on any keyboard finds the same person), at most `maximumLength` characters, and plain text
/// (no line breaks, no control characters, no bytes that were not UTF-8, none of the marks that turn text
/// right to left, which make a name read as another). Two names that differ only in case name one person.
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
        guard !stored.unicodeScalars.contains(where: directionMarks.contains) else {
            throw refuse("it holds a mark that changes the direction of text")
        }
        return stored
    }

    /// Unicode's explicit direction formatting: the marks, embeddings, overrides and isolates.
    static let directionMarks: Set<Unicode.Scalar> = Set(
        [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
            .compactMap(Unicode.Scalar.init))

    /// What two names that name one person share: the stored form, in lower case.
    static func key(_ name: String) -> String { normalized(name).lowercased() }

    /// `name` as it would be stored, for finding a person by name.
    static func normalized(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }
}
