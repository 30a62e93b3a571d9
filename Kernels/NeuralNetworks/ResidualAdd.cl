// The sum of two NCHW tensors, a residual connection: the output has the larger of each dimension and
// the smaller tensor reads as zero where it has no element (dlib's add_prev rule), optionally clamped at
// zero (a fused ReLU).

float residual_add_read(__global const float* t, int b, int c, int y, int x, int channels, int height, int width) {
    if (c >= channels || y >= height || x >= width) return 0.0f;
    return t[(((size_t)b * channels + c) * height + y) * width + x];
}

__kernel void residual_add(__global const float* a, __global const float* b, __global float* dst,
                           int aChannels, int aHeight, int aWidth, int bChannels, int bHeight, int bWidth,
                           int channels, int height, int width, int batch, int relu) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= width || y >= height || plane >= batch * channels) return;
    int n = plane / channels, c = plane - n * channels;
    float value = residual_add_read(a, n, c, y, x, aChannels, aHeight, aWidth)
                + residual_add_read(b, n, c, y, x, bChannels, bHeight, bWidth);
    dst[((size_t)plane * height + y) * width + x] = relu ? fmax(value, 0.0f) : value;
}
