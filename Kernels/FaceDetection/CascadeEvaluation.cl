// Boosted-cascade evaluation of detection windows, with OpenCV's semantics: one window per work-item, or
// (built with VECTOR_WIDTH 8) eight neighbouring windows per work-item in vector lanes.
// The model arrives packed: `ints` and `floats` hold its arrays, `layout` their offsets (see
// CascadeEvaluation.swift), `offsets` each feature's integral-image corners for this level's stride
// (Haar: 3 rectangles × 4 corners; LBP: the 4 × 4 corners of its 3 × 3 cells). Result per window:
// 0 rejected by the first stage, 1 rejected later, 2 accepted (OpenCV skips the next window after a
// first-stage rejection; the host replays that).
// Contraction is off and divides and square roots are correctly rounded (build option), so the CPU
// twin reaches the same decisions bit for bit.
#pragma OPENCL FP_CONTRACT OFF

enum { STAGE_COUNT, STAGE_STARTS, NODE_STARTS, LEAF_STARTS, NODE_FEATURES, NODE_LEFT, NODE_RIGHT, NODE_SUBSETS,
       FEATURE_TILTED, STAGE_THRESHOLDS, NODE_THRESHOLDS, LEAVES, RECT_WEIGHTS };

// The packed model's parts, declared in each kernel from `ints`, `floats` and `layout`.
#define CASCADE_PARTS \
    __global const int* stageStarts = ints + layout[STAGE_STARTS]; \
    __global const int* nodeStarts = ints + layout[NODE_STARTS]; \
    __global const int* leafStarts = ints + layout[LEAF_STARTS]; \
    __global const int* nodeFeatures = ints + layout[NODE_FEATURES]; \
    __global const int* nodeLeft = ints + layout[NODE_LEFT]; \
    __global const int* nodeRight = ints + layout[NODE_RIGHT]; \
    __global const float* leaves = floats + layout[LEAVES]; \
    __global const float* stageThresholds = floats + layout[STAGE_THRESHOLDS]; \
    int stageCount = layout[STAGE_COUNT];
#define HAAR_PARTS \
    __global const int* featureTilted = ints + layout[FEATURE_TILTED]; \
    __global const float* weights = floats + layout[RECT_WEIGHTS]; \
    __global const float* nodeThresholds = floats + layout[NODE_THRESHOLDS];

// The sum of a rectangle (upright or tilted) from its four corners.
#define CORNER_SUM(p, o) ((int)((p)[(o)[0]] - (p)[(o)[1]] - (p)[(o)[2]] + (p)[(o)[3]]))

