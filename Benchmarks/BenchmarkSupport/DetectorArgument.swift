import ArgumentParser
import FaceDetection

extension DetectorChoice {
    /// Reads the benchmarks' `--detector NAME` as `cbir` reads it (haar, lbp, blazeface, blazeface-short, a
    /// cascade file): a transform for `@Option`, since `cbir` declares the one `ExpressibleByArgument`
    /// conformance and a binary may link both.
    public static func argument(_ name: String) throws -> DetectorChoice {
        guard let choice = DetectorChoice(name) else {
            throw ValidationError("unknown detector \(name): \(names.joined(separator: ", "))")
        }
        return choice
    }
}
