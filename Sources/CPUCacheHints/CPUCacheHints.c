// The hints are inline functions in include/CPUCacheHints.h; SwiftPM builds a C target only from a source file.
#include "CPUCacheHints.h"
