/* fuzz_lzma2.c - libFuzzer harness: the LZMA2 decoder (chunk headers,
 * dictionary/state resets, uncompressed chunks).
 * Input: 1 dictionary-size byte, 2 bytes unpack size for the sized variant
 * (0xFFFF: the unsized one), then the LZMA2 stream. */
#include "fuzz_common.h"
#include "lzma/lzma_dec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    uint8_t dict_prop = data[0];
    data++, size--;
    unsigned sz = fuzz_take16(&data, &size);
    fz7_istream *src = fz7_istream_from_memory(data, size), *dec = NULL;
    fz7_status st = !src ? FZ7_E_MEM
                    : sz == 0xFFFF ? fz7_lzma2_istream_new(src, dict_prop, FUZZ_MEM_LIMIT, &dec)
                    : fz7_lzma2_istream_new_sized(src, dict_prop, sz, FUZZ_MEM_LIMIT, &dec);
    if (st == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return 0;
}
