import NeuralNetworks

/// Why photos could not be found by words.
public enum WordSearchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// WordNet's files are missing or damaged.
    case wordNet(WordNetError)
    /// The list of ImageNet's classes is missing or damaged.
    case classList(ModelError)
    /// No word was given.
    case noWords
    /// Words WordNet does not know as nouns, as they were typed.
    case unknownWords([String])
    /// More words than a query takes (``WordClasses/maximumWords``).
    case tooManyWords(Int)

    public var description: String {
        switch self {
        case .wordNet(let error): error.description
        case .classList(let error): error.description
        case .noWords: "no word to search for"
        case .tooManyWords(let count):
            "\(count) words: a search takes at most \(WordClasses.maximumWords) (a photo shows few things at once)"
        case .unknownWords(let words):
            "WordNet 3.0 knows no noun "
                + words.map { "\"\($0)\"" }.joined(separator: ", ")
                + ": try another word for the thing (a photo is found by the nouns for what it shows)"
        }
    }
}
