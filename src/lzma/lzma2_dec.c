/* lzma2_dec.c - the LZMA2 decoder (xz-file-format.txt 5.3.1) as an istream.
 *
 * LZMA2 is a sequence of chunks, each either stored bytes or one LZMA
 * range-coded run with its own sizes. Chunk headers are read byte-exactly
 * and each chunk's packed bytes are read whole into a buffer padded with
 * zeros, so the LZMA hot loop runs unchecked and nothing past the end
 * byte 0x00 is ever read from src (the xz block reader relies on that). */
#include "lzma/lzma_dec.h"

#include <stdlib.h>
#include <string.h>

/* Largest packed size of one LZMA chunk (16-bit field + 1). */
#define CHUNK_PACKED_MAX ((size_t)1 << 16)

typedef enum { CHUNK_NONE, CHUNK_STORED, CHUNK_LZMA } chunk_kind;

typedef struct lzma2_istream {
    fz7_istream base;
    fz7_istream *src;
    fz7_lzma_dec *dec;
    chunk_kind kind;
    uint32_t chunk_left;    /* unpacked bytes of the current chunk still to produce */
    size_t in_pos, in_end;  /* packed bytes of the current LZMA chunk: buf[in_pos, in_end) */
    bool need_dict_reset;   /* no dictionary yet: the next chunk must reset it */
    bool need_props;        /* the next LZMA chunk must carry lc/lp/pb */
    bool finished;          /* the end byte 0x00 was read */
    bool cut;               /* the input ended inside the current chunk: what
                               its bytes decode to is given, then
                               FZ7_E_TRUNCATED (a salvage wants every byte) */
    fz7_status err;         /* sticky error, reported after delivered bytes */
    uint8_t buf[CHUNK_PACKED_MAX + FZ7_LZMA_IN_MARGIN];
} lzma2_istream;

uint64_t fz7_lzma2_dict_size(uint8_t dict_prop)
{
    if (dict_prop > 40)
        return 0;
    if (dict_prop == 40)
        return 0xFFFFFFFFu;
    return (uint64_t)(2u | (dict_prop & 1u)) << (dict_prop / 2 + 11);
}

/* Reads and applies one chunk header (control byte and sizes, plus the
 * properties byte and the packed data of an LZMA chunk). */
static fz7_status read_chunk_header(lzma2_istream *s)
{
    fz7_lzma_dec *d = s->dec;
    uint8_t h[6];
    s->cut = false;
    fz7_status st = fz7_istream_read_full(s->src, h, 1);
    if (st != FZ7_OK)
        return st;
    uint8_t control = h[0];
    if (control == 0x00) {
        s->finished = true;
        return FZ7_OK;
    }
    if (control >= 0xE0 || control == 0x01) {
        /* Dictionary reset; the next LZMA chunk must set new properties. */
        fz7_lzma_dec_reset_dict(d);
        s->need_dict_reset = false;
        s->need_props = true;
    } else if (s->need_dict_reset) {
        return FZ7_E_DATA;
    }

    if (control < 0x80) {
        if (control > 0x02)
            return FZ7_E_DATA;
        st = fz7_istream_read_full(s->src, h + 1, 2);
        if (st != FZ7_OK)
            return st;
        s->kind = CHUNK_STORED;
        s->chunk_left = (((uint32_t)h[1] << 8) | h[2]) + 1u;
        return FZ7_OK;
    }

    bool has_props = control >= 0xC0;
    st = fz7_istream_read_full(s->src, h + 1, has_props ? 5 : 4);
    if (st != FZ7_OK)
        return st;
    uint32_t unpacked = (((uint32_t)control & 0x1F) << 16) + (((uint32_t)h[1] << 8) | h[2]) + 1u;
    size_t packed = (((size_t)h[3] << 8) | h[4]) + 1u;
    if (has_props) {
        unsigned lc, lp, pb;
        if (!fz7_lzma_props_decode(h[5], &lc, &lp, &pb) || lc + lp > FZ7_LZMA2_LCLP_MAX)
            return FZ7_E_DATA;
        st = fz7_lzma_dec_set_props(d, lc, lp, pb); /* also resets the state */
        if (st != FZ7_OK)
            return st;
        s->need_props = false;
    } else {
        if (s->need_props)
            return FZ7_E_DATA;
        if (control >= 0xA0)
            fz7_lzma_dec_reset_state(d);
    }
    if (packed < FZ7_LZMA_RC_INIT_BYTES)
        return FZ7_E_DATA;
    size_t got = 0;
    st = fz7_istream_read_upto(s->src, s->buf, packed, &got);
    if (st != FZ7_OK)
        return st;
    if (got < FZ7_LZMA_RC_INIT_BYTES)
        return FZ7_E_TRUNCATED;
    s->cut = got < packed;
    memset(s->buf + got, 0, FZ7_LZMA_IN_MARGIN);
    st = fz7_lzma_dec_rc_init(d, s->buf);
    if (st != FZ7_OK)
        return st;
    d->end_marker = false;
    s->in_pos = FZ7_LZMA_RC_INIT_BYTES;
    s->in_end = got;
    s->kind = CHUNK_LZMA;
    s->chunk_left = unpacked;
    return FZ7_OK;
}

/* The last bytes of a cut chunk (fewer than FZ7_LZMA_IN_MARGIN to go):
 * one symbol at a time, each kept only when it read no byte past the end
 * (the buffer's zero padding): then every bit of it came from the input,
 * as a prefix of the stream decodes. Always FZ7_E_TRUNCATED at the end. */
