/* codec.h - decoders for the "other" 7z compression methods: Deflate,
 * Deflate64, BZip2 and PPMd variant H, and zip's PPMd variant I. Each is a
 * pull stream over the coder's packed input; none of them owns its input
 * stream.
 *
 * Method IDs (Methods.txt): 040108 Deflate, 040109 Deflate64, 040202 BZip2,
 * 030401 PPMD; zip's method 98 (PPMd var.I); at the end the 7-Zip-zstd
 * fork's ZSTD, LZ4 and BROTLI. */
#ifndef FZ7_CODEC_H
#define FZ7_CODEC_H

#include "fz7_common.h"

#include <stdbool.h>

/* Deflate (RFC 1951) decoder over a raw stream: stored, fixed and dynamic
 * Huffman blocks up to and including the block with BFINAL set; the stream
 * ends there (bytes after it are not read on purpose, 7z pack streams hold
 * nothing else). deflate64 selects the Deflate64 variant: a 64 KiB window,
 * length code 285 = 3 + 16 extra bits, distance codes 30 and 31 (32769 and
 * 49153, 14 extra bits each). Memory: about 250 KiB, fixed.
 * Errors from read(): FZ7_E_DATA for any malformed block (bad code lengths,
 * invalid symbols, distances before the start, LEN/NLEN mismatch),
 * FZ7_E_TRUNCATED when src ends inside the stream, and src's own errors.
 * _new: FZ7_E_MEM. */
fz7_status fz7_deflate_istream_new(fz7_istream *src, bool deflate64, fz7_istream **out);

/* Once a Deflate istream's read() has returned its last byte (got 0 at
 * the stream's end): the bytes it took from src past the end of the
 * stream (the final block's last byte excluded), at most cap of them
 * (FZ7_DEFLATE_TAIL_MAX always suffices), into out; a container reads its
 * trailer from them (gzip, RFC 1952 2.2). 0 before the end. */
#define FZ7_DEFLATE_TAIL_MAX ((size_t)(64 << 10) + 8)
size_t fz7_deflate_istream_tail(fz7_istream *s, uint8_t *out, size_t cap);

/* Makes s decode a new Deflate stream from the next bytes of its src (the
 * next gzip member), as a new istream would, without its allocation; what
 * it had read ahead is dropped (take it with fz7_deflate_istream_tail). */
void fz7_deflate_istream_restart(fz7_istream *s);

/* BZip2 decoder (through libbz2): one or more concatenated bzip2 streams
 * ("BZh1".."BZh9", each ending in its own CRC), to the end of src. Memory
 * about 3.6 MiB per stream at level 9 (libbz2's small mode, about 2.3 MiB,
 * when mem_limit is below 4 MiB; FZ7_E_MEMLIMIT below that). read() errors:
 * FZ7_E_DATA (bad magic, block CRC or stream CRC, trailing garbage),
 * FZ7_E_TRUNCATED, FZ7_E_MEM, and src's errors. */
fz7_status fz7_bzip2_istream_new(fz7_istream *src, uint64_t mem_limit, fz7_istream **out);

/* BZip2 encoder (through libbz2): one bzip2 stream of block_100k * 100 000
 * byte blocks (1..9) pushed to dst (not owned). Memory about
 * block_100k * 0.8 MB + 600 KB. Errors: FZ7_E_ARG (bad block size, or
 * libbz2 refused), FZ7_E_MEM, and dst's errors. */
typedef struct fz7_bzip2_enc fz7_bzip2_enc;
fz7_status fz7_bzip2_enc_new(int block_100k, fz7_ostream *dst, fz7_bzip2_enc **out);
fz7_status fz7_bzip2_enc_write(fz7_bzip2_enc *e, const uint8_t *p, size_t n);
/* Ends the stream (its last block and CRC). */
fz7_status fz7_bzip2_enc_finish(fz7_bzip2_enc *e);
uint64_t fz7_bzip2_enc_bytes_out(const fz7_bzip2_enc *e);
void fz7_bzip2_enc_free(fz7_bzip2_enc *e);

