// 2-D convolution as a matrix product: conv_im2col lays every receptive field out as a column (zero
// where the window leaves the plane), conv_gemm multiplies each group's filters by those columns and adds
// the bias, optionally clamping to [0, ceiling] (a fused ReLU, or ReLU6 with a ceiling of 6).
//
// Tensors are NCHW float. cols is [channels·kh·kw][batch·outH·outW]; weights are [outChannels][channels /
// groups · kh·kw]; group g's filters read the rows of cols that belong to its channels.

__kernel void conv_im2col(__global const float* src, __global float* cols, int channels, int height, int width,
                          int kernelHeight, int kernelWidth, int strideY, int strideX, int paddingY, int paddingX,
                          int outHeight, int outWidth, int batch) {
    int n = get_global_id(0), row = get_global_id(1);
    int spatial = outHeight * outWidth, columns = batch * spatial;
    if (n >= columns || row >= channels * kernelHeight * kernelWidth) return;
    int b = n / spatial, p = n - b * spatial;
    int oy = p / outWidth, ox = p - oy * outWidth;
    int c = row / (kernelHeight * kernelWidth), k = row - c * kernelHeight * kernelWidth;
    int ky = k / kernelWidth, kx = k - ky * kernelWidth;
    int y = oy * strideY - paddingY + ky, x = ox * strideX - paddingX + kx;
    float value = 0.0f;
    if (y >= 0 && y < height && x >= 0 && x < width) value = src[(((size_t)b * channels + c) * height + y) * width + x];
    cols[(size_t)row * columns + n] = value;
}

#if VECTOR_WIDTH == 16
typedef float16 floatv;
#define VLOAD vload16
#define VSTORE vstore16
#elif VECTOR_WIDTH == 8
typedef float8 floatv;
#define VLOAD vload8
#define VSTORE vstore8
#elif VECTOR_WIDTH == 4
typedef float4 floatv;
#define VLOAD vload4
#define VSTORE vstore4
#else
typedef float floatv;
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
#endif

// Rows of output (filters) each work-item computes.
#define TILE_M 4

// Adds the bias, then channel oc of residual where it has one (residualChannels planes of spatial values an
// image, read as zero past them), clamps where relu is set, and stores one vector of output columns n….
void conv_store_sum(floatv acc, __global float* dst, int oc, int n, int columns, int spatial, int outChannels,
                    float bias, __global const float* residual, int residualChannels, int relu, float ceiling) {
    acc += bias;
    int b = n / spatial, p = n - b * spatial;
    bool sideBySide = n + VECTOR_WIDTH <= columns && p + VECTOR_WIDTH <= spatial;
    if (oc < residualChannels) {
        if (sideBySide) {
            acc += VLOAD(0, residual + ((size_t)b * residualChannels + oc) * spatial + p);
        } else {
            float values[VECTOR_WIDTH];
            VSTORE(acc, 0, values);
            for (int i = 0; i < VECTOR_WIDTH && n + i < columns; ++i) {
                int bi = (n + i) / spatial, pi = n + i - bi * spatial;
                values[i] += residual[((size_t)bi * residualChannels + oc) * spatial + pi];
            }
            acc = VLOAD(0, values);
        }
    }
    if (relu) acc = fmin(fmax(acc, (floatv)0.0f), (floatv)ceiling);
    __global float* out = dst + ((size_t)b * outChannels + oc) * spatial + p;
    if (sideBySide) {
        VSTORE(acc, 0, out);
    } else {
        float values[VECTOR_WIDTH];
        VSTORE(acc, 0, values);
        for (int i = 0; i < VECTOR_WIDTH && n + i < columns; ++i) {
            int bi = (n + i) / spatial, pi = n + i - bi * spatial;
            dst[((size_t)bi * outChannels + oc) * spatial + pi] = values[i];
        }
    }
}

