import FaceDetection
import Foundation
import ImageKernels
import TestSupport
import Testing

/// Eye search and aligned crops on real faces.
@Suite(.needs(.wildPhotos)) struct AlignmentTests {
    static func finder() throws -> CascadeFaceFinder {
        try CascadeFaceFinder(context: RenderContext(device: try TestDevices.device(DetectionTests.fastest)))
    }

    /// A photo turned by a known angle about the face's centre gives back that angle (against the
    /// photo's own lean) within 5°, both ways round.
    @Test(arguments: [12, -12, 7] as [Float])
    func syntheticRotationIsRecovered(degrees: Float) throws {
        let finder = try Self.finder()
        let photo = try DetectionTests.gray("train/obama/obama.jpg")
        let original = try #require(finder.faces(in: photo).first)
        #expect(original.isAligned)
        let centre = (
            x: Float(original.rect.x) + Float(original.rect.width) / 2,
            y: Float(original.rect.y) + Float(original.rect.height) / 2
        )
        let turn = degrees * .pi / 180
        // AffineMatrix.rotation turns anticlockwise on screen; a positive observation angle leans clockwise.
        let rotated = try finder.faceDetector.context.render(Image(photo).rotated(by: -turn, about: centre))
        let face = try #require(finder.faces(in: rotated).first)
        #expect(face.isAligned)
        let recovered = (face.angle - original.angle) * 180 / .pi
        #expect(abs(recovered - degrees) < 5, "turned \(degrees)°, measured \(recovered)°")
    }

    /// The aligned crops come as one batch of size × size faces, with their eyes level: the eye search on
    /// a crop finds a lean under 5°.
    @Test func alignedCropsAreLevel() throws {
        let finder = try Self.finder()
        let photo = try DetectionTests.gray("misc/two_people.jpg")
        let faces = try finder.faces(in: photo)
        #expect(faces.count == 2)
        let crops = try finder.alignedFaces(faces, in: photo, size: 160, margin: 0.1)
        #expect(
            crops.descriptor.width == 160 && crops.descriptor.height == 160 && crops.descriptor.batch == faces.count)
        for (index, face) in faces.enumerated() where face.isAligned {
            let crop = crops.images(index..<index + 1)
            let again = try #require(
                finder.faces(in: crop).first { $0.isAligned }, "face \(index) lost after alignment")
            #expect(abs(again.angle) * 180 / .pi < 5, "face \(index): \(again.angle * 180 / .pi)° after alignment")
        }
    }
}
