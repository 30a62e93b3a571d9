// Integral images in OpenCV's layout: (W + 1) × (H + 1) per plane, first row and column 0. Sums are
// 32-bit and wrap modulo 2^32 as OpenCV's do; differences over any window that fits in 32 bits stay exact.
// Upright sums (of squares with SQUARED): prefix sums along each row (one work-item a row, or on GPUs a
// work-group a row), then down each column, in place (neighbouring columns read neighbouring addresses).
// Tilted sums, entry (X, Y) = sum of pixels (x, y) with y < Y and |x − X + 1| ≤ Y − y − 1 (the 45° triangle
// above pixel (X − 1, Y − 1)): with row prefix sums R(y, k) (k clamped to [0, W]),
//   T(X, Y) = Σ_{y<Y} R(y, X + Y − 1 − y) − Σ_{y<Y} R(y, X − Y + y),
// two prefix sums along diagonals, one work-item per diagonal, every entry written by one work-item.

// CPU shape: one work-item per row.
// GPU shape: a work-group of GROUP_SIZE_0 work-items per row (the launch covers (height + 1) ×
// GROUP_SIZE_0), scanning GROUP_SIZE_0 pixels at a time in local memory (Hillis–Steele) with coalesced
// reads and writes, the running total carried from one stretch to the next. Sums wrap as in the CPU shape.
__kernel void integral_rows(__global const uchar* src, __global uint* dst, int width, int height) {
#ifndef COOPERATIVE   // CPU shape: a work-item a row
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
#else                 // GPU shape: a work-group a row
    int x = get_local_id(0), y = get_group_id(0), plane = get_global_id(1);
    __local uint scan[GROUP_SIZE_0];
    __global uint* out = dst + ((size_t)plane * (height + 1) + y) * (width + 1);
    __global const uchar* row = src + ((size_t)plane * height + max(y - 1, 0)) * width;
    if (x == 0) out[0] = 0;
    uint carry = 0;
    for (int start = 0; start < width; start += GROUP_SIZE_0) {
        uint v = y > 0 && start + x < width ? row[start + x] : 0;
#ifdef SQUARED
        v *= v;
#endif
        scan[x] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int offset = 1; offset < GROUP_SIZE_0; offset <<= 1) {
            uint before = x >= offset ? scan[x - offset] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            scan[x] += before;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (start + x < width) out[start + x + 1] = carry + scan[x];
        carry += scan[GROUP_SIZE_0 - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif                // COOPERATIVE
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

// One diagonal of the tilted sums: `rows` holds the row prefix sums in the integral layout (row y + 1 is
// R(y, ·)). With ANTI the diagonal is X + Y − 1 = d − 1 and its sums are stored; otherwise it is
// X − Y = d − height and its sums are subtracted.
__kernel void integral_tilted(__global const uint* rows, __global uint* dst, int width, int height) {
    int d = get_global_id(0), plane = get_global_id(1);
    if (d > width + height) return;
    size_t base = (size_t)plane * (height + 1) * (width + 1);
    uint sum = 0;
    for (int y = 0; y <= height; ++y) {
#ifdef ANTI
        int x = d - y, k = d - 1 - y;
#else
        int x = d - height + y, k = x;
#endif
        if (x >= 0 && x <= width) {
#ifdef ANTI
            dst[base + (size_t)y * (width + 1) + x] = sum;
#else
            dst[base + (size_t)y * (width + 1) + x] -= sum;
#endif
        }
        if (y < height) sum += rows[base + (size_t)(y + 1) * (width + 1) + clamp(k, 0, width)];
    }
}
