/* lzma2_store.c - recognises bytes that LZMA would not make smaller
 * (random bytes, compressed or encrypted data), so that the LZMA2 encoder
 * stores them in uncompressed chunks (xz-file-format.txt 5.3.1, control
 * 0x01/0x02) at copying speed instead of searching and pricing every byte
 * only to store them anyway.
 *
 * The test is pure (the bytes given, nothing else), so the output depends
 * only on the input. It says "store" only when all three hold:
 * - the bytes' distribution in each of the 8 literal contexts of lc = 3
 *   (the top 3 bits of the previous byte) is flat: the chi-square sum over
 *   the 8 x 256 counts stays within noise plus a small excess, which bounds
 *   what an ideal order-1 coder with those contexts could gain to about a
 *   quarter of a percent, less than LZMA's adaptive coder pays to learn its
 *   probabilities; text, code, tables and executables are far outside;
 * - there are hardly any repeats: at one position in 16, picked by its
 *   4 bytes, a small table of earlier such positions finds repeats of 8
 *   bytes or more covering less than 1/256 of the bytes (periodic data
 *   with flat histograms, such as a random block written again and again,
 *   is full of them);
 * - no anchor (a position whose 4 bytes hash to 0 in the top bits: chosen
 *   by content, so every copy of some bytes has the same ones) starts 32
 *   bytes that the match finder's newest candidate for it also holds. The
 *   encoder records the anchors of what it stores, so a second copy of
 *   stored bytes (a file backed up twice) is found and coded as matches.
 * That last test reads the match finder, which is the same for a given
 * input and settings: the output stays a function of the input. */
#include "lzma/lzma_enc_impl.h"

#include <stdint.h>
#include <string.h>

/* The first bytes are looked at alone first: most compressible data is
 * rejected there, for the price of one small histogram. */
#define QUICK_BYTES 4096u
/* Repeats are looked for at sample positions only: those whose anchor
 * hash is below 2^(32 - SAMPLE_BITS), one in 16, chosen by content, so a
 * repeat's second copy has the same samples as its first. A repeat of 64
 * bytes holds 3.6 of them on average; shorter ones that are common enough
 * to matter make the literal histograms uneven. */
#define SAMPLE_BITS 4u
/* Earlier samples by hash: 4096 slots for the 4096 samples of a piece. */
#define SLOT_BITS 12u
#define REPEAT_MIN 8u

/* Chi-square of the counts c[0..255] of n bytes against a flat
 * distribution: 256 * sum(c^2) / n - n, in integers (the same everywhere). */
static uint64_t chi2_flat(uint64_t sq, uint32_t n)
{
    if (n == 0)
        return 0;
    uint64_t v = (sq << 8) / n;
    return v > n ? v - n : 0;
}

/* sum(c[k * stride]^2) for k < 256. */
static uint64_t sum_sq(const uint32_t *c, unsigned stride)
{
    uint64_t sq = 0;
    for (unsigned b = 0; b < 256; b++)
        sq += (uint64_t)c[b * stride] * c[b * stride];
    return sq;
}

/* The first QUICK_BYTES alone, order 0. */
static int quick_flat(const uint8_t *p, uint32_t n)
{
    uint32_t c[256] = {0};
    uint32_t q = n < QUICK_BYTES ? n : QUICK_BYTES;
    for (uint32_t i = 0; i < q; i++)
        c[p[i]]++;
    /* A flat histogram of q bytes gives 255 +- 23: 700 is far outside. */
    return chi2_flat(sum_sq(c, 1), q) <= 700;
}

/* The 8 bytes at a equal those at b (one compare: no byte order involved). */
static inline int same8(const uint8_t *a, const uint8_t *b)
{
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x == y;
}

/* The repeat scan over the samples of the n bytes at p, listing the
 * anchors in scan on the way: 0 as soon as repeats of REPEAT_MIN bytes or
 * more (each measured both ways from its sample) cover more than n / 256
 * of them, else 1. The samples of 64 positions are found first, without
 * a branch per position (the match finder's hash-mask kernel). */
