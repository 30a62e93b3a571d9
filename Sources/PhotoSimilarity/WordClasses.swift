/// Which of the classifier's ImageNet classes a word a user types names, through WordNet 3.0: the classes
/// whose synsets are the word's noun senses or lie under them ("dog": 118 breeds; "vehicle": every car, boat
/// and plane); for a word with none under it, the classes nearest to its most frequent sense in WordNet's
/// hierarchy (Wu–Palmer similarity: "sunflower" finds the daisy, a fellow flower).
public struct WordClasses: Sendable {
    public let nouns: WordNetNouns
    public let classes: ImageNetClasses
    private let classOfSynset: [WordNetNouns.Synset: Int]

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

    /// What a person should know of how `query` was read: for each term whose classes are the nearest, which
    /// they are.
    public func notes(on query: WordQuery) throws(WordSearchError) -> [String] {
        var notes: [String] = []
        for term in query.terms where term.nearest {
            var names: [String] = []
            for index in term.classes {
                let words: [String]
                do { words = try nouns.words(of: classes.synsets[index]) } catch { throw .wordNet(error) }
                names.append((words.first ?? "class \(index)").replacingOccurrences(of: "_", with: " "))
            }
            notes.append(
                "no class the classifier knows is a kind of \(term.noun): it finds the nearest in WordNet instead ("
                    + names.joined(separator: ", ") + ")")
        }
        return notes
    }

    /// The classes `noun` (whose `senses` these are) names: those under its senses, else the nearest.
    private func term(for noun: String, senses: [WordNetNouns.Synset]) throws(WordNetError) -> WordQuery.Term {
        var under: Set<Int> = []
        for sense in senses {
            for synset in try nouns.subtree(of: sense) { if let index = classOfSynset[synset] { under.insert(index) } }
        }
        guard under.isEmpty else { return WordQuery.Term(noun: noun, classes: under.sorted(), nearest: false) }
        // The nearest to its most frequent sense only: to all of them, a rare sense's neighbours win as often as
        // not ("man" the chess piece found the pool table, "man" the adult male finds the people).
        return WordQuery.Term(noun: noun, classes: try nearestClasses(to: senses[0]), nearest: true)
    }

    /// The classes most similar to `sense` by Wu–Palmer similarity (ties all kept): twice the depth of the
    /// deepest synset above both, over the sum of their depths through it (depths from WordNet's root, which
    /// is 1).
    private func nearestClasses(to sense: WordNetNouns.Synset) throws(WordNetError) -> [Int] {
        // The 1,000 classes' paths up meet within a few thousand synsets: each line is read once.
        var tree = Hypernyms(nouns: nouns)
        let senseAncestors = try tree.ancestors(of: sense)
        var best = 0.0, nearest: [Int] = []
        for (index, synset) in classes.synsets.enumerated() {
            let classAncestors = try tree.ancestors(of: synset)
            for (common, senseDistance) in senseAncestors {
                guard let classDistance = classAncestors[common] else { continue }
                let depth = Double(try tree.deepestPath(from: common) + 1)
                let similarity = 2 * depth / (Double(senseDistance + classDistance) + 2 * depth)
                if similarity > best + 1e-9 {
                    (best, nearest) = (similarity, [index])
                } else if similarity > best - 1e-9, nearest.last != index {
                    nearest.append(index)
                }
            }
        }
        return nearest
    }
}

/// The synsets above others, each read from WordNet once.
private struct Hypernyms {
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

/// Words as classes to score photos by: each term (a noun as typed) names classes, a photo's score for a
/// term is the probability it shows one of them, and its score for the query is the product over the terms,
/// so that "dog beach" ranks first the photos likeliest to show both.
public struct WordQuery: Sendable {
    /// One noun of the query and the classes it names.
    public struct Term: Sendable, Equatable {
        /// The noun as typed (a run of words for a compound).
        public let noun: String
        /// The classes it names, in order.
        public let classes: [Int]
        /// Whether no class lies under the noun, and these are the nearest in WordNet instead.
        public let nearest: Bool

        public init(noun: String, classes: [Int], nearest: Bool) {
            (self.noun, self.classes, self.nearest) = (noun, classes, nearest)
        }
    }

    public let terms: [Term]
    private let weights: [[Float]]

    /// A query of `terms`, whose classes are below `classCount`.
    public init(terms: [Term], classCount: Int) {
        self.terms = terms
        weights = terms.map { term in
            var weights = [Float](repeating: 0, count: classCount)
            for index in term.classes { weights[index] = 1 }
            return weights
        }
    }

    /// How well the photo matches: the product of its probabilities of showing each term.
    public func score(_ photo: PhotoClasses) -> Float {
        weights.reduce(1) { $0 * photo.probability(weightedBy: $1) }
    }

    /// The `count` best of `photos` (every one when nil) by ``score(_:)``, best first, ties to the earlier
    /// photo; photos that score 0 (none of their kept classes is named) are left out.
    public func ranking(of photos: [PhotoClasses], best count: Int? = nil) -> [(index: Int, score: Float)] {
        guard count != 0 else { return [] }
        var scored: [(index: Int, score: Float)] = []
        for (index, photo) in photos.enumerated() {
            let score = score(photo)
            if score > 0 { scored.append((index, score)) }
        }
        let ordered = { (a: (index: Int, score: Float), b: (index: Int, score: Float)) in
            (a.score, b.index) > (b.score, a.index)
        }
        guard let count, count < scored.count else { return scored.sorted(by: ordered) }
        // The best `count` kept in a sorted buffer: most photos fall below its last and are passed over.
        var best = Array(scored.prefix(count)).sorted(by: ordered)
        for candidate in scored.dropFirst(count) where ordered(candidate, best[count - 1]) {
            let position = best.firstIndex { ordered(candidate, $0) } ?? count - 1
            best.insert(candidate, at: position)
            best.removeLast()
        }
        return best
    }
}
