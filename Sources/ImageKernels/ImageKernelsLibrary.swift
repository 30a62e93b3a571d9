/// Every kernel of ImageKernels, for checks that must cover them all (each signature against its source).
public enum ImageKernelsLibrary {
    public static let kernels: [any KernelDeclaration] = [
        AffineWarp.uint8, AffineWarp.float32,
        AtlasResize.uint8Kernel, AtlasResize.floatKernel,
        BlockHistogram.kernel,
        BlockSum.kernel,
        ContrastEqualization.powerSum, ContrastEqualization.clippedPowerSum, ContrastEqualization.compress,
        Crop.uint8, Crop.float32,
        DifferenceOfGaussians.columns,
        ElementConversion.toFloat, ElementConversion.toUInt8,
        GammaAdjust.kernel,
        GaussianBlur.rows, GaussianBlur.columns,
        Grayscale.uint8, Grayscale.float32,
        HistogramDifference.symmetric, HistogramDifference.asymmetric,
        IntegralImage.rows, IntegralImage.squaredRows, IntegralImage.columns, IntegralImage.antidiagonals,
        IntegralImage.diagonals,
        LocalBinaryPattern.basicUInt8, LocalBinaryPattern.basicFloat, LocalBinaryPattern.circularUInt8,
        LocalBinaryPattern.circularFloat,
        PyramidDown.kernel,
        Resize.bilinearUInt8, Resize.bilinearFloat, Resize.areaUInt8, Resize.areaFloat,
    ]
}
