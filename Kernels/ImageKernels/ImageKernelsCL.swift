// The OpenCL C sources of ImageKernels, embedded in the binary at build time: only ImageKernels reads them.

/// Each `.cl` file of this folder, as bytes.
public enum ImageKernelsCL {
    public static let affineWarp = PackageResources.AffineWarp_cl
    public static let blockHistogram = PackageResources.BlockHistogram_cl
    public static let blockSum = PackageResources.BlockSum_cl
    public static let contrastEqualization = PackageResources.ContrastEqualization_cl
    public static let crop = PackageResources.Crop_cl
    public static let differenceOfGaussians = PackageResources.DifferenceOfGaussians_cl
    public static let elementConversion = PackageResources.ElementConversion_cl
    public static let gammaAdjust = PackageResources.GammaAdjust_cl
    public static let gaussianBlur = PackageResources.GaussianBlur_cl
    public static let grayscale = PackageResources.Grayscale_cl
    public static let histogramDifference = PackageResources.HistogramDifference_cl
    public static let integralImage = PackageResources.IntegralImage_cl
    public static let localBinaryPattern = PackageResources.LocalBinaryPattern_cl
    public static let pyramidDown = PackageResources.PyramidDown_cl
    public static let resize = PackageResources.Resize_cl
}
