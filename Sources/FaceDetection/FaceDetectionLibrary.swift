import ImageKernels

/// Every kernel of FaceDetection, for checks that must cover them all (each signature against its source).
public enum FaceDetectionLibrary {
    public static let kernels: [any KernelDeclaration] = [
        CascadeEvaluation.haar, CascadeEvaluation.lbp, CascadeEvaluation.reset,
        CascadeEvaluation.haarEarly, CascadeEvaluation.lbpEarly, CascadeEvaluation.haarLate, CascadeEvaluation.lbpLate,
    ]
}
