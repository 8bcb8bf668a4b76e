/* range_enc.h - the LZMA range encoder (lzma-file-format.txt, "range coder").
 *
 * low is kept in 33 bits: a carry out of the 32-bit window must reach bytes
 * already decided, so the top byte waits in cache, with cache_size - 1
 * 0xFF bytes behind it, until a later byte shows whether the carry came.
 * Output goes to a caller buffer; the caller drains it between symbols.
 * Hot callers open a fz7_rc_live for a whole symbol so that range and low
 * live in registers; cache and the output stay in the struct. */
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

/* Moves the top byte of low out (into cache, or settles cache and the
 * 0xFF run behind it); returns the new low. Only cache, cache_size and
 * the output live in *rc here, so callers may keep low in a register. */
static inline uint64_t fz7_rc_shift(fz7_range_enc *rc, uint64_t low)
{
    if ((uint32_t)low < 0xFF000000u || (low >> 32) != 0) {
        uint8_t carry = (uint8_t)(low >> 32);
        uint8_t *out = rc->out;
        size_t pos = rc->out_pos;
        out[pos++] = (uint8_t)(rc->cache + carry);
        /* Rare: a run of 0xFF bytes waited for this carry. */
        for (uint64_t n = rc->cache_size; n > 1; n--)
            out[pos++] = (uint8_t)(0xFF + carry);
        rc->out_pos = pos;
        rc->cache_size = 0;
        rc->cache = (uint8_t)(low >> 24);
    }
    rc->cache_size++;
    return (low & 0x00FFFFFFu) << 8;
}

static inline void fz7_rc_shift_low(fz7_range_enc *rc)
{
    rc->low = fz7_rc_shift(rc, rc->low);
}

/* A coder's low and range in locals for the length of one symbol (open,
 * code, close): the hot loops then keep them in registers. */
typedef struct fz7_rc_live {
    uint64_t low;
    uint32_t range;
    fz7_range_enc *rc;
} fz7_rc_live;

#define FZ7_RC_INLINE static inline __attribute__((always_inline))

/* Takes low and range out of rc for a symbol's bits. */
FZ7_RC_INLINE fz7_rc_live fz7_rc_open(fz7_range_enc *rc)
{
    fz7_rc_live l = {rc->low, rc->range, rc};
    return l;
}

/* Puts them back (before rc is read or drained). */
FZ7_RC_INLINE void fz7_rc_close(const fz7_rc_live *l)
{
    l->rc->low = l->low;
    l->rc->range = l->range;
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
        l->low = fz7_rc_shift(l->rc, l->low);
    }
    l->range = range;
}

/* count bits of value, most significant first, each with probability 1/2. */
FZ7_RC_INLINE void fz7_rcl_direct(fz7_rc_live *l, uint32_t value, unsigned count)
{
    uint32_t range = l->range;
    uint64_t low = l->low;
    while (count-- > 0) {
        range >>= 1;
        low += range & (0u - ((value >> count) & 1));
        if (range < FZ7_LZMA_RC_TOP) {
            range <<= 8;
            low = fz7_rc_shift(l->rc, low);
        }
    }
    l->range = range;
    l->low = low;
}

/* A bit tree of count bits (probs indexed from 1), most significant first. */
FZ7_RC_INLINE void fz7_rcl_tree(fz7_rc_live *l, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t m = 1;
    while (count-- > 0) {
        unsigned bit = (value >> count) & 1;
        fz7_rcl_bit(l, &probs[m], bit);
        m = (m << 1) | bit;
    }
}

/* A reverse bit tree: least significant bit first. */
FZ7_RC_INLINE void fz7_rcl_tree_reverse(fz7_rc_live *l, fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t m = 1;
    while (count-- > 0) {
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
