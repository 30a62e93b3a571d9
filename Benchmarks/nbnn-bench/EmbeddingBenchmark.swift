import BenchmarkSupport
import FaceDetection
import FaceRecognition
import Foundation
import ImageKernels
import NeuralNetworks

/// One embedding speed figure: faces per second from photo and face box to embedding (landmarks, chip,
/// ResNet), for a device and a batch of faces rendered together.
struct EmbeddingSpeedRow: Encodable {
    let device: String
    let batch: Int
    let facesPerSecond: Double
    let runs: Int
}

/// dlib's face embeddings on our kernels: speed per device and batch, and rank-1 accuracy (a person's
/// gallery embeddings share an image identifier, so the nearest image is the nearest person).
struct EmbeddingBenchmark {
    /// Faces with their photos: the ORL images (92 × 112), the whole image as the face box.
    let faces: [(photo: PixelBuffer, box: PixelRect)]
    let runs: Int

    func speed(devices: [Device], batches: [Int]) throws -> [EmbeddingSpeedRow] {
        var rows: [EmbeddingSpeedRow] = []
        for device in devices {
            let embedder = try FaceEmbedder(context: RenderContext(device: device))
            for batch in batches {
                progress("embedding speed: \(batch) faces per batch on \(device.kind)")
                let chosen = (0..<batch).map { faces[$0 % faces.count] }
                let seconds = try medianSeconds(runs: runs) {
                    _ = try embedder.embeddings(ofFaces: chosen.map { ($0.photo, [$0.box]) })
                }
                rows.append(
                    EmbeddingSpeedRow(
                        device: "\(device.kind)", batch: batch, facesPerSecond: Double(batch) / seconds, runs: runs))
            }
        }
        if let dlib = try dlibSpeed() { rows.append(dlib) }
        return rows
    }

    /// dlib itself on the same faces (5 landmarks + descriptor, one face at a time), when the virtual
    /// environment of scripts/dlib-reference.sh exists.
    private func dlibSpeed() throws -> EmbeddingSpeedRow? {
        let python =
            (ProcessInfo.processInfo.environment["DLIB_VENV"] ?? NSHomeDirectory() + "/.cache/facesearch/dlib-venv")
            + "/bin/python"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../scripts/dlib_speed.py"
        ).standardized.path
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script)
        else {
            progress("no dlib virtual environment (bash scripts/dlib-reference.sh makes one): dlib not timed")
            return nil
        }
        progress("embedding speed: dlib")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, ModelCache.folder, String(runs)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let rate = Double(output.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            progress("dlib timing failed: \(output)")
            return nil
        }
        return EmbeddingSpeedRow(
            device: "dlib 20.0.1 (Python, its own threads)", batch: 1, facesPerSecond: rate, runs: runs)
    }

    /// Rank-1 accuracy of the embedding matcher on `set` (each person's faces with their photos), the first
    /// K faces of each person in the gallery for each K of `protocols`. With `finder` (the set's faces are
    /// the largest it found), each wrong answer is laid at a stage: another face of the probe's photo is the
    /// person (the wrong face was taken), or none is (the match, or the person's face went unfound).
    static func accuracy(
        set: FaceSet, protocols: [Int], finder: (any FaceFinder)?, context: RenderContext
    ) throws -> (rows: [AccuracyRow], failures: [DetectionFailures]) {
        let dataset = set.name
        progress("accuracy on \(dataset): embedding")
        let embedder = try FaceEmbedder(context: context)
        let embeddings = try set.embeddings(embedder)
        let most = set.faces.map(\.count).max() ?? 0
        var rows: [AccuracyRow] = [], failures: [DetectionFailures] = []
        for galleryPerPerson in protocols {
            let gallery = EmbeddingGallery(context: context)
            var probes: [(embedding: [Float], person: Int, photo: PixelBuffer)] = []
            var faceID: Int64 = 0
            for (person, vectors) in embeddings.enumerated() {
                for (index, vector) in vectors.enumerated() {
                    if index < galleryPerPerson {
                        try gallery.append([(vector, FaceID(faceID), ImageID(Int64(person)))])
                        faceID += 1
                    } else {
                        probes.append((vector, person, set.faces[person][index].photo))
                    }
                }
            }
            func nearestPerson(_ embedding: [Float]) throws -> Int? {
                var top = TopImages(1)
                try gallery.search(embedding, into: &top)
                return top.matches.first.map { Int($0.image.rawValue) }
            }
            var correct = 0, wrongFace = 0
            for probe in probes {
                if try nearestPerson(probe.embedding) == probe.person {
                    correct += 1
                } else if let finder {
                    let others = try FaceSet.faces(in: probe.photo, finder: finder, context: context).faces
                    let embedded = try embedder.embeddings(ofFacesIn: others.map(\.landmarkBox), of: probe.photo)
                    if try embedded.contains(where: { try nearestPerson($0) == probe.person }) { wrongFace += 1 }
                }
            }
            let name = "\(galleryPerPerson)/\(most - galleryPerPerson)"
            rows.append(
                AccuracyRow(
                    dataset: dataset, protocol: name, matcher: Matcher.embedding.rawValue,
                    config: "dlib ResNet, 5-point chips", rank1: Double(correct) / Double(max(probes.count, 1))))
            if finder != nil {
                failures.append(
                    DetectionFailures(
                        dataset: dataset, protocol: name, probes: probes.count, wrongFace: wrongFace,
                        wrongMatch: probes.count - correct - wrongFace))
            }
        }
        return (rows, failures)
    }
}

/// With detection, where the embedding's wrong answers of one protocol come from: `wrongFace`, another face
/// found in the probe's photo is the person (the largest was someone else's, or not a face); `wrongMatch`,
/// no face found there is (the person's face was matched wrongly, or not found at all).
struct DetectionFailures: Encodable {
    let dataset: String
    let `protocol`: String
    let probes: Int
    let wrongFace: Int
    let wrongMatch: Int
}
