/* match_len.c - portable match-length extension (twin of the SIMD paths in
 * match_len_simd.c): eight bytes per step as 64-bit words, then bytes.
 * Reads only a[0..limit) and b[0..limit), as every path must. */
#include "cpu/kernels.h"

#include <string.h>

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
