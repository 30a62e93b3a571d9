// Each batch item's tensor divided by its Euclidean norm (items of norm zero stay zero).

__kernel void l2_normalization(__global const float* src, __global float* dst, int count, int batch) {
    int n = get_global_id(0);
    if (n >= batch) return;
    __global const float* x = src + (size_t)n * count;
    float sum = 0.0f;
    for (int i = 0; i < count; ++i) sum = fma(x[i], x[i], sum);
    float scale = sum > 0.0f ? 1.0f / sqrt(sum) : 0.0f;
    for (int i = 0; i < count; ++i) dst[(size_t)n * count + i] = x[i] * scale;
}
