import Foundation

/// Reads dlib's serialisation format (dlib/serialize.h) from a file's bytes, keeping the offset for errors.
///
/// Integers are a control byte (low nibble: byte count; 0x80: negative) then little-endian magnitude;
/// strings a length then bytes; bools the characters '1' and '0'; floating-point values an integer
/// mantissa and exponent; tensors (dlib/cuda/tensor.h) version 2, four dimensions, raw float32.
struct DlibArchive {
    let path: String
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    /// The whole file, or a typed error naming it.
    static func open(_ path: String, setup: String) throws(ModelError) -> DlibArchive {
        let bytes = try ModelCache.contents(of: path, setup: setup)
        guard !bytes.isEmpty else { throw .truncated(path: path, offset: 0, needed: 1) }
        return DlibArchive(path: path, bytes: bytes)
    }

    var isAtEnd: Bool { offset == bytes.count }

    func malformed(_ reason: String, at position: Int? = nil) -> ModelError {
        .malformed(path: path, offset: position ?? offset, reason: reason)
    }

    /// Throws unless `count` more bytes are there.
    private func need(_ count: Int) throws(ModelError) {
        guard count <= bytes.count - offset else {
            throw .truncated(path: path, offset: bytes.count, needed: count - (bytes.count - offset))
        }
    }

    private mutating func take(_ count: Int) throws(ModelError) -> ArraySlice<UInt8> {
        try need(count)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Read in place, without a slice: a shape predictor's 9 MB are mostly floats, two integers each.
    mutating func integer() throws(ModelError) -> Int {
        let start = offset
        try need(1)
        let control = bytes[start]
        let size = Int(control & 0x0F)
        guard size <= 8, control & 0x70 == 0 else {
            throw malformed("bad integer control byte 0x\(String(control, radix: 16))", at: start)
        }
        try need(1 + size)
        var magnitude: UInt64 = 0
        for index in 0..<size { magnitude |= UInt64(bytes[start + 1 + index]) << (8 * index) }
        offset += 1 + size
        guard magnitude <= UInt64(Int.max) else { throw malformed("integer out of range", at: start) }
        return control & 0x80 != 0 ? -Int(magnitude) : Int(magnitude)
    }

    /// An integer that must lie in `range` (a count, a size, a version).
    mutating func integer(in range: ClosedRange<Int>, _ what: String) throws(ModelError) -> Int {
        let start = offset, value = try integer()
        guard range.contains(value) else {
            throw malformed("\(what) \(value) is outside \(range.lowerBound)...\(range.upperBound)", at: start)
        }
        return value
    }

    mutating func string() throws(ModelError) -> String {
        let start = offset
        let count = try integer(in: 0...4096, "string length")
        guard let text = String(bytes: try take(count), encoding: .utf8) else {
            throw malformed("a string is not UTF-8", at: start)
        }
        return text
    }

    mutating func boolean() throws(ModelError) -> Bool {
        let start = offset
        switch try take(1).first {
        case UInt8(ascii: "1"): return true
        case UInt8(ascii: "0"): return false
        default: throw malformed("a bool is neither '1' nor '0'", at: start)
        }
    }

    /// dlib's portable float: mantissa · 2^exponent, with exponents 32000…32002 meaning ±∞ and NaN.
    mutating func float() throws(ModelError) -> Float {
        let mantissa = try integer(), exponent = try integer()
        switch exponent {
        case 32000: return .infinity
        case 32001: return -.infinity
        case 32002: return .nan
        default: return Float(Double(sign: .plus, exponent: exponent, significand: Double(mantissa)))
        }
    }

    /// A tensor's four dimensions (samples, k, rows, columns) and values.
    mutating func tensor() throws(ModelError) -> (dimensions: [Int], values: [Float]) {
        let start = offset
        _ = try integer(in: 2...2, "tensor version")
        var dimensions: [Int] = []
        for _ in 0..<4 { dimensions.append(try integer(in: 0...(1 << 28), "tensor dimension")) }
        let count = dimensions.reduce(1) { count, dimension in
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            return overflow ? .max : product
        }
        guard count <= 1 << 28, count * 4 <= bytes.count else {
            let shape = dimensions.map(String.init).joined(separator: "×")
            throw malformed("a tensor of \(shape) values, more than the file's \(bytes.count) bytes hold", at: start)
        }
        let raw = try take(count * 4)
        let values = raw.withUnsafeBytes { buffer in
            (0..<count).map {
                Float(bitPattern: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
        try ModelError.requireFinite(values, tensor: "the tensor", path: path, offset: start)
        return (dimensions, values)
    }

    /// An alias tensor (a view's shape): version 1 and four dimensions.
    mutating func aliasTensor() throws(ModelError) -> [Int] {
        _ = try integer(in: 1...1, "alias tensor version")
        var dimensions: [Int] = []
        for _ in 0..<4 { dimensions.append(try integer(in: 0...(1 << 28), "alias tensor dimension")) }
        return dimensions
    }
}
