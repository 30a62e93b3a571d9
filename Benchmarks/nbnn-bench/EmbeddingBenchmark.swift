import BenchmarkSupport
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

    /// Rank-1 accuracy of the embedding matcher on `people` (each person's faces with their photos), the
    /// first K faces of each person in the gallery for each K of `protocols`.
    static func accuracy(set: FaceSet, protocols: [Int], context: RenderContext) throws -> [AccuracyRow] {
        let dataset = set.name
        progress("accuracy on \(dataset): embedding")
        let embeddings = try set.embeddings(try FaceEmbedder(context: context))
        let most = set.faces.map(\.count).max() ?? 0
        return try protocols.map { galleryPerPerson in
            let gallery = EmbeddingGallery(context: context)
            var probes: [(embedding: [Float], person: Int)] = []
            var faceID: Int64 = 0
            for (person, vectors) in embeddings.enumerated() {
                for (index, vector) in vectors.enumerated() {
                    if index < galleryPerPerson {
                        try gallery.append([(vector, FaceID(faceID), ImageID(Int64(person)))])
                        faceID += 1
                    } else {
                        probes.append((vector, person))
                    }
                }
            }
            var correct = 0
            for probe in probes {
                var top = TopImages(1)
                try gallery.search(probe.embedding, into: &top)
                if top.matches.first?.image == ImageID(Int64(probe.person)) { correct += 1 }
            }
            return AccuracyRow(
                dataset: dataset, protocol: "\(galleryPerPerson)/\(most - galleryPerPerson)",
                matcher: Matcher.embedding.rawValue,
                config: "dlib ResNet, 5-point chips", rank1: Double(correct) / Double(max(probes.count, 1)))
        }
    }
}
