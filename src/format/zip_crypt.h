/* zip_crypt.h - the ciphers of zip entries: traditional PKWARE encryption
 * ("ZipCrypto", APPNOTE.TXT 6.1) and WinZip AES (AE-1/AE-2: AES-CTR with
 * a little-endian counter from 1, keys from PBKDF2-HMAC-SHA1 with 1000
 * rounds, an HMAC-SHA1 code of the ciphertext cut to 10 bytes), through
 * nettle. The zip writer and the reader's own entries use them. */
#ifndef FZ7_ZIP_CRYPT_H
#define FZ7_ZIP_CRYPT_H

#include "fz7_common.h"

#include <nettle/aes.h>
#include <nettle/hmac.h>
#include <nettle/nettle-meta.h>

/* ZipCrypto's three keys. */
typedef struct fz7_zipcrypto {
    uint32_t keys[3];
    const uint32_t *crc;   /* fz7_crc32_byte_table() */
} fz7_zipcrypto;

/* Sets the keys from password (its bytes as given). */
void fz7_zipcrypto_init(fz7_zipcrypto *z, const char *password);
/* Encrypts or decrypts n bytes in place, the 12-byte header first. */
void fz7_zipcrypto_encrypt(fz7_zipcrypto *z, uint8_t *p, size_t n);
void fz7_zipcrypto_decrypt(fz7_zipcrypto *z, uint8_t *p, size_t n);

#define FZ7_ZIPCRYPTO_HEADER 12u
#define FZ7_WZAES_MAC 10u
#define FZ7_WZAES_BLOCKS 64u

/* One entry's WinZip AES state. */
typedef struct fz7_wzaes {
    const struct nettle_cipher *cipher;
    union {
        struct aes128_ctx a128;
        struct aes192_ctx a192;
        struct aes256_ctx a256;
    } ctx;
    uint8_t ctr[16];
    uint8_t ks[16 * FZ7_WZAES_BLOCKS];   /* key stream not yet used from ks_pos */
    size_t ks_pos;
    struct hmac_sha1_ctx mac;
} fz7_wzaes;

/* The salt's length for strength 1, 2, 3 (AES-128, -192, -256): 8, 12, 16. */
static inline size_t fz7_wzaes_salt_len(unsigned strength) { return 4u + 4u * strength; }

/* Derives the keys of password and salt (fz7_wzaes_salt_len bytes) and
 * the 2-byte password check into pv. FZ7_E_ARG for a strength not 1..3. */
fz7_status fz7_wzaes_init(fz7_wzaes *a, unsigned strength, const char *password, const uint8_t *salt,
                          uint8_t pv[2]);
/* Restarts the counter and the code with the same keys (the same entry
 * written again). */
void fz7_wzaes_restart(fz7_wzaes *a);
/* Encrypts (then codes) or (codes then) decrypts n bytes in place. */
void fz7_wzaes_encrypt(fz7_wzaes *a, uint8_t *p, size_t n);
void fz7_wzaes_decrypt(fz7_wzaes *a, uint8_t *p, size_t n);
/* The code of what went through: FZ7_WZAES_MAC bytes into out. */
void fz7_wzaes_mac(fz7_wzaes *a, uint8_t out[FZ7_WZAES_MAC]);
/* Forgets the keys. */
void fz7_wzaes_wipe(fz7_wzaes *a);

#endif
