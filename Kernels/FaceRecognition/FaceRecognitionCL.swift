// The OpenCL C sources of FaceRecognition, embedded in the binary at build time: only FaceRecognition reads them.

/// Each `.cl` file of this folder, as bytes.
public enum FaceRecognitionCL {
    public static let chiSquareCounts = PackageResources.ChiSquareCounts_cl
    public static let chiSquareNearest = PackageResources.ChiSquareNearest_cl
    public static let embeddingDistance = PackageResources.EmbeddingDistance_cl
    public static let embeddingNeighbours = PackageResources.EmbeddingNeighbours_cl
}
