// Channels moved into space (TFLite's DEPTH_TO_SPACE on NCHW tensors): each block × block cell of the
// output takes one output channel from block² consecutive groups of input channels, in row-major order
// within the cell.

__kernel void depth_to_space(__global const float* src, __global float* dst, int channels, int height, int width,
                             int block, int planes) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    int outWidth = width * block, outHeight = height * block, outChannels = channels / (block * block);
    if (x >= outWidth || y >= outHeight || plane >= planes) return;
    int n = plane / outChannels, c = plane - n * outChannels;
    int source = ((y % block) * block + x % block) * outChannels + c;
    dst[((size_t)plane * outHeight + y) * outWidth + x] = src[(((size_t)n * channels + source) * height + y / block) * width + x / block];
}
