import Foundation
import ImageKernels

/// Groups of copies, and in each the copy to keep. Two photos are copies when their pixels agree
/// (``PixelAgreement``: one is the other resized, re-encoded, brightened or cropped), the pairs to compare
/// found by print or by perceptual hash; their prints alone make copies only when nearly equal, and a hash
/// match alone never does (on white backgrounds and in low texture 64 bits match many photos). A group is
/// one photo and the copies of it: groups never grow through a copy of a copy, so look-alikes that lie close
/// one after another (motorbikes in one pose, views a step apart) never chain into one.
public enum DuplicateGroups {
    /// The rule groups of copies use (``CopyRule/standard``) and its thresholds, named where users read them.
    public static let rule = CopyRule.standard
    public static var printThreshold: Float { rule.printThreshold }
    public static var hashDistance: Int { rule.hashDistance }
    public static var agreementThreshold: Float { rule.agreement }
    /// The cosine distance within which photos are other shots of one object or scene (`--similar`).
    public static let similarThreshold: Float = 0.35
    /// How far apart in time two photos whose times are known may be taken to be shots of one scene.
    public static let burstWindow: TimeInterval = 600
    /// Who joins a group of copies (any copy of its centre) and of shots (a shot alike with every one in).
    public static let copiesJoin = Rule.linkedToCentre, shotsJoin = Rule.linkedToEveryMember

    /// When two photos are copies: which pairs are compared, and what makes a compared pair copies.
    public struct CopyRule: Sendable {
        /// The cosine distance of prints within which two photos are compared (a copy of a photo small enough
        /// to be blurred by halving lies up to about 0.1 off, one cropped to half the frame often further), and
        /// compared turned too where they do not agree as they lie (``agreement(of:_:distance:)``).
        public var printThreshold: Float
        /// The Hamming distance of perceptual hashes within which two photos are compared too (strong JPEG
        /// compression moves a small photo's print further than it moves the hash), with prints at most
        /// `hashPrintBound` apart (hashes match across photos of different things whose prints disagree).
        public var hashDistance: Int
        public var hashPrintBound: Float
        /// The agreement of luma (``PixelAgreement``) from which two compared photos are copies, and of colour
        /// (where both have colour) below which they are not, whatever their luma.
        public var agreement: Float
        public var colourAgreement: Float

        /// The thresholds photo-bench calibrated on its copies of UKBench and Caltech-101 photos: every copy
        /// of the kinds it targets found (resized, re-encoded, cropped by a tenth, brightened), no two
        /// different photos joined, and grouping as fast as before.
        public static let standard = CopyRule(
            printThreshold: 0.15, hashDistance: 8, hashPrintBound: 0.4, agreement: 0.96, colourAgreement: 0.5)

        public init(
            printThreshold: Float, hashDistance: Int, hashPrintBound: Float, agreement: Float, colourAgreement: Float
        ) {
            self.printThreshold = printThreshold
            self.hashDistance = hashDistance
            self.hashPrintBound = hashPrintBound
            self.agreement = agreement
            self.colourAgreement = colourAgreement
        }

        /// How two compared photos, their prints `distance` apart, agree by their pixels: as they lie
        /// (``PixelAgreement/agreement(_:_:)``), or where that falls short of `agreement` and their prints lie
        /// within `printThreshold`, turned (``PixelAgreement/turnedAgreement(_:_:)``: a copy turned by a few
        /// degrees) if that agrees better. Before, prints within 0.06 made a copy where the luma agreed from 0.5,
        /// and parts of one page of text, at one line spacing, were copies of one another.
        public func agreement(of a: PixelAgreement.Plane, _ b: PixelAgreement.Plane, distance: Float)
            -> PixelAgreement.Agreement
        {
            let lying = PixelAgreement.agreement(a, b)
            guard lying.luma < agreement, distance <= printThreshold, let turned = PixelAgreement.turnedAgreement(a, b),
                turned.luma > lying.luma
            else { return lying }
            return turned
        }

