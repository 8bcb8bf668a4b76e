/* lzma2_enc.c - LZMA2 chunk framing (xz-file-format.txt 5.3.1) over the
 * LZMA coder of lzma_enc.c: each chunk of at most 2 MiB unpacked and
 * 64 KiB packed becomes an LZMA chunk, or an uncompressed one where that
 * is not larger; pieces that lzma2_store.c finds incompressible are
 * stored without coding; the stream ends with the byte 0x00. The chunk
 * headers carry the resets the decoder must make: dictionary, properties,
 * state. */
#include "lzma/lzma_enc_impl.h"

#include <stdint.h>

uint8_t fz7_lzma2_dict_prop(uint32_t dict_size)
{
    for (uint8_t p = 0; p < 40; p++) {
        uint64_t size = (uint64_t)(2 | (p & 1)) << (p / 2 + 11);
        if (size >= dict_size)
            return p;
    }
    return 40;
}

uint8_t fz7_lzma2_enc_dict_prop(const fz7_lzma_enc *e)
{
    return fz7_lzma2_dict_prop(e->opts.dict_size);
}

/* Ends the open chunk as an LZMA chunk, or as an uncompressed chunk when
 * that is not larger. */
static void close_chunk(struct fz7_lzma_enc *e)
{
    uint32_t u = (uint32_t)(e->pos - e->chunk_start);
    if (u == 0)
        return;
    fz7_rc_flush(&e->rc);
    uint32_t c = (uint32_t)e->rc.out_pos;
    uint8_t h[6];
    if (c + 2 >= u) {
        const uint8_t *data = e->mf.buf + (e->mf.pos - e->ahead) - u;
        h[0] = e->need_dict_reset ? 0x01 : 0x02;
        h[1] = (uint8_t)((u - 1) >> 8);
        h[2] = (uint8_t)(u - 1);
        fz7_lzma_enc_emit(e, h, 3);
        fz7_lzma_enc_emit_input(e, data, e->chunk_start, u);
        e->need_dict_reset = 0;
        /* The decoder never saw the symbols just coded: start the model over
         * and say so in the next LZMA chunk. */
        fz7_lzma_enc_reset_model(e);
        e->need_state_reset = 1;
    } else {
        uint8_t ctrl = e->need_dict_reset ? 0xE0 : e->need_props ? 0xC0 : e->need_state_reset ? 0xA0 : 0x80;
        h[0] = (uint8_t)(ctrl | ((u - 1) >> 16));
        h[1] = (uint8_t)((u - 1) >> 8);
        h[2] = (uint8_t)(u - 1);
        h[3] = (uint8_t)((c - 1) >> 8);
        h[4] = (uint8_t)(c - 1);
        h[5] = fz7_lzma_props_encode(e->opts.lc, e->opts.lp, e->opts.pb);
        fz7_lzma_enc_emit(e, h, ctrl >= 0xC0 ? 6 : 5);
        fz7_lzma_enc_emit(e, e->out, c);
        e->need_dict_reset = e->need_props = e->need_state_reset = 0;
    }
    fz7_rc_reset(&e->rc);
    e->chunk_start = e->pos;
}

/* Writes the n bytes at the coder's position (buffer index idx) as one
 * uncompressed chunk; the open chunk is closed (close_chunk, which reads
 * the coder's position from the match finder's) and the match finder is
 * past them already. */
static void emit_stored(struct fz7_lzma_enc *e, uint32_t idx, uint32_t n)
{
    uint8_t h[3] = {e->need_dict_reset ? 0x01 : 0x02, (uint8_t)((n - 1) >> 8), (uint8_t)(n - 1)};
    fz7_lzma_enc_emit(e, h, 3);
    fz7_lzma_enc_emit_input(e, e->mf.buf + idx, e->pos, n);
    e->need_dict_reset = 0;
    e->ahead = 0;
    e->have_matches = 0;
    e->pos += n;
    e->chunk_start = e->pos;
    e->store_next = e->pos;
}

/* The next piece, or all that is left when finishing, stored if
 * fz7_lzma2_store_worthy says so; the match finder passes over it,
 * recording only its anchors. The model is kept: the decoder's state and
 * reps do not change over an uncompressed chunk either. */
static int store_piece(struct fz7_lzma_enc *e)
{
    uint32_t idx = e->mf.pos - e->ahead;
    uint32_t n = e->mf.end - idx;
    if (n > FZ7_LZMA2_STORE_PIECE)
        n = FZ7_LZMA2_STORE_PIECE;
    e->store_next = e->pos + FZ7_LZMA2_STORE_PIECE;
    fz7_lzma2_store_scan scan;
    if (n < FZ7_LZMA2_STORE_MIN || !fz7_lzma2_store_worthy(&e->mf, idx, n, &scan))
        return 0;
    close_chunk(e);
    fz7_lzma2_store_pass(&e->mf, idx + n, &scan);
    emit_stored(e, idx, n);
    return 1;
}

static int store_mt_pass(struct fz7_lzma_enc *e)
{
    uint32_t n = fz7_lz_mf_mt_pass_at(e->mf_mt, e->ahead);
    if (n == 0)
        return 0;
    uint32_t idx = e->mf.pos - e->ahead;
    close_chunk(e);
    fz7_lz_mf_mt_skip(e->mf_mt, n - e->ahead);
    emit_stored(e, idx, n);
    return 1;
}

static void end_stream(struct fz7_lzma_enc *e)
{
    close_chunk(e);
    uint8_t end = 0x00;
    fz7_lzma_enc_emit(e, &end, 1);
}

const fz7_lzma_frame fz7_lzma2_frame = {close_chunk, store_piece, store_mt_pass, end_stream,
                                        fz7_lzma2_store_test};

fz7_status fz7_lzma2_enc_new(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **out)
{
    if (out)
        *out = NULL;
    if (opts && opts->lc + opts->lp > FZ7_LZMA2_LCLP_MAX)
        return FZ7_E_ARG;
    return fz7_lzma_enc_new_framed(opts, dst, &fz7_lzma2_frame, out);
}
