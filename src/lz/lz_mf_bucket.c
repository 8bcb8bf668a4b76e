/* lz_mf_bucket.c - hb5, a hash-bucket match finder for the fast levels.
 *
 * A hash chain (hc5) finds its next candidate only after loading the
 * previous one's link: one dependent cache miss per step. hb5 keeps, per
 * 5-byte hash, the 16 newest positions in one 64-byte line (the 8 newest
 * in half a line when a search visits at most 8), so a search loads one
 * line and has every candidate at once (their bytes are then independent
 * loads the core overlaps), and the line of a position a few bytes ahead
 * can be requested early. With the same hash bits and depth <= 16 it
 * visits exactly the candidates hc5 visits, newest first. */
#include "lz/lz_mf.h"
#include "lz/lz_mf_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Positions per bucket, a ring: the index of the newest is kept apart,
 * one byte per bucket (128 KiB at -mx1, mostly in L2), so recording a
 * position only stores into its bucket's line and does not wait for it
 * (the index inside the line made skip runs wait on each line). 16
 * ways (a 64-byte line) when a search visits more than 8 candidates;
 * 8 ways (half a line) when it visits at most 8: the older 8 of 16
 * would never be read, so the same bytes hold twice the buckets, and
 * the candidates are those of 16 ways at one more hash bit. */
#define HB_WAYS_MAX 16u
#define HB_WAYS_FEW 8u
#define HB_LINE (HB_WAYS_MAX * sizeof(uint32_t))

/* The 2- and 3-byte heads: the same 512-slot hashed tables as the hash
 * chains (lz_mf.c), so their near matches are the same too. */
#define HB_HASH2_BITS FZ7_LZ_HC_HASH2_BITS
#define HB_HASH3_BITS FZ7_LZ_HC_HASH3_BITS
#define HB_HEADS ((1u << HB_HASH2_BITS) + (1u << HB_HASH3_BITS))

#define HUGE_PAGE ((size_t)2 << 20)

/* Prefetch distances (positions ahead of pos): the bucket is requested
 * HB_AHEAD_LINE early, the newest candidate's bytes HB_AHEAD_BYTES early
 * (by then its bucket is in cache). Loads only: never changes output. */
#define HB_AHEAD_LINE 16u
#define HB_AHEAD_BYTES 4u

/* At most 2^18 buckets (16 MiB): -mx2..4 (dictionaries of 1-16 MiB,
 * hc5 heads of 2^19..2^23) then keep their tables in a fraction of
 * hc5's memory and, with more hash values per bucket, lose a little
 * ratio for much time. */
#define HB_BITS_MAX 18u

uint32_t fz7_lz_hb_bits(uint32_t dict_size)
{
    /* hc5's head bits (one bucket per head): log2(dict) - 1, at least
     * 16, so up to HB_BITS_MAX the candidates are hc5's. One bit fewer
     * (half the table) loses ratio without gaining speed. */
    return fz7_lz_head_bits(dict_size, HB_BITS_MAX);
}

/* log2 of the buckets of `ways` ways: 16 ways as fz7_lz_hb_bits; 8 ways
 * one slot per dictionary position (dict_size / 8 buckets), at least 2^16
 * (the same floor as hc5's heads, so up to 512 KiB the candidates are
 * still hc5's). -mx1 (1 MiB, 6 candidates): 2^17 buckets, 4 MiB; half
 * as many would be no faster and lose ratio. */
static uint32_t bits_for(uint32_t dict_size, uint32_t ways)
{
    if (ways == HB_WAYS_MAX)
        return fz7_lz_hb_bits(dict_size);
    return fz7_lz_head_bits(dict_size >> 2, HB_BITS_MAX);
}

/* An upper bound: the depth is not known here, and 8-way tables (depth
 * <= 8) are at most half of the 16-way one counted. */
uint64_t fz7_lz_hb_table_bytes(uint32_t dict_size)
{
    return ((uint64_t)1 << fz7_lz_hb_bits(dict_size)) * (HB_LINE + HB_WAYS_MAX + 1) + HB_HEADS * sizeof(uint32_t);
}

/* Bytes of the tags (tags_of below): one per entry of 16-way buckets;
 * 8-way buckets have none (a search there visits at most 8 candidates,
 * and the tags would cost more memory and time than they save). */
