/* lz_mf_mt.c - the match finder on its own thread (lz_mf_mt.h).
 *
 * The searcher owns the hash tables and a copy of the coder's fz7_lz_mf
 * (same window and tables, its own pos). It searches every position in
 * order and writes one record per position into a ring of 32-bit words:
 * the match count, then len and dist of each match. Consecutive positions
 * whose one match is nice_len bytes at the same distance (a run of one
 * byte value, lz_mf.c's bt_run, at distance 1; repeating data,
 * fz7_lz_mf_repeat) share one record: RUN_FLAG | their count, then the
 * distance, so a gigabyte of zeros is a few hundred thousand words, not
 * three per byte.
 * The coder reads the records in the same order (skip drops them). Window moves and the
 * renumbering of stored positions happen on the coder's side while the
 * searcher is paused, between two positions. */
#include "lz/lz_mf_mt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 2 MiB of results: tens of thousands of positions at -mx5 (a record is
 * about 10 words there), several times AHEAD even where every position
 * has many matches; when it is full the searcher waits. */
#define RING_WORDS ((uint64_t)1 << 19)
#define RING_MASK (RING_WORDS - 1)
/* The longest record: the count and FZ7_LZ_MATCHES_MAX pairs. */
#define RECORD_WORDS_MAX (1 + 2 * (uint64_t)FZ7_LZ_MATCHES_MAX)
/* Records the searcher writes between two looks at the lock (to wake a
 * coder that went to sleep; it publishes every record as it goes). */
#define BATCH 64u
/* A record's first word with this bit: that many positions, each with the
 * one match nice_len bytes at the distance in the record's second word (a
 * match count is at most FZ7_LZ_MATCHES_MAX). */
#define RUN_FLAG 0x80000000u
/* A record's first word with this bit: a pass of that many positions, no
 * matches at any (the piece test took them). */
#define PASS_FLAG 0x40000000u
_Static_assert(FZ7_LZ_MATCHES_MAX < PASS_FLAG, "a match count never looks like a run or a pass");
/* A coder that caught up with the searcher sleeps until the searcher is
 * this many positions ahead (or stops): the coder is the faster side, and
 * waking it for every record would keep it spinning or cost a wake-up
 * per record; on a loaded machine each wake-up may wait for a time slice,
 * so few of them: the futex calls then cost little beside the searching
 * between them. */
#define AHEAD 4096u
/* Ring words the coder reads between two notes to the searcher. */
#define FREE_STEP 4096u
/* Looks at the ring before the coder sleeps: these few looks take much
 * less than the search of one record, so they ride out only the short
 * gaps. */
#define SPINS 50

struct fz7_lz_mf_mt {
    fz7_lz_mf *view;       /* the coder's: window, pos (next result to read), end */
    fz7_lz_mf finder;      /* the searcher's copy: same window and tables */
    uint32_t *ring;
    fz7_lz_piece_test test;
    uint32_t piece, retest;
    uint64_t next_test;    /* the searcher's: no test before this position */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake_searcher, wake_coder;

    /* Under lock; set by the coder (which may read them without it). */
    uint64_t end;          /* stream bytes appended */
    uint64_t base;         /* stream position of buf[0]: changes while paused */
    uint64_t want;         /* positions the coder waits for: searched whatever follows */
    uint64_t wake_at;      /* the sleeping coder wants this many positions searched */
    int finished, quit, pause, coder_waiting;
    /* Under lock; set by the searcher. */
    uint64_t searched;     /* positions searched, as of the last batch */
    int paused, searcher_waiting;

    /* The searcher publishes each record; the coder every FREE_STEP words
     * and before it sleeps. Own cache lines: each side writes one. */
    _Alignas(64) _Atomic uint64_t written;  /* ring words published */
    _Alignas(64) _Atomic uint64_t freed;    /* ring words the coder is done with */
    _Alignas(64) atomic_int leave;          /* pause or quit: the searcher stops its batch */

    /* The coder's own. */
    _Alignas(64) uint64_t read;   /* next ring word to read */
    uint64_t seen;         /* written, as last loaded */
    uint64_t freed_pub;    /* freed, as last stored */
    uint64_t told;         /* freed when the searcher was last woken */
    uint64_t pos;          /* stream position of view->pos */
    uint32_t run;          /* positions of the last run record not yet read */
    uint32_t run_dist;     /* their match's distance */
    uint64_t pass_start, pass_end;  /* the last pass record read: its positions */

