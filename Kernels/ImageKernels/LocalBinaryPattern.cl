// Local binary patterns; the output plane is smaller than the input by the radius on every side.
// Codes pass through a 256-entry mapping (identity, or the uniform-pattern labels).
// Contraction is off so that the bilinear samples of lbp_circular round as the CPU twin's do.
#pragma OPENCL FP_CONTRACT OFF

// 3×3: bit 7 top-left, 6 top, 5 top-right, 4 right, 3 bottom-right, 2 bottom, 1 bottom-left, 0 left;
// a neighbour >= the centre sets its bit.
__kernel void lbp_basic(__global const PIXEL* src, __global uchar* dst, __constant uchar* mapping,
                        int inWidth, int inHeight, int outWidth, int outHeight) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* c = src + ((size_t)plane * inHeight + y + 1) * inWidth + x + 1;
    float v = c[0];
    int code = ((float)c[-inWidth - 1] >= v) << 7 | ((float)c[-inWidth] >= v) << 6
             | ((float)c[-inWidth + 1] >= v) << 5 | ((float)c[1] >= v) << 4
             | ((float)c[inWidth + 1] >= v) << 3 | ((float)c[inWidth] >= v) << 2
             | ((float)c[inWidth - 1] >= v) << 1 | ((float)c[-1] >= v);
    dst[((size_t)plane * outHeight + y) * outWidth + x] = mapping[code];
}

// Circular LBP(P, R) as OpenCV's LBPH computes it: neighbour n at (R cos 2πn/P, -R sin 2πn/P), sampled
// bilinearly from its four pixels (offsets: fy, fx, cy, cx; weights: w1..w4 per neighbour);
// bit n is set when the sample is > the centre or within FLT_EPSILON of it.
__kernel void lbp_circular(__global const PIXEL* src, __global uchar* dst, __constant uchar* mapping,
                           __constant int* offsets, __constant float* weights, int neighbours, int radius,
                           int inWidth, int inHeight, int outWidth, int outHeight) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* c = src + ((size_t)plane * inHeight + y + radius) * inWidth + x + radius;
    float v = c[0];
    int code = 0;
    for (int n = 0; n < neighbours; ++n) {
        int fy = offsets[4 * n], fx = offsets[4 * n + 1], cy = offsets[4 * n + 2], cx = offsets[4 * n + 3];
        float t = weights[4 * n] * (float)c[fy * inWidth + fx] + weights[4 * n + 1] * (float)c[fy * inWidth + cx]
                + weights[4 * n + 2] * (float)c[cy * inWidth + fx] + weights[4 * n + 3] * (float)c[cy * inWidth + cx];
        code |= ((t > v) || (fabs(t - v) < FLT_EPSILON)) << n;
    }
    dst[((size_t)plane * outHeight + y) * outWidth + x] = mapping[code];
}