#ifdef LBP
// OpenCV's LBP feature: bit set where an outer cell's sum >= the centre's (128 top-left, clockwise, 1 left).
int cascade_feature_code(__global const uint* p, __global const int* o) {
    int s[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            s[r * 3 + c] = (int)(p[o[r * 4 + c]] - p[o[r * 4 + c + 1]] - p[o[r * 4 + c + 4]] + p[o[r * 4 + c + 5]]);
    int centre = s[4];
    return (s[0] >= centre) << 7 | (s[1] >= centre) << 6 | (s[2] >= centre) << 5 | (s[5] >= centre) << 4
         | (s[8] >= centre) << 3 | (s[7] >= centre) << 2 | (s[6] >= centre) << 1 | (s[3] >= centre);
}
#else
// OpenCV's Haar feature: weighted sums of two or three rectangles.
float cascade_feature_value(__global const uint* p, __global const int* o, __global const float* weights) {
    float value = weights[0] * (float)CORNER_SUM(p, o) + weights[1] * (float)CORNER_SUM(p, o + 4);
    if (weights[2] != 0.0f) value += weights[2] * (float)CORNER_SUM(p, o + 8);
    return value;
}
#endif

#if VECTOR_WIDTH == 1
__kernel void cascade_detect(__global const uint* sums, __global const uint* squares, __global const uint* tilted,
                             __global const int* ints, __global const float* floats, __global const int* layout,
                             __global const int* offsets, __global uchar* results, int stride, int windowsX,
                             int windowsY, int step, int windowWidth, int windowHeight) {
    int wx = get_global_id(0), wy = get_global_id(1);
    if (wx >= windowsX || wy >= windowsY) return;
    size_t origin = (size_t)(wy * step) * stride + wx * step;
    __global const uint* p = sums + origin;
    __global uchar* result = results + (size_t)wy * windowsX + wx;
#ifdef LBP
    (void)squares; (void)tilted;
#else
    // Normalisation by the standard deviation over the inner window (1, 1, W - 2, H - 2); windows of
    // standard deviation below 10 are rejected outright, as OpenCV does.
    __global const uint* q = squares + origin;
    __global const uint* t = tilted + origin;
    int inner[4] = { stride + 1, stride + windowWidth - 1, (windowHeight - 1) * stride + 1,
                     (windowHeight - 1) * stride + windowWidth - 1 };
    long area = (long)(windowWidth - 2) * (windowHeight - 2);
    long sum = CORNER_SUM(p, inner);
    long squareSum = (long)(q[inner[0]] - q[inner[1]] - q[inner[2]] + q[inner[3]]);
    long spread = area * squareSum - sum * sum;
    if (spread <= 0) { *result = 0; return; }
    float norm = 1.0f / sqrt((float)spread);
    if (!((float)area * norm < 0.1f)) { *result = 0; return; }
    HAAR_PARTS
#endif
    CASCADE_PARTS
    for (int s = 0; s < stageCount; ++s) {
        float total = 0.0f;
        for (int c = stageStarts[s]; c < stageStarts[s + 1]; ++c) {
            int node = nodeStarts[c], child;
            for (;;) {
                int feature = nodeFeatures[node];
#ifdef LBP
                int code = cascade_feature_code(p, offsets + 16 * feature);
                __global const int* subset = ints + layout[NODE_SUBSETS] + 8 * node;
                child = (subset[code >> 5] & (1 << (code & 31))) ? nodeLeft[node] : nodeRight[node];
#else
                float value = cascade_feature_value(featureTilted[feature] ? t : p, offsets + 12 * feature,
                                                    weights + 3 * feature) * norm;
                child = value < nodeThresholds[node] ? nodeLeft[node] : nodeRight[node];
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

#elif VECTOR_WIDTH == 8
// The same evaluation for eight neighbouring windows per work-item in vector lanes, for OpenCL devices
// that are CPUs (their compilers turn float8/uint8 into SIMD instructions, which a divergent
// one-window kernel never becomes). Stump cascades only (every weak classifier one node). The last
// group of a row overlaps the one before it so that all eight lanes are real windows (windowsX >= 8).

// Integral entries at corner offset o for the eight windows, `step` apart, without reading past the last.
uint8 cascade_load8(__global const uint* p, int o, int step) {
    if (step == 1) return vload8(0, p + o);
    uint8 low = vload8(0, p + o), high = vload8(0, p + o + 7);
    return (uint8)(low.even, high.odd);
}

#define CORNER_SUM8(p, o, step) as_int8(cascade_load8(p, (o)[0], step) - cascade_load8(p, (o)[1], step) \
                                        - cascade_load8(p, (o)[2], step) + cascade_load8(p, (o)[3], step))

__kernel void cascade_detect(__global const uint* sums, __global const uint* squares, __global const uint* tilted,
                             __global const int* ints, __global const float* floats, __global const int* layout,
                             __global const int* offsets, __global uchar* results, int stride, int windowsX,
                             int windowsY, int step, int windowWidth, int windowHeight) {
    int group = get_global_id(0), wy = get_global_id(1);
    if (group * 8 >= windowsX || wy >= windowsY) return;
    int wx = min(group * 8, windowsX - 8);
    size_t origin = (size_t)(wy * step) * stride + wx * step;
    __global const uint* p = sums + origin;
    int8 outcome = 2, alive = -1;
#ifdef LBP
    (void)squares; (void)tilted;
#else
    __global const uint* q = squares + origin;
    __global const uint* t = tilted + origin;
    int inner[4] = { stride + 1, stride + windowWidth - 1, (windowHeight - 1) * stride + 1,
                     (windowHeight - 1) * stride + windowWidth - 1 };
    long area = (long)(windowWidth - 2) * (windowHeight - 2);
    long8 sum = convert_long8(CORNER_SUM8(p, inner, step));
    long8 squareSum = convert_long8(cascade_load8(q, inner[0], step) - cascade_load8(q, inner[1], step)
                                    - cascade_load8(q, inner[2], step) + cascade_load8(q, inner[3], step));
    float8 spread = convert_float8(area * squareSum - sum * sum);
    float8 norm = 1.0f / sqrt(spread);
    alive = (spread > 0.0f) & ((float)area * norm < 0.1f);
    outcome = select(outcome, (int8)0, ~alive);
    HAAR_PARTS
#endif
    CASCADE_PARTS
    for (int s = 0; s < stageCount && any(alive); ++s) {
        float8 total = 0.0f;
        for (int c = stageStarts[s]; c < stageStarts[s + 1]; ++c) {
            int node = nodeStarts[c], feature = nodeFeatures[node];
#ifdef LBP
            __global const int* o = offsets + 16 * feature;
            uint8 k[16];
            for (int i = 0; i < 16; ++i) k[i] = cascade_load8(p, o[i], step);
#define CELL(i) as_int8(k[i] - k[(i) + 1] - k[(i) + 4] + k[(i) + 5])
            int8 centre = CELL(5);
            int8 code = (CELL(0) >= centre & 128) | (CELL(1) >= centre & 64) | (CELL(2) >= centre & 32)
                      | (CELL(6) >= centre & 16) | (CELL(10) >= centre & 8) | (CELL(9) >= centre & 4)
                      | (CELL(8) >= centre & 2) | (CELL(4) >= centre & 1);
#undef CELL
            // Each lane's subset word picked by a shuffle and its bit by a per-lane shift: no lane-by-lane loads.
            int8 words = shuffle(vload8(0, ints + layout[NODE_SUBSETS] + 8 * node), as_uint8(code >> 5));
            int8 goesLeft = ((words >> (code & 31)) & 1) != 0;
#else
            __global const int* o = offsets + 12 * feature;
            __global const float* w = weights + 3 * feature;
            __global const uint* image = featureTilted[feature] ? t : p;
            float8 value = w[0] * convert_float8(CORNER_SUM8(image, o, step)) + w[1] * convert_float8(CORNER_SUM8(image, o + 4, step));
            if (w[2] != 0.0f) value += w[2] * convert_float8(CORNER_SUM8(image, o + 8, step));
            int8 goesLeft = value * norm < nodeThresholds[node];
#endif
            total += select((float8)leaves[leafStarts[c] - nodeRight[node]], (float8)leaves[leafStarts[c] - nodeLeft[node]], goesLeft);
        }
        int8 failed = (total < stageThresholds[s]) & alive;
        outcome = select(outcome, (int8)(s == 0 ? 0 : 1), failed);
        alive &= ~failed;
    }
    vstore8(convert_uchar8(outcome), 0, results + (size_t)wy * windowsX + wx);
}
#else
#error "cascade_detect takes 1 or 8 windows per work-item"
#endif
