// Two NCHW tensors of one batch and plane size stacked along channels: a's channels, then b's.

__kernel void channel_concat(__global const float* a, __global const float* b, __global float* dst, int spatial,
                             int aChannels, int bChannels, int batch) {
    int i = get_global_id(0), plane = get_global_id(1);
    int channels = aChannels + bChannels;
    if (i >= spatial || plane >= batch * channels) return;
    int n = plane / channels, c = plane - n * channels;
    float value = c < aChannels ? a[((size_t)n * aChannels + c) * spatial + i]
                                : b[((size_t)n * bChannels + c - aChannels) * spatial + i];
    dst[(size_t)plane * spatial + i] = value;
}
