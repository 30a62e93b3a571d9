// The OpenCL C sources of FaceDetection, embedded in the binary at build time: only FaceDetection reads them.

/// Each `.cl` file of this folder, as bytes.
public enum FaceDetectionCL {
    public static let cascadeEvaluation = PackageResources.CascadeEvaluation_cl
}
