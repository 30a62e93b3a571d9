import Foundation
import GRDB
import ImageKernels
import PhotoSimilarity

/// The photo analysis beside the face analysis: each photo's print (`PhotoPrinter`: similar photos) and,
/// from the same run of the network, its most probable ImageNet classes (`PhotoClasses`: photos found by a
/// word), its 64-bit perceptual hash (copies) and its sharpness (which copy to keep), from the photo indexing
/// decoded once for every analysis. Stored in the catalog's `photo_prints` table (``PhotoStore``); photos
/// indexed before it existed, or before classes were kept, are printed by the next `cbir index` without
/// their faces being found again.
public struct PhotoPrintAnalysis: PhotoAnalysis {
    public let printer: PhotoPrinter
    /// Where hashes and sharpness are rendered (the printer's context).
    public var context: RenderContext { printer.context }
    private let store = PhotoStore()

    public var name: String { "photos" }

    public var version: String {
        """
        prints and \(PhotoClasses.storedCount) classes by \(PhotoPrinter.modelFile) at \(printer.inputSize) px; \
        64-bit DCT hashes; Laplacian sharpness
        """
    }

    /// What the analysis makes of one photo; the image id is filled in when it is written.
    public struct Analysis: Sendable {
        public let print: [Float]
        public let classes: PhotoClasses
        public let hash: PerceptualHash
        public let sharpness: Double
    }

    /// An analysis on `context` (default: the device that prints fastest here), with the model from the
    /// model cache (a missing model is an error naming the setup command).
    public init(context: RenderContext? = nil) throws(CatalogError) {
        do { printer = try PhotoPrinter(context: context) } catch {
            throw .processing("cannot set up photo printing: \(error)")
        }
    }

    public func analyze(_ photo: Photo) throws -> Analysis {
        try analyze([photo])[0].get()
    }

    /// The photos printed in one batch, hashed and measured in one render each; where the shared step
    /// fails, each photo is tried alone, so that the failure is the photo's own.
    public func analyze(_ photos: [Photo]) -> [Result<Analysis, any Error>] {
        do {
            let outputs = try printer.printsAndLogits(of: photos.map(\.pixels))
            let grays = photos.map(\.gray)
            let hashes = try PerceptualHash.hashes(ofGray: grays, context: context)
            let sharpness = try LaplacianMoments.sharpness(ofGray: grays, context: context)
            return photos.indices.map {
                .success(
                    Analysis(
                        print: outputs[$0].print, classes: PhotoClasses(logits: outputs[$0].logits), hash: hashes[$0],
                        sharpness: sharpness[$0]))
            }
        } catch PhotoError.unusableModel(let reason) {
            // The model's fault, not a photo's: the run stops rather than recording every photo as failed.
            return photos.map { _ in .failure(CatalogError.processing(reason)) }
        } catch {
            guard photos.count > 1 else { return [.failure(error)] }
            return photos.map { photo in Result { try analyze([photo])[0].get() } }
        }
    }

    public func write(_ analysis: Analysis, image: Int64, to connection: any StoreConnection) throws {
        try store.insert(
            PhotoStore.Entry(
                image: image, print: analysis.print, hash: analysis.hash, sharpness: analysis.sharpness,
                classes: analysis.classes),
            connection)
    }

    /// Whether the image has no print (indexed before photos were analysed, or with `--no-photos`) or no
    /// classes (printed before they were kept).
    public func isIncomplete(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        try store.lacksPrintOrClasses(image: image, connection)
    }

    /// The write that gives the image its print, made from its photo.
    public func completion(of image: Int64, photo: Photo, in catalog: Catalog) throws
        -> @Sendable (any StoreConnection) throws -> Void
    {
        let analysis = try analyze(photo)
        return { connection in try write(analysis, image: image, to: connection) }
    }
}
