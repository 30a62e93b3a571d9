import FaceDetection
import ImageKernels
import TestSupport
import Testing

/// Detection on an OpenCL device whose cascade program does not build: the context moves to the CPU
/// device, with the cascade model that was resident on OpenCL, and finds what the CPU device finds.
@Suite struct DetectionFallbackTests {
    @Test(.needs(.wildPhotos), .enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func detectionFallsBackToTheCPUTwin() throws {
        let failing = try TestDevices.openCL.get().withFailingBuilds(of: ["CascadeEvaluation"])
        let context = RenderContext(device: failing)
        let finder = try CascadeFaceFinder(context: context)  // cascades resident on OpenCL
        let reference = try CascadeFaceFinder(context: RenderContext(device: .cpu))
        let photo = try DetectionTests.gray("test/obama_and_biden.jpg", longSide: 640)
        let (faces, said) = try StandardError.withCapture { try finder.faces(in: photo) }
        #expect(said.contains("falling back to the CPU device") && said.contains("CascadeEvaluation"), "\(said)")
        #expect(context.device.kind == .cpu && context.statistics.fallbacks == 1)
        #expect(
            context.fallbackReason?.contains("CascadeEvaluation") == true, "\(context.fallbackReason ?? "no reason")")
        let expected = try reference.faces(in: photo)
        #expect(faces.count >= 2 && faces == expected)
    }
}
