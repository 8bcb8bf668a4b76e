/* lzma2_enc.c - multi-threaded LZMA2: the input is cut into blocks of a
 * fixed size, each block is compressed on its own (its first chunk resets
 * the dictionary, xz-file-format.txt 5.3.1) by one of N worker threads, and
 * the blocks' chunks are written in input order followed by one end byte.
 *
 * The cut depends only on block_size, so the output is the same for every
 * thread count. Only the caller's thread writes to dst. */
#include "lzma/lzma_enc_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

typedef struct mt_slot {
    enum slot_state state;
    uint64_t seq;          /* block number, in input order */
    uint8_t *in;           /* block_size bytes */
    size_t in_len;
    uint8_t *out;          /* the block's chunks (no end byte) */
    size_t out_len, out_cap;
    fz7_status status;
} mt_slot;

struct fz7_lzma2_mt {
    fz7_lzma_enc_opts block_opts; /* opts with the dictionary reduced to a block */
    uint64_t block_size;
    uint32_t threads;
    uint32_t nslots;       /* threads + 1: one fills while the others encode */
    mt_slot *slots;
    mt_slot *filling;      /* the slot taking input, or NULL */
    uint64_t next_seq;     /* number of the next block to fill */
    uint64_t next_emit;    /* number of the next block to write to dst */
    pthread_t *workers;
    uint32_t started;      /* workers running */
    int shutdown;
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a slot was queued, or shutdown */
    pthread_cond_t done;   /* a slot finished */
};

/* Output sink of one block: the slot's growing buffer. */
typedef struct slot_sink {
    fz7_ostream base;
    mt_slot *slot;
} slot_sink;

static fz7_status slot_write(fz7_ostream *s, const uint8_t *buf, size_t n)
{
    mt_slot *b = ((slot_sink *)s)->slot;
    if (b->out_len + n > b->out_cap) {
        size_t cap = b->out_cap ? b->out_cap : 65536;
        while (cap < b->out_len + n)
            cap *= 2;
        uint8_t *p = realloc(b->out, cap);
        if (!p)
            return FZ7_E_MEM;
        b->out = p;
        b->out_cap = cap;
    }
    memcpy(b->out + b->out_len, buf, n);
    b->out_len += n;
    return FZ7_OK;
}

/* Compresses one block into its slot as a complete LZMA2 stream, then drops
 * the stream's end byte so that blocks can be joined. */
static void encode_block(const struct fz7_lzma2_mt *mt, mt_slot *b)
{
    slot_sink sink = {{slot_write}, b};
    fz7_lzma_enc *e = NULL;
    b->out_len = 0;
    fz7_status st = fz7_lzma2_enc_new(&mt->block_opts, &sink.base, &e);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_write(e, b->in, b->in_len);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(e);
    fz7_lzma_enc_free(e);
    if (st == FZ7_OK && (b->out_len == 0 || b->out[b->out_len - 1] != 0x00))
        st = FZ7_E_DATA; /* cannot happen: finish() ends with 0x00 */
    if (st == FZ7_OK)
        b->out_len--;
    b->status = st;
}

/* The queued slot with the lowest block number, or NULL. */
static mt_slot *next_queued(struct fz7_lzma2_mt *mt)
{
    mt_slot *best = NULL;
    for (uint32_t i = 0; i < mt->nslots; i++) {
        mt_slot *b = &mt->slots[i];
        if (b->state == SLOT_QUEUED && (!best || b->seq < best->seq))
            best = b;
    }
    return best;
}

