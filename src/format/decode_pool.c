/* decode_pool.c - a small ordered thread pool for the readers: workers take
 * jobs in increasing order while fewer than `window` are unreleased; the
 * consumer waits for the oldest. pthread mutex + two condition variables. */
#include "format/decode_pool.h"


#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct fz7_decode_pool {
    pthread_mutex_t lock;
    pthread_cond_t job_done;    /* a job finished: the consumer may go on */
    pthread_cond_t slot_free;   /* a job was released, or stop */
    size_t njobs, window;
    size_t next;                /* the next job to start */
    size_t released;            /* jobs below this are released */
    bool *done;                 /* per slot: its current job has run */
    bool stop;
    fz7_pool_job_fn fn;
    void *ctx;
    unsigned nthreads;          /* workers started */
    pthread_t threads[FZ7_DECODE_THREADS_MAX];
};

static void *worker(void *arg)
{
    fz7_decode_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->next < p->njobs && p->next >= p->released + p->window)
            pthread_cond_wait(&p->slot_free, &p->lock);
        if (p->stop || p->next >= p->njobs)
            break;
        size_t j = p->next++, slot = j % p->window;
        p->done[slot] = false;
        pthread_mutex_unlock(&p->lock);
        p->fn(p->ctx, j, slot);
        pthread_mutex_lock(&p->lock);
        p->done[slot] = true;
        pthread_cond_broadcast(&p->job_done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

unsigned fz7_decode_threads(unsigned requested, size_t jobs)
{
    unsigned t = requested;
    if (t == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        t = n > 0 ? (unsigned)n : 1;
    }
    if (t > FZ7_DECODE_THREADS_MAX)
        t = FZ7_DECODE_THREADS_MAX;
    if (t > jobs)
        t = jobs ? (unsigned)jobs : 1;
    return t;
}

fz7_decode_pool *fz7_decode_pool_start(size_t njobs, unsigned threads, size_t window,
                                       fz7_pool_job_fn fn, void *ctx)
{
    if (threads == 0 || window == 0)
        return NULL;
    if (threads > FZ7_DECODE_THREADS_MAX)
        threads = FZ7_DECODE_THREADS_MAX;
    fz7_decode_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->done = calloc(window, sizeof *p->done);
    if (!p->done) {
        free(p);
        return NULL;
    }
    p->njobs = njobs;
    p->window = window;
    p->fn = fn;
    p->ctx = ctx;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->job_done, NULL);
    pthread_cond_init(&p->slot_free, NULL);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
            break;
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        fz7_decode_pool_stop(p);
        return NULL;
    }
    return p;
}

size_t fz7_decode_pool_wait(fz7_decode_pool *p, size_t j)
{
    size_t slot = j % p->window;
    pthread_mutex_lock(&p->lock);
    /* Job j has run when it was started (next > j) and its slot is done:
     * the slot cannot hold a later job before j is released. */
    while (!(p->next > j && p->done[slot]))
        pthread_cond_wait(&p->job_done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return slot;
}

void fz7_decode_pool_release(fz7_decode_pool *p, size_t j)
{
    pthread_mutex_lock(&p->lock);
    if (j + 1 > p->released)
        p->released = j + 1;
    pthread_cond_broadcast(&p->slot_free);
    pthread_mutex_unlock(&p->lock);
}

void fz7_decode_pool_stop(fz7_decode_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->slot_free);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->slot_free);
    pthread_cond_destroy(&p->job_done);
    pthread_mutex_destroy(&p->lock);
    free(p->done);
    free(p);
}
