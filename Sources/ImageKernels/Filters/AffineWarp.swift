import Foundation
import ImageKernelsCL

/// A 2-D affine map (x, y) → (a x + b y + c, d x + e y + f) in pixel-index coordinates.
public struct AffineMatrix: Hashable, Sendable {
    public var a, b, c, d, e, f: Float

    public init(a: Float, b: Float, c: Float, d: Float, e: Float, f: Float) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = AffineMatrix(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    /// Rotation by `angle` radians (counter-clockwise as seen on screen, y pointing down) about
    /// `center`, which then lands on `target` (on `center` itself when nil).
    public static func rotation(
        by angle: Float, about center: (x: Float, y: Float),
        movingTo target: (x: Float, y: Float)? = nil
    ) -> AffineMatrix {
        let cosine = cos(angle), sine = sin(angle)
        let target = target ?? center
        // p' = R (p - center) + target, with R = [cos sin; -sin cos] for screen coordinates.
        return AffineMatrix(
            a: cosine, b: sine, c: target.x - (cosine * center.x + sine * center.y),
            d: -sine, e: cosine, f: target.y - (-sine * center.x + cosine * center.y))
    }

    /// The map that undoes this one, or nil when it is singular.
    public var inverted: AffineMatrix? {
        let determinant = a * e - b * d
        guard determinant.isFinite, abs(determinant) > 1e-12 else { return nil }
        return AffineMatrix(
            a: e / determinant, b: -b / determinant, c: (b * f - c * e) / determinant,
            d: -d / determinant, e: a / determinant, f: (c * d - a * f) / determinant)
    }
}

/// Resamples every plane through an affine map with bilinear interpolation.
public struct AffineWarp: Filter {
    /// What is read outside the source.
    public enum Border: Int32, Sendable {
        /// The nearest edge pixel.
        case replicate = 0
        /// Zero.
        case zero = 1
        /// Output pixels whose 2×2 source neighbourhood is not wholly inside are zero (dlib's
        /// `transform_image`, which face chips are made with).
        case blank = 2
    }

    /// How float results become `uint8`.
    public enum Rounding: Int32, Sendable {
        /// To the nearest value, ties to even.
        case nearest = 0
        /// Towards zero (dlib's chips).
        case down = 1
    }

    /// Maps source points to output points.
    public let transform: AffineMatrix
    /// Output plane size; nil keeps the input's.
    public let width: Int?
    public let height: Int?
    public let border: Border
    public let rounding: Rounding
    public var name: String { "affine" }

