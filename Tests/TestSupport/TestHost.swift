import Foundation

/// A host of a test's own on this one machine: a network namespace of `scripts/hosts.sh`, with an address on a
/// private network that only the other such hosts reach. Talk to one from another, never from the test's own
/// namespace: a packet sent there from it would take the machine's default route, out to its real network.
public struct TestHost: Sendable {
    public let name: String
    /// Its address on the private network.
    public let address: String

    /// Why the hosts cannot be made here (they need root), or nil where they can.
    public static let unavailable: String? =
        getuid() == 0 ? nil : "the test hosts are network namespaces, which only root can make (scripts/hosts.sh)"

    /// Makes the hosts anew: primary, replica, worker1, worker2, server and client, by name.
    public static func up() throws -> [String: TestHost] {
        _ = try script(["up"])
        var hosts: [String: TestHost] = [:]
        for name in ["primary", "replica", "worker1", "worker2", "server", "client"] {
            let address = try script(["address", name]).trimmingCharacters(in: .whitespacesAndNewlines)
            hosts[name] = TestHost(name: name, address: address)
        }
        return hosts
    }

    /// Removes the hosts (what still runs on one keeps its namespace until it ends).
    public static func down() {
        _ = try? script(["down"])
    }

    /// `runner`'s program, run on this host: its process is the program's own, so a signal to it reaches the
    /// program.
    public func running(_ runner: CommandRunner) -> CommandRunner {
        CommandRunner(
            executable: URL(fileURLWithPath: "/bin/bash"),
            leadingArguments: [Repository.root + "/scripts/hosts.sh", "exec", name, runner.executable.path]
                + runner.leadingArguments)
    }

    private static func script(_ arguments: [String]) throws -> String {
        try CommandRunner.script("hosts.sh", arguments)
    }
}
