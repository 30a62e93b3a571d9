import Foundation

/// A TensorFlow Lite model file (`.tflite`, the FlatBuffers schema `tensorflow/lite/schema/schema.fbs`):
/// its subgraphs of tensors and operators, and the buffers holding constant tensors' bytes. It reads
/// the operators MediaPipe's BlazeFace face detectors use; any other operator, an unknown tensor type or a
/// damaged file is a ``ModelError`` naming the file and what it found.
public struct TFLiteModel: Sendable {
    public let path: String
    /// The schema version the file was written with (3 for current files).
    public let version: UInt32
    public let description: String
    public let subgraphs: [Subgraph]
    /// Constant data by buffer index (buffer 0 is the empty sentinel; tensors computed at run time point at
    /// empty buffers).
    public let buffers: [ArraySlice<UInt8>]

    /// One graph: its tensors, which of them are its inputs and outputs, and its operators in run order.
    public struct Subgraph: Sendable {
        public let name: String
        public let tensors: [Tensor]
        public let inputs: [Int]
        public let outputs: [Int]
        public let operators: [Operator]
    }

    /// A tensor: its shape (NHWC for images), element type and the buffer of its constant data.
    public struct Tensor: Sendable {
        public let name: String
        public let shape: [Int]
        public let type: ElementType
        public let buffer: Int
        /// How its constant data is stored when it is sparse (densified by a DENSIFY operator).
        public let sparsity: Sparsity?

        /// Whether its constant data is stored in TFLite's sparse format.
        public var isSparse: Bool { sparsity != nil }

        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// Tensor element types: TFLite's `TensorType` values.
    public enum ElementType: UInt8, Sendable {
        case float32 = 0
        case float16 = 1
        case int32 = 2
        case uint8 = 3
        case int64 = 4
        case int8 = 9
    }

    /// An operator: what it computes, its input and output tensors (−1: an optional input left out).
    public struct Operator: Sendable {
        public let kind: Kind
        public let inputs: [Int]
        public let outputs: [Int]
    }

    /// The activation an operator applies to its result (TFLite's fused activation functions).
    public enum Activation: Int8, Sendable {
        case none = 0
        case relu = 1
        case reluMinus1To1 = 2
        case relu6 = 3
        case tanh = 4
    }

    /// How convolutions and pools pad: TFLite's `SAME` (output size ⌈input ÷ stride⌉) or `VALID`.
    public enum Padding: Int8, Sendable {
        case same = 0
        case valid = 1
    }

    /// The operators read, with their options; the raw value is TFLite's `BuiltinOperator` code.
    public enum Kind: Sendable {
        case add(activation: Activation)
        case concatenation(axis: Int, activation: Activation)
        case convolution(padding: Padding, stride: (x: Int, y: Int), dilation: (x: Int, y: Int), activation: Activation)
        case depthwiseConvolution(
            padding: Padding, stride: (x: Int, y: Int), dilation: (x: Int, y: Int), depthMultiplier: Int,
            activation: Activation)
        case depthToSpace(blockSize: Int)
        case dequantize
        case densify
        case maxPool(
            padding: Padding, stride: (x: Int, y: Int), filter: (width: Int, height: Int), activation: Activation)
        case pad
        case relu
        case reshape(shape: [Int])
        case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)

        /// TFLite's name for it.
        public var name: String {
            switch self {
            case .add: "ADD"
            case .concatenation: "CONCATENATION"
            case .convolution: "CONV_2D"
            case .depthwiseConvolution: "DEPTHWISE_CONV_2D"
            case .depthToSpace: "DEPTH_TO_SPACE"
            case .dequantize: "DEQUANTIZE"
            case .densify: "DENSIFY"
            case .maxPool: "MAX_POOL_2D"
            case .pad: "PAD"
            case .relu: "RELU"
            case .reshape: "RESHAPE"
            case .resizeBilinear: "RESIZE_BILINEAR"
            }
        }
    }

    /// The model in the file at `path`.
    public init(contentsOf path: String) throws(ModelError) {
        try self.init(bytes: try ModelCache.contents(of: path), path: path)
    }

