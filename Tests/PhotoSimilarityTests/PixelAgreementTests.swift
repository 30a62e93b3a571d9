import BenchmarkSupport
import ImageKernels
import PhotoSimilarity
import TestSupport
import Testing

/// Pixel agreement on smooth random scenes: a scene's copies (half size, cropped to half the frame or by a
/// tenth, brightened) agree with it, another scene or a recoloured copy does not, and flat or grey photos say
/// nothing rather than something.
@Suite struct PixelAgreementTests {
    let context = RenderContext(device: .cpu)

    /// A planar RGB scene `width` × `height`: random colours on a coarse grid, smoothly interpolated, so that
    /// resizing keeps it (like a photo, unlike noise).
    static func scene(width: Int, height: Int, seed: UInt64) throws -> PixelBuffer {
        var generator = SeededGenerator(seed: seed)
        let cells = 12
        let knots = (0..<3).map { _ in
            (0..<(cells + 1) * (cells + 1)).map { _ in Float.random(in: 0...255, using: &generator) }
        }
        var values = [UInt8](repeating: 0, count: 3 * width * height)
        for channel in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    let (u, v) = (Float(x) / Float(width) * Float(cells), Float(y) / Float(height) * Float(cells))
                    let (i, j) = (min(Int(u), cells - 1), min(Int(v), cells - 1))
                    let (a, b) = (u - Float(i), v - Float(j))
                    let k = knots[channel]
                    let top = k[j * (cells + 1) + i] * (1 - a) + k[j * (cells + 1) + i + 1] * a
                    let bottom = k[(j + 1) * (cells + 1) + i] * (1 - a) + k[(j + 1) * (cells + 1) + i + 1] * a
                    values[channel * width * height + y * width + x] = UInt8(top * (1 - b) + bottom * b)
                }
            }
        }
        return try PixelBuffer(width: width, height: height, channels: 3, values: values)
    }

    func plane(_ photo: PixelBuffer) throws -> PixelAgreement.Plane {
        try PixelAgreement.plane(
            of: photo, pixels: photo.descriptor.width * photo.descriptor.height, context: context)
    }

    func cropped(_ photo: PixelBuffer, share: Double) throws -> PixelBuffer {
        let (width, height) = (photo.descriptor.width, photo.descriptor.height)
        let (w, h) = (Int(Double(width) * share), Int(Double(height) * share))
        return try context.render(
            Image(photo).cropped(to: PixelRect(x: (width - w) / 2, y: (height - h) / 3, width: w, height: h)))
    }

    @Test func copiesAgreeAndOtherScenesDoNot() throws {
        let scene = try Self.scene(width: 480, height: 360, seed: 1)
        let original = try plane(scene)
        let copies = [
            "half": try context.render(Image(scene).resized(width: 240, height: 180, method: .area)),
            "crop10": try cropped(scene, share: 0.9), "halfFrame": try cropped(scene, share: 0.71),
            "brighter": PixelBuffer(descriptor: scene.descriptor) { out in
                for (i, value) in scene.bytes.enumerated() { out[i] = UInt8(min(255, Float(value) * 1.2)) }
            },
        ]
        for (name, copy) in copies {
            let agreement = PixelAgreement.agreement(original, try plane(copy))
            #expect(agreement.luma >= DuplicateGroups.agreementThreshold, "\(name): \(agreement)")
            #expect((agreement.colour ?? 0) >= 0.9, "\(name): \(agreement)")
            #expect(PixelAgreement.agreement(try plane(copy), original) == agreement, "\(name): either order")
        }
        let other = PixelAgreement.agreement(original, try plane(try Self.scene(width: 480, height: 360, seed: 2)))
        #expect(other.luma < 0.8, "\(other)")

        // Channels turned (red to green to blue): the shapes stay, the colours do not.
        let count = 480 * 360
        let turned = PixelBuffer(descriptor: scene.descriptor) { out in
            for i in 0..<3 * count { out[i] = scene.bytes[(i + count) % (3 * count)] }
        }
        let recoloured = PixelAgreement.agreement(original, try plane(turned))
        #expect((recoloured.colour ?? 1) < DuplicateGroups.rule.colourAgreement, "\(recoloured)")
    }

    /// A copy turned 5° (and one halved too) agrees once turned back, in either order, where it did not as it
    /// lay; another scene, turned or not, does not; a strip too thin to turn says nothing.
    @Test func turnedCopiesAgreeTurnedBack() throws {
        let scene = try Self.scene(width: 480, height: 360, seed: 1), original = try plane(scene)
        let turned = try context.render(Image(scene).rotated(by: 5 * .pi / 180, about: (x: 239.5, y: 179.5)))
        let halfTurned = try context.render(Image(turned).resized(width: 240, height: 180, method: .area))
        for (name, copy) in [("turned", turned), ("half, turned", halfTurned)] {
            let agreement = try #require(PixelAgreement.turnedAgreement(original, try plane(copy)))
            #expect(agreement.luma >= DuplicateGroups.agreementThreshold, "\(name): \(agreement)")
            #expect((agreement.colour ?? 0) >= 0.9, "\(name): \(agreement)")
            #expect(PixelAgreement.turnedAgreement(try plane(copy), original) == agreement, "\(name): either order")
            #expect(PixelAgreement.agreement(original, try plane(copy)).luma < agreement.luma, "\(name)")
        }
        let other = try plane(try Self.scene(width: 480, height: 360, seed: 2))
        #expect(try #require(PixelAgreement.turnedAgreement(original, other)).luma < 0.8)
        let strip = try plane(try Self.scene(width: 300, height: 4, seed: 3))
        #expect(PixelAgreement.turnedAgreement(strip, strip) == nil)
    }

    /// The smallest and the most oblong photos a catalog takes (1 × 1, and 100 times as wide as high) agree with
    /// their copies and give a correlation for any other, never a crash or a number out of range.
    @Test func tinyAndOblongPhotosAgreeWithinRange() throws {
        var generator = SeededGenerator()
        var photos: [PixelBuffer] = []
        for (width, height) in [(1, 1), (2, 1), (1, 3), (100, 1), (1, 100), (400, 4), (3, 300)] {
            let values = (0..<3 * width * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
            photos.append(try PixelBuffer(width: width, height: height, channels: 3, values: values))
        }
        let planes = try photos.map(plane)
        for (index, a) in planes.enumerated() {
            #expect(PixelAgreement.agreement(a, a).luma > 0.99 || a.width * a.height < 4, "seed \(generator.seed)")
            for b in planes {
                let agreement = PixelAgreement.agreement(a, b)
                #expect((-1.001...1.001).contains(agreement.luma), "seed \(generator.seed): \(index) \(agreement)")
                #expect(agreement.colour.map { (-1.001...1.001).contains($0) } ?? true, "\(agreement)")
            }
        }
    }

    @Test func flatAndGreyPhotosSayNothing() throws {
        let scene = try Self.scene(width: 300, height: 200, seed: 3)
        let flat = try PixelBuffer(
            width: 300, height: 200, channels: 3, values: [UInt8](repeating: 128, count: 180_000))
        #expect(PixelAgreement.agreement(try plane(scene), try plane(flat)).luma == 0)
        let grey = try PixelBuffer(width: 300, height: 200, values: Array(scene.bytes.prefix(60_000)))
        let agreement = PixelAgreement.agreement(try plane(grey), try plane(grey))
        #expect(agreement.luma > 0.99 && agreement.colour == nil, "\(agreement)")
    }
}
