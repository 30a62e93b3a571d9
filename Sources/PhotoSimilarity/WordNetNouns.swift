import Foundation

/// WordNet 3.0's nouns, read from its own data files (Debian's `wordnet-base`): a word's senses, and the
/// nouns under each, so that a word a user types finds the things a classifier knows by WordNet's ids
/// (ImageNet's classes are WordNet noun synsets: class `n02084071` is the synset at offset 2084071 of
/// `data.noun`, "dog, domestic dog"). It reads `index.noun` (each noun's synsets, most frequent sense first),
/// `data.noun` (each synset's words and its pointers to the synsets above and below it) and `noun.exc`
/// (irregular plurals). The files are read whole but parsed only where a lookup goes, as WordNet lays them
/// out for: `index.noun` is sorted, for a binary search, and a synset's offset is where its line starts in
/// `data.noun`; so a new process answers a word in milliseconds, not the quarter second parsing all takes.
public struct WordNetNouns: Sendable {
    /// A noun synset: its offset in `data.noun`.
    public typealias Synset = Int

    /// Where Debian's `wordnet-base` puts the files.
    public static let debianFolder = "/usr/share/wordnet"

    private let index: WordNetFile
    private let data: WordNetFile
    /// Where each of `index.noun`'s lines starts, past the licence, in the file's (sorted) order.
    private let indexLines: [Int]
    private let exceptions: [String: [String]]

    /// Whether the files are in `folder`.
    public static func isInstalled(in folder: String = debianFolder) -> Bool {
        ["index.noun", "data.noun", "noun.exc"].allSatisfy {
            FileManager.default.isReadableFile(atPath: folder + "/" + $0)
        }
    }

    /// Reads the noun files in `folder`; an error names a file missing, or the line of the irregular plurals
    /// it could not read (the other files' lines are checked as lookups reach them).
    public init(folder: String = debianFolder) throws(WordNetError) {
        index = try WordNetFile(path: folder + "/index.noun")
        data = try WordNetFile(path: folder + "/data.noun")
        indexLines = index.lineStarts()
        var exceptions: [String: [String]] = [:]
        let plurals = try WordNetFile(path: folder + "/noun.exc")
        for start in plurals.lineStarts() {
            let fields = plurals.fields(at: start)
            guard fields.count >= 2 else { throw plurals.malformed(at: start) }
            exceptions[fields[0]] = Array(fields.dropFirst())
        }
        self.exceptions = exceptions
    }

    /// The noun senses of `word` as a user types it (any case, spaces or hyphens between its words), most
    /// frequent first: of the word itself where WordNet lists it, then of its singular where it reads as a
    /// plural (the irregular plurals' list, then WordNet's rules for regular ones: dogs, boxes, churches,
    /// ladies, women), so that "crabs" is the animals as well as their lice, and "glasses" glass too.
    public func senses(of word: String) throws(WordNetError) -> [Synset] {
        let lemma = word.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" })
            .joined(separator: "_")
        guard !lemma.isEmpty else { return [] }
        let own = try senses(ofLemma: lemma)
        let suffixes = [
            ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
            ("ies", "y"), ("s", ""),
        ]
        let bases =
            (exceptions[lemma] ?? [])
            + suffixes.compactMap { ending, replacement in
                lemma.hasSuffix(ending) ? String(lemma.dropLast(ending.count)) + replacement : nil
            }
        var singular: [Synset] = []
        for base in bases where singular.isEmpty { singular = try senses(ofLemma: base) }
        return own + singular.filter { !own.contains($0) }
    }

    /// `synset` and every noun synset under it: its hyponyms and instances, and theirs, to the leaves.
    public func subtree(of synset: Synset) throws(WordNetError) -> Set<Synset> {
        var found: Set<Synset> = [synset], next = [synset]
        while let current = next.popLast() {
            for child in try record(of: current).below where found.insert(child).inserted { next.append(child) }
        }
        return found
    }

    /// The synsets directly above `synset` (its hypernyms, or the classes it is an instance of).
    public func hypernyms(of synset: Synset) throws(WordNetError) -> [Synset] { try record(of: synset).above }

    /// The words of `synset`, as WordNet writes them (spaces as underscores).
    public func words(of synset: Synset) throws(WordNetError) -> [String] { try record(of: synset).words }