static size_t tag_bytes(uint32_t ways, uint32_t bits)
{
    return ways == HB_WAYS_MAX ? (size_t)ways << bits : 0;
}

int fz7_lz_hb_alloc(fz7_lz_mf *mf)
{
    uint32_t ways = mf->ways;
    uint32_t bits = bits_for(mf->dict_size, ways);
    size_t lines = ((size_t)ways << bits) * sizeof(uint32_t);
    size_t bytes = lines + HB_HEADS * sizeof(uint32_t) + ((size_t)1 << bits) + tag_bytes(ways, bits);
    uint8_t *p;
    if (lines >= HUGE_PAGE) {
        /* 2 MiB-aligned and offered as huge pages: the buckets are hit
         * at random, one TLB miss each in 4 KiB pages. */
        uint8_t *raw = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            return -1;
        p = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        if (p > raw)
            munmap(raw, (size_t)(p - raw));
        size_t tail = (size_t)(raw + bytes + HUGE_PAGE - (p + bytes));
        size_t cut = (bytes + 4095) & ~(size_t)4095;
        if (tail > cut - bytes)
            munmap(p + cut, tail - (cut - bytes));
#ifdef MADV_HUGEPAGE
        (void)madvise(p, bytes & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);   /* the tags are hit at random too */
#endif
    } else {
        p = aligned_alloc(HB_LINE, (bytes + HB_LINE - 1) & ~(size_t)(HB_LINE - 1));
        if (!p)
            return -1;
        memset(p, 0, bytes);
    }
    mf->hash4 = (uint32_t *)p;
    mf->hash2 = (uint32_t *)(p + lines);
    mf->hash3 = mf->hash2 + (1u << HB_HASH2_BITS);
    mf->son = NULL;
    /* ways is hash4's words over its buckets: (hash4_mask + 1) >> bits. */
    mf->hash4_mask = (uint32_t)(((size_t)ways << bits) - 1);
    mf->hash4_shift = 32 - bits;
    if (mf->depth > ways)
        mf->depth = ways;
    return 0;
}

/* log2 of mf's buckets. */
static inline uint32_t bits_of(const fz7_lz_mf *mf)
{
    return 32 - mf->hash4_shift;
}

void fz7_lz_hb_free(fz7_lz_mf *mf)
{
    if (!mf->hash4)
        return;
    size_t lines = ((size_t)mf->hash4_mask + 1) * sizeof(uint32_t);
    size_t bytes = lines + HB_HEADS * sizeof(uint32_t) + ((size_t)1 << bits_of(mf))
                   + tag_bytes((uint32_t)(((size_t)mf->hash4_mask + 1) >> bits_of(mf)), bits_of(mf));
    if (lines >= HUGE_PAGE)
        munmap(mf->hash4, (bytes + 4095) & ~(size_t)4095);
    else
        free(mf->hash4);
    mf->hash2 = mf->hash3 = mf->hash4 = NULL;
}

void fz7_lz_hb_normalise(fz7_lz_mf *mf, uint32_t sub)
{
    size_t words = (size_t)mf->hash4_mask + 1;
    for (size_t i = 0; i < words; i++)
        mf->hash4[i] = mf->hash4[i] > sub ? mf->hash4[i] - sub : 0;
    for (size_t i = 0; i < HB_HEADS; i++)
        mf->hash2[i] = mf->hash2[i] > sub ? mf->hash2[i] - sub : 0;
}

/* The newest entry's index in each bucket, after the 2-/3-byte heads. */
static inline uint8_t *ring_of(const fz7_lz_mf *mf)
{
    return (uint8_t *)(mf->hash3 + (1u << HB_HASH3_BITS));
}

/* 16-way buckets: one tag byte per entry, after the ring, laid out as
 * the entries: the 8 hash bits below the bucket number of the entry's 5
 * bytes. A search loads the bytes of only the candidates whose tag is
 * cur's (a bucket holds many 5-byte values: the others cannot match 5
 * bytes). */
static inline uint8_t *tags_of(const fz7_lz_mf *mf)
{
    return ring_of(mf) + ((size_t)1 << bits_of(mf));
}

