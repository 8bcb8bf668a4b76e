/* lzma2_mt.c - multi-threaded LZMA2: the input is cut into blocks of a
 * fixed size, each block is compressed on its own by one of N worker
 * threads, and the blocks' chunks are written in input order followed by
 * one end byte. The first block resets the dictionary; each later one
 * starts from the last 2 MiB of the block before (its match finder has seen
 * it, its first chunk resets state and properties only: xz-file-format.txt
 * 5.3.1 control 0xC0), which wins back most of what the cut costs.
 *
 * The cut depends only on block_size and the size hint (an input of known
 * size ends in quarter blocks, plan_len), so the output is the same for
 * every thread count. Only the caller's thread writes to dst. An input known to
 * fit in one block gets no cut at all: one encoder whose match finder
 * searches on the second thread (lz/lz_mf_mt.h), the same bytes.
 *
 * A worker keeps one encoder and starts it over for each block (no new
 * tables), and a worker with nothing else to do begins on the block still
 * being filled, coding its bytes as they come (the output is the same).
 *
 * The worker threads form a pool that several encoders may share one after
 * the other (fz7_lzma2_pool_new): an encoder whose input has ended
 * (fz7_lzma2_mt_end_input) keeps its last blocks in the pool while the next
 * encoder's blocks queue behind them, so a 7z writer can start its next
 * folder while the last blocks of the one before are still being coded. */
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_enc_impl.h"
#include "lzma/lzma_presets.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>


/* Block slots over the thread count: one fills while every thread codes.
 * Blocks are written in input order, so a slot frees only when the oldest
 * block is done; a second slot over would let a thread that finished a
 * later block start another, but that gain is within the noise and the
 * slot holds one more block and its output (bench/RESULTS.md). */
#define MT_SLOTS_OVER 1u

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct fz7_lzma2_mt;

typedef struct mt_slot {
    struct fz7_lzma2_mt *owner; /* the encoder whose block this is */
    enum slot_state state;
    uint64_t seq;          /* block number, in input order */
    uint8_t *in;           /* prime + block_size bytes: the block starts at in + prime
                            * (NULL once the block is coded: back to the pool) */
    size_t in_cap;         /* bytes allocated at in */
    size_t want;           /* bytes the block is cut at (plan_len) */
    size_t in_len;         /* bytes of the block */
    size_t prefix_len;     /* bytes before the block it starts from (0 or prime) */
    size_t shown;          /* bytes of the block a worker may read (the
                            * pool's lock): it starts on a block still being
                            * filled when it has nothing else to do */
    int complete;          /* shown is the whole block (the pool's lock) */
    fz7_lzma2_coded out;   /* the block's chunks (no end byte); their stored
                            * data stays in `in` until the block is written */
    fz7_status status;
} mt_slot;

/* A buffer kept for reuse (struct fz7_lzma2_pool). At most MT_SPARES_MAX
 * of each kind: the slots of the encoders that overlap (two 7z folders of
 * up to 8 threads each) without more. */
typedef struct spare_buf {
    uint8_t *p;
    size_t cap;
} spare_buf;
#define MT_SPARES_MAX 20u

/* Worker threads and the one lock over every slot of the encoders that use
 * them. The encoders are listed in the order they were made: a worker takes
 * the first queued block of the first encoder that has one. */
struct fz7_lzma2_pool {
    uint32_t threads;      /* workers asked for (1: blocks coded inside write()) */
    pthread_t *workers;
    uint32_t started;      /* workers running */
    int shutdown;
    struct fz7_lzma2_mt *first; /* encoders using the pool, oldest first */
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a slot was queued, or shutdown */
    pthread_cond_t done;   /* a slot finished */
    pthread_cond_t fill;   /* a slot being coded got bytes or its end */
    fz7_lzma_enc *cache;   /* with one thread: the encoder write() codes
                            * blocks with (each worker keeps its own) */
    /* Buffers of earlier blocks, of any encoder on the pool, kept for the
     * next blocks: a block's input is dead once it is coded and its output
     * once it is written out. Memory new to the process costs a page fault
     * and the kernel's zeroing per page: without these, each 7z folder
     * after the first would fault in its slots afresh. */
    spare_buf spare_in[MT_SPARES_MAX], spare_out[MT_SPARES_MAX];
    uint32_t n_spare_in, n_spare_out;
};

struct fz7_lzma2_mt {
    fz7_lzma_enc_opts block_opts; /* opts with the dictionary reduced to a block */
    uint64_t block_size;   /* the longest block; most blocks are this long */
    uint64_t total;        /* the input's expected bytes (opts->size_hint), 0 = unknown */
    uint64_t tail_block;   /* the blocks of the input's last block_size bytes */
    uint64_t next_off;     /* input offset of the next block to fill */
    size_t prime;          /* bytes of the previous block each later block starts from */
    uint8_t *tail;         /* the last `prime` bytes of the latest full block */
    uint32_t threads;
    uint32_t nslots;       /* threads + MT_SLOTS_OVER: one fills while the
                            * threads encode */
    mt_slot *slots;
    mt_slot *filling;      /* the slot taking input, or NULL */
    uint64_t next_seq;     /* number of the next block to fill */
    uint64_t next_emit;    /* number of the next block to write to dst */
    int ended;             /* end_input() ran: no more input */
    fz7_lzma2_pool *pool;
    int own_pool;          /* made by fz7_lzma2_enc_new_mt: freed with it */
    struct fz7_lzma2_mt *next; /* the next encoder using the pool */
};

