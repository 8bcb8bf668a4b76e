/* fuzz_xz.c - libFuzzer harness: a whole .xz (or .lzma) file opened
 * through the archive API (stream/index/block parsing, filter chains,
 * checks) and extracted into counting callbacks. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_archive(data, size, NULL);
    return 0;
}