static void *worker_main(void *arg)
{
    struct fz7_lzma2_mt *mt = arg;
    pthread_mutex_lock(&mt->lock);
    for (;;) {
        mt_slot *b;
        while (!mt->shutdown && (b = next_queued(mt)) == NULL)
            pthread_cond_wait(&mt->work, &mt->lock);
        if (mt->shutdown)
            break;
        b->state = SLOT_RUNNING;
        pthread_mutex_unlock(&mt->lock);
        encode_block(mt, b);
        pthread_mutex_lock(&mt->lock);
        b->state = SLOT_DONE;
        pthread_cond_broadcast(&mt->done);
    }
    pthread_mutex_unlock(&mt->lock);
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
    for (;;) {
        pthread_mutex_lock(&mt->lock);
        mt_slot *b = slot_of_seq(mt, mt->next_emit);
        while (b && wait && b->state != SLOT_DONE)
            pthread_cond_wait(&mt->done, &mt->lock);
        int ready = b && b->state == SLOT_DONE;
        pthread_mutex_unlock(&mt->lock);
        if (!ready)
            return FZ7_OK;
        /* Only this thread changes a DONE slot. */
        if (b->status != FZ7_OK)
            return b->status;
        if (b->out_len) {
            fz7_status st = e->dst->write(e->dst, b->out, b->out_len);
            if (st != FZ7_OK)
                return st;
            e->bytes_out += b->out_len;
        }
        pthread_mutex_lock(&mt->lock);
        b->state = SLOT_FREE;
        mt->next_emit++;
        pthread_mutex_unlock(&mt->lock);
        wait = 0;
    }
}

/* Hands the filled slot to a worker (or encodes it here with one thread). */
static void submit(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    mt_slot *b = mt->filling;
    mt->filling = NULL;
    if (mt->started == 0) {
        encode_block(mt, b);
        b->state = SLOT_DONE;
        return;
    }
    pthread_mutex_lock(&mt->lock);
    b->state = SLOT_QUEUED;
    pthread_cond_signal(&mt->work);
    pthread_mutex_unlock(&mt->lock);
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
        pthread_mutex_lock(&mt->lock);
        for (uint32_t i = 0; i < mt->nslots && !b; i++)
            if (mt->slots[i].state == SLOT_FREE)
                b = &mt->slots[i];
        if (b) {
            b->state = SLOT_FILLING;
            b->seq = mt->next_seq++;
            b->in_len = 0;
        }
        pthread_mutex_unlock(&mt->lock);
        if (b) {
            if (!b->in) {
                b->in = malloc(mt->block_size);
                if (!b->in)
                    return FZ7_E_MEM;
            }
            mt->filling = b;
            return FZ7_OK;
        }
        st = emit_done(e, 1);
        if (st != FZ7_OK)
            return st;
    }
}

fz7_status fz7_lzma2_mt_write(struct fz7_lzma_enc *e, const uint8_t *data, size_t n)
{
    struct fz7_lzma2_mt *mt = e->mt;
    while (n > 0) {
        if (!mt->filling) {
            fz7_status st = take_slot(e);
            if (st != FZ7_OK)
                return st;
        }
        mt_slot *b = mt->filling;
        size_t k = mt->block_size - b->in_len;
        if (k > n)
            k = n;
        memcpy(b->in + b->in_len, data, k);
        b->in_len += k;
        data += k;
        n -= k;
        e->bytes_in += k;
        if (b->in_len == mt->block_size)
            submit(e);
    }
    return emit_done(e, 0);
}

