/* cpu.h - CPU feature detection (CPUID/XGETBV), the level in use, and the
 * rule by which every kernel family picks its kernel.
 *
 * Features are read once. The level is the highest of portable < avx2 <
 * avx512 that both the CPU and the OS (XCR0 register state) support,
 * lowered by the environment variable FZ7_CPU=portable|avx2|avx512 or by
 * fz7_cpu_set_level(). This layer knows no kernel: each family (check/,
 * crypto/, lz/) lists its own kernels in a table of fz7_kernel_info heads
 * and picks from it with fz7_kernel_pick(). Thread-safe. */
#ifndef FZ7_CPU_H
#define FZ7_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fz7_cpu_features {
    bool sse41, pclmulqdq, aesni, sha, bmi2;
    bool avx2;                         /* with OS support for ymm state */
    bool avx512f, avx512bw, avx512vl, avx512vbmi2; /* with OS zmm state */
    bool vaes, vpclmulqdq;             /* VEX/EVEX forms; ymm at least */
    bool os_ymm, os_zmm;               /* XCR0 says the OS saves ymm / zmm */
    char brand[49];                    /* CPUID brand string, trimmed */
} fz7_cpu_features;

typedef enum fz7_cpu_level {
    FZ7_LEVEL_PORTABLE = 0,
    FZ7_LEVEL_AVX2 = 1,    /* AVX2 + BMI2 */
    FZ7_LEVEL_AVX512 = 2   /* and AVX-512 F/BW/VL */
} fz7_cpu_level;

/* Feature bits a kernel may need (fz7_kernel_need.features). */
enum {
    FZ7_CPU_SSE41 = 1u << 0,
    FZ7_CPU_PCLMULQDQ = 1u << 1,
    FZ7_CPU_AESNI = 1u << 2,
    FZ7_CPU_SHA = 1u << 3,
    FZ7_CPU_BMI2 = 1u << 4,
    FZ7_CPU_AVX2 = 1u << 5,
    FZ7_CPU_AVX512F = 1u << 6,
    FZ7_CPU_AVX512BW = 1u << 7,
    FZ7_CPU_VAES = 1u << 8,
    FZ7_CPU_VPCLMULQDQ = 1u << 9,
};

/* The CPU's features as detected (not lowered by FZ7_CPU). */
const fz7_cpu_features *fz7_cpu_features_get(void);

/* The highest level the CPU and OS support. */
fz7_cpu_level fz7_cpu_max_level(void);

/* The level in use: fz7_cpu_max_level() lowered by FZ7_CPU, or by
 * fz7_cpu_set_level(). */
fz7_cpu_level fz7_cpu_level_get(void);

/* Lowers (never raises above max) the level for every kernel picked from
 * then on. Used by tests and `fz7 b` to compare paths in one process;
 * contexts made before keep their kernels. */
void fz7_cpu_set_level(fz7_cpu_level level);

/* "portable", "avx2" or "avx512". */
const char *fz7_cpu_level_name(fz7_cpu_level level);

/* What a kernel needs: the lowest level that may use it, and the
 * FZ7_CPU_* features its instructions need. */
typedef struct fz7_kernel_need {
    fz7_cpu_level level;
    uint32_t features;
} fz7_kernel_need;

/* True when the CPU and OS can run a kernel with this need at all (the
 * tests run every such kernel). */
bool fz7_cpu_can_run(fz7_kernel_need need);

/* The head of every entry of a kernel family's table: the kernel's name
 * (as `fz7 --version` prints it) and its need. Entry 0 is the portable
 * twin (needs nothing); later entries are preferred. */
typedef struct fz7_kernel_info {
    const char *name;
    fz7_kernel_need need;
} fz7_kernel_info;

/* The index of the last of n table entries (stride bytes apart, each
 * starting with an fz7_kernel_info) that the CPU can run and whose level is
 * at most the level in use; 0 when none is. */
size_t fz7_kernel_pick(const void *table, size_t n, size_t stride);

/* The entry of a family's table (an array) that fz7_kernel_pick chooses. */
#define FZ7_KERNEL_PICK(table) \
    (&(table)[fz7_kernel_pick((table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))])

#endif
