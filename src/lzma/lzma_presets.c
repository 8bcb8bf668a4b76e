/* lzma_presets.c - the level policy and the multi-thread plan
 * (lzma_presets.h). Every choice of what a level means or how a stream is
 * cut for threads lives here; the measurements behind them are in
 * bench/RESULTS.md. */
#include "lzma/lzma_presets.h"
#include "lzma/lzma2_mt.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- Levels ------------------------------------------------------------- */

/* One row per level. Level 0 is LZMA2 at -mx0 with an LZMA parameter
 * (-mx0 -mfb=64, -m0=LZMA2:x=0): 7zz's 64 KiB there. -mx1 takes a 1 MiB
 * dictionary instead of 7zz's
 * 256 KiB and spends the ratio it buys on speed. The fast parser's levels
 * search hash buckets on hc5's 5-byte hash (one cache line per search
 * instead of a chain of dependent loads); -mx3 and -mx4 put the normal
 * parser on those buckets, which fills the gap between the fast parser
 * and the slower finders at a tenth of their memory. -mx5 and -mx6 take
 * their matches from the radix table (rdx): nearly the binary tree's, from
 * a sort that a second thread runs ahead of the coder, so two threads
 * code one stream at almost twice the speed with the bytes of one. They
 * have 7zz's 32 and 64 MiB: rdx's table reaches 8 MiB of it and its head
 * of anchors the rest, which pays on large trees of similar files. -mx6
 * sorts deeper (nice_len 96) and gives literals lc=4, which pays on text
 * and code (it costs a fraction of a percent on tables of numbers); -mx5
 * keeps 7zz's lc=3, so that -mlp=1 works there as in 7zz. From -mx7 up
 * the tree's larger dictionary and longer nice_len buy more. */
static const struct level_row {
    uint8_t dict_log, mode, mf, lc;
    uint16_t nice_len, depth;   /* depth 0: automatic */
} level_rows[10] = {
    /*        dict  mode                    mf          lc  nice depth */
    /* 0 */ {16, FZ7_LZMA_MODE_FAST,   FZ7_LZ_HC5, 3, 32, 0},
    /* 1 */ {20, FZ7_LZMA_MODE_FAST,   FZ7_LZ_HB5, 3, 32, 6},
    /* 2 */ {22, FZ7_LZMA_MODE_FAST,   FZ7_LZ_HB5, 3, 32, 16},
    /* 3 */ {22, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_HB5, 3, 16, 16},
    /* 4 */ {22, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_HB5, 3, 48, 16},
    /* 5 */ {25, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_RDX, 3, 48, 0},
    /* 6 */ {26, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_RDX, 4, 96, 0},
    /* 7 */ {27, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_BT4, 4, 96, 0},
    /* 8 */ {28, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_BT4, 4, 160, 0},
    /* 9 */ {28, FZ7_LZMA_MODE_NORMAL, FZ7_LZ_BT4, 4, 273, 0},
};

fz7_status fz7_lzma_enc_preset(fz7_lzma_enc_opts *o, unsigned level)
{
    if (!o || level > 9)
        return FZ7_E_ARG;
    const struct level_row *r = &level_rows[level];
    memset(o, 0, sizeof(*o));
    o->dict_size = (uint32_t)1 << r->dict_log;
    o->lc = r->lc;
    o->lp = 0;
    o->pb = 2;
    o->mode = (fz7_lzma_mode)r->mode;
    o->mf = (fz7_lz_kind)r->mf;
    o->nice_len = r->nice_len;
    o->depth = r->depth;
    o->end_marker = 0;
    return FZ7_OK;
}

void fz7_lzma_bcj2_side_preset(fz7_lzma_enc_opts *o, uint64_t input_size)
{
    (void)fz7_lzma_enc_preset(o, 9);
    o->dict_size = (uint32_t)1 << 20;
    o->lc = 0;
    o->lp = 2;
    o->pb = 2;
    o->nice_len = 128;
    if (input_size)
        fz7_lzma_enc_reduce_dict(o, input_size);
}

void fz7_lzma_header_preset(fz7_lzma_enc_opts *o, uint64_t header_bytes)
{
    (void)fz7_lzma_enc_preset(o, 5);
    o->mf = FZ7_LZ_BT4;   /* a header is a few KiB: no table to build per block */
    o->dict_size = (uint32_t)1 << 20;
    fz7_lzma_enc_reduce_dict(o, header_bytes);
}

void fz7_lzma_enc_reduce_dict(fz7_lzma_enc_opts *opts, uint64_t input_size)
{
    opts->size_hint = input_size;
    for (unsigned i = 12; i < 32; i++) {
        uint64_t a = (uint64_t)1 << i, b = (uint64_t)3 << (i - 1);
        uint64_t fit = input_size <= a ? a : input_size <= b ? b : 0;
        if (fit) {
            if (fit < opts->dict_size)
                opts->dict_size = (uint32_t)fit;
            return;
        }
    }
}

