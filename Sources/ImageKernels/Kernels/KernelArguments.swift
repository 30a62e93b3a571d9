/// The arguments of one kernel as a struct whose stored properties are the OpenCL function's
/// parameters, in order and by name: buffers (``KernelBuffer``, ``KernelMutableBuffer``), small
/// read-only arrays (`[Float]`, `[Int32]`, `[UInt8]`, … for `__constant` parameters), work-group scratch
/// (``KernelLocal``) and scalars (`Int32` for `int`, `UInt32` for `uint`, `Float` for `float`).
///
/// The OpenCL launch passes the properties in declaration order; the CPU twin receives the struct
/// itself. Conformance is all there is to write: the framework reads the parameter list from the
/// struct's synthesised `Decodable` conformance (as swift-argument-parser reads its options) and checks
/// it against the `.cl` source before a kernel first runs (see ``KernelSignature``); a launch reads the
/// values through the synthesised `Encodable` conformance (far cheaper than reflection).
///
/// ```swift
/// struct InvertArguments: KernelArguments {
///     var src: KernelBuffer<Float>          // __global const float* src
///     var dst: KernelMutableBuffer<Float>   // __global float* dst
///     var count: Int32                      // int count
/// }
/// ```
public protocol KernelArguments: Codable, Sendable {}

/// A scalar type kernels read and write: the element of buffers and arrays.
public protocol KernelElement: Sendable, Codable {
    /// Its OpenCL C name (`float`, `uchar`, `int`, `uint`).
    static var openCLName: String { get }
}

extension Float: KernelElement { public static var openCLName: String { "float" } }
extension UInt8: KernelElement { public static var openCLName: String { "uchar" } }
extension Int32: KernelElement { public static var openCLName: String { "int" } }
extension UInt32: KernelElement { public static var openCLName: String { "uint" } }

/// A device buffer a kernel reads (`__global const T*` or `__constant T*`).
public struct KernelBuffer<Element: KernelElement>: Sendable, Codable {
    let buffer: any DeviceBuffer

    /// The buffer of a device image.
    public init(_ image: DeviceImage) {
        buffer = image.buffer
    }

    /// The elements, for the CPU twin (which runs only with buffers of the CPU device).
    public var elements: UnsafePointer<Element> {
        UnsafePointer(hostPointer(of: buffer, as: Element.self))
    }

    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "kernel buffers are not decoded"))
    }

    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, .init(codingPath: encoder.codingPath, debugDescription: "kernel buffers are not encoded"))
    }
}

/// A device buffer a kernel writes (`__global T*`).
public struct KernelMutableBuffer<Element: KernelElement>: Sendable, Codable {
    let buffer: any DeviceBuffer

    /// The buffer of a device image.
    public init(_ image: DeviceImage) {
        buffer = image.buffer
    }

    /// The elements, for the CPU twin (which runs only with buffers of the CPU device).
    public var elements: UnsafeMutablePointer<Element> {
        hostPointer(of: buffer, as: Element.self)
    }

    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "kernel buffers are not decoded"))
    }

    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, .init(codingPath: encoder.codingPath, debugDescription: "kernel buffers are not encoded"))
    }
}

/// Work-group scratch memory (`__local T*`) of `count` elements; the CPU twin has no use for it.
public struct KernelLocal<Element: KernelElement>: Sendable, Codable {
    public let count: Int

    public init(count: Int) {
        self.count = count
    }
}

/// A CPU buffer's memory. Twins run only after the CPU backend has checked that every buffer is its own,
/// so anything else here is a bug in the framework, not bad input.
private func hostPointer<Element>(of buffer: any DeviceBuffer, as type: Element.Type) -> UnsafeMutablePointer<Element> {
    guard let cpu = buffer as? CPUBuffer else {
        preconditionFailure("a CPU twin read a buffer that is not the CPU device's")
    }
    return cpu.pointer.assumingMemoryBound(to: Element.self)
}

// MARK: Binding arguments to a launch

/// One argument as a backend passes it.
enum KernelBinding {
    case buffer(any DeviceBuffer)
    case int32(Int32)
    case uint32(UInt32)
    case float32(Float)
    /// A small read-only array, copied at launch.
    case constant(any KernelConstantArray)
    /// Scratch memory of this many bytes per work-group.
    case local(byteCount: Int)
}

/// The types a property of a ``KernelArguments`` struct may have, with what each binds to.
protocol KernelArgumentValue {
    /// The parameter the type stands for in OpenCL C.
    static var parameter: KernelParameter.Form { get }
    /// A value for reading the parameter list without a launch.
    static var placeholder: Self { get }
    var binding: KernelBinding { get }
}

