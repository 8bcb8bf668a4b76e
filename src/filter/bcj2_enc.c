/* bcj2_enc.c - BCJ2 encoder (method 0303011B), the exact inverse of the
 * decoder in bcj2.c: x86 code is split into a main stream, the absolute
 * targets of converted E8 calls and of E9/Jcc jumps, and a range-coded
 * stream of one "converted?" bit per branch opcode. */
#include "filter/bcj2.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define IN_BUF ((size_t)1 << 16)
#define MAIN_OUT ((size_t)1 << 16)
#define SIDE_OUT ((size_t)1 << 12)
#define RC_OUT ((size_t)1 << 12)

#define PROB_BITS 11
#define PROB_ONE (1u << PROB_BITS)
#define MOVE_BITS 5
#define RC_TOP (1u << 24)

/* Operands whose displacement lies outside -LIMIT..LIMIT-1 stay relative:
 * real near branches are within a few hundred MiB, and with a limit below
 * 0x0F << 24 a converted operand never ends in 0F, so it never forms a
 * 0F 8x pair with the byte after it. */
#define RELAT_LIMIT ((uint32_t)0x0F << 24)

/* A file inside the stream: branches in it are converted only when their
 * target lies inside it too (size 0: unknown, the displacement limit
 * decides). */
typedef struct {
    uint64_t start, size;
} file_span;

/* Output stream k's pending bytes. */
typedef struct {
    uint8_t *buf;
    size_t cap, len;
    uint64_t total;
} out_buf;

struct fz7_bcj2_enc {
    fz7_ostream *dst[FZ7_BCJ2_STREAMS];
    out_buf out[FZ7_BCJ2_STREAMS];
    fz7_status err;            /* sticky */
    bool finished;
    /* Range coder (LZMA's: 11-bit probabilities, shift 5, carry through
     * a cached byte and a run of 0xFF bytes). */
    uint64_t low;
    uint32_t range;
    uint8_t cache;
    uint64_t cache_run;        /* the cached byte plus 0xFF bytes pending */
    /* Input not yet converted: in[0..in_len). When op_pending, the branch
     * opcode op (preceded by op_prev) has gone to the main stream but its
     * bit has not been coded: in[0..3] will be its operand. */
    uint64_t pos;              /* stream position of in[0] */
    file_span *files;          /* files[file_head .. n_files): the spans that
                                  start at or after the file holding in[0] */
    size_t n_files, file_head, cap_files;
    uint8_t prev;              /* the byte before in[0] */
    bool op_pending;
    uint8_t op, op_prev;
    size_t in_len;
    uint16_t probs[2 + 256];   /* [0..255] E8 by previous byte, [256] E9, [257] Jcc */
    uint8_t in[IN_BUF];
    uint8_t main_buf[MAIN_OUT];
    uint8_t side_buf[2][SIDE_OUT];
    uint8_t rc_buf[RC_OUT];
};

static fz7_status out_flush(fz7_bcj2_enc *e, unsigned k)
{
    out_buf *o = &e->out[k];
    if (o->len == 0)
        return FZ7_OK;
    fz7_status st = e->dst[k]->write(e->dst[k], o->buf, o->len);
    o->len = 0;
    return st;
}

static fz7_status out_byte(fz7_bcj2_enc *e, unsigned k, uint8_t v)
{
    out_buf *o = &e->out[k];
    if (o->len == o->cap) {
        fz7_status st = out_flush(e, k);
        if (st != FZ7_OK)
            return st;
    }
    o->buf[o->len++] = v;
    o->total++;
    return FZ7_OK;
}

static fz7_status out_bytes(fz7_bcj2_enc *e, unsigned k, const uint8_t *p, size_t n)
{
    out_buf *o = &e->out[k];
    o->total += n;
    while (n) {
        if (o->len == o->cap) {
            fz7_status st = out_flush(e, k);
            if (st != FZ7_OK)
                return st;
        }
        size_t take = o->cap - o->len < n ? o->cap - o->len : n;
        memcpy(o->buf + o->len, p, take);
        o->len += take;
        p += take;
        n -= take;
    }
    return FZ7_OK;
}

/* Moves the top byte of low out; a carry into it reaches the cached byte
 * and the 0xFF bytes after it. */
static fz7_status rc_shift_low(fz7_bcj2_enc *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32);
        uint8_t v = e->cache;
        do {
            fz7_status st = out_byte(e, FZ7_BCJ2_RC, (uint8_t)(v + carry));
            if (st != FZ7_OK)
                return st;
            v = 0xFF;
        } while (--e->cache_run != 0);
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->cache_run++;
    e->low = (e->low & 0x00FFFFFFu) << 8;
    return FZ7_OK;
}