void fz7_lzma1_reduce_dict(fz7_lzma_enc_opts *opts, uint64_t input_size)
{
    fz7_lzma_enc_reduce_dict(opts, input_size);
    const uint64_t mib = (uint64_t)1 << 20;
    if (input_size > 2 * mib) {
        uint64_t fit = (input_size + mib - 1) & ~(mib - 1);
        if (fit < opts->dict_size)
            opts->dict_size = (uint32_t)fit;
    }
}

uint32_t fz7_lzma_mf_depth(const fz7_lzma_enc_opts *o)
{
    if (o->depth)
        return o->depth;
    bool chain = o->mf == FZ7_LZ_HC4 || o->mf == FZ7_LZ_HC5 || o->mf == FZ7_LZ_HB5;
    return (16 + o->nice_len / 2) >> (chain ? 1 : 0);
}

uint32_t fz7_lzma_hb5_ways(uint32_t depth)
{
    return depth <= 8 ? 8 : 16;
}

bool fz7_lzma_mf_thread_pays(fz7_lz_kind mf)
{
    return mf == FZ7_LZ_BT2 || mf == FZ7_LZ_BT3 || mf == FZ7_LZ_BT4 || mf == FZ7_LZ_RDX;
}

/* ---- LZMA2 blocks ------------------------------------------------------- */

uint64_t fz7_lzma2_block_floor(uint32_t dict_size)
{
    uint64_t f = (uint64_t)dict_size * 3;
    return f < FZ7_LZMA2_MT_BLOCK_MIN ? FZ7_LZMA2_MT_BLOCK_MIN : f;
}

fz7_lzma_enc_opts fz7_lzma2_block_opts(const fz7_lzma_enc_opts *opts, uint64_t block_size)
{
    fz7_lzma_enc_opts o = *opts;
    fz7_lzma_enc_reduce_dict(&o, block_size);
    return o;
}

/* The longest prefix: most of what a cut costs comes back by 2 MiB. */
#define PREFIX_MAX ((uint64_t)2 << 20)

size_t fz7_lzma2_block_prefix(const fz7_lzma_enc_opts *block_opts, uint64_t block_size)
{
    if (block_size % 16 != 0)
        return 0;
    uint64_t w = PREFIX_MAX;
    uint64_t reach = block_opts->mode == FZ7_LZMA_MODE_FAST ? block_opts->dict_size / 2 : block_opts->dict_size;
    if (w > reach)
        w = reach;
    if (w > block_size)
        w = block_size;
    return (size_t)(w & ~(uint64_t)15);
}

/* ---- Threads and memory ------------------------------------------------- */

uint32_t fz7_lzma_threads(uint32_t asked)
{
    if (!asked) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        asked = ncpu > 0 ? (uint32_t)ncpu : 1;
    }
    return asked > FZ7_LZMA2_MT_THREADS_MAX ? FZ7_LZMA2_MT_THREADS_MAX : asked;
}

/* 3/4 of the smaller of RLIMIT_AS and RLIMIT_DATA, UINT64_MAX without. */
static uint64_t rlimit_cap(void)
{
    static const int which[] = {RLIMIT_AS, RLIMIT_DATA};
    uint64_t cap = UINT64_MAX;
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
        struct rlimit r;
        if (getrlimit(which[i], &r) == 0 && r.rlim_cur != RLIM_INFINITY && (uint64_t)r.rlim_cur / 4 * 3 < cap)
            cap = (uint64_t)r.rlim_cur / 4 * 3;
    }
    return cap;
}

uint64_t fz7_lzma_mem_cap(uint64_t limit_bytes, unsigned percent)
{
    if (limit_bytes)
        return limit_bytes;
    uint64_t cap = rlimit_cap();
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        return cap;
    uint64_t ram = (uint64_t)pages * (uint64_t)psize;
    uint64_t part = percent >= 1 && percent <= 100 ? ram / 100 * percent : ram / 4 * 3;
    return part < cap ? part : cap;
}

/* Blocks are rounded up to this. */
#define BLOCK_ROUND ((uint64_t)64 << 10)
/* A 7z folder's blocks per thread: the threads take them in turn, which
 * evens out parts of the input that are slower to code. */
#define BLOCKS_PER_THREAD 2u
/* A block is at most this many dictionaries (and the block floor): with
 * threads + 1 blocks in flight, each with its output, memory then follows
 * the dictionary and the threads, never the input's size. */
#define BLOCK_DICTS 4u
/* Independent (xz) blocks share no prefix, so each cut costs more: they
 * are at least this long when the dictionary allows (-mx1..3). */
#define INDEPENDENT_BLOCK_MIN ((uint64_t)16 << 20)
/* The smallest stream whose match finder gets a thread: starting one
 * costs about as much as searching a few KiB. */
#define MF_THREAD_MIN ((uint64_t)64 << 10)

/* The block for `bytes` in `blocks` blocks: at least the floor, at most
 * BLOCK_DICTS dictionaries (independent blocks: or INDEPENDENT_BLOCK_MIN). */
