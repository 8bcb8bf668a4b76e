/* fuzz_enc_lzma.c - differential harness of the raw LZMA (LZMA1) encoder.
 * Input: FUZZ_CFG_BYTES of options (fuzz_common.h: level, parser, match
 * finder, lc/lp/pb, nice_len, depth, dictionary, end marker, match finder
 * thread, write pieces), then the data. The stream fz7 writes must decode
 * to the data with fz7's decoder (size known, or unknown when it has the
 * end marker) and with liblzma's (when lc + lp <= 4, its limit). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_cfg c;
    if (!fuzz_take_cfg(&data, &size, false, &c))
        return 0;
    fuzz_buf enc, out;
    fuzz_buf_init(&enc), fuzz_buf_init(&out);
    fz7_lzma_enc *e;
    uint8_t props[5];
    FUZZ_CHECK(fz7_lzma_enc_new(&c.lzma, &enc.os, &e) == FZ7_OK, "level %u", c.level);
    FUZZ_CHECK(fuzz_encode(e, data, size, c.piece_seed) == FZ7_OK, "encode");
    fz7_lzma_enc_props(e, props);
    fz7_lzma_enc_free(e);

    uint64_t usize = c.lzma.end_marker && (c.flags & 1) ? UINT64_MAX : size;
    fz7_istream *src = fz7_istream_from_memory(enc.p, enc.n), *dec;
    FUZZ_CHECK(fz7_lzma_istream_new(src, props, usize, FUZZ_MEM_LIMIT, &dec) == FZ7_OK, "decoder");
    fz7_status st = fuzz_read_all(dec, &out);
    FUZZ_CHECK(st == FZ7_OK, "fz7 decode: %s", fz7_status_str(st));
    fuzz_same("fz7", data, size, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);

    if (c.lzma.lc + c.lzma.lp <= LZMA_LCLP_MAX) {
        lzma_options_lzma l = fuzz_xz_lzma_opts(&c.lzma);
        l.dict_size = fz7_get32le(props + 1);
        l.ext_flags = LZMA_LZMA1EXT_ALLOW_EOPM;
        lzma_set_ext_size(l, usize);
        lzma_filter f[2] = {{LZMA_FILTER_LZMA1EXT, &l}, {LZMA_VLI_UNKNOWN, NULL}};
        lzma_ret r = fuzz_xz_decode(f, enc.p, enc.n, size, &out);
        FUZZ_CHECK(r == LZMA_STREAM_END, "liblzma: %d", (int)r);
        fuzz_same("liblzma", data, size, out.p, out.n);
    }
    fuzz_buf_free(&enc), fuzz_buf_free(&out);
    return 0;
}
