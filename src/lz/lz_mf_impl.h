/* lz_mf_impl.h - pieces the hash chains (lz_mf.c) and the hash buckets
 * (lz_mf_bucket.c) share: hb5 must hash exactly as hc5 does (its matches
 * are hc5's at the same bits and depth), and both extend a match the same
 * way. Internal to src/lz. */
#ifndef FZ7_LZ_MF_IMPL_H
#define FZ7_LZ_MF_IMPL_H

#include <stdint.h>
#include <string.h>

#include "fz7_common.h"
#include "lz/lz_mf.h"

/* hb5 (lz_mf_bucket.c), the hash-bucket finder: per 5-byte hash one
 * bucket of the newest positions: 16 in a 64-byte line, or 8 in half a
 * line (the ways given to fz7_lz_mf_init; hash4: the buckets, then
 * the 2-/3-byte heads and a byte per bucket; son unused; depth at most
 * 16). lz_mf.c hands its kind over to these; the window is
 * shared. */

/* log2 of the buckets for a dictionary of dict_size bytes. */
uint32_t fz7_lz_hb_bits(uint32_t dict_size);
/* Bytes of the buckets and the 2-/3-byte heads, counted as 16-way: an
 * upper bound for the 8-way tables of depth <= 8. */
uint64_t fz7_lz_hb_table_bytes(uint32_t dict_size);
/* Allocates the tables of mf (dict_size and depth set); 0 or -1. */
int fz7_lz_hb_alloc(fz7_lz_mf *mf);
/* Frees what fz7_lz_hb_alloc allocated (none: nothing). */
void fz7_lz_hb_free(fz7_lz_mf *mf);
/* Lowers every stored position by sub (0 when it would go below 1). */
void fz7_lz_hb_normalise(fz7_lz_mf *mf, uint32_t sub);

#define FZ7_LZ_GOLDEN 0x9E3779B1u
/* Bits of the hashed 2- and 3-byte head tables of hc4/hc5/hb5 (the
 * reasons are in lz_mf.c). */
#define FZ7_LZ_HC_HASH2_BITS 9u
#define FZ7_LZ_HC_HASH3_BITS 9u

/* Slots of the 2- and 3-byte heads from the word of the bytes at p (one
 * load for both): the same as fz7_lz_hc_hash2/3 of p. */
static inline uint32_t fz7_lz_hc_hash2_of(uint32_t v)
{
    return ((v & 0xFFFFu) * FZ7_LZ_GOLDEN) >> (32 - FZ7_LZ_HC_HASH2_BITS);
}

static inline uint32_t fz7_lz_hc_hash3_of(uint32_t v)
{
    return ((v & 0xFFFFFFu) * FZ7_LZ_GOLDEN) >> (32 - FZ7_LZ_HC_HASH3_BITS);
}

/* Slot of the 2 bytes at p in the 512-slot 2-byte head table. */
static inline uint32_t fz7_lz_hc_hash2(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
    return (v * FZ7_LZ_GOLDEN) >> (32 - FZ7_LZ_HC_HASH2_BITS);
}

/* Slot of the 3 bytes at p in the 512-slot 3-byte head table. */
static inline uint32_t fz7_lz_hc_hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (v * FZ7_LZ_GOLDEN) >> (32 - FZ7_LZ_HC_HASH3_BITS);
}

/* hc5's root hash of the 5 bytes at p, in the top 32 - shift bits: the
 * fifth byte through a second odd multiplier, so that chains (and
 * buckets) hold mostly 5-byte repeats. */
static inline uint32_t fz7_lz_hash5(const uint8_t *p, uint32_t shift)
{
    uint32_t v = fz7_get32le(p);
    return ((v * FZ7_LZ_GOLDEN) ^ ((uint32_t)p[4] * 0x2545F491u)) >> shift;
}

/* fz7_lz_hash5 with all 32 bits (hb5 takes a tag from the bits below
 * the bucket number). */
static inline uint32_t fz7_lz_hash5_word(const uint8_t *p)
{
    return fz7_lz_hash5(p, 0);
}

/* Length of the common run of a and b from start, at most lim
 * (fz7_match_len_step from start). */
__attribute__((always_inline)) static inline uint32_t fz7_lz_extend_by(fz7_match_len_fn match_len, const uint8_t *a,
                                                                      const uint8_t *b, uint32_t start, uint32_t lim)
{
    return start + fz7_match_len_step(match_len, a + start, b + start, lim - start);
}

/* Hash bits of a head table for a dictionary of dict_size bytes: one
 * slot per two positions (log2 of dict_size rounded up, minus 1), at
 * least 16 and at most max_bits. */
static inline uint32_t fz7_lz_head_bits(uint32_t dict_size, uint32_t max_bits)
{
    uint32_t bits = 0;
    while (bits < 32 && ((uint64_t)1 << bits) < dict_size)
        bits++;
    bits = bits > 0 ? bits - 1 : 0;
    if (bits < 16)
        bits = 16;
    return bits > max_bits ? max_bits : bits;
}

/* The tail of a candidate walk: appends (len, dist) to m[*n] when len
 * beats *best, which it becomes. Returns 1 once len reaches lim (no
 * longer match can follow: the walk stops), else 0. */
__attribute__((always_inline)) static inline int fz7_lz_keep_longer(fz7_lz_match *m, uint32_t *n, uint32_t *best,
                                                                   uint32_t len, uint32_t dist, uint32_t lim)
{
    if (len <= *best)
        return 0;
    m[*n].len = len;
    m[*n].dist = dist;
    (*n)++;
    *best = len;
    return len == lim;
}

#endif
