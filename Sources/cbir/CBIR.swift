import ArgumentParser
import Foundation
import ImageCodecs
import ImageKernels

@main
struct CBIR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cbir",
        abstract: "Face search on an OpenCL/CPU image-kernel framework.",
        subcommands: [Devices.self, FilterCommand.self, DetectCommand.self, IndexCommand.self, QueryCommand.self,
                      LabelCommand.self, LabelsCommand.self, IdentifyCommand.self, StatsCommand.self, CheckCommand.self,
                      RemoveCommand.self, PeopleCommand.self, PhotosCommand.self])

    /// Parses the arguments as bytes, so that a file name that is not UTF-8 reaches the file it names
    /// (Swift's own `CommandLine.arguments` replaces such bytes); errors name such files with `\xNN`.
    static func main() async {
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            FileSystemPath.string(CommandLine.unsafeArgv[index].map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
                                  ?? UnsafeRawBufferPointer(start: nil, count: 0))
        }
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            // The tool's own errors are one line; the parser's usage and help are several.
            let message = fullMessage(for: error)
            let lines = exitCode(for: error) == .failure ? [message] : message.components(separatedBy: "\n")
            let shown = lines.map(FileSystemPath.displayed).joined(separator: "\n")
            if !shown.isEmpty { FileHandle.standardError.write(Data((shown + "\n").utf8)) }
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }
}

/// Prints a line of the tool's output, paths' bytes that are not UTF-8 and control characters shown as `\xNN`.
func print(_ line: String) {
    Swift.print(FileSystemPath.displayed(line))
}

extension DeviceChoice: ExpressibleByArgument {}

/// The `--device` option shared by commands that render.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Device to render on: \(DeviceChoice.allCases.map(\.rawValue).joined(separator: ", ")). Default: auto (each kind of work on the device it runs fastest on: cbir devices), or $\(Device.environmentVariable).")
    var device: DeviceChoice?

    /// A context on the device asked for (`--device`, else `IMAGEKERNELS_DEVICE` when it names one), or nil
    /// with `auto`: then each kind of work renders on the device that runs it fastest here.
    func context() throws -> RenderContext? {
        let choice = try device ?? DeviceChoice.fromEnvironment
        return choice == .auto ? nil : RenderContext(device: try Device.select(choice))
    }
}
