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
// fraction; the column tables are padded to a multiple of 8. Each work-item blends eight neighbouring
// output pixels in vector lanes (CPU drivers compile the lanes to SIMD; the per-pixel version stayed scalar).
// It exists only in programs built for a vector width of 8 (its schedule's).
#if VECTOR_WIDTH == 8
#ifdef PIXEL_FLOAT
#define STORE8(v) (v)
typedef float8 pixel8;
#else
#define STORE8(v) convert_uchar8_sat_rte(v)
typedef uchar8 pixel8;
#endif
#define GATHER8(p, i) (float8)((float)(p)[(i).s0], (float)(p)[(i).s1], (float)(p)[(i).s2], (float)(p)[(i).s3], \
                               (float)(p)[(i).s4], (float)(p)[(i).s5], (float)(p)[(i).s6], (float)(p)[(i).s7])

__kernel void resize_bilinear(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int inHeight,
                              int outWidth, int outHeight, __global const int* columns, __global const float* columnWeights,
                              __global const int* rows, __global const float* rowWeights) {
    int x = get_global_id(0) * 8, y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* p = src + (size_t)plane * inHeight * inWidth;
    int16 pairs = vload16(0, columns + 2 * x);
    int8 xa = pairs.even, xb = pairs.odd;
    __global const PIXEL* top = p + (size_t)rows[2 * y] * inWidth;
    __global const PIXEL* bottom = p + (size_t)rows[2 * y + 1] * inWidth;
    float8 ax = vload8(0, columnWeights + x);
    float ay = rowWeights[y];
    float8 upper = (1.0f - ax) * GATHER8(top, xa) + ax * GATHER8(top, xb);
    float8 lower = (1.0f - ax) * GATHER8(bottom, xa) + ax * GATHER8(bottom, xb);
    pixel8 out = STORE8((1.0f - ay) * upper + ay * lower);
    __global PIXEL* row = dst + ((size_t)plane * outHeight + y) * outWidth + x;
    if (x + 8 <= outWidth) {
        vstore8(out, 0, row);
    } else {
        PIXEL lanes[8];
        vstore8(out, 0, lanes);
        for (int i = 0; x + i < outWidth; ++i) row[i] = lanes[i];
    }
}
#endif

// The output is the part of the resized planes from (offsetX, offsetY) on.
__kernel void resize_area(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int inHeight,
                          int outWidth, int outHeight, float scaleX, float scaleY, float inverseArea,
                          int offsetX, int offsetY) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    __global const PIXEL* p = src + (size_t)plane * inHeight * inWidth;
    int rx = x + offsetX, ry = y + offsetY;
    float x0 = (float)rx * scaleX, x1 = fmin((float)(rx + 1) * scaleX, (float)inWidth);
    float y0 = (float)ry * scaleY, y1 = fmin((float)(ry + 1) * scaleY, (float)inHeight);
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

// Bilinear into an atlas: regions (x, y, width, height in `regions`) of the output hold the source resized
// to their sizes, with resize_bilinear's arithmetic; region r's column tables start at entry
// columnStarts[r] of `columns` and `columnWeights` (as resize_bilinear's, each padded to a multiple of 8),
// its row tables at rowTableStarts[r]. Pixels outside every region are 0. The regions crossing atlas row y
// are rowRegions[rowStarts[y] ..< rowStarts[y + 1]]. One launch for a whole pyramid, so that its levels
// share one buffer (and one integral image). VECTOR_WIDTH neighbouring pixels of a row per work-item,
// blended in vector lanes where all are in one region.

// The region crossing atlas row y that holds column x, or -1.
int atlas_region(int x, int y, __global const int* regions, __global const int* rowStarts, __global const int* rowRegions) {
    for (int i = rowStarts[y]; i < rowStarts[y + 1]; ++i) {
        int r = rowRegions[i], rx = x - regions[4 * r];
        if (rx >= 0 && rx < regions[4 * r + 2]) return r;
    }
    return -1;
}

__kernel void resize_atlas(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int outWidth, int outHeight,
                           __global const int* regions, __global const int* columnStarts, __global const int* columns,
                           __global const float* columnWeights, __global const int* rowTableStarts,
                           __global const int* rows, __global const float* rowWeights, __global const int* rowStarts,
                           __global const int* rowRegions) {
    int x = get_global_id(0) * VECTOR_WIDTH, y = get_global_id(1);
    if (x >= outWidth || y >= outHeight) return;
    __global PIXEL* out = dst + (size_t)y * outWidth;
#if VECTOR_WIDTH == 8
    int r = atlas_region(x, y, regions, rowStarts, rowRegions);
    if (r >= 0 && x + 8 <= regions[4 * r] + regions[4 * r + 2]) {
        int rx = x - regions[4 * r], ry = rowTableStarts[r] + y - regions[4 * r + 1];
        int16 pairs = vload16(0, columns + 2 * (columnStarts[r] + rx));
        int8 xa = pairs.even, xb = pairs.odd;
        __global const PIXEL* top = src + (size_t)rows[2 * ry] * inWidth;
        __global const PIXEL* bottom = src + (size_t)rows[2 * ry + 1] * inWidth;
        float8 ax = vload8(0, columnWeights + columnStarts[r] + rx);
        float ay = rowWeights[ry];
        float8 upper = (1.0f - ax) * GATHER8(top, xa) + ax * GATHER8(top, xb);
        float8 lower = (1.0f - ax) * GATHER8(bottom, xa) + ax * GATHER8(bottom, xb);
        vstore8(STORE8((1.0f - ay) * upper + ay * lower), 0, out + x);
        return;
    }
#endif
    for (int px = x; px < min(x + VECTOR_WIDTH, outWidth); ++px) {
        int r = atlas_region(px, y, regions, rowStarts, rowRegions);
        if (r < 0) {
            out[px] = 0;
            continue;
        }
        int c = columnStarts[r] + px - regions[4 * r], ry = rowTableStarts[r] + y - regions[4 * r + 1];
        __global const PIXEL* top = src + (size_t)rows[2 * ry] * inWidth;
        __global const PIXEL* bottom = src + (size_t)rows[2 * ry + 1] * inWidth;
        float ax = columnWeights[c], ay = rowWeights[ry];
        float upper = (1.0f - ax) * (float)top[columns[2 * c]] + ax * (float)top[columns[2 * c + 1]];
        float lower = (1.0f - ax) * (float)bottom[columns[2 * c]] + ax * (float)bottom[columns[2 * c + 1]];
        out[px] = STORE((1.0f - ay) * upper + ay * lower);
    }
}
