#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
