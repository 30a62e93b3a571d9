import Foundation
import NeuralNetworks
import PhotoSimilarity
import Testing

/// Words as a user types them read as the classifier's ImageNet classes through WordNet (scripts/setup.sh
/// installs WordNet and fetches the class list): the classes under a word's senses, the nearest where none
/// is, compounds, plurals and several words; an unknown word named; a damaged class list named with its line.
@Suite(
    .enabled(
        if: WordNetNouns.isInstalled()
            && FileManager.default.fileExists(atPath: ModelCache.path(of: ImageNetClasses.file)),
        "needs WordNet 3.0 in /usr/share/wordnet and the class list in the model cache (bash scripts/setup.sh)"))
struct WordClassesTests {
    static let vocabulary = Result { try WordClasses() }

    @Test func aWordNamesTheClassesUnderItsSenses() throws {
        let vocabulary = try Self.vocabulary.get()
        // ImageNet's classes 151 (Chihuahua) to 268 (Mexican hairless) are its 118 dogs.
        let dog = try vocabulary.query(["dog"])
        #expect(dog.terms.count == 1 && !dog.terms[0].nearest)
        #expect(Set(151...268).isSubset(of: dog.terms[0].classes))
        #expect(dog.terms[0].classes.count < 130, "\(dog.terms[0].classes.count) classes")
        #expect(try vocabulary.query(["Dogs"]).terms[0].classes == dog.terms[0].classes)
        let retriever = try vocabulary.query(["golden", "retriever"])
        #expect(retriever.terms.map(\.noun) == ["golden retriever"] && retriever.terms[0].classes == [207])
        #expect(try vocabulary.query(["golden retriever beach"]).terms.map(\.noun) == ["golden retriever", "beach"])
        let vehicles = try vocabulary.query(["vehicle"]).terms[0].classes
        #expect(vehicles.count > 50 && vehicles.contains(817) && vehicles.contains(484), "sports car, catamaran")
    }

    @Test func aWordWithNoClassUnderItNamesTheNearest() throws {
        let vocabulary = try Self.vocabulary.get()
        // No ImageNet class is a sunflower; the daisy (class 985) is the nearest flower, and counts most.
        let sunflower = try #require(try vocabulary.query(["sunflowers"]).terms.first)
        #expect(sunflower.nearest && sunflower.classes.contains(985))
        let daisy = try #require(sunflower.classes.firstIndex(of: 985))
        #expect(sunflower.weights[daisy] == 1 && sunflower.weights.filter { $0 == 1 }.count == 1)
        #expect(sunflower.weights.allSatisfy { $0 >= WordClasses.leastWeight && $0 <= 1 })
        let notes = try vocabulary.notes(on: vocabulary.query(["sunflowers"]))
        let expected =
            "no class the classifier knows is a kind of sunflowers: it finds those nearest in WordNet instead"
        #expect(notes.count == 1 && notes[0].hasPrefix(expected + " (daisy"))
        // Near "man" the adult male (its most frequent sense) lie people, not the pool table of "man" the chess piece.
        let man = try #require(try vocabulary.query(["man"]).terms.first)
        let heaviest = man.classes.indices.max { man.weights[$0] < man.weights[$1] }.map { man.classes[$0] }
        #expect(
            heaviest.map { [981, 983].contains($0) } == true,
            "ballplayer or scuba diver, not \(String(describing: heaviest))")
        // Nearness to the power: infinite keeps the nearest alone.
        #expect(WordClasses.weights(nearness: [0.5, 0.9, 0.9, 0], power: .infinity) == [0, 1, 1, 0])
        #expect(WordClasses.weights(nearness: [0.45, 0.9], power: 2) == [0.25, 1])
        #expect(try vocabulary.notes(on: vocabulary.query(["dog"])).isEmpty)
    }

    @Test func unknownWordsAreNamed() throws {
        let vocabulary = try Self.vocabulary.get()
        #expect(throws: WordSearchError.unknownWords(["qwzx", "blorf"])) {
            try vocabulary.query(["qwzx dog", "blorf"])
        }
        #expect(throws: WordSearchError.noWords) { try vocabulary.query([" ", ""]) }
        #expect(throws: WordSearchError.tooManyWords(33)) { try vocabulary.query(Array(repeating: "dog", count: 33)) }
    }

    @Test func severalWordsScoreThePhotosShowingAll() throws {
        let vocabulary = try Self.vocabulary.get()
        let query = try vocabulary.query(["laptop", "umbrella"])
        let laptop = try #require(query.terms.first?.classes.first)
        let umbrella = try #require(query.terms.last?.classes.first)
        let both = PhotoClasses(classes: [laptop, umbrella, 1], probabilities: [0.5, 0.4, 0.1])
        let one = PhotoClasses(classes: [laptop, 1], probabilities: [0.9, 0.1])
        #expect(abs(query.score(both) - 0.2) < 1e-6 && query.score(one) == 0)
        #expect(query.ranking(of: [one, both]).map(\.index) == [1])
    }

    @Test func aDamagedClassListIsNamedWithItsLine() throws {
        let path = FileManager.default.temporaryDirectory.path + "/classes-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: WordSearchError.classList(.missing(path: path, setup: ModelCache.setupCommand))) {
            try ImageNetClasses(contentsOf: path)
        }
        try Data("n01440764\nn01443537\ncat\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(
            throws: WordSearchError.classList(
                .unreadable(path: path, reason: "line 3 is not the next WordNet noun id in order"))
        ) { try ImageNetClasses(contentsOf: path) }
        try Data("n01440764\nn01443537\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: WordSearchError.classList(.unreadable(path: path, reason: "2 classes, not ImageNet's 1000"))) {
            try ImageNetClasses(contentsOf: path)
        }
    }
}