static fz7_status rc_bit(fz7_bcj2_enc *e, uint16_t *p, bool bit)
{
    uint32_t bound = (e->range >> PROB_BITS) * *p;
    if (!bit) {
        e->range = bound;
        *p = (uint16_t)(*p + ((PROB_ONE - *p) >> MOVE_BITS));
    } else {
        e->low += bound;
        e->range -= bound;
        *p = (uint16_t)(*p - (*p >> MOVE_BITS));
    }
    while (e->range < RC_TOP) {
        e->range <<= 8;
        fz7_status st = rc_shift_low(e);
        if (st != FZ7_OK)
            return st;
    }
    return FZ7_OK;
}

/* An opcode whose operand BCJ2 may convert: E8 (call), E9 (jmp), or
 * 0F 80..8F (Jcc near). Same test as the decoder's. */
static inline bool is_branch(uint8_t prev, uint8_t b)
{
    return (b & 0xFE) == 0xE8 || (prev == 0x0F && (b & 0xF0) == 0x80);
}

/* Whether the branch whose opcode is at stream position op_pos, with
 * displacement rel, is converted: as 7-Zip does it, when the target lies
 * inside the branch's own file (its size known), else when the
 * displacement is within the limit. */
static bool want_convert(fz7_bcj2_enc *e, uint64_t op_pos, uint32_t rel)
{
    while (e->file_head + 1 < e->n_files && e->files[e->file_head + 1].start <= op_pos)
        e->file_head++;
    bool near = rel + RELAT_LIMIT < 2 * RELAT_LIMIT;   /* -LIMIT <= rel < LIMIT */
    if (e->file_head >= e->n_files || e->files[e->file_head].start > op_pos)
        return near;
    const file_span *f = &e->files[e->file_head];
    if (f->size == 0)
        return near;
    /* Targets wrap at 4 GiB as the decoder's do. */
    uint32_t off = (uint32_t)(op_pos + 5 + rel - f->start);
    if (f->size < ((uint64_t)1 << 32) && off >= f->size)
        return false;
    return f->size <= RELAT_LIMIT || near;
}

static uint16_t *prob_of(fz7_bcj2_enc *e, uint8_t prev, uint8_t op)
{
    return op == 0xE8 ? &e->probs[prev] : op == 0xE9 ? &e->probs[256] : &e->probs[257];
}

/* Codes the bit of the branch opcode op whose operand is the 4 bytes at
 * `operand` (NULL: fewer than 4 bytes are left, so it stays). end_pos is
 * the stream position just after the operand. Sets *converted. */
static fz7_status code_branch(fz7_bcj2_enc *e, uint8_t op_prev, uint8_t op,
                              const uint8_t *operand, uint64_t end_pos, bool *converted)
{
    bool conv = false;
    uint32_t rel = 0;
    if (operand) {
        rel = fz7_get32le(operand);
        conv = want_convert(e, end_pos - 5, rel);
    }
    fz7_status st = rc_bit(e, prob_of(e, op_prev, op), conv);
    if (st == FZ7_OK && conv) {
        /* Absolute target, big endian (the decoder subtracts end_pos). */
        uint32_t target = rel + (uint32_t)end_pos;
        uint8_t t[4] = {(uint8_t)(target >> 24), (uint8_t)(target >> 16), (uint8_t)(target >> 8),
                        (uint8_t)target};
        st = out_bytes(e, op == 0xE8 ? FZ7_BCJ2_CALL : FZ7_BCJ2_JUMP, t, 4);
    }
    *converted = conv;
    return st;
}

/* Converts what in[] holds. Without `final`, an opcode with fewer than 4
 * bytes after it waits for more input (op_pending); with it, such an
 * opcode keeps its operand (bit 0), and the stream's last byte gets no
 * bit at all, as the decoder expects. */
