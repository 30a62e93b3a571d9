import FaceDetection
import FaceRecognition
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// Our landmarks, chips and embeddings against dlib's own (Tests/Reference, written by
/// scripts/dlib-reference.sh with dlib 20.0.1) on the shared wild photos and ORL faces.
@Suite struct DlibParityTests {
    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
    }

    static func photo(_ face: DlibReference.Face) throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: SharedData.root + "/" + face.photo).rgb()
    }

    static func box(_ face: DlibReference.Face) -> PixelRect {
        PixelRect(
            x: face.box[0], y: face.box[1], width: face.box[2] - face.box[0] + 1, height: face.box[3] - face.box[1] + 1)
    }

    @Test(.needs(.wildPhotos, .orl)) func landmarksInDlibBoxesMatchDlibs() throws {
        let reference = try DlibReference.load(), predictor = try LandmarkPredictor()
        for face in reference.faces {
            let points = predictor.landmarks(in: try Self.photo(face), box: Self.box(face))
            for (ours, theirs) in zip(points, face.landmarks) {
                #expect(
                    abs(Double(ours.x) - theirs[0]) <= 1 && abs(Double(ours.y) - theirs[1]) <= 1,
                    "\(face.photo): landmark \(ours) vs dlib's \(theirs)")
            }
        }
    }

    /// The whole pipeline on our side (cascade or BlazeFace, landmark box, landmarks twice, chip, network)
    /// against dlib's (HOG detector, landmarks, chip, network) on the wild photos' faces both detectors find.
    @Test(.needs(.wildPhotos, .orl), arguments: DetectorChoice.named)
    func ourPipelineLandsNearDlibs(_ detector: DetectorChoice) throws {
        let reference = try DlibReference.load()
        let context = RenderContext(device: .cpu)
        let finder = try detector.finder(context: context)
        let embedder = try FaceEmbedder(context: context)
        var distances: [Float] = []
        for face in reference.faces where face.photo.hasPrefix("wild-photos") {
            let photo = try Self.photo(face)
            let center = (x: Float(face.box[0] + face.box[2]) / 2, y: Float(face.box[1] + face.box[3]) / 2)
            let gray = try context.render(Image(photo).grayscale())
            let found = try finder.faces(in: photo, gray: gray, minimumFaceSize: 40).first { ours in
                abs(Float(ours.rect.x) + Float(ours.rect.width) / 2 - center.x) < Float(ours.rect.width) / 4
                    && abs(Float(ours.rect.y) + Float(ours.rect.height) / 2 - center.y) < Float(ours.rect.height) / 3
            }
            guard let found else { continue }
            distances.append(
                Self.distance(try embedder.embeddings(ofFacesIn: [found.landmarkBox], of: photo)[0], face.descriptor))
        }
        try #require(distances.count >= 15)
        let median = distances.sorted()[distances.count / 2]
        #expect(
            median <= 0.05,
            "\(detector): median distance \(median) from dlib's descriptors over \(distances.count) faces: \(distances)"
        )
    }

    @Test(arguments: [DeviceChoice.cpu, .opencl])
    func dlibChipsGiveDlibDescriptors(_ choice: DeviceChoice) throws {
        try #require(choice == .cpu || TestDevices.hasOpenCL, "no OpenCL platform here")
        try checkDlibChips(RenderContext(device: try TestDevices.device(choice)), label: "\(choice)")
    }

    /// The network as a GPU runs it (shared-tile convolutions), on the OpenCL device at hand.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func dlibChipsGiveDlibDescriptorsOnGPUSchedules() throws {
        let context = RenderContext(device: try TestDevices.openCL.get(), fallsBack: false)
        context.useSchedules(of: .openCL(.gpu))
        try checkDlibChips(context, label: "OpenCL on GPU schedules")
    }

    private func checkDlibChips(_ context: RenderContext, label: String) throws {
        let reference = try DlibReference.load()
        let embedder = try FaceEmbedder(context: context)
        let faces = reference.faces.filter { $0.chip != nil }
        try #require(faces.count >= 3)
        let chips = try PixelBuffer.batch(faces.map { try DlibReference.chip($0.chip!) })
        for (face, embedding) in zip(faces, try embedder.embeddings(of: chips)) {
            let distance = Self.distance(embedding, face.descriptor)
            #expect(distance <= 0.01, "\(face.photo) on \(label): distance \(distance) from dlib's descriptor")
        }
    }

    @Test(.needs(.wildPhotos, .orl), arguments: [DeviceChoice.cpu, .opencl])
    func chipsAndDescriptorsFromDlibLandmarksMatchDlibs(_ choice: DeviceChoice) throws {
        try #require(choice == .cpu || TestDevices.hasOpenCL, "no OpenCL platform here")
        let reference = try DlibReference.load()
        let context = RenderContext(device: try TestDevices.device(choice))
        let embedder = try FaceEmbedder(context: context)
        for face in reference.faces {
            let photo = try Self.photo(face)
            let chip = FaceChip(landmarks: face.landmarks.map { ImagePoint(x: Float($0[0]), y: Float($0[1])) })
            let pixels = try context.render(
                chip.recipe(from: Image(photo), width: photo.descriptor.width, height: photo.descriptor.height))
            if let name = face.chip {
                let theirs = try DlibReference.chip(name).bytes
                let differing = zip(pixels.bytes, theirs).filter { abs(Int($0) - Int($1)) > 1 }.count
                #expect(
                    differing * 1000 <= theirs.count,
                    "\(face.photo): \(differing) chip values differ from dlib's by more than 1")
            }
            let distance = Self.distance(try embedder.embeddings(of: pixels)[0], face.descriptor)
            #expect(distance <= 0.01, "\(face.photo) on \(choice): distance \(distance) from dlib's descriptor")
        }
    }
}

