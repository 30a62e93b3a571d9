// Boosted-cascade evaluation of detection windows, with OpenCV's semantics, over every level of a pyramid
// in one launch: the levels are regions of one atlas, whose integral images the kernels read. Two shapes:
// - CPU shape (cascade_detect): one window per work-item, or (built with VECTOR_WIDTH 8) eight
//   neighbouring windows per work-item in vector lanes; work-items over (windows of a row, rows of all levels).
// - GPU shape: cascade_early runs the first `split` stages (those too small to fill a work-group) a window
//   a work-item over all windows and appends the survivors to a list; cascade_late evaluates the remaining
//   stages of each survivor with a work-group, a classifier a work-item (groups loop over the list, so the
//   launch needs no count from the host).
// The model arrives packed: `ints` and `floats` hold its arrays, `layout` their offsets (see
// CascadeEvaluation.swift), `offsets` each feature's integral-image corners for the atlas's stride
// (Haar: 3 rectangles × 4 corners; LBP: the 4 × 4 corners of its 3 × 3 cells); `levels` each level's
// LEVEL_FIELDS ints. Result per window, levels one after another, rows of windows in order: 0 rejected by
// the first stage, 1 rejected later, 2 accepted (OpenCV skips the next window after a first-stage
// rejection; the host replays that).
// Contraction is off, divides and square roots are correctly rounded (build option), and every stage sums
// its classifiers in order in every shape, so the CPU twin reaches the same decisions bit for bit.
#pragma OPENCL FP_CONTRACT OFF

enum { STAGE_COUNT, STAGE_STARTS, NODE_STARTS, LEAF_STARTS, NODE_FEATURES, NODE_LEFT, NODE_RIGHT, NODE_SUBSETS,
       FEATURE_TILTED, STAGE_THRESHOLDS, NODE_THRESHOLDS, LEAVES, RECT_WEIGHTS };
// A level: its region's origin in the atlas, its windows across and down, their step, and its first row of
// windows and first window in the flattened order of all levels.
enum { LEVEL_X, LEVEL_Y, LEVEL_WINDOWS_X, LEVEL_WINDOWS_Y, LEVEL_STEP, LEVEL_FIRST_ROW, LEVEL_FIRST_WINDOW, LEVEL_FIELDS };

// The packed model's parts, declared where they are used from `ints`, `floats` and `layout`: the weak
// classifiers', the stages' (besides), and the Haar features'.
#define CLASSIFIER_PARTS \
    __global const int* nodeStarts = ints + layout[NODE_STARTS]; \
    __global const int* leafStarts = ints + layout[LEAF_STARTS]; \
    __global const int* nodeFeatures = ints + layout[NODE_FEATURES]; \
    __global const int* nodeLeft = ints + layout[NODE_LEFT]; \
    __global const int* nodeRight = ints + layout[NODE_RIGHT]; \
    __global const float* leaves = floats + layout[LEAVES];
#define STAGE_PARTS \
    __global const int* stageStarts = ints + layout[STAGE_STARTS]; \
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


// The level holding flattened row (field LEVEL_FIRST_ROW) or window (LEVEL_FIRST_WINDOW) `index`.
__global const int* cascade_level(__global const int* levels, int levelCount, int field, int index) {
    int level = 0;
    while (level + 1 < levelCount && levels[(level + 1) * LEVEL_FIELDS + field] <= index) ++level;
    return levels + level * LEVEL_FIELDS;
}

// A window's first integral entry: its level's origin plus its place in the level's grid.
size_t cascade_origin(__global const int* level, int wx, int wy, int stride) {
    return (size_t)(level[LEVEL_Y] + wy * level[LEVEL_STEP]) * stride + level[LEVEL_X] + wx * level[LEVEL_STEP];
}

#ifndef LBP
// 1 / (area · standard deviation) over the inner window (1, 1, W - 2, H - 2), or 0 where OpenCV rejects
// the window outright (no spread, or a standard deviation below 10).
float cascade_norm(__global const uint* p, __global const uint* q, int stride, int windowWidth, int windowHeight) {
    int inner[4] = { stride + 1, stride + windowWidth - 1, (windowHeight - 1) * stride + 1,
                     (windowHeight - 1) * stride + windowWidth - 1 };
    long area = (long)(windowWidth - 2) * (windowHeight - 2);
    long sum = CORNER_SUM(p, inner);
    long squareSum = (long)(q[inner[0]] - q[inner[1]] - q[inner[2]] + q[inner[3]]);
    long spread = area * squareSum - sum * sum;
    if (spread <= 0) return 0.0f;
    float norm = 1.0f / sqrt((float)spread);
    return (float)area * norm < 0.1f ? norm : 0.0f;
}
#endif

