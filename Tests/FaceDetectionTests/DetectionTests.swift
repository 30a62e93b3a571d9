import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// Detection on the shared wild photos with OpenCV's frontal-face Haar model and OpenCV's parameters.
@Suite(.needs(.wildPhotos)) struct DetectionTests {
    static let photos = SharedData.root + "/wild-photos"
    static let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 5, minSize: 40)

    /// A detector on `choice`, with the schedules written for `schedules` where that is given.
    static func detector(
        _ choice: DeviceChoice, _ path: String = CascadeModel.frontalFaceHaarPath,
        schedules: DeviceKind? = nil
    ) throws -> CascadeDetector {
        let context = RenderContext(device: try TestDevices.device(choice))
        context.useSchedules(of: schedules)
        return try CascadeDetector(model: try CascadeModel(contentsOf: path), context: context)
    }

    /// The fastest device here: debug builds make the CPU twin slow, OpenCL kernels are compiled by the driver.
    static var fastest: DeviceChoice { TestDevices.hasOpenCL ? .opencl : .cpu }

    static func gray(_ name: String, longSide: Int? = nil) throws -> PixelBuffer {
        try ImageDecoder.decode(
            contentsOf: photos + "/" + name, options: DecodingOptions(grayscale: true, minimumLongSide: longSide))
    }

    @Test func everySinglePersonTrainingPhotoYieldsAFace() throws {
        let detector = try Self.detector(Self.fastest)
        let folder = Self.photos + "/train"
        for person in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            for file in try FileManager.default.contentsOfDirectory(atPath: folder + "/" + person).sorted() {
                let faces = try detector.detect(in: try Self.gray("train/\(person)/\(file)"), options: Self.options)
                #expect(!faces.isEmpty, "no face in train/\(person)/\(file)")
            }
        }
    }

    /// Both people are found, and no more boxes than OpenCV 4.6 reports with the same model and parameters.
    @Test(arguments: [("test/obama_and_biden.jpg", 5), ("test/kit_with_rose.jpg", 4), ("misc/two_people.jpg", 2)])
    func twoPeoplePhotos(_ photo: String, openCVBoxes: Int) throws {
        let image = try Self.gray(photo)
        let faces = try Self.detector(Self.fastest).detect(in: image, options: Self.options)
        #expect(faces.count >= 2 && faces.count <= openCVBoxes, "\(photo): \(faces)")
        // The two strongest clusters are two different people: side by side, similar in size.
        let strongest = faces.prefix(2).map(\.rect)
        if strongest.count == 2 {
            let gap = abs((strongest[0].x + strongest[0].width / 2) - (strongest[1].x + strongest[1].width / 2))
            #expect(gap > min(strongest[0].width, strongest[1].width) / 2, "\(photo): \(faces)")
        }
    }

    /// Every photo under wild-photos, recursively.
    static var allPhotos: [String] {
        let files = FileManager.default.enumerator(atPath: photos)?.compactMap { $0 as? String } ?? []
        return files.filter { [".jpg", ".jpeg", ".png"].contains(where: $0.lowercased().hasSuffix) }.sorted()
    }

    /// The upright Haar, LBP and a tilted-Haar model, which the device comparisons run.
    static let comparedModels = [
        CascadeModel.frontalFaceHaarPath, CascadeModel.frontalFaceLBPPath,
        CascadeModel.haarFolder + "/haarcascade_upperbody.xml",
    ]

    /// The wild photos a device comparison runs `model` on: every third, a different third for each model, so that
    /// every photo and every model is compared, at a third of the cost of every pair (two minutes of CI's).
    static func comparedPhotos(for model: String) -> [String] {
        let turn = comparedModels.firstIndex(of: model) ?? 0
        return allPhotos.enumerated().filter { $0.offset % comparedModels.count == turn }.map(\.element)
    }

    /// Every raw window detection (no grouping) is the same on both devices (on OpenCL also with the schedules
    /// written for GPUs), for the wild photos, each with one of the upright Haar, LBP and a tilted-Haar model.
    /// Photos are DCT-scaled to a long side of at least 640 pixels, as indexing decodes them, so that the
    /// debug-built CPU twin finishes in seconds.
    @Test(arguments: comparedModels)
    func devicesGiveIdenticalBoxes(_ model: String) throws {
        guard TestDevices.hasOpenCL else { return }
        let cpu = try Self.detector(.cpu, model), openCL = try Self.detector(.opencl, model)
        let gpuShaped = try Self.detector(.opencl, model, schedules: .openCL(.gpu))
        let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0, minSize: 24)
        #expect(Self.comparedPhotos(for: model).count >= 7)
        for photo in Self.comparedPhotos(for: model) {
            let image = try Self.gray(photo, longSide: 640)
            let raw = try cpu.detect(in: image, options: options)
            #expect(raw == (try openCL.detect(in: image, options: options)), "\(photo)")
            #expect(raw == (try gpuShaped.detect(in: image, options: options)), "\(photo), GPU schedules")
        }
    }

    /// The GPU shape's CPU twins (early stages a window at a time, survivors compacted, later stages a
    /// survivor at a time) find the same raw windows as the CPU shape, for the wild photos and models as above.
    @Test(arguments: comparedModels)
    func splitShapeTwinsGiveIdenticalBoxes(_ model: String) throws {
        let cpu = try Self.detector(.cpu, model), split = try Self.detector(.cpu, model)
        split.context.setSchedule(KernelSchedule(workGroup: [16, 4], cooperative: true), forKernel: "cascade_detect")
        let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0, minSize: 24)
        var found = 0
        for photo in Self.comparedPhotos(for: model) {
            let image = try Self.gray(photo, longSide: 640)
            let raw = try cpu.detect(in: image, options: options)
            #expect(raw == (try split.detect(in: image, options: options)), "\(photo)")
            found += raw.count
        }
        #expect(found > 0)
        #expect(split.context.statistics.launches > cpu.context.statistics.launches, "the split shape did not run")
    }

    /// A pyramid split into many atlases (here a few levels each) finds the same raw windows as one atlas.
    @Test func smallAtlasesGiveIdenticalBoxes() throws {
        let model = try CascadeModel(contentsOf: CascadeModel.frontalFaceHaarPath)
        let whole = try CascadeDetector(model: model, context: RenderContext(device: .cpu))
        let split = try CascadeDetector(model: model, context: whole.context, atlasPixels: 100_000)
        let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0, minSize: 24)
        for photo in ["misc/two_people.jpg", "test/obama_and_biden.jpg"] {
            let image = try Self.gray(photo, longSide: 640)
            let raw = try whole.detect(in: image, options: options)
            let launches = whole.context.statistics.launches
            let splitRaw = try split.detect(in: image, options: options)
            #expect(!raw.isEmpty && raw == splitRaw, "\(photo)")
            #expect(whole.context.statistics.launches - launches > 2 * 6, "\(photo): the pyramid was not split")
        }
    }

    /// A model with tilted features (45° Haar rectangles on the tilted integral image) finds what
    /// OpenCV 4.6 finds with the same parameters (`detectMultiScale(gray, 1.1, 3, minSize=(40, 40))`).
    @Test(arguments: [
        ("misc/two_people.jpg", PixelRect(x: 549, y: 106, width: 353, height: 289)),
        ("test/kit_with_rose.jpg", PixelRect(x: 386, y: 152, width: 56, height: 46)),
    ])
    func tiltedFeaturesMatchOpenCV(_ photo: String, openCVBox: PixelRect) throws {
        let detector = try Self.detector(Self.fastest, CascadeModel.haarFolder + "/haarcascade_upperbody.xml")
        #expect(detector.model.hasTiltedFeatures)
        let found = try detector.detect(
            in: try Self.gray(photo), options: DetectionOptions(scaleFactor: 1.1, minNeighbors: 3, minSize: 40))
        #expect(found.map(\.rect) == [openCVBox])
    }

    @Test func badImagesAndModelsGiveTypedErrors() throws {
        let detector = try Self.detector(.cpu)
        let colour = try PixelBuffer(
            width: 64, height: 64, channels: 3, values: [UInt8](repeating: 0, count: 64 * 64 * 3))
        #expect(throws: DetectionError.self) { try detector.detect(in: colour) }
        #expect(
            try detector.detect(in: try PixelBuffer(width: 10, height: 10, values: [UInt8](repeating: 0, count: 100)))
                .isEmpty)
    }
}

/// The README's detection example, kept here so that it stays true (dataset path made absolute).
@Suite(.needs(.wildPhotos)) struct ReadmeDetectionExampleTests {
    @Test func findAndAlignTwoPeople() throws {
        let photo = try ImageDecoder.decode(
            contentsOf: "\(SharedData.root)/wild-photos/misc/two_people.jpg",
            options: DecodingOptions(grayscale: true))
        let context = RenderContext(device: try TestDevices.device(DetectionTests.fastest))
        let finder = try CascadeFaceFinder(options: .faces, context: context)
        let faces = try finder.faces(in: photo)
        let crops = try finder.alignedFaces(faces, in: photo, size: 128, margin: 0.1)
        let descriptors = try FaceDescriber(context: context).describe(crops)
        #expect(faces.count == 2 && faces.allSatisfy(\.isAligned))
        #expect(descriptors.count == 2)
    }
}