/* Deflate (RFC 1951) or, with deflate64, Deflate64 encoder for the 7z
 * methods 040108/040109 and gzip: one stream of blocks (stored, fixed or
 * dynamic Huffman, whichever is smallest) pushed to dst (not owned). level
 * 1..9 sets the parse: -mx1..4 take matches from hash chains as they come
 * (greedy, lazy from 3), -mx5..9 parse by shortest path over the bit costs
 * of the codes (more passes and a deeper search as the level rises). The
 * output depends only on the bytes and the options, not on the write
 * sizes. Memory: about 200 KiB (Deflate64 330 KiB) for the fast parses;
 * the shortest-path parse adds a binary tree (about 1 MiB) and up to
 * 7 MiB for a block's bytes, matches and tables. _new errors: FZ7_E_ARG
 * (level), FZ7_E_MEM; write/finish return dst's errors. */
typedef struct fz7_deflate_enc fz7_deflate_enc;
fz7_status fz7_deflate_enc_new(int level, bool deflate64, fz7_ostream *dst, fz7_deflate_enc **out);

/* The search in more detail, as 7zz's Deflate parameters name it; 0 in a
 * field: by the level. parse (a=): fast or shortest path. nice_len (fb=):
 * a match this long ends the search and is taken whole, kept within
 * 3..258 (Deflate64 257). depth (mc=): hash chain links (fast) or binary
 * tree cycles (shortest path) per search. passes (pass=): shortest-path
 * parses of each block, the first with the costs of the code of the block
 * before, each next with those of the parse before it, while that makes
 * the block smaller (the fast parse ignores it). */
typedef enum fz7_deflate_parse {
    FZ7_DEFLATE_PARSE_BY_LEVEL = 0,
    FZ7_DEFLATE_PARSE_FAST,     /* a=0: greedy at -mx1..2, lazy from 3 (7zz's fast mode) */
    FZ7_DEFLATE_PARSE_OPTIMAL   /* a=1 and up: shortest path (7zz's normal mode) */
} fz7_deflate_parse;
typedef struct fz7_deflate_enc_opts {
    int level;                /* 1..9 */
    uint32_t nice_len, depth, passes;
    fz7_deflate_parse parse;  /* a=: fast to -mx4, shortest path from -mx5 by the level */
} fz7_deflate_enc_opts;
/* The options of level (the other fields 0). */
void fz7_deflate_enc_opts_level(int level, fz7_deflate_enc_opts *o);
fz7_status fz7_deflate_enc_new_opts(const fz7_deflate_enc_opts *o, bool deflate64, fz7_ostream *dst,
                                    fz7_deflate_enc **out);
fz7_status fz7_deflate_enc_write(fz7_deflate_enc *e, const uint8_t *p, size_t n);
/* Ends the stream: the last block, then the byte's padding. */
fz7_status fz7_deflate_enc_finish(fz7_deflate_enc *e);
uint64_t fz7_deflate_enc_bytes_out(const fz7_deflate_enc *e);
/* Starts a new stream (after _finish, or to drop one) with the same
 * options and dst, coded as a new encoder would code it, without the new
 * encoder's allocations: what a zip of many small files needs. */
void fz7_deflate_enc_restart(fz7_deflate_enc *e);
void fz7_deflate_enc_free(fz7_deflate_enc *e);

/* PPMd variant H (Shkarin's PPMd var.H with 7-Zip's range coder), as the 7z
 * method 030401 stores it. props: 5 bytes, the model order (2..64) and the
 * model memory size in bytes (uint32 LE, 2 KiB .. 4 GiB - 37). out_size: the
 * bytes to decode (the coder's unpack size); an end marker may follow them
 * (7-Zip writes none), not come before. Memory: the model size plus about
 * 100 KiB (mem_limit of 0: FZ7_DEFAULT_MEM_LIMIT). _new errors:
 * FZ7_E_UNSUPPORTED (bad properties), FZ7_E_MEMLIMIT (model above
 * mem_limit), FZ7_E_MEM. read() errors: FZ7_E_DATA (code out of range, an
 * early end marker, a final code that is not 0), FZ7_E_TRUNCATED. */
fz7_status fz7_ppmd7_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 uint64_t out_size, uint64_t mem_limit, fz7_istream **out);

/* Bytes a stream of fz7_ppmd7_istream_new has read from src beyond what its
 * range decoder used (as fz7_lzma_istream_unread). */
size_t fz7_ppmd7_istream_unread(const fz7_istream *s);

