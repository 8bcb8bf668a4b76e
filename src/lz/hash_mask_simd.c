/* hash_mask_simd.c - the hash mask (hash_mask.h) with AVX2 and AVX-512.
 * Twins of hash_mask.c.
 *
 * A vector load at p + r holds the 4-byte words of positions r, r + 4,
 * r + 8, ... in its dword lanes, so four loads (r = 0..3) cover every
 * position; PDEP puts each lane's bit back at its position. Only
 * p[0 .. span + 3) is read: AVX-512 masks its loads, AVX2 leaves a short
 * span to the portable kernel. */
#include "lz/hash_mask.h"

#ifdef FZ7_HAVE_X86_KERNELS

#include <immintrin.h>

__attribute__((target("avx2,bmi2")))
uint64_t fz7_hash_mask_avx2(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below)
{
    if (span < 64 || below == 0)
        return fz7_hash_mask_portable(p, span, mult, below);
    const __m256i m = _mm256_set1_epi32((int)mult), top = _mm256_set1_epi32((int)(below - 1));
    uint64_t mask = 0;
    for (uint32_t half = 0; half < 64; half += 32) {
        for (uint32_t r = 0; r < 4; r++) {
            /* The last load, at 32 + 3, ends at byte 66: span + 3 = 67. */
            __m256i h = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(p + half + r)), m);
            /* h < below, unsigned: min(h, below - 1) == h */
            __m256i lt = _mm256_cmpeq_epi32(_mm256_min_epu32(h, top), h);
            uint32_t bits = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(lt));
            mask |= (uint64_t)_pdep_u32(bits, 0x11111111u << r) << half;
        }
    }
    return mask;
}

__attribute__((target("avx512f,avx512bw,bmi,bmi2")))
uint64_t fz7_hash_mask_avx512(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below)
{
    const __m512i m = _mm512_set1_epi32((int)mult), lim = _mm512_set1_epi32((int)below);
    const uint32_t bytes = span + 3;
    uint64_t mask = 0;
    for (uint32_t r = 0; r < 4; r++) {
        /* Masked-off bytes are not read (no fault); the lanes they feed
         * are positions from span up, cleared below. */
        __mmask64 live = bytes >= r + 64 ? ~0ull : bytes > r ? _bzhi_u64(~0ull, bytes - r) : 0;
        __m512i h = _mm512_mullo_epi32(_mm512_maskz_loadu_epi8(live, p + r), m);
        uint32_t bits = _mm512_cmplt_epu32_mask(h, lim);
        mask |= _pdep_u64(bits, 0x1111111111111111ull << r);
    }
    return span >= 64 ? mask : _bzhi_u64(mask, span);
}

#endif /* FZ7_HAVE_X86_KERNELS */
