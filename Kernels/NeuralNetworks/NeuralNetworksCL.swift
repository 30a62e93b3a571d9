// The OpenCL C sources of NeuralNetworks, embedded in the binary at build time by the EmbedKernels plugin, which
// declares `NeuralNetworksCL` with one byte array per `.cl` file of this folder: only NeuralNetworks reads them.
