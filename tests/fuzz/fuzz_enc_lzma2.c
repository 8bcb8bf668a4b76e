/* fuzz_enc_lzma2.c - differential harness of the LZMA2 encoder (one
 * thread; the match finder on a thread of its own when the options say
 * so). Input: FUZZ_CFG_BYTES of options (fuzz_common.h), then the data;
 * flags bit 0 gives the encoder the input size first (a reduced
 * dictionary, as fz7 a does). The stream must decode to the data with
 * fz7's decoder and with liblzma's. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_cfg c;
    if (!fuzz_take_cfg(&data, &size, true, &c))
        return 0;
    if (c.flags & 1)
        fz7_lzma_enc_reduce_dict(&c.lzma, size);
    fuzz_buf enc;
    fuzz_buf_init(&enc);
    fz7_lzma_enc *e;
    FUZZ_CHECK(fz7_lzma2_enc_new(&c.lzma, &enc.os, &e) == FZ7_OK, "level %u", c.level);
    FUZZ_CHECK(fuzz_encode(e, data, size, c.piece_seed) == FZ7_OK, "encode");
    uint8_t dict_prop = fz7_lzma2_enc_dict_prop(e);
    fz7_lzma_enc_free(e);
    fuzz_check_lzma2(data, size, &enc, dict_prop);
    fuzz_buf_free(&enc);
    return 0;
}
