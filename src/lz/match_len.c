/* match_len.c - portable match-length extension (twin of the SIMD paths). */
#include "cpu/kernels.h"

uint32_t fz7_match_len_portable(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
    uint32_t len = 0;
    while (len < limit && a[len] == b[len])
        len++;
    return len;
}