// The sums of filters oc… (rows of them, at most TILE_M) for columns n…, each stored as conv_store_sum does.
void conv_store_tile(floatv acc0, floatv acc1, floatv acc2, floatv acc3, int rows, __global float* dst, int oc, int n,
                     int columns, int spatial, int outChannels, __global const float* bias,
                     __global const float* residual, int residualChannels, int relu, float ceiling) {
    conv_store_sum(acc0, dst, oc, n, columns, spatial, outChannels, bias[oc], residual, residualChannels, relu, ceiling);
    if (rows > 1)
        conv_store_sum(acc1, dst, oc + 1, n, columns, spatial, outChannels, bias[oc + 1], residual, residualChannels,
                       relu, ceiling);
    if (rows > 2)
        conv_store_sum(acc2, dst, oc + 2, n, columns, spatial, outChannels, bias[oc + 2], residual, residualChannels,
                       relu, ceiling);
    if (rows > 3)
        conv_store_sum(acc3, dst, oc + 3, n, columns, spatial, outChannels, bias[oc + 3], residual, residualChannels,
                       relu, ceiling);
}

// Work-item (n, m, g): output columns n·VECTOR_WIDTH… and filters m·TILE_M… of group g.
__kernel void conv_gemm(__global const float* weights, __global const float* cols, __global const float* bias,
                        __global float* dst, int groupOutChannels, int groupDepth, int columns, int spatial,
                        int outChannels, int relu, float ceiling) {
    int n = get_global_id(0) * VECTOR_WIDTH, m = get_global_id(1) * TILE_M, g = get_global_id(2);
    if (n >= columns || m >= groupOutChannels) return;
    __global const float* b = cols + (size_t)g * groupDepth * columns + n;
    int oc = g * groupOutChannels + m;
    __global const float* a = weights + (size_t)oc * groupDepth;
    int rows = min(TILE_M, groupOutChannels - m);
    floatv acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    if (n + VECTOR_WIDTH <= columns && rows == TILE_M) {
        for (int k = 0; k < groupDepth; ++k) {
            floatv v = VLOAD(0, b + (size_t)k * columns);
            acc0 = fma((floatv)a[k], v, acc0);
            acc1 = fma((floatv)a[groupDepth + k], v, acc1);
            acc2 = fma((floatv)a[2 * groupDepth + k], v, acc2);
            acc3 = fma((floatv)a[3 * groupDepth + k], v, acc3);
        }
    } else {
        for (int k = 0; k < groupDepth; ++k) {
            float values[VECTOR_WIDTH];
            for (int i = 0; i < VECTOR_WIDTH; ++i) values[i] = n + i < columns ? b[(size_t)k * columns + i] : 0.0f;
            floatv v = VLOAD(0, values);
            acc0 = fma((floatv)a[k], v, acc0);
            if (rows > 1) acc1 = fma((floatv)a[groupDepth + k], v, acc1);
            if (rows > 2) acc2 = fma((floatv)a[2 * groupDepth + k], v, acc2);
            if (rows > 3) acc3 = fma((floatv)a[3 * groupDepth + k], v, acc3);
        }
    }
    conv_store_tile(acc0, acc1, acc2, acc3, rows, dst, oc, n, columns, spatial, outChannels, bias, 0, 0, relu, ceiling);
}

