import ImageKernels
import NeuralNetworksCL

/// Max or average pooling over windows with strides and zero padding; ``global(_:)`` pools each whole
/// plane to one value. Windows are cut to the plane (a max ignores padding, an average divides by the
/// pixels it covers).
public struct Pooling: Filter {
    public enum Kind: Sendable {
        case max
        case average
    }

    public let kind: Kind
    /// The window; nil pools the whole plane.
    public let window: (width: Int, height: Int)?
    public let strideX: Int
    public let strideY: Int
    public let paddingX: Int
    public let paddingY: Int
    public var name: String { (kind == .max ? "max" : "average") + " pooling" }

    public init(
        _ kind: Kind, windowWidth: Int, windowHeight: Int, strideX: Int, strideY: Int, paddingX: Int = 0,
        paddingY: Int = 0
    ) {
        self.kind = kind
        window = (windowWidth, windowHeight)
        self.strideX = strideX
        self.strideY = strideY
        self.paddingX = paddingX
        self.paddingY = paddingY
    }

    /// Each plane pooled to a single value.
    public static func global(_ kind: Kind) -> Pooling {
        Pooling(kind: kind)
    }

    private init(kind: Kind) {
        self.kind = kind
        window = nil
        (strideX, strideY, paddingX, paddingY) = (1, 1, 0, 0)
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try tensorInputs(inputs, count: 1)[0]
        guard let window else { return input.with(width: 1, height: 1) }
        guard window.width > 0, window.height > 0, strideX > 0, strideY > 0, paddingX >= 0, paddingY >= 0,
            paddingX < window.width, paddingY < window.height
        else {
            throw .invalidInput(
                filter: name, reason: "windows and strides must be positive, paddings smaller than the window")
        }
        guard input.width + 2 * paddingX >= window.width, input.height + 2 * paddingY >= window.height else {
            throw .invalidInput(
                filter: name, reason: "the \(input.width)×\(input.height) input is smaller than the window")
        }
        return input.with(
            width: (input.width + 2 * paddingX - window.width) / strideX + 1,
            height: (input.height + 2 * paddingY - window.height) / strideY + 1)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        let window = window ?? (input.width, input.height)
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), width: Int32(input.width),
                height: Int32(input.height), outWidth: Int32(output.width),
                outHeight: Int32(output.height), windowWidth: Int32(window.width),
                windowHeight: Int32(window.height), strideX: Int32(strideX),
                strideY: Int32(strideY), paddingX: Int32(paddingX), paddingY: Int32(paddingY),
                planes: Int32(input.planeCount), average: kind == .average ? 1 : 0),
            over: [output.width, output.height, output.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var width: Int32
        var height: Int32
        var outWidth: Int32
        var outHeight: Int32
        var windowWidth: Int32
        var windowHeight: Int32
        var strideX: Int32
        var strideY: Int32
        var paddingX: Int32
        var paddingY: Int32
        var planes: Int32
        var average: Int32
    }

    static let kernel = Kernel<Arguments>(
        "pooling", in: KernelSource(name: "Pooling", bytes: NeuralNetworksCL.pooling),
        schedules: .perPixel
    ) { a, _ in
        let width = Int(a.width), height = Int(a.height), outWidth = Int(a.outWidth), outHeight = Int(a.outHeight)
        let (ww, wh, sx, sy, px, py) = (
            Int(a.windowWidth), Int(a.windowHeight), Int(a.strideX), Int(a.strideY), Int(a.paddingX), Int(a.paddingY)
        )
        let average = a.average != 0
        @Sendable @inline(__always) func combine(_ result: Float, _ value: Float) -> Float {
            average ? result + value : max(result, value)
        }
        @Sendable @inline(__always) func combine(_ result: SIMD8<Float>, _ value: SIMD8<Float>) -> SIMD8<Float> {
            // A select rather than `pointwiseMax`, which compiles to one lane at a time; `max`'s choice on ties.
            average ? result + value : result.replacing(with: value, where: value .>= result)
        }
        // Eight outputs at a time where their windows lie inside the plane's columns and their strided loads
        // read no further than its row (a stride of 2 reads one value past the last it keeps).
        let firstInside = (px + sx - 1) / sx, reachPastWindow = sx == 2 ? 16 : 7 * sx + 1
        CPUParallel.forEachRange(Int(a.planes) * outHeight) { rows in
            let src = a.src.elements, dst = a.dst.elements
            for row in rows {
                let plane = src + row / outHeight * width * height, oy = row % outHeight, out = dst + row * outWidth
                let y0 = max(oy * sy - py, 0), y1 = min(oy * sy - py + wh, height)
                var ox = 0
                while ox < outWidth {
                    if ox >= firstInside, ox * sx - px + ww - 1 + reachPastWindow <= width {
                        var result = SIMD8<Float>(repeating: average ? 0 : -.infinity)
                        for y in y0..<max(y0, y1) {
                            let line = UnsafePointer(plane + y * width + ox * sx - px)
                            for x in 0..<ww { result = combine(result, (line + x).loadEight(stride: sx)) }
                        }
                        if average { result = y1 > y0 ? result / Float(ww * (y1 - y0)) : .zero }
                        UnsafeMutableRawPointer(out + ox).storeBytes(of: result, as: SIMD8<Float>.self)
                        ox += 8
                        continue
                    }
                    let x0 = max(ox * sx - px, 0), x1 = min(ox * sx - px + ww, width)
                    var result: Float = average ? 0 : -.infinity
                    for y in y0..<max(y0, y1) {
                        for x in x0..<max(x0, x1) { result = combine(result, plane[y * width + x]) }
                    }
                    if average { result = x1 > x0 && y1 > y0 ? result / Float((x1 - x0) * (y1 - y0)) : 0 }
                    out[ox] = result
                    ox += 1
                }
            }
        }
    }
}

extension Image {
    /// Max or average pooling over `window`-sized windows (square) every `stride` pixels.
    public func pooled(_ kind: Pooling.Kind, window: Int, stride: Int, padding: Int = 0) -> Image {
        applying(
            Pooling(
                kind, windowWidth: window, windowHeight: window, strideX: stride, strideY: stride,
                paddingX: padding, paddingY: padding))
    }

    /// Each plane pooled to one value.
    public func globallyPooled(_ kind: Pooling.Kind) -> Image {
        applying(Pooling.global(kind))
    }
}

extension Pooling: NetworkOperation {}

extension NetworkOperation where Self == Pooling {
    /// This pooling.
    public static func pooling(_ pooling: Pooling) -> Self { pooling }
}
