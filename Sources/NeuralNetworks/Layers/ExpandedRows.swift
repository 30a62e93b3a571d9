/// The rows of a 1 × 1 expansion that ``SeparableConvolution``'s CPU twin reads band by band, each formed once
/// a worker straight into a window of bordered rows that the bands read as they read a copy
/// (``ZeroBorderedPlanes``): the expanded tensor, the largest an inverted-residual block makes, is never
/// written whole, nor copied. A band's rows that the next band reads again are kept; the rows after them are
/// formed after them while the window has room, and otherwise the rows still read are moved to its start first.
struct ExpandedRows {
    /// Rows the window holds, and values a bordered row.
    let capacity: Int, rowLength: Int
    private let allocation: UnsafeMutablePointer<Float>
    /// The window's first row of channel 0; channel c's rows start c · capacity · rowLength values on.
    private let base: UnsafeMutablePointer<Float>
    private let panels: ConvolutionProduct.Panels
    private let source: UnsafePointer<Float>
    private let inChannels: Int, channels: Int, height: Int, width: Int, top: Int, left: Int
    private let weights: UnsafePointer<Float>, biases: UnsafePointer<Float>, ceiling: Float?
    /// The image and its padded rows held now (image row y is padded row y + top), the first at the window's
    /// start.
    private var image = -1, held = 0..<0

    /// A window of `capacity` rows of `rowLength` values for the expansion of `source` (images of
    /// `inChannels` planes of `height` × `width`) by `weights` (a row of `inChannels` values for each of
    /// `channels` outputs) and `biases`, clamped to `0...ceiling` where there is one; each row `left` columns
    /// in from zeros, and `top` rows of zeros above the first.
    init(
        capacity: Int, rowLength: Int, top: Int, left: Int, source: UnsafePointer<Float>, inChannels: Int,
        height: Int, width: Int, channels: Int, weights: UnsafePointer<Float>, biases: UnsafePointer<Float>,
        ceiling: Float?
    ) {
        (self.capacity, self.rowLength, self.top, self.left) = (capacity, rowLength, top, left)
        (self.source, self.inChannels, self.channels, self.height, self.width) = (
            source, inChannels, channels, height, width
        )
        (self.weights, self.biases, self.ceiling) = (weights, biases, ceiling)
        let count = channels * capacity * rowLength + 2 * ZeroBorderedPlanes.slack
        allocation = .allocate(capacity: count)
        allocation.initialize(repeating: 0, count: count)
        base = allocation + ZeroBorderedPlanes.slack
        panels = ConvolutionProduct.Panels(depth: inChannels)
    }

    /// Padded rows `rows` of image `image`'s expansion (at most half the ``capacity``) as bordered planes whose
    /// first row is the first of `rows`.
    mutating func rows(_ rows: Range<Int>, of image: Int) -> ZeroBorderedPlanes {
        let planeSize = capacity * rowLength
        if image != self.image || !held.contains(rows.lowerBound) {
            (self.image, held) = (image, rows.lowerBound..<rows.lowerBound)
        }
        if held.lowerBound + capacity < rows.upperBound {
            let kept = held.upperBound - rows.lowerBound, shift = (rows.lowerBound - held.lowerBound) * rowLength
            for c in 0..<channels {
                let plane = base + c * planeSize
                plane.update(from: plane + shift, count: kept * rowLength)
            }
            held = rows.lowerBound..<held.upperBound
        }
        for row in held.upperBound..<max(held.upperBound, rows.upperBound) {
            form(row, at: base + (row - held.lowerBound) * rowLength)
        }
        held = held.lowerBound..<max(held.upperBound, rows.upperBound)
        return ZeroBorderedPlanes(
            base: UnsafePointer(base + (rows.lowerBound - held.lowerBound) * rowLength), width: rowLength,
            height: capacity)
    }

    /// Forms padded row `row` of the image held into each channel's row from `at`: zeros where it is padding,
    /// else the row's expansion `left` columns in, in tiles of sixteen columns as ``ConvolutionProduct`` forms
    /// them, the same sums in the same order.
    private func form(_ row: Int, at target: UnsafeMutablePointer<Float>) {
        let planeSize = capacity * rowLength, y = row - top
        guard y >= 0, y < height else {
            for c in 0..<channels { (target + c * planeSize).update(repeating: 0, count: rowLength) }
            return
        }
        let product = ConvolutionProduct.Product(
            groupOut: channels, depth: inChannels, spatial: planeSize, outChannels: channels, ceiling: ceiling,
            weights: weights, bias: biases, residual: nil, dst: target + left)
        let pixels = source + (image * inChannels * height + y) * width, sourcePlane = height * width
        let inChannels = inChannels
        for n in stride(from: 0, to: width, by: 16) {
            product.multiply(
                from: n, to: width, group: 0, panels: panels,
                pack: { panel, _, n, lanes in
                    let at = pixels + n
                    if lanes == 8 {
                        for c in 0..<inChannels {
                            panel[c] = UnsafeRawPointer(at + c * sourcePlane).loadUnaligned(as: SIMD8<Float>.self)
                        }
                        return
                    }
                    for c in 0..<inChannels {
                        for i in 0..<8 { panel[c][i] = at[c * sourcePlane + min(i, lanes - 1)] }
                    }
                }, packSixteen: nil)
        }
    }

    func deallocate() {
        allocation.deallocate()
        panels.deallocate()
    }
}
