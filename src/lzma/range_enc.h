/* range_enc.h - the LZMA range encoder (lzma-file-format.txt, "range coder").
 *
 * low is kept in 33 bits: a carry out of the 32-bit window must reach bytes
 * already decided, so the top byte waits in cache, with cache_size - 1
 * 0xFF bytes behind it, until a later byte shows whether the carry came.
 * Output goes to a caller buffer; the caller drains it between symbols. */
#ifndef FZ7_RANGE_ENC_H
#define FZ7_RANGE_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "lzma/lzma_common.h"

typedef struct fz7_range_enc {
    uint64_t low;
    uint32_t range;
    uint8_t cache;
    uint64_t cache_size;
    uint8_t *out;     /* output buffer */
    size_t out_pos;   /* bytes written to out */
} fz7_range_enc;

/* Starts a new range-coded stream (the first byte it emits is 0). */
static inline void fz7_rc_reset(fz7_range_enc *rc)
{
    rc->low = 0;
    rc->range = 0xFFFFFFFFu;
    rc->cache = 0;
    rc->cache_size = 1;
    rc->out_pos = 0;
}

static inline void fz7_rc_shift_low(fz7_range_enc *rc)
{
    if ((uint32_t)rc->low < 0xFF000000u || (rc->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(rc->low >> 32);
        uint8_t b = rc->cache;
        do {
            rc->out[rc->out_pos++] = (uint8_t)(b + carry);
            b = 0xFF;
        } while (--rc->cache_size != 0);
        rc->cache = (uint8_t)(rc->low >> 24);
    }
    rc->cache_size++;
    rc->low = (rc->low & 0x00FFFFFFu) << 8;
}

/* Branch-free in the bit: the bits of literals and distances are as good
 * as random to a branch predictor. Same results as the obvious if/else.
 * bit: 0 or 1. */
static inline void fz7_rc_bit(fz7_range_enc *rc, fz7_lzma_prob *p, unsigned bit)
{
    uint32_t prob = *p;
    uint32_t bound = (rc->range >> FZ7_LZMA_PROB_BITS) * prob;
    uint32_t mask = 0u - (uint32_t)(bit & 1);  /* all ones for a 1 */
    rc->low += bound & mask;
    rc->range = (bound & ~mask) | ((rc->range - bound) & mask);
    uint32_t after0 = prob + ((FZ7_LZMA_PROB_ONE - prob) >> FZ7_LZMA_MOVE_BITS);
    uint32_t after1 = prob - (prob >> FZ7_LZMA_MOVE_BITS);
    prob = (after0 & ~mask) | (after1 & mask);
    *p = (fz7_lzma_prob)prob;
    while (rc->range < FZ7_LZMA_RC_TOP) {
        rc->range <<= 8;
        fz7_rc_shift_low(rc);
    }
}

/* count bits of value, most significant first, each with probability 1/2. */
static inline void fz7_rc_direct(fz7_range_enc *rc, uint32_t value, unsigned count)
{
    while (count-- > 0) {
        rc->range >>= 1;
        if ((value >> count) & 1)
            rc->low += rc->range;
        if (rc->range < FZ7_LZMA_RC_TOP) {
            rc->range <<= 8;
            fz7_rc_shift_low(rc);
        }
    }
}

/* A bit tree of count bits (probs indexed from 1), most significant first. */
static inline void fz7_rc_tree(fz7_range_enc *rc, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t m = 1;
    while (count-- > 0) {
        unsigned bit = (value >> count) & 1;
        fz7_rc_bit(rc, &probs[m], bit);
        m = (m << 1) | bit;
    }
}

/* A reverse bit tree: least significant bit first. */
static inline void fz7_rc_tree_reverse(fz7_range_enc *rc, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t m = 1;
    while (count-- > 0) {
        unsigned bit = value & 1;
        value >>= 1;
        fz7_rc_bit(rc, &probs[m], bit);
        m = (m << 1) | bit;
    }
}

/* Writes out everything still held in low and cache (5 shifts). */
static inline void fz7_rc_flush(fz7_range_enc *rc)
{
    for (int i = 0; i < 5; i++)
        fz7_rc_shift_low(rc);
}

/* Bytes this stream will have produced after a flush, if nothing more is
 * encoded: those written plus the cache and the 4 bytes of low. */
static inline uint64_t fz7_rc_pending(const fz7_range_enc *rc)
{
    return rc->out_pos + rc->cache_size + 4;
}

#endif