static fz7_status process(fz7_bcj2_enc *e, bool final)
{
    const uint8_t *in = e->in;
    size_t n = e->in_len, i = 0;
    uint8_t prev = e->prev;
    fz7_status st = FZ7_OK;
    bool conv;
    if (e->op_pending) {
        if (n < 4 && !final)
            return FZ7_OK;
        e->op_pending = false;
        if (n == 0)
            goto done;   /* the opcode was the last byte: no bit */
        st = code_branch(e, e->op_prev, e->op, n >= 4 ? in : NULL, e->pos + 4, &conv);
        if (st != FZ7_OK)
            return st;
        if (conv) {
            prev = in[3];
            i = 4;
        }
    }
    while (i < n) {
        /* Plain bytes up to and including the next branch opcode. */
        size_t start = i;
        uint8_t before = prev, b = 0;
        bool found = false;
        while (i < n) {
            b = in[i++];
            if (is_branch(before, b)) {
                found = true;
                break;
            }
            before = b;
        }
        if ((st = out_bytes(e, FZ7_BCJ2_MAIN, in + start, i - start)) != FZ7_OK)
            return st;
        if (!found) {
            prev = b;
            break;
        }
        prev = b;
        if (n - i < 4) {
            if (!final) {
                e->op_pending = true;
                e->op = b;
                e->op_prev = before;
                break;
            }
            if (i == n)
                break;   /* the last byte: no bit */
            if ((st = code_branch(e, before, b, NULL, 0, &conv)) != FZ7_OK)
                return st;
            continue;
        }
        if ((st = code_branch(e, before, b, in + i, e->pos + i + 4, &conv)) != FZ7_OK)
            return st;
        if (conv) {
            prev = in[i + 3];
            i += 4;
        }
    }
done:
    e->prev = prev;
    e->pos += i;
    if (e->file_head > 0 && e->file_head * 2 >= e->n_files) {
        e->n_files -= e->file_head;
        memmove(e->files, e->files + e->file_head, e->n_files * sizeof *e->files);
        e->file_head = 0;
    }
    memmove(e->in, in + i, n - i);
    e->in_len = n - i;
    return FZ7_OK;
}

fz7_status fz7_bcj2_enc_new(fz7_ostream *dst[FZ7_BCJ2_STREAMS], fz7_bcj2_enc **out)
{
    *out = NULL;
    fz7_bcj2_enc *e = malloc(sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    memset(e, 0, offsetof(fz7_bcj2_enc, in));
    for (unsigned k = 0; k < FZ7_BCJ2_STREAMS; k++)
        e->dst[k] = dst[k];
    e->out[FZ7_BCJ2_MAIN] = (out_buf){e->main_buf, MAIN_OUT, 0, 0};
    e->out[FZ7_BCJ2_CALL] = (out_buf){e->side_buf[0], SIDE_OUT, 0, 0};
    e->out[FZ7_BCJ2_JUMP] = (out_buf){e->side_buf[1], SIDE_OUT, 0, 0};
    e->out[FZ7_BCJ2_RC] = (out_buf){e->rc_buf, RC_OUT, 0, 0};
    e->range = 0xFFFFFFFFu;
    e->cache_run = 1;
    for (size_t i = 0; i < sizeof e->probs / sizeof e->probs[0]; i++)
        e->probs[i] = PROB_ONE / 2;
    *out = e;
    return FZ7_OK;
}

fz7_status fz7_bcj2_enc_file(fz7_bcj2_enc *e, uint64_t size)
{
    if (e->err != FZ7_OK)
        return e->err;
    if (e->finished)
        return FZ7_E_ARG;
    if (e->n_files == e->cap_files) {
        size_t nc = e->cap_files ? e->cap_files * 2 : 16;
        file_span *f = realloc(e->files, nc * sizeof *f);
        if (!f)
            return e->err = FZ7_E_MEM;
        e->files = f;
        e->cap_files = nc;
    }
    uint64_t start = e->pos + e->in_len;
    /* A file that got no bytes is replaced by the next one. */
    if (e->n_files > e->file_head && e->files[e->n_files - 1].start == start)
        e->n_files--;
    e->files[e->n_files++] = (file_span){start, size};
    return FZ7_OK;
}

fz7_status fz7_bcj2_enc_write(fz7_bcj2_enc *e, const uint8_t *p, size_t n)
{
    if (e->err != FZ7_OK)
        return e->err;
    if (e->finished)
        return FZ7_E_ARG;
    while (n) {
        size_t take = IN_BUF - e->in_len < n ? IN_BUF - e->in_len : n;
        memcpy(e->in + e->in_len, p, take);
        e->in_len += take;
        p += take;
        n -= take;
        if (e->in_len == IN_BUF) {
            fz7_status st = process(e, false);
            if (st != FZ7_OK)
                return e->err = st;
        }
    }
    return FZ7_OK;
}

fz7_status fz7_bcj2_enc_finish(fz7_bcj2_enc *e)
{
    if (e->err != FZ7_OK)
        return e->err;
    if (e->finished)
        return FZ7_E_ARG;
    e->finished = true;
    fz7_status st = process(e, true);
    for (int i = 0; st == FZ7_OK && i < 5; i++)
        st = rc_shift_low(e);
    for (unsigned k = 0; st == FZ7_OK && k < FZ7_BCJ2_STREAMS; k++)
        st = out_flush(e, k);
    if (st != FZ7_OK)
        e->err = st;
    return st;
}

uint64_t fz7_bcj2_enc_bytes_out(const fz7_bcj2_enc *e, unsigned stream)
{
    return stream < FZ7_BCJ2_STREAMS ? e->out[stream].total : 0;
}

void fz7_bcj2_enc_free(fz7_bcj2_enc *e)
{
    if (!e)
        return;
    free(e->files);
    free(e);
}
