// BT.601 luma from planar RGB or RGBA (alpha ignored).
// UInt8: OpenCV's fixed point, (4899 R + 9617 G + 1868 B + 2^13) >> 14. Float: 0.299 R + 0.587 G + 0.114 B.
#pragma OPENCL FP_CONTRACT OFF

__kernel void grayscale_luma(__global const PIXEL* src, __global PIXEL* dst, int pixels, int channels) {
    int i = get_global_id(0);
    int image = get_global_id(1);
    if (i >= pixels) return;
    __global const PIXEL* rgb = src + (size_t)image * channels * pixels + i;
#ifdef PIXEL_FLOAT
    dst[(size_t)image * pixels + i] = 0.299f * rgb[0] + 0.587f * rgb[pixels] + 0.114f * rgb[2 * pixels];
#else
    int luma = (4899 * rgb[0] + 9617 * rgb[pixels] + 1868 * rgb[2 * pixels] + 8192) >> 14;
    dst[(size_t)image * pixels + i] = (uchar)luma;
#endif
}
