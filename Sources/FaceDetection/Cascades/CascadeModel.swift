import Foundation
import ImageKernels

/// A boosted cascade of weak classifiers in OpenCV's XML format (`opencv_storage/cascade`, stage type
/// BOOST, Haar features with tilted ones, or LBP features), held in flat arrays that both devices read.
///
/// Weak classifiers are trees: node n tests feature `nodeFeatures[n]` and goes to `nodeLeft[n]` or
/// `nodeRight[n]`; a child ≤ 0 is leaf −child of the classifier (`leaves[classifierLeafStarts[c] − child]`).
/// A Haar node goes left when the window-normalised feature value is below `nodeThresholds[n]`; an
/// LBP node goes left when bit `code` is set in its eight subset words (`nodeSubsets[8n ..< 8n + 8]`).
/// A window passes a stage when the sum of its classifiers' leaves reaches the stage threshold.
public struct CascadeModel: Sendable {
    public enum FeatureType: String, Sendable {
        case haar = "HAAR"
        case lbp = "LBP"
    }

    /// The file the model came from.
    public let path: String
    public let featureType: FeatureType
    /// The detection window the model was trained for.
    public let windowWidth: Int
    public let windowHeight: Int

    public let stageThresholds: [Float]
    /// Stage s holds classifiers `stageClassifierStarts[s] ..< stageClassifierStarts[s + 1]`.
    public let stageClassifierStarts: [Int32]
    /// Classifier c holds nodes `classifierNodeStarts[c] ..< classifierNodeStarts[c + 1]`, its root first.
    public let classifierNodeStarts: [Int32]
    public let classifierLeafStarts: [Int32]
    public let nodeFeatures: [Int32]
    public let nodeLeft: [Int32]
    public let nodeRight: [Int32]
    /// Haar: the node's threshold. (Empty for LBP.)
    public let nodeThresholds: [Float]
    /// LBP: eight 32-bit subset words per node. (Empty for Haar.)
    public let nodeSubsets: [Int32]
    public let leaves: [Float]

    /// Haar: per feature three rectangles of (x, y, width, height, weight); unused ones weigh 0.
    public let haarRects: [Float]
    /// Haar: 1 where the feature's rectangles are tilted by 45°.
    public let haarTilted: [UInt8]
    /// LBP: per feature the (x, y, width, height) of one cell of its 3×3 grid of cells.
    public let lbpRects: [Int32]

    public var stageCount: Int { stageThresholds.count }
    public var classifierCount: Int { classifierNodeStarts.count - 1 }
    public var featureCount: Int { featureType == .haar ? haarTilted.count : lbpRects.count / 4 }
    /// Whether any Haar feature is tilted (and so needs the tilted integral image).
    public var hasTiltedFeatures: Bool { haarTilted.contains(1) }

    /// Where Debian's `opencv-data` package puts OpenCV's trained models.
    public static let haarFolder = "/usr/share/opencv4/haarcascades"
    public static let lbpFolder = "/usr/share/opencv4/lbpcascades"
    /// The frontal-face Haar model (Lienhart's), the eye model, and the improved LBP frontal-face model.
    public static let frontalFaceHaarPath = haarFolder + "/haarcascade_frontalface_default.xml"
    public static let eyeHaarPath = haarFolder + "/haarcascade_eye.xml"
    public static let frontalFaceLBPPath = lbpFolder + "/lbpcascade_frontalface_improved.xml"

    /// Loads a model file.
    public init(contentsOf path: String) throws(DetectionError) {
        let bytes: [UInt8]
        do { bytes = try RegularFile.contents(of: path) } catch {
            throw .unreadableModel(path: path, reason: error.description)
        }
        try self.init(xml: bytes, path: path)
    }