fz7_status fz7_lzma2_mt_finish(struct fz7_lzma_enc *e)
{
    struct fz7_lzma2_mt *mt = e->mt;
    if (mt->filling && mt->filling->in_len > 0)
        submit(e);
    while (mt->next_emit < mt->next_seq - (mt->filling ? 1 : 0)) {
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

void fz7_lzma2_mt_free(struct fz7_lzma2_mt *mt)
{
    if (!mt)
        return;
    pthread_mutex_lock(&mt->lock);
    mt->shutdown = 1;
    pthread_cond_broadcast(&mt->work);
    pthread_mutex_unlock(&mt->lock);
    for (uint32_t i = 0; i < mt->started; i++)
        pthread_join(mt->workers[i], NULL);
    pthread_cond_destroy(&mt->work);
    pthread_cond_destroy(&mt->done);
    pthread_mutex_destroy(&mt->lock);
    for (uint32_t i = 0; i < mt->nslots; i++) {
        free(mt->slots[i].in);
        free(mt->slots[i].out);
    }
    free(mt->slots);
    free(mt->workers);
    free(mt);
}

/* Block size in bytes for a requested one (0 = automatic). */
static uint64_t pick_block_size(const fz7_lzma_enc_opts *opts, uint64_t block_size)
{
    if (block_size == 0) {
        block_size = (uint64_t)opts->dict_size * 3;
        if (block_size < FZ7_LZMA2_MT_BLOCK_MIN)
            block_size = FZ7_LZMA2_MT_BLOCK_MIN;
    }
    return block_size;
}

/* The options every block is encoded with. */
static fz7_lzma_enc_opts block_options(const fz7_lzma_enc_opts *opts, uint64_t block_size)
{
    fz7_lzma_enc_opts o = *opts;
    fz7_lzma_enc_reduce_dict(&o, block_size);
    return o;
}

uint64_t fz7_lzma2_mt_memusage(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size)
{
    if (fz7_lzma_enc_check(opts) != FZ7_OK || threads == 0 || threads > FZ7_LZMA2_MT_THREADS_MAX)
        return 0;
    block_size = pick_block_size(opts, block_size);
    if (block_size < FZ7_LZMA2_MT_BLOCK_MIN || block_size > FZ7_LZMA2_MT_BLOCK_MAX)
        return 0;
    fz7_lzma_enc_opts o = block_options(opts, block_size);
    /* Per thread an encoder; per slot the input block and its output
     * (about the block's size at worst: stored chunks add 3 bytes per
     * 64 KiB, the buffer doubles past it). */
    return (uint64_t)threads * fz7_lzma_enc_memusage(&o) + (uint64_t)(threads + 1) * block_size * 3;
}

fz7_status fz7_lzma2_enc_new_mt(const fz7_lzma_enc_opts *opts, uint32_t threads, uint64_t block_size,
                                fz7_ostream *dst, fz7_lzma_enc **out)
{
    if (!out)
        return FZ7_E_ARG;
    *out = NULL;
    if (!dst || fz7_lzma_enc_check(opts) != FZ7_OK || opts->lc + opts->lp > FZ7_LZMA2_LCLP_MAX || threads == 0
        || threads > FZ7_LZMA2_MT_THREADS_MAX)
        return FZ7_E_ARG;
    block_size = pick_block_size(opts, block_size);
    if (block_size < FZ7_LZMA2_MT_BLOCK_MIN || block_size > FZ7_LZMA2_MT_BLOCK_MAX || block_size > SIZE_MAX / 2)
        return FZ7_E_ARG;
    struct fz7_lzma_enc *e = calloc(1, sizeof(*e));
    struct fz7_lzma2_mt *mt = calloc(1, sizeof(*mt));
    if (!e || !mt) {
        free(e);
        free(mt);
        return FZ7_E_MEM;
    }
    e->mt = mt;
    e->lzma2 = 1;
    e->dst = dst;
    mt->block_opts = block_options(opts, block_size);
    e->opts = mt->block_opts;
    mt->block_size = block_size;
    mt->threads = threads;
    mt->nslots = threads == 1 ? 1 : threads + 1;
    pthread_mutex_init(&mt->lock, NULL);
    pthread_cond_init(&mt->work, NULL);
    pthread_cond_init(&mt->done, NULL);
    mt->slots = calloc(mt->nslots, sizeof(mt_slot));
    mt->workers = calloc(threads, sizeof(pthread_t));
    if (!mt->slots || !mt->workers) {
        fz7_lzma_enc_free(e);
        return FZ7_E_MEM;
    }
    /* One thread: blocks are encoded inside write(), no worker needed. */
    if (threads > 1) {
        for (; mt->started < threads; mt->started++) {
            if (pthread_create(&mt->workers[mt->started], NULL, worker_main, mt) != 0) {
                fz7_lzma_enc_free(e);
                return FZ7_E_MEM;
            }
        }
    }
    *out = e;
    return FZ7_OK;
}
