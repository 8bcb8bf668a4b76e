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
 * - there are hardly any repeats: 4-byte hashes of the positions, looked up
 *   in a small table of earlier ones, find 8-byte repeats covering less
 *   than 1/256 of the bytes (periodic data with a flat histogram, such as
 *   a byte ramp, is full of them);
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
#define REPEAT_BITS 12u
#define REPEAT_MIN 8u

/* Chi-square of the counts c[0..255] of n bytes against a flat
 * distribution: 256 * sum(c^2) / n - n, in integers (the same everywhere). */
static uint64_t chi2_flat(const uint32_t *c, uint32_t n)
{
    if (n == 0)
        return 0;
    uint64_t sq = 0;
    for (unsigned b = 0; b < 256; b++)
        sq += (uint64_t)c[b] * c[b];
    uint64_t v = (sq << 8) / n;
    return v > n ? v - n : 0;
}

/* The first QUICK_BYTES alone, order 0. */
static int quick_flat(const uint8_t *p, uint32_t n)
{
    uint32_t c[256] = {0};
    uint32_t q = n < QUICK_BYTES ? n : QUICK_BYTES;
    for (uint32_t i = 0; i < q; i++)
        c[p[i]]++;
    /* A flat histogram of q bytes gives 255 +- 23: 700 is far outside. */
    return chi2_flat(c, q) <= 700;
}

int fz7_lzma2_store_anchor(const uint8_t *p)
{
    /* little-endian, as every hash that decides output: the same bytes on
     * every machine */
    return (fz7_get32le(p) * 0x2545F491u) >> (32 - FZ7_LZMA2_ANCHOR_BITS) == 0;
}

/* The 8 bytes at a equal those at b (one compare: no byte order involved). */
static inline int same8(const uint8_t *a, const uint8_t *b)
{
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x == y;
}

/* The repeat scan, the order-1 histogram, the anchor list and the
 * verdicts: the AND of the three tests described at the top, each
 * computed as far as needed. The repeat scan goes first: in data that
 * repeats (a period longer than QUICK_BYTES) it ends the test within the
 * first period. Each runs as its own loop, which keeps the loops short
 * enough for the compiler to schedule well. */
int fz7_lzma2_store_worthy(const fz7_lz_mf *mf, uint32_t idx, uint32_t n, fz7_lzma2_store_scan *scan)
{
    const uint8_t *p = mf->buf + idx;
    if (!quick_flat(p, n))
        return 0;
    _Static_assert(REPEAT_MIN == 8, "the repeat scan and the anchors read 8 bytes");
    uint16_t last[1u << REPEAT_BITS];
    memset(last, 0xFF, sizeof(last));
    uint32_t covered = 0;
    const uint32_t rep_end = n - 7 < 0xFFFF ? n - 7 : 0xFFFF;
    for (uint32_t i = 0; i < rep_end; i++) {
        uint32_t h = (fz7_get32le(p + i) * 0x9E3779B1u) >> (32 - REPEAT_BITS);
        uint32_t j = last[h];
        last[h] = (uint16_t)i;
        if (j != 0xFFFF && same8(p + j, p + i)) {
            /* Extended only until the verdict is known. */
            uint32_t len = REPEAT_MIN, enough = n / 256 + 1 - covered;
            while (len < enough && i + len < n && p[j + len] == p[i + len])
                len++;
            covered += len;
            if (covered > n / 256)
                return 0;
            i += len - 1;
        }
    }
    uint32_t ctx[8][256] = {{0}};
    uint32_t nctx[8] = {0};
    for (uint32_t i = 1; i < n; i++)
        ctx[p[i - 1] >> 5][p[i]]++;
    for (unsigned k = 0; k < 8; k++)
        for (unsigned b = 0; b < 256; b++)
            nctx[k] += ctx[k][b];
    uint64_t sum = 0;
    for (unsigned k = 0; k < 8; k++)
        sum += chi2_flat(ctx[k], nctx[k]);
    /* Noise alone: about 8 * 255 = 2040 +- 64. The excess allowed grows
     * with n: a chi-square excess x over n bytes bounds an ideal coder's
     * gain near x / (2 ln 2 n) bits per byte. */
    if (sum > 2440u + n / 32u)
        return 0;
    /* Repeats of the dictionary: the anchors of stored bytes are recorded
     * (fz7_lzma2_store_pass), so a second copy of them meets its first
     * here. */
    scan->idx = idx;
    scan->end = idx + n;
    scan->count = 0;
    scan->listed = n;
    for (uint32_t i = 0; i + 8 <= n; i++) {
        if (fz7_lzma2_store_anchor(p + i)) {
            if (fz7_lz_mf_probe(mf, idx + i, 32) >= 32)
                return 0;
            if (scan->count < FZ7_LZMA2_SCAN_ANCHORS)
                scan->anchor[scan->count++] = i;
            else if (scan->listed == n)
                scan->listed = i;
        }
    }
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
        if (fz7_lzma2_store_anchor(mf->buf + i)) {
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
