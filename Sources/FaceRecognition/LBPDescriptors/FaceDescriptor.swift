/// The spatial LBP histograms of one face: `blockCount` blocks of `bins` values, each block summing
/// to 1, blocks in row-major grid order.
public struct FaceDescriptor: Sendable, Equatable {
    public let parameters: DescriptorParameters
    public let histograms: [Float]

    /// A descriptor from its values; fails when their count does not fit the parameters.
    public init(parameters: DescriptorParameters, histograms: [Float]) throws(RecognitionError) {
        guard histograms.count == parameters.length else {
            throw .invalidParameters("\(histograms.count) values for \(parameters.length) (\(parameters))")
        }
        self.parameters = parameters
        self.histograms = histograms
    }

    /// The histogram of block `index`.
    public func block(_ index: Int) -> ArraySlice<Float> {
        histograms[index * parameters.bins..<(index + 1) * parameters.bins]
    }

    /// Throws unless `other` was made with the same parameters.
    public func checkComparable(with other: DescriptorParameters) throws(RecognitionError) {
        guard parameters == other else { throw .parametersMismatch(expected: other, actual: parameters) }
    }
}
