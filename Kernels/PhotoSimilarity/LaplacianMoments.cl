// The first two moments of each uint8 plane's 3 × 3 Laplacian (4-neighbour: up + down + left + right −
// 4 · centre) over its interior pixels, row by row: work-item (row, plane) writes Σ L and Σ L² of interior
// row row + 1, two floats. L is a whole number, so both sums are kept exactly in integers and rounded once
// to float: the same on every device however the sums are ordered (the CPU twin adds sixteen columns at a
// time). The variance of the Laplacian measures sharpness: blur lowers it.

__kernel void laplacian_moments(__global const uchar* src, __global float* dst, int width, int height, int planes) {
    int row = get_global_id(0), plane = get_global_id(1);
    if (row >= height - 2 || plane >= planes) return;
    __global const uchar* p = src + ((size_t)plane * height + row + 1) * width;
    long sum = 0, squares = 0;
    for (int x = 1; x < width - 1; ++x) {
        int l = (int)p[x - width] + (int)p[x + width] + (int)p[x - 1] + (int)p[x + 1] - 4 * (int)p[x];
        sum += l;
        squares += (long)(l * l);
    }
    __global float* out = dst + ((size_t)plane * (height - 2) + row) * 2;
    out[0] = (float)sum;
    out[1] = (float)squares;
}
