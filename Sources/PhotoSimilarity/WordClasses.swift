import Foundation
import Synchronization

/// Which of the classifier's ImageNet classes a word a user types names, through WordNet 3.0: the classes
/// whose synsets are the word's noun senses or lie under them ("dog": 118 breeds; "vehicle": every car, boat
/// and plane); for a word with none under it, the classes near its most frequent sense in WordNet's
/// hierarchy, weighted by how near (Wu–Palmer similarity: "sunflower" finds the daisy, a fellow flower,
/// first).
public struct WordClasses: Sendable {
    public let nouns: WordNetNouns
    public let classes: ImageNetClasses
    private let classOfSynset: [WordNetNouns.Synset: Int]
    /// The classes' paths up WordNet, read at the first word none lies under and kept for the next (a server's).
    private let classPaths = ClassPaths()

    /// The longest run of typed words read as one noun ("golden retriever", "ice cream").
    public static let longestCompound = 3
    /// The most words a query takes: each more multiplies a photo's score by a probability, and past a few
    /// no photo scores above 0.
    public static let maximumWords = 32

    public init(nouns: WordNetNouns, classes: ImageNetClasses) {
        self.nouns = nouns
        self.classes = classes
        classOfSynset = Dictionary(uniqueKeysWithValues: classes.synsets.enumerated().map { ($1, $0) })
    }

    /// WordNet from Debian's folder and the class list from the model cache.
    public init() throws(WordSearchError) {
        let nouns: WordNetNouns
        do { nouns = try WordNetNouns() } catch { throw .wordNet(error) }
        self.init(nouns: nouns, classes: try ImageNetClasses())
    }

    /// The query for `text` (words as typed, any number to an argument): runs of words WordNet knows as one
    /// noun are read as one, longest first; every word or run must be a noun WordNet knows.
    public func query(_ text: [String]) throws(WordSearchError) -> WordQuery {
        let words = text.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        guard !words.isEmpty else { throw .noWords }
        guard words.count <= Self.maximumWords else { throw .tooManyWords(words.count) }
        var terms: [WordQuery.Term] = [], unknown: [String] = [], start = 0
        do {
            while start < words.count {
                var found: (length: Int, noun: String, senses: [WordNetNouns.Synset])?
                for length in (1...min(Self.longestCompound, words.count - start)).reversed() where found == nil {
                    let noun = words[start..<start + length].joined(separator: " ")
                    let senses = try nouns.senses(of: noun)
                    if !senses.isEmpty { found = (length, noun, senses) }
                }
                guard let found else {
                    unknown.append(words[start])
                    start += 1
                    continue
                }
                terms.append(try term(for: found.noun, senses: found.senses))
                start += found.length
            }
        } catch {
            throw .wordNet(error)
        }
        guard unknown.isEmpty else { throw .unknownWords(unknown) }
        return WordQuery(terms: terms, classCount: classes.synsets.count)
    }

    /// What a person should know of how `query` was read: for each term whose classes are near it, the
    /// nearest few and how many more.
    public func notes(on query: WordQuery) throws(WordSearchError) -> [String] {
        var notes: [String] = []
        for term in query.terms where term.nearest {
            // The classes weighted half or more, heaviest first, up to three by name.
            let order = term.classes.indices.sorted { (term.weights[$0], $1) > (term.weights[$1], $0) }
            let named = order.prefix { term.weights[$0] >= 0.5 }.prefix(3).map { term.classes[$0] }
            var names: [String] = []
            for index in named {
                let words: [String]
                do { words = try nouns.words(of: classes.synsets[index]) } catch { throw .wordNet(error) }
                names.append((words.first ?? "class \(index)").replacingOccurrences(of: "_", with: " "))
            }
            let others = term.classes.count - named.count
            let more = others > 0 ? ", then \(others) more, weighted less" : ""
            notes.append(
                "no class the classifier knows is a kind of \(term.noun): it finds those nearest in WordNet instead ("
                    + names.joined(separator: ", ") + more + ")")
        }
        return notes
    }

    /// The classes `noun` (whose `senses` these are) names: those under its senses, else those near the first.
    private func term(for noun: String, senses: [WordNetNouns.Synset]) throws(WordNetError) -> WordQuery.Term {
        var under: Set<Int> = []
        for sense in senses {
            for synset in try nouns.subtree(of: sense) { if let index = classOfSynset[synset] { under.insert(index) } }
        }
        guard under.isEmpty else { return WordQuery.Term(noun: noun, classes: under.sorted(), nearest: false) }
        // Near its most frequent sense only: near all of them, a rare sense's neighbours win as often as not
        // ("man" the chess piece found the pool table, "man" the adult male finds the people).
        let weights = Self.weights(nearness: try similarities(to: senses[0]))
        let near = weights.indices.filter { weights[$0] >= Self.leastWeight }
        return WordQuery.Term(noun: noun, classes: near, weights: near.map { weights[$0] }, nearest: true)
    }

