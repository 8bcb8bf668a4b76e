/* fuzz_lzma.c - libFuzzer harness: the raw LZMA decoder.
 * Input: 5 property bytes (lc/lp/pb, dictionary size), 2 bytes choosing
 * the unpack size (0xFFFF: unknown, end marker required), the coded data. */
#include "fuzz_common.h"
#include "lzma/lzma_dec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    const uint8_t *props = data;
    data += 5, size -= 5;
    unsigned sz = fuzz_take16(&data, &size);
    fz7_istream *src = fz7_istream_from_memory(data, size), *dec;
    if (src && fz7_lzma_istream_new(src, props, sz == 0xFFFF ? UINT64_MAX : sz, FUZZ_MEM_LIMIT,
                                    &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return 0;
}
