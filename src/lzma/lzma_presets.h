/* lzma_presets.h - what a compression level means and how an LZMA/LZMA2
 * stream's work is cut for threads and memory, decided in one place
 * (lzma_presets.c): the -mx0..9 options, every value derived from them
 * (automatic depth, hb5's ways, the dictionary fitted to the input), and
 * the multi-thread plan (threads, block size, the block floor and
 * prefix, the match finder's own thread, the memory cap). The encoders
 * (lzma_enc.c, lzma2_mt.c) and the containers take what these give. */
#ifndef FZ7_LZMA_PRESETS_H
#define FZ7_LZMA_PRESETS_H

#include "lzma/lzma_enc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fills opts for compression level 0..9 (7-Zip's -mx): fz7's own points
 * on the speed/size curve, each one slower and smaller than the one below
 * (lzma_presets.c says why):
 *   level  dictionary  parser  finder  nice_len  depth       lc
 *   1      1 MiB       fast    hb5     32        6 (8-way)   3
 *   2      4 MiB       fast    hb5     32        16          3
 *   3      4 MiB       normal  hb5     24        16          3
 *   4      4 MiB       normal  hb5     48        16          3
 *   5      16 MiB      normal  bt4     48        automatic   3
 *   6      64 MiB      normal  bt4     64        automatic   4
 *   7      128 MiB     normal  bt4     96        automatic   4
 *   8      256 MiB     normal  bt4     160       automatic   4
 *   9      256 MiB     normal  bt4     273       automatic   4
 *   0      256 KiB     fast    hc5     32        automatic   3
 * lp=0 pb=2, no end marker. A 7z archive stores at level 0; an xz file,
 * which cannot, codes with level 0's options. FZ7_E_ARG if level > 9. */
fz7_status fz7_lzma_enc_preset(fz7_lzma_enc_opts *opts, unsigned level);

/* The options of BCJ2's call and jump streams (4-byte big-endian
 * addresses) at every level: LZMA with lc0 lp2, a 1 MiB dictionary and
 * nice_len 128, as 7-Zip does, fitted to input_size (0 = unknown) as
 * fz7_lzma_enc_reduce_dict does. */
void fz7_lzma_bcj2_side_preset(fz7_lzma_enc_opts *opts, uint64_t input_size);

/* The options of a 7z archive's compressed header of header_bytes:
 * level 5's with a 1 MiB dictionary, fitted to header_bytes. */
void fz7_lzma_header_preset(fz7_lzma_enc_opts *opts, uint64_t header_bytes);

/* Shrinks opts->dict_size when the whole input is known to be input_size
 * bytes, as 7-Zip does: to the smallest 2^n or 3*2^n >= input_size (never
 * below FZ7_LZMA_DICT_MIN, never above the current value), and records
 * input_size in opts->size_hint. Saves memory and gives the same
 * dictionary property bytes 7zz writes. */
void fz7_lzma_enc_reduce_dict(fz7_lzma_enc_opts *opts, uint64_t input_size);

/* fz7_lzma_enc_reduce_dict for LZMA (not LZMA2, whose property byte holds
 * only 2^n and 3*2^n): above 2 MiB 7-Zip fits the dictionary to the input
 * rounded up to a whole MiB (its property holds any size), so a 5 MB
 * input gets 5 MiB, not 6. */
void fz7_lzma1_reduce_dict(fz7_lzma_enc_opts *opts, uint64_t input_size);

/* The candidates per search the match finder gets: opts->depth, or when
 * that is 0 (automatic) 16 + nice_len / 2, halved for the hash chains
 * and buckets (hc4, hc5, hb5), whose steps cost more than a tree's. */
uint32_t fz7_lzma_mf_depth(const fz7_lzma_enc_opts *opts);

/* hb5's positions per bucket for a search of depth candidates: 8 (half a
 * cache line) when depth <= 8, since the older 8 of 16 would never be
 * read, else 16. */
uint32_t fz7_lzma_hb5_ways(uint32_t depth);

/* True when a match finder of this kind gains from a thread of its own
 * (lz/lz_mf_mt.h): only the binary trees, whose skip costs a whole
 * search anyway; hash chains and buckets skip far cheaper than they
 * search, and the thread searches every position. */
bool fz7_lzma_mf_thread_pays(fz7_lz_kind mf);

/* The smallest LZMA2 block worth a thread for a dictionary of dict_size
 * bytes: 3 dictionaries (a shorter block cuts off matches the dictionary
 * would have found), at least FZ7_LZMA2_MT_BLOCK_MIN. Also the block of
 * a multi-threaded encoder asked for block size 0. */