// The leaf that weak classifier `c` reaches for the window at `p` (Haar: `t` its tilted sums, `norm` its
// normalisation).
float cascade_leaf(int c, __global const uint* p, __global const uint* t, float norm, __global const int* ints,
                   __global const float* floats, __global const int* layout, __global const int* offsets) {
    CLASSIFIER_PARTS
#ifdef LBP
    (void)t; (void)norm;
#else
    HAAR_PARTS
#endif
    int node = nodeStarts[c], child;
    for (;;) {
        int feature = nodeFeatures[node];
#ifdef LBP
        int code = cascade_feature_code(p, offsets + 16 * feature);
        __global const int* subset = ints + layout[NODE_SUBSETS] + 8 * node;
        child = (subset[code >> 5] & (1 << (code & 31))) ? nodeLeft[node] : nodeRight[node];
#else
        float value = cascade_feature_value(featureTilted[feature] ? t : p, offsets + 12 * feature, weights + 3 * feature) * norm;
        child = value < nodeThresholds[node] ? nodeLeft[node] : nodeRight[node];
#endif
        if (child <= 0) break;
        node = nodeStarts[c] + child;
    }
    return leaves[leafStarts[c] - child];
}

// The outcome of the window at `origin` over stages [first, last): 0 rejected by stage 0 (or outright),
// 1 rejected by a later one, 2 through the cascade's last stage, 3 through `last` with stages left.
uchar cascade_window(size_t origin, int first, int last, __global const uint* sums, __global const uint* squares,
                     __global const uint* tilted, __global const int* ints, __global const float* floats,
                     __global const int* layout, __global const int* offsets, int stride, int windowWidth, int windowHeight) {
    __global const uint* p = sums + origin;
#ifdef LBP
    (void)squares; (void)tilted; (void)stride; (void)windowWidth; (void)windowHeight;
    __global const uint* t = p;
    float norm = 1.0f;
#else
    __global const uint* t = tilted + origin;
    float norm = cascade_norm(p, squares + origin, stride, windowWidth, windowHeight);
    if (norm == 0.0f) return 0;
#endif
    STAGE_PARTS
    for (int s = first; s < last; ++s) {
        float total = 0.0f;
        for (int c = stageStarts[s]; c < stageStarts[s + 1]; ++c) total += cascade_leaf(c, p, t, norm, ints, floats, layout, offsets);
        if (total < stageThresholds[s]) return s == 0 ? 0 : 1;
    }
    return last < stageCount ? 3 : 2;
}

#define CASCADE_MODEL sums, squares, tilted, ints, floats, layout, offsets

#if VECTOR_WIDTH == 1
__kernel void cascade_detect(__global const uint* sums, __global const uint* squares, __global const uint* tilted,
                             __global const int* ints, __global const float* floats, __global const int* layout,
                             __global const int* offsets, __global const int* levels, int levelCount,
                             __global uchar* results, int stride, int windowWidth, int windowHeight) {
    int wx = get_global_id(0), row = get_global_id(1);
    __global const int* level = cascade_level(levels, levelCount, LEVEL_FIRST_ROW, row);
    int wy = row - level[LEVEL_FIRST_ROW];
    if (wx >= level[LEVEL_WINDOWS_X] || wy >= level[LEVEL_WINDOWS_Y]) return;
    results[level[LEVEL_FIRST_WINDOW] + wy * level[LEVEL_WINDOWS_X] + wx] =
        cascade_window(cascade_origin(level, wx, wy, stride), 0, layout[STAGE_COUNT], CASCADE_MODEL, stride, windowWidth, windowHeight);
}

// GPU shape, first part: the first `split` stages, a window a work-item over all `windowCount` windows;
// survivors (outcome 3 for now) are appended to `survivors` after its count (survivors[0], reset to 0 by
// cascade_reset before).
__kernel void cascade_early(__global const uint* sums, __global const uint* squares, __global const uint* tilted,
                            __global const int* ints, __global const float* floats, __global const int* layout,
                            __global const int* offsets, __global const int* levels, int levelCount,
                            __global uchar* results, __global uint* survivors, int stride, int windowWidth,
                            int windowHeight, int windowCount, int split) {
    int w = get_global_id(0);
    if (w >= windowCount) return;
    __global const int* level = cascade_level(levels, levelCount, LEVEL_FIRST_WINDOW, w);
    int index = w - level[LEVEL_FIRST_WINDOW], wx = index % level[LEVEL_WINDOWS_X], wy = index / level[LEVEL_WINDOWS_X];
    uchar outcome = cascade_window(cascade_origin(level, wx, wy, stride), 0, split, CASCADE_MODEL, stride, windowWidth, windowHeight);
    results[w] = outcome;
    if (outcome == 3) survivors[1 + atomic_inc(survivors)] = w;
}

