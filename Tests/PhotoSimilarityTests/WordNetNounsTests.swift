import Foundation
import PhotoSimilarity
import Testing

/// WordNet 3.0's nouns as Debian's wordnet-base installs them (scripts/setup.sh): a word's senses as a user
/// types it, the nouns under a sense (ImageNet's dog breeds under "dog"), and a damaged file named with its
/// line.
@Suite(
    .enabled(
        if: WordNetNouns.isInstalled(),
        "WordNet 3.0 is not in /usr/share/wordnet (scripts/setup.sh installs Debian's wordnet-base)"))
struct WordNetNounsTests {
    static let nouns = Result { try WordNetNouns() }

    @Test func wordsAsUsersTypeThem() throws {
        let nouns = try Self.nouns.get()
        let dog = try #require(nouns.senses(of: "dog").first)
        #expect(try dog == 2_084_071 && nouns.words(of: dog).contains("domestic_dog"))
        #expect(try nouns.senses(of: "Dogs") == nouns.senses(of: "dog"))
        #expect(try nouns.senses(of: "mice") == nouns.senses(of: "mouse") && !nouns.senses(of: "mouse").isEmpty)
        #expect(try nouns.senses(of: "boxes") == nouns.senses(of: "box"))
        // "crabs" is a noun of its own (an infestation) and the plural of the animal.
        let crabs = try nouns.senses(of: "crabs"), crab = try nouns.senses(of: "crab")
        #expect(crabs.count > crab.count && Set(crab).isSubset(of: crabs) && crabs.first.map(crab.contains) == false)
        #expect(try nouns.senses(of: "ladies") == nouns.senses(of: "lady"))
        #expect(try nouns.senses(of: "hot dog") == nouns.senses(of: "hot-dog") && !nouns.senses(of: "hot dog").isEmpty)
        #expect(try nouns.senses(of: "qwertyzzz").isEmpty && nouns.senses(of: "").isEmpty)
    }

    @Test func theNounsUnderASense() throws {
        let nouns = try Self.nouns.get()
        let dogs = try nouns.subtree(of: 2_084_071)
        // Chihuahua (n02085620) and Siberian husky (n02110185), ImageNet classes, lie under "dog".
        #expect(dogs.contains(2_085_620) && dogs.contains(2_110_185) && dogs.contains(2_084_071))
        #expect(!dogs.contains(2_121_808), "a domestic cat is no dog")
        #expect(try nouns.hypernyms(of: 2_085_620) == [2_085_374], "Chihuahua is a toy dog")
        let vehicles = try #require(nouns.senses(of: "vehicle").first)
        #expect(try nouns.subtree(of: vehicles).contains(2_958_343), "a car is a vehicle")
        // Instances count too: Etna (n09174718) is an instance of a volcano.
        #expect(try nouns.senses(of: "volcano").contains { try nouns.subtree(of: $0).contains(9_174_718) })
    }

    @Test func aDamagedFileIsNamedWithItsLine() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/wordnet-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: WordNetError.missing(path: folder + "/index.noun")) { try WordNetNouns(folder: folder) }
        let write = { (name: String, text: String) in
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        try write("index.noun", "  licence\ncat n 2 0\ndog n 1 0 1 0 00000010\n")
        try write("data.noun", "  licence\n00000010 05 n 01 dog 0 001 @ 00000099 n 0000 | a dog\n")
        try write("noun.exc", "mice mouse\n")
        let nouns = try WordNetNouns(folder: folder)
        let malformed = { (name: String, line: Int) in
            WordNetError.malformed(
                path: folder + "/" + name, line: line, reason: "not a line of WordNet 3.0's noun files")
        }
        #expect(try nouns.senses(of: "dog") == [10] && nouns.words(of: 10) == ["dog"])
        #expect(throws: malformed("index.noun", 2)) { try nouns.senses(of: "cat") }
        #expect(
            throws: WordNetError.malformed(
                path: folder + "/data.noun", line: 0, reason: "no synset starts at offset 99")
        ) {
            try nouns.hypernyms(of: try nouns.hypernyms(of: 10)[0])
        }
        try write("noun.exc", "mice\n")
        #expect(throws: malformed("noun.exc", 1)) { try WordNetNouns(folder: folder) }
    }
}