/* The bucket number of the 5 bytes at p: hc5's root hash (lz_mf.c). */
static inline uint32_t bucket_of(const fz7_lz_mf *mf, const uint8_t *p)
{
    return fz7_lz_hash5(p, mf->hash4_shift);
}

/* The tag of hash word x (fz7_lz_hash5_word) in a table of shift. */
static inline uint8_t tag_of(uint32_t x, uint32_t shift)
{
    return (uint8_t)(x >> (shift - 8));
}

/* The functions below take the ways per bucket as a constant (8 or 16:
 * the callers at the end pick one), so bucket addresses and ring indexes
 * stay shifts and masks. */

/* Records stored as the newest position of bucket h (lines: mf->hash4,
 * passed in so that a loop can keep it in a local). */
__attribute__((always_inline)) static inline void insert(uint32_t *lines, uint8_t *ring, uint8_t *tags, uint32_t h,
                                                         uint8_t tag, uint32_t stored, uint32_t ways)
{
    uint32_t i = (ring[h] + 1u) & (ways - 1);
    ring[h] = (uint8_t)i;
    lines[(size_t)h * ways + i] = stored;
    if (ways == HB_WAYS_MAX)
        tags[(size_t)h * ways + i] = tag;
}

/* insert for the 5 bytes at p (hash word x) in a table of shift. */
__attribute__((always_inline)) static inline void insert_at(uint32_t *lines, uint8_t *ring, uint8_t *tags, uint32_t x,
                                                            uint32_t shift, uint32_t stored, uint32_t ways)
{
    insert(lines, ring, tags, x >> shift, tag_of(x, shift), stored, ways);
}

/* Records stored in the 2- and 3-byte heads for the bytes at p. */
static inline void insert_near(uint32_t *hash2, uint32_t *hash3, const uint8_t *p, uint32_t stored)
{
    uint32_t v = fz7_get32le(p);
    hash2[fz7_lz_hc_hash2_of(v)] = stored;
    hash3[fz7_lz_hc_hash3_of(v)] = stored;
}

/* Length of the common run of a and b from start, at most lim: 8 bytes
 * inline, the rest through the dispatched match_len. */
static inline uint32_t extend(const fz7_lz_mf *mf, const uint8_t *a, const uint8_t *b, uint32_t start, uint32_t lim)
{
    return fz7_lz_extend_by(mf->match_len, a, b, start, lim);
}

/* Appends the match with the candidate d bytes back when it is longer
 * than *best (its first bytes up to `from` known equal). */
static inline uint32_t try_near(const fz7_lz_mf *mf, const uint8_t *cur, uint32_t d, uint32_t from, uint32_t lim,
                                fz7_lz_match *m, uint32_t n, uint32_t *best)
{
    fz7_lz_keep_longer(m, &n, best, extend(mf, cur, cur - d, from, lim), d, lim);
    return n;
}

/* Requests the bucket HB_AHEAD_LINE positions ahead and the newest
 * candidate's bytes of the position HB_AHEAD_BYTES ahead (loads only). */
__attribute__((always_inline)) static inline void prefetch(const fz7_lz_mf *mf, uint32_t ways)
{
    if (mf->end - mf->pos < HB_AHEAD_LINE + 5)
        return;
    const uint8_t *p = mf->buf + mf->pos;
    uint32_t ahead = bucket_of(mf, p + HB_AHEAD_LINE);
    __builtin_prefetch(mf->hash4 + (size_t)ahead * ways, 1);
    __builtin_prefetch(ring_of(mf) + ahead, 1);
    if (ways == HB_WAYS_MAX)
        __builtin_prefetch(tags_of(mf) + (size_t)ahead * ways, 1);
    uint32_t h = bucket_of(mf, p + HB_AHEAD_BYTES);
    const uint32_t *b = mf->hash4 + (size_t)h * ways;
    /* Only the newest candidate's bytes: requesting more crowds out the
     * loads the search waits on. */
    uint32_t head = ring_of(mf)[h], stored = mf->pos + HB_AHEAD_BYTES + mf->offset;
    uint32_t delta = stored - b[head & (ways - 1)];
    if (delta - 1 < mf->dict_size)
        __builtin_prefetch(p + HB_AHEAD_BYTES - delta, 0);
}

