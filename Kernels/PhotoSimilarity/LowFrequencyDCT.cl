// The count × count lowest frequencies of each uint8 plane's 2-D DCT-II, unnormalised:
// C[u][v] = Σy Σx p[y][x] · cos(π u (2y + 1) / 2h) · cos(π v (2x + 1) / 2w), for perceptual hashes.
// Work-item (v, u, plane) forms one coefficient, a row's sum at a time.

__kernel void dct_low_frequencies(__global const uchar* src, __global float* dst, int width, int height, int count,
                                  int planes) {
    int v = get_global_id(0), u = get_global_id(1), plane = get_global_id(2);
    if (v >= count || u >= count || plane >= planes) return;
    __global const uchar* p = src + (size_t)plane * width * height;
    float sum = 0.0f;
    for (int y = 0; y < height; ++y) {
        float row = 0.0f;
        for (int x = 0; x < width; ++x) row += (float)p[y * width + x] * cospi((float)(v * (2 * x + 1)) / (float)(2 * width));
        sum += row * cospi((float)(u * (2 * y + 1)) / (float)(2 * height));
    }
    dst[((size_t)plane * count + u) * count + v] = sum;
}
