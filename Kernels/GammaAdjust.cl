// Gamma adjustment: max(v, 0)^gamma.

__kernel void gamma_adjust(__global const float* src, __global float* dst, float gamma, int count) {
    int i = get_global_id(0);
    if (i < count) dst[i] = pow(fmax(src[i], 0.0f), gamma);
}
