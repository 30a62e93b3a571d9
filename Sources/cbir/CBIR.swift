import ArgumentParser
import ImageKernels

@main
struct CBIR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cbir",
        abstract: "Face search on an OpenCL/CPU image-kernel framework.",
        subcommands: [Devices.self, FilterCommand.self, DetectCommand.self, IndexCommand.self, QueryCommand.self,
                      LabelCommand.self, IdentifyCommand.self, StatsCommand.self, RemoveCommand.self])
}

extension DeviceChoice: ExpressibleByArgument {}

/// The `--device` option shared by commands that render.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Device to render on: \(DeviceChoice.allCases.map(\.rawValue).joined(separator: ", ")). Default: auto, or $\(Device.environmentVariable).")
    var device: DeviceChoice?

    func selected() throws -> Device {
        guard let device else { return try Device.best }
        return try Device.select(device)
    }
}
