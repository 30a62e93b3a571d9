import FaceDetection
import TestSupport
import Testing

/// Every kernel of FaceDetection agrees with its `.cl` file.
@Suite struct FaceDetectionKernelTests {
    @Test func everyKernelMatchesItsSource() throws {
        let problems = try KernelSourceChecks.problems(module: "FaceDetection", kernels: FaceDetectionLibrary.kernels)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
