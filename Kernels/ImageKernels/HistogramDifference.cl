// Per-bin chi-square terms between two "histogram images" (rows = blocks, columns = bins): the
// histogram-difference kernel of the reference design. The expected image is either one plane,
// compared with every plane of the training image, or as many planes as it has.
//   symmetric:  (e - t)^2 / (e + t), 0 where e + t = 0
//   ASYMMETRIC: (e - t)^2 / e,       0 where e = 0

__kernel void histogram_difference(__global const float* expected, __global const float* training,
                                   __global float* terms, int planeSize, int expectedPlanes, int count) {
    int i = get_global_id(0);
    if (i >= count) return;
    float e = expected[(size_t)(i / planeSize % expectedPlanes) * planeSize + i % planeSize];
    float t = training[i];
    float d = e - t;
#ifdef ASYMMETRIC
    terms[i] = e > 0.0f ? d * d / e : 0.0f;
#else
    float s = e + t;
    terms[i] = s > 0.0f ? d * d / s : 0.0f;
#endif
}
