/* aes7z.h - 7-Zip's 7zAES coder (method 06F10701): AES-256-CBC whose key is
 * derived from the password by iterated SHA-256.
 *
 * Coder properties (7zFormat.txt / Methods.txt, 7zAES): byte 0 = power of
 * the KDF round count (low 6 bits) and salt/IV presence bits; byte 1 gives
 * the extra salt and IV sizes. */
#ifndef FZ7_AES7Z_H
#define FZ7_AES7Z_H

#include "fz7_common.h"

/* Wraps src (ciphertext, a multiple of 16 bytes) in a decrypting istream.
 * password: UTF-8, NULL when none was given (gives FZ7_E_NEED_PASSWORD).
 * Does not own src. Errors: FZ7_E_UNSUPPORTED for properties it cannot
 * honour (e.g. too many KDF rounds), FZ7_E_FORMAT for malformed ones,
 * FZ7_E_MEM. */
fz7_status fz7_7zaes_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 const char *password, fz7_istream **out);

#endif