/* Makes a new encoder start after `prefix` (plen bytes) as if it had
 * coded it: the prefix goes through the match finder (skip, no symbols)
 * so matches may reach into it, the position counts it, and the first
 * chunk resets state and properties but not the dictionary (control 0xC0,
 * xz-file-format.txt 5.3.1): the decoder already holds those bytes. The
 * first bytes of data come along so the prefix's last positions see as
 * far ahead as in a one-thread run; returns how many were taken (they are
 * coded by the next write/finish), or SIZE_MAX if the window is stuck. */
static size_t start_after(struct fz7_lzma_enc *e, const uint8_t *prefix, size_t plen, const uint8_t *data,
                          size_t n)
{
    size_t fed = 0, done = 0; /* bytes of prefix+data appended; prefix positions skipped */
    /* The prefix is skipped, never coded: no store pieces there (the bytes
     * after it that the skip waits with depend on what the block has shown,
     * so a test there would depend on timing). */
    if (e->mf_mt)
        fz7_lz_mf_mt_tests_from(e->mf_mt, plen);
    while (done < plen) {
        size_t got = 0;
        if (fed < plen + n) {
            const uint8_t *src = fed < plen ? prefix + fed : data + (fed - plen);
            got = fz7_lzma_enc_mf_append(e, src, fed < plen ? plen - fed : n - (fed - plen));
            fed += got;
        }
        size_t ready = fed == plen + n ? fed : fed > FZ7_LZMA_MATCH_LEN_MAX ? fed - FZ7_LZMA_MATCH_LEN_MAX : 0;
        if (ready > plen)
            ready = plen;
        if (ready <= done) {
            if (got == 0)
                return SIZE_MAX;
            continue;
        }
        fz7_lzma_enc_mf_skip(e, (uint32_t)(ready - done));
        done = ready;
    }
    e->pos = e->chunk_start = plen;
    e->need_dict_reset = 0;
    e->bytes_in = fed - plen;
    return fed - plen;
}

/* True when an encoder made with options a codes as one made with b:
 * every field but size_hint (which only sizes its huge pages). */
static int same_coding(const fz7_lzma_enc_opts *a, const fz7_lzma_enc_opts *b)
{
    return a->dict_size == b->dict_size && a->lc == b->lc && a->lp == b->lp && a->pb == b->pb
           && a->mode == b->mode && a->nice_len == b->nice_len && a->mf == b->mf && a->depth == b->depth
           && a->end_marker == b->end_marker && a->mf_thread == b->mf_thread;
}

/* The encoder of a block, in *cache: the thread's encoder of the block
 * before, started over (fz7_lzma_enc_reset: the same bytes as a new one,
 * without mapping and faulting in its tables and window again and with no
 * table walk: setup each block would otherwise pay), or, when its options
 * differ or it cannot be reset (a match finder thread), a new one. */
static fz7_status block_encoder(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **cache)
{
    if (*cache && same_coding(&(*cache)->opts, opts) && fz7_lzma_enc_reset(*cache, dst) == FZ7_OK)
        return FZ7_OK;
    fz7_lzma_enc_free(*cache);
    *cache = NULL;
    return fz7_lzma2_enc_new(opts, dst, cache);
}

/* Bytes a worker waits for before it starts on a block still being filled
 * (or the whole block, if shorter): start_after needs more than a longest
 * match after the prefix to record the prefix as a full block would. */
#define MT_STREAM_START ((size_t)64 << 10)

/* Waits until at least `least` bytes of block b are shown or the block is
 * complete; returns the bytes shown, *complete whether that is all. */
static size_t wait_shown(fz7_lzma2_pool *pool, mt_slot *b, size_t least, int *complete)
{
    pthread_mutex_lock(&pool->lock);
    while (!b->complete && b->shown < least)
        pthread_cond_wait(&pool->fill, &pool->lock);
    size_t n = b->shown;
    *complete = b->complete;
    pthread_mutex_unlock(&pool->lock);
    return n;
}

/* The encoder's stored bytes at position pos: input byte in_base + pos. */
static fz7_status coded_ref(fz7_lzma_ref_sink *s, uint64_t pos, size_t n)
{
    fz7_lzma2_coded *c = (fz7_lzma2_coded *)((char *)s - offsetof(fz7_lzma2_coded, sink));
    if (pos > c->in_len || c->in_base > c->in_len - pos || n > c->in_len - c->in_base - pos)
        return FZ7_E_DATA; /* cannot happen: the encoder stores what it was given */
    fz7_lzma2_ref r = {c->bytes.n, c->in_base + (size_t)pos, n};
    c->stored += n;
    return fz7_membuf_write(&c->refs.base, (const uint8_t *)&r, sizeof r);
}

