// Copies the rectangle (originX, originY, outWidth, outHeight) of every plane.

__kernel void crop_copy(__global const PIXEL* src, __global PIXEL* dst, int inWidth, int inHeight,
                        int originX, int originY, int outWidth, int outHeight) {
    int x = get_global_id(0), y = get_global_id(1), plane = get_global_id(2);
    if (x >= outWidth || y >= outHeight) return;
    dst[((size_t)plane * outHeight + y) * outWidth + x] =
        src[((size_t)plane * inHeight + originY + y) * inWidth + originX + x];
}
