// Euclidean distances from probe embeddings to every row of a gallery of embeddings (count rows of length
// values): exact search, one work-item per gallery row and probe. distances holds a row of count per probe.

__kernel void embedding_distance(__global const float* gallery, __global const float* probes, __global float* distances,
                                 int count, int length) {
    int i = get_global_id(0);
    int p = get_global_id(1);
    if (i >= count) return;
    __global const float* row = gallery + (size_t)i * length;
    __global const float* probe = probes + (size_t)p * length;
    float sum = 0.0f;
    for (int k = 0; k < length; ++k) {
        float d = row[k] - probe[k];
        sum = fma(d, d, sum);
    }
    distances[(size_t)p * count + i] = sqrt(sum);
}
