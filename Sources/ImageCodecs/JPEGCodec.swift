import CTurboJPEG
import ImageKernels

/// JPEG through TurboJPEG: DCT-scaled decoding and encoding.
enum JPEGCodec {
    /// The stored size in the header; nil when it cannot be read (decoding will then say why).
    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    static func decode(_ bytes: [UInt8], path: String, options: DecodingOptions) throws(ImageCodecError) -> PixelBuffer
    {
        guard let handle = tjInitDecompress() else { throw .unsupported(path: path, detail: "TurboJPEG did not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard headerStatus == 0 else {
            throw classify(message(handle), path: path, truncatedWhenEnding: bytes.count < 1024)
        }
        try ImageDecoder.checkSize(width: Int(width), height: Int(height), path: path, options: options)
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw .unsupported(path: path, detail: "CMYK JPEG")
        }
        let reduction = ImageDecoder.reduction(
            width: Int(width), height: Int(height), minimumLongSide: options.minimumLongSide)
        // TurboJPEG's own sizes at 1/reduction (TJSCALED): its DCT scales to the largest factor that fits them.
        let outWidth = (Int(width) + reduction - 1) / reduction, outHeight = (Int(height) + reduction - 1) / reduction
        let gray = options.grayscale || colorspace == Int32(TJCS_GRAY.rawValue)
        let channels = gray ? 1 : 3
        let format = gray ? TJPF_GRAY : TJPF_RGB
        return try ImageDecoder.decoding(
            width: outWidth, height: outHeight, channels: channels,
            path: path
        ) { () throws(ImageCodecError) in
            var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
            let status = bytes.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { target in
                    tjDecompress2(
                        handle, source.baseAddress, UInt(source.count), target.baseAddress, Int32(outWidth), 0,
                        Int32(outHeight), Int32(format.rawValue), 0)
                }
            }
            if status != 0 {
                let text = message(handle)
                // Warnings leave a usable image, except a premature end: then part of the image is missing.
                if tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue)
                    || text.lowercased().contains("premature end")
                {
                    throw classify(text, path: path, truncatedWhenEnding: true)
                }
            }
            return pixels.withUnsafeBufferPointer {
                ImageDecoder.planar(interleaved: $0, width: outWidth, height: outHeight, channels: channels)
            }
        }
    }

    /// Encodes a 1- or 3-channel `uint8` image (4:4:4 chroma at quality ≥ 90, else 4:2:0).
    static func encode(_ image: PixelBuffer, quality: Int, path: String) throws(ImageCodecError) -> [UInt8] {
        let d = image.descriptor
        guard d.elementType == .uint8, d.batch == 1, d.channels == 1 || d.channels == 3 else {
            throw .encodingFailed(path: path, reason: "JPEG takes one uint8 image of 1 or 3 channels, got \(d)")
        }
        guard let handle = tjInitCompress() else {
            throw .encodingFailed(path: path, reason: "TurboJPEG did not start")
        }
        defer { tjDestroy(handle) }
        let interleaved = PNGCodec.interleaved(image)
        // Full-resolution chroma at high quality, where colour edges matter more than size.
        let subsampling = d.channels == 1 ? TJSAMP_GRAY : quality >= 90 ? TJSAMP_444 : TJSAMP_420
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = interleaved.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(d.width), 0, Int32(d.height),
                Int32((d.channels == 1 ? TJPF_GRAY : TJPF_RGB).rawValue), &output, &size,
                Int32(subsampling.rawValue), Int32(quality), 0)
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw .encodingFailed(path: path, reason: message(handle)) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func message(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: text)
    }

    private static func classify(_ message: String, path: String, truncatedWhenEnding: Bool) -> ImageCodecError {
        let lower = message.lowercased()
        if lower.contains("premature end") || (truncatedWhenEnding && lower.contains("end of")) {
            return .truncated(path: path, detail: message)
        }
        return .corrupt(path: path, detail: message)
    }
}