__kernel void cascade_reset(__global uint* survivors) {
    if (get_global_id(0) == 0) survivors[0] = 0;
}
#elif VECTOR_WIDTH == 8
// The same evaluation for eight neighbouring windows per work-item in vector lanes, for OpenCL devices
// that are CPUs (their compilers turn float8/uint8 into SIMD instructions, which a divergent
// one-window kernel never becomes). Stump cascades only (every weak classifier one node). The last
// group of a row overlaps the one before it so that all eight lanes are real windows; levels less than
// eight windows wide are evaluated a window at a time.

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
                             __global const int* offsets, __global const int* levels, int levelCount,
                             __global uchar* results, int stride, int windowWidth, int windowHeight) {
    int group = get_global_id(0), row = get_global_id(1);
    __global const int* level = cascade_level(levels, levelCount, LEVEL_FIRST_ROW, row);
    int windowsX = level[LEVEL_WINDOWS_X], wy = row - level[LEVEL_FIRST_ROW], step = level[LEVEL_STEP];
    if (group * 8 >= windowsX || wy >= level[LEVEL_WINDOWS_Y]) return;
    results += level[LEVEL_FIRST_WINDOW] + wy * windowsX;
    if (windowsX < 8) {   // a level too narrow for the lanes: its windows one by one
        for (int wx = 0; wx < windowsX; ++wx) {
            results[wx] = cascade_window(cascade_origin(level, wx, wy, stride), 0, layout[STAGE_COUNT], CASCADE_MODEL, stride,
                                         windowWidth, windowHeight);
        }
        return;
    }
    int wx = min(group * 8, windowsX - 8);
    size_t origin = cascade_origin(level, wx, wy, stride);
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
    CLASSIFIER_PARTS
    STAGE_PARTS
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
            // A vector comparison is -1 (every bit) where true: masked, it is the code's bit.
            int8 code = ((CELL(0) >= centre) & 128) | ((CELL(1) >= centre) & 64) | ((CELL(2) >= centre) & 32)
                      | ((CELL(6) >= centre) & 16) | ((CELL(10) >= centre) & 8) | ((CELL(9) >= centre) & 4)
                      | ((CELL(8) >= centre) & 2) | ((CELL(4) >= centre) & 1);
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
    vstore8(convert_uchar8(outcome), 0, results + wx);
}
#else
#error "cascade_detect takes 1 or 8 windows per work-item"
#endif

#ifdef COOPERATIVE
// GPU shape, second part: stages `split` onwards for each survivor, a work-group of GROUP_SIZE_0 a window:
// each work-item takes a classifier of a stage (GROUP_SIZE_0 at a time), and the first sums their leaves
// in order, so that totals are the CPU shape's bit for bit. Groups take survivors in turn.
__kernel void cascade_late(__global const uint* sums, __global const uint* squares, __global const uint* tilted,
                           __global const int* ints, __global const float* floats, __global const int* layout,
                           __global const int* offsets, __global const int* levels, int levelCount,
                           __global uchar* results, __global uint* survivors, int stride, int windowWidth,
                           int windowHeight, int windowCount, int split) {
    __local float values[GROUP_SIZE_0];
    __local int rejected;
    int lane = get_local_id(0);
    (void)windowCount;
    STAGE_PARTS
    uint count = survivors[0];
    for (uint i = get_group_id(0); i < count; i += get_num_groups(0)) {
        int w = survivors[1 + i];
        __global const int* level = cascade_level(levels, levelCount, LEVEL_FIRST_WINDOW, w);
        int index = w - level[LEVEL_FIRST_WINDOW];
        size_t origin = cascade_origin(level, index % level[LEVEL_WINDOWS_X], index / level[LEVEL_WINDOWS_X], stride);
        __global const uint* p = sums + origin;
#ifdef LBP
        (void)squares; (void)tilted; (void)windowWidth; (void)windowHeight;
        __global const uint* t = p;
        float norm = 1.0f;
#else
        __global const uint* t = tilted + origin;
        float norm = cascade_norm(p, squares + origin, stride, windowWidth, windowHeight);
#endif
        uchar outcome = 2;
        for (int s = split; s < stageCount && outcome == 2; ++s) {
            float total = 0.0f;
            for (int chunk = stageStarts[s]; chunk < stageStarts[s + 1]; chunk += GROUP_SIZE_0) {
                int n = min(GROUP_SIZE_0, stageStarts[s + 1] - chunk);
                if (lane < n) values[lane] = cascade_leaf(chunk + lane, p, t, norm, ints, floats, layout, offsets);
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lane == 0) for (int k = 0; k < n; ++k) total += values[k];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lane == 0) rejected = total < stageThresholds[s];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (rejected) outcome = 1;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0) results[w] = outcome;
    }
}
#endif
