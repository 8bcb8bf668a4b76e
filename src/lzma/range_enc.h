/* range_enc.h - the LZMA range encoder (lzma-file-format.txt, "range coder").
 *
 * low is kept in 33 bits: bit 32 is a carry into the bytes already
 * written. Each normalising shift writes the top byte of low straight to
 * the output and adds a carry to the bytes before it (the last one that
 * is not 0xFF and the 0xFF run behind it), so the last bytes may still
 * change until flushed. Hot callers open a fz7_rc_live for a whole symbol
 * so that range, low and the output position live in registers. */
#ifndef FZ7_RANGE_ENC_H
#define FZ7_RANGE_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "lzma/lzma_common.h"

typedef struct fz7_range_enc {
    uint64_t low;
    uint32_t range;
    uint8_t *out;     /* output buffer: the stream's bytes from out[0] */
    size_t out_pos;   /* bytes written to out; the last non-0xFF byte and
                       * the 0xFF bytes after it may still take a carry */
} fz7_range_enc;

/* Starts a new range-coded stream in rc->out (its first byte is 0, which
 * no carry can reach: it stops every carry run). */
static inline void fz7_rc_reset(fz7_range_enc *rc)
{
    rc->low = 0;
    rc->range = 0xFFFFFFFFu;
    rc->out[0] = 0;
    rc->out_pos = 1;
}

/* Adds the carry to the bytes before next: 0xFF bytes wrap to 0 and pass
 * it on to the byte before them. */
static inline void fz7_rc_carry(uint8_t *next)
{
    uint8_t *q = next - 1;
    while (++*q == 0)
        q--;
}

/* Writes the top byte of low at *next (carry first); returns the new low.
 * Carries come often and as good as random, so one is added without a
 * branch; only a byte that wraps (a 0xFF) takes the branch that passes it
 * on. */
static inline uint64_t fz7_rc_shift(uint8_t **next, uint64_t low)
{
    uint8_t *p = *next;
    unsigned carry = (unsigned)(low >> 32);
    uint8_t last = (uint8_t)(p[-1] + carry);
    p[-1] = last;
    if (last < carry)
        fz7_rc_carry(p - 1);
    *p = (uint8_t)(low >> 24);
    *next = p + 1;
    return (low & 0x00FFFFFFu) << 8;
}

static inline void fz7_rc_shift_low(fz7_range_enc *rc)
{
    uint8_t *next = rc->out + rc->out_pos;
    rc->low = fz7_rc_shift(&next, rc->low);
    rc->out_pos = (size_t)(next - rc->out);
}

/* A coder's low, range and output position in locals for the length of
 * one symbol (open, code, close): the hot loops then keep them in
 * registers. */
typedef struct fz7_rc_live {
    uint64_t low;
    uint32_t range;
    uint8_t *next;    /* where the next byte goes */
    fz7_range_enc *rc;
} fz7_rc_live;

#define FZ7_RC_INLINE static inline __attribute__((always_inline))

/* Takes low, range and the output position out of rc for a symbol's bits. */
FZ7_RC_INLINE fz7_rc_live fz7_rc_open(fz7_range_enc *rc)
{
    fz7_rc_live l = {rc->low, rc->range, rc->out + rc->out_pos, rc};
    return l;
}

/* Puts them back (before rc is read or drained). */
FZ7_RC_INLINE void fz7_rc_close(const fz7_rc_live *l)
{
    l->rc->low = l->low;
    l->rc->range = l->range;
    l->rc->out_pos = (size_t)(l->next - l->rc->out);
}

/* Branch-free in the bit: the bits of literals and distances are as good
 * as random to a branch predictor. Same results as the obvious if/else:
 * a 0 keeps bound and moves prob 1/32 of the way up to 2048, a 1 adds
 * bound to low and moves prob down by prob >> 5. One bit shrinks range to
 * no less than 2^24 / 2^11 * 31, so one normalising shift is enough.
 * bit: 0 or 1. */
