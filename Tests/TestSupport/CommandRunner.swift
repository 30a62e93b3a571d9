import Foundation

/// Runs a product of this package (built beside the test bundle) and captures what it prints.
public struct CommandRunner {
    public struct Output {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    public let executable: URL
    /// Arguments that come before every run's own (a wrapper's: `hosts.sh exec HOST program`).
    public let leadingArguments: [String]

    /// Any program, given `leadingArguments` before every run's own.
    public init(executable: URL, leadingArguments: [String] = []) {
        self.executable = executable
        self.leadingArguments = leadingArguments
    }

    /// The product `name`, looked up beside the running test binary.
    public init(product name: String) throws {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                executable = candidate
                leadingArguments = []
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
        process.arguments = leadingArguments + arguments
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

extension CommandRunner {
    /// Runs the repository's script `scripts/name` with bash, on `host` where one is given: what it printed, or
    /// an error saying what it said where it failed.
    public static func script(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], on host: TestHost? = nil
    ) throws -> String {
        let bash = CommandRunner(executable: URL(fileURLWithPath: "/bin/bash"))
        let output = try (host?.running(bash) ?? bash).run(
            [Repository.root + "/scripts/" + name] + arguments, environment: environment)
        guard output.status == 0 else { throw ScriptFailure(description: "\(name): \(output.standardError)") }
        return output.standardOutput
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        let description: String
    }
}

/// A program running in the background, what it prints going to a log file (a pipe nobody reads would fill
/// and stop it).
public final class BackgroundCommand {
    public let process = Process()
    public let log: String

    /// Starts `runner`'s program with `arguments`, logging to `log`.
    public init(_ runner: CommandRunner, _ arguments: [String], environment: [String: String] = [:], log: String)
        throws
    {
        self.log = log
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.executableURL = runner.executable
        process.arguments = runner.leadingArguments + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    /// Kills it if it still runs when the test is done with it.
    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// What it printed so far.
    public var output: String {
        (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }

    /// Waits for it to end, up to `seconds`; its exit status, or nil (it is then killed) where it ran on.
    public func finish(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// Asks it to stop (SIGTERM) and waits until it has.
    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Kills it with SIGKILL, as a power cut would stop it.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
