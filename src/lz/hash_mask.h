/* hash_mask.h - content-defined sampling: which of up to 64 consecutive
 * positions have a 4-byte multiplicative hash below a limit. The LZMA2
 * store test (lzma/lzma2_store.c) samples its pieces with it, so that
 * every copy of some bytes has the same sample positions. A match finder
 * picks the kernel when it is made (fz7_hash_mask_pick) and keeps it.
 *
 * Contract for every kernel: bit k of the result (k < span, 1 <= span <=
 * 64) is set iff (uint32_t)(fz7_get32le(p + k) * mult) < below; bits from
 * span up are 0; only p[0 .. span + 3) is read. */
#ifndef FZ7_HASH_MASK_H
#define FZ7_HASH_MASK_H

#include <stdint.h>

#include "cpu/cpu.h"

typedef uint64_t (*fz7_hash_mask_fn)(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below);

typedef struct fz7_hash_mask_kernel {
    fz7_kernel_info info;
    fz7_hash_mask_fn fn;
} fz7_hash_mask_kernel;

/* Every kernel built in, portable first (whether this CPU can run it or
 * not: fz7_cpu_can_run); *n gets the count. */
const fz7_hash_mask_kernel *fz7_hash_mask_kernels(size_t *n);

/* The kernel a match finder made now uses (the level in use, cpu.h). */
const fz7_hash_mask_kernel *fz7_hash_mask_pick(void);

/* The kernels: one position at a time (hash_mask.c); AVX2, 8 hashes a
 * multiply, and AVX-512, 16 (hash_mask_simd.c). */
uint64_t fz7_hash_mask_portable(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below);
#ifdef FZ7_HAVE_X86_KERNELS
uint64_t fz7_hash_mask_avx2(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below);
uint64_t fz7_hash_mask_avx512(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below);
#endif

#endif
