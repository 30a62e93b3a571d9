import Foundation
import PackagePlugin

/// Embeds every `.cl` file of a kernels target's folder (`Kernels/<Module>/`) in that target, as a public
/// enum named after the target with one byte array per file: adding a kernel file is all it takes.
@main
struct EmbedKernels: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let sources = target.sourceFiles.map(\.url).filter { $0.pathExtension == "cl" }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedKernels.swift")
        return [
            .buildCommand(
                displayName: "Embedding the kernels of \(target.name)",
                executable: try context.tool(named: "embed-kernels").url,
                arguments: [target.name, output.path] + sources.map(\.path), inputFiles: sources, outputFiles: [output])
        ]
    }
}
