// The restricted chi-square search on descriptors in their stored counts form (StoredDescriptor.swift): for
// every face slot and every active probe block jj, the distance to the face's block at the same position,
// or with FACE_SUM one weighted sum per slot. A work-item a slot.
//
// A stored block is a bitmap of its nonzero bins ((bins + 7) / 8 bytes), then each nonzero count less one
// in countBytes bytes, little-endian; offsets[slot * blocks + block] is where the block's bitmap starts in
// counts, -1 for an empty slot; the buffer has at least 8 bytes past the last block, so a bitmap is read
// 8 bytes at a time. A bin's value is its count times scales[block] (1 / the block's pixels).
// Only the face's nonzero bins are visited, against the probe block dense (probe: probeCount × bins) and
// its total P (probeSums):
//   symmetric:  sum_i (p-g)^2/(p+g)    = P + sum_{g_i>0} ((p-g)^2/(p+g) - p)
//   asymmetric: sum_{p_i>0} (p-g)^2/p  = P + sum_{g_i>0, p_i>0} g (g/p - 2)   (inverses: 1/p, 0 where p = 0)

__kernel void chisquare_counts(__global const uchar* counts, __global const int* offsets,
                               __global const int* probeBlocks, __global const float* probe,
                               __global const float* inverses, __global const float* probeSums,
                               __global const float* scales, __global const float* weights,
                               __global float* distances,
                               int probeCount, int blocks, int bins, int countBytes, int slots) {
    int slot = get_global_id(0);
    if (slot >= slots) return;
    int bitmapBytes = (bins + 7) / 8;
#ifdef FACE_SUM
    float sum = 0.0f;
#endif
    for (int jj = 0; jj < probeCount; ++jj) {
        int b = probeBlocks[jj];
        int at = offsets[(size_t)slot * blocks + b];
        float d = 0.0f;
        if (at >= 0) {
            __global const uchar* bitmap = counts + at;
            __global const uchar* next = bitmap + bitmapBytes;
#ifdef ASYMMETRIC
            __global const float* inverse = inverses + (size_t)jj * bins;
#else
            __global const float* p = probe + (size_t)jj * bins;
#endif
            float scale = scales[b], terms = 0.0f;
            for (int word = 0; word < (bitmapBytes + 7) / 8; ++word) {
                // 64 bins at a time (the buffer has 8 bytes to spare past the last bitmap).
                ulong bits = as_ulong(vload8(word, bitmap));
                if (8 * word + 8 > bitmapBytes) bits &= ((ulong)1 << (8 * (bitmapBytes - 8 * word))) - 1;
                while (bits != 0) {
                    int bin = word * 64 + (int)popcount((bits & (0ul - bits)) - 1ul);
                    bits &= bits - 1ul;
                    int count = 1 + next[0] + (countBytes == 2 ? next[1] << 8 : 0);
                    next += countBytes;
                    float g = (float)count * scale;
#ifdef ASYMMETRIC
                    if (inverse[bin] > 0.0f) terms += g * (g * inverse[bin] - 2.0f);
#else
                    float q = p[bin], e = q - g;
                    terms += native_divide(e * e, q + g) - q;  // as in ChiSquareNearest.cl
#endif
                }
            }
            d = fmax(probeSums[jj] + terms, 0.0f);
        }
#ifdef FACE_SUM
        sum += weights[jj] * d;
#else
        distances[(size_t)slot * probeCount + jj] = d;
#endif
    }
#ifdef FACE_SUM
    distances[slot] = sum;
#endif
}
