/* aes.h - AES-256 (FIPS-197): key schedule and the CBC kernels behind the
 * dispatch table's aes_cbc_dec / aes_cbc_enc entries.
 *
 * Every path (portable, AES-NI, VAES-256, VAES-512) reads the same round-key
 * layout, so a key is expanded once whatever the CPU level. */
#ifndef FZ7_AES_H
#define FZ7_AES_H

#include <stddef.h>
#include <stdint.h>

#define FZ7_AES256_KEY_BYTES 32
#define FZ7_AES_BLOCK 16
#define FZ7_AES256_ROUNDS 14

/* Expanded AES-256 key.
 *
 * Layout of each schedule: 15 round keys of 16 bytes, round key i at bytes
 * 16*i..16*i+15, each in the byte order of the AES state (FIPS-197 3.4:
 * byte r + 4c is row r, column c), i.e. the order _mm_loadu_si128 gives
 * AESENC/AESDEC.
 *  enc: round keys of the cipher (FIPS-197 5.2), enc[0] is the first half
 *       of the key, enc[14] is used by the last round.
 *  dec: the equivalent inverse cipher's schedule (FIPS-197 5.3.5), in the
 *       order the rounds use it: dec[0] = enc[14], dec[i] =
 *       InvMixColumns(enc[14 - i]) for i = 1..13, dec[14] = enc[0].
 * The dispatch entries take enc (aes_cbc_enc) or dec (aes_cbc_dec) as rk.
 * No alignment is required: the kernels load round keys unaligned, so the
 * struct may live in malloc'd memory. */
typedef struct fz7_aes256_key {
    uint8_t enc[15][16];
    uint8_t dec[15][16];
} fz7_aes256_key;

/* Expands a 32-byte key into both schedules. Constant-time (no table
 * indexed by key bytes). */
void fz7_aes256_expand(fz7_aes256_key *k, const uint8_t key[FZ7_AES256_KEY_BYTES]);

/* Overwrites the key schedule with zeros (explicit_bzero). */
void fz7_aes256_wipe(fz7_aes256_key *k);

/* The CBC kernels themselves (portable, AES-NI, VAES-256, VAES-512) are
 * declared in cpu/kernels.h: each decrypts or encrypts nblocks 16-byte
 * blocks in place, buf unaligned, and leaves the last ciphertext block in
 * iv. rk is k->dec for decryption, k->enc for encryption. */

#endif
