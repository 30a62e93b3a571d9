import Foundation

/// Runs a product of this package (built beside the test bundle) and captures what it prints.
public struct CommandRunner {
    public struct Output {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    public let executable: URL

    /// Any program.
    public init(executable: URL) {
        self.executable = executable
    }

    /// The product `name`, looked up beside the running test binary.
    public init(product name: String) throws {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                executable = candidate
                return
            }
            folder.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// Runs the program to its end, in `directory` (by default this process's own).
    public func run(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws
        -> Output
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, standardOutput: String(decoding: stdout, as: UTF8.self),
            standardError: String(decoding: stderr, as: UTF8.self))
    }
}