/* Search of pos (lim bytes at most, >= 5), then pos recorded. */
__attribute__((always_inline)) static inline uint32_t search(fz7_lz_mf *mf, const uint8_t *cur, uint32_t lim,
                                                             fz7_lz_match *m, uint32_t ways)
{
    uint32_t stored = mf->pos + mf->offset;
    uint32_t best = 1, n = 0;
    /* Near matches: the newest position with (probably) the same 2 and
     * then 3 bytes, as the hash chains find them. */
    uint32_t v = fz7_get32le(cur);
    uint32_t h2 = fz7_lz_hc_hash2_of(v), h3 = fz7_lz_hc_hash3_of(v);
    uint32_t d2 = stored - mf->hash2[h2];
    uint32_t d3 = stored - mf->hash3[h3];
    mf->hash2[h2] = stored;
    mf->hash3[h3] = stored;
    if (d2 - 1 < mf->dict_size && cur[-(ptrdiff_t)d2] == cur[0] && cur[1 - (ptrdiff_t)d2] == cur[1])
        n = try_near(mf, cur, d2, 2, lim, m, n, &best);
    if (d3 != d2 && d3 - 1 < mf->dict_size && best < lim && cur[-(ptrdiff_t)d3] == cur[0]
        && cur[1 - (ptrdiff_t)d3] == cur[1] && cur[2 - (ptrdiff_t)d3] == cur[2])
        n = try_near(mf, cur, d3, 3, lim, m, n, &best);
    uint8_t *ring = ring_of(mf), *tags = tags_of(mf);
    uint32_t x = fz7_lz_hash5_word(cur), h = x >> mf->hash4_shift;
    uint8_t tag = tag_of(x, mf->hash4_shift);
    const uint32_t *b = mf->hash4 + (size_t)h * ways;
    const uint8_t *tg = ways == HB_WAYS_MAX ? tags + (size_t)h * ways : NULL;   /* 8 ways: no tags */
    uint32_t head = ring[h];
    if (best < lim && lim >= 8) {
        /* Each candidate's first 8 bytes against cur's: the loads do not
         * wait on each other or on a branch, and one compare says how far
         * it matches (a byte compare at best first would branch twice). */
        uint64_t c8;
        memcpy(&c8, cur, 8);
        uint32_t depth = mf->depth, dict_size = mf->dict_size;
        for (uint32_t k = 0; k < depth; k++) {
            uint32_t i = (head - k) & (ways - 1);
            /* Another tag: other 5 bytes. Its match (at most 4 bytes)
             * is given up even where it would be the longest, for the
             * load the skip saves. */
            if (ways == HB_WAYS_MAX && tg[i] != tag)
                continue;
            uint32_t delta = stored - b[i];
            if (delta - 1 >= dict_size)
                break;   /* older ones are farther still */
            uint64_t x;
            memcpy(&x, cur - delta, 8);
            uint64_t diff = x ^ c8;
            uint32_t len = diff != 0 ? fz7_first_diff8(diff) : 8;
            /* All 8 equal: the rest decides, unless byte best differs
             * (the next 8 inline too: most such matches end there, and
             * the call to match_len is spared). */
            if (len == 8 && (best < 8 || (cur - delta)[best] == cur[best]))
                len = extend(mf, cur - delta, cur, 8, lim);
            if (fz7_lz_keep_longer(m, &n, &best, len, delta, lim))
                break;
        }
    } else if (best < lim) {
        for (uint32_t k = 0; k < mf->depth; k++) {
            uint32_t delta = stored - b[(head - k) & (ways - 1)];
            if (delta - 1 >= mf->dict_size)
                break;
            uint32_t len = mf->match_len(cur - delta, cur, lim);
            if (fz7_lz_keep_longer(m, &n, &best, len, delta, lim))
                break;
        }
    }
    insert(mf->hash4, ring, tags, h, tag, stored, ways);
    return n;
}

__attribute__((always_inline)) static inline uint32_t find(fz7_lz_mf *mf, fz7_lz_match *matches, uint32_t ways)
{
    prefetch(mf, ways);
    uint32_t avail = mf->end - mf->pos;
    uint32_t lim = avail < mf->nice_len ? avail : mf->nice_len;
    uint32_t n = 0;
    if (lim >= 5)
        n = search(mf, mf->buf + mf->pos, lim, matches, ways);
    mf->pos++;
    return n;
}

