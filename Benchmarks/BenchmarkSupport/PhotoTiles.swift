import ImageKernels

/// A photo cut into a grid of tiles: the benchmarks and tests make distinct photos of them (the shared collections
/// hold a few hundred photos; their tiles, thousands).
public enum PhotoTiles {
    /// The tiles of `width` × `height` of the photo's grid, row by row, whose first plane's standard deviation
    /// reaches `deviation`: a flat tile of sky or wall is a copy of every other one.
    public static func withDetail(of photo: PixelBuffer, width: Int, height: Int, deviation: Double) -> [PixelRect] {
        let photoWidth = photo.descriptor.width
        return (0..<photo.descriptor.height / height).flatMap { row in
            (0..<photoWidth / width).map { column in
                PixelRect(x: column * width, y: row * height, width: width, height: height)
            }
        }
        .filter { rect in
            var sum = 0.0, squares = 0.0
            for y in rect.y..<rect.y + rect.height {
                for x in rect.x..<rect.x + rect.width {
                    let value = Double(photo.bytes[y * photoWidth + x])
                    sum += value
                    squares += value * value
                }
            }
            let count = Double(rect.width * rect.height), mean = sum / count
            return (squares / count - mean * mean).squareRoot() >= deviation
        }
    }
}
