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


#define FZ7_LZMA_DICT_ENC_MAX ((uint32_t)1536 << 20)
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

/* Applies one 7-Zip method parameter: "d=64m" (also "d=24" = 2^24 bytes,
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

/* Creates an LZMA2 encoder writing to dst: chunks of at most 2 MiB
 * unpacked and 64 KiB packed, uncompressed chunks where they are smaller,
 * the end byte 0x00 at finish(). opts->end_marker is ignored. FZ7_E_ARG
 * for bad options or lc + lp > 4, FZ7_E_MEM if allocation fails. */
fz7_status fz7_lzma2_enc_new(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **out);

/* Multi-threaded LZMA2 (lzma2_enc.c). The input is cut into blocks of
 * block_size bytes; with opts->size_hint known, the last block's worth
 * is cut into blocks of block_size / 4 (each at least the start taken
 * from the block before, below) so the threads end together. Each block is compressed by
 * one of `threads` worker threads as LZMA2 chunks, and the blocks' chunks
 * are written to dst in input order, then the end byte 0x00: one ordinary
 * LZMA2 stream any LZMA2 decoder reads (7z coder "LZMA2", xz filter 0x21).
 * The first block resets the dictionary. When block_size is a multiple of
 * 16, each later block starts from the last min(2 MiB, dictionary) bytes
 * of the block before (its matches may reach into them; its first chunk
 * resets state and properties, not the dictionary); otherwise it resets
 * the dictionary too. (Independent xz blocks: one fz7_lzma2_enc_new each.)
 *
 * block_size: bytes, FZ7_LZMA2_MT_BLOCK_MIN..FZ7_LZMA2_MT_BLOCK_MAX, or 0
 * for 3 x opts->dict_size (at least FZ7_LZMA2_MT_BLOCK_MIN). Each block
 * uses opts with the dictionary reduced to the block size as
 * fz7_lzma_enc_reduce_dict does; fz7_lzma_enc_props() and
 * fz7_lzma2_enc_dict_prop() report that reduced size, which is what the
 * container must store. Smaller blocks give more parallel work but each
 * cut costs ratio (less with the 2 MiB start). fz7 a gives each of N
 * threads two blocks of a 7z folder (about S / 2N bytes for an input of
 * known size S, at most 16 dictionaries; threads take them in turn) and 0
 * when the size is unknown.
 *
 * The output depends only on opts and block_size, never on threads, the
 * CPU or the pieces write() is given. threads: 1..FZ7_LZMA2_MT_THREADS_MAX
 * (1 encodes inside write() without starting a thread). Only the caller's
 * thread calls dst->write, from write() and finish().
 *
 * One block: with threads >= 2 and an input known to fit in one block
 * (0 < opts->size_hint <= block size, as fz7_lzma_enc_reduce_dict records
 * it), the handle is a one-stream encoder whose match finder runs on a
 * second thread (opts->mf_thread): the stream one block gives, without
 * copying the input. With opts->mf_thread set, every block's encoder has
 * a match finder thread too (threads + threads in all).
 *
 * The returned handle is used with fz7_lzma_enc_write(), _finish(),
 * _free(), _props(), fz7_lzma2_enc_dict_prop() and the byte counters like
 * one from fz7_lzma2_enc_new(). Memory: fz7_lzma2_mt_memusage(). Errors:
 * FZ7_E_ARG for bad options, lc + lp > 4, threads or block_size out of
 * range; FZ7_E_MEM if allocation or thread creation fails (also later,
 * from write()/finish(), if a block's encoder cannot allocate). */
#define FZ7_LZMA2_MT_THREADS_MAX 64u
#define FZ7_LZMA2_MT_BLOCK_MIN ((uint64_t)1 << 20)
#define FZ7_LZMA2_MT_BLOCK_MAX ((uint64_t)1 << 32)
fz7_status fz7_lzma2_enc_new_mt(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size,
                                fz7_ostream *dst, fz7_lzma_enc **out);

/* Bytes a multi-threaded encoder with these settings allocates at most
 * (per thread an encoder, per block slot the input and its output); 0 if
 * the arguments are invalid. block_size 0 as above. */
uint64_t fz7_lzma2_mt_memusage(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size);

/* Worker threads that several multi-threaded LZMA2 encoders use one after
 * the other, so that one encoder's first blocks are coded while another's
 * last blocks still are (a 7z writer's next folder and the one before).
 * Workers take the queued blocks of the oldest encoder first. threads:
 * 1..FZ7_LZMA2_MT_THREADS_MAX (1: each encoder codes inside write(), no
 * thread). FZ7_E_ARG for a bad count, FZ7_E_MEM if allocation or thread
 * creation fails. Free every encoder made on the pool before the pool. */
typedef struct fz7_lzma2_pool fz7_lzma2_pool;
fz7_status fz7_lzma2_pool_new(uint32_t threads, fz7_lzma2_pool **out);
void fz7_lzma2_pool_free(fz7_lzma2_pool *pool);
/* The pool's thread count (0 for NULL). */
uint32_t fz7_lzma2_pool_threads(const fz7_lzma2_pool *pool);

/* fz7_lzma2_enc_new_mt with the pool's threads and workers instead of its
 * own: the same bytes as new_mt with that thread count (the one-block
 * stream included, which does not use the pool). Errors as new_mt. */
fz7_status fz7_lzma2_enc_new_pooled(const fz7_lzma_enc_opts *opts, fz7_lzma2_pool *pool, uint64_t block_size,
                                    fz7_ostream *dst, fz7_lzma_enc **out);

/* Ends the input of a multi-threaded encoder without waiting: its last
 * block goes to the workers and no write() may follow; finish() later
 * waits for the blocks, writes them and the end byte. FZ7_E_ARG for an
 * encoder that is not multi-threaded (nothing done), or after finish();
 * the encoder's earlier error if it has one. */
fz7_status fz7_lzma2_mt_end_input(fz7_lzma_enc *enc);

/* True when no block of a multi-threaded encoder is queued or being coded
 * (after end_input(): finish() will not wait); true for any other encoder. */
bool fz7_lzma2_mt_blocks_done(fz7_lzma_enc *enc);

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

#endif
