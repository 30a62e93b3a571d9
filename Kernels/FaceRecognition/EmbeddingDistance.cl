// Euclidean distances from a probe embedding to every row of a gallery of embeddings (count rows of
// length values): exact search, one work-item per gallery face.

__kernel void embedding_distance(__global const float* gallery, __constant float* probe, __global float* distances,
                                 int count, int length) {
    int i = get_global_id(0);
    if (i >= count) return;
    __global const float* row = gallery + (size_t)i * length;
    float sum = 0.0f;
    for (int k = 0; k < length; ++k) {
        float d = row[k] - probe[k];
        sum = fma(d, d, sum);
    }
    distances[i] = sqrt(sum);
}
