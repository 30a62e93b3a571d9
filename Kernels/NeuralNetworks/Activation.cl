// Element-wise activations of NCHW tensors: ReLU, min(max(x, 0), ceiling) (ceiling infinity, or 6 for
// ReLU6), and PReLU, x ≥ 0 ? x : slope[c] · x with a slope per channel.

__kernel void activation_relu(__global const float* src, __global float* dst, int count, float ceiling) {
    int i = get_global_id(0);
    if (i < count) dst[i] = fmin(fmax(src[i], 0.0f), ceiling);
}

__kernel void activation_prelu(__global const float* src, __global float* dst, __global const float* slopes,
                               int spatial, int channels, int planes) {
    int i = get_global_id(0), plane = get_global_id(1);
    if (i >= spatial || plane >= planes) return;
    size_t index = (size_t)plane * spatial + i;
    float value = src[index];
    dst[index] = value >= 0.0f ? value : slopes[plane % channels] * value;
}
