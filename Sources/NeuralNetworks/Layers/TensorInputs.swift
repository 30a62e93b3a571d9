import ImageKernels

extension Filter {
    /// The inputs' descriptors, checked to be `count` non-empty float tensors.
    func tensorInputs(_ inputs: [ImageDescriptor], count: Int) throws(RenderError) -> [ImageDescriptor] {
        guard inputs.count == count else {
            throw .invalidInput(filter: name, reason: "takes \(count) inputs, got \(inputs.count)")
        }
        for input in inputs {
            guard input.elementType == .float32 else {
                throw .invalidInput(filter: name, reason: "takes float tensors, got \(input)")
            }
            guard input.elementCount > 0 else { throw .invalidInput(filter: name, reason: "input \(input) is empty") }
        }
        return inputs
    }
}

extension ImageDescriptor {
    /// Whether this parameter image holds `count` values, one per channel (any shape of one plane).
    func holds(_ count: Int) -> Bool {
        planeCount == 1 && planePixelCount == count
    }
}