        /// Whether two compared photos are copies by how their pixels agree (``agreement(of:_:distance:)``; nil
        /// where a file could not be read, which makes no copy): luma that agrees from `agreement`, and colour,
        /// where both have colour, from `colourAgreement`.
        public func isCopy(_ measured: PixelAgreement.Agreement?) -> Bool {
            guard let measured else { return false }
            return measured.luma >= agreement && (measured.colour ?? 1) >= colourAgreement
        }
    }

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
    }

    /// Who may join a group, beside its centre.
    public enum Rule: String, Sendable, CaseIterable {
        /// Photos linked to the centre: every member is a copy of that one photo, whatever the copies are of
        /// one another (a crop and a half-size copy of one photo need not agree with each other). Groups of
        /// copies use it: linked to every member, photo-bench finds 0.69-0.75 of the copies it finds so.
        case linkedToCentre
        /// Photos linked to every member already in: groups of shots use it, where links are loose enough that
        /// a centre's neighbours may be far apart from one another.
        case linkedToEveryMember
    }

    /// The groups of at least two photos that `links` (pairs of indices) join by `rule`, each with its copy to
    /// keep first (``best(of:copies:)``), then the others in the order they joined. A group forms around a
    /// centre, the photo not yet grouped that is linked to most others not yet grouped (on a tie the one with
    /// more pixels, then more bytes, then the lower index): the original, in practice, of which the others
    /// are copies. Groups never
    /// grow through a member's own links, so look-alikes linked one after another never chain into one, and
    /// they do not depend on the order of `links`.
    public static func groups(links: some Sequence<(Int, Int)>, copies: [Copy], rule: Rule = .linkedToCentre)
        -> [[Int]]
    {
        let count = copies.count
        var neighbours = [Set<Int>](repeating: [], count: count)
        for (a, b) in links where a != b && (0..<count).contains(a) && (0..<count).contains(b) {
            neighbours[a].insert(b)
            neighbours[b].insert(a)
        }
        var open = Set((0..<count).filter { !neighbours[$0].isEmpty }), groups: [[Int]] = []
        var degree = neighbours.map(\.count)
        // Before: more open links, then more pixels, then more bytes, then the lower index. A strict order
        // (unlike the copy to keep's, which weighs bytes only past a ratio), so nothing hangs on the links' order.
        func precedes(_ a: Int, _ b: Int) -> Bool {
            (degree[a], copies[a].pixels, copies[a].bytes, b) > (degree[b], copies[b].pixels, copies[b].bytes, a)
        }
        while let centre = open.min(by: precedes), degree[centre] > 0 {
            var group = [centre]
            let candidates = neighbours[centre].filter(open.contains).sorted(by: precedes)
            for member in candidates
            where rule == .linkedToCentre || group.allSatisfy({ neighbours[member].contains($0) }) {
                group.append(member)
            }
            for member in group {
                open.remove(member)
                for neighbour in neighbours[member] { degree[neighbour] -= 1 }
            }
            let keeper = best(of: group, copies: copies)
            groups.append([keeper] + group.filter { $0 != keeper })
        }
        return groups
    }

    /// A pair of photos compared as possible copies: their print distance, and how their pixels agree (nil
    /// where a plane could not be read).
    public struct ComparedPair: Sendable {
        public let first: Int
        public let second: Int
        public let distance: Float
        public let agreement: PixelAgreement.Agreement?
    }

    /// The pairs of copies among the photos of `prints` (``PhotoPrinter/length`` values each) and `hashes` by
    /// `rule`: `identical` (byte-identical files), and of the pairs ``compared(prints:hashes:context:rule:plane:)``
    /// those that ``CopyRule/isCopy(_:)``.
    public static func copies(
        prints: [Float], hashes: [PerceptualHash], identical: [(Int, Int)], context: RenderContext,
        rule: CopyRule = .standard, plane: @Sendable (Int) -> PixelAgreement.Plane?
    ) throws(PhotoError) -> [(Int, Int)] {
        let compared = try compared(prints: prints, hashes: hashes, context: context, rule: rule, plane: plane)
        return identical
            + compared.filter { rule.isCopy($0.agreement) }.map { ($0.first, $0.second) }
    }

    /// The pairs `rule` compares: within its print threshold by print, or within its Hamming distance by hash
    /// and its bound by print, each once, with how their pixels agree (``CopyRule/agreement(of:_:distance:)``).
    /// `plane` gives a photo's planes (nil where it cannot be read); the planes are read, and the pairs compared,
    /// in parallel.
    public static func compared(
        prints: [Float], hashes: [PerceptualHash], context: RenderContext, rule: CopyRule = .standard,
        plane: @Sendable (Int) -> PixelAgreement.Plane?
    ) throws(PhotoError) -> [ComparedPair] {
        let count = hashes.count
        let byPrint = try ClosePrints.pairs(in: prints, count: count, threshold: rule.printThreshold, context: context)
        let byHash = PerceptualHash.pairs(in: hashes, within: rule.hashDistance)
        var candidates: [(first: Int, second: Int, distance: Float)] = [], seen: Set<Pair> = []
        for (a, b) in byPrint + byHash where seen.insert(Pair(a, b)).inserted {
            // Pairs by print lie within the print threshold, below the bound pairs by hash must keep.
            let distance = ClosePrints.distance(between: a, and: b, in: prints)
            if distance <= rule.hashPrintBound { candidates.append((min(a, b), max(a, b), distance)) }
        }
        let photos = Array(Set(candidates.flatMap { [$0.first, $0.second] }))
        let planes = Dictionary(uniqueKeysWithValues: zip(photos, CPUParallel.map(photos, plane)))
        let agreements = CPUParallel.map(candidates) { pair -> PixelAgreement.Agreement? in
            guard let a = planes[pair.first] ?? nil, let b = planes[pair.second] ?? nil else { return nil }
            return rule.agreement(of: a, b, distance: pair.distance)
        }
        return zip(candidates, agreements).map { pair, agreement in
            ComparedPair(first: pair.first, second: pair.second, distance: pair.distance, agreement: agreement)
        }
    }

    /// The pairs of other shots of one object or scene: prints within `threshold`, and where both photos'
    /// times are known (`time`: when a photo was taken, nil where unknown; asked in parallel, of the photos
    /// in such pairs only), taken within ``burstWindow`` of each other.
    public static func shots(
        prints: [Float], count: Int, threshold: Float, context: RenderContext, time: @Sendable (Int) -> Date?
    ) throws(PhotoError) -> [(Int, Int)] {
        let pairs = try ClosePrints.pairs(in: prints, count: count, threshold: threshold, context: context)
        let photos = Array(Set(pairs.flatMap { [$0.0, $0.1] }))
        let times = Dictionary(uniqueKeysWithValues: zip(photos, CPUParallel.map(photos, time)))
        return pairs.filter { a, b in
            guard let first = times[a] ?? nil, let second = times[b] ?? nil else { return true }
            return abs(first.timeIntervalSince(second)) <= burstWindow
        }
    }

    /// The member of `group` to keep, whatever the order of `group`: of the copies with the most pixels, those
    /// not clearly more compressed than the largest file among them (a re-encoded copy's blocks can look sharp
    /// to the Laplacian: a file of under two thirds its bytes is out), the sharpest (the steadiest shot of a
    /// burst), then the larger file, then the lower index.
    public static func best(of group: [Int], copies: [Copy]) -> Int {
        let most = group.map { copies[$0].pixels }.max() ?? 0
        let largest = group.filter { copies[$0].pixels == most }
        let bytes = Double(largest.map { copies[$0].bytes }.max() ?? 0)
        let fair = largest.filter { 1.5 * Double(copies[$0].bytes) >= bytes }
        return fair.min {
            (copies[$0].sharpness, copies[$0].bytes, $1) > (copies[$1].sharpness, copies[$1].bytes, $0)
        } ?? group[0]
    }

    /// A pair of indices, the lower first.
    struct Pair: Hashable, Sendable {
        let first: Int
        let second: Int
        init(_ a: Int, _ b: Int) { (first, second) = (min(a, b), max(a, b)) }
    }
}
