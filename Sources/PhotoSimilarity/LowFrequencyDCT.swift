import Foundation
import ImageKernels
import PhotoSimilarityCL

/// The `count` × `count` lowest frequencies of each uint8 plane's 2-D DCT-II (unnormalised), as a float
/// image `count` square per plane: what a perceptual hash thresholds. The plane keeps its coarse structure
/// there and loses the noise, compression and small edits that copies add.
public struct LowFrequencyDCT: Filter {
    public let count: Int
    public var name: String { "DCT \(count)×\(count) low frequencies" }

    public init(count: Int = 8) {
        self.count = count
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        var input = try singleInput(inputs, of: .uint8)
        guard count > 0, count <= min(input.width, input.height) else {
            throw .invalidInput(filter: name, reason: "needs planes of at least \(count)×\(count), got \(input)")
        }
        input.elementType = .float32
        return input.with(width: count, height: count)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), width: Int32(input.width),
                height: Int32(input.height), count: Int32(count), planes: Int32(input.planeCount)),
            over: [count, count, input.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<UInt8>
        var dst: KernelMutableBuffer<Float>
        var width: Int32
        var height: Int32
        var count: Int32
        var planes: Int32
    }

    static let kernel = Kernel<Arguments>(
        "dct_low_frequencies", in: KernelSource(name: "LowFrequencyDCT", bytes: PhotoSimilarityCL.lowFrequencyDCT),
        schedules: .uniform([8, 8, 1])
    ) { arguments, _ in
        let width = Int(arguments.width), height = Int(arguments.height), count = Int(arguments.count)
        /// cos(π k (2i + 1) / 2n) for k < count, i < n, row-major by k.
        func basis(_ n: Int) -> [Float] {
            (0..<count * n).map { index in
                let k = index / n, i = index % n
                return Float(cos(Double.pi * Double(k * (2 * i + 1)) / Double(2 * n)))
            }
        }
        let columns = basis(width), rows = basis(height)
        CPUParallel.forEachRange(Int(arguments.planes)) { planes in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for plane in planes {
                let p = src + plane * width * height
                for u in 0..<count {
                    for v in 0..<count {
                        var sum: Float = 0
                        for y in 0..<height {
                            var row: Float = 0
                            for x in 0..<width { row += Float(p[y * width + x]) * columns[v * width + x] }
                            sum += row * rows[u * height + y]
                        }
                        dst[(plane * count + u) * count + v] = sum
                    }
                }
            }
        }
    }
}

extension Image {
    /// The `count` × `count` lowest frequencies of each plane's 2-D DCT.
    public func lowFrequencyDCT(count: Int = 8) -> Image {
        applying(LowFrequencyDCT(count: count))
    }
}
