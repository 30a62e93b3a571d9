// Boosted-cascade evaluation of detection windows, with OpenCV's semantics, one work-item per window.
// The model arrives packed: `ints` and `floats` hold its arrays, `layout` their offsets (see
// CascadeDetection.swift). Result per window: 0 rejected by the first stage, 1 rejected later, 2 accepted
// (OpenCV skips the next window after a first-stage rejection; the host replays that).
// Contraction is off and divides and square roots are correctly rounded (build option), so the CPU
// twin reaches the same decisions bit for bit.
#pragma OPENCL FP_CONTRACT OFF

enum { STAGE_COUNT, STAGE_STARTS, NODE_STARTS, LEAF_STARTS, NODE_FEATURES, NODE_LEFT, NODE_RIGHT, NODE_SUBSETS,
       LBP_RECTS, STAGE_THRESHOLDS, NODE_THRESHOLDS, LEAVES, HAAR_RECTS };

// Sum of the rectangle [x0, x1) × [y0, y1) of the window whose integral origin is p.
int cascade_sum(__global const uint* p, int stride, int x0, int y0, int x1, int y1) {
    return (int)(p[y1 * stride + x1] - p[y0 * stride + x1] - p[y1 * stride + x0] + p[y0 * stride + x0]);
}

#ifdef LBP
// OpenCV's LBP feature: the 3×3 grid of cells of size w×h at (x, y); bit set where a cell's sum >= the centre's.
int cascade_feature_code(__global const uint* p, int stride, __global const int* rect) {
    int x = rect[0], y = rect[1], w = rect[2], h = rect[3];
    int s[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            s[r * 3 + c] = cascade_sum(p, stride, x + c * w, y + r * h, x + (c + 1) * w, y + (r + 1) * h);
    int centre = s[4];
    return (s[0] >= centre) << 7 | (s[1] >= centre) << 6 | (s[2] >= centre) << 5 | (s[5] >= centre) << 4
         | (s[8] >= centre) << 3 | (s[7] >= centre) << 2 | (s[6] >= centre) << 1 | (s[3] >= centre);
}
#else
// OpenCV's Haar feature: weighted sums of up to three rectangles.
float cascade_feature_value(__global const uint* p, int stride, __global const float* rects) {
    float value = rects[4] * (float)cascade_sum(p, stride, (int)rects[0], (int)rects[1],
                                                (int)(rects[0] + rects[2]), (int)(rects[1] + rects[3]))
                + rects[9] * (float)cascade_sum(p, stride, (int)rects[5], (int)rects[6],
                                                (int)(rects[5] + rects[7]), (int)(rects[6] + rects[8]));
    if (rects[14] != 0.0f)
        value += rects[14] * (float)cascade_sum(p, stride, (int)rects[10], (int)rects[11],
                                                (int)(rects[10] + rects[12]), (int)(rects[11] + rects[13]));
    return value;
}
#endif

__kernel void cascade_detect(__global const uint* sums, __global const uint* squares, __global const int* ints,
                             __global const float* floats, __global const int* layout, __global uchar* results,
                             int stride, int windowsX, int windowsY, int step, int windowWidth, int windowHeight) {
    int wx = get_global_id(0), wy = get_global_id(1);
    if (wx >= windowsX || wy >= windowsY) return;
    __global const uint* p = sums + (size_t)(wy * step) * stride + wx * step;
    __global uchar* result = results + (size_t)wy * windowsX + wx;
#ifdef LBP
    (void)squares;
#else
    // Normalisation by the standard deviation over the inner window (1, 1, W - 2, H - 2); windows of
    // standard deviation below 10 are rejected outright, as OpenCV does.
    __global const uint* q = squares + (size_t)(wy * step) * stride + wx * step;
    long area = (long)(windowWidth - 2) * (windowHeight - 2);
    long sum = cascade_sum(p, stride, 1, 1, windowWidth - 1, windowHeight - 1);
    long squareSum = (long)(q[(windowHeight - 1) * stride + windowWidth - 1] - q[stride + windowWidth - 1]
                            - q[(windowHeight - 1) * stride + 1] + q[stride + 1]);
    long spread = area * squareSum - sum * sum;
    if (spread <= 0) { *result = 0; return; }
    float norm = 1.0f / sqrt((float)spread);
    if (!((float)area * norm < 0.1f)) { *result = 0; return; }
#endif
    __global const int* stageStarts = ints + layout[STAGE_STARTS];
    __global const int* nodeStarts = ints + layout[NODE_STARTS];
    __global const int* leafStarts = ints + layout[LEAF_STARTS];
    __global const int* nodeFeatures = ints + layout[NODE_FEATURES];
    __global const int* nodeLeft = ints + layout[NODE_LEFT];
    __global const int* nodeRight = ints + layout[NODE_RIGHT];
    __global const float* leaves = floats + layout[LEAVES];
    __global const float* stageThresholds = floats + layout[STAGE_THRESHOLDS];
    for (int s = 0; s < layout[STAGE_COUNT]; ++s) {
        float total = 0.0f;
        for (int c = stageStarts[s]; c < stageStarts[s + 1]; ++c) {
            int node = nodeStarts[c], child;
            for (;;) {
                int feature = nodeFeatures[node];
#ifdef LBP
                int code = cascade_feature_code(p, stride, ints + layout[LBP_RECTS] + 4 * feature);
                __global const int* subset = ints + layout[NODE_SUBSETS] + 8 * node;
                child = (subset[code >> 5] & (1 << (code & 31))) ? nodeLeft[node] : nodeRight[node];
#else
                float value = cascade_feature_value(p, stride, floats + layout[HAAR_RECTS] + 15 * feature) * norm;
                child = value < floats[layout[NODE_THRESHOLDS] + node] ? nodeLeft[node] : nodeRight[node];
#endif
                if (child <= 0) break;
                node = nodeStarts[c] + child;
            }
            total += leaves[leafStarts[c] - child];
        }
        if (total < stageThresholds[s]) { *result = s == 0 ? 0 : 1; return; }
    }
    *result = 2;
}
