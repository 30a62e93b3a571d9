// A fully connected layer: out[n][j] = Σ_i x[n][i] · weights[i][j] + bias[j], every element of a batch
// item's tensor one input (weights laid out inputs × outputs, as dlib stores them).

__kernel void fully_connected(__global const float* src, __global const float* weights, __global const float* bias,
                              __global float* dst, int inputs, int outputs, int batch) {
    int j = get_global_id(0), n = get_global_id(1);
    if (j >= outputs || n >= batch) return;
    __global const float* x = src + (size_t)n * inputs;
    float sum = 0.0f;
    for (int i = 0; i < inputs; ++i) sum = fma(x[i], weights[(size_t)i * outputs + j], sum);
    dst[(size_t)n * outputs + j] = sum + bias[j];
}
