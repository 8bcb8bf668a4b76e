/* check_kernels.h - the kernels behind check.h, for check/ itself and for
 * the tests and benchmarks that run every one of them.
 *
 * Each family is a table, portable twin first (cpu.h: fz7_kernel_info);
 * fz7_crc32(), fz7_crc64() and fz7_sha256_update() use the entry
 * fz7_kernel_pick() chooses at the time of the call. Every kernel gives the
 * same result as its portable twin for any input. */
#ifndef FZ7_CHECK_KERNELS_H
#define FZ7_CHECK_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

/* CRC-32 (IEEE, reflected, 7z/zip) and CRC-64 (ECMA-182, reflected, xz):
 * crc = f(crc, p, n), 0 to start. */
typedef uint32_t (*fz7_crc32_fn)(uint32_t crc, const uint8_t *p, size_t n);
typedef uint64_t (*fz7_crc64_fn)(uint64_t crc, const uint8_t *p, size_t n);
/* SHA-256 compression of nblocks 64-byte blocks into state[8]. */
typedef void (*fz7_sha256_blocks_fn)(uint32_t state[8], const uint8_t *p, size_t nblocks);

typedef struct fz7_crc32_kernel {
    fz7_kernel_info info;
    fz7_crc32_fn fn;
} fz7_crc32_kernel;

typedef struct fz7_crc64_kernel {
    fz7_kernel_info info;
    fz7_crc64_fn fn;
} fz7_crc64_kernel;

typedef struct fz7_sha256_kernel {
    fz7_kernel_info info;
    fz7_sha256_blocks_fn fn;
} fz7_sha256_kernel;

/* Every kernel of a family built into fz7 (whether this CPU can run it or
 * not: fz7_cpu_can_run(k->info.need)); *n gets the count. */
const fz7_crc32_kernel *fz7_crc32_kernels(size_t *n);
const fz7_crc64_kernel *fz7_crc64_kernels(size_t *n);
const fz7_sha256_kernel *fz7_sha256_kernels(size_t *n);

/* The kernel a family uses now (the level in use, cpu.h). */
const fz7_crc32_kernel *fz7_crc32_pick(void);
const fz7_crc64_kernel *fz7_crc64_pick(void);
const fz7_sha256_kernel *fz7_sha256_pick(void);

/* The kernels themselves (crc_portable.c, crc_clmul.c, sha256.c). */
uint32_t fz7_crc32_portable(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_portable(uint64_t crc, const uint8_t *p, size_t n);
void fz7_sha256_blocks_portable(uint32_t state[8], const uint8_t *p, size_t nblocks);
#ifdef FZ7_HAVE_X86_KERNELS
/* Carry-less-multiplication folding: PCLMULQDQ on xmm; VPCLMULQDQ on zmm. */
uint32_t fz7_crc32_pclmul(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_pclmul(uint64_t crc, const uint8_t *p, size_t n);
uint32_t fz7_crc32_vpclmul512(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_vpclmul512(uint64_t crc, const uint8_t *p, size_t n);
/* The SHA extensions. */
void fz7_sha256_blocks_shani(uint32_t state[8], const uint8_t *p, size_t nblocks);
#endif

#endif
