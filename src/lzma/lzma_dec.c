/* lzma_dec.c - the LZMA decoder (lzma-file-format.txt) and its istream.
 *
 * fz7_lzma_dec_run() is the hot loop: range, code, input pointer, state
 * and reps live in locals for a whole run of symbols; literal bits are
 * unrolled and branch-free; matches are copied 16 bytes at a time. The
 * istream around it pulls input into a buffer padded with zero bytes, so
 * the loop never checks bounds per bit (see FZ7_LZMA_IN_MARGIN). */
#include "lzma/lzma_dec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lzma/range_dec.h"

/* ---- Decoder object ------------------------------------------------------ */

/* Match copies move 16 or 32 bytes at a time and may write up to 31 bytes
 * past the match. The buffer therefore has DICT_SLACK bytes after cap, and
 * the circular buffer is DICT_SLACK bytes longer than the window: a
 * distance below cap - DICT_SLACK never reaches the overwritten bytes
 * ahead of the write position. */
#define DICT_SLACK 32

static size_t round_up16(uint64_t n) { return (size_t)((n + 15) & ~(uint64_t)15); }

/* The dictionary is allocated whole: the kernel backs it with memory only
 * where bytes get written (or the prefault thread below maps them), so a
 * large window costs nothing for a short stream. Large ones are 2 MiB
 * aligned (huge pages where the system gives them unasked) but no longer
 * ask for them with MADV_HUGEPAGE: with defrag=madvise each 2 MiB fault
 * may compact memory first, which costs sys time once the page cache is
 * full, and the decoder itself was no faster on huge pages.
 * The run loop takes the position's low bits from the write pointer, so
 * the start is at least 16-byte aligned. NULL on failure. */
#define HUGE_PAGE ((size_t)2 << 20)

static uint8_t *alloc_dict(size_t n)
{
    void *p = NULL;
    if (n >= 2 * HUGE_PAGE) {
        size_t len = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        if (posix_memalign(&p, HUGE_PAGE, len) != 0)
            return NULL;
        return p;
    }
    return posix_memalign(&p, 64, n) == 0 ? p : NULL;
}

/* A large window gets its pages faulted in by a second thread a little
 * ahead of the decoder: the kernel's zeroing of the window (and any
 * huge-page compaction) then runs beside the decoding thread instead of
 * in it. The thread stays at most PREFAULT_AHEAD bytes past the write
 * position, so a stream that
 * declares a large size but ends early commits little more memory than
 * it wrote. MADV_POPULATE_WRITE maps pages without changing bytes already
 * written, so it may run alongside the decoder. Linux 5.14 and later;
 * elsewhere, or when the call fails, the decoder faults its own pages in. */
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define PREFAULT_MIN ((size_t)8 << 20)
#define PREFAULT_AHEAD ((size_t)8 << 20)

struct fz7_lzma_prefault {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t more;  /* allowed grew, or stop */
    uint8_t *p;
    size_t len;           /* a multiple of HUGE_PAGE; p is HUGE_PAGE aligned */
    size_t allowed;       /* the thread may populate [0, allowed) */
    bool stop;
    size_t told;          /* decoder thread only: the last allowed it set */
};

static void *prefault_main(void *arg)
{
    struct fz7_lzma_prefault *pf = arg;
    size_t off = 0;
    pthread_mutex_lock(&pf->lock);
    while (off < pf->len && !pf->stop) {
        if (off >= pf->allowed) {
            pthread_cond_wait(&pf->more, &pf->lock);
            continue;
        }
        size_t end = pf->allowed < pf->len ? pf->allowed : pf->len;
        pthread_mutex_unlock(&pf->lock);
        bool failed = false;
        for (; off < end && !failed; off += HUGE_PAGE)
            failed = madvise(pf->p + off, HUGE_PAGE, MADV_POPULATE_WRITE) != 0;
        pthread_mutex_lock(&pf->lock);
        if (failed)
            break;
    }
    pthread_mutex_unlock(&pf->lock);
    return NULL;
}

