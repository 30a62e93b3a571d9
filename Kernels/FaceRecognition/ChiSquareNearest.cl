// The fused, tiled chi-square search: for every gallery face and every active probe block j, the
// chi-square distance to block j of the face (restricted) or the smallest over all of its blocks
// (FULL), or over those within RADIUS grid steps of the probe block on a grid GRID_COLUMNS wide (FULL
// with RADIUS: a neighbourhood NBNN), in one launch. One work-item per face; each covers all probe blocks.
//
// Gallery layout: tiles of LANES faces; within a tile, block-major, then bin, then lane, so the
// work-items of a tile read consecutive addresses. sums holds each gallery block's total.
// The probe arrives sparse: per active block, its nonzero bins (index, value, 1/value).
// With FACE_SUM, each face gets one value, the weighted sum over probe blocks, instead of one per block.
// Only the probe's nonzero bins need a divide: for the symmetric form
//   sum_i (p-g)^2/(p+g) = sum_{p_i>0} (p-g)^2/(p+g) + (sum_i g_i - sum_{p_i>0} g_i),
// and for the asymmetric form sum_{p_i>0} (p-g)^2 / p (terms with p = 0 skipped).

#define LANES 16

// Chi-square distance between the probe block's nonzero bins [first, last) and gallery block g.
float chisquare_block(__global const float* g, float total, int first, int last, __global const int* binIndices,
                      __global const float* values, __global const float* inverses) {
    float terms = 0.0f, covered = 0.0f;
    for (int k = first; k < last; ++k) {
        float p = values[k], v = g[binIndices[k] * LANES];
        float d = p - v;
#ifdef ASYMMETRIC
        terms += d * d * inverses[k];
#else
        terms += d * d / (p + v);
        covered += v;
#endif
    }
#ifdef ASYMMETRIC
    return terms;
#else
    return terms + (total - covered);
#endif
}

// Block distances are stored per (face, probe block), or added with their weights into the face's sum.
void store_distance(__global float* distances, __global const float* weights, int slot, int jj, int probeCount,
                    float d) {
#ifdef FACE_SUM
    if (jj == 0) distances[slot] = 0.0f;
    distances[slot] += weights[jj] * fmax(d, 0.0f);
#else
    distances[(size_t)slot * probeCount + jj] = fmax(d, 0.0f);
#endif
}

__kernel void chisquare_nearest(__global const float* tiles, __global const float* sums,
                                __global const int* probeBlocks, __global const int* starts,
                                __global const int* binIndices, __global const float* values,
                                __global const float* inverses, __global const float* weights,
                                __global float* distances,
                                int probeCount, int blocks, int bins, int slots) {
    int slot = get_global_id(0);
    if (slot >= slots) return;
    int tile = slot / LANES, lane = slot % LANES;
    __global const float* face = tiles + (size_t)tile * blocks * bins * LANES + lane;
    __global const float* faceSums = sums + (size_t)tile * blocks * LANES + lane;
#ifdef FULL
    // Gallery block outside, probe blocks inside: each gallery block is read once per work-item.
    float best[PROBE_COUNT];
    for (int jj = 0; jj < PROBE_COUNT; ++jj) best[jj] = INFINITY;
    for (int b = 0; b < blocks; ++b) {
        __global const float* g = face + (size_t)b * bins * LANES;
        float total = faceSums[b * LANES];
        for (int jj = 0; jj < PROBE_COUNT; ++jj) {
#ifdef RADIUS
            int p = probeBlocks[jj];
            if (abs(p / GRID_COLUMNS - b / GRID_COLUMNS) > RADIUS || abs(p % GRID_COLUMNS - b % GRID_COLUMNS) > RADIUS) continue;
#endif
            best[jj] = fmin(best[jj], chisquare_block(g, total, starts[jj], starts[jj + 1], binIndices, values, inverses));
        }
    }
    for (int jj = 0; jj < PROBE_COUNT; ++jj) store_distance(distances, weights, slot, jj, probeCount, best[jj]);
#else
    for (int jj = 0; jj < probeCount; ++jj) {
        int b = probeBlocks[jj];
        float d = chisquare_block(face + (size_t)b * bins * LANES, faceSums[b * LANES], starts[jj], starts[jj + 1], binIndices, values, inverses);
        store_distance(distances, weights, slot, jj, probeCount, d);
    }
#endif
}
