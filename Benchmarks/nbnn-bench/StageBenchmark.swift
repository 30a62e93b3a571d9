import BenchmarkSupport
import FaceRecognition
import ImageKernels

/// One stage figure: the embedding's rank-1 on a set and protocol with one stage done another way.
struct StageRow: Encodable {
    let dataset: String
    let `protocol`: String
    let stage: String
    let probes: Int
    let rank1: Double
}

/// Where the embedding's wrong answers come from, stage by stage: rank-1 as the index embeds faces (the
/// detector's box, landmarks, 5-point chip, ResNet), then with the whole photo as the landmarks' box (the
/// detector's part), with each face's embedding averaged with its mirror image's (what flipping at
/// embedding time would pay), and averaged over every choice of the gallery faces (how much hangs on
/// which face of a person is in the gallery); and named through people (`FaceClustering` over every face, as
/// a library names a person by one face). The nearest gallery face is found by plain search here.
enum StageBenchmark {
    static func rows(set: FaceSet, galleryPerPerson: Int, embedder: FaceEmbedder) throws -> [StageRow] {
        progress("stages on \(set.name): embedding whole photos and mirror images")
        let indexed = try set.embeddings(embedder)
        let whole = try set.withWholePhotos().embeddings(embedder)
        let mirrors = try set.mirrored().embeddings(embedder)
        let averaged = zip(indexed, mirrors).map { person in
            zip(person.0, person.1).map { zip($0, $1).map { ($0 + $1) / 2 } }
        }
        let most = indexed.map(\.count).max() ?? 0
        let name = "\(galleryPerPerson)/\(most - galleryPerPerson)"
        func row(_ stage: String, _ result: (probes: Int, rank1: Double)) -> StageRow {
            StageRow(dataset: set.name, protocol: name, stage: stage, probes: result.probes, rank1: result.rank1)
        }
        let rotations = (0..<most).map { rank1(indexed, gallery: galleryPerPerson, from: $0) }
        let flat = indexed.flatMap { $0 }
        let clusters = try FaceClustering().clusters(
            of: flat.flatMap { $0 }, length: FaceEmbedder.length, context: embedder.context)
        var offset = 0
        let people = indexed.map { faces in
            defer { offset += faces.count }
            return Array(clusters[offset..<offset + faces.count])
        }
        return [
            row("as indexed: detector's box, landmarks, 5-point chip", rank1(indexed, gallery: galleryPerPerson)),
            row("the whole photo as the landmarks' box", rank1(whole, gallery: galleryPerPerson)),
            row("embedding averaged with the mirror image's", rank1(averaged, gallery: galleryPerPerson)),
            row(
                "named through people: the gallery face's person, where the probe is in it",
                rank1(indexed, gallery: galleryPerPerson, clusters: people)),
            row(
                "as indexed, mean over every choice of gallery faces",
                (
                    rotations.first?.probes ?? 0,
                    rotations.map(\.rank1).reduce(0, +) / Double(max(rotations.count, 1))
                )),
        ]
    }

    /// Rank-1 with `gallery` faces of each person in the gallery, from face `from` on (wrapping round), the
    /// rest probes: the share of probes whose nearest gallery face is their person's. With `clusters` (each
    /// face's cluster, as `people`), a probe is given the nearest gallery face in its own cluster where there
    /// is one, as a name given to one face names its person.
    static func rank1(
        _ people: [[[Float]]], gallery: Int, from: Int = 0, clusters: [[Int?]]? = nil
    ) -> (probes: Int, rank1: Double) {
        typealias Face = (person: Int, embedding: [Float], cluster: Int?)
        var galleryFaces: [Face] = [], probes: [Face] = []
        for (person, faces) in people.enumerated() {
            for (index, embedding) in faces.enumerated() {
                let chosen = (index - from % faces.count + faces.count) % faces.count < gallery
                let face = (person, embedding, clusters?[person][index])
                if chosen { galleryFaces.append(face) } else { probes.append(face) }
            }
        }
        let correct = probes.filter { probe in
            let sameCluster = galleryFaces.filter { probe.cluster != nil && $0.cluster == probe.cluster }
            return (sameCluster.isEmpty ? galleryFaces : sameCluster).min {
                squaredDistance($0.embedding, probe.embedding) < squaredDistance($1.embedding, probe.embedding)
            }?
            .person == probe.person
        }.count
        return (probes.count, Double(correct) / Double(max(probes.count, 1)))
    }

    private static func squaredDistance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
    }
}