/* Empties c for a stream whose position p is input byte in_base + p, of
 * an input of in_len bytes. */
static void coded_start(fz7_lzma2_coded *c, size_t in_base, size_t in_len)
{
    c->bytes.base.write = fz7_membuf_write;
    c->bytes.n = 0;
    c->refs.base.write = fz7_membuf_write;
    c->refs.n = 0;
    c->stored = 0;
    c->in_base = in_base;
    c->in_len = in_len;
    c->sink.ref = coded_ref;
}

/* Points encoder e's output at c and its match finder at the input in
 * place: in + in_base holds the stream from its first byte (a prefix
 * included), up to in_len. */
static void code_into(fz7_lzma_enc *e, fz7_lzma2_coded *c, const uint8_t *in)
{
    e->ref_dst = &c->sink;
    if (!e->mf_mt && c->in_len - c->in_base <= UINT32_MAX)
        fz7_lz_mf_borrow(&e->mf, in + c->in_base, (uint32_t)(c->in_len - c->in_base));
}

uint64_t fz7_lzma2_coded_size(const fz7_lzma2_coded *c)
{
    return c->bytes.n + c->stored;
}

fz7_status fz7_lzma2_coded_write(const fz7_lzma2_coded *c, const uint8_t *in, fz7_ostream *dst)
{
    const fz7_lzma2_ref *r = (const fz7_lzma2_ref *)(const void *)c->refs.p;
    size_t n_refs = c->refs.n / sizeof *r, at = 0;
    for (size_t i = 0; i <= n_refs; i++) {
        size_t to = i < n_refs ? r[i].out_at : c->bytes.n;
        fz7_status st = to > at ? dst->write(dst, c->bytes.p + at, to - at) : FZ7_OK;
        if (st == FZ7_OK && i < n_refs)
            st = dst->write(dst, in + r[i].in_at, r[i].n);
        if (st != FZ7_OK)
            return st;
        at = to;
    }
    return FZ7_OK;
}

void fz7_lzma2_coded_free(fz7_lzma2_coded *c)
{
    free(c->bytes.p);
    free(c->refs.p);
    memset(c, 0, sizeof *c);
}

/* Compresses one block into its slot as a complete LZMA2 stream, then drops
 * the stream's end byte so that blocks can be joined. A block with a
 * prefix continues the previous block's dictionary (start_after). The
 * block may still be being filled: its bytes are coded as they are shown
 * (the encoder's output does not depend on the pieces it is given). The
 * encoder stays in *cache for the thread's next block (freed after an
 * error). */
static void encode_block(const struct fz7_lzma2_mt *mt, mt_slot *b, fz7_lzma_enc **cache)
{
    coded_start(&b->out, mt->prime - b->prefix_len, b->in_cap);
    const uint8_t *data = b->in + mt->prime;
    int complete = 0;
    size_t n = wait_shown(mt->pool, b, b->want < MT_STREAM_START ? b->want : MT_STREAM_START, &complete);
    size_t done = 0;
    fz7_status st = block_encoder(&mt->block_opts, &b->out.bytes.base, cache);
    fz7_lzma_enc *e = *cache;
    /* The slot holds the prefix and the block in a row: the match finder
     * reads them there instead of copying them into its window. */
    if (st == FZ7_OK)
        code_into(e, &b->out, b->in);
    if (st == FZ7_OK && b->prefix_len) {
        done = start_after(e, data - b->prefix_len, b->prefix_len, data, n);
        if (done == SIZE_MAX)
            st = FZ7_E_DATA; /* cannot happen: the window holds a dictionary */
    }
    while (st == FZ7_OK) {
        if (done < n)
            st = fz7_lzma_enc_write(e, data + done, n - done);
        done = n;
        if (complete || st != FZ7_OK)
            break;
        n = wait_shown(mt->pool, b, done + 1, &complete);
    }
    /* After an error too, the slot is the main thread's until it is full. */
    while (!complete)
        n = wait_shown(mt->pool, b, n + 1, &complete);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(e);
    if (st != FZ7_OK) {
        fz7_lzma_enc_free(e);
        *cache = NULL;
    }
    if (st == FZ7_OK && (b->out.bytes.n == 0 || b->out.bytes.p[b->out.bytes.n - 1] != 0x00))
        st = FZ7_E_DATA; /* cannot happen: finish() ends with 0x00 */
    if (st == FZ7_OK)
        b->out.bytes.n--;
    b->status = st;
}

fz7_status fz7_lzma2_code_block(const fz7_lzma_enc_opts *opts, const uint8_t *in, size_t n, fz7_lzma_enc **enc,
                                fz7_lzma2_coded *out)
{
    coded_start(out, 0, n);
    fz7_status st = block_encoder(opts, &out->bytes.base, enc);
    if (st != FZ7_OK)
        return st;
    code_into(*enc, out, in);
    st = fz7_lzma_enc_write(*enc, in, n);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(*enc);
    if (st != FZ7_OK) {
        fz7_lzma_enc_free(*enc);
        *enc = NULL;
    }
    return st;
}

