/// How a kernel's work is laid out on a device: the work-group size and how many elements each
/// work-item takes along the first dimension (its vector width). Filters launch kernels over a size in
/// elements; the schedule turns it into OpenCL's global and local sizes, and the CPU twin reads it too.
public struct KernelSchedule: Hashable, Sendable, CustomStringConvertible {
    /// Work-items per work-group, per dimension.
    public var workGroup: [Int]
    /// Elements per work-item along the first dimension. Built as `-DVECTOR_WIDTH=n`, so a kernel's
    /// source can choose its vector types from it.
    public var vectorWidth: Int
    /// For kernels written in two shapes: whether a work-group shares each piece of work through local
    /// memory, with coalesced reads (GPU-shaped), rather than a work-item doing a piece alone in its
    /// registers and vector lanes (CPU-shaped).
    public var cooperative: Bool

    public init(workGroup: [Int], vectorWidth: Int = 1, cooperative: Bool = false) {
        self.workGroup = workGroup
        self.vectorWidth = vectorWidth
        self.cooperative = cooperative
    }

    public var description: String {
        workGroup.map(String.init).joined(separator: "×") + (vectorWidth > 1 ? " ×\(vectorWidth) lanes" : "")
            + (cooperative ? " cooperative" : "")
    }

    /// OpenCL's global size for `size` elements: the first dimension divided among the vector lanes,
    /// each rounded up to whole work-groups (kernels check their bounds).
    func globalSize(for size: [Int]) -> [Int] {
        var items = size
        if !items.isEmpty { items[0] = (items[0] + vectorWidth - 1) / vectorWidth }
        return items.enumerated().map { index, count in
            let group = index < workGroup.count ? max(workGroup[index], 1) : 1
            return max((count + group - 1) / group, 1) * group
        }
    }

    /// The work-group padded or cut to `dimensions`.
    func localSize(dimensions: Int) -> [Int] {
        (0..<dimensions).map { $0 < workGroup.count ? max(workGroup[$0], 1) : 1 }
    }
}

extension [Int] {
    /// A work-group cut down, last dimension first, to at most `limit` work-items: a cooperative kernel's
    /// group must fit the device, and its leading dimension is usually the one its layout fixes.
    func fitting(_ limit: Int) -> [Int] {
        var group = map { Swift.max($0, 1) }
        for dimension in group.indices.reversed() {
            let others = group.reduce(1, *) / group[dimension]
            group[dimension] = Swift.max(1, Swift.min(group[dimension], limit / others))
        }
        return group
    }
}

/// A kernel's default schedule for each kind of device.
public struct KernelSchedules: Sendable {
    /// The CPU device (its twin reads the vector width; the work-group is ignored).
    public var cpu: KernelSchedule
    /// OpenCL devices that are CPUs (pocl, Intel's CPU runtime).
    public var openCLCPU: KernelSchedule
    /// OpenCL GPUs and every other OpenCL device.
    public var openCLGPU: KernelSchedule

    public init(cpu: KernelSchedule, openCLCPU: KernelSchedule, openCLGPU: KernelSchedule) {
        self.cpu = cpu
        self.openCLCPU = openCLCPU
        self.openCLGPU = openCLGPU
    }

    /// The same schedule on every device.
    public static func uniform(_ workGroup: [Int], vectorWidth: Int = 1) -> KernelSchedules {
        let schedule = KernelSchedule(workGroup: workGroup, vectorWidth: vectorWidth)
        return KernelSchedules(cpu: schedule, openCLCPU: schedule, openCLGPU: schedule)
    }

    /// One work-item per element of a flat array: groups of 256.
    public static let perElement = uniform([256])
    /// One work-item per pixel over (width, height, planes): groups of 32 × 4.
    public static let perPixel = uniform([32, 4, 1])
    /// One work-item per row (or column) over (rows, planes): groups of 64.
    public static let perLine = uniform([64, 1])

    /// The schedule for a kind of device.
    public subscript(kind: DeviceKind) -> KernelSchedule {
        switch kind {
        case .cpu: cpu
        case .openCL(.cpu): openCLCPU
        case .openCL: openCLGPU
        }
    }
}

/// What the CPU twin of a launch is told besides its arguments: the size launched over, in elements,
/// and the schedule in force.
public struct KernelGrid: Sendable {
    /// Elements per dimension, as the filter launched it (before division among vector lanes).
    public let size: [Int]
    public let schedule: KernelSchedule

    /// The size of dimension `index`, or 1 past the last.
    public subscript(index: Int) -> Int {
        index < size.count ? size[index] : 1
    }
}
