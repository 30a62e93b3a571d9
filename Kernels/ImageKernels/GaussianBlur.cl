// Separable Gaussian blur with replicated borders: a pass along rows, then one along columns.
// weights holds 2 * radius + 1 normalised taps.

__kernel void gaussian_rows(__global const float* src, __global float* dst, __constant float* weights,
                            int radius, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= width || y >= height) return;
    size_t row = ((size_t)plane * height + y) * width;
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k)
        sum += weights[k + radius] * src[row + clamp(x + k, 0, width - 1)];
    dst[row + x] = sum;
}

__kernel void gaussian_columns(__global const float* src, __global float* dst, __constant float* weights,
                               int radius, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= width || y >= height) return;
    __global const float* column = src + (size_t)plane * height * width + x;
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k)
        sum += weights[k + radius] * column[(size_t)clamp(y + k, 0, height - 1) * width];
    dst[((size_t)plane * height + y) * width + x] = sum;
}
