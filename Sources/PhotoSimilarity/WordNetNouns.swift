import Foundation

/// WordNet 3.0's nouns, read from its own data files (Debian's `wordnet-base`): a word's senses, and the
/// nouns under each, so that a word a user types finds the things a classifier knows by WordNet's ids
/// (ImageNet's classes are WordNet noun synsets: class `n02084071` is the synset at offset 2084071 of
/// `data.noun`, "dog, domestic dog"). It reads `index.noun` (each noun's synsets, most frequent sense first),
/// `data.noun` (each synset's words and its pointers to the synsets above and below it) and `noun.exc`
/// (irregular plurals).
public struct WordNetNouns: Sendable {
    /// A noun synset: its offset in `data.noun`.
    public typealias Synset = Int

    /// Where Debian's `wordnet-base` puts the files.
    public static let debianFolder = "/usr/share/wordnet"

    private let senses: [String: [Synset]]
    private let below: [Synset: [Synset]]
    private let above: [Synset: [Synset]]
    private let lemmas: [Synset: [String]]
    private let exceptions: [String: [String]]

    /// Whether the files are in `folder`.
    public static func isInstalled(in folder: String = debianFolder) -> Bool {
        ["index.noun", "data.noun", "noun.exc"].allSatisfy {
            FileManager.default.isReadableFile(atPath: folder + "/" + $0)
        }
    }

    /// Reads the noun files in `folder`; an error names the file missing or the line it could not read.
    public init(folder: String = debianFolder) throws(WordNetError) {
        var senses: [String: [Synset]] = [:]
        try Self.lines(of: folder + "/index.noun") { fields throws(WordNetError) in
            // lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
            guard fields.count >= 4, let count = Int(fields[2]), let pointers = Int(fields[3]),
                fields.count == 4 + pointers + 2 + count
            else { return false }
            senses[String(fields[0])] = fields.suffix(count).compactMap { Synset($0) }
            return true
        }
        var below: [Synset: [Synset]] = [:], above: [Synset: [Synset]] = [:], lemmas: [Synset: [String]] = [:]
        try Self.lines(of: folder + "/data.noun") { fields throws(WordNetError) in
            // offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (symbol offset pos source/target)… | gloss
            guard fields.count >= 4, let offset = Synset(fields[0]), let words = Int(fields[3], radix: 16),
                fields.count > 4 + 2 * words, let pointers = Int(fields[4 + 2 * words]),
                fields.count >= 5 + 2 * words + 4 * pointers
            else { return false }
            lemmas[offset] = (0..<words).map { String(fields[4 + 2 * $0]) }
            for index in 0..<pointers {
                let start = 5 + 2 * words + 4 * index
                guard fields[start + 2] == "n", let target = Synset(fields[start + 1]) else { continue }
                switch fields[start] {
                case "~", "~i": below[offset, default: []].append(target)
                case "@", "@i": above[offset, default: []].append(target)
                default: break
                }
            }
            return true
        }
        var exceptions: [String: [String]] = [:]
        try Self.lines(of: folder + "/noun.exc") { fields throws(WordNetError) in
            guard fields.count >= 2 else { return false }
            exceptions[String(fields[0])] = fields.dropFirst().map(String.init)
            return true
        }
        (self.senses, self.below, self.above, self.lemmas, self.exceptions) = (senses, below, above, lemmas, exceptions)
    }

    /// The noun senses of `word` as a user types it (any case, spaces or hyphens between its words), most
    /// frequent first: of the word itself where WordNet lists it, then of its singular where it reads as a
    /// plural (the irregular plurals' list, then WordNet's rules for regular ones: dogs, boxes, churches,
    /// ladies, women), so that "crabs" is the animals as well as their lice, and "glasses" glass too.
    public func senses(of word: String) -> [Synset] {
        let lemma = word.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" })
            .joined(separator: "_")
        let own = senses[lemma] ?? []
        let suffixes = [
            ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
            ("ies", "y"), ("s", ""),
        ]
        let bases =
            (exceptions[lemma] ?? [])
            + suffixes.compactMap { ending, replacement in
                lemma.hasSuffix(ending) ? String(lemma.dropLast(ending.count)) + replacement : nil
            }
        let singular = bases.lazy.compactMap { senses[$0] }.first ?? []
        return own + singular.filter { !own.contains($0) }
    }

    /// `synset` and every noun synset under it: its hyponyms and instances, and theirs, to the leaves.
    public func subtree(of synset: Synset) -> Set<Synset> {
        var found: Set<Synset> = [synset], next = [synset]
        while let current = next.popLast() {
            for child in below[current] ?? [] where found.insert(child).inserted { next.append(child) }
        }
        return found
    }

    /// The synsets directly above `synset` (its hypernyms, or the classes it is an instance of).
    public func hypernyms(of synset: Synset) -> [Synset] { above[synset] ?? [] }

    /// The words of `synset`, as WordNet writes them (spaces as underscores); empty for an offset it lacks.
    public func words(of synset: Synset) -> [String] { lemmas[synset] ?? [] }

    /// Calls `body` with each line's fields (split at spaces), past the licence at the top of each file (lines
    /// that start with a space); a line `body` cannot read is an error naming it.
    private static func lines(
        of path: String, _ body: ([Substring]) throws(WordNetError) -> Bool
    ) throws(WordNetError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .missing(path: path) }
        let bytes = [UInt8](data), newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        var start = 0, number = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: newline) ?? bytes.count
            let line = bytes[start..<end]
            (start, number) = (end + 1, number + 1)
            guard let first = line.first, first != space else { continue }
            // A synset's gloss, after " | ", holds nothing read here and most of the file's bytes.
            let fields = line.prefix { $0 != UInt8(ascii: "|") }.split(separator: space).map {
                Substring(String(decoding: $0, as: UTF8.self))
            }
            guard try body(fields) else {
                throw .malformed(path: path, line: number, reason: "not a line of WordNet 3.0's noun files")
            }
        }
    }
}

/// Why WordNet's files could not be read.
public enum WordNetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file is not there (Debian's `wordnet-base` installs them; `scripts/setup.sh` does).
    case missing(path: String)
    /// A line of a file is not what WordNet 3.0 writes.
    case malformed(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .missing(let path): "\(path): WordNet 3.0 is missing (Debian's wordnet-base installs it)"
        case .malformed(let path, let line, let reason): "\(path), line \(line): \(reason)"
        }
    }
}
