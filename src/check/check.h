/* check.h - CRC32 (7z), CRC64 (xz) and SHA-256 (xz check, 7zAES KDF).
 * Each uses the fastest kernel of its family the CPU level allows
 * (check_kernels.h). */
#ifndef FZ7_CHECK_H
#define FZ7_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of n bytes continuing from crc (0 to start); returns the CRC. */
uint32_t fz7_crc32(uint32_t crc, const void *p, size_t n);

/* CRC-32's table of one byte: 256 entries, table[b] the register's step
 * for byte b without the inversions (ZipCrypto's key updates use it). */
const uint32_t *fz7_crc32_byte_table(void);

/* CRC-64/XZ of n bytes continuing from crc (0 to start). */
uint64_t fz7_crc64(uint64_t crc, const void *p, size_t n);

/* Incremental SHA-256 (FIPS 180-4). */
typedef struct fz7_sha256 {
    uint32_t state[8];
    uint64_t total;      /* bytes hashed so far */
    uint8_t buf[64];
    size_t fill;         /* bytes waiting in buf */
} fz7_sha256;

void fz7_sha256_init(fz7_sha256 *s);
void fz7_sha256_update(fz7_sha256 *s, const void *p, size_t n);
void fz7_sha256_final(fz7_sha256 *s, uint8_t digest[32]);

#endif
