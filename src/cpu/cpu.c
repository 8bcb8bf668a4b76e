/* cpu.c - CPUID/XGETBV feature detection, the FZ7_CPU level and the
 * kernel-pick rule. Detection runs once (pthread_once); the level is an
 * atomic, as tests and `fz7 b` lower it while other threads may pick. */
#include "cpu/cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FZ7_X86 1
#endif

static fz7_cpu_features g_features;
static uint32_t g_feature_bits;        /* FZ7_CPU_* of g_features */
static fz7_cpu_level g_max_level = FZ7_LEVEL_PORTABLE;
static atomic_int g_level;
static pthread_once_t g_detect_once = PTHREAD_ONCE_INIT;

#ifdef FZ7_X86
static unsigned long long read_xcr0(void)
{
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static void detect_x86(fz7_cpu_features *f)
{
    unsigned int a, b, c, d, max_leaf;
    if (!__get_cpuid(0, &max_leaf, &b, &c, &d))
        return;
    __cpuid(1, a, b, c, d);
    f->sse41 = (c >> 19) & 1;
    f->pclmulqdq = (c >> 1) & 1;
    f->aesni = (c >> 25) & 1;
    bool osxsave = (c >> 27) & 1;
    bool avx = (c >> 28) & 1;
    if (osxsave) {
        unsigned long long xcr0 = read_xcr0();
        f->os_ymm = (xcr0 & 0x6) == 0x6;
        f->os_zmm = f->os_ymm && (xcr0 & 0xe0) == 0xe0;
    }
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        f->bmi2 = (b >> 8) & 1;
        f->sha = (b >> 29) & 1;
        f->avx2 = avx && f->os_ymm && ((b >> 5) & 1);
        if (f->os_zmm) {
            f->avx512f = (b >> 16) & 1;
            f->avx512bw = (b >> 30) & 1;
            f->avx512vl = (b >> 31) & 1;
            f->avx512vbmi2 = (c >> 6) & 1;
        }
        if (f->os_ymm) {
            f->vaes = (c >> 9) & 1;
            f->vpclmulqdq = (c >> 10) & 1;
        }
    }
    unsigned int ext;
    __cpuid(0x80000000, ext, b, c, d);
    if (ext >= 0x80000004) {
        unsigned int regs[12];
        for (unsigned int i = 0; i < 3; i++)
            __cpuid(0x80000002 + i, regs[4 * i], regs[4 * i + 1], regs[4 * i + 2], regs[4 * i + 3]);
        memcpy(f->brand, regs, 48);
        f->brand[48] = 0;
    }
}
#endif

static void trim_brand(char *s)
{
    size_t start = 0, len = strlen(s);
    while (s[start] == ' ')
        start++;
    memmove(s, s + start, len - start + 1);
    len = strlen(s);
    while (len > 0 && s[len - 1] == ' ')
        s[--len] = 0;
}

static uint32_t feature_bits(const fz7_cpu_features *f)
{
    return (f->sse41 ? FZ7_CPU_SSE41 : 0) | (f->pclmulqdq ? FZ7_CPU_PCLMULQDQ : 0) |
           (f->aesni ? FZ7_CPU_AESNI : 0) | (f->sha ? FZ7_CPU_SHA : 0) | (f->bmi2 ? FZ7_CPU_BMI2 : 0) |
           (f->avx2 ? FZ7_CPU_AVX2 : 0) | (f->avx512f ? FZ7_CPU_AVX512F : 0) |
           (f->avx512bw ? FZ7_CPU_AVX512BW : 0) | (f->vaes ? FZ7_CPU_VAES : 0) |
           (f->vpclmulqdq ? FZ7_CPU_VPCLMULQDQ : 0);
}

static void detect_once(void)
{
    memset(&g_features, 0, sizeof g_features);
#ifdef FZ7_X86
    detect_x86(&g_features);
#endif
    trim_brand(g_features.brand);
    if (!g_features.brand[0])
        strcpy(g_features.brand, "unknown CPU");
    const fz7_cpu_features *f = &g_features;
    g_max_level = FZ7_LEVEL_PORTABLE;
    if (f->avx2 && f->bmi2)
        g_max_level = FZ7_LEVEL_AVX2;
    if (g_max_level == FZ7_LEVEL_AVX2 && f->avx512f && f->avx512bw && f->avx512vl)
        g_max_level = FZ7_LEVEL_AVX512;
    g_feature_bits = feature_bits(f);
    fz7_cpu_level level = g_max_level;
    const char *env = getenv("FZ7_CPU");
    if (env) {
        fz7_cpu_level want = level;
        if (!strcmp(env, "portable"))
            want = FZ7_LEVEL_PORTABLE;
        else if (!strcmp(env, "avx2"))
            want = FZ7_LEVEL_AVX2;
        else if (!strcmp(env, "avx512"))
            want = FZ7_LEVEL_AVX512;
        if (want < level)
            level = want;
    }
    atomic_store(&g_level, (int)level);
}

static void detect(void)
{
    pthread_once(&g_detect_once, detect_once);
}

const fz7_cpu_features *fz7_cpu_features_get(void)
{
    detect();
    return &g_features;
}

fz7_cpu_level fz7_cpu_max_level(void)
{
    detect();
    return g_max_level;
}

fz7_cpu_level fz7_cpu_level_get(void)
{
    detect();
    return (fz7_cpu_level)atomic_load(&g_level);
}

void fz7_cpu_set_level(fz7_cpu_level level)
{
    detect();
    atomic_store(&g_level, (int)(level < g_max_level ? level : g_max_level));
}

const char *fz7_cpu_level_name(fz7_cpu_level level)
{
    switch (level) {
    case FZ7_LEVEL_AVX2: return "avx2";
    case FZ7_LEVEL_AVX512: return "avx512";
    default: return "portable";
    }
}

bool fz7_cpu_can_run(fz7_kernel_need need)
{
    detect();
    return need.level <= g_max_level && (need.features & ~g_feature_bits) == 0;
}

size_t fz7_kernel_pick(const void *table, size_t n, size_t stride)
{
    fz7_cpu_level level = fz7_cpu_level_get();
    for (size_t i = n; i-- > 1;) {
        const fz7_kernel_info *k = (const fz7_kernel_info *)((const char *)table + i * stride);
        if (k->need.level <= level && fz7_cpu_can_run(k->need))
            return i;
    }
    return 0;
}
