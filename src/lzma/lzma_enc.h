/* lzma_enc.h - LZMA and LZMA2 encoders as push streams into an fz7_ostream.
 *
 * lzma-file-format.txt (raw LZMA, properties, end marker) and
 * xz-file-format.txt 5.3.1 (LZMA2 chunks). The 7z writer uses the raw LZMA
 * encoder for the LZMA method and the compressed header; the 7z and xz
 * writers use the LZMA2 encoder. Output is deterministic: the same input
 * and options give the same bytes on every machine and CPU level. */
#ifndef FZ7_LZMA_ENC_H
#define FZ7_LZMA_ENC_H

#include "fz7_common.h"
#include <stdbool.h>
#include "lz/lz_mf.h"          /* fz7_lz_kind */
#include "lzma/lzma_common.h" /* FZ7_LZMA_DICT_MIN, FZ7_LZMA_LC_MAX, ... */

/* Parser: fast = greedy/lazy (7-Zip a=0, -mx1..4); normal = optimal
 * parsing over up to nice_len positions ahead (a=1, -mx5..9). */
typedef enum fz7_lzma_mode {
    FZ7_LZMA_MODE_FAST = 0,
    FZ7_LZMA_MODE_NORMAL = 1
} fz7_lzma_mode;


/* The largest d= (7-Zip takes up to 4 GiB, kept as 4 GiB - 1). A
 * dictionary still this large once fitted to the input needs a window the
 * match finder cannot map (over 3 GiB, lz_mf.c): the encoder's constructor
 * then fails with FZ7_E_MEM, as 7-Zip's does where the memory is lacking. */
#define FZ7_LZMA_DICT_ENC_MAX UINT32_MAX
#define FZ7_LZMA_NICE_MIN 5u
#define FZ7_LZMA_NICE_MAX 273u /* also the longest match LZMA can code */

/* Encoder options. Fill with fz7_lzma_enc_preset() (lzma_presets.h), then
 * change fields or apply 7-Zip parameter strings with
 * fz7_lzma_enc_parse_param(). */
typedef struct fz7_lzma_enc_opts {
    uint32_t dict_size;  /* bytes, FZ7_LZMA_DICT_MIN..FZ7_LZMA_DICT_ENC_MAX (d=) */
    uint32_t lc;         /* literal context bits 0..8 (lc=) */
    uint32_t lp;         /* literal position bits 0..4 (lp=) */
    uint32_t pb;         /* position bits 0..4 (pb=) */
    fz7_lzma_mode mode;  /* parser (a=0|1) */
    uint32_t nice_len;   /* 5..273: a match this long is taken at once (fb=) */
    fz7_lz_kind mf;      /* match finder (mf=; lz/lz_mf.h) */
    uint32_t depth;      /* match finder cut value (mc=); 0 = automatic
                          * (fz7_lzma_mf_depth) */
    int end_marker;      /* LZMA1 only: finish() writes the end marker (eos=) */
    uint64_t size_hint;  /* bytes the whole input is expected to hold, 0 =
                          * unknown (fz7_lzma_enc_reduce_dict in
                          * lzma_presets.h sets it): sizes
                          * the huge-page part of the match finder's memory,
                          * never changes the output */
    int mf_thread;       /* 1: the match finder searches on a thread of its
                          * own while the caller's thread parses and codes
                          * (lz/lz_mf_mt.h; the same output) when
                          * fz7_lzma_mf_thread_pays(mf), else on one; 0: one
                          * thread. If the thread cannot start, the encoder
                          * runs on one. */
} fz7_lzma_enc_opts;

/* Applies one 7-Zip method parameter: "d=64m" (a bare "d=24" is 2^24 bytes,
 * suffixes b/k/m/g), "fb=64", "mf=bt4|bt3|bt2|hc4|hc5|hb5", "lc=3", "lp=0", "pb=2",
 * "mc=48", "a=0|1", "eos=0|1". Names are case-insensitive. FZ7_E_ARG for an
 * unknown name or a value out of range (opts is then unchanged). */
fz7_status fz7_lzma_enc_parse_param(fz7_lzma_enc_opts *opts, const char *param);

/* Checks every field; FZ7_E_ARG if one is out of range. LZMA2 also
 * requires lc + lp <= 4 (checked by fz7_lzma2_enc_new). */