    public init(
        _ transform: AffineMatrix, width: Int? = nil, height: Int? = nil, border: Border = .replicate,
        rounding: Rounding = .nearest
    ) {
        self.transform = transform
        self.width = width
        self.height = height
        self.border = border
        self.rounding = rounding
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        let width = width ?? input.width, height = height ?? input.height
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw .invalidInput(filter: name, reason: "output size must be in 1...32768")
        }
        guard transform.inverted != nil else { throw .invalidInput(filter: name, reason: "the map is singular") }
        return input.with(width: width, height: height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        guard let inverse = transform.inverted else { throw .invalidInput(filter: name, reason: "the map is singular") }
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        func launch<T: PixelElement>(_ kernel: Kernel<Arguments<T>>) throws(RenderError) {
            try encoder.launch(
                kernel,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output),
                    m: [inverse.a, inverse.b, inverse.c, inverse.d, inverse.e, inverse.f],
                    inWidth: Int32(input.width), inHeight: Int32(input.height),
                    outWidth: Int32(output.width), outHeight: Int32(output.height),
                    border: border.rawValue, truncate: rounding.rawValue),
                over: [output.width, output.height, output.planeCount])
        }
        try byPixelType(
            input.elementType, uint8: { () throws(RenderError) in try launch(Self.uint8) },
            float32: { () throws(RenderError) in try launch(Self.float32) })
    }

    struct Arguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        /// The output-to-source map's a, b, c, d, e, f.
        var m: [Float]
        var inWidth: Int32
        var inHeight: Int32
        var outWidth: Int32
        var outHeight: Int32
        var border: Int32
        var truncate: Int32
    }

    static let uint8 = kernel(UInt8.self), float32 = kernel(Float.self)

    private static func kernel<T: PixelElement>(_ type: T.Type) -> Kernel<Arguments<T>> {
        Kernel(
            "affine_warp", in: KernelSource(name: "AffineWarp", bytes: ImageKernelsCL.affineWarp),
            options: T.pixelOptions,
            schedules: .perPixel
        ) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight), outWidth = Int(arguments.outWidth)
            let outHeight = Int(arguments.outHeight), border = Border(rawValue: arguments.border) ?? .replicate
            let m = arguments.m
            let truncates = arguments.truncate != 0
            // Without rotation or shear (BlazeFace's letterbox), each column samples the same source
            // column in every row: where it falls is worked out once. The same sums as below.
            let columns = m[1] == 0 && m[3] == 0 ? ColumnTaps(m: m, outWidth: outWidth, inWidth: inWidth) : nil
            CPUParallel.forEachRange(grid[2] * outHeight) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                for row in rows {
                    let plane = src + (row / outHeight) * inHeight * inWidth, fy = Float(row % outHeight)
                    let out = dst + row * outWidth
                    @inline(__always) func store(_ value: Float, at x: Int) {
                        out[x] = truncates ? T(roundingDown: value) : T(rounding: value)
                    }
                    if let columns {
                        let sy = m[4] * fy + m[5], top = sy.rounded(.down), ay = sy - top
                        if border == .zero, readsOutside(sy, extent: inHeight) {
                            // Every sample of the row is zero (a letterbox's bars).
                            out.update(repeating: T(rounding: 0), count: outWidth)
                            continue
                        }
                        let rowInside = top >= 0 && top + 1 < Float(inHeight)
                        let line = plane + (rowInside ? Int(top) * inWidth : 0)
                        for x in 0..<outWidth {
                            let tap = columns.taps[x]
                            if rowInside && tap.inside {
                                store(interiorSample(line + tap.left, width: inWidth, ax: tap.ax, ay: ay), at: x)
                            } else if border == .zero && tap.outside {
                                out[x] = T(rounding: 0)
                            } else {
                                store(
                                    bilinearSample(
                                        plane, width: inWidth, height: inHeight, x: tap.sx, y: sy, border: border),
                                    at: x)
                            }
                        }
                        continue
                    }
                    for x in 0..<outWidth {
                        let fx = Float(x)
                        let sx = m[0] * fx + m[1] * fy + m[2], sy = m[3] * fx + m[4] * fy + m[5]
                        store(
                            bilinearSample(plane, width: inWidth, height: inHeight, x: sx, y: sy, border: border), at: x
                        )
                    }
                }
            }
        }
    }

    /// Where each output column of an axis-aligned map samples: its source x, the column left of it and
    /// the weight of the one right of it, and whether both lie in the source or both outside it.
    private struct ColumnTaps {
        struct Tap {
            var sx: Float, ax: Float, left: Int, inside: Bool, outside: Bool
        }
        let taps: [Tap]

        init(m: [Float], outWidth: Int, inWidth: Int) {
            taps = (0..<outWidth).map { x in
                let sx = m[0] * Float(x) + m[2], left = sx.rounded(.down)
                let inside = left >= 0 && left + 1 < Float(inWidth)
                return Tap(
                    sx: sx, ax: sx - left, left: inside ? Int(left) : 0, inside: inside,
                    outside: readsOutside(sx, extent: inWidth))
            }
        }
    }

    /// Whether a sample at `s` along a row or column of `extent` pixels reads both its neighbours, ⌊s⌋ and
    /// ⌊s⌋ + 1, from outside it: with a zero border, it is zero.
    @inline(__always)
    private static func readsOutside(_ s: Float, extent: Int) -> Bool { s < -1 || s >= Float(extent) }

    /// Bilinear sample of the 2×2 neighbourhood whose top left is `p`, in the kernel's order of operations.
    @inline(__always)
    static func interiorSample<T: PixelElement>(_ p: UnsafePointer<T>, width: Int, ax: Float, ay: Float) -> Float {
        let top = (1 - ax) * p[0].floatValue + ax * p[1].floatValue
        let bottom = (1 - ax) * p[width].floatValue + ax * p[width + 1].floatValue
        return (1 - ay) * top + ay * bottom
    }

    /// Bilinear sample at (x, y), what lies outside read as `border` says, in the kernel's order of operations.
    @inline(__always)
    static func bilinearSample<T: PixelElement>(
        _ plane: UnsafePointer<T>, width: Int, height: Int,
        x: Float, y: Float, border: Border
    ) -> Float {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        if fx >= 0, fy >= 0, fx + 1 < Float(width), fy + 1 < Float(height) {
            // All four neighbours are in the plane: the same arithmetic without the clamps.
            return interiorSample(plane + Int(fy) * width + Int(fx), width: width, ax: x - fx, ay: y - fy)
        }
        return edgeSample(plane, width: width, height: height, x: x, y: y, border: border)
    }

    /// ``bilinearSample(_:width:height:x:y:border:)`` where a neighbour lies outside the plane: apart, so
    /// that the interior's few operations are inlined where most samples are taken.
    @inline(never)
    static func edgeSample<T: PixelElement>(
        _ plane: UnsafePointer<T>, width: Int, height: Int,
        x: Float, y: Float, border: Border
    ) -> Float {
        @inline(__always) func pixel(_ px: Int, _ py: Int) -> Float {
            if border == .zero && (px < 0 || py < 0 || px >= width || py >= height) { return 0 }
            return plane[min(max(py, 0), height - 1) * width + min(max(px, 0), width - 1)].floatValue
        }
        if border == .blank { return 0 }
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ax = x - fx, ay = y - fy
        let x0 = Int(fx), y0 = Int(fy)
        let top = (1 - ax) * pixel(x0, y0) + ax * pixel(x0 + 1, y0)
        let bottom = (1 - ax) * pixel(x0, y0 + 1) + ax * pixel(x0 + 1, y0 + 1)
        return (1 - ay) * top + ay * bottom
    }
}

extension Image {
    /// Every plane resampled through `transform` (source → output); the output plane is
    /// `width`×`height`, or the input's size when they are nil.
    public func transformed(
        by transform: AffineMatrix, width: Int? = nil, height: Int? = nil,
        border: AffineWarp.Border = .replicate, rounding: AffineWarp.Rounding = .nearest
    ) -> Image {
        applying(AffineWarp(transform, width: width, height: height, border: border, rounding: rounding))
    }

    /// Every plane rotated by `angle` radians about `center`, keeping the plane size.
    public func rotated(
        by angle: Float, about center: (x: Float, y: Float),
        border: AffineWarp.Border = .replicate
    ) -> Image {
        transformed(by: .rotation(by: angle, about: center), border: border)
    }
}
