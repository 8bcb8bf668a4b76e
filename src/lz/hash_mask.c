/* hash_mask.c - the hash-mask kernel table and the portable kernel (twin
 * of the SIMD ones in hash_mask_simd.c). */
#include "lz/hash_mask.h"

#include "cpu/bytes.h"

static const fz7_hash_mask_kernel kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_hash_mask_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"avx2", {FZ7_LEVEL_AVX2, FZ7_CPU_AVX2 | FZ7_CPU_BMI2}}, fz7_hash_mask_avx2},
    {{"avx512", {FZ7_LEVEL_AVX512, FZ7_CPU_AVX512F | FZ7_CPU_AVX512BW | FZ7_CPU_BMI2}}, fz7_hash_mask_avx512},
#endif
};

const fz7_hash_mask_kernel *fz7_hash_mask_kernels(size_t *n)
{
    *n = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const fz7_hash_mask_kernel *fz7_hash_mask_pick(void)
{
    return FZ7_KERNEL_PICK(kernels);
}

uint64_t fz7_hash_mask_portable(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below)
{
    /* One byte per position first, without a branch, then eight of them
     * gathered into eight bits by one multiply (each lands in the top
     * byte alone: no carries). */
    uint8_t is[64] = {0};
    for (uint32_t k = 0; k < span; k++)
        is[k] = fz7_get32le(p + k) * mult < below;
    uint64_t mask = 0;
    for (uint32_t k = 0; k < 64; k += 8)
        mask |= ((fz7_get64le(is + k) * 0x0102040810204080u) >> 56) << k;
    return mask;
}
