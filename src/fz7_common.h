/* fz7_common.h - status codes, byte streams and limits shared by every layer.
 *
 * Codecs and containers return fz7_status; only cli/ turns a status into a
 * message and an exit code. Data moves between decoding stages by pulling
 * from an fz7_istream, so a 7z folder (coders joined by bind pairs) is a
 * chain of istreams ending in pack-stream readers. */
#ifndef FZ7_COMMON_H
#define FZ7_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/bytes.h" /* fz7_get32le, fz7_put64le, ... */

typedef enum fz7_status {
    FZ7_OK = 0,
    FZ7_E_MEM,           /* malloc failed (exit 8) */
    FZ7_E_MEMLIMIT,      /* the input asks for more memory than the limit allows */
    FZ7_E_FORMAT,        /* not this format, or malformed headers */
    FZ7_E_DATA,          /* corrupt compressed data */
    FZ7_E_CRC,           /* CRC or check mismatch */
    FZ7_E_TRUNCATED,     /* input ended early */
    FZ7_E_UNSUPPORTED,   /* method, filter, check or feature not supported */
    FZ7_E_PASSWORD,      /* data error inside an encrypted folder: wrong password? */
    FZ7_E_NEED_PASSWORD, /* encrypted and no password was given */
    FZ7_E_IO,            /* read or write failed; errno kept by the caller */
    FZ7_E_ARG,           /* bad parameters from the caller */
    FZ7_E_TAIL,          /* the data decoded whole, then bytes that belong
                            to no stream (after a gzip file's last member) */
    FZ7_E_WRONG_PASSWORD /* a cipher's password check failed (a zip entry's
                            ZipCrypto check byte, WinZip AES's check value) */
} fz7_status;

/* A short English phrase for a status ("Data error", "CRC failed", ...). */
const char *fz7_status_str(fz7_status st);

/* A pull stream of bytes. read() stores up to cap bytes at buf and sets *got;
 * *got == 0 with FZ7_OK means end of stream (only then). destroy() frees the
 * stream and, for a decoding stage, the stages it owns. Implementations embed
 * this struct as their first member. */
typedef struct fz7_istream fz7_istream;
struct fz7_istream {
    fz7_status (*read)(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got);
    void (*destroy)(fz7_istream *s);
};

/* Reads exactly n bytes; FZ7_E_TRUNCATED if the stream ends first. */
fz7_status fz7_istream_read_full(fz7_istream *s, uint8_t *buf, size_t n);

/* Reads up to n bytes, stopping early only at the stream's end (FZ7_OK)
 * or an error (its status); *got says how many bytes came, on an error
 * too: the bytes decoded before it, which a salvage still wants. */
fz7_status fz7_istream_read_upto(fz7_istream *s, uint8_t *buf, size_t n, size_t *got);

/* Destroys s if it is not NULL. */
void fz7_istream_free(fz7_istream *s);

/* A push sink of bytes, for encoders and container writers. */
typedef struct fz7_ostream fz7_ostream;
struct fz7_ostream {
    fz7_status (*write)(fz7_ostream *s, const uint8_t *buf, size_t n);
};

/* A growable memory ostream: each write appends to p (n bytes used of
 * cap), which doubles as needed from 256 bytes (small enough to keep
 * one per 7z folder). FZ7_E_MEM when it cannot
 * grow (what it holds stays). Start it with fz7_membuf_init (or set
 * base.write to fz7_membuf_write and the rest to zero); free p with
 * fz7_membuf_free or free(). */
typedef struct fz7_membuf {
    fz7_ostream base;
    uint8_t *p;
    size_t n, cap;
} fz7_membuf;

void fz7_membuf_init(fz7_membuf *m);
fz7_status fz7_membuf_write(fz7_ostream *s, const uint8_t *buf, size_t n);
void fz7_membuf_free(fz7_membuf *m);

/* An istream over a caller-owned memory buffer (no copy). Returns NULL on
 * allocation failure. */
fz7_istream *fz7_istream_from_memory(const uint8_t *buf, size_t n);

/* Writes code point cp (at most 0x10FFFF; surrogates too, in their
 * three-byte form) as UTF-8 at out (RFC 3629 section 3); returns the bytes
 * written, 1 to 4. */
size_t fz7_utf8_put(uint8_t *out, uint32_t cp);

/* Default decoder memory limit in bytes (dictionaries, header buffers). */
#define FZ7_DEFAULT_MEM_LIMIT ((uint64_t)4 << 30)

#endif
