import Foundation

/// The command line of a benchmark that reads its own arguments (top-level code, no `ParsableCommand`),
/// checked against its usage line: `[--name VALUE]` takes a value, `[--name]` is a flag. `-h` or `--help`
/// prints the usage and exits; an option the usage does not name, or one missing its value, prints it and
/// exits with 2, so that a mistyped option never starts a long run with the defaults.
public struct UsageOptions {
    private let values: [String: String]
    private let flags: Set<String>

    public init(usage: String, arguments: [String] = CommandLine.arguments) {
        let declared = usage.matches(of: /\[(--[a-z-]+)( [^\]]+)?\]/).map { (String($0.1), $0.2 != nil) }
        let takesValue = Dictionary(declared, uniquingKeysWith: { first, _ in first })
        func leave(_ message: String?) -> Never {
            let text = Data(((message.map { $0 + "\n" } ?? "") + "Usage: " + usage + "\n").utf8)
            (message == nil ? FileHandle.standardOutput : FileHandle.standardError).write(text)
            exit(message == nil ? 0 : 2)
        }
        var values: [String: String] = [:], flags = Set<String>(), rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if ["-h", "--help"].contains(argument) { leave(nil) }
            guard let hasValue = takesValue[argument] else { leave("unknown option \(argument)") }
            if hasValue {
                guard let value = rest.popFirst() else { leave("\(argument) needs a value") }
                values[argument] = value
            } else {
                flags.insert(argument)
            }
        }
        self.values = values
        self.flags = flags
    }

    /// The value given for `name`, nil when it was not given.
    public func value(_ name: String) -> String? { values[name] }

    /// Whether the flag `name` was given.
    public func contains(_ name: String) -> Bool { flags.contains(name) }
}
