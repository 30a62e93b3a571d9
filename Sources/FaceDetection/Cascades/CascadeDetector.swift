import Foundation
import ImageKernels

/// How to search an image for objects.
public struct DetectionOptions: Sendable, Equatable {
    /// Each pyramid level is this much smaller than the one before.
    public var scaleFactor: Double
    /// Clusters of at most this many raw detections are dropped (OpenCV's minNeighbors).
    public var minNeighbors: Int
    /// Smallest and largest object sizes searched, in pixels (0 and nil: no limit).
    public var minSize: Int
    public var maxSize: Int?

    public init(scaleFactor: Double = 1.1, minNeighbors: Int = 3, minSize: Int = 0, maxSize: Int? = nil) {
        self.scaleFactor = scaleFactor
        self.minNeighbors = minNeighbors
        self.minSize = minSize
        self.maxSize = maxSize
    }
}

/// Finds objects with a boosted cascade as OpenCV's `CascadeClassifier.detectMultiScale` does: a pyramid
/// of bilinearly resized levels, windows every 2 pixels (every pixel above scale 2) and entirely inside,
/// evaluated on the device, then grouped. The levels share an atlas, its integral images and one cascade
/// launch (several atlases for a pyramid larger than `atlasPixels`), all in one render.
public final class CascadeDetector: Sendable {
    public let model: CascadeModel
    public let context: RenderContext
    /// The most pixels one atlas of pyramid levels holds. A larger pyramid is split into several atlases,
    /// each with its own integral images and launch, which bounds the memory a large photo takes (an
    /// atlas of 16 M pixels has 64 MB integral images); a level larger than this gets an atlas of its own.
    public let atlasPixels: Int
    private let packed: PackedCascade

    /// The default `atlasPixels`: one atlas for the pyramid of a photo of up to about 2.5 megapixels.
    public static let defaultAtlasPixels = 1 << 24

    /// A detector on `context` (by default a new context on the device that detects fastest here,
    /// `Device.best(for:)`).
    public init(model: CascadeModel, context: RenderContext? = nil, atlasPixels: Int = defaultAtlasPixels)
        throws(DetectionError)
    {
        self.model = model
        self.atlasPixels = atlasPixels
        do {
            self.context = try RenderContext.orDefault(context, for: .detection)
            packed = try PackedCascade(model, context: self.context)
        } catch { throw .render(error) }
    }

    /// One pyramid level: its scale, size, window grid, and its origin in the atlas that holds it.
    struct Level {
        let factor: Double
        let width: Int
        let height: Int
        let step: Int
        let windowsX: Int
        let windowsY: Int
        let windowWidth: Int
        let windowHeight: Int
        var x = 0
        var y = 0

