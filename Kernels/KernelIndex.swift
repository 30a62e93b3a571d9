// The typed index of the framework's OpenCL C sources, embedded in the binary at build time.

/// One `.cl` file of this folder: one filter family.
public enum KernelSourceFile: String, CaseIterable, Sendable {
    case elementConversion = "ElementConversion"
    case grayscale = "Grayscale"
    case gammaAdjust = "GammaAdjust"
    case gaussianBlur = "GaussianBlur"
    case differenceOfGaussians = "DifferenceOfGaussians"
    case contrastEqualization = "ContrastEqualization"
    case localBinaryPattern = "LocalBinaryPattern"
    case crop = "Crop"
    case affineWarp = "AffineWarp"
    case resize = "Resize"
    case blockHistogram = "BlockHistogram"
    case histogramDifference = "HistogramDifference"
    case blockSum = "BlockSum"
    case chiSquareNearest = "ChiSquareNearest"
    case integralImage = "IntegralImage"
    case cascadeDetection = "CascadeDetection"

    /// The file's OpenCL C text.
    public var source: String {
        Self.sources[self] ?? ""
    }

    /// Every file's text, decoded once: kernels are made on every launch, and each one names its source.
    private static let sources = Dictionary(uniqueKeysWithValues: allCases.map { ($0, String(decoding: $0.bytes, as: UTF8.self)) })

    private var bytes: [UInt8] {
        switch self {
        case .elementConversion: PackageResources.ElementConversion_cl
        case .grayscale: PackageResources.Grayscale_cl
        case .gammaAdjust: PackageResources.GammaAdjust_cl
        case .gaussianBlur: PackageResources.GaussianBlur_cl
        case .differenceOfGaussians: PackageResources.DifferenceOfGaussians_cl
        case .contrastEqualization: PackageResources.ContrastEqualization_cl
        case .localBinaryPattern: PackageResources.LocalBinaryPattern_cl
        case .crop: PackageResources.Crop_cl
        case .affineWarp: PackageResources.AffineWarp_cl
        case .resize: PackageResources.Resize_cl
        case .blockHistogram: PackageResources.BlockHistogram_cl
        case .histogramDifference: PackageResources.HistogramDifference_cl
        case .blockSum: PackageResources.BlockSum_cl
        case .chiSquareNearest: PackageResources.ChiSquareNearest_cl
        case .integralImage: PackageResources.IntegralImage_cl
        case .cascadeDetection: PackageResources.CascadeDetection_cl
        }
    }
}

/// Every OpenCL entry point of the framework, by its name in the source.
public enum KernelFunction: String, CaseIterable, Sendable {
    case conversionToFloat = "conversion_to_float"
    case conversionToUInt8 = "conversion_to_uint8"
    case grayscaleLuma = "grayscale_luma"
    case gammaAdjust = "gamma_adjust"
    case gaussianRows = "gaussian_rows"
    case gaussianColumns = "gaussian_columns"
    case dogColumns = "dog_columns"
    case equalizePowerSum = "equalize_power_sum"
    case equalizeClippedPowerSum = "equalize_clipped_power_sum"
    case equalizeCompress = "equalize_compress"
    case lbpBasic = "lbp_basic"
    case lbpCircular = "lbp_circular"
    case cropCopy = "crop_copy"
    case affineWarp = "affine_warp"
    case resizeBilinear = "resize_bilinear"
    case resizeArea = "resize_area"
    case blockHistogram = "block_histogram"
    case histogramDifference = "histogram_difference"
    case blockSum = "block_sum"
    case chiSquareNearest = "chisquare_nearest"
    case integralRows = "integral_rows"
    case integralColumns = "integral_columns"
    case integralTilted = "integral_tilted"
    case cascadeDetect = "cascade_detect"
    case cascadeDetectLanes = "cascade_detect_lanes"

    /// The file that defines this entry point.
    public var sourceFile: KernelSourceFile {
        switch self {
        case .conversionToFloat, .conversionToUInt8: .elementConversion
        case .grayscaleLuma: .grayscale
        case .gammaAdjust: .gammaAdjust
        case .gaussianRows, .gaussianColumns: .gaussianBlur
        case .dogColumns: .differenceOfGaussians
        case .equalizePowerSum, .equalizeClippedPowerSum, .equalizeCompress: .contrastEqualization
        case .lbpBasic, .lbpCircular: .localBinaryPattern
        case .cropCopy: .crop
        case .affineWarp: .affineWarp
        case .resizeBilinear, .resizeArea: .resize
        case .blockHistogram: .blockHistogram
        case .histogramDifference: .histogramDifference
        case .blockSum: .blockSum
        case .chiSquareNearest: .chiSquareNearest
        case .integralRows, .integralColumns, .integralTilted: .integralImage
        case .cascadeDetect, .cascadeDetectLanes: .cascadeDetection
        }
    }
}
