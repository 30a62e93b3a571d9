// The OpenCL C sources of FaceRecognition, embedded in the binary at build time by the EmbedKernels plugin, which
// declares `FaceRecognitionCL` with one byte array per `.cl` file of this folder: only FaceRecognition reads them.
