import BenchmarkSupport

/// How well groups of photos match the copies made on purpose: among originals (one view of each object),
/// their transformed copies and the other views of the objects (distractors). Two photos belong together
/// when one is a copy of the other or both are copies of one original. A copy grouped with another view of
/// its own object is neither right nor wrong (a burst of one scene may be grouped or not) and is counted
/// apart, as views joined.
struct NearDuplicateScore: Encodable {
    /// One photo of the set.
    struct Item {
        /// The object photographed (UKBench group).
        let object: Int
        /// The original's index for originals and their copies, nil for other views.
        let family: Int?
        /// Which copy this is; nil for originals and views.
        let copy: PhotoCopy?
    }

    /// Of the pairs put in one group (ignoring same-object pairs outside a family), the share that belong
    /// together.
    let precision: Double
    /// Of the copies of the targeted kinds (resize, JPEG, crop, brightness), the share grouped with their
    /// original.
    let recall: Double
    /// The same share for each kind of copy, flipped included.
    let recallByCopy: [String: Double]
    /// Of the other views of each original's object, the share grouped with it.
    let viewsJoined: Double

    /// The score of `groups` (each a list of item indices; items in none stand alone).
    init(groups: [[Int]], items: [Item]) {
        var groupOf = Array(items.indices)
        for group in groups { for item in group { groupOf[item] = group[0] } }
        var together = 0, grouped = 0
        for group in groups {
            for (position, a) in group.enumerated() {
                for b in group[(position + 1)...] {
                    let (first, second) = (items[a], items[b])
                    if let family = first.family, family == second.family {
                        together += 1
                    } else if first.object == second.object {
                        continue
                    }
                    grouped += 1
                }
            }
        }
        precision = grouped > 0 ? Double(together) / Double(grouped) : 1
        func share(_ selected: [Int], with partner: (Int) -> Int?) -> Double {
            let joined = selected.filter { item in partner(item).map { groupOf[$0] == groupOf[item] } ?? false }
            return selected.isEmpty ? 0 : Double(joined.count) / Double(selected.count)
        }
        let copies = items.indices.filter { items[$0].copy != nil }
        recall = share(copies.filter { items[$0].copy.map(PhotoCopy.targeted.contains) ?? false }) { items[$0].family }
        recallByCopy = Dictionary(
            uniqueKeysWithValues: PhotoCopy.allCases.map { kind in
                (kind.rawValue, share(copies.filter { items[$0].copy == kind }) { items[$0].family })
            })
        let originals = Dictionary(
            uniqueKeysWithValues: items.indices.filter { items[$0].family == $0 }.map { (items[$0].object, $0) })
        viewsJoined = share(items.indices.filter { items[$0].family == nil }) { originals[items[$0].object] }
    }
}
