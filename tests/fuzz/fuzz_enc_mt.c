/* fuzz_enc_mt.c - the multi-threaded LZMA2 encoder with 2-4 threads.
 * Input: FUZZ_CFG_BYTES of options (fuzz_common.h; fast parser only, to
 * keep an execution short), then data that is tiled to 1-2 MiB so the
 * stream has several blocks of 1 MiB + a little (with or without the
 * previous block's start). flags: bit 0 the encoder's own threads or a
 * pool's, bit 1 the input size given first (the last blocks cut in
 * quarters), bit 2 end_input() before finish(), bits 3-7 the tiled size.
 * The bytes must equal the one-thread encoder's with the same block size
 * (the output never depends on the thread count) and decode to the input
 * with fz7 and with liblzma. Also the ThreadSanitizer target. */
#include "fuzz_common.h"

static fz7_status encode_mt(const fuzz_cfg *c, unsigned threads, const uint8_t *p, size_t n, fuzz_buf *out,
                            uint8_t *dict_prop)
{
    fz7_lzma2_pool *pool = NULL;
    fz7_lzma_enc *e = NULL;
    fz7_status st = (c->flags & 1) && threads > 1 ? fz7_lzma2_pool_new(threads, &pool) : FZ7_OK;
    if (st == FZ7_OK)
        st = pool ? fz7_lzma2_enc_new_pooled(&c->lzma, pool, c->block_size, &out->os, &e)
                  : fz7_lzma2_enc_new_mt(&c->lzma, threads, c->block_size, &out->os, &e);
    uint32_t seed = c->piece_seed;
    for (size_t off = 0; off < n && st == FZ7_OK;) {
        size_t k = fuzz_piece(&seed, n - off);
        st = fz7_lzma_enc_write(e, p + off, k);
        off += k;
    }
    /* FZ7_E_ARG: the one-block stream is not a multi-threaded handle */
    if (st == FZ7_OK && threads > 1 && (c->flags & 4) && fz7_lzma2_mt_end_input(e) == FZ7_E_ARG)
        st = FZ7_OK;
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(e);
    if (e)
        *dict_prop = fz7_lzma2_enc_dict_prop(e);
    fz7_lzma_enc_free(e);
    fz7_lzma2_pool_free(pool);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_cfg c;
    size_t n;
    if (!fuzz_take_cfg(&data, &size, true, &c) || size == 0)
        return 0;
    c.lzma.mode = FZ7_LZMA_MODE_FAST;
    c.threads = c.threads < 2 ? 2 : c.threads;
    uint8_t *big = fuzz_tile(data, size, FZ7_LZMA2_MT_BLOCK_MIN + ((size_t)(c.flags >> 3) << 15), &n);
    if (!big)
        return 0;
    if (c.flags & 2)
        fz7_lzma_enc_reduce_dict(&c.lzma, n);
    fuzz_buf one, many;
    fuzz_buf_init(&one), fuzz_buf_init(&many);
    uint8_t prop1 = 0, propn = 0;
    fz7_status st = encode_mt(&c, 1, big, n, &one, &prop1);
    FUZZ_CHECK(st == FZ7_OK, "one thread: %s", fz7_status_str(st));
    st = encode_mt(&c, c.threads, big, n, &many, &propn);
    FUZZ_CHECK(st == FZ7_OK, "%u threads, flags %u: %s", c.threads, c.flags, fz7_status_str(st));
    FUZZ_CHECK(prop1 == propn, "dictionary byte %u vs %u", prop1, propn);
    fuzz_check_lzma2(big, n, &one, prop1);
    fuzz_check_lzma2(big, n, &many, propn);
    fuzz_same("threads", one.p, one.n, many.p, many.n);
    fuzz_check_lzma2(big, n, &many, propn);
    fuzz_buf_free(&one), fuzz_buf_free(&many);
    free(big);
    return 0;
}
