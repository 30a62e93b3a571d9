import Foundation
import ImageKernels
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
        #expect(
            Self.operatorNames(graph) == [
                "CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "PAD", "MAX_POOL_2D", "RELU", "RESHAPE",
                "CONCATENATION", "DEQUANTIZE",
            ])
        Self.expectConstantsFit(model)
        for op in graph.operators {
            if case .convolution(_, let stride, _, _) = op.kind {
                #expect([1, 2].contains(stride.x) && stride.x == stride.y)
            }
            if case .maxPool(_, let stride, let filter, _) = op.kind { #expect(stride.x == 2 && filter.width == 2) }
        }
    }

    @Test func theFullRangeModelReads() throws {
        let model = try TFLiteModel(contentsOf: Self.fullRange)
        let graph = try #require(model.subgraphs.first)
        #expect(graph.inputs.map { graph.tensors[$0].shape } == [[1, 192, 192, 3]])
        #expect(Set(graph.outputs.map { graph.tensors[$0].elementCount }) == [2304 * 16, 2304])
        #expect(
            Self.operatorNames(graph).isSuperset(of: [
                "DENSIFY", "RESIZE_BILINEAR", "DEPTH_TO_SPACE", "CONV_2D", "DEQUANTIZE",
            ]))
        #expect(graph.tensors.filter(\.isSparse).count == 46)
        Self.expectConstantsFit(model)
    }

    /// Every dense constant's buffer holds exactly its elements (float16 weights: 2 bytes each).
    static func expectConstantsFit(_ model: TFLiteModel) {
        for graph in model.subgraphs {
            for tensor in graph.tensors where !model.buffers[tensor.buffer].isEmpty && !tensor.isSparse {
                let size = [TFLiteModel.ElementType.float16: 2, .float32: 4, .int32: 4, .int64: 8][tensor.type] ?? 1
                #expect(
                    model.buffers[tensor.buffer].count == tensor.elementCount * size, "\(tensor.name) \(tensor.shape)")
            }
        }
    }

    /// TFLite's sparse formats on small tensors whose dense elements are known.
    @Test func sparseTensorsDensify() throws {
        typealias Sparsity = TFLiteModel.Sparsity
        // A 3 × 4 matrix in CSR: row 0 holds columns 1 and 3, row 1 nothing, row 2 column 0.
        let csr = Sparsity(
            traversalOrder: [0, 1],
            dimensions: [.dense(size: 3), .compressed(segments: [0, 2, 2, 3], indices: [1, 3, 0])])
        #expect(try csr.denseIndices(shape: [3, 4], count: 3, tensor: "t", path: "p") == [1, 3, 8])
        // Column-major traversal of the same positions.
        let columns = Sparsity(
            traversalOrder: [1, 0],
            dimensions: [.dense(size: 4), .compressed(segments: [0, 1, 2, 2, 3], indices: [2, 0, 0])])
        #expect(try columns.denseIndices(shape: [3, 4], count: 3, tensor: "t", path: "p") == [8, 1, 3])
        // A 4 × 4 matrix of 2 × 2 blocks: blocks (0, 1) and (1, 0) present, each stored whole, row-major.
        let blocks = Sparsity(
            traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
            dimensions: [
                .dense(size: 2), .compressed(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 2), .dense(size: 2),
            ])
        #expect(
            try blocks.denseIndices(shape: [4, 4], count: 8, tensor: "t", path: "p") == [2, 3, 6, 7, 8, 9, 12, 13])
        // Descriptions that do not fit: typed errors naming the tensor.
        #expect(
            throws: ModelError.malformed(
                path: "p", offset: 0, reason: "sparse tensor \"t\": index 4 outside level 1's 4")
        ) {
            try Sparsity(
                traversalOrder: [0, 1], dimensions: [.dense(size: 1), .compressed(segments: [0, 1], indices: [4])]
            )
            .denseIndices(shape: [1, 4], count: 1, tensor: "t", path: "p")
        }
        #expect(
            throws: ModelError.malformed(
                path: "p", offset: 0, reason: "sparse tensor \"t\": 4 stored values for 3 elements")
        ) {
            try csr.denseIndices(shape: [3, 4], count: 4, tensor: "t", path: "p")
        }
        #expect(throws: ModelError.self) { try csr.denseIndices(shape: [3, 5, 1], count: 3, tensor: "t", path: "p") }
        #expect(throws: ModelError.self) { try csr.denseIndices(shape: [3, 4], count: 2, tensor: "t", path: "p") }
    }

    /// Both models become networks whose outputs have the interpreter's shapes (rows of 16 and of 1).
    @Test func bothModelsBecomeNetworks() throws {
        for (path, size, anchors) in [(Self.shortRange, 128, 896), (Self.fullRange, 192, 2304)] {
            let graph = try TFLiteNetwork(contentsOf: path)
            #expect(graph.inputWidth == size && graph.inputHeight == size && graph.inputChannels == 3)
            let context = RenderContext(device: .cpu)
            let input = Image(
                try PixelBuffer(
                    width: size, height: size, channels: 3, values: [Float](repeating: 0, count: 3 * size * size)))
            let outputs = try context.render(try graph.network.loaded(on: context).outputs(for: input))
            #expect(
                outputs.map { [$0.descriptor.width, $0.descriptor.height] }.sorted { $0[0] > $1[0] } == [
                    [16, anchors], [1, anchors],
                ])
        }
    }

    @Test func damagedFilesGiveTypedErrors() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.shortRange)))
        #expect(throws: ModelError.missing(path: "/nonexistent/model.tflite", setup: "bash scripts/setup.sh")) {
            try TFLiteModel(contentsOf: "/nonexistent/model.tflite")
        }
        #expect(throws: ModelError.truncated(path: "empty", offset: 0, needed: 8)) {
            try TFLiteModel(bytes: [], path: "empty")
        }
        #expect(throws: ModelError.malformed(path: "dlib", offset: 4, reason: "no TFLite identifier (\"TFL3\")")) {
            try TFLiteModel(bytes: Array(repeating: 7, count: 64), path: "dlib")
        }
        // Cut anywhere: a typed error, never a crash or a model.
        for cut in [12, 100, bytes.count / 3, bytes.count / 2, bytes.count - 1000] {
            #expect(throws: ModelError.self, "cut at \(cut)") {
                try TFLiteModel(bytes: Array(bytes.prefix(cut)), path: "cut")
            }
        }
        // Every 4-byte word of the first 4 KB overwritten with a huge offset in turn: an error or a model, never a
        // crash, and never called truncated (the file is whole; nothing in it says how long it should be).
        for word in stride(from: 8, to: 4096, by: 4) {
            var damaged = bytes
            damaged.replaceSubrange(word..<word + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
            do { _ = try TFLiteModel(bytes: damaged, path: "damaged") } catch {
                if case .truncated = error { Issue.record("word \(word): \(error)") }
            }
        }
    }
}
