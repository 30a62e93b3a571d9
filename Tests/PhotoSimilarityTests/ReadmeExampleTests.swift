import ImageCodecs
import ImageKernels
import PhotoSimilarity
import TestSupport
import Testing

/// The README's example of prints, hashes and groups of copies, kept here so that it stays true (the folder
/// made absolute).
@Suite struct ReadmeExampleTests {
    @Test(.needs(.ukbenchDev)) func fourViewsAndACopyMakeOneGroupOfTwo() throws {
        let folder = SharedData.root + "/ukbench-dev/"
        // README: begin
        var photos = try (88...91).map {
            try ImageDecoder.decode(contentsOf: folder + "ukbench\(String(format: "%05d", $0)).jpg")
        }
        let printer = try PhotoPrinter()  // the model from the cache, on the fastest device
        let context = printer.context
        photos.append(try context.render(Image(photos[0]).resized(width: 320, height: 240, method: .area)))
        let prints = try printer.prints(of: photos)  // 5 × 1,280 values, L2-normalised
        let hashes = try PerceptualHash.hashes(ofGray: photos.map { try context.grayPlane(of: $0) }, context: context)
        let pixels = photos.map { $0.descriptor.width * $0.descriptor.height }
        let planes = try photos.indices.map {
            try PixelAgreement.plane(of: photos[$0], pixels: pixels[$0], context: context)
        }
        let links = try DuplicateGroups.copies(
            prints: prints.flatMap { $0 }, hashes: hashes, identical: [], context: context
        ) { planes[$0] }
        let groups = DuplicateGroups.groups(
            links: links, copies: pixels.map { DuplicateGroups.Copy(pixels: $0, sharpness: 0, bytes: 0) })
        // [[0, 4]]: the view and its half-size copy; the other views are not copies
        // README: end
        #expect(groups == [[0, 4]], "\(groups)")
    }
}
