extension TFLiteModel {
    /// How a sparse constant tensor's stored values map to its dense elements: TFLite's
    /// `SparsityParameters`. The dense tensor, optionally cut into blocks, is walked level by level in
    /// `traversalOrder`; each level is dense (every index) or compressed (CSR: the indices present, in
    /// segments by the previous level's position). Stored values follow that walk.
    public struct Sparsity: Sendable {
        /// One level of the walk.
        public enum Dimension: Sendable, Equatable {
            case dense(size: Int)
            /// Segment `p` (between `segments[p]` and `segments[p + 1]`) lists the indices present below
            /// position `p` of the previous levels.
            case compressed(segments: [Int], indices: [Int])
        }

        /// The order the levels walk the dimensions: the tensor's `rank` dimensions, then (when blocked)
        /// the block dimensions `rank, rank + 1, …`.
        public let traversalOrder: [Int]
        /// For each block dimension, the tensor dimension it cuts.
        public let blockMap: [Int]
        /// The levels, in traversal order.
        public let dimensions: [Dimension]

        public init(traversalOrder: [Int], blockMap: [Int] = [], dimensions: [Dimension]) {
            (self.traversalOrder, self.blockMap, self.dimensions) = (traversalOrder, blockMap, dimensions)
        }

        init(_ table: FlatBuffer.Table, path: String) throws(ModelError) {
            traversalOrder = try table.integers(0, as: Int32.self).map(Int.init)
            blockMap = try table.integers(1, as: Int32.self).map(Int.init)
            dimensions = try table.tables(2).map { level throws(ModelError) in
                switch try level.scalar(0, default: Int8(0)) {
                case 0: return .dense(size: Int(try level.scalar(1, default: Int32(0))))
                case 1:
                    return .compressed(
                        segments: try Self.indexVector(level, 2, path: path),
                        indices: try Self.indexVector(level, 4, path: path))
                case let format: throw .unsupported(path: path, what: "sparse dimension format \(format)")
                }
            }
        }

        /// A `SparseIndexVector` union (type at field `id`, value at `id + 1`): int32, uint16 or uint8 values.
        private static func indexVector(_ table: FlatBuffer.Table, _ id: Int, path: String) throws(ModelError) -> [Int]
        {
            let values = try table.table(id + 1)
            switch try table.scalar(id, default: UInt8(0)) {
            case 1: return try values?.integers(0, as: Int32.self).map(Int.init) ?? []
            case 2: return try values?.integers(0, as: UInt16.self).map(Int.init) ?? []
            case 3: return try values?.integers(0, as: UInt8.self).map(Int.init) ?? []
            case let type: throw .unsupported(path: path, what: "sparse index vector type \(type)")
            }
        }

        /// For each of the `count` stored values in order, its element's index in the dense row-major
        /// tensor of `shape`; a description that does not fit the shape or the count is `.malformed`,
        /// naming `tensor`.
        public func denseIndices(shape: [Int], count: Int, tensor: String, path: String) throws(ModelError) -> [Int] {
            func malformed(_ reason: String) -> ModelError {
                .malformed(path: path, offset: 0, reason: "sparse tensor \"\(tensor)\": \(reason)")
            }
            let rank = shape.count, levels = traversalOrder.count
            guard levels == rank + blockMap.count, dimensions.count == levels,
                traversalOrder.sorted() == Array(0..<levels),
                blockMap.allSatisfy({ (0..<rank).contains($0) })
            else {
                throw malformed(
                    """
                    traversal order \(traversalOrder), block map \(blockMap) and \(dimensions.count) levels do not \
                    fit shape \(shape)
                    """
                )
            }
            // Block sizes come from the block dimensions' dense levels; the blocked dimensions shrink by them.
            var blockSizes = [Int](repeating: 1, count: blockMap.count), blocked = shape,
                scale = [Int](repeating: 1, count: rank)
            for (level, dimension) in traversalOrder.enumerated() where dimension >= rank {
                guard case .dense(let size) = dimensions[level], size > 0, shape[blockMap[dimension - rank]] % size == 0
                else {
                    throw malformed("block dimension \(dimension) is not dense or does not divide its dimension")
                }
                blockSizes[dimension - rank] = size
                blocked[blockMap[dimension - rank]] /= size
                scale[blockMap[dimension - rank]] = size
            }
            let levelSizes = traversalOrder.map { $0 < rank ? blocked[$0] : blockSizes[$0 - rank] }
            var result: [Int] = [], position = [Int](repeating: 0, count: levels)
            func walk(_ level: Int, _ previous: Int) throws(ModelError) {
                guard level < levels else {
                    guard result.count < count else { throw malformed("more elements than the \(count) stored values") }
                    var index = [Int](repeating: 0, count: rank)
                    for (level, dimension) in traversalOrder.enumerated() {
                        if dimension < rank {
                            index[dimension] += position[level] * scale[dimension]
                        } else {
                            index[blockMap[dimension - rank]] += position[level]
                        }
                    }
                    result.append(zip(index, shape).reduce(0) { $0 * $1.1 + $1.0 })
                    return
                }
                switch dimensions[level] {
                case .dense(let size):
                    guard size == levelSizes[level] else {
                        throw malformed("level \(level) is \(size) wide, its dimension \(levelSizes[level])")
                    }
                    for i in 0..<size {
                        position[level] = i
                        try walk(level + 1, previous * size + i)
                    }
                case .compressed(let segments, let indices):
                    guard previous + 1 < segments.count, segments[previous] <= segments[previous + 1],
                        segments[previous + 1] <= indices.count
                    else {
                        throw malformed("level \(level) has no segment \(previous) among \(segments.count - 1)")
                    }
                    for i in segments[previous]..<segments[previous + 1] {
                        guard (0..<levelSizes[level]).contains(indices[i]) else {
                            throw malformed("index \(indices[i]) outside level \(level)'s \(levelSizes[level])")
                        }
                        position[level] = indices[i]
                        try walk(level + 1, i)
                    }
                }
            }
            try walk(0, 0)
            guard result.count == count else { throw malformed("\(count) stored values for \(result.count) elements") }
            return result
        }
    }
}
