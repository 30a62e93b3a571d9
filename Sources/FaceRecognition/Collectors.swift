/// A face's distance to the probe.
public struct FaceMatch: Sendable, Equatable, CustomStringConvertible {
    public let face: FaceID
    public let image: ImageID
    public let distance: Float

    public init(face: FaceID, image: ImageID, distance: Float) {
        self.face = face
        self.image = image
        self.distance = distance
    }

    public var description: String { "\(face) in \(image): \(distance)" }
}

/// An image's distance to the probe, with its face nearest the probe.
public struct ImageMatch: Sendable, Equatable, CustomStringConvertible {
    public let image: ImageID
    public let distance: Float
    public let bestFace: FaceID

    public init(image: ImageID, distance: Float, bestFace: FaceID) {
        self.image = image
        self.distance = distance
        self.bestFace = bestFace
    }

    public var description: String { "\(image) (\(bestFace)): \(distance)" }
}

/// Receives what a search finds; keeps what it wants. Searches report every face and every image once.
public protocol MatchCollector {
    mutating func collect(_ match: FaceMatch)
    mutating func collect(_ match: ImageMatch)
}

extension MatchCollector {
    public mutating func collect(_ match: FaceMatch) {}
    public mutating func collect(_ match: ImageMatch) {}
}

/// Keeps the k nearest of a stream, nearest first; ties go to the smaller identifier.
struct NearestList<Element> {
    let k: Int
    let key: (Element) -> (Float, Int64)
    private(set) var elements: [Element] = []

    mutating func insert(_ element: Element) {
        guard k > 0 else { return }
        let elementKey = key(element)
        if elements.count == k, let last = elements.last, !(elementKey < key(last)) { return }
        // After every element whose key is not larger, found by halving: k may be thousands.
        var (low, high) = (0, elements.count)
        while low < high {
            let middle = (low + high) / 2
            if elementKey < key(elements[middle]) { high = middle } else { low = middle + 1 }
        }
        elements.insert(element, at: low)
        if elements.count > k { elements.removeLast() }
    }
}

/// The k nearest faces.
public struct TopFaces: MatchCollector {
    private var list: NearestList<FaceMatch>
    /// Nearest first.
    public var matches: [FaceMatch] { list.elements }

    public init(_ k: Int) {
        list = NearestList(k: k) { ($0.distance, $0.face.rawValue) }
    }

    public mutating func collect(_ match: FaceMatch) { list.insert(match) }
}

/// The k nearest images.
public struct TopImages: MatchCollector {
    private var list: NearestList<ImageMatch>
    /// Nearest first.
    public var matches: [ImageMatch] { list.elements }

    public init(_ k: Int) {
        list = NearestList(k: k) { ($0.distance, $0.image.rawValue) }
    }

    public mutating func collect(_ match: ImageMatch) { list.insert(match) }
}

/// Every face and image within a distance, nearest first.
public struct WithinDistance: MatchCollector {
    public let maximum: Float
    public private(set) var faces: [FaceMatch] = []
    public private(set) var images: [ImageMatch] = []

    public init(_ maximum: Float) {
        self.maximum = maximum
    }

    public mutating func collect(_ match: FaceMatch) {
        if match.distance <= maximum { faces.append(match) }
    }

    public mutating func collect(_ match: ImageMatch) {
        if match.distance <= maximum { images.append(match) }
    }

    /// The kept faces and images, nearest first.
    public var sorted: (faces: [FaceMatch], images: [ImageMatch]) {
        (
            faces.sorted { ($0.distance, $0.face.rawValue) < ($1.distance, $1.face.rawValue) },
            images.sorted { ($0.distance, $0.image.rawValue) < ($1.distance, $1.image.rawValue) }
        )
    }
}

/// Two collectors fed the same stream, so one search can fill both.
public struct BothCollectors<A: MatchCollector, B: MatchCollector>: MatchCollector {
    public var first: A
    public var second: B

    public init(_ first: A, _ second: B) {
        self.first = first
        self.second = second
    }

    public mutating func collect(_ match: FaceMatch) {
        first.collect(match)
        second.collect(match)
    }

    public mutating func collect(_ match: ImageMatch) {
        first.collect(match)
        second.collect(match)
    }
}
