import ImageKernels
import Kernels

/// A cascade model packed into two device-resident arrays, ints and floats, plus the offsets of its
/// parts (the `layout` the kernel reads).
struct PackedCascade: Sendable {
    let model: CascadeModel
    let ints: ResidentImage
    let floats: ResidentImage
    let layout: [Int32]

    init(_ model: CascadeModel, context: RenderContext) throws(RenderError) {
        var ints: [Int32] = [], floats: [Float] = [], layout: [Int32] = [Int32(model.stageCount)]
        for part in [model.stageClassifierStarts, model.classifierNodeStarts, model.classifierLeafStarts, model.nodeFeatures,
                     model.nodeLeft, model.nodeRight, model.nodeSubsets, model.lbpRects] {
            layout.append(Int32(ints.count))
            ints += part
        }
        for part in [model.stageThresholds, model.nodeThresholds, model.leaves, model.haarRects] {
            layout.append(Int32(floats.count))
            floats += part
        }
        self.model = model
        self.layout = layout
        self.ints = try context.makeResidentImage(
            try PixelBuffer(descriptor: ImageDescriptor(width: max(ints.count, 1), height: 1, elementType: .uint32),
                            bytes: (ints.isEmpty ? [0] : ints).withUnsafeBytes { Array($0) }))
        self.floats = try context.makeResidentImage(try PixelBuffer(width: max(floats.count, 1), height: 1,
                                                                   values: floats.isEmpty ? [0] : floats))
    }
}

/// Evaluates a cascade at every window of one pyramid level: inputs are the level's integral image, its
/// squared integral image (Haar) and the packed model; output per window 0 (rejected by the first stage),
/// 1 (rejected later) or 2 (accepted).
struct CascadeEvaluation: Filter {
    let cascade: PackedCascade
    let windowsX: Int
    let windowsY: Int
    let step: Int

