/* aes_x86.c - AES-256-CBC with AES-NI (xmm) and VAES (ymm) intrinsics.
 * Decryption is parallel, so many blocks are in flight to hide the AESDEC
 * latency; encryption is one serial chain. The last round folds the chaining
 * XOR into its key: AESDECLAST(x, k14 ^ prev). */
#include "crypto/aes.h"

#ifdef FZ7_HAVE_X86_KERNELS
#include <immintrin.h>

#define AESNI_TARGET __attribute__((target("aes,sse4.1")))
#define VAES_TARGET __attribute__((target("vaes,avx2,aes")))

/* 8 blocks per iteration: enough independent AESDECs to cover the latency
 * on current cores. */
#define DEC_LANES 8

AESNI_TARGET
void fz7_aes_cbc_dec_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    const __m128i *kp = rk;
    __m128i key[15];
    for (int i = 0; i < 15; i++)
        key[i] = _mm_loadu_si128(kp + i);
    __m128i prev = _mm_loadu_si128((const __m128i *)iv);

    while (nblocks >= DEC_LANES) {
        __m128i c[DEC_LANES], x[DEC_LANES];
#pragma GCC unroll 8
        for (int j = 0; j < DEC_LANES; j++) {
            c[j] = _mm_loadu_si128((const __m128i *)(buf + 16 * j));
            x[j] = _mm_xor_si128(c[j], key[0]);
        }
#pragma GCC unroll 13
        for (int r = 1; r < 14; r++) {
#pragma GCC unroll 8
            for (int j = 0; j < DEC_LANES; j++)
                x[j] = _mm_aesdec_si128(x[j], key[r]);
        }
#pragma GCC unroll 8
        for (int j = 0; j < DEC_LANES; j++) {
            __m128i chain = j == 0 ? prev : c[j - 1];
            x[j] = _mm_aesdeclast_si128(x[j], _mm_xor_si128(key[14], chain));
            _mm_storeu_si128((__m128i *)(buf + 16 * j), x[j]);
        }
        prev = c[DEC_LANES - 1];
        buf += 16 * DEC_LANES;
        nblocks -= DEC_LANES;
    }
    for (; nblocks; nblocks--, buf += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)buf);
        __m128i x = _mm_xor_si128(c, key[0]);
        for (int r = 1; r < 14; r++)
            x = _mm_aesdec_si128(x, key[r]);
        x = _mm_aesdeclast_si128(x, _mm_xor_si128(key[14], prev));
        _mm_storeu_si128((__m128i *)buf, x);
        prev = c;
    }
    _mm_storeu_si128((__m128i *)iv, prev);
}

AESNI_TARGET
void fz7_aes_cbc_enc_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    const __m128i *kp = rk;
    __m128i key[15];
    for (int i = 0; i < 15; i++)
        key[i] = _mm_loadu_si128(kp + i);
    __m128i chain = _mm_loadu_si128((const __m128i *)iv);
    /* Fold key 0 into the plaintext XOR: x = p ^ chain ^ k0. */
    for (; nblocks; nblocks--, buf += 16) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)buf), key[0]);
        x = _mm_xor_si128(x, chain);
#pragma GCC unroll 13
        for (int r = 1; r < 14; r++)
            x = _mm_aesenc_si128(x, key[r]);
        chain = _mm_aesenclast_si128(x, key[14]);
        _mm_storeu_si128((__m128i *)buf, chain);
    }
    _mm_storeu_si128((__m128i *)iv, chain);
}

/* VAES-256: 8 ymm registers of 2 blocks (16 blocks, 256 bytes) per
 * iteration. The chaining operand of ymm j is the 32 bytes starting 16
 * bytes before it; all loads precede the stores, so in-place works, and
 * the first one takes its low block from the previous iteration. */
#define VAES_REGS 8
#define VAES_PREFETCH 2048

VAES_TARGET
void fz7_aes_cbc_dec_vaes256(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    const __m128i *kp = rk;
    __m256i key[15];
    for (int i = 0; i < 15; i++)
        key[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128(kp + i));
    __m128i prev = _mm_loadu_si128((const __m128i *)iv);

    while (nblocks >= 2 * VAES_REGS) {
        __m256i c[VAES_REGS], x[VAES_REGS], chain[VAES_REGS];
        /* Ask for the lines a few iterations ahead: buffers that do not fit
         * in the cache would wait on them (prefetches never fault). */
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            _mm_prefetch((const char *)buf + VAES_PREFETCH + 64 * j, _MM_HINT_T0);
#pragma GCC unroll 8
        for (int j = 0; j < VAES_REGS; j++) {
            c[j] = _mm256_loadu_si256((const __m256i *)(buf + 32 * j));
            chain[j] = j == 0 ? _mm256_inserti128_si256(_mm256_castsi128_si256(prev),
                                                        _mm256_castsi256_si128(c[0]), 1)
                              : _mm256_loadu_si256((const __m256i *)(buf + 32 * j - 16));
            x[j] = _mm256_xor_si256(c[j], key[0]);
        }
#pragma GCC unroll 13
        for (int r = 1; r < 14; r++) {
#pragma GCC unroll 8
            for (int j = 0; j < VAES_REGS; j++)
                x[j] = _mm256_aesdec_epi128(x[j], key[r]);
        }
#pragma GCC unroll 8
        for (int j = 0; j < VAES_REGS; j++) {
            x[j] = _mm256_aesdeclast_epi128(x[j], _mm256_xor_si256(key[14], chain[j]));
            _mm256_storeu_si256((__m256i *)(buf + 32 * j), x[j]);
        }
        prev = _mm256_extracti128_si256(c[VAES_REGS - 1], 1);
        buf += 32 * VAES_REGS;
        nblocks -= 2 * VAES_REGS;
    }
    while (nblocks >= 2) {
        __m256i c = _mm256_loadu_si256((const __m256i *)buf);
        __m256i chain = _mm256_inserti128_si256(_mm256_castsi128_si256(prev),
                                                _mm256_castsi256_si128(c), 1);
        __m256i x = _mm256_xor_si256(c, key[0]);
        for (int r = 1; r < 14; r++)
            x = _mm256_aesdec_epi128(x, key[r]);
        x = _mm256_aesdeclast_epi128(x, _mm256_xor_si256(key[14], chain));
        _mm256_storeu_si256((__m256i *)buf, x);
        prev = _mm256_extracti128_si256(c, 1);
        buf += 32;
        nblocks -= 2;
    }
    if (nblocks) {
        __m128i c = _mm_loadu_si128((const __m128i *)buf);
        __m128i x = _mm_xor_si128(c, _mm256_castsi256_si128(key[0]));
        for (int r = 1; r < 14; r++)
            x = _mm_aesdec_si128(x, _mm256_castsi256_si128(key[r]));
        x = _mm_aesdeclast_si128(x, _mm_xor_si128(_mm256_castsi256_si128(key[14]), prev));
        _mm_storeu_si128((__m128i *)buf, x);
        prev = c;
    }
    _mm_storeu_si128((__m128i *)iv, prev);
}

#endif
