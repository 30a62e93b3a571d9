import FaceDetectionCL
import Foundation
import ImageKernels

/// A cascade model packed into two device-resident arrays, ints and floats, plus the offsets of its
/// parts (the `layout` the kernel reads).
struct PackedCascade: Sendable {
    let model: CascadeModel
    let ints: ResidentImage
    let floats: ResidentImage
    let layout: [Int32]
    /// Whether every weak classifier is a single node (a stump), which the CPU twin evaluates eight
    /// windows at a time.
    let isStumps: Bool
    private let corners: [(x: Int32, y: Int32)]

    init(_ model: CascadeModel, context: RenderContext) throws(RenderError) {
        var ints: [Int32] = [], floats: [Float] = [], layout: [Int32] = [Int32(model.stageCount)]
        for part in [
            model.stageClassifierStarts, model.classifierNodeStarts, model.classifierLeafStarts, model.nodeFeatures,
            model.nodeLeft, model.nodeRight, model.nodeSubsets, model.haarTilted.map(Int32.init),
        ] {
            layout.append(Int32(ints.count))
            ints += part
        }
        let weights = stride(from: 4, to: model.haarRects.count, by: 5).map { model.haarRects[$0] }
        for part in [model.stageThresholds, model.nodeThresholds, model.leaves, weights] {
            layout.append(Int32(floats.count))
            floats += part
        }
        self.model = model
        self.layout = layout
        corners = Self.corners(of: model)
        isStumps = zip(model.classifierNodeStarts, model.classifierNodeStarts.dropFirst()).allSatisfy { $1 - $0 == 1 }
        self.ints = try context.makeResidentImage(
            try PixelBuffer(
                descriptor: ImageDescriptor(width: max(ints.count, 1), height: 1, elementType: .uint32),
                bytes: (ints.isEmpty ? [0] : ints).withUnsafeBytes { Array($0) }))
        self.floats = try context.makeResidentImage(
            try PixelBuffer(
                width: max(floats.count, 1), height: 1,
                values: floats.isEmpty ? [0] : floats))
    }

    /// The leading stages with fewer weak classifiers than a work-group of `lanes` has work-items (at least
    /// one): the GPU shape runs them a window a work-item, before it compacts the survivors.
    func earlyStages(lanes: Int) -> Int {
        let sizes = zip(model.stageClassifierStarts, model.stageClassifierStarts.dropFirst()).map { Int($1 - $0) }
        return max(1, sizes.prefix { $0 < lanes }.count)
    }

    /// Each feature's corners in an integral image of this row stride: Haar, 3 rectangles × 4 corners
    /// (p0 − p1 − p2 + p3; unused rectangles all 0); LBP, the 4 × 4 corners of its 3 × 3 cells, row by row.
    func cornerOffsets(stride: Int) -> [Int32] {
        let stride = Int32(stride)
        return corners.map { $0.y * stride + $0.x }
    }

    /// The corners behind `cornerOffsets`, as (x, y) in the window, worked out once per model: every
    /// pyramid level needs them at its own stride.
    private static func corners(of model: CascadeModel) -> [(x: Int32, y: Int32)] {
        var corners: [(x: Int32, y: Int32)] = []
        switch model.featureType {
        case .haar:
            corners.reserveCapacity(12 * model.featureCount)
            for feature in 0..<model.featureCount {
                for r in 0..<3 {
                    let base = (feature * 3 + r) * 5
                    let (x, y) = (Int32(model.haarRects[base]), Int32(model.haarRects[base + 1]))
                    let (w, h) = (Int32(model.haarRects[base + 2]), Int32(model.haarRects[base + 3]))
                    if model.haarRects[base + 4] == 0 {
                        corners += [(0, 0), (0, 0), (0, 0), (0, 0)]
                    } else if model.haarTilted[feature] == 1 {
                        corners += [(x, y), (x - h, y + h), (x + w, y + w), (x + w - h, y + w + h)]
                    } else {
                        corners += [(x, y), (x + w, y), (x, y + h), (x + w, y + h)]
                    }
                }
            }
        case .lbp:
            corners.reserveCapacity(16 * model.featureCount)
            for feature in 0..<model.featureCount {
                let (x, y, w, h) = (
                    model.lbpRects[feature * 4], model.lbpRects[feature * 4 + 1],
                    model.lbpRects[feature * 4 + 2], model.lbpRects[feature * 4 + 3]
                )
                for row in Int32(0)...3 { for column in Int32(0)...3 { corners.append((x + column * w, y + row * h)) } }
            }
        }
        return corners
    }
}

