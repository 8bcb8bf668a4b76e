/* 7z_bcj2.c - the BCJ2 decoder (7z method 0303011B), the one 7z coder with
 * several inputs: x86 code whose CALL (E8) and JMP (E9, 0F 8x) targets were
 * moved into separate streams, with a range-coded bit per candidate opcode
 * saying whether it was converted. Lives in format/ because only 7z folders
 * use it. */
#include "format/7z_internal.h"

#include <stdlib.h>
#include <string.h>

#define BCJ2_PROB_BITS 11
#define BCJ2_PROB_INIT (1u << (BCJ2_PROB_BITS - 1))
#define BCJ2_MOVE_BITS 5
#define BCJ2_TOP (1u << 24)

/* A byte-at-a-time reader over one input stream. */
typedef struct {
    fz7_istream *s;
    size_t pos, fill;
    uint8_t buf[4096];
} byte_reader;

/* Next byte; FZ7_E_DATA when the stream has ended (BCJ2's side streams
 * hold exactly what the main stream asks for). */
static fz7_status next_byte(byte_reader *r, uint8_t *b)
{
    if (r->pos == r->fill) {
        size_t got = 0;
        fz7_status st = r->s->read(r->s, r->buf, sizeof r->buf, &got);
        if (st != FZ7_OK)
            return st;
        if (got == 0)
            return FZ7_E_DATA;
        r->pos = 0;
        r->fill = got;
    }
    *b = r->buf[r->pos++];
    return FZ7_OK;
}

typedef struct {
    fz7_istream base;
    byte_reader main, call, jump, rc;
    uint64_t out_pos, out_size;
    uint32_t range, code;
    bool rc_started;
    bool need_bit;        /* the last output byte was a candidate opcode */
    uint8_t opcode;       /* ... this one */
    uint8_t prev;         /* the byte before the next main byte */
    uint8_t addr[4];      /* converted target, little endian, being output */
    unsigned addr_pos, addr_len;
    uint16_t probs[2 + 256];   /* E9, Jcc, then E8 after each byte value */
    fz7_status err;            /* kept once seen, after the bytes before it */
} bcj2_istream;

static bool is_jump(uint8_t prev, uint8_t b)
{
    return (b & 0xFE) == 0xE8 || (prev == 0x0F && (b & 0xF0) == 0x80);
}

static fz7_status decode_bit(bcj2_istream *d, uint16_t *p, unsigned *bit)
{
    fz7_status st;
    uint8_t b;
    if (!d->rc_started) {
        d->code = 0;
        d->range = 0xFFFFFFFFu;
        for (int i = 0; i < 5; i++) {
            if ((st = next_byte(&d->rc, &b)) != FZ7_OK)
                return st;
            d->code = (d->code << 8) | b;
        }
        d->rc_started = true;
    }
    uint32_t bound = (d->range >> BCJ2_PROB_BITS) * *p;
    if (d->code < bound) {
        d->range = bound;
        *p = (uint16_t)(*p + (((1u << BCJ2_PROB_BITS) - *p) >> BCJ2_MOVE_BITS));
        *bit = 0;
    } else {
        d->range -= bound;
        d->code -= bound;
        *p = (uint16_t)(*p - (*p >> BCJ2_MOVE_BITS));
        *bit = 1;
    }
    if (d->range < BCJ2_TOP) {
        if ((st = next_byte(&d->rc, &b)) != FZ7_OK)
            return st;
        d->range <<= 8;
        d->code = (d->code << 8) | b;
    }
    return FZ7_OK;
}

/* Decides the pending opcode: a converted one is followed by its target,
 * read big endian from the call or jump stream and made relative again. */
static fz7_status resolve_opcode(bcj2_istream *d)
{
    uint16_t *p = d->opcode == 0xE8 ? &d->probs[2 + d->prev] : &d->probs[d->opcode == 0xE9 ? 0 : 1];
    unsigned bit;
    fz7_status st = decode_bit(d, p, &bit);
    if (st != FZ7_OK)
        return st;
    d->need_bit = false;
    if (!bit) {
        d->prev = d->opcode;
        return FZ7_OK;
    }
    byte_reader *src = d->opcode == 0xE8 ? &d->call : &d->jump;
    uint32_t target = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t b;
        if ((st = next_byte(src, &b)) != FZ7_OK)
            return st;
        target = (target << 8) | b;
    }
    uint32_t rel = target - (uint32_t)(d->out_pos + 4);
    fz7_put32le(d->addr, rel);
    d->addr_pos = 0;
    d->addr_len = d->out_size - d->out_pos < 4 ? (unsigned)(d->out_size - d->out_pos) : 4;
    d->prev = (uint8_t)(rel >> 24);
    return FZ7_OK;
}

static fz7_status bcj2_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    bcj2_istream *d = (bcj2_istream *)s;
    size_t done = 0;
    fz7_status st = d->err;
    *got = 0;
    if (st != FZ7_OK)
        return st;
    while (done < cap) {
        if (d->addr_pos < d->addr_len) {
            buf[done++] = d->addr[d->addr_pos++];
            d->out_pos++;
            continue;
        }
        if (d->out_pos == d->out_size)
            break;
        if (d->need_bit) {
            if ((st = resolve_opcode(d)) != FZ7_OK)
                break;
            continue;
        }
        uint8_t b;
        if ((st = next_byte(&d->main, &b)) != FZ7_OK)
            break;
        buf[done++] = b;
        d->out_pos++;
        if (is_jump(d->prev, b)) {
            d->need_bit = true;
            d->opcode = b;
        } else {
            d->prev = b;
        }
    }
    *got = done;
    d->err = st;
    return done ? FZ7_OK : st;
}

static void bcj2_destroy(fz7_istream *s) { free(s); }

fz7_status fz7_7z_bcj2_istream_new(fz7_istream *const in[4], uint64_t out_size, fz7_istream **out)
{
    bcj2_istream *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d)
        return FZ7_E_MEM;
    d->base.read = bcj2_read;
    d->base.destroy = bcj2_destroy;
    d->main.s = in[0];
    d->call.s = in[1];
    d->jump.s = in[2];
    d->rc.s = in[3];
    d->out_size = out_size;
    for (size_t i = 0; i < sizeof d->probs / sizeof d->probs[0]; i++)
        d->probs[i] = BCJ2_PROB_INIT;
    *out = &d->base;
    return FZ7_OK;
}
