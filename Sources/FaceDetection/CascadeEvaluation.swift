import FaceDetectionCL
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
        for part in [model.stageClassifierStarts, model.classifierNodeStarts, model.classifierLeafStarts, model.nodeFeatures,
                     model.nodeLeft, model.nodeRight, model.nodeSubsets, model.haarTilted.map(Int32.init)] {
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
            try PixelBuffer(descriptor: ImageDescriptor(width: max(ints.count, 1), height: 1, elementType: .uint32),
                            bytes: (ints.isEmpty ? [0] : ints).withUnsafeBytes { Array($0) }))
        self.floats = try context.makeResidentImage(try PixelBuffer(width: max(floats.count, 1), height: 1,
                                                                   values: floats.isEmpty ? [0] : floats))
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
                let (x, y, w, h) = (model.lbpRects[feature * 4], model.lbpRects[feature * 4 + 1],
                                    model.lbpRects[feature * 4 + 2], model.lbpRects[feature * 4 + 3])
                for row in Int32(0)...3 { for column in Int32(0)...3 { corners.append((x + column * w, y + row * h)) } }
            }
        }
        return corners
    }
}

/// Evaluates a cascade at every window of one pyramid level: inputs are the level's integral image, its
/// squared and tilted integral images (Haar; the plain one stands in where unused) and the packed model;
/// output per window 0 (rejected by the first stage), 1 (rejected later) or 2 (accepted).
struct CascadeEvaluation: Filter {
    let cascade: PackedCascade
    let windowsX: Int
    let windowsY: Int
    let step: Int

    var name: String { "cascade \(cascade.model.featureType.rawValue)" }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 5, inputs[0].elementType == .uint32, inputs[0].width == inputs[1].width,
              inputs[0].width == inputs[2].width, windowsX > 0, windowsY > 0,
              (windowsX - 1) * step + cascade.model.windowWidth < inputs[0].width,
              (windowsY - 1) * step + cascade.model.windowHeight < inputs[0].height else {
            throw .invalidInput(filter: name, reason: "windows do not fit the integral image")
        }
        return ImageDescriptor(width: windowsX, height: windowsY, elementType: .uint8)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let kernel = cascade.model.featureType == .lbp ? Self.lbp : Self.haar
        let stride = encoder.inputs[0].descriptor.width
        // Eight windows per work-item where the schedule asks for it, for stump cascades with rows of ≥ 8 windows.
        var schedule = encoder.schedule(for: kernel)
        if !cascade.isStumps || windowsX < 8 { schedule.vectorWidth = 1 }
        try encoder.launch(kernel, Arguments(sums: .init(encoder.inputs[0]), squares: .init(encoder.inputs[1]),
                                             tilted: .init(encoder.inputs[2]), ints: .init(encoder.inputs[3]),
                                             floats: .init(encoder.inputs[4]), layout: cascade.layout,
                                             offsets: cascade.cornerOffsets(stride: stride), results: .init(encoder.output),
                                             stride: Int32(stride), windowsX: Int32(windowsX), windowsY: Int32(windowsY),
                                             step: Int32(step), windowWidth: Int32(cascade.model.windowWidth),
                                             windowHeight: Int32(cascade.model.windowHeight)),
                           over: [windowsX, windowsY], schedule: schedule)
    }

    struct Arguments: KernelArguments {
        var sums: KernelBuffer<UInt32>
        var squares: KernelBuffer<UInt32>
        var tilted: KernelBuffer<UInt32>
        var ints: KernelBuffer<Int32>
        var floats: KernelBuffer<Float>
        var layout: [Int32]
        var offsets: [Int32]
        var results: KernelMutableBuffer<UInt8>
        var stride: Int32
        var windowsX: Int32
        var windowsY: Int32
        var step: Int32
        var windowWidth: Int32
        var windowHeight: Int32
    }

    static let source = KernelSource(name: "CascadeEvaluation", bytes: FaceDetectionCL.cascadeEvaluation)
    static let haar = kernel(lbp: false), lbp = kernel(lbp: true)

    /// Eight windows per work-item on the CPU device and OpenCL CPUs (their compilers turn the lanes into
    /// SIMD instructions, which a divergent one-window kernel never becomes); one on GPUs.
    static let schedules = KernelSchedules(cpu: KernelSchedule(workGroup: [1, 1], vectorWidth: 8),
                                           openCLCPU: KernelSchedule(workGroup: [16, 4], vectorWidth: 8),
                                           openCLGPU: KernelSchedule(workGroup: [16, 4], vectorWidth: 1))

    /// The kernel and its twin: the kernel's arithmetic in the same order, one row of windows per task,
    /// eight neighbouring windows at a time in SIMD lanes where the schedule's vector width is 8.
    private static func kernel(lbp: Bool) -> Kernel<Arguments> {
        Kernel("cascade_detect", in: source, options: (lbp ? "-DLBP " : "") + "-cl-fp32-correctly-rounded-divide-sqrt",
               schedules: schedules) { arguments, grid in
            let windowsX = Int(arguments.windowsX), lanes = grid.schedule.vectorWidth == 8
            CPUParallel.forEachRange(Int(arguments.windowsY)) { rows in
                // Models have features (the loader refuses others), so the corner table is never empty.
                arguments.offsets.withUnsafeBufferPointer { table in
                    guard let offsets = table.baseAddress else { return }
                    let evaluator = WindowEvaluator(arguments, offsets: offsets, lbp: lbp)
                    let results = arguments.results.elements
                    for wy in rows {
                        let row = results + wy * windowsX
                        var wx = 0
                        if lanes {
                            while wx < windowsX {
                                let first = min(wx, windowsX - 8)
                                let outcomes = evaluator.evaluateEight(wx: first, wy: wy)
                                for lane in 0..<8 { row[first + lane] = outcomes[lane] }
                                wx = first + 8
                            }
                        }
                        while wx < windowsX {
                            row[wx] = evaluator.evaluate(wx: wx, wy: wy)
                            wx += 1
                        }
                    }
                }
            }
        }
    }
}
