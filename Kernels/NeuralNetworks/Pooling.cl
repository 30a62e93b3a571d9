// Max and average pooling of NCHW tensors over windows of windowWidth × windowHeight, with strides and
// zero padding. Windows are cut to the plane: a max ignores the padding and an average divides by the
// pixels it covers inside the plane (dlib's and Caffe's rule without padding). Global pooling is a window
// the size of the plane.

__kernel void pooling(__global const float* src, __global float* dst, int width, int height, int outWidth,
                      int outHeight, int windowWidth, int windowHeight, int strideX, int strideY, int paddingX,
                      int paddingY, int planes, int average) {
    int ox = get_global_id(0), oy = get_global_id(1), plane = get_global_id(2);
    if (ox >= outWidth || oy >= outHeight || plane >= planes) return;
    int x0 = max(ox * strideX - paddingX, 0), y0 = max(oy * strideY - paddingY, 0);
    int x1 = min(ox * strideX - paddingX + windowWidth, width), y1 = min(oy * strideY - paddingY + windowHeight, height);
    __global const float* p = src + (size_t)plane * width * height;
    float result = average ? 0.0f : -INFINITY;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) result = average ? result + p[y * width + x] : fmax(result, p[y * width + x]);
    if (average) result = x1 > x0 && y1 > y0 ? result / (float)((x1 - x0) * (y1 - y0)) : 0.0f;
    dst[((size_t)plane * outHeight + oy) * outWidth + ox] = result;
}
