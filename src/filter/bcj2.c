/* bcj2.c - BCJ2 decoder: merges the main, call and jump streams of a 7z
 * BCJ2 coder back into x86 code, one range-coded bit per E8, E9 or Jcc
 * opcode telling whether its operand was moved out of the main stream. */
#include "filter/bcj2.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAIN_BUF ((size_t)1 << 16)
#define SIDE_BUF ((size_t)1 << 12)

#define PROB_BITS 11
#define PROB_ONE (1u << PROB_BITS)
#define MOVE_BITS 5
#define RC_TOP (1u << 24)

/* One buffered input. */
typedef struct {
    fz7_istream *src;
    uint8_t *buf;
    size_t cap, pos, len;
} bcj2_input;

typedef struct {
    fz7_istream base;
    bcj2_input in[4];
    uint64_t out_size, out_pos;
    uint32_t range, code;
    bool rc_ready;
    uint8_t prev;              /* the byte before the next main byte */
    uint8_t pend[4];           /* a restored operand not yet handed out */
    unsigned pend_pos, pend_len;
    fz7_status err;
    uint16_t probs[2 + 256];   /* [0..255] E8 by previous byte, [256] E9, [257] Jcc */
    uint8_t main_buf[MAIN_BUF];
    uint8_t side_buf[3][SIDE_BUF];
} bcj2_istream;

/* Makes at least one byte available; *empty when the input has ended. */
static fz7_status input_fill(bcj2_input *b, bool *empty)
{
    *empty = false;
    if (b->pos < b->len)
        return FZ7_OK;
    size_t got = 0;
    fz7_status st = b->src->read(b->src, b->buf, b->cap, &got);
    if (st != FZ7_OK)
        return st;
    b->pos = 0;
    b->len = got;
    *empty = got == 0;
    return FZ7_OK;
}

static fz7_status input_byte(bcj2_input *b, uint8_t *v)
{
    bool empty;
    fz7_status st = input_fill(b, &empty);
    if (st != FZ7_OK)
        return st;
    if (empty)
        return FZ7_E_DATA;
    *v = b->buf[b->pos++];
    return FZ7_OK;
}

/* An opcode whose operand BCJ2 may have converted: E8 (call), E9 (jmp),
 * or 0F 80..8F (Jcc near). */
static inline bool is_branch(uint8_t prev, uint8_t b)
{
    return (b & 0xFE) == 0xE8 || (prev == 0x0F && (b & 0xF0) == 0x80);
}

/* One bit of the range-coded stream with probability *p (the LZMA range
 * coder: 11-bit probabilities, shift 5). */
static fz7_status rc_bit(bcj2_istream *z, uint16_t *p, unsigned *bit)
{
    fz7_status st;
    uint8_t v;
    if (!z->rc_ready) {
        z->range = 0xFFFFFFFFu;
        z->code = 0;
        for (int i = 0; i < 5; i++) {
            if ((st = input_byte(&z->in[3], &v)))
                return st;
            z->code = (z->code << 8) | v;
        }
        z->rc_ready = true;
    }
    if (z->range < RC_TOP) {
        if ((st = input_byte(&z->in[3], &v)))
            return st;
        z->range <<= 8;
        z->code = (z->code << 8) | v;
    }
    uint32_t bound = (z->range >> PROB_BITS) * *p;
    if (z->code < bound) {
        z->range = bound;
        *p = (uint16_t)(*p + ((PROB_ONE - *p) >> MOVE_BITS));
        *bit = 0;
    } else {
        z->range -= bound;
        z->code -= bound;
        *p = (uint16_t)(*p - (*p >> MOVE_BITS));
        *bit = 1;
    }
    return FZ7_OK;
}

/* After a branch opcode b (preceded by prev) at out_pos - 1: decodes its
 * bit and, when set, restores the relative operand. */
static fz7_status branch(bcj2_istream *z, uint8_t prev, uint8_t b)
{
    uint16_t *p = b == 0xE8 ? &z->probs[prev] : b == 0xE9 ? &z->probs[256] : &z->probs[257];
    unsigned bit;
    fz7_status st = rc_bit(z, p, &bit);
    if (st != FZ7_OK)
        return st;
    if (!bit) {
        z->prev = b;
        return FZ7_OK;
    }
    if (z->out_size - z->out_pos < 4)
        return FZ7_E_DATA;
    bcj2_input *side = &z->in[b == 0xE8 ? 1 : 2];
    uint32_t target = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t v;
        if ((st = input_byte(side, &v)))
            return st;
        target = (target << 8) | v;
    }
    /* Stored absolute; relative to the end of the 4-byte operand. */
    uint32_t rel = target - (uint32_t)(z->out_pos + 4);
    fz7_put32le(z->pend, rel);
    z->pend_pos = 0;
    z->pend_len = 4;
    z->prev = (uint8_t)(rel >> 24);
    return FZ7_OK;
}

static fz7_status bcj2_fill(bcj2_istream *z, uint8_t *buf, size_t cap, size_t *got)
{
    fz7_status st;
    while (*got < cap) {
        if (z->pend_pos < z->pend_len) {
            buf[(*got)++] = z->pend[z->pend_pos++];
            z->out_pos++;
            continue;
        }
        if (z->out_pos == z->out_size)
            break;
        bool empty;
        bcj2_input *m = &z->in[0];
        if ((st = input_fill(m, &empty)))
            return st;
        if (empty)
            return FZ7_E_DATA;
        /* Copy plain bytes up to and including the next branch opcode. */
        const uint8_t *src = m->buf + m->pos;
        uint8_t *dst = buf + *got;
        size_t n = m->len - m->pos, i = 0;
        if (n > cap - *got)
            n = cap - *got;
        if (n > z->out_size - z->out_pos)
            n = (size_t)(z->out_size - z->out_pos);
        uint8_t prev = z->prev, before = 0, b = 0;
        bool found = false;
        while (i < n) {
            b = src[i];
            dst[i++] = b;
            if (is_branch(prev, b)) {
                found = true;
                break;
            }
            prev = b;
        }
        before = prev;
        m->pos += i;
        *got += i;
        z->out_pos += i;
        if (!found) {
            z->prev = prev;
            continue;
        }
        if (z->out_pos == z->out_size) {
            z->prev = b;   /* the last byte: no bit was coded for it */
            break;
        }
        if ((st = branch(z, before, b)))
            return st;
    }
    return FZ7_OK;
}

static fz7_status bcj2_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    bcj2_istream *z = (bcj2_istream *)s;
    *got = 0;
    if (z->err != FZ7_OK)
        return z->err;
    fz7_status st = bcj2_fill(z, buf, cap, got);
    if (st != FZ7_OK) {
        z->err = st;
        if (*got == 0)
            return st;
    }
    return FZ7_OK;
}

static void bcj2_destroy(fz7_istream *s) { free(s); }

fz7_status fz7_bcj2_istream_new(fz7_istream *in[4], uint64_t out_size, fz7_istream **out)
{
    *out = NULL;
    bcj2_istream *z = malloc(sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    memset(z, 0, offsetof(bcj2_istream, main_buf));
    z->base.read = bcj2_read;
    z->base.destroy = bcj2_destroy;
    for (int i = 0; i < 4; i++) {
        z->in[i].src = in[i];
        z->in[i].buf = i == 0 ? z->main_buf : z->side_buf[i - 1];
        z->in[i].cap = i == 0 ? MAIN_BUF : SIDE_BUF;
    }
    for (int i = 0; i < 258; i++)
        z->probs[i] = PROB_ONE / 2;
    z->out_size = out_size;
    *out = &z->base;
    return FZ7_OK;
}
