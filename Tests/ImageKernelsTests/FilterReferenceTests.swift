import BenchmarkSupport
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// Every built-in filter on each device against the plain-Swift reference, on random batches of odd
/// sizes with a fresh seed per run.
@Suite struct FilterReferenceTests {
    @Test(arguments: FilterCase.all)
    func cpuDeviceMatchesReference(_ filter: FilterCase) throws {
        try check(filter, on: .cpu)
    }

    @Test(
        .enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"), arguments: FilterCase.all)
    func openCLDeviceMatchesReference(_ filter: FilterCase) throws {
        try check(filter, on: try TestDevices.openCL.get())
    }

    /// The schedules (and kernel shapes) written for GPUs, run on the OpenCL device at hand.
    @Test(
        .enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"), arguments: FilterCase.all)
    func openCLDeviceOnGPUSchedulesMatchesReference(_ filter: FilterCase) throws {
        try check(filter, on: try TestDevices.openCL.get(), schedules: .openCL(.gpu))
    }

    private func check(_ filter: FilterCase, on device: Device, schedules: DeviceKind? = nil) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: device, fallsBack: false)
        context.useSchedules(of: schedules)
        let input = filter.input(&generator)
        let rendered = try context.render(filter.recipe(Image(input)))
        let expected = filter.reference(input)
        let problem = TestImages.difference(rendered, expected, tolerance: filter.tolerance)
        #expect(
            problem == nil,
            "\(filter) on \(device), input \(input.descriptor), seed \(generator.seed): \(problem ?? "")")
    }
}