static uint64_t block_for(uint64_t bytes, uint32_t blocks, uint32_t dict, bool independent)
{
    uint64_t b = (bytes + blocks - 1) / blocks;
    uint64_t cap = (uint64_t)dict * BLOCK_DICTS;
    if (independent && cap < INDEPENDENT_BLOCK_MIN)
        cap = INDEPENDENT_BLOCK_MIN;
    if (b > cap)
        b = cap;
    b = (b + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
    if (b < fz7_lzma2_block_floor(dict))
        b = fz7_lzma2_block_floor(dict);
    if (b > FZ7_LZMA2_MT_BLOCK_MAX)
        b = FZ7_LZMA2_MT_BLOCK_MAX;
    return b;
}

/* One stream of `bytes` with options lo (fitted to it): its match finder
 * on a thread of its own when that pays and fits. */
static bool one_stream_mf_thread(const fz7_lzma_enc_opts *lo, const fz7_lzma_plan_in *in, bool *lowered)
{
    if (in->threads < 2 || (in->bytes && in->bytes < MF_THREAD_MIN) || !fz7_lzma_mf_thread_pays(lo->mf))
        return false;
    fz7_lzma_enc_opts o = *lo;
    o.mf_thread = 1;
    uint64_t need = fz7_lzma_enc_memusage(&o);
    if (need && need <= in->mem_limit)
        return true;
    *lowered = true;
    return false;
}

/* The plan for the blocks the user asked for (lo fitted to the input):
 * the encoders as the plan would run them, but blocks even for one, so
 * that memory and the cuts follow the asked size as in 7-Zip. */
static fz7_lzma_plan asked_blocks(const fz7_lzma_enc_opts *lo, const fz7_lzma_plan_in *in)
{
    fz7_lzma_plan p = {1, 0, false, false};
    uint64_t block = in->block_size;
    if (block < FZ7_LZMA2_MT_BLOCK_MIN)
        block = FZ7_LZMA2_MT_BLOCK_MIN;
    if (block > FZ7_LZMA2_MT_BLOCK_MAX)
        block = FZ7_LZMA2_MT_BLOCK_MAX;
    if (in->bytes && in->bytes <= block) {
        p.mf_thread = one_stream_mf_thread(lo, in, &p.lowered);
        return p;
    }
    bool bt = fz7_lzma_mf_thread_pays(lo->mf);
    uint32_t threads = bt ? in->threads / 2 : in->threads;
    if (threads == 0)
        threads = 1;
    if (in->bytes && (in->bytes + block - 1) / block < threads)
        threads = (uint32_t)((in->bytes + block - 1) / block);
    fz7_lzma_enc_opts o = *lo;
    o.mf_thread = bt && in->threads >= 2;
    for (;;) {
        uint64_t need = fz7_lzma2_mt_memusage(&o, threads, block);
        if (need && need <= in->mem_limit)
            break;
        p.lowered = true;
        if (threads > 1)
            threads--;
        else if (o.mf_thread)
            o.mf_thread = 0;
        else
            break;   /* one encoder without a thread: the least there is */
    }
    p.threads = threads;
    p.block_size = block;
    p.mf_thread = o.mf_thread;
    return p;
}

fz7_lzma_plan fz7_lzma_plan_threads(const fz7_lzma_enc_opts *opts, const fz7_lzma_plan_in *in)
{
    fz7_lzma_plan p = {1, 0, false, false};
    fz7_lzma_enc_opts lo = *opts;
    if (in->bytes)
        fz7_lzma_enc_reduce_dict(&lo, in->bytes);
    if (!in->lzma2) {
        p.mf_thread = in->bytes && one_stream_mf_thread(&lo, in, &p.lowered);
        return p;
    }
    if (in->block_size)
        return asked_blocks(&lo, in);
    if (in->threads <= 1)
        return p;
    /* A binary tree's stream takes two threads, its match finder searching
     * on the second (as 7-Zip gives its bt streams two): for the same
     * threads half the encoders, so half the memory, and one stream at
     * -mmt2 (the bytes of -mmt1). */
    bool bt = fz7_lzma_mf_thread_pays(lo.mf);
    uint32_t threads = bt ? in->threads / 2 : in->threads;
    if (threads <= 1 || (in->bytes && in->bytes <= fz7_lzma2_block_floor(lo.dict_size))) {
        p.mf_thread = one_stream_mf_thread(&lo, in, &p.lowered);
        return p;
    }
    lo.mf_thread = bt;
    uint64_t block = 0;
    while (threads > 1) {
        if (in->bytes) {
            uint32_t per = in->independent ? 1 : BLOCKS_PER_THREAD;
            block = block_for(in->bytes, threads * per, lo.dict_size, in->independent);
            uint64_t blocks = (in->bytes + block - 1) / block;
            if (blocks < threads)
                threads = (uint32_t)blocks;   /* no thread without a block */
            if (threads <= 1)
                break;
        }
        uint64_t need = fz7_lzma2_mt_memusage(&lo, threads, block);
        if (need && need <= in->mem_limit)
            break;
        p.lowered = true;
        threads--;
    }
    if (threads > 1) {
        p.threads = threads;
        p.block_size = block;
        p.mf_thread = bt;
    } else {
        bool lowered = p.lowered;
        p.mf_thread = one_stream_mf_thread(&lo, in, &p.lowered);
        p.lowered = lowered || p.lowered;
    }
    return p;
}
