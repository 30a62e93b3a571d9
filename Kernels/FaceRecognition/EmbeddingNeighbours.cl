// The k nearest rows to each of queryCount rows of a gallery of embeddings (count rows of length values),
// from row queryStart on, among the gallery's other rows closer than radius: exact, one work-item per query
// row, nearest first, ties to the lower row. Output: a plane of k distances per query row (INFINITY past
// those found), then a plane of their row indices as floats (-1 there).
// With standInLength > 0, standIns holds a shorter row for each row whose squared distances never exceed the
// rows' own by more than slack (a projection and its residual's length): a pair is measured in full only
// where its stand-ins are within reach.

#define MAX_NEIGHBOURS 64

__kernel void embedding_neighbours(__global const float* gallery, __global const float* standIns,
                                   __global float* neighbours, int count, int length, int standInLength,
                                   float slack, int queryStart, int queryCount, int k, float radius) {
    int q = get_global_id(0);
    if (q >= queryCount) return;
    int self = queryStart + q;
    __global const float* query = gallery + (size_t)self * length;
    __global const float* queryStandIn = standIns + (size_t)self * standInLength;
    float best[MAX_NEIGHBOURS];
    int rows[MAX_NEIGHBOURS];
    int found = 0;
    float limit = radius * radius;
    for (int j = 0; j < count; ++j) {
        if (j == self) continue;
        if (standInLength > 0) {
            __global const float* standIn = standIns + (size_t)j * standInLength;
            float bound = 0.0f;
            for (int i = 0; i < standInLength; ++i) {
                float d = standIn[i] - queryStandIn[i];
                bound = fma(d, d, bound);
            }
            if (bound - slack >= limit) continue;
        }
        __global const float* row = gallery + (size_t)j * length;
        float sum = 0.0f;
        for (int i = 0; i < length; ++i) {
            float d = row[i] - query[i];
            sum = fma(d, d, sum);
        }
        if (sum >= limit) continue;
        int at = found < k ? found : k - 1;
        while (at > 0 && best[at - 1] > sum) {
            best[at] = best[at - 1];
            rows[at] = rows[at - 1];
            --at;
        }
        best[at] = sum;
        rows[at] = j;
        if (found < k) ++found;
        if (found == k) limit = best[k - 1];
    }
    __global float* distances = neighbours + (size_t)q * k;
    __global float* indices = neighbours + (size_t)(queryCount + q) * k;
    for (int i = 0; i < k; ++i) {
        distances[i] = i < found ? sqrt(best[i]) : INFINITY;
        indices[i] = i < found ? (float)rows[i] : -1.0f;
    }
}
