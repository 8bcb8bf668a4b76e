/* match_len_simd.c - match-length extension with AVX2 (32 bytes a step) and
 * AVX-512BW (64 bytes a step, masked tail). Twins of match_len.c.
 *
 * Contract for every path (the match finder relies on it): only a[0..limit)
 * and b[0..limit) are read, never a byte past either end, so the caller
 * needs no padding after its window. a and b may overlap and need no
 * alignment. The AVX2 path finishes with one overlapping load that ends
 * exactly at limit; the AVX-512 path masks its last load. */
#include "lz/match_len.h"

#ifdef FZ7_HAVE_X86_KERNELS

#include <immintrin.h>
#include <string.h>

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Index of the first differing byte of two 8-byte words, x = a ^ b != 0
 * (little-endian: the lowest set bit). */
static inline uint32_t first_diff_byte(uint64_t x)
{
    return (uint32_t)__builtin_ctzll(x) >> 3;
}

/* Most matches end within a few bytes: one 8-byte compare settles them
 * before any vector register is touched. Returns 1 and sets *len when the
 * match ends in the first 8 bytes (or limit < 8). */
static inline int short_match(const uint8_t *a, const uint8_t *b, uint32_t limit, uint32_t *len)
{
    if (limit < 8) {
        uint32_t n = 0;
        while (n < limit && a[n] == b[n])
            n++;
        *len = n;
        return 1;
    }
    uint64_t x = load64(a) ^ load64(b);
    if (x) {
        *len = first_diff_byte(x);
        return 1;
    }
    return 0;
}

__attribute__((target("avx2,bmi")))
uint32_t fz7_match_len_avx2(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
    uint32_t len;
    if (short_match(a, b, limit, &len))
        return len;
    len = 8;
    for (; len + 32 <= limit; len += 32) {
        __m256i eq = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(a + len)),
                                       _mm256_loadu_si256((const __m256i *)(b + len)));
        uint32_t ne = ~(uint32_t)_mm256_movemask_epi8(eq);
        if (ne)
            return len + (uint32_t)__builtin_ctz(ne);
    }
    /* Fewer than 32 bytes left (and limit >= 8): 8-byte steps, the last one
     * overlapping bytes already known equal so that it ends at limit. */
    while (len < limit) {
        uint32_t at = limit - len >= 8 ? len : limit - 8;
        uint64_t x = load64(a + at) ^ load64(b + at);
        if (x)
            return at + first_diff_byte(x);
        len = at + 8;
    }
    return limit;
}

__attribute__((target("avx512f,avx512bw,bmi,bmi2")))
uint32_t fz7_match_len_avx512(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
    uint32_t len;
    if (short_match(a, b, limit, &len))
        return len;
    len = 8;
    for (; len + 64 <= limit; len += 64) {
        __mmask64 ne = _mm512_cmpneq_epi8_mask(_mm512_loadu_si512(a + len), _mm512_loadu_si512(b + len));
        if (ne)
            return len + (uint32_t)_tzcnt_u64(ne);
    }
    if (len < limit) {
        /* Masked-off bytes are neither read (no fault) nor compared. */
        __mmask64 live = _bzhi_u64(~0ull, limit - len);
        __mmask64 ne = _mm512_mask_cmpneq_epi8_mask(live, _mm512_maskz_loadu_epi8(live, a + len),
                                                    _mm512_maskz_loadu_epi8(live, b + len));
        if (ne)
            return len + (uint32_t)_tzcnt_u64(ne);
    }
    return limit;
}

#endif /* FZ7_HAVE_X86_KERNELS */
