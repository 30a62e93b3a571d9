import BenchmarkSupport

/// Faces with their true people, embeddings one after another: a set's own, or grown to `count` by copies
/// of it that are new people: each copy's embeddings turned by its own signed permutation of the coordinates
/// (which keeps every distance within the copy and puts copies far apart) plus noise of ±0.01 a value.
struct GrownFaces {
    let embeddings: [Float]
    let length: Int
    let truth: [Int]

    init(_ people: [[[Float]]], count: Int? = nil) {
        let faces = people.enumerated().flatMap { person, faces in faces.map { (person: person, embedding: $0) } }
        let length = faces.first?.embedding.count ?? 0, total = count ?? faces.count
        var generator = SeededGenerator(seed: 1)
        var embeddings: [Float] = [], truth: [Int] = []
        embeddings.reserveCapacity(total * length)
        var copy = 0
        while truth.count < total {
            let order = copy == 0 ? Array(0..<length) : Array(0..<length).shuffled(using: &generator)
            let signs: [Float] = (0..<length).map { _ in copy == 0 || Bool.random(using: &generator) ? 1 : -1 }
            for face in faces.prefix(total - truth.count) {
                for i in 0..<length {
                    embeddings.append(
                        signs[i] * face.embedding[order[i]]
                            + (copy == 0 ? 0 : Float.random(in: -0.01...0.01, using: &generator)))
                }
                truth.append(copy * people.count + face.person)
            }
            copy += 1
        }
        self.embeddings = embeddings
        self.length = length
        self.truth = truth
    }
}
