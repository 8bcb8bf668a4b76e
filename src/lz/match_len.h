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

#include "cpu/cpu.h"

typedef uint32_t (*fz7_match_len_fn)(const uint8_t *a, const uint8_t *b, uint32_t limit);

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
