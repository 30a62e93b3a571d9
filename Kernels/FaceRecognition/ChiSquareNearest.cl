// The fused, tiled chi-square search: for every gallery face and every active probe block j, the
// chi-square distance to block j of the face (restricted) or the smallest over all of its blocks
// (FULL), or over those within RADIUS grid steps of the probe block on a grid GRID_COLUMNS wide (FULL
// with RADIUS: a neighbourhood NBNN), in one launch over the whole gallery. Two shapes:
// - CPU-shaped (default): one work-item per face, covering all probe blocks (PROBE_COUNT of them in
//   registers with FULL), so a CPU compiler turns neighbouring faces into vector lanes.
// - GPU-shaped (COOPERATIVE, a work-group of LANES × GROUP_SIZE_1): a work-group per tile of LANES faces.
//   Each column is a face; each row a strand of probe blocks (row, row + GROUP_SIZE_1, ...), PER_ITEM of
//   them held in registers at a time. With FULL the group stages each gallery block of the tile (BINS ×
//   LANES floats, contiguous) in local memory with coalesced reads, and every strand compares its probe
//   blocks with it; with FACE_SUM the strands' weighted sums meet in local memory. The probe's block
//   count is an argument, so another weight map reuses the program.
//
// Gallery layout: tiles of LANES faces; within a tile, block-major, then bin, then lane, so the
// work-items of a tile read consecutive addresses. sums holds each gallery block's total.
// The probe arrives sparse: per active block, its nonzero bins (index, value, 1/value).
// With FACE_SUM, each face gets one value, the weighted sum over probe blocks, instead of one per block.
// Only the probe's nonzero bins need a divide: for the symmetric form
//   sum_i (p-g)^2/(p+g) = sum_{p_i>0} (p-g)^2/(p+g) + (sum_i g_i - sum_{p_i>0} g_i),
// and for the asymmetric form sum_{p_i>0} (p-g)^2 / p (terms with p = 0 skipped).
// The terms divide with native_divide: a sum of terms needs no correctly rounded division (which every
// program is built with where the device has it), and a GPU's own is faster (H200, full NBNN at 256 bins
// and 800 faces: 1.5 ms a query, 3.9 ms correctly rounded).

#define LANES 16

// Chi-square distance between the probe block's nonzero bins [first, last) and gallery block g, a
// face's column (stride LANES) in global or local memory.
#ifdef ASYMMETRIC
#define CHISQUARE_TERMS \
    float terms = 0.0f; \
    for (int k = first; k < last; ++k) { \
        float d = values[k] - g[binIndices[k] * LANES]; \
        terms += d * d * inverses[k]; \
    } \
    return terms;
#else
#define CHISQUARE_TERMS \
    float terms = 0.0f, covered = 0.0f; \
    for (int k = first; k < last; ++k) { \
        float p = values[k], v = g[binIndices[k] * LANES]; \
        float d = p - v; \
        terms += native_divide(d * d, p + v); \
        covered += v; \
    } \
    return terms + (total - covered);
#endif

float chisquare_block(__global const float* g, float total, int first, int last, __global const int* binIndices,
                      __global const float* values, __global const float* inverses) {
    CHISQUARE_TERMS
}

float chisquare_block_local(__local const float* g, float total, int first, int last, __global const int* binIndices,
                            __global const float* values, __global const float* inverses) {
    CHISQUARE_TERMS
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

// Whether probe block p is compared with gallery block b.
bool compared(int p, int b) {
#ifdef RADIUS
    return abs(p / GRID_COLUMNS - b / GRID_COLUMNS) <= RADIUS && abs(p % GRID_COLUMNS - b % GRID_COLUMNS) <= RADIUS;
#else
    return true;
#endif
}

// Probe blocks a GPU-shaped work-item holds in registers at a time.
#define PER_ITEM 4

__kernel void chisquare_nearest(__global const float* tiles, __global const float* sums,
                                __global const int* probeBlocks, __global const int* starts,
                                __global const int* binIndices, __global const float* values,
                                __global const float* inverses, __global const float* weights,
                                __global float* distances,
                                int probeCount, int blocks, int bins, int slots) {
#ifndef COOPERATIVE   // CPU shape: a work-item a face
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
            if (!compared(probeBlocks[jj], b)) continue;
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
#else                 // GPU shape: a work-group a tile
    int lane = get_local_id(0), row = get_local_id(1), tile = get_group_id(0);
    int slot = tile * LANES + lane;
    bool live = slot < slots;   // every work-item reaches the barriers, live or not
    __global const float* tileBlocks = tiles + (size_t)tile * blocks * BINS * LANES;
    __global const float* tileSums = sums + (size_t)tile * blocks * LANES;
#ifdef FULL
    __local float staged[BINS * LANES];
    __local float stagedTotals[LANES];
#endif
#ifdef FACE_SUM
    __local float partial[GROUP_SIZE_1 * LANES];
    float sum = 0.0f;
#endif
    // Every work-item makes the same passes (the barriers need it); row r takes probe blocks
    // pass + r, pass + r + GROUP_SIZE_1, ...
    for (int pass = 0; pass < probeCount; pass += GROUP_SIZE_1 * PER_ITEM) {
        int first = pass + row;
        float best[PER_ITEM];
#ifdef FULL
        for (int i = 0; i < PER_ITEM; ++i) best[i] = INFINITY;
        for (int b = 0; b < blocks; ++b) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = row * LANES + lane; i < BINS * LANES; i += GROUP_SIZE_1 * LANES) staged[i] = tileBlocks[(size_t)b * BINS * LANES + i];
            if (row == 0) stagedTotals[lane] = tileSums[b * LANES + lane];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < PER_ITEM; ++i) {
                int jj = first + i * GROUP_SIZE_1;
                if (jj < probeCount && compared(probeBlocks[jj], b)) {
                    best[i] = fmin(best[i], chisquare_block_local(staged + lane, stagedTotals[lane], starts[jj], starts[jj + 1],
                                                                  binIndices, values, inverses));
                }
            }
        }
#else
        for (int i = 0; i < PER_ITEM; ++i) {
            int jj = first + i * GROUP_SIZE_1;
            if (jj >= probeCount) break;
            int b = probeBlocks[jj];
            best[i] = chisquare_block(tileBlocks + (size_t)b * BINS * LANES + lane, tileSums[b * LANES + lane], starts[jj], starts[jj + 1],
                                      binIndices, values, inverses);
        }
#endif
        for (int i = 0; i < PER_ITEM; ++i) {
            int jj = first + i * GROUP_SIZE_1;
            if (jj >= probeCount || !live) break;
#ifdef FACE_SUM
            sum += weights[jj] * fmax(best[i], 0.0f);
#else
            distances[(size_t)slot * probeCount + jj] = fmax(best[i], 0.0f);
#endif
        }
    }
#ifdef FACE_SUM
    // A strand with no probe blocks adds nothing; the first row adds the strands' sums.
    partial[row * LANES + lane] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (row == 0 && live) {
        float total = 0.0f;
        for (int r = 0; r < GROUP_SIZE_1; ++r) total += partial[r * LANES + lane];
        distances[slot] = total;
    }
#endif
#endif                // COOPERATIVE
}
