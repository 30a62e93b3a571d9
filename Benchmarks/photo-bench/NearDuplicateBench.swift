import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// A set of photos to group: originals, the copies photo-bench makes of them (``PhotoCopy``) and the other
/// photos, each with the object it shows, printed, hashed and read as ``PixelAgreement`` reads photos.
struct NearDuplicateSet {
    let name: String
    let items: [NearDuplicateScore.Item]
    /// Each photo's name, for the groups the report names.
    let names: [String]
    let prints: [Float]
    let hashes: [PerceptualHash]
    let planes: [PixelAgreement.Plane]
    let copies: [DuplicateGroups.Copy]

    /// `photos` (decoded, with their names and the objects they show), and copies of each of `originals`.
    init(
        name: String, photos: [PixelBuffer], names: [String], objects: [Int], originals: [Int], printer: PhotoPrinter,
        context: RenderContext
    ) throws {
        var items = photos.indices.map {
            NearDuplicateScore.Item(object: objects[$0], family: originals.contains($0) ? $0 : nil, copy: nil)
        }
        var all = photos, allNames = names
        for original in originals {
            progress("\(name): copies of \(names[original])")
            for kind in PhotoCopy.allCases {
                all.append(try kind.make(of: photos[original], context: context))
                allNames.append("\(names[original]) \(kind.rawValue)")
                items.append(.init(object: objects[original], family: original, copy: kind))
            }
        }
        progress("\(name): printing, hashing and reading \(all.count) photos")
        self.name = name
        self.items = items
        self.names = allNames
        prints = try printer.prints(of: all).flatMap { $0 }
        hashes = try PerceptualHash.hashes(ofGray: all.map { try context.grayPlane(of: $0) }, context: context)
        planes = try all.map {
            try PixelAgreement.plane(of: $0, pixels: $0.descriptor.width * $0.descriptor.height, context: context)
        }
        copies = try all.map { photo in
            DuplicateGroups.Copy(
                pixels: photo.descriptor.width * photo.descriptor.height,
                sharpness: try LaplacianMoments.sharpness(ofGray: [try context.grayPlane(of: photo)], context: context)[
                    0],
                bytes: photo.bytes.count)
        }
    }

    /// The rows for this set: the chained grouping used before (print or hash, any chain), then copies by
    /// their pixels at several agreements, linked to the centre, and at the standard one linked to every member;
    /// then other shots (`--similar`, no times known) by both rules.
    func rows(context: RenderContext) throws -> [PhotoBenchReport.NearDuplicates] {
        let count = items.count
        let before =
            try ClosePrints.pairs(in: prints, count: count, threshold: 0.125, context: context)
            + PerceptualHash.pairs(in: hashes, within: 8)
        var rows = [
            row(
                "print within 0.125 or hash within 8, chained (before)", 0.125,
                ChainedGroups.groups(count: count, pairs: before), pairs: before)
        ]
        let planes = planes
        let compared = try DuplicateGroups.compared(prints: prints, hashes: hashes, context: context) { planes[$0] }
        for agreement: Float in [0.94, 0.95, 0.96, 0.97] {
            var rule = DuplicateGroups.rule
            rule.agreement = agreement
            let links = compared.filter { rule.isCopy($0.agreement) }.map { ($0.first, $0.second) }
            let standard = agreement == DuplicateGroups.rule.agreement
            rows.append(
                row(
                    "copies: pixels agree from \(agreement), linked to the centre" + (standard ? " (standard)" : ""),
                    agreement, DuplicateGroups.groups(links: links, copies: copies), pairs: links))
            if standard {
                rows.append(
                    row(
                        "copies: pixels agree from \(agreement), linked to every member", agreement,
                        DuplicateGroups.groups(links: links, copies: copies, rule: .linkedToEveryMember), pairs: links))
            }
        }
        let shots = try DuplicateGroups.shots(
            prints: prints, count: count, threshold: DuplicateGroups.similarThreshold, context: context
        ) { _ in nil }
        for (rule, name) in [
            (DuplicateGroups.Rule.linkedToCentre, "the centre"), (.linkedToEveryMember, "every member"),
        ] {
            rows.append(
                row(
                    "shots: prints within \(DuplicateGroups.similarThreshold), linked to \(name)"
                        + (rule == DuplicateGroups.shotsJoin ? " (--similar)" : ""), DuplicateGroups.similarThreshold,
                    DuplicateGroups.groups(links: shots, copies: copies, rule: rule), pairs: shots))
        }
        return rows
    }

    /// A row: the score of `groups`, the largest, those that join different objects (named), and of each kind
    /// of copy the share `pairs` link to its original directly.
    private func row(_ method: String, _ threshold: Float, _ groups: [[Int]], pairs: [(Int, Int)])
        -> PhotoBenchReport.NearDuplicates
    {
        let linked = Set(pairs.flatMap { [[$0.0, $0.1], [$0.1, $0.0]] })
        let pairRecall = Dictionary(
            uniqueKeysWithValues: PhotoCopy.allCases.map { kind in
                let copies = items.indices.filter { items[$0].copy == kind }
                let found = copies.filter { copy in items[copy].family.map { linked.contains([copy, $0]) } ?? false }
                return (kind.rawValue, copies.isEmpty ? 0 : Double(found.count) / Double(copies.count))
            })
        let joined = groups.filter { Set($0.map { items[$0].object }).count > 1 }
        return .init(
            method: method, threshold: threshold, photos: items.count,
            score: NearDuplicateScore(groups: groups, items: items), set: name,
            largestGroup: groups.map(\.count).max() ?? 0, groupsOfDifferentObjects: joined.count,
            namedGroupsOfDifferentObjects: joined.prefix(5).map { $0.map { names[$0] } }, pairRecallByCopy: pairRecall)
    }
}
