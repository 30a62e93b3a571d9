import FaceDetection
import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The finders indexing can use (``FaceFinder``): BlazeFace's boxes land where the cascades' do, and its
/// short-range model finds the close-ups the full-range model misses.
@Suite struct FaceFinderTests {
    static let wildPhotos = [
        "train/obama/obama.jpg", "train/obama/obama2.jpg", "train/biden/biden.jpg", "train/biden/biden2.jpg",
        "train/rose_leslie/img1.jpg", "train/rose_leslie/img2.jpg", "train/alex_lacamoire/img1.jpg",
        "train/kit_harington/john1.jpeg", "train/kit_harington/john2.jpeg", "test/obama1.jpg",
        "test/alex_lacamoire1.jpg", "test/johnsnow_test1.jpg", "test/obama_and_biden.jpg", "test/kit_with_rose.jpg",
    ]

    /// The cascades given a colour photo and no gray plane render the plane themselves and find what they
    /// find given it; BlazeFace, which reads colour, finds the same with or without one.
    @Test(.needs(.wildPhotos)) func findersWithoutAGrayPlane() throws {
        let context = RenderContext(device: .cpu)
        let cascades = try CascadeFaceFinder(context: context),
            blazeFace = try BlazeFaceDetector(model: .fullRange, context: context)
        let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/wild-photos/test/obama_and_biden.jpg")
        let gray = try context.render(Image(photo).grayscale())
        let boxes = try cascades.faces(in: photo, gray: gray, minimumFaceSize: 40).map(\.rect)
        #expect(!boxes.isEmpty)
        #expect(try cascades.faces(in: photo, gray: nil, minimumFaceSize: 40).map(\.rect) == boxes)
        #expect(
            try blazeFace.faces(in: photo, gray: nil, minimumFaceSize: 40).map(\.rect)
                == blazeFace.faces(in: photo, gray: gray, minimumFaceSize: 40).map(\.rect))
    }

    /// Over the wild photos' faces both find, BlazeFace's boxes for indexing (``BlazeFaceDetection/boxedAsCascades``)
    /// are centred on the cascades' boxes within 5 % of their width in the median, and as large within 10 %
    /// (its own boxes sit a tenth of their width lower).
    @Test(.needs(.wildPhotos)) func blazeFaceBoxesFacesAsTheCascadesDo() throws {
        let context = RenderContext(device: .cpu)
        let cascades = try CascadeFaceFinder(context: context),
            blazeFace = try BlazeFaceDetector(model: .fullRange, context: context)
        var offsets: (x: [Float], y: [Float], size: [Float]) = ([], [], [])
        for name in Self.wildPhotos {
            let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/wild-photos/" + name)
            let gray = try context.render(Image(photo).grayscale())
            let found = try blazeFace.faces(in: photo, gray: gray, minimumFaceSize: 40)
            for face in try cascades.faces(in: photo, gray: gray, minimumFaceSize: 40) {
                let centre = (
                    x: Float(face.rect.x) + Float(face.rect.width) / 2,
                    y: Float(face.rect.y) + Float(face.rect.height) / 2
                )
                let width = Float(face.rect.width)
                guard
                    let ours = found.first(where: {
                        abs(Float($0.rect.x) + Float($0.rect.width) / 2 - centre.x) < width / 3
                            && abs(Float($0.rect.y) + Float($0.rect.height) / 2 - centre.y) < width / 3
                    })
                else { continue }
                offsets.x.append((Float(ours.rect.x) + Float(ours.rect.width) / 2 - centre.x) / width)
                offsets.y.append((Float(ours.rect.y) + Float(ours.rect.height) / 2 - centre.y) / width)
                offsets.size.append(Float(ours.rect.width) / width)
                #expect(ours.eyes != nil && ours.angle.magnitude < 0.3, "\(name): \(ours)")
            }
        }
        func median(_ values: [Float]) -> Float { values.sorted()[values.count / 2] }
        try #require(offsets.x.count >= 14, "faces both find: \(offsets.x.count)")
        #expect(
            abs(median(offsets.x)) < 0.05 && abs(median(offsets.y)) < 0.05 && abs(median(offsets.size) - 1) < 0.1,
            "median offsets x \(median(offsets.x)), y \(median(offsets.y)), size \(median(offsets.size))")
    }

    /// On ORL's close-up faces the full-range model misses some; with the short-range model as its
    /// fallback, every face is found, one a photo.
    @Test(.needs(.orl)) func shortRangeFindsTheCloseUps() throws {
        let context = RenderContext(device: .cpu)
        let fullRange = try BlazeFaceDetector(model: .fullRange, context: context)
        let finder = FallbackFaceFinder(
            fullRange, fallback: try BlazeFaceDetector(model: .shortRange, context: context))
        var missed = 0
        for subject in 1...40 {
            let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/orl/s\(subject)/1.pgm")
            if try fullRange.faces(in: photo, gray: photo, minimumFaceSize: 14).isEmpty { missed += 1 }
            #expect(try finder.faces(in: photo, gray: photo, minimumFaceSize: 14).count == 1, "s\(subject)/1.pgm")
        }
        #expect(missed > 0)
    }

    /// One vocabulary for every command: each name reads back as itself, a cascade file by its path, anything
    /// else is refused; each named detector is built with its documented fallback and finds the faces of a
    /// photo that every one of them finds.
    @Test(.needs(.wildPhotos)) func detectorsByName() throws {
        #expect(DetectorChoice.named.allSatisfy { DetectorChoice($0.description) == $0 })
        #expect(DetectorChoice("my cascade.XML") == .cascade(path: "my cascade.XML"))
        #expect(DetectorChoice("blazeface-full") == nil && DetectorChoice("") == nil && DetectorChoice("Haar") == nil)
        let context = RenderContext(device: .cpu)
        let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/wild-photos/train/obama/obama.jpg")
        let gray = try context.render(Image(photo).grayscale())
        for choice in DetectorChoice.named + [.cascade(path: CascadeModel.frontalFaceHaarPath)] {
            let finder = try choice.finder(context: context)
            switch choice {
            case .haar: #expect((finder as? CascadeFaceFinder)?.fallbackDetector != nil)
            case .lbp, .cascade: #expect((finder as? CascadeFaceFinder)?.fallbackDetector == nil)
            case .blazeFace:
                #expect(((finder as? FallbackFaceFinder)?.fallback as? BlazeFaceDetector)?.model == .shortRange)
            case .blazeFaceShort: #expect((finder as? BlazeFaceDetector)?.model == .shortRange)
            }
            let faces = try finder.faces(in: photo, gray: gray, minimumFaceSize: 40)
            #expect(faces.count == 1 && (faces.first?.score != nil) == choice.readsColour, "\(choice): \(faces)")
        }
        #expect(throws: DetectionError.self) {
            try DetectorChoice.cascade(path: "/nonexistent.xml").finder(context: context)
        }
    }
}