/* The queued slot with the lowest block number of the oldest encoder that
 * has one, or NULL. Caller holds the pool's lock. */
static mt_slot *next_queued(fz7_lzma2_pool *pool)
{
    for (struct fz7_lzma2_mt *mt = pool->first; mt; mt = mt->next) {
        mt_slot *best = NULL;
        for (uint32_t i = 0; i < mt->nslots; i++) {
            mt_slot *b = &mt->slots[i];
            if (b->state == SLOT_QUEUED && (!best || b->seq < best->seq))
                best = b;
        }
        if (best)
            return best;
    }
    return NULL;
}

/* A kept buffer of at least need bytes and at most twice that (the
 * smallest), or with need 0 the largest; NULL if none. *cap: its size.
 * Caller holds the pool's lock. */
static uint8_t *take_spare(spare_buf *list, uint32_t *n, size_t need, size_t *cap)
{
    uint32_t best = *n;
    for (uint32_t i = 0; i < *n; i++) {
        size_t c = list[i].cap;
        if (need ? c >= need && c / 2 <= need && (best == *n || c < list[best].cap)
                 : best == *n || c > list[best].cap)
            best = i;
    }
    if (best == *n)
        return NULL;
    uint8_t *p = list[best].p;
    *cap = list[best].cap;
    list[best] = list[--*n];
    return p;
}

/* Keeps p (cap bytes; NULL: nothing) for a later block, or frees it when
 * the list is full. Caller holds the pool's lock. */
static void keep_spare(spare_buf *list, uint32_t *n, uint8_t *p, size_t cap)
{
    if (!p)
        return;
    if (*n < MT_SPARES_MAX) {
        list[*n].p = p;
        list[*n].cap = cap;
        ++*n;
    } else {
        free(p);
    }
}

/* Frees the kept buffers larger than twice the largest input buffer an
 * encoder still on the pool asks for (all of them when none is left), so
 * that an idle pool or one now cutting smaller blocks holds no more than
 * its encoders may. Caller holds the pool's lock. */
static void trim_spares(fz7_lzma2_pool *pool)
{
    size_t most = 0;
    for (struct fz7_lzma2_mt *m = pool->first; m; m = m->next)
        if (m->prime + m->block_size > most)
            most = m->prime + (size_t)m->block_size;
    spare_buf *lists[2] = {pool->spare_in, pool->spare_out};
    uint32_t *counts[2] = {&pool->n_spare_in, &pool->n_spare_out};
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < *counts[k];) {
            if (lists[k][i].cap / 2 > most || most == 0) {
                free(lists[k][i].p);
                lists[k][i] = lists[k][--*counts[k]];
            } else {
                i++;
            }
        }
    }
}

/* Gives a slot about to be coded a kept output buffer if it has none.
 * Caller holds the pool's lock. */
static void take_out(fz7_lzma2_pool *pool, mt_slot *b)
{
    if (!b->out.bytes.p) {
        b->out.bytes.p = take_spare(pool->spare_out, &pool->n_spare_out, 0, &b->out.bytes.cap);
        if (!b->out.bytes.p)
            b->out.bytes.cap = 0;
    }
}

/* A worker codes queued blocks with one encoder it keeps (encode_block),
 * and frees it when no encoder uses the pool any more (detach wakes it),
 * so that an idle pool holds no encoder's memory. */
static void *worker_main(void *arg)
{
    fz7_lzma2_pool *pool = arg;
    fz7_lzma_enc *cache = NULL;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        mt_slot *b;
        while (!pool->shutdown && (b = next_queued(pool)) == NULL) {
            if (cache && !pool->first) {
                pthread_mutex_unlock(&pool->lock);
                fz7_lzma_enc_free(cache);
                cache = NULL;
                pthread_mutex_lock(&pool->lock);
                continue;
            }
            pthread_cond_wait(&pool->work, &pool->lock);
        }
        if (pool->shutdown)
            break;
        b->state = SLOT_RUNNING;
        take_out(pool, b);
        pthread_mutex_unlock(&pool->lock);
        encode_block(b->owner, b, &cache);
        pthread_mutex_lock(&pool->lock);
        b->state = SLOT_DONE;
        pthread_cond_broadcast(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    fz7_lzma_enc_free(cache);
    return NULL;
}

static mt_slot *slot_of_seq(struct fz7_lzma2_mt *mt, uint64_t seq)
{
    for (uint32_t i = 0; i < mt->nslots; i++) {
        mt_slot *b = &mt->slots[i];
        if (b->state != SLOT_FREE && b->state != SLOT_FILLING && b->seq == seq)
            return b;
    }
    return NULL;
}

/* Writes finished blocks to dst in order. wait: block until the oldest
 * outstanding block is written (if there is one). Caller holds no lock. */
static fz7_status emit_done(struct fz7_lzma_enc *e, int wait)
{
    struct fz7_lzma2_mt *mt = e->mt;
    fz7_lzma2_pool *pool = mt->pool;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        mt_slot *b = slot_of_seq(mt, mt->next_emit);
        while (b && wait && b->state != SLOT_DONE)
            pthread_cond_wait(&pool->done, &pool->lock);
        int ready = b && b->state == SLOT_DONE;
        pthread_mutex_unlock(&pool->lock);
        if (!ready)
            return FZ7_OK;
        /* Only this thread changes a DONE slot. */
        if (b->status != FZ7_OK)
            return b->status;
        fz7_status st = fz7_lzma2_coded_write(&b->out, b->in, e->dst);
        if (st != FZ7_OK)
            return st;
        e->bytes_out += fz7_lzma2_coded_size(&b->out);
        pthread_mutex_lock(&pool->lock);
        b->state = SLOT_FREE;
        mt->next_emit++;
        if (pool->started > 0) {
            keep_spare(pool->spare_out, &pool->n_spare_out, b->out.bytes.p, b->out.bytes.cap);
            b->out.bytes.p = NULL;
            b->out.bytes.cap = 0;
            keep_spare(pool->spare_in, &pool->n_spare_in, b->in, b->in_cap);
            b->in = NULL;
        }
        pthread_mutex_unlock(&pool->lock);
        wait = 0;
    }
}

