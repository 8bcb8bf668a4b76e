/* cpu.h - CPU feature detection (CPUID/XGETBV) and the dispatch level.
 *
 * Features are read once. The level is the highest of portable < avx2 <
 * avx512 that both the CPU and the OS (XCR0 register state) support,
 * lowered by the environment variable FZ7_CPU=portable|avx2|avx512. */
#ifndef FZ7_CPU_H
#define FZ7_CPU_H

#include <stdbool.h>

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
    FZ7_LEVEL_AVX2 = 1,    /* AVX2 + BMI2, and AES-NI/PCLMULQDQ/SHA-NI if present */
    FZ7_LEVEL_AVX512 = 2   /* AVX-512 F/BW/VL (+VAES/VPCLMULQDQ on zmm if present) */
} fz7_cpu_level;

/* The CPU's features as detected (not lowered by FZ7_CPU). */
const fz7_cpu_features *fz7_cpu_features_get(void);

/* The highest level the CPU and OS support. */
fz7_cpu_level fz7_cpu_max_level(void);

/* The level in use: fz7_cpu_max_level() lowered by FZ7_CPU, or by
 * fz7_cpu_set_level(). */
fz7_cpu_level fz7_cpu_level_get(void);

/* Lowers (never raises above max) the level; re-selects the dispatch table.
 * Used by tests and `fz7 b` to compare paths in one process. */
void fz7_cpu_set_level(fz7_cpu_level level);

/* "portable", "avx2" or "avx512". */
const char *fz7_cpu_level_name(fz7_cpu_level level);

#endif