FZ7_RC_INLINE void fz7_rcl_bit(fz7_rc_live *l, fz7_lzma_prob *p, unsigned bit)
{
    /* prob moves by (target - prob) >> 5, arithmetic: target 2048 for a 0
     * gives (2048 - prob) >> 5; target 31 for a 1 gives -(prob >> 5). */
    static const int32_t target[2] = {(int32_t)FZ7_LZMA_PROB_ONE, 31};
    bit &= 1;
    uint32_t prob = *p;
    uint32_t range = l->range;
    uint32_t bound = (range >> FZ7_LZMA_PROB_BITS) * prob;
    l->low += (uint64_t)(bound & (0u - bit));
    range = bit ? range - bound : bound;
    prob = (uint32_t)((int32_t)prob + ((target[bit] - (int32_t)prob) >> FZ7_LZMA_MOVE_BITS));
    *p = (fz7_lzma_prob)prob;
    if (range < FZ7_LZMA_RC_TOP) {
        range <<= 8;
        l->low = fz7_rc_shift(&l->next, l->low);
    }
    l->range = range;
}

/* count bits of value (count 0..32), most significant first, each with
 * probability 1/2. The next bit waits at bit 31 of v, so its mask is one
 * arithmetic shift. */
FZ7_RC_INLINE void fz7_rcl_direct(fz7_rc_live *l, uint32_t value, unsigned count)
{
    uint32_t range = l->range;
    uint64_t low = l->low;
    uint32_t v = count ? value << (32 - count) : 0;
    for (; count > 0; count--) {
        range >>= 1;
        low += range & (uint32_t)((int32_t)v >> 31);
        v <<= 1;
        if (range < FZ7_LZMA_RC_TOP) {
            range <<= 8;
            low = fz7_rc_shift(&l->next, low);
        }
    }
    l->range = range;
    l->low = low;
}

/* A bit tree of count bits (probs indexed from 1), most significant first.
 * Unrolled: count is a constant at every hot call, so the bit shifts and
 * the loop's bookkeeping fold away. */
FZ7_RC_INLINE void fz7_rcl_tree(fz7_rc_live *l, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    /* The node above a bit is the leaf's index (1 then value) shifted:
     * one shift per bit instead of building it up. */
    uint32_t leaf = value | (1u << count);
#pragma GCC unroll 8
    for (unsigned i = count; i > 0; i--)
        fz7_rcl_bit(l, &probs[leaf >> i], (leaf >> (i - 1)) & 1);
}

/* A reverse bit tree: least significant bit first (unrolled likewise). */
FZ7_RC_INLINE void fz7_rcl_tree_reverse(fz7_rc_live *l, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t m = 1;
#pragma GCC unroll 8
    for (unsigned i = 0; i < count; i++) {
        unsigned bit = value & 1;
        value >>= 1;
        fz7_rcl_bit(l, &probs[m], bit);
        m = (m << 1) | bit;
    }
}

/* The same operations on the coder in memory (one call = one open/close). */
static inline void fz7_rc_bit(fz7_range_enc *rc, fz7_lzma_prob *p, unsigned bit)
{
    fz7_rc_live l = fz7_rc_open(rc);
    fz7_rcl_bit(&l, p, bit);
    fz7_rc_close(&l);
}

static inline void fz7_rc_direct(fz7_range_enc *rc, uint32_t value, unsigned count)
{
    fz7_rc_live l = fz7_rc_open(rc);
    fz7_rcl_direct(&l, value, count);
    fz7_rc_close(&l);
}

static inline void fz7_rc_tree(fz7_range_enc *rc, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    fz7_rc_live l = fz7_rc_open(rc);
    fz7_rcl_tree(&l, probs, count, value);
    fz7_rc_close(&l);
}

static inline void fz7_rc_tree_reverse(fz7_range_enc *rc, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    fz7_rc_live l = fz7_rc_open(rc);
    fz7_rcl_tree_reverse(&l, probs, count, value);
    fz7_rc_close(&l);
}

/* Writes out the 4 bytes of low (with its carry): the stream is then
 * complete in out[0, out_pos). */
static inline void fz7_rc_flush(fz7_range_enc *rc)
{
    for (int i = 0; i < 4; i++)
        fz7_rc_shift_low(rc);
}

/* Bytes this stream will have produced after a flush, if nothing more is
 * encoded: those written plus the 4 bytes of low. */
static inline uint64_t fz7_rc_pending(const fz7_range_enc *rc)
{
    return rc->out_pos + 4;
}

#endif
