/* fork_reader.h - the pull-stream plumbing the library-backed decoders of
 * the 7-Zip-zstd fork's methods (zstd.c, lz4.c, brotli.c) share: input
 * buffering, the output bound (the coder's unpack size), the check that
 * only frame ends follow it, and a sticky error. Internal to src/codec/. */
#ifndef FZ7_CODEC_FORK_READER_H
#define FZ7_CODEC_FORK_READER_H

#include "fz7_common.h"

#include <stdbool.h>

#define FZ7_FORK_IN_SIZE ((size_t)1 << 16)

typedef struct fz7_fork_reader fz7_fork_reader;

/* A decoder's step: decodes into dst[0..cap) until some bytes come out
 * (*got > 0) or the input ends where a frame may end (*got == 0, *at_end
 * set). FZ7_E_TRUNCATED when src ends inside a frame. */
typedef fz7_status (*fz7_fork_step_fn)(fz7_fork_reader *r, uint8_t *dst, size_t cap, size_t *got,
                                       bool *at_end);

/* The head of each fork decoder's reader struct (its first member). */
struct fz7_fork_reader {
    fz7_istream base;          /* read() is the shared one, destroy() the decoder's */
    fz7_istream *src;          /* the packed input (not owned) */
    fz7_fork_step_fn step;
    uint64_t left;             /* output bytes still owed */
    bool src_end;              /* src has returned 0 bytes */
    bool done;                 /* all bytes out and the end checked */
    fz7_status err;            /* sticky: every read after an error returns it */
    size_t in_pos, in_len;     /* unread input is buf[in_pos..in_len) */
    uint8_t buf[FZ7_FORK_IN_SIZE];
};

/* Sets r's shared fields (r zeroed before): read() gives exactly out_size
 * bytes through step, then fails with FZ7_E_DATA when more would come. */
void fz7_fork_reader_init(fz7_fork_reader *r, fz7_istream *src, uint64_t out_size,
                          fz7_fork_step_fn step, void (*destroy)(fz7_istream *s));

/* Refills buf from src when all of it is used and src has not ended;
 * src's errors are returned. */
fz7_status fz7_fork_fill(fz7_fork_reader *r);

#endif
