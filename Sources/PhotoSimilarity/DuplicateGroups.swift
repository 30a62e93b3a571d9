import ImageKernels

/// Groups of copies: the connected photos of a set of pairs found close (union-find, so the groups do not
/// depend on the order photos come in, unlike a pass that compares each photo with the one before), and in
/// each group the copy to keep.
public enum DuplicateGroups {
    /// The cosine distance of prints within which two photos are copies (resized, re-encoded, cropped by a
    /// tenth, brightened, slightly rotated): the highest recall at precision ≥ 0.99 on photo-bench's
    /// transformed copies of the UKBench dev photos, with the hash below.
    public static let printThreshold: Float = 0.125
    /// The Hamming distance of perceptual hashes within which two photos are copies too: strong JPEG
    /// compression moves a print more than it moves the hash.
    public static let hashDistance = 8
    /// The looser cosine distance of other shots of the same object or scene.
    public static let similarThreshold: Float = 0.35

    /// What a copy is judged by when choosing the one to keep.
    public struct Copy: Sendable {
        public let pixels: Int
        /// The variance of the grey plane's Laplacian (``LaplacianMoments/sharpness(ofGray:context:)``).
        public let sharpness: Double
        /// The file's size.
        public let bytes: Int

        public init(pixels: Int, sharpness: Double, bytes: Int) {
            self.pixels = pixels
            self.sharpness = sharpness
            self.bytes = bytes
        }

        /// Whether this copy is the better one to keep: more pixels; at equal size, clearly less compressed
        /// (half as many bytes again a pixel: a re-encoded copy's blocks can look sharp to the Laplacian);
        /// then sharper (the steadiest shot of a burst); then more bytes.
        public func isBetter(than other: Copy) -> Bool {
            if pixels != other.pixels { return pixels > other.pixels }
            let (mine, theirs) = (Double(bytes), Double(other.bytes))
            if mine > 1.5 * theirs || theirs > 1.5 * mine { return mine > theirs }
            if sharpness != other.sharpness { return sharpness > other.sharpness }
            return bytes > other.bytes
        }
    }

    /// The groups of at least two among `count` items that `pairs` (of item indices) connect, each in
    /// ascending order, groups by their first item.
    public static func groups(count: Int, pairs: some Sequence<(Int, Int)>) -> [[Int]] {
        var components = ConnectedComponents(count: count)
        for (a, b) in pairs where a != b && (0..<count).contains(a) && (0..<count).contains(b) {
            components.link(a, b)
        }
        var members: [Int: [Int]] = [:]
        for item in 0..<count { members[components.label(of: item), default: []].append(item) }
        return members.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
    }

    /// The member of `group` to keep: the best copy (``Copy/isBetter(than:)``), the first on a tie.
    public static func best(of group: [Int], copies: [Copy]) -> Int {
        group.dropFirst().reduce(group[0]) { best, item in copies[item].isBetter(than: copies[best]) ? item : best }
    }
}
