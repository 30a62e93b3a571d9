import ImageKernels

/// Everything that shapes a face descriptor. It travels with every descriptor: comparing descriptors
/// made with different parameters is an error, not a silent wrong answer.
public struct DescriptorParameters: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Which local binary pattern.
    public enum Pattern: Hashable, Sendable, Codable {
        /// 3×3, 8 neighbours.
        case basic
        /// P neighbours on a circle of radius R, bilinearly sampled (P ≤ 8).
        case circular(neighbours: Int, radius: Int)
    }

    /// Faces are resized to this square size first.
    public var faceSize: Int
    /// Gamma exponent, or nil to skip.
    public var gamma: Float?
    /// Difference-of-Gaussians σ1 (narrow) and σ2 (wide), or nil to skip.
    public var sigmas: [Float]?
    /// Tan–Triggs contrast equalisation.
    public var equalizes: Bool
    public var pattern: Pattern
    /// Map codes to uniform-pattern labels (59 for 8 neighbours).
    public var uniform: Bool
    public var gridColumns: Int
    public var gridRows: Int

    public init(
        faceSize: Int = 128, gamma: Float? = nil, sigmas: [Float]? = nil, equalizes: Bool = false,
        pattern: Pattern = .circular(neighbours: 8, radius: 2), uniform: Bool = false,
        gridColumns: Int = 8, gridRows: Int = 8
    ) {
        self.faceSize = faceSize
        self.gamma = gamma
        self.sigmas = sigmas
        self.equalizes = equalizes
        self.pattern = pattern
        self.uniform = uniform
        self.gridColumns = gridColumns
        self.gridRows = gridRows
    }

    /// The default, the best measured on ORL (`nbnn-bench`): circular LBP(8, 2), 256 bins, 8×8 grid on
    /// 128×128 faces, no preprocessing.
    public static let standard = DescriptorParameters()

    /// Tan and Triggs' chain for hard lighting: gamma 0.2, DoG σ 1–2, contrast equalisation, basic LBP.
    /// (Gamma and equalisation are monotonic per face, so without the DoG they would not change LBP codes.)
    public static let tanTriggs = DescriptorParameters(gamma: 0.2, sigmas: [1, 2], equalizes: true, pattern: .basic)

    var lbp: LocalBinaryPattern {
        switch pattern {
        case .basic: LocalBinaryPattern(.basic, uniform: uniform)
        case .circular(let p, let r): LocalBinaryPattern(.circular(neighbours: p, radius: r), uniform: uniform)
        }
    }

    /// Histogram bins per block: 2^P, or the uniform label count.
    public var bins: Int { lbp.labelCount }
    /// Blocks per face.
    public var blockCount: Int { gridColumns * gridRows }
    /// Floats per descriptor.
    public var length: Int { blockCount * bins }

    /// Side of the square of LBP codes the grid is laid on: the face less the pattern's border.
    var codedSize: Int { faceSize - 2 * lbp.radius }

    /// Pixels per block, blocks in row-major order: a block's histogram is its code counts divided by this.
    public var blockPixelCounts: [Int] {
        BlockHistogram(gridColumns: gridColumns, gridRows: gridRows, bins: bins).pixelCounts(
            width: codedSize, height: codedSize)
    }

    public var description: String {
        var parts = ["\(faceSize)px"]
        if let gamma { parts.append("γ\(gamma)") }
        if let sigmas { parts.append("DoG\(sigmas.map { "\($0)" }.joined(separator: ","))") }
        if equalizes { parts.append("TT") }
        switch pattern {
        case .basic: parts.append("LBP")
        case .circular(let p, let r): parts.append("LBP(\(p),\(r))")
        }
        parts.append("\(bins)bins")
        parts.append("\(gridColumns)×\(gridRows)")
        return parts.joined(separator: " ")
    }

    func validate() throws(RecognitionError) {
        guard (16...1024).contains(faceSize) else {
            throw .invalidParameters("face size \(faceSize) is outside 16...1024")
        }
        if let sigmas, sigmas.count != 2 { throw .invalidParameters("DoG needs two σ, got \(sigmas.count)") }
        guard gridColumns > 0, gridRows > 0, gridColumns <= codedSize, gridRows <= codedSize else {
            throw .invalidParameters("a \(gridColumns)×\(gridRows) grid does not fit \(codedSize)×\(codedSize) codes")
        }
    }
}

extension LocalBinaryPattern {
    var radius: Int {
        if case .circular(_, let radius) = pattern { return radius }
        return 1
    }
}