    /* Either thread's, when it would wait (populate_tables). */
    _Alignas(64) atomic_int populate;  /* 1 until MADV_POPULATE_WRITE fails */
    atomic_int heads_claimed;          /* a thread took the hash heads */
    _Atomic uint64_t son_done;         /* son bytes from the start claimed */
    uint8_t *heads, *son;              /* the tables (fixed from the start) */
    uint64_t heads_bytes, son_bytes, son_per;
};

uint64_t fz7_lz_mf_mt_memusage(void)
{
    return RING_WORDS * sizeof(uint32_t) + sizeof(fz7_lz_mf_mt);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#endif
}

/* One past the last position the searcher may search now: those with
 * nice_len bytes after them (their result cannot change as input
 * arrives), all of them once the input is finished, and those the coder
 * waits for (no input arrives while it waits). Caller holds the lock. */
static uint64_t searchable(const fz7_lz_mf_mt *mt)
{
    uint64_t nice = mt->finder.nice_len;
    uint64_t limit = mt->finished ? mt->end : mt->end >= nice ? mt->end - nice + 1 : 0;
    uint64_t want = mt->want < mt->end ? mt->want : mt->end;
    return limit > want ? limit : want;
}

/* A piece test is due at pos: the searcher makes it before searching pos. */
static inline int test_due(const fz7_lz_mf_mt *mt, uint64_t pos)
{
    return mt->test && pos >= mt->next_test && !mt->finder.pending && mt->finder.run_left == 0;
}

/* A due test at pos may run with the input up to end: a whole piece
 * follows, and after it the longest match a recorded position of the
 * piece compares (its anchors' tree walks and probes read that far), or
 * no more input can come before the coder reads pos (it is finished, or
 * the coder waits for pos: then it appends nothing until it has the
 * test's record), so the test sees the same bytes whatever the timing. */
static inline int test_may_run(const fz7_lz_mf_mt *mt, uint64_t pos, uint64_t end, int finished, uint64_t want)
{
    return end - pos >= (uint64_t)mt->piece + FZ7_LZ_MATCHES_MAX || finished || want > pos;
}

/* Makes the piece test due at pos (test_due, test_may_run); returns the
 * positions of the pass it wrote to the ring at *w, or 0. */
static uint32_t piece_test(fz7_lz_mf_mt *mt, uint64_t pos, uint64_t *w)
{
    fz7_lz_mf *f = &mt->finder;
    uint32_t n = f->end - f->pos < mt->piece ? f->end - f->pos : mt->piece;
    uint32_t m = mt->test(f, n);
    mt->next_test = pos + (m > 0 ? m : mt->retest);
    if (m > 0)
        mt->ring[(*w)++ & RING_MASK] = PASS_FLAG | m;
    return m;
}

/* First-touch page faults (the kernel zeroing the tables' pages: 8 bytes
 * of son per position with bt) are taken by whichever thread would
 * otherwise wait: the coder while the searcher is the slow one, the
 * searcher while the coder's appends are (stored pieces). Before it
 * sleeps, a thread has the kernel map, writable and zeroed, the hash
 * heads (once; they are hit at random, so any input that fills them
 * touches the whole table) and the son pages of the positions appended so
 * far, in 2 MiB steps (pages the searcher is about to touch anyway, so
 * the peak memory does not grow). No data changes hands: the kernel keeps
 * the contents of pages already present. */
#define POPULATE_STEP ((uint64_t)2 << 20)

static void populate(fz7_lz_mf_mt *mt, uint8_t *p, uint64_t from, uint64_t to)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t a = ((uintptr_t)p + from + 4095) & ~(uintptr_t)4095;
    uintptr_t b = ((uintptr_t)p + to) & ~(uintptr_t)4095;
    if (b > a && madvise((void *)a, b - a, MADV_POPULATE_WRITE) != 0)
        atomic_store_explicit(&mt->populate, 0, memory_order_relaxed);
#else
    (void)p, (void)from, (void)to;
    atomic_store_explicit(&mt->populate, 0, memory_order_relaxed);
#endif
}

/* Son bytes of the positions up to stream position end, rounded up to a
 * step: the searcher comes right behind the appends when it passes over
 * stored pieces. */
