/// Face sizes that detection, indexing and the benchmarks agree on.
public enum FaceSize {
    /// The smallest face worth searching a photo for, in its pixels: `minimum`, or an eighth of the photo's
    /// shorter side (`shortSide`) where that is less. A small photo, such as a crop or a scan, is mostly
    /// face, and one turned away or far off in it is smaller than a minimum made for whole photos.
    public static func smallest(minimum: Int, shortSide: Double) -> Double {
        min(Double(minimum), shortSide / 8)
    }
}