static void prefault_start(fz7_lzma_dec *d, size_t alloc_len)
{
    if (alloc_len < PREFAULT_MIN)
        return;
    struct fz7_lzma_prefault *pf = malloc(sizeof *pf);
    if (!pf)
        return;
    pf->p = d->dict;
    pf->len = (alloc_len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    pf->allowed = pf->told = PREFAULT_AHEAD;
    pf->stop = false;
    pthread_mutex_init(&pf->lock, NULL);
    pthread_cond_init(&pf->more, NULL);
    if (pthread_create(&pf->thread, NULL, prefault_main, pf) != 0) {
        pthread_cond_destroy(&pf->more);
        pthread_mutex_destroy(&pf->lock);
        free(pf);
        return;
    }
    d->prefault = pf;
}

/* Lets the thread run on to PREFAULT_AHEAD past the write position (the
 * whole window once it has wrapped); wakes it at most once per huge page. */
static void prefault_advance(fz7_lzma_dec *d)
{
    struct fz7_lzma_prefault *pf = d->prefault;
    size_t want = d->wrapped ? pf->len : d->pos + PREFAULT_AHEAD;
    if (want < pf->told + HUGE_PAGE)
        return;
    pf->told = want;
    pthread_mutex_lock(&pf->lock);
    pf->allowed = want;
    pthread_cond_signal(&pf->more);
    pthread_mutex_unlock(&pf->lock);
}

static void prefault_stop(fz7_lzma_dec *d)
{
    struct fz7_lzma_prefault *pf = d->prefault;
    if (!pf)
        return;
    pthread_mutex_lock(&pf->lock);
    pf->stop = true;
    pthread_cond_signal(&pf->more);
    pthread_mutex_unlock(&pf->lock);
    pthread_join(pf->thread, NULL);
    pthread_cond_destroy(&pf->more);
    pthread_mutex_destroy(&pf->lock);
    free(pf);
    d->prefault = NULL;
}
#else
static void prefault_start(fz7_lzma_dec *d, size_t alloc_len) { (void)d; (void)alloc_len; }
static void prefault_advance(fz7_lzma_dec *d) { (void)d; }
static void prefault_stop(fz7_lzma_dec *d) { (void)d; }
#endif

static fz7_status alloc_probs(fz7_lzma_dec *d, unsigned lc, unsigned lp)
{
    if (!d->probs || d->lclp_alloc < lc + lp) {
        fz7_lzma_probs *p = malloc(fz7_lzma_probs_size(lc, lp));
        if (!p)
            return FZ7_E_MEM;
        free(d->probs);
        d->probs = p;
        d->lclp_alloc = lc + lp;
    }
    return FZ7_OK;
}

fz7_status fz7_lzma_dec_new(uint64_t dict_size, uint64_t unpack_hint, uint64_t mem_limit, unsigned lc,
                            unsigned lp, unsigned pb, fz7_lzma_dec **out)
{
    *out = NULL;
    if (lc > FZ7_LZMA_LC_MAX || lp > FZ7_LZMA_LP_MAX || pb > FZ7_LZMA_PB_MAX)
        return FZ7_E_ARG;
    if (dict_size < FZ7_LZMA_DICT_MIN)
        dict_size = FZ7_LZMA_DICT_MIN;
    /* A stream of n bytes never reaches back further than n bytes. */
    uint64_t window = dict_size;
    if (unpack_hint < window)
        window = unpack_hint < 16 ? 16 : unpack_hint;
    if (window > FZ7_LZMA_DICT_MAX || window + fz7_lzma_probs_size(lc, lp) > mem_limit)
        return FZ7_E_MEMLIMIT;

    fz7_lzma_dec *d = calloc(1, sizeof *d);
    if (!d)
        return FZ7_E_MEM;
    d->cap = round_up16(window) + DICT_SLACK;
    d->dict = alloc_dict(d->cap + DICT_SLACK);
    if (!d->dict || alloc_probs(d, lc, lp) != FZ7_OK) {
        fz7_lzma_dec_free(d);
        return FZ7_E_MEM;
    }
    d->lc = lc;
    d->lp = lp;
    d->pb = pb;
    fz7_lzma_dec_reset_state(d);
    prefault_start(d, d->cap + DICT_SLACK);
    *out = d;
    return FZ7_OK;
}

void fz7_lzma_dec_free(fz7_lzma_dec *d)
{
    if (!d)
        return;
    prefault_stop(d);
    free(d->dict);
    free(d->probs);
    free(d);
}

fz7_status fz7_lzma_dec_set_props(fz7_lzma_dec *d, unsigned lc, unsigned lp, unsigned pb)
{
    if (lc > FZ7_LZMA_LC_MAX || lp > FZ7_LZMA_LP_MAX || pb > FZ7_LZMA_PB_MAX)
        return FZ7_E_ARG;
    fz7_status st = alloc_probs(d, lc, lp);
    if (st != FZ7_OK)
        return st;
    d->lc = lc;
    d->lp = lp;
    d->pb = pb;
    fz7_lzma_dec_reset_state(d);
    return FZ7_OK;
}

void fz7_lzma_dec_reset_state(fz7_lzma_dec *d)
{
    fz7_lzma_probs_init(d->probs, d->lc, d->lp);
    d->state = 0;
    d->rep0 = d->rep1 = d->rep2 = d->rep3 = 0;
    d->pending = 0;
    d->end_marker = false;
}

void fz7_lzma_dec_reset_dict(fz7_lzma_dec *d)
{
    d->pos = 0;
    d->out_pos = 0;
    d->wrapped = false;
    d->pending = 0;
}

fz7_status fz7_lzma_dec_rc_init(fz7_lzma_dec *d, const uint8_t in[5])
{
    if (in[0] != 0)
        return FZ7_E_DATA;
    d->range = 0xFFFFFFFFu;
    d->code = ((uint32_t)in[1] << 24) | ((uint32_t)in[2] << 16) | ((uint32_t)in[3] << 8) | in[4];
    /* code must lie inside the range; 0xFFFFFFFF cannot. */
    if (d->code == 0xFFFFFFFFu)
        return FZ7_E_DATA;
    return FZ7_OK;
}

size_t fz7_lzma_dec_make_room(fz7_lzma_dec *d, fz7_status *st)
{
    *st = FZ7_OK;
    if (d->pos == d->cap && d->out_pos == d->pos) {
        d->pos = 0;
        d->out_pos = 0;
        d->wrapped = true;
    }
    if (d->prefault)
        prefault_advance(d);
    return d->cap - d->pos;
}

size_t fz7_lzma_dec_take(fz7_lzma_dec *d, uint8_t *buf, size_t cap)
{
    size_t n = d->pos - d->out_pos;
    if (n > cap)
        n = cap;
    memcpy(buf, d->dict + d->out_pos, n);
    d->out_pos += n;
    return n;
}

void fz7_lzma_dec_put_raw(fz7_lzma_dec *d, const uint8_t *p, size_t n)
{
    memcpy(d->dict + d->pos, p, n);
    d->pos += n;
}

/* ---- Hot loop -------------------------------------------------------------- */

/* State after a literal, by the state before it. */
static const uint8_t k_state_after_literal[FZ7_LZMA_NUM_STATES] = { 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5 };

/* Copies n bytes forward from src to dst = src + dist, where the regions
 * may overlap (dist < n repeats the pattern). May write up to 31 bytes
 * past dst + n (see DICT_SLACK); reads only bytes already final. */
static inline void copy_match(uint8_t *dst, const uint8_t *src, size_t n, size_t dist)
{
    if (dist >= 32) {
        /* The first 32 bytes unconditionally (both loads end at or before
         * dst): 9 in 10 matches end there, so the loop's exit branch, which
         * mispredicted on about a third of matches, is rarely reached. */
        uint8_t a[16], b[16];
        memcpy(a, src, 16);
        memcpy(b, src + 16, 16);
        memcpy(dst, a, 16);
        memcpy(dst + 16, b, 16);
        for (size_t i = 32; i < n; i += 16) {
            uint8_t t[16];
            memcpy(t, src + i, 16);
            memcpy(dst + i, t, 16);
        }
    } else if (dist >= 16) {
        /* Each 16-byte load ends at or before the store of the same step. */
        size_t i = 0;
        do {
            uint8_t t[16];
            memcpy(t, src + i, 16);
            memcpy(dst + i, t, 16);
            i += 16;
        } while (i < n);
    } else if (dist >= 8) {
        size_t i = 0;
        do {
            uint8_t t[8];
            memcpy(t, src + i, 8);
            memcpy(dst + i, t, 8);
            i += 8;
        } while (i < n);
    } else if (dist == 1) {
        memset(dst, src[0], n);
    } else {
        /* A short period: write one period-multiple d2 >= 8 bytewise,
         * then copy 8 bytes at a time from d2 back (bytes already final). */
        size_t d2 = dist;
        while (d2 < 8)
            d2 += dist;
        size_t i = 0;
        for (; i < n && i < d2; i++)
            dst[i] = src[i];
        for (; i < n; i += 8) {
            uint8_t t[8];
            memcpy(t, dst + i - d2, 8);
            memcpy(dst + i, t, 8);
        }
    }
}

/* A bit-tree step with the children's probabilities loaded ahead (see
 * RC_BIT_SEL); pv holds probs[sym] on entry and probs[new sym] after.
 * Not for a tree's last level (its children lie outside the tree). */
#define TREE_STEP_PRELOAD(probs, sym, pv) RC_TREE_STEP_SEL(probs, sym, pv)

/* A reverse bit-tree step with preloading: the bit also goes into acc at
 * bit position shift. */
#define REV_STEP_PRELOAD(probs, idx, pv, acc, shift)                            \
    do {                                                                        \
        uint32_t rb_;                                                           \
        RC_BIT_SEL((probs) + (idx), pv, (probs)[2 * (idx)], (probs)[2 * (idx) + 1], rb_); \
        (idx) = ((idx) << 1) + rb_;                                             \
        (acc) += rb_ << (shift);                                                \
    } while (0)

/* Decodes a match length with the length coder at lenp into len (2..273).
 * Uses the locals of the run loop (ps = pos state). low_last(tp, t, tv)
 * is the low tree's last step (LOW_LAST_PLAIN or LOW_LAST_SLOT); mid_hi()
 * runs on the other paths (lengths 10 and more). */
#define DECODE_LEN_(lenp, len, low_last, mid_hi)                                \
    do {                                                                        \
        fz7_lzma_len_probs *lc_ = (lenp);                                       \
        uint32_t t_ = 1;                                                        \
        RC_IF_BIT0(&lc_->choice) {                                              \
            RC_UPDATE0(&lc_->choice);                                           \
            fz7_lzma_prob *tp_ = lc_->low[ps];                                  \
            uint32_t tv_ = tp_[1];                                              \
            TREE_STEP_PRELOAD(tp_, t_, tv_);                                    \
            TREE_STEP_PRELOAD(tp_, t_, tv_);                                    \
            low_last(tp_, t_, tv_);                                             \
            (len) = t_ - 8 + FZ7_LZMA_MATCH_LEN_MIN;                            \
        } else {                                                                \
            RC_UPDATE1(&lc_->choice);                                           \
            mid_hi();                                                           \
            RC_IF_BIT0(&lc_->choice2) {                                         \
                RC_UPDATE0(&lc_->choice2);                                      \
                fz7_lzma_prob *tp_ = lc_->mid[ps];                              \
                uint32_t tv_ = tp_[1];                                          \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                RC_TREE_STEP(tp_, t_);                                          \
                (len) = t_ - 8 + FZ7_LZMA_MATCH_LEN_MIN + 8;                    \
            } else {                                                            \
                RC_UPDATE1(&lc_->choice2);                                      \
                fz7_lzma_prob *tp_ = lc_->high;                                 \
                uint32_t tv_ = tp_[1];                                          \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                TREE_STEP_PRELOAD(tp_, t_, tv_);                                \
                RC_TREE_STEP(tp_, t_);                                          \
                (len) = t_ - 256 + FZ7_LZMA_MATCH_LEN_MIN + 16;                 \
            }                                                                   \
        }                                                                       \
    } while (0)

/* The low tree's last step, plain. */
#define LOW_LAST_PLAIN(tp, t, tv) RC_TREE_STEP(tp, t)
#define NO_MID_HI() ((void)0)
#define DECODE_LEN(lenp, len) DECODE_LEN_(lenp, len, LOW_LAST_PLAIN, NO_MID_HI)

/* A new match's length, with slot_pv set to the first probability of the
 * distance slot tree that length selects (dist_slot[min(len - 2, 3)][1]).
 * On the low path both candidates are loaded before the last length bit
 * is known and selected by it (RC_BIT_SEL), so the slot tree's first bit
 * does not wait for the length, an index computation and a load. */
#define LOW_LAST_SLOT(tp, t, tv)                                                \
    do {                                                                        \
        uint32_t k0_ = 2 * (t) - 8, k1_ = k0_ + 1, lb_;                         \
        k0_ = k0_ < 3 ? k0_ : 3;                                                \
        k1_ = k1_ < 3 ? k1_ : 3;                                                \
        RC_BIT_SEL((tp) + (t), tv, pr->dist_slot[k0_][1], pr->dist_slot[k1_][1], lb_); \
        (t) = 2 * (t) + lb_;                                                    \
        slot_pv = (tv);                                                         \
    } while (0)
#define SLOT_MID_HI() (slot_pv = pr->dist_slot[3][1])
#define DECODE_MATCH_LEN(lenp, len) DECODE_LEN_(lenp, len, LOW_LAST_SLOT, SLOT_MID_HI)

/* The align bits are a reverse bit tree: its path, first bit highest,
 * read backwards (first bit lowest) is the value. The first three bits'
 * part is looked up while the last bit decodes (as the path 0b1xyz0), so
 * the distance waits for that bit only, not for a load after it. */
static const uint8_t k_reverse4[FZ7_LZMA_ALIGN_SIZE] = { 0, 8, 4, 12, 2, 10, 6, 14,
                                                         1, 9, 5, 13, 3, 11, 7, 15 };

/* Decodes the distance of a match of length len into dist (0-based; the
 * end marker decodes to 0xFFFFFFFF). For a far distance (slot >= 14),
 * on_high(base) runs once the direct bits are known, before the 4 align
 * bits: dist is then in [base, base + 15]. */
#define DECODE_DIST(len, dist, on_high)                                         \
    DECODE_DIST_SV(len, dist, on_high, pr->dist_slot[(len) < 6 ? (len) - 2 : 3][1])
/* As DECODE_DIST with sv, the slot tree's first probability, given. */
#define DECODE_DIST_SV(len, dist, on_high, sv)                                  \
    do {                                                                        \
        fz7_lzma_prob *sp_ = pr->dist_slot[(len) < 6 ? (len) - 2 : 3];          \
        uint32_t slot_ = 1, sv_ = (sv);                                         \
        TREE_STEP_PRELOAD(sp_, slot_, sv_);                                     \
        TREE_STEP_PRELOAD(sp_, slot_, sv_);                                     \
        TREE_STEP_PRELOAD(sp_, slot_, sv_);                                     \
        TREE_STEP_PRELOAD(sp_, slot_, sv_);                                     \
        TREE_STEP_PRELOAD(sp_, slot_, sv_);                                     \
        RC_TREE_STEP(sp_, slot_);                                               \
        slot_ -= FZ7_LZMA_DIST_SLOTS;                                           \
        if (slot_ < FZ7_LZMA_DIST_MODEL_START) {                                \
            (dist) = slot_;                                                     \
        } else {                                                                \
            unsigned nb_ = (slot_ >> 1) - 1;                                    \
            uint32_t d_ = (2u | (slot_ & 1u)) << nb_;                           \
            uint32_t idx_ = 1;                                                  \
            if (slot_ < FZ7_LZMA_DIST_MODEL_END) {                              \
                fz7_lzma_prob *rp_ = pr->dist_special + d_ - slot_ - 1;         \
                uint32_t rv_ = rp_[1];                                          \
                unsigned i_ = 0;                                                \
                for (; i_ + 1 < nb_; i_++)                                      \
                    REV_STEP_PRELOAD(rp_, idx_, rv_, d_, i_);                   \
                RC_REV_STEP(rp_, idx_, d_, i_);                                 \
            } else {                                                            \
                uint32_t dir_ = 0;                                              \
                RC_DIRECT_BITS(nb_ - FZ7_LZMA_ALIGN_BITS, dir_);                \
                d_ += dir_ << FZ7_LZMA_ALIGN_BITS;                              \
                on_high(d_);                                                    \
                fz7_lzma_prob *ap_ = pr->dist_align;                            \
                uint32_t av_ = ap_[1];                                          \
                TREE_STEP_PRELOAD(ap_, idx_, av_);                              \
                TREE_STEP_PRELOAD(ap_, idx_, av_);                              \
                TREE_STEP_PRELOAD(ap_, idx_, av_);                              \
                d_ += k_reverse4[2 * idx_ - FZ7_LZMA_ALIGN_SIZE];               \
                uint32_t ab_;                                                   \
                RC_BIT_BL(ap_ + idx_, ab_);                                     \
                d_ += ab_ << 3;                                                 \
            }                                                                   \
            (dist) = d_;                                                        \
        }                                                                       \
    } while (0)

/* One plain literal bit whose probability value pv was loaded ahead:
 * both children's probabilities are loaded before the bit is known and
 * the right one is selected after (RC_BIT_SEL), which takes the load
 * latency off the bit-to-bit dependency chain. */
#define LIT_STEP_PRELOAD(lit, sym, pv) RC_TREE_STEP_SEL(lit, sym, pv)

/* One matched-literal bit (see lzma_common.h for the tree layout): while
 * the decoded bits equal the match byte's bits, the tree at 0x100 +
 * match_bit * 0x100 is used; after the first difference offs becomes 0
 * and the plain tree is used. On entry mb holds the match byte shifted so
 * that mb & offs is this bit's match bit, idx = offs + (mb & offs) + sym
 * and pv = lit[idx]. Both possible next indices (bit 0: offs keeps only
 * a 0 match bit; bit 1: only a 1) are computed and their probabilities
 * loaded before the bit is known. Valid for the first 7 bits (the
 * children of the 8th would leave the 0x300 block). */
#define MATCHED_LIT_STEP_PRELOAD()                                              \
    do {                                                                        \
        uint32_t mbit_ = mb & offs, mb2_ = mb << 1;                             \
        uint32_t o0_ = offs & ~mbit_, o1_ = offs & mbit_;                       \
        uint32_t i0_ = o0_ + (mb2_ & o0_) + 2 * sym;                            \
        uint32_t i1_ = o1_ + (mb2_ & o1_) + 2 * sym + 1;                        \
        uint32_t bit_;                                                          \
        RC_BIT_SEL(lit + idx, pv, lit[i0_], lit[i1_], bit_);                    \
        uint32_t k_ = 0u - bit_;                                                \
        sym = 2 * sym + bit_;                                                   \
        offs = (o1_ & k_) | (o0_ & ~k_);                                        \
        idx = (i1_ & k_) | (i0_ & ~k_);                                         \
        mb = mb2_;                                                              \
    } while (0)

/* Index in the dictionary of the byte at distance rep + 1 behind pos. */
static inline size_t back_index(size_t pos, uint32_t rep, size_t cap)
{
    return pos > rep ? pos - rep - 1 : pos + cap - rep - 1;
}

/* Asks for the cache lines a match copy from distance dist + 1 + k
 * (k = 0 .. spread) behind pos reads first: its source start lies in
 * [i - spread, i] (i = the index for k = 0) and the first 32-byte copy
 * reads up to 31 bytes on, so the bytes [i - spread, i + 31] are wanted;
 * with spread <= 15 that span is at most 47 bytes, two cache lines,
 * whose ends are prefetched. Used for a far match's source while its low
 * 4 bits are still being decoded (spread 15) and for a rep's before its
 * length is (spread 0). A source megabytes back is usually not in L2, and
 * the copy's loads otherwise stall the decoder for the whole miss: the
 * prefetch starts the miss a few dozen cycles earlier. Prefetching a
 * wrong address is harmless. */
static inline void prefetch_back(const uint8_t *dict, size_t cap, size_t pos, uint32_t dist, size_t spread)
{
    size_t i = back_index(pos, dist, cap);
    size_t j = i >= spread ? i - spread : i + cap - spread;
    /* Integer arithmetic: a corrupt distance may point anywhere, and
     * i + 31 may lie past the buffer's end. */
    __builtin_prefetch((const void *)((uintptr_t)dict + j));
    __builtin_prefetch((const void *)((uintptr_t)dict + i + 31));
}

/* The on_high hooks of DECODE_DIST in the run loop and elsewhere. */
#define PREFETCH_FAR(base) prefetch_back(d->dict, d->cap, pos, (base), 15)
#define NO_PREFETCH(base) ((void)(base))

fz7_status fz7_lzma_dec_run(fz7_lzma_dec *d, const uint8_t **inp, const uint8_t *in_stop, size_t limit)
{
    /* Register pressure decides the speed here: the literal path keeps
     * only the write pointer, input pointer, range, code, state, rep0,
     * prev and the probabilities in registers. rep1..rep3, the buffer
     * base, cap and the valid-history size stay in *d (the rep and match
     * paths reload them). The dictionary is 16-byte aligned, so the low
     * bits of the write pointer are the stream position's (pos bits). */
    uint8_t *dst = d->dict + d->pos;
    uint8_t *const dst_limit = d->dict + limit;
    fz7_lzma_probs *const pr = d->probs;
    const uint8_t *in = *inp;
    uint32_t range = d->range, code = d->code;
    uint32_t state = d->state;
    uint32_t rep0 = d->rep0;
    const unsigned lc = d->lc;
    const uint32_t lp_mask = (1u << d->lp) - 1u;
    const uint32_t pb_mask = (1u << d->pb) - 1u;
    fz7_status st = FZ7_OK;
    RC_LOCALS;

    if (d->pending) {
        /* Finish a match the previous call's limit cut. */
        size_t pos = d->pos;
        size_t n = limit - pos;
        if (n > d->pending)
            n = d->pending;
        size_t src = back_index(pos, rep0, d->cap);
        for (size_t i = 0; i < n; i++) {
            d->dict[pos++] = d->dict[src++];
            if (src == d->cap)
                src = 0;
        }
        d->pending -= (uint32_t)n;
        dst = d->dict + pos;
        if (d->pending)
            goto done;
    }

    uint32_t prev = dst != d->dict ? dst[-1] : (d->wrapped ? d->dict[d->cap - 1] : 0);

    while (dst < dst_limit && in <= in_stop) {
        const uint32_t ps = (uint32_t)(uintptr_t)dst & pb_mask;
        fz7_lzma_prob *p = &pr->is_match[state][ps];
        RC_IF_BIT0(p) {
            RC_UPDATE0(p);
            fz7_lzma_prob *lit = pr->literal +
                FZ7_LZMA_LITERAL_CODER_SIZE * ((((uint32_t)(uintptr_t)dst & lp_mask) << lc) + (prev >> (8 - lc)));
            uint32_t sym = 1;
            if (state < FZ7_LZMA_LIT_STATES) {
                uint32_t pv = lit[1];
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                LIT_STEP_PRELOAD(lit, sym, pv);
                RC_TREE_STEP(lit, sym);
            } else {
                size_t pos = (size_t)(dst - d->dict);
                uint32_t mb = (uint32_t)d->dict[back_index(pos, rep0, d->cap)] << 1;
                uint32_t offs = 0x100;
                uint32_t idx = offs + (mb & offs) + 1;
                uint32_t pv = lit[idx];
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                MATCHED_LIT_STEP_PRELOAD();
                uint32_t bit8;
                RC_BIT_BL(lit + idx, bit8);
                sym = (sym << 1) + bit8;
            }
            prev = sym & 0xFF;
            *dst++ = (uint8_t)prev;
            state = k_state_after_literal[state];
            continue;
        }
        RC_UPDATE1(p);

        uint32_t len;
        size_t pos = (size_t)(dst - d->dict);
        p = &pr->is_rep[state];
        RC_IF_BIT0(p) {
            /* A new match: length, then distance. */
            RC_UPDATE0(p);
            state = state < FZ7_LZMA_LIT_STATES ? 7 : 10;
            uint32_t slot_pv;
            DECODE_MATCH_LEN(&pr->match_len, len);
            d->rep3 = d->rep2;
            d->rep2 = d->rep1;
            d->rep1 = rep0;
            DECODE_DIST_SV(len, rep0, PREFETCH_FAR, slot_pv);
            /* Valid distances reach the decoded bytes: pos of them before
             * the buffer first wraps, cap - DICT_SLACK after. */
            if (rep0 >= pos && (!d->wrapped || rep0 >= d->cap - DICT_SLACK)) {
                if (rep0 == FZ7_LZMA_END_MARKER_DIST)
                    d->end_marker = true;
                else
                    st = FZ7_E_DATA;
                break;
            }
        } else {
            RC_UPDATE1(p);
            if (pos == 0 && !d->wrapped) { /* a rep with nothing decoded yet */
                st = FZ7_E_DATA;
                break;
            }
            p = &pr->is_rep0[state];
            RC_IF_BIT0(p) {
                RC_UPDATE0(p);
                p = &pr->is_rep0_long[state][ps];
                RC_IF_BIT0(p) {
                    /* Short rep: one byte at distance rep0. */
                    RC_UPDATE0(p);
                    state = state < FZ7_LZMA_LIT_STATES ? 9 : 11;
                    prev = d->dict[back_index(pos, rep0, d->cap)];
                    *dst++ = (uint8_t)prev;
                    continue;
                }
                RC_UPDATE1(p);
            } else {
                RC_UPDATE1(p);
                uint32_t dist;
                p = &pr->is_rep1[state];
                RC_IF_BIT0(p) {
                    RC_UPDATE0(p);
                    dist = d->rep1;
                } else {
                    RC_UPDATE1(p);
                    p = &pr->is_rep2[state];
                    RC_IF_BIT0(p) {
                        RC_UPDATE0(p);
                        dist = d->rep2;
                    } else {
                        RC_UPDATE1(p);
                        dist = d->rep3;
                        d->rep3 = d->rep2;
                    }
                    d->rep2 = d->rep1;
                }
                d->rep1 = rep0;
                rep0 = dist;
                prefetch_back(d->dict, d->cap, pos, rep0, 0);
            }
            state = state < FZ7_LZMA_LIT_STATES ? 8 : 11;
            DECODE_LEN(&pr->rep_len, len);
        }

        /* Copy len bytes from distance rep0 + 1, as far as the limit. */
        size_t n = (size_t)(dst_limit - dst);
        if (n > len)
            n = len;
        d->pending = len - (uint32_t)n;
        uint8_t *const dict = d->dict;
        const size_t cap = d->cap;
        size_t src = back_index(pos, rep0, cap);
        if (src < pos || src + n <= cap) {
            copy_match(dst, dict + src, n, (size_t)rep0 + 1);
            dst += n;
        } else {
            for (size_t i = 0; i < n; i++) {
                *dst++ = dict[src++];
                if (src == cap)
                    src = 0;
            }
        }
        prev = dst[-1];
    }

done:
    RC_NORMALIZE();
    *inp = in;
    d->pos = (size_t)(dst - d->dict);
    d->range = range;
    d->code = code;
    d->state = state;
    d->rep0 = rep0;
    return st;
}

bool fz7_lzma_dec_end_marker_next(fz7_lzma_dec *d, const uint8_t **inp)
{
    const uint8_t *in = *inp;
    uint32_t range = d->range, code = d->code;
    fz7_lzma_probs *const pr = d->probs;
    const uint32_t ps = (uint32_t)d->pos & ((1u << d->pb) - 1u);
    uint32_t len, dist;
    bool found = false;
    RC_LOCALS;

    /* Decode on copies of the probabilities touched? Not needed: after
     * this call the stream either ends or is rejected. */
    fz7_lzma_prob *p = &pr->is_match[d->state][ps];
    RC_IF_BIT0(p) {
        RC_UPDATE0(p);
        goto out;
    }
    RC_UPDATE1(p);
    p = &pr->is_rep[d->state];
    RC_IF_BIT0(p) {
        RC_UPDATE0(p);
    } else {
        RC_UPDATE1(p);
        goto out;
    }
    DECODE_LEN(&pr->match_len, len);
    DECODE_DIST(len, dist, NO_PREFETCH);
    found = dist == FZ7_LZMA_END_MARKER_DIST;
out:
    RC_NORMALIZE();
    *inp = in;
    d->range = range;
    d->code = code;
    if (found)
        d->end_marker = true;
    return found;
}

/* ---- The LZMA istream ------------------------------------------------------ */

#define IN_BUF_SIZE ((size_t)1 << 16)

typedef struct lzma_istream {
    fz7_istream base;
    fz7_istream *src;
    fz7_lzma_dec *dec;
    uint64_t left;          /* bytes still to produce; UINT64_MAX: unknown */
    bool known_size;
    bool started;           /* the range decoder was initialised */
    bool finished;          /* end reached and checked */
    bool src_eof;
    fz7_status err;         /* sticky error, reported after delivered bytes */
    size_t in_pos, in_end;  /* valid input is in_buf[in_pos, in_end) */
    uint8_t in_buf[IN_BUF_SIZE + FZ7_LZMA_IN_MARGIN];
} lzma_istream;

/* Moves the unread tail down and reads more from src until more than
 * FZ7_LZMA_IN_MARGIN bytes are buffered or src ends; at the end the
 * margin after the data is zero-filled. */
static fz7_status fill_input(lzma_istream *s)
{
    if (s->src_eof || s->in_end - s->in_pos > FZ7_LZMA_IN_MARGIN)
        return FZ7_OK;
    size_t keep = s->in_end - s->in_pos;
    memmove(s->in_buf, s->in_buf + s->in_pos, keep);
    s->in_pos = 0;
    s->in_end = keep;
    while (s->in_end <= FZ7_LZMA_IN_MARGIN) {
        size_t got = 0;
        fz7_status st = s->src->read(s->src, s->in_buf + s->in_end, IN_BUF_SIZE - s->in_end, &got);
        if (st != FZ7_OK)
            return st;
        if (got == 0) {
            s->src_eof = true;
            break;
        }
        s->in_end += got;
    }
    /* Read more while cheap so the decoder runs long stretches. */
    while (!s->src_eof && s->in_end < IN_BUF_SIZE / 2) {
        size_t got = 0;
        fz7_status st = s->src->read(s->src, s->in_buf + s->in_end, IN_BUF_SIZE - s->in_end, &got);
        if (st != FZ7_OK)
            return st;
        if (got == 0)
            s->src_eof = true;
        s->in_end += got;
    }
    if (s->src_eof)
        memset(s->in_buf + s->in_end, 0, FZ7_LZMA_IN_MARGIN);
    return FZ7_OK;
}

/* The last byte the decoder may stop after: the end of the data when src
 * has ended (the zero margin covers the overrun, which is then detected),
 * else early enough that a whole symbol's bytes are buffered. */
static const uint8_t *input_stop(lzma_istream *s)
{
    return s->src_eof ? s->in_buf + s->in_end : s->in_buf + s->in_end - FZ7_LZMA_IN_MARGIN;
}

/* After decoding from the buffer: an overrun into the zero margin means src
 * ended inside the stream. */
static bool overran(lzma_istream *s) { return s->src_eof && s->in_pos > s->in_end; }

/* Checks the end of a stream whose size was reached: either the range
 * decoder is finished (code == 0) or an end marker follows. */
static fz7_status check_known_end(lzma_istream *s)
{
    fz7_lzma_dec *d = s->dec;
    if (d->pending)
        return FZ7_E_DATA;
    if (d->code == 0)
        return FZ7_OK;
    fz7_status st = fill_input(s);
    if (st != FZ7_OK)
        return st;
    const uint8_t *in = s->in_buf + s->in_pos;
    bool marker = fz7_lzma_dec_end_marker_next(d, &in);
    s->in_pos = (size_t)(in - s->in_buf);
    if (overran(s))
        return FZ7_E_TRUNCATED;
    return marker && d->code == 0 ? FZ7_OK : FZ7_E_DATA;
}

/* Decodes the next run of bytes into the dictionary (at most want). */
static fz7_status decode_more(lzma_istream *s, size_t want)
{
    fz7_lzma_dec *d = s->dec;
    fz7_status st = fill_input(s);
    if (st != FZ7_OK)
        return st;
    if (!s->started) {
        if (s->in_end - s->in_pos < FZ7_LZMA_RC_INIT_BYTES)
            return FZ7_E_TRUNCATED;
        st = fz7_lzma_dec_rc_init(d, s->in_buf + s->in_pos);
        if (st != FZ7_OK)
            return st;
        s->in_pos += FZ7_LZMA_RC_INIT_BYTES;
        s->started = true;
        if (s->known_size && s->left == 0) {
            s->finished = true;
            return check_known_end(s);
        }
        st = fill_input(s);
        if (st != FZ7_OK)
            return st;
    }
    size_t room = fz7_lzma_dec_make_room(d, &st);
    if (st != FZ7_OK)
        return st;
    if (room > want)
        room = want;
    if (room > s->left)
        room = (size_t)s->left;
    size_t before = d->pos;
    const uint8_t *in = s->in_buf + s->in_pos;
    st = fz7_lzma_dec_run(d, &in, input_stop(s), before + room);
    s->in_pos = (size_t)(in - s->in_buf);
    if (overran(s))
        return FZ7_E_TRUNCATED;
    if (s->known_size)
        s->left -= d->pos - before;
    if (st != FZ7_OK)
        return st;
    if (d->end_marker) {
        s->finished = true;
        /* An end marker before the known size is reached is corrupt data. */
        if (s->known_size && s->left != 0)
            return FZ7_E_DATA;
        return d->code == 0 ? FZ7_OK : FZ7_E_DATA;
    }
    if (s->known_size && s->left == 0) {
        s->finished = true;
        return check_known_end(s);
    }
    return FZ7_OK;
}

static fz7_status lzma_read(fz7_istream *base, uint8_t *buf, size_t cap, size_t *got)
{
    lzma_istream *s = (lzma_istream *)base;
    size_t done = 0;
    while (done < cap) {
        size_t n = fz7_lzma_dec_take(s->dec, buf + done, cap - done);
        done += n;
        if (done == cap)
            break;
        if (s->err != FZ7_OK || s->finished)
            break;
        s->err = decode_more(s, cap - done);
    }
    *got = done;
    /* Deliver the bytes decoded before an error first. */
    if (done == 0 && s->err != FZ7_OK)
        return s->err;
    return FZ7_OK;
}

size_t fz7_lzma_istream_unread(const fz7_istream *base)
{
    const lzma_istream *s = (const lzma_istream *)base;
    return s->in_end > s->in_pos ? s->in_end - s->in_pos : 0;
}

static void lzma_destroy(fz7_istream *base)
{
    lzma_istream *s = (lzma_istream *)base;
    fz7_lzma_dec_free(s->dec);
    free(s);
}

/* The stream of fz7_lzma_istream_new with a window of at least
 * dict_size bytes. */
static fz7_status lzma_istream_make(fz7_istream *src, const uint8_t props[5], uint64_t dict_size,
                                    uint64_t unpack_size, uint64_t mem_limit, lzma_istream **out)
{
    *out = NULL;
    unsigned lc, lp, pb;
    if (!fz7_lzma_props_decode(props[0], &lc, &lp, &pb))
        return FZ7_E_UNSUPPORTED;
    lzma_istream *s = malloc(sizeof *s);
    if (!s)
        return FZ7_E_MEM;
    fz7_status st = fz7_lzma_dec_new(dict_size, unpack_size, mem_limit, lc, lp, pb, &s->dec);
    if (st != FZ7_OK) {
        free(s);
        return st;
    }
    s->base.read = lzma_read;
    s->base.destroy = lzma_destroy;
    s->src = src;
    s->left = unpack_size;
    s->known_size = unpack_size != UINT64_MAX;
    s->started = false;
    s->finished = false;
    s->src_eof = false;
    s->err = FZ7_OK;
    s->in_pos = s->in_end = 0;
    *out = s;
    return FZ7_OK;
}

fz7_status fz7_lzma_istream_new(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                uint64_t mem_limit, fz7_istream **out)
{
    lzma_istream *s;
    fz7_status st = lzma_istream_make(src, props, fz7_get32le(props + 1), unpack_size, mem_limit, &s);
    *out = st == FZ7_OK ? &s->base : NULL;
    return st;
}

fz7_status fz7_lzma_decode_whole(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                 uint64_t mem_limit, uint8_t **out)
{
    *out = NULL;
    if (unpack_size == 0 || unpack_size > SIZE_MAX / 2)
        return FZ7_E_ARG;
    /* A window as long as the output never wraps: it is the output. (It
     * lets distances reach over all of it, as a window of the stream's
     * dictionary size would once it filled.) */
    lzma_istream *s;
    fz7_status st = lzma_istream_make(src, props, unpack_size, unpack_size, mem_limit, &s);
    if (st != FZ7_OK)
        return st;
    while (st == FZ7_OK && !s->finished)
        st = decode_more(s, SIZE_MAX);
    fz7_lzma_dec *d = s->dec;
    if (st == FZ7_OK && (d->wrapped || d->pos != unpack_size))
        st = FZ7_E_DATA;
    if (st == FZ7_OK) {
        *out = d->dict;
        d->dict = NULL;
    }
    lzma_destroy(&s->base);
    return st;
}