/// Evaluates a cascade at every window of every pyramid level at once: inputs are the integral image of
/// the atlas that holds the levels, its squared and tilted integral images (Haar; the plain one stands in
/// where unused) and the packed model; output per window, levels one after another and rows of windows in
/// order, 0 (rejected by the first stage), 1 (rejected later) or 2 (accepted).
///
/// Two shapes, chosen by `cascade_detect`'s schedule: the CPU shape evaluates windows whole (eight
/// neighbours at a time in vector lanes for stump cascades); the GPU shape (a cooperative schedule) runs
/// the early stages a window a work-item and compacts the survivors, then gives each survivor's later
/// stages a work-group of `cascade_late`'s lanes, a classifier each.
struct CascadeEvaluation: Filter {
    let cascade: PackedCascade
    let levels: [CascadeDetector.Level]

    var name: String { "cascade \(cascade.model.featureType.rawValue)" }

    /// Windows of all levels.
    var windowCount: Int { levels.reduce(0) { $0 + $1.windowsX * $1.windowsY } }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let (windowWidth, windowHeight) = (cascade.model.windowWidth, cascade.model.windowHeight)
        func fits(_ level: CascadeDetector.Level) -> Bool {
            level.windowsX > 0 && level.windowsY > 0 && level.x >= 0 && level.y >= 0
                && (level.windowsX - 1) * level.step + windowWidth <= level.width
                && (level.windowsY - 1) * level.step + windowHeight <= level.height
                && level.x + level.width < inputs[0].width && level.y + level.height < inputs[0].height
        }
        guard inputs.count == 5, inputs[0].elementType == .uint32, inputs[0].width == inputs[1].width,
            inputs[0].width == inputs[2].width, !levels.isEmpty, levels.allSatisfy(fits)
        else {
            throw .invalidInput(filter: name, reason: "windows do not fit the integral image")
        }
        return ImageDescriptor(width: windowCount, height: 1, elementType: .uint8)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let lbp = cascade.model.featureType == .lbp
        let stride = encoder.inputs[0].descriptor.width
        let model = (
            sums: KernelBuffer<UInt32>(encoder.inputs[0]), squares: KernelBuffer<UInt32>(encoder.inputs[1]),
            tilted: KernelBuffer<UInt32>(encoder.inputs[2]), ints: KernelBuffer<Int32>(encoder.inputs[3]),
            floats: KernelBuffer<Float>(encoder.inputs[4])
        )
        let offsets = cascade.cornerOffsets(stride: stride), table = levelTable
        let (windowWidth, windowHeight) = (Int32(cascade.model.windowWidth), Int32(cascade.model.windowHeight))
        let detect = lbp ? Self.lbp : Self.haar
        var schedule = encoder.schedule(for: detect)
        if schedule.cooperative {
            let late = lbp ? Self.lbpLate : Self.haarLate, lanes = encoder.schedule(for: late).workGroup[0]
            let survivors = try encoder.temporaryImage(
                ImageDescriptor(width: windowCount + 1, height: 1, elementType: .uint32))
            let arguments = SplitArguments(
                sums: model.sums, squares: model.squares, tilted: model.tilted, ints: model.ints,
                floats: model.floats, layout: cascade.layout, offsets: offsets, levels: table,
                levelCount: Int32(levels.count), results: .init(encoder.output),
                survivors: .init(survivors), stride: Int32(stride), windowWidth: windowWidth,
                windowHeight: windowHeight, windowCount: Int32(windowCount),
                split: Int32(cascade.earlyStages(lanes: lanes)))
            try encoder.launch(Self.reset, ResetArguments(survivors: .init(survivors)), over: [1])
            try encoder.launch(lbp ? Self.lbpEarly : Self.haarEarly, arguments, over: [windowCount])
            // Enough groups to fill the device several times over; each takes survivors in turn.
            try encoder.launch(late, arguments, over: [encoder.device.capabilities.computeUnits * 8 * lanes])
            return
        }
        // Eight windows per work-item where the schedule asks for it, for stump cascades.
        if !cascade.isStumps { schedule.vectorWidth = 1 }
        try encoder.launch(
            detect,
            Arguments(
                sums: model.sums, squares: model.squares, tilted: model.tilted, ints: model.ints,
                floats: model.floats, layout: cascade.layout, offsets: offsets, levels: table,
                levelCount: Int32(levels.count), results: .init(encoder.output),
                stride: Int32(stride), windowWidth: windowWidth, windowHeight: windowHeight),
            over: [levels.map(\.windowsX).max() ?? 1, levels.reduce(0) { $0 + $1.windowsY }], schedule: schedule)
    }

    /// Each level's `LEVEL_FIELDS` ints (see CascadeEvaluation.cl): origin, windows across and down, step,
    /// first row of windows and first window.
    private var levelTable: [Int32] {
        var table: [Int32] = [], rows = 0, windows = 0
        for level in levels {
            table += [level.x, level.y, level.windowsX, level.windowsY, level.step, rows, windows].map { Int32($0) }
            rows += level.windowsY
            windows += level.windowsX * level.windowsY
        }
        return table
    }

    struct Arguments: CascadeArguments {
        var sums: KernelBuffer<UInt32>
        var squares: KernelBuffer<UInt32>
        var tilted: KernelBuffer<UInt32>
        var ints: KernelBuffer<Int32>
        var floats: KernelBuffer<Float>
        var layout: [Int32]
        var offsets: [Int32]
        var levels: [Int32]
        var levelCount: Int32
        var results: KernelMutableBuffer<UInt8>
        var stride: Int32
        var windowWidth: Int32
        var windowHeight: Int32
    }

    /// The GPU shape's two kernels': the survivors' list (its count first) and the stages the first runs.
    struct SplitArguments: CascadeArguments {
        var sums: KernelBuffer<UInt32>
        var squares: KernelBuffer<UInt32>
        var tilted: KernelBuffer<UInt32>
        var ints: KernelBuffer<Int32>
        var floats: KernelBuffer<Float>
        var layout: [Int32]
        var offsets: [Int32]
        var levels: [Int32]
        var levelCount: Int32
        var results: KernelMutableBuffer<UInt8>
        var survivors: KernelMutableBuffer<UInt32>
        var stride: Int32
        var windowWidth: Int32
        var windowHeight: Int32
        var windowCount: Int32
        var split: Int32
    }

    struct ResetArguments: KernelArguments {
        var survivors: KernelMutableBuffer<UInt32>
    }

    static let source = KernelSource(name: "CascadeEvaluation", bytes: FaceDetectionCL.cascadeEvaluation)
    static let haar = kernel(lbp: false), lbp = kernel(lbp: true)
    static let haarEarly = early(lbp: false), lbpEarly = early(lbp: true)
    static let haarLate = late(lbp: false), lbpLate = late(lbp: true)

    private static func options(lbp: Bool) -> String {
        (lbp ? "-DLBP " : "") + "-cl-fp32-correctly-rounded-divide-sqrt"
    }

    /// Eight windows per work-item on the CPU device and OpenCL CPUs (their compilers turn the lanes into
    /// SIMD instructions, which a divergent one-window kernel never becomes); on GPUs the split shape
    /// (`cooperative`), whose own kernels' schedules size it.
    static let schedules = KernelSchedules(
        cpu: KernelSchedule(workGroup: [1, 1], vectorWidth: 8),
        openCLCPU: KernelSchedule(workGroup: [16, 4], vectorWidth: 8),
        openCLGPU: KernelSchedule(workGroup: [16, 4], cooperative: true))

    /// The CPU shape and its twin: the kernel's arithmetic in the same order, one row of windows per task,
    /// eight neighbouring windows at a time in SIMD lanes where the schedule's vector width is 8.
    private static func kernel(lbp: Bool) -> Kernel<Arguments> {
        Kernel("cascade_detect", in: source, options: options(lbp: lbp), schedules: schedules) { arguments, grid in
            let lanes = grid.schedule.vectorWidth == 8,
                levels = LevelTable(arguments.levels, count: arguments.levelCount, stride: Int(arguments.stride))
            CPUParallel.forEachRange(grid[1]) { rows in
                // Models have features (the loader refuses others), so the corner table is never empty.
                arguments.offsets.withUnsafeBufferPointer { table in
                    guard let offsets = table.baseAddress else { return }
                    let evaluator = WindowEvaluator(arguments, offsets: offsets, lbp: lbp)
                    for row in rows {
                        let level = levels.level(containingRow: row), wy = row - level.firstRow
                        let results = arguments.results.elements + level.firstWindow + wy * level.windowsX
                        var wx = 0
                        if lanes && level.windowsX >= 8 {
                            while wx < level.windowsX {
                                let first = min(wx, level.windowsX - 8)
                                let outcomes = evaluator.evaluateEight(
                                    origin: level.origin(wx: first, wy: wy), step: level.step)
                                for lane in 0..<8 { results[first + lane] = outcomes[lane] }
                                wx = first + 8
                            }
                        }
                        while wx < level.windowsX {
                            results[wx] = evaluator.outcome(
                                origin: level.origin(wx: wx, wy: wy), stages: 0..<evaluator.stageCount)
                            wx += 1
                        }
                    }
                }
            }
        }
    }

    /// `survivors[0] = 0`, before the early stages append to the list.
    static let reset = Kernel<ResetArguments>("cascade_reset", in: source, schedules: .uniform([1])) { arguments, _ in
        arguments.survivors.elements[0] = 0
    }

    /// The GPU shape's early stages, a window a work-item; the twin collects each task's survivors and
    /// appends them under a lock (the list's order, like the kernel's, is whatever the tasks' order was).
    private static func early(lbp: Bool) -> Kernel<SplitArguments> {
        Kernel("cascade_early", in: source, options: options(lbp: lbp), schedules: .uniform([64])) { arguments, _ in
            let levels = LevelTable(arguments.levels, count: arguments.levelCount, stride: Int(arguments.stride)),
                lock = NSLock()
            CPUParallel.forEachRange(Int(arguments.windowCount)) { windows in
                arguments.offsets.withUnsafeBufferPointer { table in
                    guard let offsets = table.baseAddress else { return }
                    let evaluator = WindowEvaluator(arguments, offsets: offsets, lbp: lbp)
                    var survivors: [UInt32] = []
                    for w in windows {
                        let level = levels.level(containingWindow: w), index = w - level.firstWindow
                        let outcome = evaluator.outcome(
                            origin: level.origin(wx: index % level.windowsX, wy: index / level.windowsX),
                            stages: 0..<Int(arguments.split))
                        arguments.results.elements[w] = outcome
                        if outcome == 3 { survivors.append(UInt32(w)) }
                    }
                    lock.withLock {
                        let list = arguments.survivors.elements, count = Int(list[0])
                        for (i, w) in survivors.enumerated() { list[1 + count + i] = w }
                        list[0] += UInt32(survivors.count)
                    }
                }
            }
        }
    }

    /// A warp of 32 a survivor, on every device (the CPU twin ignores it).
    static let lateSchedules: KernelSchedules = {
        let warp = KernelSchedule(workGroup: [32], cooperative: true)
        return KernelSchedules(cpu: warp, openCLCPU: warp, openCLGPU: warp)
    }()

    /// The GPU shape's later stages: a work-group of 32 (a warp) a survivor, a classifier a work-item; the
    /// twin evaluates each survivor's stages in order.
    private static func late(lbp: Bool) -> Kernel<SplitArguments> {
        Kernel(
            "cascade_late", in: source, options: options(lbp: lbp),
            schedules: lateSchedules
        ) { arguments, _ in
            let levels = LevelTable(arguments.levels, count: arguments.levelCount, stride: Int(arguments.stride))
            CPUParallel.forEachRange(Int(arguments.survivors.elements[0])) { range in
                arguments.offsets.withUnsafeBufferPointer { table in
                    guard let offsets = table.baseAddress else { return }
                    let evaluator = WindowEvaluator(arguments, offsets: offsets, lbp: lbp)
                    for i in range {
                        let w = Int(arguments.survivors.elements[1 + i])
                        let level = levels.level(containingWindow: w), index = w - level.firstWindow
                        arguments.results.elements[w] = evaluator.outcome(
                            origin: level.origin(wx: index % level.windowsX, wy: index / level.windowsX),
                            stages: Int(arguments.split)..<evaluator.stageCount)
                    }
                }
            }
        }
    }
}

