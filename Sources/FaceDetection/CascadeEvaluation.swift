import ImageKernels
import Kernels

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
        let lbp = cascade.model.featureType == .lbp
        let stride = encoder.inputs[0].descriptor.width
        // OpenCL CPUs take eight windows per work-item in vector lanes (stump cascades, rows of ≥ 8 windows).
        let lanes = cascade.isStumps && windowsX >= 8 && encoder.device.kind == .openCL(.cpu)
        let kernel = Kernel(lanes ? .cascadeDetectLanes : .cascadeDetect,
                            options: (lbp ? "-DLBP " : "") + "-cl-fp32-correctly-rounded-divide-sqrt",
                            cpu: Self.cpuTwin(lbp: lbp, stumps: cascade.isStumps))
        try encoder.launch(kernel, [.image(encoder.inputs[0]), .image(encoder.inputs[1]), .image(encoder.inputs[2]),
                                    .image(encoder.inputs[3]), .image(encoder.inputs[4]), .ints(cascade.layout),
                                    .ints(cascade.cornerOffsets(stride: stride)), .image(encoder.output), .int(stride),
                                    .int(windowsX), .int(windowsY), .int(step),
                                    .int(cascade.model.windowWidth), .int(cascade.model.windowHeight)],
                           globalSize: [lanes ? (windowsX + 7) / 8 : windowsX, windowsY], localSize: [16, 4])
    }

    /// The CPU twin: the kernel's arithmetic in the same order, one row of windows per task; stump
    /// cascades take eight neighbouring windows at a time in SIMD lanes.
    private static func cpuTwin(lbp: Bool, stumps: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let windowsX = invocation.int(9), windowsY = invocation.int(10)
            CPUParallel.forEachRange(windowsY) { rows in
                let evaluator = WindowEvaluator(invocation, lbp: lbp)
                let results = invocation.pointer(7, as: UInt8.self)
                for wy in rows {
                    let row = results + wy * windowsX
                    var wx = 0
                    if stumps && windowsX >= 8 {
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
