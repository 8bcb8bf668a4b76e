/* match_len.c - the match-length kernel table and the portable kernel
 * (twin of the SIMD ones in match_len_simd.c): eight bytes per step as
 * 64-bit words, then bytes. Reads only a[0..limit) and b[0..limit), as
 * every kernel must. */
#include "lz/match_len.h"

#include <string.h>

/* The AVX2 kernel also uses BMI1's TZCNT, which every AVX2 CPU has; the
 * avx2 level (AVX2 + BMI2) implies both. */
static const fz7_match_len_kernel kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_match_len_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"avx2", {FZ7_LEVEL_AVX2, FZ7_CPU_AVX2 | FZ7_CPU_BMI2}}, fz7_match_len_avx2},
    {{"avx512", {FZ7_LEVEL_AVX512, FZ7_CPU_AVX512F | FZ7_CPU_AVX512BW | FZ7_CPU_BMI2}}, fz7_match_len_avx512},
#endif
};

const fz7_match_len_kernel *fz7_match_len_kernels(size_t *n)
{
    *n = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const fz7_match_len_kernel *fz7_match_len_pick(void)
{
    return FZ7_KERNEL_PICK(kernels);
}

uint32_t fz7_match_len_portable(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
    uint32_t len = 0;
    for (; limit - len >= 8; len += 8) {
        uint64_t x, y;
        memcpy(&x, a + len, 8);
        memcpy(&y, b + len, 8);
        if (x != y) {
            /* The first differing byte: lowest set bit on little-endian
             * machines, highest on big-endian ones. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return len + ((uint32_t)__builtin_clzll(x ^ y) >> 3);
#else
            return len + ((uint32_t)__builtin_ctzll(x ^ y) >> 3);
#endif
        }
    }
    while (len < limit && a[len] == b[len])
        len++;
    return len;
}
