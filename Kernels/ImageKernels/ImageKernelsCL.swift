// The OpenCL C sources of ImageKernels, embedded in the binary at build time by the EmbedKernels plugin, which
// declares `ImageKernelsCL` with one byte array per `.cl` file of this folder: only ImageKernels reads them.