        var region: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }
    }

    /// OpenCV's levels for an image of this size.
    func levels(width: Int, height: Int, options: DetectionOptions) -> [Level] {
        var levels: [Level] = []
        var factor = 1.0
        while true {
            defer { factor *= options.scaleFactor }
            let windowWidth = Int((Double(model.windowWidth) * factor).rounded(.toNearestOrEven))
            let windowHeight = Int((Double(model.windowHeight) * factor).rounded(.toNearestOrEven))
            let scaledWidth = Int((Double(width) / factor).rounded(.toNearestOrEven))
            let scaledHeight = Int((Double(height) / factor).rounded(.toNearestOrEven))
            let processingWidth = scaledWidth - model.windowWidth, processingHeight = scaledHeight - model.windowHeight
            if processingWidth <= 0 || processingHeight <= 0 { break }
            if let maxSize = options.maxSize, windowWidth > maxSize || windowHeight > maxSize { break }
            if windowWidth < options.minSize || windowHeight < options.minSize { continue }
            let step = factor > 2 ? 1 : 2
            levels.append(
                Level(
                    factor: factor, width: scaledWidth, height: scaledHeight, step: step,
                    windowsX: (processingWidth + step - 1) / step, windowsY: (processingHeight + step - 1) / step,
                    windowWidth: windowWidth, windowHeight: windowHeight))
        }
        return levels
    }

    /// `levels` in atlases of at most `atlasPixels` pixels and 32,768 rows (a level that is larger alone),
    /// each packed.
    func atlases(_ levels: [Level]) -> [(levels: [Level], width: Int, height: Int)] {
        var atlases: [(levels: [Level], width: Int, height: Int)] = [], current: [Level] = []
        func close() {
            guard !current.isEmpty else { return }
            let size = Self.pack(&current)
            atlases.append((current, size.width, size.height))
            current = []
        }
        for level in levels {
            var trial = current + [level]
            let size = Self.pack(&trial)
            if !current.isEmpty && (size.width * size.height > atlasPixels || size.height > 1 << 15) { close() }
            current.append(level)
        }
        close()
        return atlases
    }

    /// `levels` placed in an atlas as wide as the first (widest) level: left to right in shelves, a new
    /// shelf under the last where a level does not fit beside the ones before. Returns the atlas's size.
    static func pack(_ levels: inout [Level]) -> (width: Int, height: Int) {
        let width = levels.map(\.width).max() ?? 0
        var shelf = (y: 0, height: 0, used: 0)
        for index in levels.indices {
            if shelf.used + levels[index].width > width {
                shelf = (shelf.y + shelf.height, 0, 0)
            }
            levels[index].x = shelf.used
            levels[index].y = shelf.y
            shelf.used += levels[index].width
            shelf.height = max(shelf.height, levels[index].height)
        }
        return (width, shelf.y + shelf.height)
    }

    /// The objects in a one-plane `uint8` image, strongest cluster first.
    public func detect(in image: PixelBuffer, options: DetectionOptions = DetectionOptions()) throws(DetectionError)
        -> [Detection]
    {
        let d = image.descriptor
        guard d.elementType == .uint8, d.planeCount == 1 else {
            throw .invalidImage("needs one uint8 plane, got \(d)")
        }
        guard options.scaleFactor > 1.0001, options.scaleFactor < 10 else {
            throw .invalidImage("scale factor must be in (1, 10)")
        }
        let atlases = atlases(levels(width: d.width, height: d.height, options: options))
        let source = Image(image)
        let recipes = atlases.map { atlas -> Image in
            let scaled = source.resized(intoAtlas: atlas.levels.map(\.region), width: atlas.width, height: atlas.height)
            let sums = scaled.integral()
            let squares = model.featureType == .haar ? scaled.integral(.squaredSums) : sums
            let tilted = model.hasTiltedFeatures ? scaled.integral(.tiltedSums) : sums
            return Image(
                applying: CascadeEvaluation(cascade: packed, levels: atlas.levels),
                to: [sums, squares, tilted, packed.ints.image, packed.floats.image])
        }
        let results: [PixelBuffer]
        do { results = try context.render(recipes) } catch { throw .render(error) }
        var candidates: [PixelRect] = []
        for (atlas, result) in zip(atlases, results) {
            let outcomes = result.bytes
            var first = 0
            for level in atlas.levels {
                // OpenCV visits windows left to right and skips the next one after a first-stage rejection.
                for wy in 0..<level.windowsY {
                    var wx = 0
                    while wx < level.windowsX {
                        let outcome = outcomes[first + wy * level.windowsX + wx]
                        if outcome == 2 {
                            candidates.append(
                                PixelRect(
                                    x: Int((Double(wx * level.step) * level.factor).rounded(.toNearestOrEven)),
                                    y: Int((Double(wy * level.step) * level.factor).rounded(.toNearestOrEven)),
                                    width: level.windowWidth, height: level.windowHeight))
                        }
                        wx += outcome == 0 ? 2 : 1
                    }
                }
                first += level.windowsX * level.windowsY
            }
        }
        return RectangleGrouping.group(candidates, minNeighbors: options.minNeighbors)
            .sorted { ($0.neighbours, -$0.rect.y, -$0.rect.x) > ($1.neighbours, -$1.rect.y, -$1.rect.x) }
    }
}