    var name: String { "cascade \(cascade.model.featureType.rawValue)" }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 4, inputs[0].elementType == .uint32, windowsX > 0, windowsY > 0,
              (windowsX - 1) * step + cascade.model.windowWidth < inputs[0].width,
              (windowsY - 1) * step + cascade.model.windowHeight < inputs[0].height else {
            throw .invalidInput(filter: name, reason: "windows do not fit the integral image")
        }
        return ImageDescriptor(width: windowsX, height: windowsY, elementType: .uint8)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let lbp = cascade.model.featureType == .lbp
        let kernel = Kernel(.cascadeDetect, options: (lbp ? "-DLBP " : "") + "-cl-fp32-correctly-rounded-divide-sqrt",
                            cpu: lbp ? Self.cpuTwin(lbp: true) : Self.cpuTwin(lbp: false))
        try encoder.launch(kernel, [.image(encoder.inputs[0]), .image(encoder.inputs[1]), .image(encoder.inputs[2]),
                                    .image(encoder.inputs[3]), .ints(cascade.layout), .image(encoder.output),
                                    .int(encoder.inputs[0].descriptor.width), .int(windowsX), .int(windowsY), .int(step),
                                    .int(cascade.model.windowWidth), .int(cascade.model.windowHeight)],
                           globalSize: [windowsX, windowsY], localSize: [16, 4])
    }

    /// The CPU twin: the kernel's arithmetic in the same order, one row of windows per task.
    private static func cpuTwin(lbp: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let stride = invocation.int(6), windowsX = invocation.int(7), windowsY = invocation.int(8)
            let step = invocation.int(9), windowWidth = invocation.int(10), windowHeight = invocation.int(11)
            CPUParallel.forEachRange(windowsY) { rows in
                let sums = invocation.pointer(0, as: UInt32.self), squares = invocation.pointer(1, as: UInt32.self)
                let ints = invocation.pointer(2, as: Int32.self), floats = invocation.pointer(3, as: Float.self)
                let layout = invocation.pointer(4, as: Int32.self), results = invocation.pointer(5, as: UInt8.self)
                let model = Model(ints: ints, floats: floats, layout: layout)
                for wy in rows {
                    for wx in 0..<windowsX {
                        let origin = (wy * step) * stride + wx * step
                        results[wy * windowsX + wx] = model.evaluate(
                            sums + origin, squares: lbp ? nil : squares + origin, stride: stride,
                            windowWidth: windowWidth, windowHeight: windowHeight)
                    }
                }
            }
        }
    }

    /// The packed model as the CPU twin reads it.
    private struct Model {
        let ints: UnsafeMutablePointer<Int32>
        let floats: UnsafeMutablePointer<Float>
        let layout: UnsafeMutablePointer<Int32>

        func part(_ index: Int) -> Int { Int(layout[index]) }

        @inline(__always)
        func sum(_ p: UnsafeMutablePointer<UInt32>, _ stride: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Int32 {
            Int32(bitPattern: p[y1 * stride + x1] &- p[y0 * stride + x1] &- p[y1 * stride + x0] &+ p[y0 * stride + x0])
        }

        /// 0 rejected by the first stage, 1 rejected later, 2 accepted; `squares` is nil for LBP models.
        func evaluate(_ p: UnsafeMutablePointer<UInt32>, squares q: UnsafeMutablePointer<UInt32>?, stride: Int,
                      windowWidth: Int, windowHeight: Int) -> UInt8 {
            var norm: Float = 1
            if let q {
                let area = Int64(windowWidth - 2) * Int64(windowHeight - 2)
                let total = Int64(sum(p, stride, 1, 1, windowWidth - 1, windowHeight - 1))
                let squareSum = Int64(q[(windowHeight - 1) * stride + windowWidth - 1] &- q[stride + windowWidth - 1]
                                      &- q[(windowHeight - 1) * stride + 1] &+ q[stride + 1])
                let spread = area * squareSum - total * total
                guard spread > 0 else { return 0 }
                norm = 1 / Float(spread).squareRoot()
                guard Float(area) * norm < 0.1 else { return 0 }
            }
            let stageStarts = ints + part(1), nodeStarts = ints + part(2), leafStarts = ints + part(3)
            let nodeFeatures = ints + part(4), nodeLeft = ints + part(5), nodeRight = ints + part(6)
            let leaves = floats + part(11), stageThresholds = floats + part(9)
            for s in 0..<part(0) {
                var total: Float = 0
                for c in Int(stageStarts[s])..<Int(stageStarts[s + 1]) {
                    var node = Int(nodeStarts[c]), child: Int32
                    while true {
                        let feature = Int(nodeFeatures[node])
                        if q == nil {
                            let code = lbpCode(p, stride, ints + part(8) + 4 * feature)
                            let subset = ints + part(7) + 8 * node
                            child = subset[code >> 5] & (1 << Int32(code & 31)) != 0 ? nodeLeft[node] : nodeRight[node]
                        } else {
                            let value = haarValue(p, stride, floats + part(12) + 15 * feature) * norm
                            child = value < floats[part(10) + node] ? nodeLeft[node] : nodeRight[node]
                        }
                        if child <= 0 { break }
                        node = Int(nodeStarts[c]) + Int(child)
                    }
                    total += leaves[Int(leafStarts[c]) - Int(child)]
                }
                if total < stageThresholds[s] { return s == 0 ? 0 : 1 }
            }
            return 2
        }

        @inline(__always)
        func haarValue(_ p: UnsafeMutablePointer<UInt32>, _ stride: Int, _ r: UnsafeMutablePointer<Float>) -> Float {
            func rect(_ i: Int) -> Float {
                Float(sum(p, stride, Int(r[i]), Int(r[i + 1]), Int(r[i] + r[i + 2]), Int(r[i + 1] + r[i + 3])))
            }
            var value = r[4] * rect(0) + r[9] * rect(5)
            if r[14] != 0 { value += r[14] * rect(10) }
            return value
        }

        @inline(__always)
        func lbpCode(_ p: UnsafeMutablePointer<UInt32>, _ stride: Int, _ rect: UnsafeMutablePointer<Int32>) -> Int {
            let x = Int(rect[0]), y = Int(rect[1]), w = Int(rect[2]), h = Int(rect[3])
            func cell(_ column: Int, _ row: Int) -> Int32 {
                sum(p, stride, x + column * w, y + row * h, x + (column + 1) * w, y + (row + 1) * h)
            }
            let centre = cell(1, 1)
            var code = 0
            if cell(0, 0) >= centre { code |= 128 }
            if cell(1, 0) >= centre { code |= 64 }
            if cell(2, 0) >= centre { code |= 32 }
            if cell(2, 1) >= centre { code |= 16 }
            if cell(2, 2) >= centre { code |= 8 }
            if cell(1, 2) >= centre { code |= 4 }
            if cell(0, 2) >= centre { code |= 2 }
            if cell(0, 1) >= centre { code |= 1 }
            return code
        }
    }
}
