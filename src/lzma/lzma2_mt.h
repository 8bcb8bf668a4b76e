/* lzma2_mt.h - multi-threaded LZMA2: blocks of the input coded on a pool
 * of worker threads, written in input order. The handle is an
 * fz7_lzma_enc (lzma_enc.h), written, finished and freed as one from
 * fz7_lzma2_enc_new(). */
#ifndef FZ7_LZMA2_MT_H
#define FZ7_LZMA2_MT_H

#include "lzma/lzma_enc.h"

#include <stdbool.h>
#include <stdint.h>

/* Multi-threaded LZMA2 (lzma2_mt.c). The input is cut into blocks of
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

/* ---- Whole blocks in memory (the xz writer's independent blocks) ------- */

/* Input bytes a coded block takes from the input it was coded from: they
 * come before bytes.p[out_at] and are in[in_at .. in_at + n). */
typedef struct fz7_lzma2_ref {
    size_t out_at, in_at, n;
} fz7_lzma2_ref;

/* A block's LZMA2 chunks: the compressed bytes in `bytes`, the data of the
 * stored (uncompressed) chunks left in the input and listed in refs, so
 * that incompressible data costs no copy. The input must stay unchanged
 * until the block is written (fz7_lzma2_coded_write). Zeroed to start. */
typedef struct fz7_lzma2_coded {
    fz7_membuf bytes;
    fz7_membuf refs;         /* fz7_lzma2_ref records, in output order */
    uint64_t stored;         /* input bytes the refs take in all */
    size_t in_base;          /* encoder position p is input byte in_base + p */
    size_t in_len;           /* no ref reaches past this */
    fz7_lzma_ref_sink sink;  /* the encoder's ref_dst */
} fz7_lzma2_coded;

/* Codes in[0..n) as one whole LZMA2 stream (end byte included) with opts,
 * the match finder reading in in place, into out (emptied first). *enc
 * keeps an encoder between calls: NULL at first, made or started over
 * here (the same bytes as a new one); free it with fz7_lzma_enc_free
 * (it is freed and NULL after an error). n below 4 GiB. Errors: FZ7_E_ARG
 * for bad options, FZ7_E_MEM. */
fz7_status fz7_lzma2_code_block(const fz7_lzma_enc_opts *opts, const uint8_t *in, size_t n, fz7_lzma_enc **enc,
                                fz7_lzma2_coded *out);

/* The coded stream's length in bytes, stored data included. */
uint64_t fz7_lzma2_coded_size(const fz7_lzma2_coded *c);

/* Writes the coded stream to dst, the stored data from in (the input it
 * was coded from). Passes on dst's errors. */
fz7_status fz7_lzma2_coded_write(const fz7_lzma2_coded *c, const uint8_t *in, fz7_ostream *dst);

/* Frees what c holds (c may be reused after fz7_lzma2_coded_free). */
void fz7_lzma2_coded_free(fz7_lzma2_coded *c);

/* Ends the input of a multi-threaded encoder without waiting: its last
 * block goes to the workers and no write() may follow; finish() later
 * waits for the blocks, writes them and the end byte. FZ7_E_ARG for an
 * encoder that is not multi-threaded (nothing done), or after finish();
 * the encoder's earlier error if it has one. */
fz7_status fz7_lzma2_mt_end_input(fz7_lzma_enc *enc);

/* True when no block of a multi-threaded encoder is queued or being coded
 * (after end_input(): finish() will not wait); true for any other encoder. */
bool fz7_lzma2_mt_blocks_done(fz7_lzma_enc *enc);

#endif