    /// The model in `bytes`, read from `path` (named in errors).
    public init(bytes: [UInt8], path: String) throws(ModelError) {
        guard bytes.count >= 8 else { throw .truncated(path: path, offset: bytes.count, needed: 8 - bytes.count) }
        guard bytes[4..<8].elementsEqual("TFL3".utf8) else {
            throw .malformed(path: path, offset: 4, reason: "no TFLite identifier (\"TFL3\")")
        }
        let file = FlatBuffer(path: path, bytes: bytes)
        let model = try file.root()
        self.path = path
        version = try model.scalar(0, default: UInt32(0))
        description = try model.string(3)
        // Operator codes: the larger of the old 8-bit field and the 32-bit one (TFLite's own rule).
        let codes = try model.tables(1).map { code throws(ModelError) in
            max(Int32(try code.scalar(0, default: Int8(0))), try code.scalar(3, default: Int32(0)))
        }
        let buffers = try model.tables(4).map { buffer throws(ModelError) in try buffer.bytes(0) }
        self.buffers = buffers
        subgraphs = try model.tables(2).map { graph throws(ModelError) in
            let tensors = try graph.tables(0).map { tensor throws(ModelError) in
                let typeCode = try tensor.scalar(1, default: UInt8(0))
                let name = try tensor.string(3)
                guard let type = ElementType(rawValue: typeCode) else {
                    throw .unsupported(path: path, what: "tensor type \(typeCode) of tensor \"\(name)\"")
                }
                return Tensor(
                    name: name, shape: try tensor.integers(0, as: Int32.self).map(Int.init), type: type,
                    buffer: Int(try tensor.scalar(2, default: UInt32(0))),
                    sparsity: try tensor.table(6).map { table throws(ModelError) in try Sparsity(table, path: path) })
            }
            let operators = try graph.tables(3).map { op throws(ModelError) in
                let index = Int(try op.scalar(0, default: UInt32(0)))
                guard index < codes.count else {
                    throw .malformed(
                        path: path, offset: op.position, reason: "operator code \(index) of \(codes.count)")
                }
                return Operator(
                    kind: try Self.kind(code: codes[index], options: try op.table(4), path: path),
                    inputs: try op.integers(1, as: Int32.self).map(Int.init),
                    outputs: try op.integers(2, as: Int32.self).map(Int.init))
            }
            let subgraph = Subgraph(
                name: try graph.string(4), tensors: tensors,
                inputs: try graph.integers(1, as: Int32.self).map(Int.init),
                outputs: try graph.integers(2, as: Int32.self).map(Int.init), operators: operators)
            try Self.check(subgraph, buffers: buffers.count, path: path)
            return subgraph
        }
    }

    /// Every tensor index an operator or the graph names, and every buffer a tensor names, exists.
    private static func check(_ graph: Subgraph, buffers: Int, path: String) throws(ModelError) {
        let indices = graph.inputs + graph.outputs + graph.operators.flatMap { $0.inputs + $0.outputs }
        if let bad = indices.first(where: { $0 < -1 || $0 >= graph.tensors.count }) {
            throw .malformed(
                path: path, offset: 0, reason: "tensor \(bad) of \(graph.tensors.count) in subgraph \"\(graph.name)\"")
        }
        if let bad = graph.tensors.first(where: { $0.buffer >= buffers || $0.shape.contains { $0 < 0 } }) {
            throw .malformed(
                path: path, offset: 0,
                reason: "tensor \"\(bad.name)\": buffer \(bad.buffer) of \(buffers), shape \(bad.shape)")
        }
    }

    /// The operator with TFLite code `code` and its options table (schema.fbs's field order).
    private static func kind(code: Int32, options: FlatBuffer.Table?, path: String) throws(ModelError) -> Kind {
        func int(_ id: Int, _ defaultValue: Int32 = 0) throws(ModelError) -> Int {
            Int(try options?.scalar(id, default: defaultValue) ?? defaultValue)
        }
        func activation(_ id: Int) throws(ModelError) -> Activation {
            let raw = try options?.scalar(id, default: Int8(0)) ?? 0
            guard let value = Activation(rawValue: raw) else {
                throw .unsupported(path: path, what: "fused activation \(raw)")
            }
            return value
        }
        func padding() throws(ModelError) -> Padding {
            let raw = try options?.scalar(0, default: Int8(0)) ?? 0
            guard let value = Padding(rawValue: raw) else { throw .unsupported(path: path, what: "padding \(raw)") }
            return value
        }
        switch code {
        case 0: return .add(activation: try activation(0))
        case 2: return .concatenation(axis: try int(0), activation: try activation(1))
        case 3:
            return .convolution(
                padding: try padding(), stride: (try int(1), try int(2)), dilation: (try int(4, 1), try int(5, 1)),
                activation: try activation(3))
        case 4:
            return .depthwiseConvolution(
                padding: try padding(), stride: (try int(1), try int(2)), dilation: (try int(5, 1), try int(6, 1)),
                depthMultiplier: try int(3), activation: try activation(4))
        case 5: return .depthToSpace(blockSize: try int(0))
        case 6: return .dequantize
        case 17:
            return .maxPool(
                padding: try padding(), stride: (try int(1), try int(2)), filter: (try int(3), try int(4)),
                activation: try activation(5))
        case 19: return .relu
        case 22: return .reshape(shape: try options?.integers(0, as: Int32.self).map(Int.init) ?? [])
        case 23:
            return .resizeBilinear(
                alignCorners: try options?.scalar(2, default: UInt8(0)) ?? 0 != 0,
                halfPixelCenters: try options?.scalar(3, default: UInt8(0)) ?? 0 != 0)
        case 34: return .pad
        case 124: return .densify
        default: throw .unsupported(path: path, what: "operator \(code) (TFLite's BuiltinOperator code)")
        }
    }
}
