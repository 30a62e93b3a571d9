// Resizing. Bilinear: OpenCV's half-pixel centres, source point ((x + 0.5) sx - 0.5, ...), borders
// replicated. Area: each output pixel averages the source rectangle [x sx, (x + 1) sx) × [y sy, (y + 1) sy),
// partial pixels weighted by their covered fraction. UInt8 results are rounded to nearest even.
#pragma OPENCL FP_CONTRACT OFF

#ifdef PIXEL_FLOAT
#define STORE(v) (v)
#else
#define STORE(v) convert_uchar_sat_rte(v)
#endif

// Bilinear: each output column's two source columns and weight (and each row's) come from the host,
// which works them out once per resize: (x + 0.5) sx - 0.5, its floor clamped to the plane and the
// fraction; no per-pixel floor or clamp here.
__kernel void resize_bilinear(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int inHeight,
                              int outWidth, int outHeight, __global const int* columns, __global const float* columnWeights,
                              __global const int* rows, __global const float* rowWeights) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* p = src + (size_t)plane * inHeight * inWidth;
    int xa = columns[2 * x], xb = columns[2 * x + 1];
    size_t ra = (size_t)rows[2 * y] * inWidth, rb = (size_t)rows[2 * y + 1] * inWidth;
    float ax = columnWeights[x], ay = rowWeights[y];
    float top = (1.0f - ax) * (float)p[ra + xa] + ax * (float)p[ra + xb];
    float bottom = (1.0f - ax) * (float)p[rb + xa] + ax * (float)p[rb + xb];
    float v = (1.0f - ay) * top + ay * bottom;
    dst[((size_t)plane * outHeight + y) * outWidth + x] = STORE(v);
}

__kernel void resize_area(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int inHeight,
                          int outWidth, int outHeight, float scaleX, float scaleY, float inverseArea) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* p = src + (size_t)plane * inHeight * inWidth;
    float x0 = (float)x * scaleX, x1 = fmin((float)(x + 1) * scaleX, (float)inWidth);
    float y0 = (float)y * scaleY, y1 = fmin((float)(y + 1) * scaleY, (float)inHeight);
    int ix0 = (int)floor(x0), ix1 = min((int)ceil(x1), inWidth);
    int iy0 = (int)floor(y0), iy1 = min((int)ceil(y1), inHeight);
    float sum = 0.0f;
    for (int iy = iy0; iy < iy1; ++iy) {
        float wy = fmin((float)(iy + 1), y1) - fmax((float)iy, y0);
        float row = 0.0f;
        for (int ix = ix0; ix < ix1; ++ix) {
            float wx = fmin((float)(ix + 1), x1) - fmax((float)ix, x0);
            row += wx * (float)p[(size_t)iy * inWidth + ix];
        }
        sum += wy * row;
    }
    dst[((size_t)plane * outHeight + y) * outWidth + x] = STORE(sum * inverseArea);
}
