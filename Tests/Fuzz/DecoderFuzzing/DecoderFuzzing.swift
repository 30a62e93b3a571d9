import CLibFuzzer
import Foundation
import ImageCodecs
import ImageKernels

/// What the decoders' fuzz targets share (`scripts/fuzz.sh` builds them with libFuzzer and AddressSanitizer):
/// any bytes give either an image that keeps the decoder's promises or a typed error naming the file, never a
/// crash, a hang or a memory error. A broken promise traps, so libFuzzer keeps the input that broke it.
public enum DecoderFuzzing {
    /// A fuzz target as libFuzzer calls it: one input, 0 to keep it in the corpus, -1 to leave it out.
    public typealias Target = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Hands the process to libFuzzer's driver with `target` and the command line's options and corpus folders.
    public static func run(_ target: Target) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }

    /// Decodes an input that sniffs as `format` (others stay out of the corpus) with options its last byte
    /// picks, so the fuzzer explores gray and colour output, DCT scaling and EXIF orientation as well.
    public static func decode(_ data: UnsafePointer<UInt8>?, _ count: Int, as format: ImageFormat) -> CInt {
        let bytes = Array(UnsafeBufferPointer(start: data, count: count))
        guard ImageFormat(sniffing: bytes) == format else { return -1 }
        let options = options(picked: bytes.last ?? 0)
        do {
            check(try ImageDecoder.decode(bytes, path: path, options: options), options: options)
        } catch {
            precondition(
                error.path == path && error.description.hasPrefix(path), "the error does not name the file: \(error)")
        }
        return 0
    }

    /// Reads the EXIF orientation of an input taken as a JPEG's header; a found orientation must turn a small
    /// image of odd size into one of the right shape that the inverse orientation turns back.
    public static func orientation(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let bytes = Array(UnsafeBufferPointer(start: data, count: count))
        guard let orientation = ExifOrientation(jpeg: bytes) else { return 0 }
        let turned = orientation.apply(to: sample)
        let d = sample.descriptor, swaps = orientation.rawValue >= 5
        precondition(
            turned.descriptor == d.with(width: swaps ? d.height : d.width, height: swaps ? d.width : d.height),
            "\(orientation) made \(turned.descriptor) of \(d)")
        precondition(
            inverse(of: orientation).apply(to: turned) == sample, "\(orientation) is not undone by its inverse")
        return 0
    }

    /// The name the decoder is given, which its errors must carry.
    static let path = "fuzz-input"

    /// Small enough that a header claiming a huge image costs milliseconds, not seconds, of the fuzzer's time.
    static let maximumPixels = 1 << 20

    static func options(picked byte: UInt8) -> DecodingOptions {
        DecodingOptions(
            grayscale: byte & 1 != 0, minimumLongSide: byte & 2 != 0 ? 48 : nil,
            maximumPixels: maximumPixels, appliesOrientation: byte & 4 == 0)
    }

    /// The promises of `ImageDecoder.decode`: one `uint8` image, 1, 3 or 4 channels (1 when gray was asked
    /// for), within the pixel limit, every byte present.
    static func check(_ image: PixelBuffer, options: DecodingOptions) {
        let d = image.descriptor
        precondition(d.elementType == .uint8 && d.batch == 1, "decoded \(d): not one uint8 image")
        precondition(
            options.grayscale ? d.channels == 1 : [1, 3, 4].contains(d.channels), "decoded \(d.channels) channels")
        precondition(
            d.width > 0 && d.height > 0 && d.width * d.height <= options.maximumPixels, "decoded \(d.width)×\(d.height)"
        )
        precondition(image.bytes.count == d.width * d.height * d.channels, "\(image.bytes.count) bytes for \(d)")
    }

    /// Five by three pixels, two planes, every sample distinct.
    static let sample = PixelBuffer(descriptor: ImageDescriptor(width: 5, height: 3, channels: 2, elementType: .uint8))
    { out in
        for i in out.indices { out[i] = UInt8(i) }
    }

    static func inverse(of orientation: ExifOrientation) -> ExifOrientation {
        switch orientation {
        case .rotatedClockwise: .rotatedCounterClockwise
        case .rotatedCounterClockwise: .rotatedClockwise
        default: orientation
        }
    }
}
