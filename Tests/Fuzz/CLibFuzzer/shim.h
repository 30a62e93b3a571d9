// libFuzzer's driver, linked in by -sanitize=fuzzer. Swift executables get their main from SwiftPM, so the
// fuzz targets call the driver themselves instead of using libFuzzer's main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
