import ImageKernels

/// Bilinear resampling (half-pixel centres) as a network operation: ImageKernels' ``Resize``.
extension Resize: NetworkOperation {}

extension NetworkOperation where Self == Resize {
    /// Every plane resampled bilinearly (half-pixel centres) to `width` × `height`.
    public static func resize(width: Int, height: Int) -> Self { Resize(width: width, height: height) }
}
