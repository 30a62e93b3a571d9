// Block histograms: each plane of codes is cut into gridRows × gridColumns blocks, block (bx, by)
// covering columns [bx W / gridColumns, (bx + 1) W / gridColumns) and rows likewise (integer division:
// every pixel belongs to exactly one block, and block sizes differ by at most one pixel). Each block's
// histogram of `bins` bins is divided by the block's pixel count; codes >= bins are not counted.
// Output per plane: gridRows * gridColumns rows of `bins` floats, blocks in row-major order.
// CPU shape: one work-item per block. GPU shape (COOPERATIVE): a work-group of GROUP_SIZE_0 per block
// (the launch covers gridColumns × GROUP_SIZE_0 work-items across), reading the block's rows with
// coalesced loads and counting into a histogram in local memory with local atomics. Counts are whole
// numbers either way, so both shapes give the same floats.

__kernel void block_histogram(__global const uchar* codes, __global float* histograms, int width, int height,
                              int gridColumns, int gridRows, int bins) {
#ifndef COOPERATIVE   // CPU shape: a work-item a block
    int bx = get_global_id(0), by = get_global_id(1), plane = get_global_id(2);
    if (bx >= gridColumns || by >= gridRows) return;
    int x0 = bx * width / gridColumns, x1 = (bx + 1) * width / gridColumns;
    int y0 = by * height / gridRows, y1 = (by + 1) * height / gridRows;
    __global float* h = histograms + (((size_t)plane * gridRows + by) * gridColumns + bx) * bins;
    for (int b = 0; b < bins; ++b) h[b] = 0.0f;
    __global const uchar* p = codes + (size_t)plane * width * height;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            int code = p[(size_t)y * width + x];
            if (code < bins) h[code] += 1.0f;
        }
    int count = (x1 - x0) * (y1 - y0);
    if (count == 0) return;
    float scale = 1.0f / (float)count;
    for (int b = 0; b < bins; ++b) h[b] *= scale;
#else                 // GPU shape: a work-group a block
    int item = get_local_id(0), bx = get_group_id(0), by = get_global_id(1), plane = get_global_id(2);
    __local uint counts[256];
    for (int b = item; b < 256; b += GROUP_SIZE_0) counts[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int x0 = bx * width / gridColumns, x1 = (bx + 1) * width / gridColumns;
    int y0 = by * height / gridRows, y1 = (by + 1) * height / gridRows;
    int blockWidth = x1 - x0, count = blockWidth * (y1 - y0);
    __global const uchar* p = codes + (size_t)plane * width * height;
    for (int i = item; i < count; i += GROUP_SIZE_0) {
        int code = p[(size_t)(y0 + i / blockWidth) * width + x0 + i % blockWidth];
        if (code < bins) atomic_inc(&counts[code]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global float* h = histograms + (((size_t)plane * gridRows + by) * gridColumns + bx) * bins;
    float scale = count > 0 ? 1.0f / (float)count : 0.0f;
    for (int b = item; b < bins; b += GROUP_SIZE_0) h[b] = (float)counts[b] * scale;
#endif                // COOPERATIVE
}
