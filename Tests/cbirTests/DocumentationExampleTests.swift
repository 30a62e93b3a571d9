import Foundation
import TestSupport
import Testing

/// Every shell example of the README and the user guide, run as written on the sample photos `scripts/setup.sh`
/// fetches, so that the documentation stays true on a clone with nothing beside it. A document's `sh` blocks run
/// in order in one scratch folder (its `./cbir.sqlite` is theirs), with the built `cbir` first on `PATH`; a
/// command followed by `# → text` must succeed and print that text. Blocks marked `sh postgres` run against a
/// fresh database of the test server, `FACESEARCH_DB` set, where it runs. Other blocks (`text`) are synopses.
@Suite struct DocumentationExampleTests {
    static let documents = ["README.md", "docs/guide.md"]

    @Test(arguments: documents) func examplesRunAsWritten(document: String) throws {
        let blocks = try Self.blocks(of: document, marked: "sh")
        #expect(!blocks.isEmpty, "\(document) has no sh examples")
        try Self.run(blocks, of: document, environment: [:])
    }

    @Test(.enabled(if: TestPostgres.isRunning, "\(TestPostgres.absence)"), arguments: documents)
    func postgresExamplesRunAsWritten(document: String) throws {
        let blocks = try Self.blocks(of: document, marked: "sh postgres")
        guard !blocks.isEmpty else { return }
        let database = try TestPostgres.database("cbir_test_docs_" + document.filter(\.isLetter).lowercased())
        try Self.run(
            blocks, of: document, environment: TestPostgres.environment.merging(["FACESEARCH_DB": database]) { $1 })
    }

    /// The fenced blocks of `document` whose info string is `marked`, as shell scripts, each with its first line's
    /// number in the document.
    static func blocks(of document: String, marked: String) throws -> [(line: Int, script: String)] {
        let text = try String(contentsOfFile: Repository.root + "/" + document, encoding: .utf8)
        var blocks: [(line: Int, script: String)] = []
        var current: (line: Int, lines: [String])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let block = current {
                if line.hasPrefix("```") {
                    blocks.append((block.line, block.lines.map(checked).joined(separator: "\n")))
                    current = nil
                } else {
                    current?.lines.append(String(line))
                }
            } else if line == "```" + marked {
                current = (number + 2, [])
            }
        }
        return blocks
    }

    /// A line `command  # → text` as a script that fails unless the command succeeds and prints `text`.
    static func checked(_ line: String) -> String {
        guard let arrow = line.range(of: "# → ") else { return line }
        let command = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        let expected = String(line[arrow.upperBound...]).replacingOccurrences(of: "'", with: "'\\''")
        return """
            out=$( \(command) 2>&1 ) || { echo "failed: \(command.replacingOccurrences(of: "\"", with: "\\\""))"; \
            echo "$out"; exit 1; }
            grep -qF -- '\(expected)' <<<"$out" || { echo 'expected "\(expected)" from: \
            \(command.replacingOccurrences(of: "'", with: "'\\''"))'; echo "$out"; exit 1; }
            """
    }

    /// Runs the blocks in order in one scratch folder, `cbir` on `PATH`, and expects each to succeed.
    static func run(_ blocks: [(line: Int, script: String)], of document: String, environment: [String: String])
        throws
    {
        let folder = NSTemporaryDirectory() + "cbir-docs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tools = try CommandRunner(product: "cbir").executable.deletingLastPathComponent().path
        let bash = CommandRunner(executable: URL(fileURLWithPath: "/bin/bash"))
        var path = environment
        path["PATH"] = tools + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for block in blocks {
            let script = block.script.replacingOccurrences(
                of: "~/.cache/facesearch/samples", with: SamplePhotos.root)
            let output = try bash.run(["-euo", "pipefail", "-c", script], environment: path, in: folder)
            #expect(
                output.status == 0,
                "\(document), the example at line \(block.line):\n\(output.standardOutput)\(output.standardError)")
        }
    }
}