    /// How sharply the weight of a class falls with its distance from a word with no class under it: its
    /// Wu–Palmer similarity over the nearest class's, to this power. With each of caltech-dev's words' own
    /// classes withheld (word-bench's proxy for words ImageNet lacks), mAP 0.499 at 32 against 0.400 for the
    /// nearest alone (0.456 at 16, 0.488 at 64).
    public static let nearnessPower = 32.0

    /// Classes weighted less than this are left out of a word's.
    public static let leastWeight: Float = 1e-3

    /// Each class's weight for a word none lies under, from its similarity to the word (``similarities(to:)``):
    /// its similarity over the nearest class's, to the `power` (infinite: the nearest alone, 1 each).
    public static func weights(nearness similarities: [Double], power: Double = nearnessPower) -> [Float] {
        let best = similarities.max() ?? 0
        guard best > 0 else { return similarities.map { _ in 0 } }
        return similarities.map { Float(pow($0 / best, power)) }
    }

    /// Each class's Wu–Palmer similarity to `sense`: twice the depth of the deepest synset above both, over
    /// the sum of their depths through it (depths from WordNet's root, which is 1); 1 for the sense itself.
    public func similarities(to sense: WordNetNouns.Synset) throws(WordNetError) -> [Double] {
        let kept = try classPaths.value { () throws(WordNetError) in
            // The 1,000 classes' paths up meet within a few thousand synsets: each line is read once.
            var tree = Hypernyms(nouns: nouns)
            var paths: [[WordNetNouns.Synset: Int]] = []
            for synset in classes.synsets { paths.append(try tree.ancestors(of: synset)) }
            return (tree, paths)
        }
        var tree = kept.0
        let paths = kept.1, senseAncestors = try tree.ancestors(of: sense)
        var similarities = [Double](repeating: 0, count: classes.synsets.count)
        for (index, classAncestors) in paths.enumerated() {
            for (common, senseDistance) in senseAncestors {
                guard let classDistance = classAncestors[common] else { continue }
                let depth = Double(try tree.deepestPath(from: common) + 1)
                similarities[index] = max(
                    similarities[index], 2 * depth / (Double(senseDistance + classDistance) + 2 * depth))
            }
        }
        return similarities
    }
}

/// The classes' synsets with the synsets above each (and their fewest steps up), and the hypernyms read to
/// find them, made once.
private final class ClassPaths: Sendable {
    private let made = Mutex<(Hypernyms, [[WordNetNouns.Synset: Int]])?>(nil)

    func value(
        _ make: () throws(WordNetError) -> (Hypernyms, [[WordNetNouns.Synset: Int]])
    ) throws(WordNetError) -> (Hypernyms, [[WordNetNouns.Synset: Int]]) {
        if let kept = made.withLock({ $0 }) { return kept }
        let value = try make()
        made.withLock { $0 = value }
        return value
    }
}

/// The synsets above others, each read from WordNet once.
private struct Hypernyms: Sendable {
    let nouns: WordNetNouns
    private var parents: [WordNetNouns.Synset: [WordNetNouns.Synset]] = [:]
    private var depths: [WordNetNouns.Synset: Int] = [:]

    init(nouns: WordNetNouns) { self.nouns = nouns }

    mutating func parents(of synset: WordNetNouns.Synset) throws(WordNetError) -> [WordNetNouns.Synset] {
        if let known = parents[synset] { return known }
        let read = try nouns.hypernyms(of: synset)
        parents[synset] = read
        return read
    }

    /// `synset` and every synset above it, each with its fewest steps up from `synset`.
    mutating func ancestors(of synset: WordNetNouns.Synset) throws(WordNetError) -> [WordNetNouns.Synset: Int] {
        var distances = [synset: 0], next = [synset]
        while !next.isEmpty {
            var following: [WordNetNouns.Synset] = []
            for current in next {
                let step = (distances[current] ?? 0) + 1
                for parent in try parents(of: current) where distances[parent] == nil {
                    distances[parent] = step
                    following.append(parent)
                }
            }
            next = following
        }
        return distances
    }

    /// The most steps from `synset` up to a root.
    mutating func deepestPath(from synset: WordNetNouns.Synset) throws(WordNetError) -> Int {
        if let known = depths[synset] { return known }
        var deepest = 0
        for parent in try parents(of: synset) { deepest = max(deepest, try deepestPath(from: parent) + 1) }
        depths[synset] = deepest
        return deepest
    }
}
