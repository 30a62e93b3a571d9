// Element type conversion. UInt8 maps to 0...1 floats and back (rounded to nearest even, saturated).

__kernel void conversion_to_float(__global const uchar* src, __global float* dst, float scale, int count) {
    int i = get_global_id(0);
    if (i < count) dst[i] = (float)src[i] * scale;
}

__kernel void conversion_to_uint8(__global const float* src, __global uchar* dst, float scale, int count) {
    int i = get_global_id(0);
    if (i < count) dst[i] = convert_uchar_sat_rte(src[i] * scale);
}