    /// The synsets `index.noun` lists for `lemma` (lower case, underscores between words), found by a binary
    /// search of its sorted lines; none where it has no line.
    private func senses(ofLemma lemma: String) throws(WordNetError) -> [Synset] {
        let key = Array(lemma.utf8)
        var low = 0, high = indexLines.count
        while low < high {
            let middle = (low + high) / 2
            let order = index.compareFirstField(at: indexLines[middle], with: key)
            if order == 0 {
                // lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
                let fields = index.fields(at: indexLines[middle])
                guard fields.count >= 4, let count = Int(fields[2]), let pointers = Int(fields[3]),
                    fields.count == 4 + pointers + 2 + count
                else { throw index.malformed(at: indexLines[middle]) }
                let senses = fields.suffix(count).compactMap { Synset($0) }
                guard senses.count == count else { throw index.malformed(at: indexLines[middle]) }
                return senses
            }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return []
    }

    /// A synset's line of `data.noun`, which starts at its offset.
    private func record(of synset: Synset) throws(WordNetError) -> (words: [String], above: [Synset], below: [Synset]) {
        guard data.isLineStart(synset) else {
            throw .malformed(path: data.path, line: 0, reason: "no synset starts at offset \(synset)")
        }
        // offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (symbol offset pos source/target)… | gloss
        let fields = data.fields(at: synset)
        guard fields.count >= 4, Synset(fields[0]) == synset, let words = Int(fields[3], radix: 16),
            fields.count > 4 + 2 * words, let pointers = Int(fields[4 + 2 * words]),
            fields.count >= 5 + 2 * words + 4 * pointers
        else { throw data.malformed(at: synset) }
        var above: [Synset] = [], below: [Synset] = []
        for index in 0..<pointers {
            let start = 5 + 2 * words + 4 * index
            guard fields[start + 2] == "n", let target = Synset(fields[start + 1]) else { continue }
            switch fields[start] {
            case "~", "~i": below.append(target)
            case "@", "@i": above.append(target)
            default: break
            }
        }
        return ((0..<words).map { fields[4 + 2 * $0] }, above, below)
    }
}

/// One of WordNet's files, read whole, and its lines as WordNet writes them: fields split at spaces, the
/// licence at the top in lines that start with a space, a synset's gloss after " | ".
private struct WordNetFile: Sendable {
    let path: String
    let bytes: [UInt8]

    private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), bar = UInt8(ascii: "|")

    init(path: String) throws(WordNetError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .missing(path: path) }
        self.path = path
        bytes = [UInt8](data)
    }

    /// Where each line that is not licence or empty starts.
    func lineStarts() -> [Int] {
        var starts: [Int] = [], start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: Self.newline) ?? bytes.count
            if end > start, bytes[start] != Self.space { starts.append(start) }
            start = end + 1
        }
        return starts
    }

    /// Whether a line starts at `offset`.
    func isLineStart(_ offset: Int) -> Bool {
        offset >= 0 && offset < bytes.count && (offset == 0 || bytes[offset - 1] == Self.newline)
    }

    /// The fields of the line at `start`, up to its gloss.
    func fields(at start: Int) -> [String] {
        let end = bytes[start...].firstIndex(of: Self.newline) ?? bytes.count
        return bytes[start..<end].prefix { $0 != Self.bar }.split(separator: Self.space).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// How the first field of the line at `start` orders against `key`, byte by byte (WordNet's order).
    func compareFirstField(at start: Int, with key: [UInt8]) -> Int {
        var position = start, index = 0
        while position < bytes.count, bytes[position] != Self.space, bytes[position] != Self.newline {
            guard index < key.count else { return 1 }
            if bytes[position] != key[index] { return bytes[position] < key[index] ? -1 : 1 }
            position += 1
            index += 1
        }
        return index < key.count ? -1 : 0
    }

    /// The error for the line at `start`, numbered as an editor numbers it.
    func malformed(at start: Int) -> WordNetError {
        .malformed(
            path: path, line: bytes[..<start].reduce(1) { $0 + ($1 == Self.newline ? 1 : 0) },
            reason: "not a line of WordNet 3.0's noun files")
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
        case .missing(let path):
            "\(path): WordNet 3.0 is missing (`bash scripts/setup.sh` installs Debian's wordnet-base)"
        case .malformed(let path, let line, let reason): "\(path), line \(line): \(reason)"
        }
    }
}