/* Ends the filling block: shows its last bytes to the worker that may
 * already code it (or encodes it here with one thread). */
static void submit(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    mt_slot *b = mt->filling;
    mt->filling = NULL;
    mt->next_off += b->in_len;
    if (mt->prime && b->in_len == b->want)
        memcpy(mt->tail, b->in + mt->prime + b->in_len - mt->prime, mt->prime);
    if (mt->pool->started == 0) {
        b->shown = b->in_len;
        b->complete = 1;
        encode_block(mt, b, &mt->pool->cache);
        b->state = SLOT_DONE;
        return;
    }
    pthread_mutex_lock(&mt->pool->lock);
    b->shown = b->in_len;
    b->complete = 1;
    pthread_cond_broadcast(&mt->pool->fill);
    pthread_mutex_unlock(&mt->pool->lock);
}

/* Shows a worker the bytes of the filling block so far (it is queued from
 * the start: a worker with nothing else to do begins on it). */
static void show(struct fz7_lzma2_mt *mt, mt_slot *b)
{
    pthread_mutex_lock(&mt->pool->lock);
    b->shown = b->in_len;
    if (b->state == SLOT_RUNNING)
        pthread_cond_broadcast(&mt->pool->fill);
    pthread_mutex_unlock(&mt->pool->lock);
}

/* Bytes of the block that starts at input offset off. An input of known
 * size ends in blocks of tail_block bytes (its last block_size bytes or a
 * few more), so that the threads run out of work together: with blocks of
 * one size, one thread idles while the other codes a whole last block.
 * The block before those takes what is left over a multiple of
 * block_size. Every cut stays a multiple of 16 (pick_prime). An input
 * longer than its size hint goes on in blocks of block_size. (Two quarter
 * blocks at the start as well, for a second thread to start sooner, cost
 * more in cuts than they won: each cut costs a block its tables' first
 * use and the prefix's match finder pass, about as long as the main
 * thread takes to read a block.) */
static uint64_t plan_len(const struct fz7_lzma2_mt *mt, uint64_t off)
{
    uint64_t b = mt->block_size, t = mt->tail_block;
    if (!t || off >= mt->total || mt->total - off > 2 * b)
        return b;
    uint64_t left = mt->total - off;
    if (left > b) {
        uint64_t k = (left - b) & ~(uint64_t)15;
        return k > t ? k : t;
    }
    /* The last block: no tail of less than half a tail block alone. No
     * block is planned shorter than t (at least the prefix): should the
     * input go on past its hint, the next block's prefix is its end. */
    if (left <= t)
        return t;
    if (left - t < t / 2) {
        uint64_t k = (left + 15) & ~(uint64_t)15;
        return k < b ? k : b;
    }
    return t;
}

/* A free slot to fill, writing out finished blocks until one is free. */
static fz7_status take_slot(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    for (;;) {
        fz7_status st = emit_done(e, 0);
        if (st != FZ7_OK)
            return st;
        mt_slot *b = NULL;
        pthread_mutex_lock(&mt->pool->lock);
        for (uint32_t i = 0; i < mt->nslots && !b; i++)
            if (mt->slots[i].state == SLOT_FREE)
                b = &mt->slots[i];
        if (b) {
            b->state = SLOT_FILLING;
            b->seq = mt->next_seq++;
            b->in_len = 0;
            b->shown = 0;
            b->complete = 0;
            b->want = (size_t)plan_len(mt, mt->next_off);
            b->prefix_len = mt->prime && b->seq > 0 ? mt->prime : 0;
        }
        size_t need = mt->prime + (size_t)mt->block_size;
        if (b && !b->in)
            b->in = take_spare(mt->pool->spare_in, &mt->pool->n_spare_in, need, &b->in_cap);
        pthread_mutex_unlock(&mt->pool->lock);
        if (b) {
            if (!b->in) {
                b->in = malloc(need);
                if (!b->in)
                    return FZ7_E_MEM;
                b->in_cap = need;
            }
            /* Every block before this one was full: tail is its end. */
            if (b->prefix_len)
                memcpy(b->in, mt->tail, b->prefix_len);
            mt->filling = b;
            if (mt->pool->started > 0) {
                pthread_mutex_lock(&mt->pool->lock);
                b->state = SLOT_QUEUED;
                pthread_cond_signal(&mt->pool->work);
                pthread_mutex_unlock(&mt->pool->lock);
            }
            return FZ7_OK;
        }
        st = emit_done(e, 1);
        if (st != FZ7_OK)
            return st;
    }
}

