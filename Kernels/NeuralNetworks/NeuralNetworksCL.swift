// The OpenCL C sources of NeuralNetworks, embedded in the binary at build time: only NeuralNetworks reads them.

/// Each `.cl` file of this folder, as bytes.
public enum NeuralNetworksCL {
    public static let activation = PackageResources.Activation_cl
    public static let channelAffine = PackageResources.ChannelAffine_cl
    public static let channelConcat = PackageResources.ChannelConcat_cl
    public static let channelsLast = PackageResources.ChannelsLast_cl
    public static let convolution = PackageResources.Convolution_cl
    public static let depthToSpace = PackageResources.DepthToSpace_cl
    public static let fullyConnected = PackageResources.FullyConnected_cl
    public static let l2Normalization = PackageResources.L2Normalization_cl
    public static let pooling = PackageResources.Pooling_cl
    public static let residualAdd = PackageResources.ResidualAdd_cl
}