static uint64_t son_wanted(const fz7_lz_mf_mt *mt, uint64_t end)
{
    uint64_t to = (end * mt->son_per + POPULATE_STEP - 1) / POPULATE_STEP * POPULATE_STEP;
    return to < mt->son_bytes ? to : mt->son_bytes;
}

/* 1 when populate_tables(mt, end) has work. */
static int populate_due(fz7_lz_mf_mt *mt, uint64_t end)
{
    return atomic_load_explicit(&mt->populate, memory_order_relaxed)
           && (!atomic_load_explicit(&mt->heads_claimed, memory_order_relaxed)
               || atomic_load_explicit(&mt->son_done, memory_order_relaxed) < son_wanted(mt, end));
}

/* Called by whichever thread is about to wait: the coder for records, the
 * searcher for input (on stored pieces the coder's appends are what is
 * slow). Each range is claimed by one thread, then mapped unlocked. */
static void populate_tables(fz7_lz_mf_mt *mt, uint64_t end)
{
    if (!atomic_exchange_explicit(&mt->heads_claimed, 1, memory_order_relaxed))
        populate(mt, mt->heads, 0, mt->heads_bytes);
    uint64_t to = son_wanted(mt, end);
    uint64_t done = atomic_load_explicit(&mt->son_done, memory_order_relaxed);
    while (done < to && atomic_load_explicit(&mt->populate, memory_order_relaxed)) {
        uint64_t next = done + POPULATE_STEP < to ? done + POPULATE_STEP : to;
        if (atomic_compare_exchange_weak_explicit(&mt->son_done, &done, next, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            populate(mt, mt->son, done, next);
            done = next;
        }
    }
}

static void *searcher_main(void *arg)
{
    fz7_lz_mf_mt *mt = arg;
    fz7_lz_mf *f = &mt->finder;
    uint32_t *ring = mt->ring;
    fz7_lz_match m[FZ7_LZ_MATCHES_MAX];
    uint64_t w = 0, pos = 0, freed = 0;
    pthread_mutex_lock(&mt->lock);
    for (;;) {
        if (mt->quit)
            break;
        if (mt->pause) {
            mt->paused = 1;
            pthread_cond_signal(&mt->wake_coder);
            while (mt->pause && !mt->quit)
                pthread_cond_wait(&mt->wake_searcher, &mt->lock);
            mt->paused = 0;
            continue;
        }
        uint64_t limit = searchable(mt);
        freed = atomic_load_explicit(&mt->freed, memory_order_acquire);
        if (pos >= limit || w - freed > RING_WORDS - RECORD_WORDS_MAX
            || (test_due(mt, pos) && !test_may_run(mt, pos, mt->end, mt->finished, mt->want))) {
            /* Stuck: the coder gets what there is. */
            if (mt->coder_waiting)
                pthread_cond_signal(&mt->wake_coder);
            uint64_t end = mt->end;
            if (populate_due(mt, end)) {
                pthread_mutex_unlock(&mt->lock);
                populate_tables(mt, end);
                pthread_mutex_lock(&mt->lock);
                continue;
            }
            mt->searcher_waiting = 1;
            pthread_cond_wait(&mt->wake_searcher, &mt->lock);
            mt->searcher_waiting = 0;
            continue;
        }
        f->end = (uint32_t)(mt->end - mt->base);
        /* What a test in this batch may go by (taken with f->end). */
        uint64_t end = mt->end, want = mt->want;
        int finished = mt->finished;
        pthread_mutex_unlock(&mt->lock);
        for (uint32_t records = 0; pos < limit && records < BATCH; records++) {
            if (w - freed > RING_WORDS - RECORD_WORDS_MAX) {
                freed = atomic_load_explicit(&mt->freed, memory_order_acquire);
                if (w - freed > RING_WORDS - RECORD_WORDS_MAX)
                    break;
            }
            if (test_due(mt, pos)) {
                if (!test_may_run(mt, pos, end, finished, want))
                    break;
                uint32_t passed = piece_test(mt, pos, &w);
                if (passed > 0) {
                    pos += passed;
                    atomic_store_explicit(&mt->written, w, memory_order_release);
                    continue;
                }
            }
            uint32_t d, more = 0;
            if (f->repeat_dist != 0) {
                /* Up to the next test (due only at a position's start). */
                uint64_t cap = limit - pos;
                if (mt->test && mt->next_test - pos < cap)
                    cap = mt->next_test - pos;
                more = fz7_lz_mf_repeat(f, cap < UINT32_MAX ? (uint32_t)cap : UINT32_MAX, &d);
            }
            if (more > 0) {
                pos += more;
                ring[w++ & RING_MASK] = RUN_FLAG | more;
                ring[w++ & RING_MASK] = d;
                atomic_store_explicit(&mt->written, w, memory_order_release);
                if (atomic_load_explicit(&mt->leave, memory_order_relaxed))
                    break;
                continue;
            }
            /* No group or run across the next test: the test then comes
             * at next_test itself, whatever input the searcher had when
             * it searched the positions before (groups and runs depend
             * on that). */
            f->record_max = mt->test && mt->next_test - pos < UINT32_MAX ? (uint32_t)(mt->next_test - pos) : UINT32_MAX;
            uint32_t n = fz7_lz_mf_find(f, m);
            pos++;
            if (f->run_left > 0 && limit - pos > 0) {
                /* A run: the positions find has recorded already (all
                 * below limit: each has nice_len bytes of the run after
                 * it) share this record; skip passes them at once. */
                more = limit - pos < f->run_left ? (uint32_t)(limit - pos) : f->run_left;
                fz7_lz_mf_skip(f, more);
                pos += more;
                ring[w++ & RING_MASK] = RUN_FLAG | (1 + more);
                ring[w++ & RING_MASK] = 1;
            } else {
                ring[w++ & RING_MASK] = n;
                for (uint32_t k = 0; k < n; k++) {
                    ring[w++ & RING_MASK] = m[k].len;
                    ring[w++ & RING_MASK] = m[k].dist;
                }
            }
            atomic_store_explicit(&mt->written, w, memory_order_release);
            if (atomic_load_explicit(&mt->leave, memory_order_relaxed))
                break;
        }
        pthread_mutex_lock(&mt->lock);
        mt->searched = pos;
        if (mt->coder_waiting && pos >= mt->wake_at)
            pthread_cond_signal(&mt->wake_coder);
    }
    pthread_mutex_unlock(&mt->lock);
    return NULL;
}

int fz7_lz_mf_mt_start(fz7_lz_mf *view, fz7_lz_piece_test test, uint32_t piece, uint32_t retest,
                       fz7_lz_mf_mt **out)
{
    *out = NULL;
    fz7_lz_mf_mt *mt = calloc(1, sizeof(*mt));
    uint32_t *ring = malloc(RING_WORDS * sizeof(uint32_t));
    if (!mt || !ring) {
        free(mt);
        free(ring);
        return -1;
    }
    mt->view = view;
    mt->finder = *view;
    mt->ring = ring;
    mt->test = test;
    mt->piece = piece;
    mt->retest = retest;
    atomic_init(&mt->populate, 1);
    atomic_init(&mt->heads_claimed, 0);
    atomic_init(&mt->son_done, 0);
    mt->heads = (uint8_t *)view->hash4;
    mt->heads_bytes = ((uint64_t)view->hash4_mask + 1) * sizeof(uint32_t);
    mt->son = (uint8_t *)view->son;
    mt->son_per = (fz7_lz_is_hc(view->kind) ? 1 : 2) * sizeof(uint32_t);
    mt->son_bytes = (uint64_t)view->cyclic_size * mt->son_per;
    atomic_init(&mt->written, 0);
    atomic_init(&mt->freed, 0);
    atomic_init(&mt->leave, 0);
    if (pthread_mutex_init(&mt->lock, NULL) != 0) {
        free(ring);
        free(mt);
        return -1;
    }
    int ok = pthread_cond_init(&mt->wake_searcher, NULL) == 0;
    if (ok && pthread_cond_init(&mt->wake_coder, NULL) != 0) {
        pthread_cond_destroy(&mt->wake_searcher);
        ok = 0;
    }
    if (ok && pthread_create(&mt->thread, NULL, searcher_main, mt) != 0) {
        pthread_cond_destroy(&mt->wake_searcher);
        pthread_cond_destroy(&mt->wake_coder);
        ok = 0;
    }
    if (!ok) {
        pthread_mutex_destroy(&mt->lock);
        free(ring);
        free(mt);
        return -1;
    }
    *out = mt;
    return 0;
}

void fz7_lz_mf_mt_stop(fz7_lz_mf_mt *mt)
{
    if (!mt)
        return;
    pthread_mutex_lock(&mt->lock);
    mt->quit = 1;
    atomic_store_explicit(&mt->leave, 1, memory_order_relaxed);
    pthread_cond_signal(&mt->wake_searcher);
    pthread_mutex_unlock(&mt->lock);
    pthread_join(mt->thread, NULL);
    pthread_cond_destroy(&mt->wake_searcher);
    pthread_cond_destroy(&mt->wake_coder);
    pthread_mutex_destroy(&mt->lock);
    free(mt->ring);
    free(mt);
}

size_t fz7_lz_mf_mt_append(fz7_lz_mf_mt *mt, const uint8_t *data, size_t n)
{
    fz7_lz_mf *v = mt->view;
    /* The same test fz7_lz_mf_append makes before moving the window: the
     * searcher reads it, so it waits between two positions meanwhile. */
    int move = v->end == v->buf_size && v->pos > v->keep_before;
    if (move) {
        pthread_mutex_lock(&mt->lock);
        mt->pause = 1;
        atomic_store_explicit(&mt->leave, 1, memory_order_relaxed);
        pthread_cond_signal(&mt->wake_searcher);
        while (!mt->paused)
            pthread_cond_wait(&mt->wake_coder, &mt->lock);
        pthread_mutex_unlock(&mt->lock);
    }
    uint32_t pos_before = v->pos;
    size_t got = fz7_lz_mf_append(v, data, n);
    pthread_mutex_lock(&mt->lock);
    if (move) {
        /* Stored positions did not change (offset grew by what buffer
         * indices lost) unless the move renumbered them: the searcher
         * takes the new offset either way. */
        uint32_t drop = pos_before - v->pos;
        mt->finder.pos -= drop;
        if (mt->finder.offset + drop != v->offset)
            mt->finder.repeat_len = 0;   /* renumbered: bt_repeat walks again */
        mt->finder.offset = v->offset;
        mt->base += drop;
        mt->pause = 0;
        atomic_store_explicit(&mt->leave, 0, memory_order_relaxed);
    }
    mt->end += got;
    if (move || mt->searcher_waiting)
        pthread_cond_signal(&mt->wake_searcher);
    pthread_mutex_unlock(&mt->lock);
    return got;
}

void fz7_lz_mf_mt_tests_from(fz7_lz_mf_mt *mt, uint64_t pos)
{
    pthread_mutex_lock(&mt->lock);
    mt->next_test = pos;
    pthread_mutex_unlock(&mt->lock);
}

void fz7_lz_mf_mt_finish(fz7_lz_mf_mt *mt)
{
    pthread_mutex_lock(&mt->lock);
    mt->finished = 1;
    pthread_cond_signal(&mt->wake_searcher);
    pthread_mutex_unlock(&mt->lock);
}

/* Tells the searcher how far the coder has read: always in the ring word
 * it may overwrite, under the lock (with a wake-up) now and then. */
static inline void release_words(fz7_lz_mf_mt *mt, int force)
{
    if (!force && mt->read - mt->freed_pub < FREE_STEP)
        return;
    atomic_store_explicit(&mt->freed, mt->read, memory_order_release);
    mt->freed_pub = mt->read;
    if (force || mt->read - mt->told >= RING_WORDS / 4) {
        pthread_mutex_lock(&mt->lock);
        mt->told = mt->read;
        if (mt->searcher_waiting)
            pthread_cond_signal(&mt->wake_searcher);
        pthread_mutex_unlock(&mt->lock);
    }
}

/* Waits until the record of the next position is published; count: the
 * positions the coder is about to read from here. */
static void wait_record(fz7_lz_mf_mt *mt, uint32_t count)
{
    uint64_t upto = mt->pos + count;
    /* Positions the searcher leaves alone until the coder asks: the last
     * ones before the input is finished (this happens only when the
     * caller reads closer to the end than nice_len, e.g. a block's start). */
    int ask = !mt->finished && upto - 1 + mt->finder.nice_len > mt->end;
    if (!ask) {
        for (int i = 0; i < SPINS; i++) {
            cpu_relax();
            mt->seen = atomic_load_explicit(&mt->written, memory_order_acquire);
            if (mt->read < mt->seen)
                return;
        }
    }
    release_words(mt, 1);
    if (populate_due(mt, mt->end))
        populate_tables(mt, mt->end);
    pthread_mutex_lock(&mt->lock);
    /* Also when not asking: a searcher waiting to make a piece test
     * (test_may_run) makes it once the coder waits past it. */
    if (mt->want < upto)
        mt->want = upto;
    if (mt->searcher_waiting)
        pthread_cond_signal(&mt->wake_searcher);
    mt->coder_waiting = 1;
    mt->wake_at = mt->pos + AHEAD;
    for (;;) {
        mt->seen = atomic_load_explicit(&mt->written, memory_order_acquire);
        if (mt->read < mt->seen && (mt->searched >= mt->wake_at || mt->searcher_waiting))
            break;
        pthread_cond_wait(&mt->wake_coder, &mt->lock);
    }
    mt->coder_waiting = 0;
    pthread_mutex_unlock(&mt->lock);
}

/* Makes the next record readable; 0 if there is none to wait for (a read
 * at or past the end, which the encoder never makes: it then gets no
 * matches, as fz7_lz_mf_find would give none, instead of waiting forever). */
static inline int have_record(fz7_lz_mf_mt *mt, uint32_t count)
{
    if (mt->read < mt->seen)
        return 1;
    mt->seen = atomic_load_explicit(&mt->written, memory_order_acquire);
    if (mt->read < mt->seen)
        return 1;
    if (mt->pos >= mt->end)
        return 0;
    wait_record(mt, count);
    return 1;
}

/* Takes the first word of the record at read (published): a run sets
 * mt->run to its positions after the first; returns the match count. */
static inline uint32_t open_record(fz7_lz_mf_mt *mt)
{
    uint32_t w = mt->ring[mt->read++ & RING_MASK];
    if (w & RUN_FLAG) {
        mt->run = (w & ~RUN_FLAG) - 1;
        mt->run_dist = mt->ring[mt->read++ & RING_MASK];
        return RUN_FLAG;
    }
    if (w & PASS_FLAG) {
        mt->pass_start = mt->pos;
        mt->pass_end = mt->pos + (w & ~PASS_FLAG);
        return 0;
    }
    return w;
}

/* Positions of the open pass not yet read. */
static inline uint64_t pass_left(const fz7_lz_mf_mt *mt)
{
    return mt->pass_end > mt->pos ? mt->pass_end - mt->pos : 0;
}

uint32_t fz7_lz_mf_mt_pass_at(fz7_lz_mf_mt *mt, uint32_t behind)
{
    if (pass_left(mt) > 0 || behind > 0)
        return pass_left(mt) > 0 && mt->pos - behind == mt->pass_start ? (uint32_t)(mt->pass_end - mt->pass_start) : 0;
    if (mt->run > 0 || !have_record(mt, 1))
        return 0;
    uint32_t w = mt->ring[mt->read & RING_MASK];
    return (w & PASS_FLAG) && !(w & RUN_FLAG) ? w & ~PASS_FLAG : 0;
}

uint32_t fz7_lz_mf_mt_find(fz7_lz_mf_mt *mt, fz7_lz_match *matches)
{
    uint32_t n = 0;
    if (mt->run > 0) {
        mt->run--;
        n = RUN_FLAG;
    } else if (pass_left(mt) > 0) {
        n = 0;
    } else if (have_record(mt, 1)) {
        n = open_record(mt);
        const uint32_t *ring = mt->ring;
        uint64_t r = mt->read;
        for (uint32_t k = 0; k < n && n != RUN_FLAG; k++) {
            matches[k].len = ring[r++ & RING_MASK];
            matches[k].dist = ring[r++ & RING_MASK];
        }
        mt->read = r;
        release_words(mt, 0);
    }
    if (n == RUN_FLAG) {
        matches[0].len = mt->finder.nice_len;
        matches[0].dist = mt->run_dist;
        n = 1;
    }
    mt->view->pos++;
    mt->pos++;
    return n;
}

void fz7_lz_mf_mt_skip(fz7_lz_mf_mt *mt, uint32_t n)
{
    while (n > 0) {
        uint32_t step = 1;
        if (mt->run > 0) {
            step = mt->run < n ? mt->run : n;
            mt->run -= step;
        } else if (pass_left(mt) > 0) {
            step = pass_left(mt) < n ? (uint32_t)pass_left(mt) : n;
        } else if (have_record(mt, n)) {
            uint32_t count = open_record(mt);
            if (count != RUN_FLAG)
                mt->read += 2 * (uint64_t)count;
        }
        mt->view->pos += step;
        mt->pos += step;
        n -= step;
    }
    release_words(mt, 0);
}