static fz7_status cut_tail(lzma2_istream *s, size_t limit)
{
    fz7_lzma_dec *d = s->dec;
    const uint8_t *in = s->buf + s->in_pos, *end = s->buf + s->in_end;
    while (d->pos < limit && s->chunk_left > 0) {
        size_t p0 = d->pos;
        fz7_status st = fz7_lzma_dec_run(d, &in, end, p0 + 1);
        if (in > end || st != FZ7_OK || d->end_marker) {
            d->pos = p0;   /* a symbol that read padding, or garbage */
            d->pending = 0;
            break;
        }
        if (d->pos == p0)
            break;
        s->in_pos = (size_t)(in - s->buf);
        s->chunk_left -= (uint32_t)(d->pos - p0);
    }
    return FZ7_E_TRUNCATED;
}

/* Produces the next bytes of the stream into the dictionary (at most want). */
static fz7_status decode_more(lzma2_istream *s, size_t want)
{
    fz7_lzma_dec *d = s->dec;
    if (s->kind == CHUNK_NONE)
        return read_chunk_header(s);

    fz7_status st;
    size_t room = fz7_lzma_dec_make_room(d, &st);
    if (st != FZ7_OK)
        return st;
    if (room > want)
        room = want;
    if (room > s->chunk_left)
        room = s->chunk_left;

    if (s->kind == CHUNK_STORED) {
        size_t got = 0;
        st = fz7_istream_read_upto(s->src, d->dict + d->pos, room, &got);
        d->pos += got;   /* the bytes that came, when the input ends early */
        s->chunk_left -= (uint32_t)got;
        if (st != FZ7_OK)
            return st;
        if (got < room)
            return FZ7_E_TRUNCATED;
        if (s->chunk_left == 0)
            s->kind = CHUNK_NONE;
        return FZ7_OK;
    }

    size_t before = d->pos;
    const uint8_t *in = s->buf + s->in_pos;
    /* A cut chunk: only symbols whose bytes all came (a symbol reads at
     * most FZ7_LZMA_IN_MARGIN bytes past where it starts). */
    const uint8_t *stop = s->buf + s->in_end;
    if (s->cut)
        stop = s->in_end > FZ7_LZMA_RC_INIT_BYTES + FZ7_LZMA_IN_MARGIN ? stop - FZ7_LZMA_IN_MARGIN
                                                                        : s->buf + s->in_pos - 1;
    if (s->cut && in > stop)
        return cut_tail(s, before + room);
    st = fz7_lzma_dec_run(d, &in, stop, before + room);
    s->in_pos = (size_t)(in - s->buf);
    s->chunk_left -= (uint32_t)(d->pos - before);
    /* Reading past the chunk's packed size, or an end marker (never
     * allowed in LZMA2), is corrupt data. */
    if (s->in_pos > s->in_end || d->end_marker)
        return FZ7_E_DATA;
    if (st != FZ7_OK)
        return st;
    if (s->cut && (d->pos == before || s->chunk_left == 0))
        return FZ7_E_TRUNCATED;   /* all that the bytes that came hold */
    if (s->chunk_left == 0) {
        /* The chunk must end exactly: no match running on, range decoder
         * finished, all packed bytes used. */
        if (d->pending || d->code != 0 || s->in_pos != s->in_end)
            return FZ7_E_DATA;
        s->kind = CHUNK_NONE;
    }
    return FZ7_OK;
}

static fz7_status lzma2_read(fz7_istream *base, uint8_t *buf, size_t cap, size_t *got)
{
    lzma2_istream *s = (lzma2_istream *)base;
    size_t done = 0;
    while (done < cap) {
        done += fz7_lzma_dec_take(s->dec, buf + done, cap - done);
        if (done == cap || s->err != FZ7_OK || s->finished)
            break;
        s->err = decode_more(s, cap - done);
    }
    *got = done;
    if (done == 0 && s->err != FZ7_OK)
        return s->err;
    return FZ7_OK;
}

static void lzma2_destroy(fz7_istream *base)
{
    lzma2_istream *s = (lzma2_istream *)base;
    fz7_lzma_dec_free(s->dec);
    free(s);
}

fz7_status fz7_lzma2_istream_new_sized(fz7_istream *src, uint8_t dict_prop, uint64_t unpack_size,
                                       uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    uint64_t dict_size = fz7_lzma2_dict_size(dict_prop);
    if (dict_size == 0)
        return FZ7_E_FORMAT;
    lzma2_istream *s = malloc(sizeof *s);
    if (!s)
        return FZ7_E_MEM;
    /* lc/lp/pb arrive with the first LZMA chunk; size the literal
     * probabilities for the LZMA2 maximum lc + lp = 4 now. */
    fz7_status st = fz7_lzma_dec_new(dict_size, unpack_size, mem_limit, FZ7_LZMA2_LCLP_MAX, 0, 0, &s->dec);
    if (st != FZ7_OK) {
        free(s);
        return st;
    }
    s->base.read = lzma2_read;
    s->base.destroy = lzma2_destroy;
    s->src = src;
    s->kind = CHUNK_NONE;
    s->chunk_left = 0;
    s->in_pos = s->in_end = 0;
    s->need_dict_reset = true;
    s->need_props = true;
    s->finished = false;
    s->cut = false;
    s->err = FZ7_OK;
    *out = &s->base;
    return FZ7_OK;
}

fz7_status fz7_lzma2_istream_new(fz7_istream *src, uint8_t dict_prop, uint64_t mem_limit, fz7_istream **out)
{
    return fz7_lzma2_istream_new_sized(src, dict_prop, UINT64_MAX, mem_limit, out);
}