/* PPMd variant H encoder for 7z's method 030401: the bytes written are
 * coded with a model of the given order and mem bytes, pushed to dst (not
 * owned) in 64 KiB writes; no end marker (7z keeps the size). The same
 * model, order and input give the same bytes as 7-Zip's encoder. Limits
 * are 7-Zip's for its encoder. Memory: mem plus about 70 KiB. _new errors:
 * FZ7_E_ARG (order or mem out of range), FZ7_E_MEM; write/finish return
 * dst's errors. */
#define FZ7_PPMD7_ENC_ORDER_MIN 2u
#define FZ7_PPMD7_ENC_ORDER_MAX 32u
#define FZ7_PPMD7_ENC_MEM_MIN ((uint32_t)1 << 11)
#define FZ7_PPMD7_ENC_MEM_MAX (0xFFFFFFFFu - 12 * 3)
typedef struct fz7_ppmd7_enc fz7_ppmd7_enc;
fz7_status fz7_ppmd7_enc_new(unsigned order, uint32_t mem, fz7_ostream *dst, fz7_ppmd7_enc **out);
/* The coder's 5 property bytes in 7z: order, then mem (uint32 LE). */
void fz7_ppmd7_enc_props(unsigned order, uint32_t mem, uint8_t props[5]);
fz7_status fz7_ppmd7_enc_write(fz7_ppmd7_enc *e, const uint8_t *p, size_t n);
/* Flushes the range coder (5 bytes). */
fz7_status fz7_ppmd7_enc_finish(fz7_ppmd7_enc *e);
uint64_t fz7_ppmd7_enc_bytes_out(const fz7_ppmd7_enc *e);
void fz7_ppmd7_enc_free(fz7_ppmd7_enc *e);

/* PPMd variant I rev. 1 (Shkarin's PPMd var.I with the carry-less range
 * coder; 7-Zip's Ppmd8), as zip's method 98 stores it: 2 property bytes
 * (fz7_ppmd8_zip_props), then the range-coded stream, which ends with an
 * end marker. The limits of the model: order 2..16, 2 KiB .. 256 MiB of
 * memory (zip: whole MiB), and what it does when that memory is full (the
 * restore method): RESTART starts the model again, CUT_OFF prunes it.
 * Shkarin's third method, FREEZE, 7-Zip does not support. */
#define FZ7_PPMD8_ORDER_MIN 2u
#define FZ7_PPMD8_ORDER_MAX 16u
#define FZ7_PPMD8_MEM_MIN ((uint32_t)1 << 11)
#define FZ7_PPMD8_MEM_MAX ((uint32_t)256 << 20)
#define FZ7_PPMD8_RESTART 0u
#define FZ7_PPMD8_CUT_OFF 1u

/* Zip's 2 property bytes (uint16 LE: bits 0-3 order - 1, 4-11 memory in
 * MiB - 1, 12-15 restore method) into their values (mem in bytes).
 * FZ7_E_DATA for order 1 or a restore method above 2 (7-Zip calls that a
 * data error), FZ7_E_UNSUPPORTED for FREEZE (2); the values are set in any
 * case. */
fz7_status fz7_ppmd8_zip_props_parse(const uint8_t props[2], unsigned *order, uint32_t *mem, unsigned *restore);

/* The property bytes for order, mem (bytes: a whole number of MiB, 1..256)
 * and restore. */
void fz7_ppmd8_zip_props(unsigned order, uint32_t mem, unsigned restore, uint8_t props[2]);

/* Decoder of the stream after the property bytes. out_size: the bytes to
 * decode (the entry's size); the end marker must follow them and leave
 * the range decoder's code at 0, as 7-Zip checks. Memory: mem plus about
 * 75 KiB (mem_limit of 0: FZ7_DEFAULT_MEM_LIMIT). _new errors:
 * FZ7_E_UNSUPPORTED (order, mem or restore out of range, FREEZE
 * included), FZ7_E_MEMLIMIT, FZ7_E_MEM. read() errors as 7-Zip's zip
 * decoder reports them: FZ7_E_DATA (code out of range, src ended first,
 * no end marker after out_size bytes, a final code that is not 0),
 * FZ7_E_TRUNCATED (an end marker, with the code at 0, before out_size
 * bytes), and src's own errors. */
fz7_status fz7_ppmd8_istream_new(fz7_istream *src, unsigned order, uint32_t mem, unsigned restore,
                                 uint64_t out_size, uint64_t mem_limit, fz7_istream **out);

