// Tan–Triggs contrast equalisation, per plane:
//   I1 = I / mean(|I|^a)^(1/a);  I2 = I1 / mean(min(tau, |I1|)^a)^(1/a);  out = tau * tanh(I2 / tau).
// Two reductions (one work-group per plane) each leave the plane's scale factor mean^(-1/a)
// (1 when the mean is 0), then a per-pixel pass applies both and compresses.
// Per-pixel powers use exp2(a * log2(x)), several times faster than pocl's pow for x >= 0, a > 0.
// The scale is mean^(-1/a) = mean^(-10): a relative error in the sum grows tenfold, so each work-item
// adds its terms with Kahan compensation (plain float sums drifted by up to 2e-4 in the output).

float equalize_power(float x, float alpha) {
    return exp2(alpha * log2(x));
}

float equalize_scale(float sum, int pixels, float alpha) {
    float mean = sum / (float)pixels;
    return mean > 0.0f ? pow(mean, -1.0f / alpha) : 1.0f;
}

// Kahan summation step: `compensation` carries the low-order bits `sum` could not hold.
void equalize_add(float* sum, float* compensation, float term) {
    float y = term - *compensation;
    float t = *sum + y;
    *compensation = (t - *sum) - y;
    *sum = t;
}

float equalize_group_sum(float value, __local float* scratch) {
    int local_id = get_local_id(0);
    scratch[local_id] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (local_id < stride) scratch[local_id] += scratch[local_id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}

__kernel void equalize_power_sum(__global const float* src, __global float* scales, float alpha, int pixels,
                                 __local float* scratch) {
    int plane = get_group_id(0);
    __global const float* values = src + (size_t)plane * pixels;
    float sum = 0.0f, compensation = 0.0f;
    for (int i = get_local_id(0); i < pixels; i += get_local_size(0))
        equalize_add(&sum, &compensation, equalize_power(fabs(values[i]), alpha));
    sum = equalize_group_sum(sum, scratch);
    if (get_local_id(0) == 0) scales[plane] = equalize_scale(sum, pixels, alpha);
}

__kernel void equalize_clipped_power_sum(__global const float* src, __global const float* firstScales,
                                         __global float* scales, float alpha, float tau, int pixels,
                                         __local float* scratch) {
    int plane = get_group_id(0);
    __global const float* values = src + (size_t)plane * pixels;
    float first = firstScales[plane];
    float sum = 0.0f, compensation = 0.0f;
    for (int i = get_local_id(0); i < pixels; i += get_local_size(0))
        equalize_add(&sum, &compensation, equalize_power(fmin(tau, fabs(values[i] * first)), alpha));
    sum = equalize_group_sum(sum, scratch);
    if (get_local_id(0) == 0) scales[plane] = equalize_scale(sum, pixels, alpha);
}

__kernel void equalize_compress(__global const float* src, __global float* dst, __global const float* firstScales,
                                __global const float* secondScales, float tau, int pixels) {
    int i = get_global_id(0), plane = get_global_id(1);
    if (i >= pixels) return;
    size_t index = (size_t)plane * pixels + i;
    float scale = firstScales[plane] * secondScales[plane];
    dst[index] = tau * tanh(src[index] * scale / tau);
}
