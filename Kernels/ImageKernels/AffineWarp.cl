// Affine resampling with bilinear interpolation. For output pixel (x, y) the source point is
// (m0 x + m1 y + m2, m3 x + m4 y + m5) in pixel-index coordinates. Outside the source, borders are
// replicated (border 0) or read as 0 (border 1); with border 2 a pixel whose 2×2 neighbourhood leaves the
// source is 0 (dlib's transform_image). UInt8 results are rounded to nearest even, or down when truncate
// is set (dlib's chips).
// Contraction is off so that results round exactly as the CPU twin's do.
#pragma OPENCL FP_CONTRACT OFF

float affine_warp_pixel(__global const PIXEL* plane, int width, int height, int x, int y, int zeroBorder) {
    if (zeroBorder && (x < 0 || y < 0 || x >= width || y >= height)) return 0.0f;
    return (float)plane[(size_t)clamp(y, 0, height - 1) * width + clamp(x, 0, width - 1)];
}

float affine_warp_sample(__global const PIXEL* plane, int width, int height, float sx, float sy, int zeroBorder) {
    float fx = floor(sx), fy = floor(sy);
    int x0 = (int)fx, y0 = (int)fy;
    float ax = sx - fx, ay = sy - fy;
    float a = affine_warp_pixel(plane, width, height, x0, y0, zeroBorder);
    float b = affine_warp_pixel(plane, width, height, x0 + 1, y0, zeroBorder);
    float c = affine_warp_pixel(plane, width, height, x0, y0 + 1, zeroBorder);
    float d = affine_warp_pixel(plane, width, height, x0 + 1, y0 + 1, zeroBorder);
    float top = (1.0f - ax) * a + ax * b;
    float bottom = (1.0f - ax) * c + ax * d;
    return (1.0f - ay) * top + ay * bottom;
}

#ifdef PIXEL_FLOAT
#define STORE(v) (v)
#else
#define STORE(v) (truncate ? convert_uchar_sat_rtz(v) : convert_uchar_sat_rte(v))
#endif

__kernel void affine_warp(__global const PIXEL* src, __global PIXEL* dst, __constant float* m,
                              int inWidth, int inHeight, int outWidth, int outHeight, int border, int truncate) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    float fx = (float)x, fy = (float)y;
    float sx = m[0] * fx + m[1] * fy + m[2];
    float sy = m[3] * fx + m[4] * fy + m[5];
    float v = 0.0f;
    if (border != 2 || (sx >= 0.0f && sy >= 0.0f && floor(sx) + 1.0f < (float)inWidth && floor(sy) + 1.0f < (float)inHeight))
        v = affine_warp_sample(src + (size_t)plane * inHeight * inWidth, inWidth, inHeight, sx, sy, border == 1);
    dst[((size_t)plane * outHeight + y) * outWidth + x] = STORE(v);
}
