import Foundation

/// One parameter of a kernel: its name and what it takes.
public struct KernelParameter: Hashable, Sendable, CustomStringConvertible {
    /// What a parameter takes, in OpenCL C terms.
    public enum Form: Hashable, Sendable {
        /// `__global T*` (writable) or `__global const T*` (read only).
        case buffer(element: String, writable: Bool)
        /// A read-only array: `__constant T*` (or `__global const T*`, which takes the same argument).
        case constant(element: String)
        /// `__local T*`.
        case local(element: String)
        /// `int`, `uint` or `float`.
        case scalar(String)
    }

    public let name: String
    public let form: Form

    public var description: String {
        switch form {
        case .buffer(let element, let writable): "__global \(writable ? "" : "const ")\(element)* \(name)"
        case .constant(let element): "__constant \(element)* \(name)"
        case .local(let element): "__local \(element)* \(name)"
        case .scalar(let type): "\(type) \(name)"
        }
    }

    /// Whether an argument declared as `self` in Swift can be passed to `parameter` of the source.
    func accepts(_ parameter: KernelParameter) -> Bool {
        guard name == parameter.name else { return false }
        switch (form, parameter.form) {
        case (.constant(let element), .buffer(let other, writable: false)):
            return element == other  // a copied array serves a __global const pointer too
        case (.buffer(let element, writable: false), .constant(let other)):
            return element == other  // and a buffer a __constant one
        default:
            return form == parameter.form
        }
    }
}

/// The parameter lists of kernels: as a Swift ``KernelArguments`` struct declares them, and as an OpenCL C
/// source does. A kernel runs only when the two agree in names, order and types; a test checks every kernel
/// of the package against its `.cl` file.
public enum KernelSignature {
    /// The parameters an arguments struct declares, in order.
    public static func parameters<Arguments: KernelArguments>(of type: Arguments.Type) throws(RenderError)
        -> [KernelParameter]
    {
        let reader = ParameterReader()
        do {
            _ = try Arguments(from: reader)
        } catch {
            throw .kernelSignature(kernel: "\(Arguments.self)", reason: "cannot read its parameters: \(error)")
        }
        return reader.parameters.parameters
    }

    /// Every kernel function of an OpenCL C source with its parameters, after substituting the `-D`
    /// definitions of `options` into type names (so `PIXEL` reads as the element type it is built with).
    /// A function defined twice (in `#if` branches) must have one parameter list.
    public static func functions(in source: String, options: String = "") throws(RenderError) -> [String:
        [KernelParameter]]
    {
        let definitions = Self.definitions(in: options)
        let text = stripComments(source)
        var functions: [String: [KernelParameter]] = [:]
        let whole = NSRange(text.startIndex..., in: text)
        let pattern: NSRegularExpression
        do { pattern = try NSRegularExpression(pattern: kernelPattern) } catch {
            throw .kernelSignature(kernel: "?", reason: "the kernel pattern does not compile: \(error)")
        }
        for match in pattern.matches(in: text, range: whole) {
            guard let nameRange = Range(match.range(at: 1), in: text),
                let listRange = Range(match.range(at: 2), in: text)
            else {
                continue
            }
            let name = String(text[nameRange])
            var parameters: [KernelParameter] = []
            for declaration in text[listRange].split(separator: ",") {
                parameters.append(try parameter(String(declaration), of: name, definitions: definitions))
            }
            if let earlier = functions[name], earlier != parameters {
                throw .kernelSignature(kernel: name, reason: "defined twice with different parameters")
            }
            functions[name] = parameters
        }
        return functions
    }

    /// `__kernel void name(parameters)` (or `kernel`, with optional attributes).
    private static let kernelPattern =
        #"(?<!\w)(?:__)?kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+)\s*\(([^)]*)\)"#

