import FaceRecognition
import TestSupport
import Testing

/// Every kernel of FaceRecognition agrees with its `.cl` file.
@Suite struct FaceRecognitionKernelTests {
    @Test func everyKernelMatchesItsSource() throws {
        let problems = try KernelSourceChecks.problems(
            module: "FaceRecognition", kernels: FaceRecognitionLibrary.kernels)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