/// The buffer of placeholder arguments, which are read for their parameter list and never launched.
private final class PlaceholderBuffer: DeviceBuffer {
    var byteCount: Int { 0 }
}

extension KernelBuffer: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .buffer(element: Element.openCLName, writable: false) }
    static var placeholder: Self { Self(buffer: PlaceholderBuffer()) }
    var binding: KernelBinding { .buffer(buffer) }
    private init(buffer: any DeviceBuffer) { self.buffer = buffer }
}

extension KernelMutableBuffer: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .buffer(element: Element.openCLName, writable: true) }
    static var placeholder: Self { Self(buffer: PlaceholderBuffer()) }
    var binding: KernelBinding { .buffer(buffer) }
    private init(buffer: any DeviceBuffer) { self.buffer = buffer }
}

extension KernelLocal: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .local(element: Element.openCLName) }
    static var placeholder: Self { Self(count: 0) }
    var binding: KernelBinding { .local(byteCount: count * MemoryLayout<Element>.stride) }
}

extension Array: KernelArgumentValue where Element: KernelElement {
    static var parameter: KernelParameter.Form { .constant(element: Element.openCLName) }
    static var placeholder: Self { [] }
    var binding: KernelBinding { .constant(self) }
}

/// An array a backend copies to the device at launch: its bytes, read in place.
protocol KernelConstantArray {
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: KernelConstantArray where Element: KernelElement {}

extension Int32: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .scalar("int") }
    static var placeholder: Self { 0 }
    var binding: KernelBinding { .int32(self) }
}

extension UInt32: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .scalar("uint") }
    static var placeholder: Self { 0 }
    var binding: KernelBinding { .uint32(self) }
}

extension Float: KernelArgumentValue {
    static var parameter: KernelParameter.Form { .scalar("float") }
    static var placeholder: Self { 0 }
    var binding: KernelBinding { .float32(self) }
}

extension KernelArguments {
    /// The properties' bindings in declaration order, the order of the OpenCL parameters.
    func bindings(for kernel: String) throws(RenderError) -> [KernelBinding] {
        let encoder = BindingEncoder()
        do { try encode(to: encoder) } catch { throw .kernelSignature(kernel: kernel, reason: "\(error)") }
        return encoder.bindings
    }
}

/// An `Encoder` that turns an arguments struct into bindings, property by property in the order the
/// synthesised `encode(to:)` visits them: the declaration order.
private final class BindingEncoder: Encoder {
    var bindings: [KernelBinding] = []
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init() {
        bindings.reserveCapacity(16)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing<AnyKey>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { Refusing<AnyKey>() }

    static func unsupported(_ value: Any, _ what: String) -> EncodingError {
        .invalidValue(value, .init(codingPath: [], debugDescription: "kernel arguments must be \(what)"))
    }

    struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: BindingEncoder
        var codingPath: [any CodingKey] { [] }

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            guard let argument = value as? any KernelArgumentValue else {
                throw BindingEncoder.unsupported(
                    value, "of OpenCL parameter types: \(key.stringValue) has type \(T.self)")
            }
            encoder.bindings.append(argument.binding)
        }

        func encode(_ value: Int32, forKey key: Key) throws { encoder.bindings.append(.int32(value)) }
        func encode(_ value: UInt32, forKey key: Key) throws { encoder.bindings.append(.uint32(value)) }
        func encode(_ value: Float, forKey key: Key) throws { encoder.bindings.append(.float32(value)) }
        func encodeNil(forKey key: Key) throws {
            throw BindingEncoder.unsupported(Optional<Int>.none as Any, "present")
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Refusing<NestedKey>())
        }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Refusing<AnyKey>() }
        func superEncoder() -> any Encoder { encoder }
        func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    /// What any shape other than a flat struct gets: a container whose every write fails.
    struct Refusing<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer,
        SingleValueEncodingContainer
    {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        func encodeNil() throws { throw BindingEncoder.unsupported(0, "a flat struct") }
        func encodeNil(forKey key: Key) throws { throw BindingEncoder.unsupported(0, "a flat struct") }
        func encode<T: Encodable>(_ value: T) throws { throw BindingEncoder.unsupported(value, "a flat struct") }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            throw BindingEncoder.unsupported(value, "a flat struct")
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Refusing<NestedKey>())
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Refusing<NestedKey>())
        }
        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
        func superEncoder() -> any Encoder { BindingEncoder() }
        func superEncoder(forKey key: Key) -> any Encoder { BindingEncoder() }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
