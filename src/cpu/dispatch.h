/* dispatch.h - the one table of kernel function pointers.
 *
 * Every SIMD kernel has a portable twin with the same signature; the table
 * is filled once from the CPU level (cpu.h) and re-filled when the level is
 * lowered. Nothing else in fz7 asks the CPU what it has. Each entry carries
 * the name of the path chosen, for `fz7 --version` and `fz7 b`. */
#ifndef FZ7_DISPATCH_H
#define FZ7_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz7_dispatch {
    /* CRC-32 (IEEE, reflected, 7z/zip): crc = f(crc, p, n), start with 0. */
    uint32_t (*crc32)(uint32_t crc, const uint8_t *p, size_t n);
    const char *crc32_path;
    /* CRC-64 (ECMA-182, reflected, xz): crc = f(crc, p, n), start with 0. */
    uint64_t (*crc64)(uint64_t crc, const uint8_t *p, size_t n);
    const char *crc64_path;
    /* SHA-256 compression of nblocks 64-byte blocks into state[8]. */
    void (*sha256_blocks)(uint32_t state[8], const uint8_t *p, size_t nblocks);
    const char *sha256_path;
    /* AES-256-CBC decryption in place of nblocks 16-byte blocks; iv is
     * updated to the last ciphertext block. rk: 15 round keys (240 bytes)
     * of the decryption schedule in the layout crypto/aes.h documents. */
    void (*aes_cbc_dec)(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
    const char *aes_cbc_dec_path;
    /* AES-256-CBC encryption in place; iv updated to the last block. */
    void (*aes_cbc_enc)(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
    const char *aes_cbc_enc_path;
    /* Match length: number of equal leading bytes of a and b, at most limit. */
    uint32_t (*match_len)(const uint8_t *a, const uint8_t *b, uint32_t limit);
    const char *match_len_path;
} fz7_dispatch;

/* The table for the current level; selects it on first use. */
const fz7_dispatch *fz7_dispatch_get(void);

/* Re-selects the table (after fz7_cpu_set_level). */
void fz7_dispatch_reset(void);

#endif
