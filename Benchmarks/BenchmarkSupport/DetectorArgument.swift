import ArgumentParser
import FaceDetection

/// `--detector` of the benchmarks takes the names `cbir` takes (haar, lbp, blazeface, blazeface-short,
/// a cascade file).
extension DetectorChoice: ExpressibleByArgument {}
