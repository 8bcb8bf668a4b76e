/* aes.h - AES-256 (FIPS-197): key schedule and the CBC kernels, with the
 * tables from which a 7zAES reader or writer picks its kernel.
 *
 * Every path (portable, AES-NI, VAES-256, VAES-512) reads the same round-key
 * layout, so a key is expanded once whatever the CPU level. */
#ifndef FZ7_AES_H
#define FZ7_AES_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

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
 * The encryption kernels take enc as rk, the decryption kernels dec.
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

/* An AES-256-CBC kernel: decrypts or encrypts nblocks 16-byte blocks of
 * buf in place (buf unaligned) and leaves the last ciphertext block in iv.
 * rk is k->dec for decryption, k->enc for encryption. */
typedef void (*fz7_aes_cbc_fn)(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);

typedef struct fz7_aes_cbc_kernel {
    fz7_kernel_info info;
    fz7_aes_cbc_fn fn;
} fz7_aes_cbc_kernel;

/* Every decryption / encryption kernel built in, portable first (whether
 * this CPU can run it or not: fz7_cpu_can_run); *n gets the count. */
const fz7_aes_cbc_kernel *fz7_aes_cbc_dec_kernels(size_t *n);
const fz7_aes_cbc_kernel *fz7_aes_cbc_enc_kernels(size_t *n);

/* The kernel a reader / writer made now uses (the level in use, cpu.h). */
const fz7_aes_cbc_kernel *fz7_aes_cbc_dec_pick(void);
const fz7_aes_cbc_kernel *fz7_aes_cbc_enc_pick(void);

/* The kernels: portable (aes.c, bitsliced and constant-time), AES-NI and
 * VAES on ymm (aes_x86.c), VAES on zmm (asm/aes_cbc_dec_vaes512.asm). */
void fz7_aes_cbc_dec_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_enc_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#ifdef FZ7_HAVE_X86_KERNELS
void fz7_aes_cbc_dec_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_enc_aesni(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
void fz7_aes_cbc_dec_vaes256(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#ifdef FZ7_HAVE_NASM
void fz7_aes_cbc_dec_vaes512(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);
#endif
#endif

#endif
