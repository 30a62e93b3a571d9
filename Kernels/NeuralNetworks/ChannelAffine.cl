// y = x · scale[c] + shift[c] per channel c of an NCHW tensor (batch norm folded for inference),
// optionally clamped at zero (a fused ReLU).

__kernel void channel_affine(__global const float* src, __global float* dst, __global const float* scale,
                             __global const float* shift, int spatial, int channels, int planes, int relu) {
    int i = get_global_id(0), plane = get_global_id(1);
    if (i >= spatial || plane >= planes) return;
    int c = plane % channels;
    size_t index = (size_t)plane * spatial + i;
    float value = src[index] * scale[c] + shift[c];
    dst[index] = relu ? fmax(value, 0.0f) : value;
}
