import ImageKernels

/// Every kernel of NeuralNetworks, for checks that must cover them all (each signature against its source).
public enum NeuralNetworksLibrary {
    public static let kernels: [any KernelDeclaration] = [
        Activation.rectifier, Activation.parametricRectifier,
        ChannelAffine.kernel,
        ChannelConcat.kernel,
        ChannelsLast.kernel,
        Convolution.im2col, Convolution.gemm, Convolution.sharedGemm, Convolution.direct, Convolution.depthwise,
        DepthToSpace.kernel,
        FullyConnected.kernel,
        L2Normalization.kernel,
        Pooling.kernel,
        ResidualAdd.kernel,
        SeparableConvolution.kernel, SeparableConvolution.pointwise,
    ]
}