static fz7_status mt_write(struct fz7_lzma_enc *e, const uint8_t *data, size_t n)
{
    struct fz7_lzma2_mt *mt = e->mt;
    if (mt->ended)
        return n ? FZ7_E_ARG : FZ7_OK;
    while (n > 0) {
        if (!mt->filling) {
            fz7_status st = take_slot(e);
            if (st != FZ7_OK)
                return st;
        }
        mt_slot *b = mt->filling;
        size_t k = b->want - b->in_len;
        if (k > n)
            k = n;
        memcpy(b->in + mt->prime + b->in_len, data, k);
        b->in_len += k;
        data += k;
        n -= k;
        e->bytes_in += k;
        if (b->in_len == b->want)
            submit(e);
        else if (mt->pool->started > 0)
            show(mt, b);
    }
    return emit_done(e, 0);
}

/* No more input: the partly filled block goes to the workers, an empty
 * one back to the free slots. */
static void end_input(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    if (mt->ended)
        return;
    mt->ended = 1;
    if (mt->filling && mt->filling->in_len > 0) {
        submit(e);
    } else if (mt->filling) {
        /* An empty block: dropped, unless a worker has begun on it (it
         * then codes it to nothing). */
        pthread_mutex_lock(&mt->pool->lock);
        int running = mt->filling->state == SLOT_RUNNING;
        if (!running) {
            mt->filling->state = SLOT_FREE;
            mt->next_seq--;
        }
        pthread_mutex_unlock(&mt->pool->lock);
        if (running)
            submit(e);
        else
            mt->filling = NULL;
    }
}

fz7_status fz7_lzma2_mt_end_input(fz7_lzma_enc *e)
{
    if (!e || !e->mt)
        return FZ7_E_ARG;
    if (e->finished || e->error)
        return e->error ? e->error : FZ7_E_ARG;
    end_input(e);
    return FZ7_OK;
}

bool fz7_lzma2_mt_blocks_done(fz7_lzma_enc *e)
{
    if (!e || !e->mt)
        return true;
    struct fz7_lzma2_mt *mt = e->mt;
    bool done = true;
    pthread_mutex_lock(&mt->pool->lock);
    for (uint32_t i = 0; i < mt->nslots; i++)
        if (mt->slots[i].state == SLOT_QUEUED || mt->slots[i].state == SLOT_RUNNING)
            done = false;
    pthread_mutex_unlock(&mt->pool->lock);
    return done;
}

static fz7_status mt_finish(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    end_input(e);
    while (mt->next_emit < mt->next_seq) {
        fz7_status st = emit_done(e, 1);
        if (st != FZ7_OK)
            return st;
    }
    uint8_t end = 0x00;
    fz7_status st = e->dst->write(e->dst, &end, 1);
    if (st == FZ7_OK)
        e->bytes_out++;
    return st;
}

fz7_status fz7_lzma2_pool_new(uint32_t threads, fz7_lzma2_pool **out)
{
    if (!out)
        return FZ7_E_ARG;
    *out = NULL;
    if (threads == 0 || threads > FZ7_LZMA2_MT_THREADS_MAX)
        return FZ7_E_ARG;
    fz7_lzma2_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return FZ7_E_MEM;
    pool->threads = threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work, NULL);
    pthread_cond_init(&pool->done, NULL);
    pthread_cond_init(&pool->fill, NULL);
    pool->workers = calloc(threads, sizeof(pthread_t));
    if (!pool->workers) {
        fz7_lzma2_pool_free(pool);
        return FZ7_E_MEM;
    }
    /* One thread: blocks are encoded inside write(), no worker needed. */
    if (threads > 1) {
        for (; pool->started < threads; pool->started++) {
            if (pthread_create(&pool->workers[pool->started], NULL, worker_main, pool) != 0) {
                fz7_lzma2_pool_free(pool);
                return FZ7_E_MEM;
            }
        }
    }
    *out = pool;
    return FZ7_OK;
}

uint32_t fz7_lzma2_pool_threads(const fz7_lzma2_pool *pool)
{
    return pool ? pool->threads : 0;
}

