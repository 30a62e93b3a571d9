import ImageKernels

/// Every kernel of FaceRecognition, for checks that must cover them all (each signature against its source).
public enum FaceRecognitionLibrary {
    public static let kernels: [any KernelDeclaration] = [
        ChiSquareCounts.kernel(asymmetric: false, faceSums: false),
        ChiSquareCounts.kernel(asymmetric: true, faceSums: true),
        ChiSquareNearest.kernel(full: false, probeCount: 1, asymmetric: false, faceSums: false),
        ChiSquareNearest.kernel(full: true, probeCount: 4, asymmetric: true, faceSums: true),
        ChiSquareNearest.kernel(full: true, probeCount: 4, asymmetric: false, faceSums: true, cooperativeBins: 59),
        EmbeddingDistance.kernel,
        EmbeddingNeighbours.kernel,
    ]
}
