import Foundation

/// Prints a benchmark's report as JSON in the form other tools read: indented, keys in snake case
/// (`pairwiseF1` as `pairwise_f1`) and sorted.
public func printJSONReport(_ report: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
}
