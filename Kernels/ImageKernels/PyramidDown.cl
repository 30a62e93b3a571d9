// One level down an image pyramid, as dlib's pyramid_down<2>: a 5×5 binomial filter ([1 4 6 4 1] each
// way, summed in integers) sampled every other pixel, divided by 256 rounding down. Output pixel (x, y)
// covers input columns 2x…2x+4 and rows 2y…2y+4; the output is ((width − 3) / 2) × ((height − 3) / 2).

__constant uint pyramid_down_taps[5] = {1, 4, 6, 4, 1};

__kernel void pyramid_down(__global const uchar* src, __global uchar* dst, int width, int height, int outWidth,
                           int outHeight) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const uchar* p = src + (size_t)plane * width * height + (size_t)(2 * y) * width + 2 * x;
    uint sum = 0;
    for (int i = 0; i < 5; ++i) {
        uint row = 0;
        for (int j = 0; j < 5; ++j) row += pyramid_down_taps[j] * p[i * width + j];
        sum += pyramid_down_taps[i] * row;
    }
    dst[((size_t)plane * outHeight + y) * outWidth + x] = (uchar)(sum / 256);
}