/* Bytes a stream of fz7_ppmd8_istream_new has read from src beyond what its
 * range decoder used (as fz7_lzma_istream_unread). */
size_t fz7_ppmd8_istream_unread(const fz7_istream *s);

/* Encoder: the bytes written are coded with a model of the given order,
 * mem bytes and restore method and pushed to dst (not owned) in 64 KiB
 * writes, without the property bytes; _finish adds the end marker and
 * flushes the range coder (4 bytes). The same order, mem, restore and
 * input give the same bytes as 7-Zip's zip encoder. Memory: mem plus about
 * 75 KiB. _new errors: FZ7_E_ARG (a value out of range), FZ7_E_MEM;
 * write/finish return dst's errors. */
typedef struct fz7_ppmd8_enc fz7_ppmd8_enc;
fz7_status fz7_ppmd8_enc_new(unsigned order, uint32_t mem, unsigned restore, fz7_ostream *dst,
                             fz7_ppmd8_enc **out);
fz7_status fz7_ppmd8_enc_write(fz7_ppmd8_enc *e, const uint8_t *p, size_t n);
fz7_status fz7_ppmd8_enc_finish(fz7_ppmd8_enc *e);
uint64_t fz7_ppmd8_enc_bytes_out(const fz7_ppmd8_enc *e);
void fz7_ppmd8_enc_free(fz7_ppmd8_enc *e);

/* The 7-Zip-zstd fork's methods (its DOC/Methods-Extern.md): 04F71101
 * Zstandard, 04F71104 LZ4, 04F71102 Brotli, each through its system
 * library. props: 3 or 5 bytes (library version and level, informational
 * only). out_size: the coder's unpack size; read() gives exactly that many
 * bytes, then checks that only the ends of frames (checksums) or
 * skippable frames follow, to the end of src. read() errors: FZ7_E_DATA
 * (corrupt frames, bytes beyond out_size, frames ending before it,
 * garbage after the last frame), FZ7_E_TRUNCATED (src ends inside a
 * frame), FZ7_E_MEMLIMIT, FZ7_E_MEM, and src's own errors. _new errors:
 * FZ7_E_UNSUPPORTED (other property sizes, or fz7 built without the
 * library), FZ7_E_MEMLIMIT, FZ7_E_MEM. mem_limit of 0: FZ7_DEFAULT_MEM_LIMIT.
 * _supported() tells whether fz7 was built with the library. */

/* Zstandard frames (RFC 8878) back to back; skippable frames are skipped.
 * Memory: the frame's window (from its header, refused before decoding
 * when 2^windowLog + 1 MiB exceeds mem_limit) plus about 1 MiB. */
bool fz7_zstd_supported(void);
fz7_status fz7_zstd_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                uint64_t out_size, uint64_t mem_limit, fz7_istream **out);

/* Decodes the zstd frames of in (n bytes) at once into out (cap bytes):
 * a SquashFS block, whose unpacked size is known only as a bound. *got:
 * the bytes decoded. FZ7_E_DATA when the frames are corrupt, end inside
 * or would pass cap; FZ7_E_UNSUPPORTED without libzstd; FZ7_E_MEM. */
fz7_status fz7_zstd_decode_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got);

/* LZ4 frames (the LZ4 frame format, not the legacy one) back to back;
 * skippable frames are skipped. Memory: at most about 8.3 MiB (4 MiB
 * blocks); FZ7_E_MEMLIMIT from _new when mem_limit is below 9 MiB. */
bool fz7_lz4_supported(void);
fz7_status fz7_lz4_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                               uint64_t out_size, uint64_t mem_limit, fz7_istream **out);

/* Brotli (RFC 7932) as the fork writes it: brotli-mt frames, each a
 * 16-byte header (LE32 0x184D2A50, LE32 8, LE32 compressed size, "BR",
 * LE16 size hint in 64 KiB units) and one brotli stream of exactly that
 * size; or, when src does not begin with that magic, one plain brotli
 * stream. Memory: libbrotlidec's allocations are counted against mem_limit
 * (window up to 16 MiB plus tables); FZ7_E_MEMLIMIT when it would pass it. */
bool fz7_brotli_supported(void);
fz7_status fz7_brotli_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                  uint64_t out_size, uint64_t mem_limit, fz7_istream **out);

#endif
