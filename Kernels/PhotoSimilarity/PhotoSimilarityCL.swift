// The OpenCL C sources of PhotoSimilarity, embedded in the binary at build time by the EmbedKernels plugin, which
// declares `PhotoSimilarityCL` with one byte array per `.cl` file of this folder: only PhotoSimilarity reads them.