__attribute__((always_inline)) static inline void skip(fz7_lz_mf *mf, uint32_t count, uint32_t ways)
{
    if (mf->end - mf->pos < count + HB_AHEAD_LINE + 8) {
        /* Near the end: positions with fewer than 5 bytes are not
         * recorded (as fz7_lz_hb_find leaves them). */
        for (; count > 0; count--, mf->pos++) {
            if (mf->end - mf->pos < 5)
                continue;
            const uint8_t *p = mf->buf + mf->pos;
            uint32_t stored = mf->pos + mf->offset;
            insert_near(mf->hash2, mf->hash3, p, stored);
            insert_at(mf->hash4, ring_of(mf), tags_of(mf), fz7_lz_hash5_word(p), mf->hash4_shift, stored, ways);
        }
        return;
    }
    /* The tables in locals: the stores below could alias mf's fields, so
     * the compiler would reload them at every position. */
    const uint8_t *p = mf->buf + mf->pos;
    uint32_t stored = mf->pos + mf->offset;
    uint8_t *ring = ring_of(mf), *tags = tags_of(mf);
    if (count > ways && fz7_get64le(p) == fz7_get64le(p + 1)
        && mf->match_len(p + 1, p, count + 3) == count + 3) {
        /* A run of one byte value: every position has the same 5 bytes,
         * so the same bucket and heads. Only the last `ways` survive in
         * the ring; starting the ring index where the earlier ones would
         * have left it gives the same bucket as recording them all. */
        uint32_t x = fz7_lz_hash5_word(p), h = x >> mf->hash4_shift;
        uint32_t skipped = count - ways;
        ring[h] = (uint8_t)((ring[h] + skipped) & (ways - 1));
        for (uint32_t k = skipped; k < count; k++)
            insert_at(mf->hash4, ring, tags, x, mf->hash4_shift, stored + k, ways);
        insert_near(mf->hash2, mf->hash3, p, stored + count - 1);
        mf->pos += count;
        return;
    }
    uint32_t *lines = mf->hash4, *hash2 = mf->hash2, *hash3 = mf->hash3;
    uint32_t shift = mf->hash4_shift;
    for (uint32_t k = 0; k < count; k++, p++, stored++) {
        uint32_t ahead = fz7_lz_hash5(p + HB_AHEAD_LINE, shift);
        __builtin_prefetch(lines + (size_t)ahead * ways, 1);
        __builtin_prefetch(ring + ahead, 1);
        if (ways == HB_WAYS_MAX)
            __builtin_prefetch(tags + (size_t)ahead * ways, 1);
        insert_near(hash2, hash3, p, stored);
        insert_at(lines, ring, tags, fz7_lz_hash5_word(p), shift, stored, ways);
    }
    mf->pos += count;
}

/* True when mf's buckets have 8 ways (hash4's words over its buckets). */
static inline int few_ways(const fz7_lz_mf *mf)
{
    return (((size_t)mf->hash4_mask + 1) >> bits_of(mf)) == HB_WAYS_FEW;
}

uint32_t fz7_lz_mf_find_hb5(fz7_lz_mf *mf, fz7_lz_match *matches)
{
    if (few_ways(mf))
        return find(mf, matches, HB_WAYS_FEW);
    return find(mf, matches, HB_WAYS_MAX);
}

void fz7_lz_mf_skip_hb5(fz7_lz_mf *mf, uint32_t count)
{
    if (few_ways(mf))
        skip(mf, count, HB_WAYS_FEW);
    else
        skip(mf, count, HB_WAYS_MAX);
}

uint32_t fz7_lz_hb_probe(const fz7_lz_mf *mf, uint32_t idx, uint32_t lim)
{
    const uint8_t *p = mf->buf + idx;
    uint32_t h = bucket_of(mf, p);
    uint32_t ways = (mf->hash4_mask + 1) >> bits_of(mf);
    uint32_t delta = idx + mf->offset - mf->hash4[(size_t)h * ways + ring_of(mf)[h]];
    if (delta - 1 >= mf->dict_size || delta > idx)
        return 0;
    if (lim > mf->end - idx)
        lim = mf->end - idx;
    return mf->match_len(p, p - delta, lim);
}