// The same product without the columns in memory: each work-item gathers its VECTOR_WIDTH receptive
// fields straight from the input as it goes (an implicit matrix product), TILE_M filters at a time.
__kernel void conv_direct(__global const float* src, __global const float* weights, __global const float* bias,
                          __global float* dst, int channels, int height, int width, int kernelHeight, int kernelWidth,
                          int strideY, int strideX, int paddingY, int paddingX, int outHeight, int outWidth, int batch,
                          int groupOutChannels, int outChannels, int relu, float ceiling) {
    int n = get_global_id(0) * VECTOR_WIDTH, m = get_global_id(1) * TILE_M, g = get_global_id(2);
    int spatial = outHeight * outWidth, columns = batch * spatial;
    if (n >= columns || m >= groupOutChannels) return;
    int groups = outChannels / groupOutChannels, groupChannels = channels / groups;
    int window = kernelHeight * kernelWidth, groupDepth = groupChannels * window;
    // Per lane: where its window starts in the input (its group's first channel), or -1 past the end.
    int top[VECTOR_WIDTH], left[VECTOR_WIDTH];
    size_t base[VECTOR_WIDTH];
    for (int i = 0; i < VECTOR_WIDTH; ++i) {
        int column = min(n + i, columns - 1);
        int b = column / spatial, p = column - b * spatial, oy = p / outWidth, ox = p - oy * outWidth;
        top[i] = n + i < columns ? oy * strideY - paddingY : -(1 << 20);
        left[i] = ox * strideX - paddingX;
        base[i] = ((size_t)b * channels + (size_t)g * groupChannels) * height * width;
    }
    int oc = g * groupOutChannels + m;
    __global const float* a = weights + (size_t)oc * groupDepth;
    int rows = min(TILE_M, groupOutChannels - m);
    int r1 = min(1, rows - 1), r2 = min(2, rows - 1), r3 = min(3, rows - 1);
    floatv acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    for (int c = 0; c < groupChannels; ++c) {
        for (int ky = 0; ky < kernelHeight; ++ky) {
            for (int kx = 0; kx < kernelWidth; ++kx) {
                float values[VECTOR_WIDTH];
                for (int i = 0; i < VECTOR_WIDTH; ++i) {
                    int y = top[i] + ky, x = left[i] + kx;
                    values[i] = y >= 0 && y < height && x >= 0 && x < width ? src[base[i] + ((size_t)c * height + y) * width + x] : 0.0f;
                }
                floatv v = VLOAD(0, values);
                int k = (c * kernelHeight + ky) * kernelWidth + kx;
                acc0 = fma((floatv)a[k], v, acc0);
                acc1 = fma((floatv)a[r1 * groupDepth + k], v, acc1);
                acc2 = fma((floatv)a[r2 * groupDepth + k], v, acc2);
                acc3 = fma((floatv)a[r3 * groupDepth + k], v, acc3);
            }
        }
    }
    conv_store_tile(acc0, acc1, acc2, acc3, rows, dst, oc, n, columns, spatial, outChannels, bias, 0, 0, relu, ceiling);
}

// The product for GPUs: tiles of TILE × TILE outputs per work-group of TILE × (TILE / PER_ITEM) items,
// each item PER_ITEM filters of one column; filters and columns pass through local memory TILE deep at a
// time, so each value read from global memory serves TILE products.
#define TILE 32
#define PER_ITEM 8
#define ITEM_ROWS (TILE / PER_ITEM)

