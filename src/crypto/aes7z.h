/* aes7z.h - 7-Zip's 7zAES coder (method 06F10701): AES-256-CBC whose key is
 * derived from the password by iterated SHA-256.
 *
 * Coder properties (Methods.txt 06F10701; checked against 7zz archives):
 *   byte 0: bits 0-5 NumCyclesPower, bit 7 salt present, bit 6 IV present;
 *   byte 1 (only when bit 6 or 7 is set): high nibble = salt size - bit 7,
 *           low nibble = IV size - bit 6;
 *   then the salt, then the IV (zero-padded to 16 bytes).
 * 7zz writes 53 0f + 16 IV bytes (power 19, IV of 16 bytes, no salt). */
#ifndef FZ7_AES7Z_H
#define FZ7_AES7Z_H

#include "fz7_common.h"

#define FZ7_7ZAES_PROPS_MAX 34     /* 2 + 16 salt + 16 IV */
#define FZ7_7ZAES_MAX_POWER 24     /* higher powers: FZ7_E_UNSUPPORTED */
#define FZ7_7ZAES_ENC_POWER 19     /* what the encoder writes, as 7-Zip */
#define FZ7_7ZAES_PASSWORD_MAX 4096 /* bytes of UTF-8 */

/* Derives the 7zAES key: SHA-256 over, for i in 0 .. 2^power - 1,
 * salt || password (UTF-16LE) || i (8 bytes LE); power 0x3F instead gives
 * salt || password, zero-padded or truncated to 32 bytes. password_utf16
 * holds pw_len bytes. Results are cached by (salt, password, power).
 * Errors: FZ7_E_UNSUPPORTED (power > FZ7_7ZAES_MAX_POWER other than 0x3F),
 * FZ7_E_ARG (salt_len > 16), FZ7_E_MEM. */
fz7_status fz7_7zaes_derive_key(const uint8_t *salt, size_t salt_len,
                                const uint8_t *password_utf16, size_t pw_len,
                                unsigned power, uint8_t key[32]);

/* UTF-8 to UTF-16LE as 7-Zip hashes passwords (code points above U+FFFF
 * become surrogate pairs; invalid bytes become U+FFFD). out needs
 * 2 * strlen(utf8) bytes; returns the number of bytes written. */
size_t fz7_7zaes_password_utf16(const char *utf8, uint8_t *out);

/* Wipes (explicit_bzero) and forgets every cached password and key. Call
 * when the archive operation ends (fz7's main does after every command);
 * nothing wipes them at exit otherwise. */
void fz7_7zaes_cache_clear(void);

/* Wraps src (ciphertext, a multiple of 16 bytes) in a decrypting istream
 * that yields the plaintext including the final block's padding (the 7z
 * reader stops at the coder's unpack size). Decrypts in batches of up to
 * 256 KiB with the decryption kernel picked when it is made (aes.h).
 * password: UTF-8, NULL when none was given (gives FZ7_E_NEED_PASSWORD).
 * Does not own src. Errors: FZ7_E_UNSUPPORTED for properties it cannot
 * honour (more than 2^24 KDF rounds), FZ7_E_FORMAT for malformed ones,
 * FZ7_E_ARG for a password over FZ7_7ZAES_PASSWORD_MAX bytes, FZ7_E_MEM.
 * read() reports FZ7_E_DATA if src ends inside a 16-byte block. */
fz7_status fz7_7zaes_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 const char *password, fz7_istream **out);

/* ---- Encryption (for the archive writers) ----
 * One fz7_7zaes_key per archive (the KDF runs once: random 16-byte salt,
 * power 19), one writer per encrypted folder (random IV each). */
typedef struct fz7_7zaes_key fz7_7zaes_key;
typedef struct fz7_7zaes_writer fz7_7zaes_writer;

/* Fills p with n bytes from getrandom() (salts, IVs, encryption headers).
 * FZ7_E_IO when the kernel gives none. */
fz7_status fz7_random_bytes(uint8_t *p, size_t n);

/* Derives a key for password (UTF-8) with a fresh salt from getrandom().
 * Errors: FZ7_E_ARG (NULL or too long password), FZ7_E_IO (no random
 * bytes), FZ7_E_MEM. */
fz7_status fz7_7zaes_key_new(const char *password, fz7_7zaes_key **out);

/* Wipes and frees key (NULL is fine). */
void fz7_7zaes_key_free(fz7_7zaes_key *key);

/* A writer that encrypts what is written to fz7_7zaes_writer_stream(w)
 * and pushes the ciphertext to dst in batches of up to 256 KiB. key must
 * outlive the writer. Errors: FZ7_E_IO (no random IV), FZ7_E_MEM. */
fz7_status fz7_7zaes_writer_new(const fz7_7zaes_key *key, fz7_ostream *dst,
                                fz7_7zaes_writer **out);

/* The plaintext sink of w. */
fz7_ostream *fz7_7zaes_writer_stream(fz7_7zaes_writer *w);

/* The coder properties for the 7z header: 2 + 16 + 16 = 34 bytes
 * (power 19, salt, IV). Returns the number of bytes stored in props. */
size_t fz7_7zaes_writer_props(const fz7_7zaes_writer *w, uint8_t props[FZ7_7ZAES_PROPS_MAX]);

/* Pads the last block with zeros, encrypts and pushes it. *pack_size (may
 * be NULL) gets the ciphertext size in bytes (the plaintext size rounded
 * up to 16). Returns the first error of dst. */
fz7_status fz7_7zaes_writer_finish(fz7_7zaes_writer *w, uint64_t *pack_size);

/* Wipes and frees w (NULL is fine); does not finish it. */
void fz7_7zaes_writer_free(fz7_7zaes_writer *w);

#endif
