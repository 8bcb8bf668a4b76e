/* fuzz_bcj2.c - libFuzzer harness: the BCJ2 decoder with its four inputs.
 * Input: 2 bytes output size, 3 x 2 bytes lengths of the main, call and
 * jump streams (cut to what is there), then those streams; the rest is the
 * range-coded stream. */
#include "fuzz_common.h"
#include "filter/bcj2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned out_size = fuzz_take16(&data, &size), len[3];
    for (int i = 0; i < 3; i++)
        len[i] = fuzz_take16(&data, &size);
    fz7_istream *in[4] = {0}, *dec;
    for (int i = 0; i < 3; i++) {
        size_t n = len[i] < size ? len[i] : size;
        in[i] = fz7_istream_from_memory(data, n);
        data += n, size -= n;
    }
    in[3] = fz7_istream_from_memory(data, size);
    if (in[0] && in[1] && in[2] && in[3] && fz7_bcj2_istream_new(in, out_size, &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    for (int i = 0; i < 4; i++)
        fz7_istream_free(in[i]);
    return 0;
}