    /// Parses a model from XML bytes; `path` names them in errors.
    public init(xml bytes: [UInt8], path: String) throws(DetectionError) {
        func malformed(_ reason: String) -> DetectionError { .malformedModel(path: path, reason: reason) }
        let root: XMLNode
        do { root = try XMLNode.parse(bytes) } catch { throw malformed("XML \(error.reason) at byte \(error.offset)") }
        guard let cascade = root.child("cascade") else {
            throw malformed(
                root.children.isEmpty
                    ? "no <cascade> element" : "no <cascade> element (OpenCV's old Haar format is not supported)")
        }
        guard cascade.child("stageType")?.text.trimmed == "BOOST" else { throw malformed("stage type is not BOOST") }
        guard let type = cascade.child("featureType").flatMap({ FeatureType(rawValue: $0.text.trimmed) }) else {
            throw malformed("feature type is not HAAR or LBP")
        }
        guard let width = cascade.child("width").flatMap({ Int($0.text.trimmed) }),
            let height = cascade.child("height").flatMap({ Int($0.text.trimmed) }), (1...1024).contains(width),
            (1...1024).contains(height)
        else {
            throw malformed("missing or unusable window size")
        }
        guard let stages = cascade.child("stages")?.children, !stages.isEmpty else { throw malformed("no stages") }
        if let declared = cascade.child("stageNum").flatMap({ Int($0.text.trimmed) }), declared != stages.count {
            throw malformed("stageNum says \(declared) but \(stages.count) stages follow")
        }
        guard let featureNodes = cascade.child("features")?.children, !featureNodes.isEmpty else {
            throw malformed("no features")
        }

        var stageThresholds: [Float] = [], stageStarts: [Int32] = [0]
        var nodeStarts: [Int32] = [0], leafStarts: [Int32] = [0]
        var features: [Int32] = [], lefts: [Int32] = [], rights: [Int32] = [], thresholds: [Float] = [],
            subsets: [Int32] = []
        var leaves: [Float] = []
        let nodeSize = type == .haar ? 4 : 11
        for (s, stage) in stages.enumerated() {
            guard let threshold = stage.child("stageThreshold").flatMap({ Float($0.text.trimmed) }),
                let classifiers = stage.child("weakClassifiers")?.children, !classifiers.isEmpty
            else {
                throw malformed("stage \(s) lacks a threshold or weak classifiers")
            }
            stageThresholds.append(threshold)
            for (c, classifier) in classifiers.enumerated() {
                let classifierName = "stage \(s) classifier \(c)"
                guard let nodeFields = classifier.child("internalNodes")?.fields,
                    let leafFields = classifier.child("leafValues")?.fields
                else {
                    throw malformed("\(classifierName) lacks internalNodes or leafValues")
                }
                guard !nodeFields.isEmpty, nodeFields.count % nodeSize == 0 else {
                    throw malformed(
                        """
                        \(classifierName): internalNodes hold \(nodeFields.count) values, not a multiple of \
                        \(nodeSize)
                        """
                    )
                }
                let leafValues = leafFields.compactMap { Float($0) }
                let nodeCount = nodeFields.count / nodeSize
                guard leafValues.count == leafFields.count, !leafValues.isEmpty else {
                    throw malformed("\(classifierName): unreadable leaf values")
                }
                for n in 0..<nodeCount {
                    let fields = nodeFields[n * nodeSize..<(n + 1) * nodeSize]
                    let ints = fields.prefix(3).compactMap { Int32($0) }
                    guard ints.count == 3 else { throw malformed("\(classifierName): unreadable node \(n)") }
                    let (left, right, feature) = (ints[0], ints[1], ints[2])
                    for child in [left, right] {
                        guard child > 0 ? Int(child) < nodeCount : Int(-child) < leafValues.count else {
                            throw malformed("\(classifierName): node \(n) points to child \(child) outside the tree")
                        }
                    }
                    guard feature >= 0, Int(feature) < featureNodes.count else {
                        throw malformed("\(classifierName): feature \(feature) of \(featureNodes.count)")
                    }
                    features.append(feature)
                    lefts.append(left)
                    rights.append(right)
                    if type == .haar {
                        guard let threshold = Float(fields[fields.startIndex + 3]) else {
                            throw malformed("\(classifierName): unreadable threshold")
                        }
                        thresholds.append(threshold)
                    } else {
                        let words = fields.dropFirst(3).compactMap { Int32($0) }
                        guard words.count == 8 else {
                            throw malformed("\(classifierName): LBP node \(n) needs 8 subset words")
                        }
                        subsets += words
                    }
                }
                nodeStarts.append(nodeStarts[nodeStarts.count - 1] + Int32(nodeCount))
                leaves += leafValues
                leafStarts.append(Int32(leaves.count))
            }
            stageStarts.append(Int32(nodeStarts.count - 1))
        }

        var haarRects: [Float] = [], haarTilted: [UInt8] = [], lbpRects: [Int32] = []
        for (f, feature) in featureNodes.enumerated() {
            switch type {
            case .haar:
                guard let rects = feature.child("rects")?.children, (1...3).contains(rects.count) else {
                    throw malformed("feature \(f) needs 1 to 3 rectangles")
                }
                let tilted = feature.child("tilted")?.text.trimmed == "1"
                for rect in rects {
                    let values = rect.fields.compactMap { Float($0) }
                    guard values.count == 5, values[2] > 0, values[3] > 0 else {
                        throw malformed("feature \(f): unreadable rectangle")
                    }
                    let (x, y, w, h) = (values[0], values[1], values[2], values[3])
                    let fits =
                        tilted
                        ? x - h >= 0 && x + w <= Float(width) && y >= 0 && y + w + h <= Float(height)
                        : x >= 0 && y >= 0 && x + w <= Float(width) && y + h <= Float(height)
                    guard fits else { throw malformed("feature \(f): rectangle outside the \(width)×\(height) window") }
                    haarRects += values
                }
                haarRects += [Float](repeating: 0, count: 5 * (3 - rects.count))
                haarTilted.append(tilted ? 1 : 0)
            case .lbp:
                let values = feature.child("rect")?.fields.compactMap { Int32($0) } ?? []
                guard values.count == 4, values[0] >= 0, values[1] >= 0, values[2] > 0, values[3] > 0,
                    values[0] + 3 * values[2] <= width, values[1] + 3 * values[3] <= height
                else {
                    throw malformed("feature \(f): LBP cell grid outside the \(width)×\(height) window")
                }
                lbpRects += values
            }
        }

        self.path = path
        self.featureType = type
        self.windowWidth = width
        self.windowHeight = height
        self.stageThresholds = stageThresholds
        self.stageClassifierStarts = stageStarts
        self.classifierNodeStarts = nodeStarts
        self.classifierLeafStarts = leafStarts
        self.nodeFeatures = features
        self.nodeLeft = lefts
        self.nodeRight = rights
        self.nodeThresholds = thresholds
        self.nodeSubsets = subsets
        self.leaves = leaves
        self.haarRects = haarRects
        self.haarTilted = haarTilted
        self.lbpRects = lbpRects
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
