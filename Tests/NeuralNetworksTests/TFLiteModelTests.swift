import Foundation
import NeuralNetworks
import Testing

/// The TFLite reader on MediaPipe's two BlazeFace models (after `bash scripts/setup.sh`), checked against
/// what a TFLite interpreter reports for them (../shared/NOTES.md), and on damaged copies.
@Suite struct TFLiteModelTests {
    static let shortRange = ModelCache.path(of: "face_detection_short_range.tflite")
    static let fullRange = ModelCache.path(of: "face_detection_full_range_sparse.tflite")

    /// The names of the operators a graph uses.
    static func operatorNames(_ graph: TFLiteModel.Subgraph) -> Set<String> { Set(graph.operators.map(\.kind.name)) }

    @Test func theShortRangeModelReads() throws {
        let model = try TFLiteModel(contentsOf: Self.shortRange)
        #expect(model.version == 3 && model.subgraphs.count == 1)
        let graph = try #require(model.subgraphs.first)
        #expect(graph.inputs.map { graph.tensors[$0].shape } == [[1, 128, 128, 3]])
        #expect(graph.inputs.allSatisfy { graph.tensors[$0].type == .float32 })
        #expect(Set(graph.outputs.map { graph.tensors[$0].elementCount }) == [896 * 16, 896])
        #expect(Self.operatorNames(graph) == ["CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "PAD", "MAX_POOL_2D", "RELU", "RESHAPE",
                                              "CONCATENATION", "DEQUANTIZE"])
        Self.expectConstantsFit(model)
        for op in graph.operators {
            if case .convolution(_, let stride, _, _) = op.kind { #expect([1, 2].contains(stride.x) && stride.x == stride.y) }
            if case .maxPool(_, let stride, let filter, _) = op.kind { #expect(stride.x == 2 && filter.width == 2) }
        }
    }

    @Test func theFullRangeModelReads() throws {
        let model = try TFLiteModel(contentsOf: Self.fullRange)
        let graph = try #require(model.subgraphs.first)
        #expect(graph.inputs.map { graph.tensors[$0].shape } == [[1, 192, 192, 3]])
        #expect(Set(graph.outputs.map { graph.tensors[$0].elementCount }) == [2304 * 16, 2304])
        #expect(Self.operatorNames(graph).isSuperset(of: ["DENSIFY", "RESIZE_BILINEAR", "DEPTH_TO_SPACE", "CONV_2D", "DEQUANTIZE"]))
        #expect(graph.tensors.filter(\.isSparse).count == 46)
        Self.expectConstantsFit(model)
    }

    /// Every dense constant's buffer holds exactly its elements (float16 weights: 2 bytes each).
    static func expectConstantsFit(_ model: TFLiteModel) {
        for graph in model.subgraphs {
            for tensor in graph.tensors where !model.buffers[tensor.buffer].isEmpty && !tensor.isSparse {
                let size = [TFLiteModel.ElementType.float16: 2, .float32: 4, .int32: 4, .int64: 8][tensor.type] ?? 1
                #expect(model.buffers[tensor.buffer].count == tensor.elementCount * size, "\(tensor.name) \(tensor.shape)")
            }
        }
    }

    @Test func damagedFilesGiveTypedErrors() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.shortRange)))
        #expect(throws: ModelError.missing(path: "/nonexistent/model.tflite", setup: "bash scripts/setup.sh")) {
            try TFLiteModel(contentsOf: "/nonexistent/model.tflite")
        }
        #expect(throws: ModelError.truncated(path: "empty", offset: 0, needed: 8)) { try TFLiteModel(bytes: [], path: "empty") }
        #expect(throws: ModelError.malformed(path: "dlib", offset: 4, reason: "no TFLite identifier (\"TFL3\")")) {
            try TFLiteModel(bytes: Array(repeating: 7, count: 64), path: "dlib")
        }
        // Cut anywhere: a typed error, never a crash or a model.
        for cut in [12, 100, bytes.count / 3, bytes.count / 2, bytes.count - 1000] {
            #expect(throws: ModelError.self, "cut at \(cut)") { try TFLiteModel(bytes: Array(bytes.prefix(cut)), path: "cut") }
        }
        // Every 4-byte word of the first 4 KB overwritten with a huge offset in turn: an error or a model, never a crash.
        for word in stride(from: 8, to: 4096, by: 4) {
            var damaged = bytes
            damaged.replaceSubrange(word..<word + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
            _ = try? TFLiteModel(bytes: damaged, path: "damaged")
        }
    }
}
