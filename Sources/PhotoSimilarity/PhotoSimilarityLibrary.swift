import ImageKernels

/// Every kernel of PhotoSimilarity, for checks that must cover them all (each signature against its source).
public enum PhotoSimilarityLibrary {
    public static let kernels: [any KernelDeclaration] = [
        LaplacianMoments.kernel,
        LowFrequencyDCT.kernel,
    ]
}
