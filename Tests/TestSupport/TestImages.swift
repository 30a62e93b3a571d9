import BenchmarkSupport
import ImageKernels

/// Random images and comparisons for kernel tests.
public enum TestImages {
    /// A random image: `uint8` uniformly in 0...255 (or below `maximum`), floats uniformly in 0..<1.
    public static func random(
        _ descriptor: ImageDescriptor, maximum: Int = 255,
        using generator: inout SeededGenerator
    ) -> PixelBuffer {
        let bytes: [UInt8]
        switch descriptor.elementType {
        case .uint8:
            bytes = (0..<descriptor.elementCount).map { _ in UInt8.random(in: 0...UInt8(maximum), using: &generator) }
        case .float32:
            let values = (0..<descriptor.elementCount).map { _ in Float.random(in: 0..<1, using: &generator) }
            bytes = values.withUnsafeBytes { Array($0) }
        case .uint32:
            let values = (0..<descriptor.elementCount).map { _ in
                UInt32.random(in: 0...UInt32(maximum), using: &generator)
            }
            bytes = values.withUnsafeBytes { Array($0) }
        }
        // The byte count comes from the descriptor itself.
        return try! PixelBuffer(descriptor: descriptor, bytes: bytes)
    }

    /// A random odd size in `range`.
    public static func oddSize(_ range: ClosedRange<Int>, using generator: inout SeededGenerator) -> Int {
        Int.random(in: range, using: &generator) | 1
    }

    /// Nil when the buffers agree (bytes equal for integers; |a − b| ≤ tolerance·max(1, |b|) for floats),
    /// else a description of the first difference.
    public static func difference(_ actual: PixelBuffer, _ expected: PixelBuffer, tolerance: Float) -> String? {
        guard actual.descriptor == expected.descriptor else {
            return "descriptor \(actual.descriptor), expected \(expected.descriptor)"
        }
        if actual.descriptor.elementType != .float32 {
            guard let i = actual.bytes.indices.first(where: { actual.bytes[$0] != expected.bytes[$0] }) else {
                return nil
            }
            let mismatches = zip(actual.bytes, expected.bytes).filter { $0 != $1 }.count
            return "\(mismatches) elements differ; first at \(i): \(actual.bytes[i]) vs \(expected.bytes[i])"
        }
        let a = actual.floatValues, b = expected.floatValues
        var worst = (index: -1, error: Float(0))
        for i in a.indices {
            let error = abs(a[i] - b[i]) / max(1, abs(b[i]))
            if !(error <= worst.error) { worst = (i, error.isNaN ? .infinity : error) }
        }
        guard worst.error > tolerance else { return nil }
        return "relative error \(worst.error) > \(tolerance) at \(worst.index): \(a[worst.index]) vs \(b[worst.index])"
    }
}

/// The devices tests run on.
public enum TestDevices {
    /// The first OpenCL device, or nil (with the reason) when there is no OpenCL platform.
    public static let openCL: Result<Device, RenderError> = Result { () throws(RenderError) in
        try Device.select(.opencl)
    }

    /// Whether an OpenCL platform with a device exists here.
    public static var hasOpenCL: Bool { (try? openCL.get()) != nil }

    /// The device for a choice, for parameterised tests.
    public static func device(_ choice: DeviceChoice) throws -> Device {
        choice == .cpu ? .cpu : try openCL.get()
    }
}