uint64_t fz7_lzma2_block_floor(uint32_t dict_size);

/* The options each block of block_size bytes is encoded with: opts with
 * the dictionary fitted to the block (fz7_lzma_enc_reduce_dict). */
fz7_lzma_enc_opts fz7_lzma2_block_opts(const fz7_lzma_enc_opts *opts, uint64_t block_size);

/* Bytes of the block before that each later block of a multi-threaded
 * LZMA2 stream starts from (0 = none): 2 MiB, at most the dictionary
 * (half of it for the fast parser, whose prefix pass is most of a
 * block's setup) and the block, in multiples of 16; 0 when block_size is
 * not a multiple of 16 (the encoder's and decoder's positions must agree
 * modulo 16 for pb and lp). block_opts: fz7_lzma2_block_opts(). */
size_t fz7_lzma2_block_prefix(const fz7_lzma_enc_opts *block_opts, uint64_t block_size);

/* Encoder threads when -mmt is not given (asked 0): every core, at most
 * FZ7_LZMA2_MT_THREADS_MAX; an asked count is capped the same way. */
uint32_t fz7_lzma_threads(uint32_t asked);

/* Bytes the encoders may use: limit_bytes when not 0 (-mmemuse=N), else
 * percent of RAM when percent is 1..100 (-mmemuse=pN%), else 3/4 of RAM;
 * without limit_bytes at most 3/4 of the address space or data segment
 * the process may map (RLIMIT_AS, RLIMIT_DATA: `ulimit -v`), the rest
 * left to threads' stacks and heaps and the archive's own buffers.
 * UINT64_MAX when nothing is known. */
uint64_t fz7_lzma_mem_cap(uint64_t limit_bytes, unsigned percent);

/* What a multi-thread plan is asked for. */
typedef struct fz7_lzma_plan_in {
    uint64_t bytes;           /* the stream's input (a 7z folder, an xz file); 0 = unknown */
    uint32_t threads;         /* threads the user allows (fz7_lzma_threads) */
    uint64_t mem_limit;       /* bytes the stream's encoders may use */
    bool lzma2;               /* LZMA2 (blocks on threads); else LZMA1: one stream */
    bool independent;         /* one independent block per thread (xz
                                 blocks), not blocks of one LZMA2 stream */
    uint64_t block_size;      /* LZMA2 blocks the user asked for (7-Zip's
                                 c=), cut on any number of threads; 0 = the
                                 plan's */
} fz7_lzma_plan_in;

/* How the stream is coded. */
typedef struct fz7_lzma_plan {
    uint32_t threads;         /* LZMA2 block threads; 1 = one stream
                                 unless block_size is set */
    uint64_t block_size;      /* bytes per block when threads > 1 (0 =
                                 fz7_lzma2_block_floor: unknown size), or
                                 with one thread the asked blocks (0: none) */
    bool mf_thread;           /* the match finder of each stream (the one
                                 stream, or every block's) searches on a
                                 thread of its own (opts.mf_thread) */
    bool lowered;             /* fewer threads than asked for, to fit
                                 mem_limit */
} fz7_lzma_plan;

/* Plans the threads of one stream with options opts (the level's, before
 * fitting to the input). Binary trees (fz7_lzma_mf_thread_pays) take two
 * threads per encoder, the match finder on the second; the others one.
 * With two encoders or more, a 7z folder gets 2 blocks per encoder, each
 * after the first starting from a prefix of the one before; an xz file
 * one independent block per encoder. A block is bytes / blocks rounded up
 * to 64 KiB, at least fz7_lzma2_block_floor and at most 4 dictionaries
 * (of the dictionary fitted to bytes; independent blocks at most 16 MiB
 * when that is more), so memory follows the settings, not the input. An input of at most one floor, or one encoder, is one
 * stream (its match finder on a second thread when that pays and the
 * input is unknown or has 64 KiB or more). Encoders are dropped until
 * they fit in mem_limit (fz7_lzma2_mt_memusage; then lowered is set). The
 * output of the stream depends only on opts and the plan. Asked blocks
 * (in->block_size, kept within FZ7_LZMA2_MT_BLOCK_MIN..MAX) replace the
 * plan's, on one thread too, for an input longer than one block. */
fz7_lzma_plan fz7_lzma_plan_threads(const fz7_lzma_enc_opts *opts, const fz7_lzma_plan_in *in);

#endif
