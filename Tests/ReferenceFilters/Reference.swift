import Foundation
import ImageKernels

/// Plain, single-threaded Swift implementations of every built-in filter, written from the
/// definitions for clarity rather than speed. Tests check both devices against them; benchmarks
/// time them as the naive baseline. Float results are computed in double precision where it helps.
public enum Reference {
    /// Element conversion: v/255 to float, round(v·255) saturated to `uint8`.
    public static func converted(_ image: PixelBuffer, to type: ElementType) -> PixelBuffer {
        let values = image.floatValues
        switch type {
        case .float32:
            if image.descriptor.elementType == .float32 { return image }
            return make(image.descriptor.with(elementType: .float32), values.map { $0 * (1 / 255) })
        case .uint8:
            if image.descriptor.elementType == .uint8 { return image }
            return make(image.descriptor.with(elementType: .uint8), values.map { $0 * 255 })
        case .uint32:
            return make(image.descriptor.with(elementType: .uint32), values)
        }
    }

    /// BT.601 luma of planar RGB(A).
    public static func grayscale(_ image: PixelBuffer) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues, n = d.planePixelCount
        var out = ImageDescriptor(
            width: d.width, height: d.height, channels: 1, batch: d.batch, elementType: d.elementType)
        out.channels = 1
        var result: [Float] = []
        for b in 0..<d.batch {
            let base = b * d.channels * n
            for i in 0..<n {
                let (r, g, bl) = (v[base + i], v[base + n + i], v[base + 2 * n + i])
                if d.elementType == .uint8 {
                    result.append(Float((4899 * Int(r) + 9617 * Int(g) + 1868 * Int(bl) + 8192) >> 14))
                } else {
                    result.append(0.299 * r + 0.587 * g + 0.114 * bl)
                }
            }
        }
        return make(out, result)
    }

    /// max(v, 0)^γ.
    public static func gammaAdjusted(_ image: PixelBuffer, gamma: Float) -> PixelBuffer {
        make(image.descriptor, image.floatValues.map { Float(pow(Double(max($0, 0)), Double(gamma))) })
    }

    /// Normalised Gaussian taps for σ, radius ⌈3σ⌉.
    public static func gaussianTaps(sigma: Float) -> [Double] {
        let radius = Int((3 * Double(sigma)).rounded(.up))
        let raw = (-radius...radius).map { k in exp(-Double(k * k) / (2 * Double(sigma) * Double(sigma))) }
        let total = raw.reduce(0, +)
        return raw.map { $0 / total }
    }

    /// Separable Gaussian blur with replicated borders.
    public static func gaussianBlurred(_ image: PixelBuffer, sigma: Float) -> PixelBuffer {
        make(image.descriptor, blur(image.floatValues.map(Double.init), image.descriptor, sigma: sigma).map(Float.init))
    }

    /// G(σ1) − G(σ2).
    public static func differenceOfGaussians(_ image: PixelBuffer, sigma1: Float, sigma2: Float) -> PixelBuffer {
        let values = image.floatValues.map(Double.init)
        let narrow = blur(values, image.descriptor, sigma: sigma1), wide = blur(values, image.descriptor, sigma: sigma2)
        return make(image.descriptor, zip(narrow, wide).map { Float($0 - $1) })
    }

    private static func blur(_ values: [Double], _ d: ImageDescriptor, sigma: Float) -> [Double] {
        let taps = gaussianTaps(sigma: sigma), radius = taps.count / 2
        var rows = values, out = values
        for p in 0..<d.planeCount {
            for y in 0..<d.height {
                for x in 0..<d.width {
                    var sum = 0.0
                    for k in -radius...radius {
                        sum += taps[k + radius] * values[index(p, min(max(x + k, 0), d.width - 1), y, d)]
                    }
                    rows[index(p, x, y, d)] = sum
                }
            }
            for y in 0..<d.height {
                for x in 0..<d.width {
                    var sum = 0.0
                    for k in -radius...radius {
                        sum += taps[k + radius] * rows[index(p, x, min(max(y + k, 0), d.height - 1), d)]
                    }
                    out[index(p, x, y, d)] = sum
                }
            }
        }
        return out
    }

    /// Tan–Triggs: I/mean(|I|^α)^(1/α), then I/mean(min(τ,|I|)^α)^(1/α), then τ·tanh(I/τ), per plane.
    public static func contrastEqualized(_ image: PixelBuffer, alpha: Float = 0.1, tau: Float = 10) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues.map(Double.init), n = d.planePixelCount
        let a = Double(alpha), t = Double(tau)
        func normalised(_ plane: [Double], _ f: (Double) -> Double) -> [Double] {
            let mean = plane.map(f).reduce(0, +) / Double(plane.count)
            return mean > 0 ? plane.map { $0 / pow(mean, 1 / a) } : plane
        }
        var out: [Float] = []
        for p in 0..<d.planeCount {
            var plane = Array(v[p * n..<(p + 1) * n])
            plane = normalised(plane) { pow(abs($0), a) }
            plane = normalised(plane) { pow(min(t, abs($0)), a) }
            out += plane.map { Float(t * tanh($0 / t)) }
        }
        return make(d, out)
    }

    /// Number of 0/1 transitions around a circular P-bit pattern.
    public static func transitions(_ code: Int, bits: Int) -> Int {
        (0..<bits).filter { (code >> $0) & 1 != (code >> (($0 + 1) % bits)) & 1 }.count
    }

    /// Label of a code: itself, or its index among uniform codes (non-uniform codes share the last).
    public static func label(_ code: Int, bits: Int, uniform: Bool) -> Int {
        guard uniform else { return code }
        guard transitions(code, bits: bits) <= 2 else { return bits * (bits - 1) + 2 }
        return (0..<code).filter { transitions($0, bits: bits) <= 2 }.count
    }

    /// 3×3 LBP: bits 7...0 = top-left, top, top-right, right, bottom-right, bottom, bottom-left, left.
    public static func localBinaryPattern(_ image: PixelBuffer, uniform: Bool = false) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        let out = d.with(width: d.width - 2, height: d.height - 2).with(elementType: .uint8)
        let neighbours = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)]
        var codes: [Float] = []
        for p in 0..<d.planeCount {
            for y in 1..<d.height - 1 {
                for x in 1..<d.width - 1 {
                    let centre = v[index(p, x, y, d)]
                    var code = 0
                    for (bit, (dx, dy)) in zip((0...7).reversed(), neighbours)
                    where v[index(p, x + dx, y + dy, d)] >= centre {
                        code |= 1 << bit
                    }
                    codes.append(Float(label(code, bits: 8, uniform: uniform)))
                }
            }
        }
        return make(out, codes)
    }

    /// Circular LBP(P, R) following OpenCV's LBPH (`elbp`), bilinear samples in single precision.
    public static func localBinaryPattern(
        _ image: PixelBuffer, neighbours: Int, radius: Int,
        uniform: Bool = false
    ) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        let out = d.with(width: d.width - 2 * radius, height: d.height - 2 * radius).with(elementType: .uint8)
        var codes = [Int](repeating: 0, count: out.elementCount)
        for n in 0..<neighbours {
            let x = Float(Double(radius) * cos(2.0 * Double.pi * Double(n) / Double(Float(neighbours))))
            let y = Float(Double(-radius) * sin(2.0 * Double.pi * Double(n) / Double(Float(neighbours))))
            let fx = Int(x.rounded(.down)), fy = Int(y.rounded(.down))
            let cx = Int(x.rounded(.up)), cy = Int(y.rounded(.up))
            let ty = y - Float(fy), tx = x - Float(fx)
            let w1 = (1 - tx) * (1 - ty), w2 = tx * (1 - ty), w3 = (1 - tx) * ty, w4 = tx * ty
            var o = 0
            for p in 0..<d.planeCount {
                for i in radius..<d.height - radius {
                    for j in radius..<d.width - radius {
                        let t =
                            w1 * v[index(p, j + fx, i + fy, d)] + w2 * v[index(p, j + cx, i + fy, d)]
                            + w3 * v[index(p, j + fx, i + cy, d)] + w4 * v[index(p, j + cx, i + cy, d)]
                        let c = v[index(p, j, i, d)]
                        if t > c || abs(t - c) < Float.ulpOfOne { codes[o] += 1 << n }
                        o += 1
                    }
                }
            }
        }
        return make(out, codes.map { Float(label($0, bits: neighbours, uniform: uniform)) })
    }

    /// The rectangle of every plane.
    public static func cropped(_ image: PixelBuffer, to r: PixelRect) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in r.y..<r.y + r.height { for x in r.x..<r.x + r.width { out.append(v[index(p, x, y, d)]) } }
        }
        return make(d.with(width: r.width, height: r.height), out)
    }

    /// Bilinear sample at (sx, sy), replicated or zero borders.
    static func sample(_ v: [Float], _ p: Int, _ d: ImageDescriptor, _ sx: Float, _ sy: Float, zero: Bool) -> Float {
        func at(_ x: Int, _ y: Int) -> Float {
            if zero && (x < 0 || y < 0 || x >= d.width || y >= d.height) { return 0 }
            return v[index(p, min(max(x, 0), d.width - 1), min(max(y, 0), d.height - 1), d)]
        }
        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
        let ax = sx - sx.rounded(.down), ay = sy - sy.rounded(.down)
        let top = (1 - ax) * at(x0, y0) + ax * at(x0 + 1, y0)
        let bottom = (1 - ax) * at(x0, y0 + 1) + ax * at(x0 + 1, y0 + 1)
        return (1 - ay) * top + ay * bottom
    }

    /// Affine resampling: output (x, y) reads the source at inverse(x, y).
    public static func transformed(
        _ image: PixelBuffer, by transform: AffineMatrix, width: Int, height: Int,
        border: AffineWarp.Border = .replicate, rounding: AffineWarp.Rounding = .nearest
    ) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        guard let m = transform.inverted else { return image }
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in 0..<height {
                for x in 0..<width {
                    let sx = m.a * Float(x) + m.b * Float(y) + m.c, sy = m.d * Float(x) + m.e * Float(y) + m.f
                    let inside =
                        sx >= 0 && sy >= 0 && Int(sx.rounded(.down)) + 1 < d.width
                        && Int(sy.rounded(.down)) + 1 < d.height
                    out.append(border == .blank && !inside ? 0 : sample(v, p, d, sx, sy, zero: border == .zero))
                }
            }
        }
        if rounding == .down && d.elementType == .uint8 { out = out.map { $0.rounded(.towardZero) } }
        return make(d.with(width: width, height: height), out)
    }

    /// dlib's pyramid_down<2>: the 5×5 binomial sum over input (2x…2x+4, 2y…2y+4), divided by 256 rounding down.
    public static func pyramidDown(_ image: PixelBuffer) -> PixelBuffer {
        let d = image.descriptor, v = image.uint8Values, taps = [1, 4, 6, 4, 1]
        let width = (d.width - 3) / 2, height = (d.height - 3) / 2
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0
                    for i in 0..<5 {
                        for j in 0..<5 {
                            sum += taps[i] * taps[j] * Int(v[(p * d.height + 2 * y + i) * d.width + 2 * x + j])
                        }
                    }
                    out.append(Float(sum / 256))
                }
            }
        }
        return make(d.with(width: width, height: height), out)
    }

    /// A one-plane image resized bilinearly to each region's size, each copy placed in its region of a
    /// `width` × `height` plane of zeros.
    public static func atlas(_ image: PixelBuffer, regions: [PixelRect], width: Int, height: Int) -> PixelBuffer {
        var out = [Float](repeating: 0, count: width * height)
        for region in regions {
            let copy = resizedBilinear(image, width: region.width, height: region.height).floatValues
            for y in 0..<region.height {
                for x in 0..<region.width { out[(region.y + y) * width + region.x + x] = copy[y * region.width + x] }
            }
        }
        return make(image.descriptor.with(width: width, height: height), out)
    }

    /// Bilinear resize with half-pixel centres.
    public static func resizedBilinear(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        let scaleX = Float(d.width) / Float(width), scaleY = Float(d.height) / Float(height)
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in 0..<height {
                for x in 0..<width {
                    out.append(
                        sample(v, p, d, (Float(x) + 0.5) * scaleX - 0.5, (Float(y) + 0.5) * scaleY - 0.5, zero: false))
                }
            }
        }
        return make(d.with(width: width, height: height), out)
    }

    /// Area resize: the covered-fraction-weighted mean of the source under each output pixel.
    public static func resizedArea(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        let scaleX = Float(d.width) / Float(width), scaleY = Float(d.height) / Float(height)
        func overlap(_ i: Int, _ lo: Float, _ hi: Float) -> Float { min(Float(i + 1), hi) - max(Float(i), lo) }
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in 0..<height {
                let y0 = Float(y) * scaleY, y1 = min(Float(y + 1) * scaleY, Float(d.height))
                for x in 0..<width {
                    let x0 = Float(x) * scaleX, x1 = min(Float(x + 1) * scaleX, Float(d.width))
                    var sum: Float = 0
                    for iy in Int(y0.rounded(.down))..<min(Int(y1.rounded(.up)), d.height) {
                        var line: Float = 0
                        for ix in Int(x0.rounded(.down))..<min(Int(x1.rounded(.up)), d.width) {
                            line += overlap(ix, x0, x1) * v[index(p, ix, iy, d)]
                        }
                        sum += overlap(iy, y0, y1) * line
                    }
                    out.append(sum * (1 / (scaleX * scaleY)))
                }
            }
        }
        return make(d.with(width: width, height: height), out)
    }

    /// Normalised histograms over a grid of blocks; block bounds by integer division.
    public static func blockHistograms(_ image: PixelBuffer, gridColumns: Int, gridRows: Int, bins: Int) -> PixelBuffer
    {
        let d = image.descriptor, codes = image.bytes
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for by in 0..<gridRows {
                for bx in 0..<gridColumns {
                    let xs = bx * d.width / gridColumns..<(bx + 1) * d.width / gridColumns
                    let ys = by * d.height / gridRows..<(by + 1) * d.height / gridRows
                    var histogram = [Double](repeating: 0, count: bins)
                    for y in ys {
                        for x in xs where Int(codes[index(p, x, y, d)]) < bins {
                            histogram[Int(codes[index(p, x, y, d)])] += 1
                        }
                    }
                    let count = Double(xs.count * ys.count)
                    out += histogram.map { count > 0 ? Float($0 / count) : 0 }
                }
            }
        }
        return make(d.with(width: bins, height: gridRows * gridColumns).with(elementType: .float32), out)
    }

    /// Integral images: upright sums by the 2-D recurrence S(x, y) = v + S(x−1, y) + S(x, y−1) − S(x−1, y−1)
    /// with a zero first row and column; tilted sums straight from their definition, adding every pixel
    /// (x, y) with y < Y and |x − X + 1| ≤ Y − y − 1. All modulo 2³².
    public static func integral(_ image: PixelBuffer, kind: IntegralImage.Kind = .sums) -> PixelBuffer {
        let d = image.descriptor, v = image.bytes
        let out = d.with(width: d.width + 1, height: d.height + 1).with(elementType: .uint32)
        var sums = [UInt32](repeating: 0, count: out.elementCount)
        for p in 0..<d.planeCount {
            for y in 1...d.height {
                for x in 0...d.width {
                    if kind == .tiltedSums {
                        var total: UInt32 = 0
                        for row in 0..<y {
                            let reach = y - row - 1
                            for column in max(0, x - 1 - reach)...max(0, min(d.width - 1, x - 1 + reach))
                            where abs(column - x + 1) <= reach {
                                total &+= UInt32(v[index(p, column, row, d)])
                            }
                        }
                        sums[index(p, x, y, out)] = total
                    } else if x > 0 {
                        let pixel = UInt32(v[index(p, x - 1, y - 1, d)])
                        sums[index(p, x, y, out)] =
                            (kind == .squaredSums ? pixel * pixel : pixel)
                            &+ sums[index(p, x - 1, y, out)] &+ sums[index(p, x, y - 1, out)]
                            &- sums[index(p, x - 1, y - 1, out)]
                    }
                }
            }
        }
        return PixelBuffer(descriptor: out) { raw in sums.withUnsafeBytes { raw.copyMemory(from: $0) } }
    }

    /// The `count` × `count` lowest frequencies of each plane's unnormalised 2-D DCT-II:
    /// Σy Σx p[y][x] cos(π u (2y + 1) / 2h) cos(π v (2x + 1) / 2w), in double precision.
    public static func lowFrequencyDCT(_ image: PixelBuffer, count: Int) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        func basis(_ k: Int, _ i: Int, _ n: Int) -> Double { cos(Double.pi * Double(k * (2 * i + 1)) / Double(2 * n)) }
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for u in 0..<count {
                for w in 0..<count {
                    var sum = 0.0
                    for y in 0..<d.height {
                        for x in 0..<d.width {
                            sum += Double(v[index(p, x, y, d)]) * basis(u, y, d.height) * basis(w, x, d.width)
                        }
                    }
                    out.append(Float(sum))
                }
            }
        }
        var result = d.with(width: count, height: count)
        result.elementType = .float32
        return make(result, out)
    }

    /// Per interior row of each plane, Σ L and Σ L² of the 4-neighbour Laplacian L (a 2-wide float image).
    public static func laplacianMoments(_ image: PixelBuffer) -> PixelBuffer {
        let d = image.descriptor, v = image.floatValues
        var out: [Float] = []
        for p in 0..<d.planeCount {
            for y in 1..<d.height - 1 {
                var sum = 0.0, squares = 0.0
                for x in 1..<d.width - 1 {
                    let l = Double(
                        v[index(p, x, y - 1, d)] + v[index(p, x, y + 1, d)] + v[index(p, x - 1, y, d)]
                            + v[index(p, x + 1, y, d)] - 4 * v[index(p, x, y, d)])
                    sum += l
                    squares += l * l
                }
                out += [Float(sum), Float(squares)]
            }
        }
        var result = d.with(width: 2, height: d.height - 2)
        result.elementType = .float32
        return make(result, out)
    }

    static func index(_ plane: Int, _ x: Int, _ y: Int, _ d: ImageDescriptor) -> Int {
        (plane * d.height + y) * d.width + x
    }

    /// A buffer of the descriptor's type from float values (rounded for `uint8`).
    static func make(_ descriptor: ImageDescriptor, _ values: [Float]) -> PixelBuffer {
        let bytes: [UInt8]
        switch descriptor.elementType {
        case .uint8: bytes = values.map { UInt8(rounding: $0) }
        case .float32: bytes = values.withUnsafeBytes { Array($0) }
        case .uint32: bytes = values.map { UInt32(clamping: Int64($0)) }.withUnsafeBytes { Array($0) }
        }

        guard let buffer = try? PixelBuffer(descriptor: descriptor, bytes: bytes) else {
            preconditionFailure("reference produced \(values.count) values for \(descriptor)")
        }
        return buffer
    }
}
