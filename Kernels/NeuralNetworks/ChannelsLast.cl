// An NCHW tensor's elements written in NHWC order (channels innermost) into a region of each batch item's
// output plane: one launch per tensor for TFLite's RESHAPE to rows and CONCATENATION of the rows.

__kernel void channels_last(__global const float* src, __global float* dst, int channels, int spatial, int batch,
                            int dstOffset, int dstPlane) {
    int i = get_global_id(0), c = get_global_id(1), n = get_global_id(2);
    if (i >= spatial || c >= channels || n >= batch) return;
    dst[(size_t)n * dstPlane + dstOffset + (size_t)i * channels + c] = src[((size_t)n * channels + c) * spatial + i];
}