/// What both shapes' arguments hold: the integral images, the packed model and the window size.
protocol CascadeArguments: KernelArguments {
    var sums: KernelBuffer<UInt32> { get }
    var squares: KernelBuffer<UInt32> { get }
    var tilted: KernelBuffer<UInt32> { get }
    var ints: KernelBuffer<Int32> { get }
    var floats: KernelBuffer<Float> { get }
    var layout: [Int32] { get }
    var stride: Int32 { get }
    var windowWidth: Int32 { get }
    var windowHeight: Int32 { get }
}

/// The levels' table as the twins read it (see `CascadeEvaluation.levelTable`).
struct LevelTable {
    struct Level {
        let x, y, windowsX, windowsY, step, firstRow, firstWindow: Int
        let stride: Int

        /// The first integral entry of window (wx, wy).
        func origin(wx: Int, wy: Int) -> Int { (y + wy * step) * stride + x + wx * step }
    }

    /// Ints a level (`LEVEL_FIELDS`).
    static let fields = 7

    private let levels: [Level]

    init(_ table: [Int32], count: Int32, stride: Int) {
        levels = (0..<Int(count)).map { index in
            let field = { Int(table[index * LevelTable.fields + $0]) }
            return Level(
                x: field(0), y: field(1), windowsX: field(2), windowsY: field(3), step: field(4), firstRow: field(5),
                firstWindow: field(6), stride: stride)
        }
    }

    func level(containingRow row: Int) -> Level { levels[last(\.firstRow, atMost: row)] }
    func level(containingWindow window: Int) -> Level { levels[last(\.firstWindow, atMost: window)] }

    /// The last level whose `field` is at most `value` (the first level where none is), by bisection.
    private func last(_ field: KeyPath<Level, Int>, atMost value: Int) -> Int {
        var low = 0, high = levels.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if levels[middle][keyPath: field] <= value { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
