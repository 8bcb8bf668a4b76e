/* kernels.h - prototypes of every kernel variant the dispatch table names.
 * Signatures are those of the table's entries (dispatch.h). Variants that
 * need a CPU feature exist only when FZ7_HAVE_X86_KERNELS is defined. */
#ifndef FZ7_KERNELS_H
#define FZ7_KERNELS_H

#include <stddef.h>
#include <stdint.h>

uint32_t fz7_crc32_portable(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_portable(uint64_t crc, const uint8_t *p, size_t n);
void fz7_sha256_blocks_portable(uint32_t state[8], const uint8_t *p, size_t nblocks);
void fz7_aes_cbc_dec_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_enc_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#ifdef FZ7_HAVE_X86_KERNELS
/* AES-256-CBC (crypto/aes_x86.c): AES-NI 8 blocks in flight / one chain;
 * VAES on ymm (needs vaes + avx2 + aesni). */
void fz7_aes_cbc_dec_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_enc_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_dec_vaes256(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#ifdef FZ7_HAVE_NASM
/* asm/aes_cbc_dec_vaes512.asm: VAES on zmm (needs vaes + avx512f). */
void fz7_aes_cbc_dec_vaes512(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#endif
#endif
uint32_t fz7_match_len_portable(const uint8_t *a, const uint8_t *b, uint32_t limit);
#ifdef FZ7_HAVE_X86_KERNELS
/* CRC-32/CRC-64 folding (check/crc_clmul.c): PCLMULQDQ on xmm (needs
 * pclmulqdq + sse4.1); VPCLMULQDQ on zmm (needs vpclmulqdq + avx512f/bw/vl). */
uint32_t fz7_crc32_pclmul(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_pclmul(uint64_t crc, const uint8_t *p, size_t n);
uint32_t fz7_crc32_vpclmul512(uint32_t crc, const uint8_t *p, size_t n);
uint64_t fz7_crc64_vpclmul512(uint64_t crc, const uint8_t *p, size_t n);
/* SHA-256 with the SHA extensions (check/sha256.c; needs sha + sse4.1). */
void fz7_sha256_blocks_shani(uint32_t state[8], const uint8_t *p, size_t nblocks);
/* Match length (lz/match_len_simd.c; needs avx2+bmi / avx512f+bw+bmi2).
 * Like the portable twin they read only a[0..limit) and b[0..limit). */
uint32_t fz7_match_len_avx2(const uint8_t *a, const uint8_t *b, uint32_t limit);
uint32_t fz7_match_len_avx512(const uint8_t *a, const uint8_t *b, uint32_t limit);
#endif

#endif