fz7_status fz7_lzma_enc_check(const fz7_lzma_enc_opts *opts);

/* Bytes of memory an encoder with these options allocates (window,
 * match finder tables, price tables, output buffers, and with mf_thread
 * the ring of match finder results), within a few KiB; 0 if the options
 * are invalid. */
uint64_t fz7_lzma_enc_memusage(const fz7_lzma_enc_opts *opts);

typedef struct fz7_lzma_enc fz7_lzma_enc;

/* Creates a raw LZMA (LZMA1) encoder writing to dst (not owned; it must
 * outlive the encoder). The output has no header: the 7z coder properties
 * or a .lzma header come from fz7_lzma_enc_props(). FZ7_E_ARG for bad
 * options, FZ7_E_MEM if allocation fails. */
fz7_status fz7_lzma_enc_new(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **out);

/* Creates an LZMA2 encoder writing to dst (chunk framing: lzma2_enc.c; on
 * several threads: lzma2_mt.h): chunks of at most 2 MiB unpacked and
 * 64 KiB packed, uncompressed chunks where they are smaller, the end byte
 * 0x00 at finish(). opts->end_marker is ignored. FZ7_E_ARG
 * for bad options or lc + lp > 4, FZ7_E_MEM if allocation fails. */
fz7_status fz7_lzma2_enc_new(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **out);

/* Compresses n bytes of data (copied; data may be reused at return).
 * Output reaches dst in pieces as it is produced. Errors from dst are
 * returned as they are; after an error the encoder only accepts free(). */
fz7_status fz7_lzma_enc_write(fz7_lzma_enc *enc, const uint8_t *data, size_t n);

/* Encodes the rest of the input and ends the stream: LZMA1 flushes the
 * range coder (after the end marker if asked), LZMA2 writes its last
 * chunks and the end byte. No write() after finish(). */
fz7_status fz7_lzma_enc_finish(fz7_lzma_enc *enc);

/* Frees the encoder (NULL is fine). Does not touch dst. */
void fz7_lzma_enc_free(fz7_lzma_enc *enc);

/* Starts the encoder over on a new stream to dst (not owned), keeping its
 * memory: from then on it gives the bytes a new encoder of its kind with
 * the same options would (its match finder is emptied without clearing
 * its tables: lz_mf.h fz7_lz_mf_reset). Any state is fine, finished or
 * not, after an error too. FZ7_E_ARG for NULL arguments, a multi-threaded
 * handle (fz7_lzma2_enc_new_mt) or an encoder whose match finder runs on
 * a thread (opts.mf_thread); the encoder is then unchanged. */
fz7_status fz7_lzma_enc_reset(fz7_lzma_enc *enc, fz7_ostream *dst);

/* The 5 LZMA1 properties bytes: (pb * 5 + lp) * 9 + lc, then the
 * dictionary size as 32-bit little endian (7z coder properties; the first
 * 5 bytes of a .lzma header). Valid for both kinds of encoder. */
void fz7_lzma_enc_props(const fz7_lzma_enc *enc, uint8_t props[5]);

/* The one LZMA2 dictionary property byte (xz-file-format.txt 5.3.1; 7z
 * LZMA2 coder properties): the smallest byte 0..40 whose size is at least
 * the encoder's dictionary size. */
uint8_t fz7_lzma2_enc_dict_prop(const fz7_lzma_enc *enc);

/* The same computation for a dictionary size in bytes (40 for sizes at or
 * above 4 GiB - 1). */
uint8_t fz7_lzma2_dict_prop(uint32_t dict_size);

/* Bytes given to write() so far, and bytes passed to dst so far. */
uint64_t fz7_lzma_enc_bytes_in(const fz7_lzma_enc *enc);
uint64_t fz7_lzma_enc_bytes_out(const fz7_lzma_enc *enc);

/* Where an LZMA2 encoder sends the input bytes it stores in uncompressed
 * chunks instead of copying them to its output: ref() says that the n
 * input bytes at encoder position pos (counted from the stream's first
 * byte, a block's prefix included) come next in the output. */
typedef struct fz7_lzma_ref_sink {
    fz7_status (*ref)(struct fz7_lzma_ref_sink *s, uint64_t pos, size_t n);
} fz7_lzma_ref_sink;

#endif
