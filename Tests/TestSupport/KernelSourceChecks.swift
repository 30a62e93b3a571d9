import Foundation
import ImageKernels

/// Checks a module's kernel declarations against its `.cl` files in `Kernels/<Module>/`.
public enum KernelSourceChecks {
    /// The repository's `Kernels/<module>` folder.
    public static func folder(of module: String) -> String { Repository.root + "/Kernels/" + module }

    /// What is wrong, if anything: every kernel function of every `.cl` file of the module's folder must be
    /// declared in Swift, every declaration must read one of those files as it is, and its arguments must
    /// match the function's parameters in names, order and types.
    public static func problems(module: String, kernels: [any KernelDeclaration]) throws -> [String] {
        let folder = folder(of: module)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".cl") }.sorted()
        var problems: [String] = [], functions: [String: String] = [:], texts: [String: String] = [:]
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            texts[String(file.dropLast(3))] = text
            for name in try KernelSignature.functions(in: text).keys { functions[name] = file }
        }
        if files.isEmpty { problems.append("\(folder) has no .cl files") }
        for kernel in kernels {
            if texts[kernel.source.name] != kernel.source.text {
                problems.append(
                    """
                    \(kernel.entryPoint): its source \(kernel.source.name) is not \
                    \(module)/\(kernel.source.name).cl as it is
                    """
                )
            }
            do { try kernel.checkSignature() } catch { problems.append("\(error)") }
        }
        let declared = Set(kernels.map(\.entryPoint))
        for (name, file) in functions where !declared.contains(name) {
            problems.append("\(file): kernel \(name) has no Swift declaration")
        }
        return problems
    }
}
