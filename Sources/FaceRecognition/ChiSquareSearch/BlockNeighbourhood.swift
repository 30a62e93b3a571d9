/// The gallery blocks a neighbourhood NBNN compares with a probe block: those within `radius` grid steps of
/// it, across and down, on a grid `columns` wide. The rule's one statement in Swift, for the matchers'
/// options and the search kernel's CPU twin; the kernel's own is `compared` in ChiSquareNearest.cl, built
/// from these two numbers.
struct BlockNeighbourhood: Sendable, Equatable {
    let radius: Int
    let columns: Int

    init(radius: Int, columns: Int) {
        self.radius = radius
        self.columns = columns
    }

    /// Whether `candidate` lies within the neighbourhood of `block`.
    @inline(__always)
    func contains(_ candidate: Int, around block: Int) -> Bool {
        abs(block / columns - candidate / columns) <= radius && abs(block % columns - candidate % columns) <= radius
    }

    /// The compiler options that build the rule into the kernel.
    var kernelOptions: String { "-DRADIUS=\(radius) -DGRID_COLUMNS=\(columns)" }
}
