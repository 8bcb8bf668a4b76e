/* fuzz_ppmd.c - libFuzzer harness: the PPMd variant H decoder.
 * Input: 5 property bytes (order, model memory size; sizes over the
 * harness memory limit are refused by the decoder), 2 bytes output size,
 * then the range-coded data. */
#include "fuzz_common.h"
#include "codec/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    const uint8_t *props = data;
    data += 5, size -= 5;
    unsigned out_size = fuzz_take16(&data, &size);
    fz7_istream *src = fz7_istream_from_memory(data, size), *dec;
    if (src && fz7_ppmd7_istream_new(src, props, 5, out_size, FUZZ_MEM_LIMIT / 4, &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return 0;
}
