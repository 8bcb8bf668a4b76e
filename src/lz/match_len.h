/* match_len.h - match-length extension: the number of equal leading bytes
 * of a and b, at most limit. A match finder picks its kernel when it is
 * made (fz7_match_len_pick) and keeps it.
 *
 * Contract for every kernel (the match finder relies on it): only
 * a[0..limit) and b[0..limit) are read, so the caller needs no padding
 * after its window; a and b may overlap and need no alignment. */
#ifndef FZ7_MATCH_LEN_H
#define FZ7_MATCH_LEN_H

#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"

typedef uint32_t (*fz7_match_len_fn)(const uint8_t *a, const uint8_t *b, uint32_t limit);

/* The index (0..7) of the first differing byte of two 8-byte words loaded
 * from memory as they are (memcpy), given their XOR (non-zero): the lowest
 * set bit on little-endian machines, the highest on big-endian ones. */
static inline uint32_t fz7_first_diff8(uint64_t diff)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t)__builtin_clzll(diff) >> 3;
#else
    return (uint32_t)__builtin_ctzll(diff) >> 3;
#endif
}

/* fn(a, b, limit) with the first 8 bytes compared inline (most runs end
 * there, and a call per candidate costs more than the compare): the same
 * result, the kernel only for longer runs. */
__attribute__((always_inline)) static inline uint32_t fz7_match_len_step(fz7_match_len_fn fn, const uint8_t *a,
                                                                        const uint8_t *b, uint32_t limit)
{
    if (limit >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return fz7_first_diff8(x ^ y);
        return 8 + fn(a + 8, b + 8, limit - 8);
    }
    return fn(a, b, limit);
}

typedef struct fz7_match_len_kernel {
    fz7_kernel_info info;
    fz7_match_len_fn fn;
} fz7_match_len_kernel;

/* Every kernel built in, portable first (whether this CPU can run it or
 * not: fz7_cpu_can_run); *n gets the count. */
const fz7_match_len_kernel *fz7_match_len_kernels(size_t *n);

/* The kernel a match finder made now uses (the level in use, cpu.h). */
const fz7_match_len_kernel *fz7_match_len_pick(void);

/* The kernels: 64-bit words (match_len.c); AVX2, 32 bytes a step, and
 * AVX-512BW, 64 bytes a step with a masked tail (match_len_simd.c). */
uint32_t fz7_match_len_portable(const uint8_t *a, const uint8_t *b, uint32_t limit);
#ifdef FZ7_HAVE_X86_KERNELS
uint32_t fz7_match_len_avx2(const uint8_t *a, const uint8_t *b, uint32_t limit);
uint32_t fz7_match_len_avx512(const uint8_t *a, const uint8_t *b, uint32_t limit);
#endif

#endif