    /// Throws unless `declared` (Swift) matches `parameters` (the source) one to one.
    static func check(_ declared: [KernelParameter], against parameters: [KernelParameter], kernel: String)
        throws(RenderError)
    {
        for (index, pair) in zip(declared, parameters).enumerated() where !pair.0.accepts(pair.1) {
            throw .kernelSignature(
                kernel: kernel, reason: "parameter \(index + 1) is `\(pair.1)` in OpenCL C but `\(pair.0)` in Swift")
        }
        guard declared.count == parameters.count else {
            throw .kernelSignature(
                kernel: kernel, reason: "\(parameters.count) parameters in OpenCL C, \(declared.count) in Swift")
        }
    }

    private static func parameter(
        _ declaration: String, of kernel: String,
        definitions: [String: String]
    ) throws(RenderError) -> KernelParameter {
        let spaced = declaration.replacingOccurrences(of: "*", with: " * ")
        var words = spaced.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let name = words.popLast(), !words.isEmpty else {
            throw .kernelSignature(kernel: kernel, reason: "cannot read parameter `\(declaration)`")
        }
        let pointer = words.contains("*")
        var space = "", isConst = false, type = ""
        for word in words where word != "*" {
            switch word {
            case "__global", "global", "__constant", "constant", "__local", "local":
                space = word.hasPrefix("__") ? String(word.dropFirst(2)) : word
            case "const": isConst = true
            case "restrict", "__restrict", "volatile", "__private", "private": break
            default: type = definitions[word] ?? word
            }
        }
        let form: KernelParameter.Form
        switch (pointer, space) {
        case (false, ""): form = .scalar(type)
        case (true, "global"): form = .buffer(element: type, writable: !isConst)
        case (true, "constant"): form = .constant(element: type)
        case (true, "local"): form = .local(element: type)
        default:
            throw .kernelSignature(
                kernel: kernel, reason: "parameter `\(declaration)` has an address space the framework does not pass")
        }
        return KernelParameter(name: name, form: form)
    }

    /// `-DNAME=VALUE` definitions of build options.
    private static func definitions(in options: String) -> [String: String] {
        var definitions: [String: String] = [:]
        for word in options.split(whereSeparator: \.isWhitespace) where word.hasPrefix("-D") {
            let parts = word.dropFirst(2).split(separator: "=", maxSplits: 1)
            if parts.count == 2 { definitions[String(parts[0])] = String(parts[1]) }
        }
        return definitions
    }

    private static func stripComments(_ source: String) -> String {
        var result = "", text = Substring(source)
        while let start = text.firstIndex(of: "/") {
            let next = text.index(after: start)
            guard next < text.endIndex, text[next] == "/" || text[next] == "*" else {
                result += text[...start]
                text = text[next...]
                continue
            }
            result += text[..<start]
            let terminator = text[next] == "/" ? "\n" : "*/"
            guard let end = text[next...].range(of: terminator) else { return result }
            result += " "
            text = text[end.upperBound...]
        }
        return result + text
    }
}

/// A `Decoder` that builds an arguments struct from placeholders, noting each property's name and type
/// in the order the synthesised initialiser asks for them: the declaration order.
private final class ParameterReader: Decoder {
    final class Parameters {
        var parameters: [KernelParameter] = []
    }

    let parameters = Parameters()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container<Key>(parameters: parameters))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.unsupported("a keyed struct") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.unsupported("a keyed struct") }

    static func unsupported(_ what: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: [], debugDescription: "kernel arguments must be \(what)"))
    }

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let parameters: Parameters
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let argument = T.self as? any KernelArgumentValue.Type, let placeholder = argument.placeholder as? T
            else {
                throw unsupported("\(key.stringValue) has type \(T.self), which no OpenCL parameter takes")
            }
            parameters.parameters.append(KernelParameter(name: key.stringValue, form: argument.parameter))
            return placeholder
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw unsupported("flat")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw unsupported("flat")
        }
        func superDecoder() throws -> any Decoder { throw unsupported("flat") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported("flat") }

        private func unsupported(_ what: String) -> DecodingError {
            ParameterReader.unsupported("of OpenCL parameter types: \(what)")
        }
    }
}
