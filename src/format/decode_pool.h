/* decode_pool.h - decoding independent units (xz blocks, 7z folders) on
 * several threads while one consumer takes their results in archive order.
 * Only a window of jobs is in flight, so memory stays bounded. */
#ifndef FZ7_DECODE_POOL_H
#define FZ7_DECODE_POOL_H

#include "fz7_common.h"

#include <stddef.h>

/* Runs job j (0..njobs-1) on a worker thread. The job's result lives in
 * the caller's slot j % window, which the pool gives to no other job until
 * the consumer releases j. */
typedef void (*fz7_pool_job_fn)(void *ctx, size_t job, size_t slot);

typedef struct fz7_decode_pool fz7_decode_pool;

/* Starts `threads` workers (at least 1) over jobs 0..njobs-1, started in
 * order, at most `window` (>= 1) of them done or running but not yet
 * released. Returns NULL when memory or a thread could not be had (the
 * caller then decodes on its own thread). */
fz7_decode_pool *fz7_decode_pool_start(size_t njobs, unsigned threads, size_t window,
                                       fz7_pool_job_fn fn, void *ctx);

/* Waits until job j has run; j must be the oldest job not yet released.
 * Returns its slot (j % window). */
size_t fz7_decode_pool_wait(fz7_decode_pool *p, size_t j);

/* The consumer is done with job j (the oldest one): its slot may take a
 * new job. */
void fz7_decode_pool_release(fz7_decode_pool *p, size_t j);

/* Starts no further jobs, waits for running ones, joins the workers and
 * frees p (NULL is allowed). Slots of jobs that ran but were never
 * released still hold their results: the caller frees them. */
void fz7_decode_pool_stop(fz7_decode_pool *p);

/* Threads for a decoder: requested (0 = every online core), no more than
 * jobs and FZ7_DECODE_THREADS_MAX. */
#define FZ7_DECODE_THREADS_MAX 64
unsigned fz7_decode_threads(unsigned requested, size_t jobs);

#endif
