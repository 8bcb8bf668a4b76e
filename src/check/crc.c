/* crc.c - CRC-32 and CRC-64: the kernel tables and the front ends. */
#include "check/check.h"
#include "check/check_kernels.h"

/* Folding needs PCLMULQDQ on xmm (and SSE4.1 for the tail); the 512-bit
 * form VPCLMULQDQ on zmm, so it waits for the avx512 level. */
static const fz7_crc32_kernel crc32_kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_crc32_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"pclmulqdq", {FZ7_LEVEL_AVX2, FZ7_CPU_PCLMULQDQ | FZ7_CPU_SSE41}}, fz7_crc32_pclmul},
    {{"vpclmulqdq-512", {FZ7_LEVEL_AVX512, FZ7_CPU_PCLMULQDQ | FZ7_CPU_SSE41 | FZ7_CPU_VPCLMULQDQ}},
     fz7_crc32_vpclmul512},
#endif
};

static const fz7_crc64_kernel crc64_kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_crc64_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"pclmulqdq", {FZ7_LEVEL_AVX2, FZ7_CPU_PCLMULQDQ | FZ7_CPU_SSE41}}, fz7_crc64_pclmul},
    {{"vpclmulqdq-512", {FZ7_LEVEL_AVX512, FZ7_CPU_PCLMULQDQ | FZ7_CPU_SSE41 | FZ7_CPU_VPCLMULQDQ}},
     fz7_crc64_vpclmul512},
#endif
};

const fz7_crc32_kernel *fz7_crc32_kernels(size_t *n)
{
    *n = sizeof crc32_kernels / sizeof crc32_kernels[0];
    return crc32_kernels;
}

const fz7_crc64_kernel *fz7_crc64_kernels(size_t *n)
{
    *n = sizeof crc64_kernels / sizeof crc64_kernels[0];
    return crc64_kernels;
}

const fz7_crc32_kernel *fz7_crc32_pick(void)
{
    return FZ7_KERNEL_PICK(crc32_kernels);
}

const fz7_crc64_kernel *fz7_crc64_pick(void)
{
    return FZ7_KERNEL_PICK(crc64_kernels);
}

uint32_t fz7_crc32(uint32_t crc, const void *p, size_t n)
{
    return fz7_crc32_pick()->fn(crc, p, n);
}

uint64_t fz7_crc64(uint64_t crc, const void *p, size_t n)
{
    return fz7_crc64_pick()->fn(crc, p, n);
}
