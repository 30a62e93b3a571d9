import ArgumentParser
import Foundation
import ImageCodecs
import ImageKernels

@main
struct CBIR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cbir",
        abstract: "Face search on an OpenCL/CPU image-kernel framework.",
        version: "0.1.0",
        subcommands: [
            Devices.self, FilterCommand.self, DetectCommand.self, IndexCommand.self, QueryCommand.self,
            LabelCommand.self, LabelsCommand.self, IdentifyCommand.self, StatsCommand.self, CheckCommand.self,
            RemoveCommand.self, PeopleCommand.self, PhotosCommand.self, SimilarCommand.self, SearchCommand.self,
            DuplicatesCommand.self, ServeCommand.self, CopyCommand.self,
        ])

    /// Parses the arguments as bytes, so that a file name that is not UTF-8 reaches the file it names
    /// (Swift's own `CommandLine.arguments` replaces such bytes); errors name such files with `\xNN`.
    static func main() async {
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            FileSystemPath.string(
                CommandLine.unsafeArgv[index].map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
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
            // What was asked for (help, the version, a completion script) goes to stdout as it is. Errors go to
            // stderr, file names' odd bytes escaped: the tool's own are one line, the parser's usage several.
            let message = fullMessage(for: error), code = exitCode(for: error)
            if code == .success {
                FileHandle.standardOutput.write(Data((message + "\n").utf8))
            } else {
                let lines = code == .failure ? [message] : message.components(separatedBy: "\n")
                FileHandle.standardError.write(
                    Data((lines.map(FileSystemPath.displayed).joined(separator: "\n") + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }
}

/// Prints a line of the tool's output, paths' bytes that are not UTF-8 and control characters shown as `\xNN`.
func print(_ line: String) {
    Swift.print(FileSystemPath.displayed(line))
}

extension DeviceChoice: ExpressibleByArgument {}

/// The `--device` and `--verbose` options shared by commands that render.
struct DeviceOptions: ParsableArguments {
    @Option(
        help: """
            Device to render on: \(DeviceChoice.allCases.map(\.rawValue).joined(separator: ", ")). Default: auto \
            (each kind of work on the device it runs fastest on: cbir devices), or $\(Device.environmentVariable).
            """
    )
    var device: DeviceChoice?

    @OptionGroup var verbosity: Verbosity

    /// A context on the device asked for (`--device`, else `IMAGEKERNELS_DEVICE` when it names one), or nil
    /// with `auto`: then each kind of work renders on the device that runs it fastest here. With
    /// `--verbose`, the devices report what they otherwise keep quiet from here on.
    func context() throws -> RenderContext? {
        verbosity.apply()
        let choice = try device ?? DeviceChoice.fromEnvironment
        return choice == .auto ? nil : RenderContext(device: try Device.select(choice))
    }
}

/// The `--verbose` option: the OpenCL compiler's build logs and each device calibration on stderr.
struct Verbosity: ParsableArguments {
    @Flag(
        help:
            "Report the OpenCL compiler's build logs and each device calibration (or set \(Device.verboseVariable)=1).")
    var verbose = false

    /// Makes the devices verbose for the rest of the process, when asked.
    func apply() {
        if verbose { setenv(Device.verboseVariable, "1", 1) }
    }
}
