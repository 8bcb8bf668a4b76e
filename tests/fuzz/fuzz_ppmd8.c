/* fuzz_ppmd8.c - libFuzzer harness: the PPMd variant I (rev. 1) decoder,
 * zip's method 98. Input: the entry's 2 property bytes (order, model
 * memory in MiB, restore method; models over the harness memory limit
 * are refused by the decoder), 2 bytes output size, then the range-coded
 * data. */
#include "fuzz_common.h"
#include "codec/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    unsigned order, restore;
    uint32_t mem;
    fz7_status st = fz7_ppmd8_zip_props_parse(data, &order, &mem, &restore);
    data += 2, size -= 2;
    unsigned out_size = fuzz_take16(&data, &size);
    if (st != FZ7_OK)
        return 0;
    fz7_istream *src = fz7_istream_from_memory(data, size), *dec;
    if (src && fz7_ppmd8_istream_new(src, order, mem, restore, out_size, FUZZ_MEM_LIMIT / 4, &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return 0;
}