static int few_repeats(fz7_hash_mask_fn hash_mask, const uint8_t *p, uint32_t n, fz7_lzma2_store_scan *scan)
{
    /* Samples are picked by fz7_lz_anchor_hash too (top SAMPLE_BITS zero). */
    _Static_assert(REPEAT_MIN == 8 && SAMPLE_BITS <= FZ7_LZ_ANCHOR_BITS,
                   "samples compare 8 bytes; every anchor is a sample");
    /* Empty slots hold 0: a "repeat" found through one is a real one. */
    uint16_t last[1u << SLOT_BITS] = {0};
    const uint32_t limit = n / 256, stop = n - 7;  /* positions with 8 bytes; n <= 2^16 */
    uint32_t covered = 0, counted_to = 0;
    for (uint32_t base = 0; base < stop; base += 64) {
        uint32_t span = stop - base < 64 ? stop - base : 64;
        uint64_t mask = hash_mask(p + base, span, FZ7_LZ_ANCHOR_MULT, 1u << (32 - SAMPLE_BITS));
        while (mask != 0) {
            uint32_t i = base + (uint32_t)__builtin_ctzll(mask);
            mask &= mask - 1;
            uint32_t h = fz7_lz_anchor_hash(p + i);
            if (h >> (32 - FZ7_LZ_ANCHOR_BITS) == 0) {
                if (scan->count < FZ7_LZMA2_SCAN_ANCHORS)
                    scan->anchor[scan->count++] = i;
                else if (scan->listed == n)
                    scan->listed = i;
            }
            uint32_t slot = (h >> (32 - SAMPLE_BITS - SLOT_BITS)) & ((1u << SLOT_BITS) - 1);
            uint32_t j = last[slot];
            last[slot] = (uint16_t)i;
            if (!same8(p + j, p + i) || j == i || i < counted_to)
                continue;
            /* Measured only until the verdict is known. */
            uint32_t d = i - j, from = i, to = i + REPEAT_MIN;
            uint32_t low = counted_to > d ? counted_to : d;
            while (from > low && covered + (to - from) <= limit && p[from - 1] == p[from - 1 - d])
                from--;
            while (to < n && covered + (to - from) <= limit && p[to] == p[to - d])
                to++;
            covered += to - from;
            if (covered > limit)
                return 0;
            counted_to = to;
        }
    }
    return 1;
}

/* The AND of the three tests described at the top, cheapest first
 * (after the quick look): the repeat scan, which ends early in data that
 * repeats, then the order-1 histogram, then the match finder's probes of
 * the anchors the scan listed. */
int fz7_lzma2_store_worthy(const fz7_lz_mf *mf, uint32_t idx, uint32_t n, fz7_lzma2_store_scan *scan)
{
    const uint8_t *p = mf->buf + idx;
    if (!quick_flat(p, n))
        return 0;
    scan->idx = idx;
    scan->end = idx + n;
    scan->count = 0;
    scan->listed = n;
    if (!few_repeats(mf->hash_mask, p, n, scan))
        return 0;
    /* The pairs (previous byte, byte), counted at byte << 3 | previous
     * byte >> 5: 11 bits of the little-endian word that starts at the
     * previous byte's bit 5, so one load serves 7 pairs. */
    uint32_t pair[256 * 8] = {0};
    uint32_t i = 1;
    for (; i + 7 <= n; i += 7) {
        uint64_t w = fz7_get64le(p + i - 1);
        for (unsigned k = 0; k < 7; k++)
            pair[(w >> (8 * k + 5)) & 0x7FF]++;
    }
    for (; i < n; i++)
        pair[(uint32_t)p[i] << 3 | p[i - 1] >> 5]++;
    uint64_t sum = 0;
    for (unsigned k = 0; k < 8; k++) {
        uint32_t nk = 0;
        for (unsigned b = 0; b < 256; b++)
            nk += pair[b << 3 | k];
        sum += chi2_flat(sum_sq(pair + k, 8), nk);
    }
    /* Noise alone: about 8 * 255 = 2040 +- 64. The excess allowed grows
     * with n: a chi-square excess x over n bytes bounds an ideal coder's
     * gain near x / (2 ln 2 n) bits per byte. */
    if (sum > 2440u + n / 32u)
        return 0;
    /* Repeats of the dictionary: the anchors of stored bytes are recorded
     * (fz7_lzma2_store_pass), so a second copy of them meets its first
     * here. */
    for (uint32_t a = 0; a < scan->count; a++)
        if (fz7_lz_mf_probe(mf, idx + scan->anchor[a], 32) >= 32)
            return 0;
    for (uint32_t at = scan->listed; at + 8 <= n; at++)
        if (fz7_lz_anchor(p + at) && fz7_lz_mf_probe(mf, idx + at, 32) >= 32)
            return 0;
    return 1;
}

void fz7_lzma2_store_pass(fz7_lz_mf *mf, uint32_t stop, const fz7_lzma2_store_scan *scan)
{
    if (scan && scan->idx <= mf->pos && scan->end == stop) {
        for (uint32_t a = 0; a < scan->count; a++) {
            uint32_t at = scan->idx + scan->anchor[a];
            if (at >= mf->pos) {
                fz7_lz_mf_pass(mf, at - mf->pos);
                fz7_lz_mf_skip(mf, 1);
            }
        }
        /* Past the listed ones, if the list was full, the scan below. */
        uint32_t listed = scan->idx + scan->listed;
        if (listed > mf->pos)
            fz7_lz_mf_pass(mf, listed - mf->pos);
    }
    for (uint32_t i = mf->pos; i + 8 <= stop; i++) {
        if (fz7_lz_anchor(mf->buf + i)) {
            fz7_lz_mf_pass(mf, i - mf->pos);
            fz7_lz_mf_skip(mf, 1);
            i = mf->pos - 1;
        }
    }
    fz7_lz_mf_pass(mf, stop - mf->pos);
}

uint32_t fz7_lzma2_store_test(fz7_lz_mf *mf, uint32_t n)
{
    fz7_lzma2_store_scan scan;
    if (n < FZ7_LZMA2_STORE_MIN || !fz7_lzma2_store_worthy(mf, mf->pos, n, &scan))
        return 0;
    fz7_lzma2_store_pass(mf, mf->pos + n, &scan);
    return n;
}
