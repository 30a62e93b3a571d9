// One sum per histogram block: each row of `width` values is added up in order.

__kernel void block_sum(__global const float* src, __global float* sums, int width, int rows) {
    int row = get_global_id(0);
    if (row >= rows) return;
    __global const float* values = src + (size_t)row * width;
    float sum = 0.0f;
    for (int i = 0; i < width; ++i) sum += values[i];
    sums[row] = sum;
}
