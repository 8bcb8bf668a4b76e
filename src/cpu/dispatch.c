/* dispatch.c - chooses each kernel from the CPU level.
 *
 * This file is the one place that names every kernel variant, so it is
 * the one place that links upward into check/, crypto/ and lz/. */
#include "cpu/dispatch.h"
#include "cpu/cpu.h"
#include "cpu/kernels.h"

static fz7_dispatch g_table;
static int g_ready;

static void select_kernels(fz7_dispatch *t)
{
    fz7_cpu_level level = fz7_cpu_level_get();
    const fz7_cpu_features *f = fz7_cpu_features_get();
    (void)f;
    (void)level;

    t->crc32 = fz7_crc32_portable;
    t->crc32_path = "portable";
    t->crc64 = fz7_crc64_portable;
    t->crc64_path = "portable";
    t->sha256_blocks = fz7_sha256_blocks_portable;
    t->sha256_path = "portable";
    t->aes_cbc_dec = fz7_aes_cbc_dec_portable;
    t->aes_cbc_dec_path = "portable";
    t->aes_cbc_enc = fz7_aes_cbc_enc_portable;
    t->aes_cbc_enc_path = "portable";
#ifdef FZ7_HAVE_X86_KERNELS
    /* AES: AES-NI above portable; VAES on ymm at avx2, on zmm (NASM) at
     * avx512, falling back to VAES-256 without NASM. */
    if (level >= FZ7_LEVEL_AVX2 && f->aesni && f->sse41) {
        t->aes_cbc_dec = fz7_aes_cbc_dec_aesni;
        t->aes_cbc_dec_path = "aesni";
        t->aes_cbc_enc = fz7_aes_cbc_enc_aesni;
        t->aes_cbc_enc_path = "aesni";
        if (f->vaes && f->avx2) {
            t->aes_cbc_dec = fz7_aes_cbc_dec_vaes256;
            t->aes_cbc_dec_path = "vaes256";
        }
#ifdef FZ7_HAVE_NASM
        if (level >= FZ7_LEVEL_AVX512 && f->vaes && f->avx512f) {
            t->aes_cbc_dec = fz7_aes_cbc_dec_vaes512;
            t->aes_cbc_dec_path = "vaes512";
        }
#endif
    }
#endif
    t->match_len = fz7_match_len_portable;
    t->match_len_path = "portable";
#ifdef FZ7_HAVE_X86_KERNELS
    /* CRC: PCLMULQDQ folding at avx2, VPCLMULQDQ on zmm at avx512. SHA-256:
     * SHA-NI at avx2 and above. match_len: ymm at avx2, zmm at avx512. */
    if (level >= FZ7_LEVEL_AVX2) {
        if (f->pclmulqdq && f->sse41) {
            t->crc32 = fz7_crc32_pclmul;
            t->crc32_path = "pclmulqdq";
            t->crc64 = fz7_crc64_pclmul;
            t->crc64_path = "pclmulqdq";
            if (level >= FZ7_LEVEL_AVX512 && f->vpclmulqdq) {
                t->crc32 = fz7_crc32_vpclmul512;
                t->crc32_path = "vpclmulqdq-512";
                t->crc64 = fz7_crc64_vpclmul512;
                t->crc64_path = "vpclmulqdq-512";
            }
        }
        if (f->sha && f->sse41) {
            t->sha256_blocks = fz7_sha256_blocks_shani;
            t->sha256_path = "sha-ni";
        }
        t->match_len = fz7_match_len_avx2;
        t->match_len_path = "avx2";
        if (level >= FZ7_LEVEL_AVX512) {
            t->match_len = fz7_match_len_avx512;
            t->match_len_path = "avx512";
        }
    }
#endif
}

const fz7_dispatch *fz7_dispatch_get(void)
{
    if (!g_ready) {
        select_kernels(&g_table);
        g_ready = 1;
    }
    return &g_table;
}

void fz7_dispatch_reset(void)
{
    select_kernels(&g_table);
    g_ready = 1;
}