/// Boxes a careless caller or an odd detection could give: nothing crashes, every face gets 128 finite
/// values or a typed error.
@Suite struct EmbedderInputTests {
    @Test(.needs(.wildPhotos, .orl)) func oddBoxesAndPhotos() throws {
        let context = RenderContext(device: .cpu)
        let embedder = try FaceEmbedder(context: context)
        let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/wild-photos/test/obama1.jpg")
        let (width, height) = (photo.descriptor.width, photo.descriptor.height)
        let boxes = [
            PixelRect(x: 0, y: 0, width: 1, height: 1), PixelRect(x: width - 3, y: height - 3, width: 3, height: 3),
            PixelRect(x: -50, y: -40, width: 200, height: 200),
            PixelRect(x: width - 100, y: height - 100, width: 400, height: 400),
            PixelRect(x: 0, y: 0, width: width, height: height),
        ]
        for box in boxes {
            let embeddings = try embedder.embeddings(ofFacesIn: [box], of: photo)
            #expect(
                embeddings.count == 1 && embeddings[0].count == 128 && embeddings[0].allSatisfy(\.isFinite), "\(box)")
        }
        let gray = try ImageDecoder.decode(contentsOf: SharedData.root + "/orl/s1/1.pgm")
        #expect(
            try embedder.embeddings(ofFacesIn: [PixelRect(x: 10, y: 30, width: 70, height: 70)], of: gray)[0].count
                == 128)
        #expect(throws: RecognitionError.self) { try embedder.embeddings(of: gray) }
        #expect(try embedder.embeddings(ofFacesIn: [], of: photo).isEmpty)
    }
}

/// The network on an OpenCL device whose convolution program does not build: the context moves to the
/// CPU device with the weights that were resident on OpenCL, and the embeddings are the CPU device's.
@Suite struct EmbedderFallbackTests {
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func embeddingFallsBackToTheCPUTwins() throws {
        let context = RenderContext(device: try TestDevices.openCL.get().withFailingBuilds(of: ["Convolution"]))
        let embedder = try FaceEmbedder(context: context)  // weights resident on OpenCL
        let chip = try DlibReference.chip(try #require(try DlibReference.load().faces.first { $0.chip != nil }?.chip))
        let (embeddings, said) = try StandardError.withCapture { try embedder.embeddings(of: chip) }
        let embedding = embeddings[0]
        #expect(said.contains("falling back to the CPU device") && said.contains("Convolution"), "\(said)")
        #expect(context.device.kind == .cpu && context.statistics.fallbacks == 1)
        #expect(context.fallbackReason?.contains("Convolution") == true, "\(context.fallbackReason ?? "no reason")")
        let expected = try FaceEmbedder(context: RenderContext(device: .cpu)).embeddings(of: chip)[0]
        #expect(DlibParityTests.distance(embedding, expected) < 1e-6)
    }
}
