/* fuzz_7z.c - libFuzzer harness: a whole .7z archive (headers, encrypted
 * headers with the password "secret", every coder) opened and extracted
 * into counting callbacks. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_archive(data, size, "secret");
    return 0;
}