__kernel void conv_gemm_shared(__global const float* weights, __global const float* cols, __global const float* bias,
                               __global float* dst, int groupOutChannels, int groupDepth, int columns, int spatial,
                               int outChannels, int relu, float ceiling) {
    __local float filters[TILE][TILE + 1];
    __local float fields[TILE][TILE];
    int ln = get_local_id(0), lm = get_local_id(1), g = get_global_id(2);
    int n = get_group_id(0) * TILE + ln, m0 = get_group_id(1) * TILE;
    __global const float* a = weights + (size_t)g * groupOutChannels * groupDepth;
    __global const float* b = cols + (size_t)g * groupDepth * columns;
    float acc[PER_ITEM];
    for (int w = 0; w < PER_ITEM; ++w) acc[w] = 0.0f;
    for (int k0 = 0; k0 < groupDepth; k0 += TILE) {
        for (int w = 0; w < PER_ITEM; ++w) {
            int r = lm + w * ITEM_ROWS, m = m0 + r, k = k0 + ln, kb = k0 + r;
            filters[r][ln] = m < groupOutChannels && k < groupDepth ? a[(size_t)m * groupDepth + k] : 0.0f;
            fields[r][ln] = kb < groupDepth && n < columns ? b[(size_t)kb * columns + n] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k) {
            float v = fields[k][ln];
            for (int w = 0; w < PER_ITEM; ++w) acc[w] = fma(filters[lm + w * ITEM_ROWS][k], v, acc[w]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (n >= columns) return;
    int batchIndex = n / spatial, p = n - batchIndex * spatial;
    for (int w = 0; w < PER_ITEM; ++w) {
        int m = m0 + lm + w * ITEM_ROWS;
        if (m >= groupOutChannels) continue;
        int oc = g * groupOutChannels + m;
        float value = acc[w] + bias[oc];
        dst[((size_t)batchIndex * outChannels + oc) * spatial + p] = relu ? fmin(fmax(value, 0.0f), ceiling) : value;
    }
}

// Depthwise convolution (each filter reads one input channel: groups == channels, groupOutChannels filters
// a channel), with conv_direct's arguments: work-item (x, y, plane) forms one output from its window, with
// no columns and no product. plane = b · outChannels + oc; filter oc reads channel oc / groupOutChannels.
__kernel void conv_depthwise(__global const float* src, __global const float* weights, __global const float* bias,
                             __global float* dst, int channels, int height, int width, int kernelHeight, int kernelWidth,
                             int strideY, int strideX, int paddingY, int paddingX, int outHeight, int outWidth, int batch,
                             int groupOutChannels, int outChannels, int relu, float ceiling) {
    int ox = get_global_id(0), oy = get_global_id(1), plane = get_global_id(2);
    if (ox >= outWidth || oy >= outHeight || plane >= batch * outChannels) return;
    int b = plane / outChannels, oc = plane - b * outChannels;
    __global const float* in = src + ((size_t)b * channels + oc / groupOutChannels) * height * width;
    __global const float* w = weights + (size_t)oc * kernelHeight * kernelWidth;
    int top = oy * strideY - paddingY, left = ox * strideX - paddingX;
    float acc = bias[oc];
    for (int ky = 0; ky < kernelHeight; ++ky) {
        int y = top + ky;
        if (y < 0 || y >= height) continue;
        for (int kx = 0; kx < kernelWidth; ++kx) {
            int x = left + kx;
            if (x >= 0 && x < width) acc = fma(w[ky * kernelWidth + kx], in[y * width + x], acc);
        }
    }
    dst[((size_t)plane * outHeight + oy) * outWidth + ox] = relu ? fmin(fmax(acc, 0.0f), ceiling) : acc;
}

// Value (y, x) of channel c of an image at in: the tensor's own where inChannels is 0, else its 1 × 1
// expansion: the products with expansionWeights' row c summed from zero in channel order, plus the bias, clamped
// to [0, expansionCeiling] where expansionRelu is set (conv_gemm's sums), formed again for every tap that reads
// it.
float conv_expanded(__global const float* in, int c, int y, int x, int height, int width, int inChannels,
                    __global const float* expansionWeights, __global const float* expansionBias, int expansionRelu,
                    float expansionCeiling) {
    size_t plane = (size_t)height * width, at = (size_t)y * width + x;
    if (inChannels == 0) return in[c * plane + at];
    __global const float* w = expansionWeights + (size_t)c * inChannels;
    float sum = 0.0f;
    for (int k = 0; k < inChannels; ++k) sum = fma(w[k], in[k * plane + at], sum);
    sum += expansionBias[c];
    return expansionRelu ? fmin(fmax(sum, 0.0f), expansionCeiling) : sum;
}

// A depthwise-separable convolution in one kernel: where inChannels is above 0, a 1 × 1 expansion of src's
// inChannels channels to channels first (conv_expanded), then a depthwise convolution (one kernelHeight ×
// kernelWidth filter a channel, conv_depthwise's windows, clamped to [0, depthwiseCeiling] where depthwiseRelu
// is set), then a 1 × 1 convolution of its channels, plus channel oc of residual where residualChannels is above
// oc, then clamped where relu is set. Work-item (n, m): output columns n·VECTOR_WIDTH… and filters m·TILE_M…;
// each forms the depthwise values of its columns as it goes, so none pass through memory.
__kernel void conv_separable(__global const float* src, __global const float* expansionWeights,
                             __global const float* expansionBias, __global const float* depthwiseWeights,
                             __global const float* depthwiseBias, __global const float* weights,
                             __global const float* bias, __global const float* residual, __global float* dst,
                             int inChannels, int channels, int height, int width, int kernelHeight, int kernelWidth,
                             int strideY, int strideX, int paddingY, int paddingX, int outHeight, int outWidth,
                             int batch, int outChannels, int expansionRelu, float expansionCeiling, int depthwiseRelu,
                             float depthwiseCeiling, int residualChannels, int relu, float ceiling) {
    int n = get_global_id(0) * VECTOR_WIDTH, m = get_global_id(1) * TILE_M;
    int spatial = outHeight * outWidth, columns = batch * spatial;
    if (n >= columns || m >= outChannels) return;
    int top[VECTOR_WIDTH], left[VECTOR_WIDTH];
    size_t base[VECTOR_WIDTH];
    for (int i = 0; i < VECTOR_WIDTH; ++i) {
        int column = min(n + i, columns - 1);
        int b = column / spatial, p = column - b * spatial, oy = p / outWidth, ox = p - oy * outWidth;
        top[i] = oy * strideY - paddingY;
        left[i] = ox * strideX - paddingX;
        base[i] = (size_t)b * (inChannels > 0 ? inChannels : channels) * height * width;
    }
    __global const float* a = weights + (size_t)m * channels;
    int rows = min(TILE_M, outChannels - m);
    int r1 = min(1, rows - 1), r2 = min(2, rows - 1), r3 = min(3, rows - 1);
    floatv acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    for (int c = 0; c < channels; ++c) {
        __global const float* w = depthwiseWeights + (size_t)c * kernelHeight * kernelWidth;
        float values[VECTOR_WIDTH];
        for (int i = 0; i < VECTOR_WIDTH; ++i) {
            float sum = depthwiseBias[c];
            for (int ky = 0; ky < kernelHeight; ++ky) {
                int y = top[i] + ky;
                if (y < 0 || y >= height) continue;
                for (int kx = 0; kx < kernelWidth; ++kx) {
                    int x = left[i] + kx;
                    if (x >= 0 && x < width)
                        sum = fma(w[ky * kernelWidth + kx],
                                  conv_expanded(src + base[i], c, y, x, height, width, inChannels, expansionWeights,
                                                expansionBias, expansionRelu, expansionCeiling),
                                  sum);
                }
            }
            values[i] = depthwiseRelu ? fmin(fmax(sum, 0.0f), depthwiseCeiling) : sum;
        }
        floatv v = VLOAD(0, values);
        acc0 = fma((floatv)a[c], v, acc0);
        acc1 = fma((floatv)a[r1 * channels + c], v, acc1);
        acc2 = fma((floatv)a[r2 * channels + c], v, acc2);
        acc3 = fma((floatv)a[r3 * channels + c], v, acc3);
    }
    conv_store_tile(acc0, acc1, acc2, acc3, rows, dst, m, n, columns, spatial, outChannels, bias, residual,
                    residualChannels, relu, ceiling);
}

// The 1 × 1 half of a depthwise-separable convolution on its own, after conv_depthwise: filters × the input's
// channels at each pixel, plus the residual and clamp of conv_separable. Work-item (n, m) as there.
__kernel void conv_pointwise(__global const float* src, __global const float* weights, __global const float* bias,
                             __global const float* residual, __global float* dst, int channels, int spatial, int batch,
                             int outChannels, int residualChannels, int relu, float ceiling) {
    int n = get_global_id(0) * VECTOR_WIDTH, m = get_global_id(1) * TILE_M;
    int columns = batch * spatial;
    if (n >= columns || m >= outChannels) return;
    int b = n / spatial, p = n - b * spatial;
    bool sideBySide = n + VECTOR_WIDTH <= columns && p + VECTOR_WIDTH <= spatial;
    __global const float* a = weights + (size_t)m * channels;
    int rows = min(TILE_M, outChannels - m);
    int r1 = min(1, rows - 1), r2 = min(2, rows - 1), r3 = min(3, rows - 1);
    floatv acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    for (int c = 0; c < channels; ++c) {
        floatv v;
        if (sideBySide) {
            v = VLOAD(0, src + ((size_t)b * channels + c) * spatial + p);
        } else {
            float values[VECTOR_WIDTH];
            for (int i = 0; i < VECTOR_WIDTH; ++i) {
                int column = min(n + i, columns - 1), bi = column / spatial, pi = column - bi * spatial;
                values[i] = src[((size_t)bi * channels + c) * spatial + pi];
            }
            v = VLOAD(0, values);
        }
        acc0 = fma((floatv)a[c], v, acc0);
        acc1 = fma((floatv)a[r1 * channels + c], v, acc1);
        acc2 = fma((floatv)a[r2 * channels + c], v, acc2);
        acc3 = fma((floatv)a[r3 * channels + c], v, acc3);
    }
    conv_store_tile(acc0, acc1, acc2, acc3, rows, dst, m, n, columns, spatial, outChannels, bias, residual,
                    residualChannels, relu, ceiling);
}