void fz7_lzma2_pool_free(fz7_lzma2_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i < pool->started; i++)
        pthread_join(pool->workers[i], NULL);
    pthread_cond_destroy(&pool->work);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->fill);
    pthread_mutex_destroy(&pool->lock);
    fz7_lzma_enc_free(pool->cache);
    for (uint32_t i = 0; i < pool->n_spare_in; i++)
        free(pool->spare_in[i].p);
    for (uint32_t i = 0; i < pool->n_spare_out; i++)
        free(pool->spare_out[i].p);
    free(pool->workers);
    free(pool);
}

/* Takes the encoder out of its pool: its queued blocks are dropped, its
 * running ones finish first (their slots are freed after). */
static void detach(struct fz7_lzma2_mt *mt)
{
    fz7_lzma2_pool *pool = mt->pool;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        int running = 0;
        for (uint32_t i = 0; i < mt->nslots; i++) {
            if (mt->slots[i].state == SLOT_QUEUED)
                mt->slots[i].state = SLOT_FREE;
            running |= mt->slots[i].state == SLOT_RUNNING;
            /* A block still being filled ends where it is. */
            if (mt->slots[i].state == SLOT_RUNNING && !mt->slots[i].complete) {
                mt->slots[i].complete = 1;
                pthread_cond_broadcast(&pool->fill);
            }
        }
        if (!running)
            break;
        pthread_cond_wait(&pool->done, &pool->lock);
    }
    struct fz7_lzma2_mt **p = &pool->first;
    while (*p && *p != mt)
        p = &(*p)->next;
    if (*p)
        *p = mt->next;
    for (uint32_t i = 0; i < mt->nslots; i++) {
        mt_slot *b = &mt->slots[i];
        keep_spare(pool->spare_in, &pool->n_spare_in, b->in, b->in_cap);
        keep_spare(pool->spare_out, &pool->n_spare_out, b->out.bytes.p, b->out.bytes.cap);
        b->in = NULL;
        b->out.bytes.p = NULL;
        b->out.bytes.cap = 0;
    }
    trim_spares(pool);
    /* The last encoder left: the workers free their encoders. */
    if (!pool->first)
        pthread_cond_broadcast(&pool->work);
    fz7_lzma_enc *cache = pool->first ? NULL : pool->cache;
    if (cache)
        pool->cache = NULL;
    pthread_mutex_unlock(&pool->lock);
    fz7_lzma_enc_free(cache);
}

static void mt_free(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    if (!mt)
        return;
    if (mt->pool && mt->slots)
        detach(mt);
    if (mt->own_pool)
        fz7_lzma2_pool_free(mt->pool);
    for (uint32_t i = 0; mt->slots && i < mt->nslots; i++) {
        free(mt->slots[i].in);
        fz7_lzma2_coded_free(&mt->slots[i].out);
    }
    free(mt->slots);
    free(mt->tail);
    free(mt);
}

/* What fz7_lzma_enc_write, _finish and _free do with a handle of ours. */
static const fz7_lzma_driver mt_driver = {mt_write, mt_finish, mt_free};

/* Block size in bytes for a requested one (0 = automatic). */
static uint64_t pick_block_size(const fz7_lzma_enc_opts *opts, uint64_t block_size)
{
    return block_size ? block_size : fz7_lzma2_block_floor(opts->dict_size);
}

/* Each block's last bytes are cut into blocks of block_size / MT_TAIL_DIV. */
#define MT_TAIL_DIV 4u

/* The blocks the input's last bytes are cut into: a quarter block, at
 * least the prefix (a block's prefix then comes from the block before). */
static uint64_t pick_tail_block(uint64_t block_size, size_t prime)
{
    uint64_t t = (block_size / MT_TAIL_DIV) & ~(uint64_t)15;
    if (t < prime)
        t = prime;
    return t;
}

/* True when the input is known to fit in one block: one stream, whatever
 * the threads (the tail plan would cut it, and a cut loses the matches
 * beyond its prefix, so the bytes would depend on the thread count). */
static int one_block(const fz7_lzma_enc_opts *opts, uint64_t block_size)
{
    return opts->size_hint > 0 && opts->size_hint <= block_size;
}

/* The options of the one-stream encoder one_block() picks: a block's
 * (the same dictionary), the caller's size hint, a match finder thread
 * when there is a second thread (the same bytes either way). */
static fz7_lzma_enc_opts one_block_options(const fz7_lzma_enc_opts *opts, uint64_t block_size, uint32_t threads)
{
    fz7_lzma_enc_opts o = fz7_lzma2_block_opts(opts, block_size);
    o.size_hint = opts->size_hint;
    o.mf_thread = threads >= 2;
    return o;
}

