// The OpenCL C sources of FaceDetection, embedded in the binary at build time by the EmbedKernels plugin, which
// declares `FaceDetectionCL` with one byte array per `.cl` file of this folder: only FaceDetection reads them.
