/* fuzz_deflate.c - libFuzzer harness: the Deflate and Deflate64 decoders.
 * Input: 1 byte (bit 0 selects Deflate64), then the raw deflate stream. */
#include "fuzz_common.h"
#include "codec/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fz7_istream *src = fz7_istream_from_memory(data + 1, size - 1), *dec;
    if (src && fz7_deflate_istream_new(src, data[0] & 1, &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return 0;
}