uint64_t fz7_lzma2_mt_memusage(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size)
{
    if (fz7_lzma_enc_check(opts) != FZ7_OK || threads == 0 || threads > FZ7_LZMA2_MT_THREADS_MAX)
        return 0;
    block_size = pick_block_size(opts, block_size);
    if (block_size < FZ7_LZMA2_MT_BLOCK_MIN || block_size > FZ7_LZMA2_MT_BLOCK_MAX)
        return 0;
    if (one_block(opts, block_size)) {
        fz7_lzma_enc_opts o = one_block_options(opts, block_size, threads);
        return fz7_lzma_enc_memusage(&o);
    }
    fz7_lzma_enc_opts o = fz7_lzma2_block_opts(opts, block_size);
    uint64_t prime = fz7_lzma2_block_prefix(&o, block_size);
    /* Per thread an encoder; per slot the prefix, the input block and its
     * output (about the block's size at worst: stored chunks add 3 bytes
     * per 64 KiB, the buffer doubles past it); one tail. */
    return (uint64_t)threads * fz7_lzma_enc_memusage(&o)
           + (uint64_t)(threads + MT_SLOTS_OVER) * (prime + block_size * 3)
           + prime;
}

/* The multi-threaded encoder on a pool (owned: freed with the encoder). */
static fz7_status new_on_pool(const fz7_lzma_enc_opts *opts, fz7_lzma2_pool *pool, int own_pool,
                              uint64_t block_size, fz7_ostream *dst, fz7_lzma_enc **out)
{
    struct fz7_lzma_enc *e = calloc(1, sizeof(*e));
    struct fz7_lzma2_mt *mt = calloc(1, sizeof(*mt));
    if (!e || !mt) {
        free(e);
        free(mt);
        if (own_pool)
            fz7_lzma2_pool_free(pool);
        return FZ7_E_MEM;
    }
    e->mt = mt;
    e->driver = &mt_driver;
    e->frame = &fz7_lzma2_frame;
    e->dst = dst;
    mt->pool = pool;
    mt->own_pool = own_pool;
    mt->block_opts = fz7_lzma2_block_opts(opts, block_size);
    e->opts = mt->block_opts;
    mt->block_size = block_size;
    mt->prime = fz7_lzma2_block_prefix(&mt->block_opts, block_size);
    mt->total = opts->size_hint;
    mt->tail_block = pick_tail_block(block_size, mt->prime);
    mt->threads = pool->threads;
    mt->nslots = pool->threads == 1 ? 1 : pool->threads + MT_SLOTS_OVER;
    mt->slots = calloc(mt->nslots, sizeof(mt_slot));
    mt->tail = mt->prime ? malloc(mt->prime) : NULL;
    if (!mt->slots || (mt->prime && !mt->tail)) {
        fz7_lzma_enc_free(e);
        return FZ7_E_MEM;
    }
    for (uint32_t i = 0; i < mt->nslots; i++)
        mt->slots[i].owner = mt;
    /* Last in the pool's list: its blocks come after those already there. */
    pthread_mutex_lock(&pool->lock);
    struct fz7_lzma2_mt **p = &pool->first;
    while (*p)
        p = &(*p)->next;
    *p = mt;
    pthread_mutex_unlock(&pool->lock);
    *out = e;
    return FZ7_OK;
}

/* Checks the arguments shared by both constructors; picks the block size. */
static fz7_status check_mt_args(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t *block_size,
                                fz7_ostream *dst, fz7_lzma_enc **out)
{
    if (!out)
        return FZ7_E_ARG;
    *out = NULL;
    if (!dst || fz7_lzma_enc_check(opts) != FZ7_OK || opts->lc + opts->lp > FZ7_LZMA2_LCLP_MAX || threads == 0
        || threads > FZ7_LZMA2_MT_THREADS_MAX)
        return FZ7_E_ARG;
    *block_size = pick_block_size(opts, *block_size);
    if (*block_size < FZ7_LZMA2_MT_BLOCK_MIN || *block_size > FZ7_LZMA2_MT_BLOCK_MAX || *block_size > SIZE_MAX / 2)
        return FZ7_E_ARG;
    return FZ7_OK;
}

fz7_status fz7_lzma2_enc_new_mt(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size,
                                fz7_ostream *dst, fz7_lzma_enc **out)
{
    fz7_status st = check_mt_args(opts, threads, &block_size, dst, out);
    if (st != FZ7_OK)
        return st;
    if (one_block(opts, block_size)) {
        fz7_lzma_enc_opts o = one_block_options(opts, block_size, threads);
        return fz7_lzma2_enc_new(&o, dst, out);
    }
    fz7_lzma2_pool *pool = NULL;
    if ((st = fz7_lzma2_pool_new(threads, &pool)) != FZ7_OK)
        return st;
    return new_on_pool(opts, pool, 1, block_size, dst, out);
}

fz7_status fz7_lzma2_enc_new_pooled(const fz7_lzma_enc_opts *opts, fz7_lzma2_pool *pool, uint64_t block_size,
                                    fz7_ostream *dst, fz7_lzma_enc **out)
{
    if (!pool)
        return out ? (*out = NULL, FZ7_E_ARG) : FZ7_E_ARG;
    fz7_status st = check_mt_args(opts, pool->threads, &block_size, dst, out);
    if (st != FZ7_OK)
        return st;
    if (one_block(opts, block_size)) {
        fz7_lzma_enc_opts o = one_block_options(opts, block_size, pool->threads);
        return fz7_lzma2_enc_new(&o, dst, out);
    }
    return new_on_pool(opts, pool, 0, block_size, dst, out);
}
