// Difference of Gaussians G(sigma1) - G(sigma2): the column passes of both blurs and the difference
// in one kernel, over the two row-blurred images (gaussian_rows in GaussianBlur.cl).

__kernel void dog_columns(__global const float* narrow, __global const float* wide, __global float* dst,
                          __constant float* narrowWeights, int narrowRadius,
                          __constant float* wideWeights, int wideRadius, int width, int height) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= width || y >= height) return;
    size_t base = (size_t)plane * height * width + x;
    float a = 0.0f, b = 0.0f;
    for (int k = -narrowRadius; k <= narrowRadius; ++k)
        a += narrowWeights[k + narrowRadius] * narrow[base + (size_t)clamp(y + k, 0, height - 1) * width];
    for (int k = -wideRadius; k <= wideRadius; ++k)
        b += wideWeights[k + wideRadius] * wide[base + (size_t)clamp(y + k, 0, height - 1) * width];
    dst[base + (size_t)y * width] = a - b;
}