/// A photo's kept classes: the most probable by softmax, stored and read back exactly, damaged bytes refused,
/// and the best of a ranking as a whole sort finds them.
struct PhotoClassesTests {
    @Test func theMostProbableClassesAreKept() throws {
        let logits: [Float] = [0, 2, 1, 2, -1]
        let classes = PhotoClasses(logits: logits, keeping: 3)
        let total = logits.map { exp(Double($0)) }.reduce(0, +)
        #expect(classes.classes == [1, 3, 2])
        #expect(zip(classes.probabilities, [2.0, 2, 1]).allSatisfy { abs(Double($0) - exp($1) / total) < 1e-6 })
        #expect(PhotoClasses(bytes: classes.bytes, classCount: 5) == classes)
        #expect(PhotoClasses(bytes: classes.bytes.dropLast(), classCount: 5) == nil)
        #expect(PhotoClasses(bytes: classes.bytes, classCount: 3) == nil, "class 3 is past 3 classes")
        var outOfRange = classes.bytes
        outOfRange[5] = 0x7f
        #expect(PhotoClasses(bytes: outOfRange, classCount: 5) == nil, "a probability over 1")
    }

    @Test func theBestOfARankingAreThoseOfAWholeSort() {
        var generator = SystemRandomNumberGenerator()
        let photos = (0..<500).map { _ in
            let classes = Array((0..<20).shuffled(using: &generator).prefix(3))
            // Ties: probabilities from few values.
            return PhotoClasses(classes: classes, probabilities: classes.map { _ in Float(Int.random(in: 0...4)) / 8 })
        }
        let query = WordQuery(terms: [.init(noun: "test", classes: [2, 5, 7], nearest: false)], classCount: 20)
        let whole = query.ranking(of: photos)
        #expect(whole.allSatisfy { $0.score > 0 } && whole.count < 500)
        for count in [1, 7, 50, 1000] {
            #expect(query.ranking(of: photos, best: count).map(\.index) == whole.prefix(count).map(\.index))
        }
        #expect(query.ranking(of: photos, best: 0).isEmpty)
    }

    @Test func listsPerClassScoreAsThePhotosOwnClasses() {
        var generator = SystemRandomNumberGenerator()
        let photos = (0..<300).map { _ in
            let classes = Array((0..<50).shuffled(using: &generator).prefix(Int.random(in: 0...6, using: &generator)))
            return PhotoClasses(
                classes: classes, probabilities: classes.map { _ in Float.random(in: 0...0.5, using: &generator) })
        }
        let postings = ClassPostings(photos, classCount: 50)
        let query = WordQuery(
            terms: [
                .init(noun: "one", classes: [1, 4, 9, 30], nearest: false),
                .init(noun: "two", classes: [4, 7, 49], weights: [0.5, 1, 0.25], nearest: true),
            ], classCount: 50)
        let scores = postings.scores(for: query)
        #expect(postings.photoCount == 300)
        #expect(zip(scores, photos).allSatisfy { abs($0 - query.score($1)) <= 1e-6 })
        #expect(postings.ranking(for: query, best: 20).map(\.index) == query.ranking(of: photos, best: 20).map(\.index))
    }
}
