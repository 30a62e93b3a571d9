import ImageKernels

/// A photo to search for faces, as ``FaceFinder/faces(in:)`` takes several: the `uint8` photo, its gray plane
/// where the caller has it, and the narrowest face sought, in the photo's pixels.
public struct FaceSearchRequest: Sendable {
    public let photo: PixelBuffer
    public let gray: PixelBuffer?
    public let minimumFaceSize: Int

    public init(photo: PixelBuffer, gray: PixelBuffer? = nil, minimumFaceSize: Int) {
        (self.photo, self.gray, self.minimumFaceSize) = (photo, gray, minimumFaceSize)
    }
}
