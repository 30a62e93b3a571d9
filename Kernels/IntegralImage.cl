// Integral images in OpenCV's layout: (W + 1) × (H + 1) per plane, first row and column 0, entry (x, y)
// the sum of the pixels above and to the left of it (of their squares with SQUARED). Sums are 32-bit and
// wrap modulo 2^32 as OpenCV's do; differences over any window that fits in 32 bits stay exact.
// Two passes: prefix sums along each row, then down each column, in place.

__kernel void integral_rows(__global const uchar* src, __global uint* dst, int width, int height) {
    int y = get_global_id(0), plane = get_global_id(1);
    if (y > height) return;
    __global uint* out = dst + ((size_t)plane * (height + 1) + y) * (width + 1);
    out[0] = 0;
    if (y == 0) {
        for (int x = 1; x <= width; ++x) out[x] = 0;
        return;
    }
    __global const uchar* row = src + ((size_t)plane * height + y - 1) * width;
    uint sum = 0;
    for (int x = 0; x < width; ++x) {
        uint v = row[x];
#ifdef SQUARED
        sum += v * v;
#else
        sum += v;
#endif
        out[x + 1] = sum;
    }
}

__kernel void integral_columns(__global uint* dst, int width, int height) {
    int x = get_global_id(0), plane = get_global_id(1);
    if (x > width) return;
    __global uint* column = dst + (size_t)plane * (height + 1) * (width + 1) + x;
    uint sum = 0;
    for (int y = 1; y <= height; ++y) {
        sum += column[(size_t)y * (width + 1)];
        column[(size_t)y * (width + 1)] = sum;
    }
}
