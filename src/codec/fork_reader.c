/* fork_reader.c - what the zstd, LZ4 and Brotli pull streams share: the
 * unpack size as the output bound, the check that nothing but the ends of
 * frames follows the last byte, and errors that stick. */
#include "codec/fork_reader.h"

fz7_status fz7_fork_fill(fz7_fork_reader *r)
{
    if (r->in_pos < r->in_len || r->src_end)
        return FZ7_OK;
    size_t n = 0;
    fz7_status st = r->src->read(r->src, r->buf, FZ7_FORK_IN_SIZE, &n);
    if (st != FZ7_OK)
        return st;
    r->in_pos = 0;
    r->in_len = n;
    r->src_end = n == 0;
    return FZ7_OK;
}

static fz7_status read_some(fz7_fork_reader *r, uint8_t *buf, size_t cap, size_t *got)
{
    bool at_end;
    if (r->left == 0) {
        /* Every byte is out: the rest of the input may finish the last
         * frame (end mark, checksum) or hold skippable frames, nothing
         * more. */
        uint8_t probe[64];
        size_t extra;
        fz7_status st = r->step(r, probe, sizeof probe, &extra, &at_end);
        if (st != FZ7_OK)
            return st;
        if (extra > 0)
            return FZ7_E_DATA;
        r->done = true;
        return FZ7_OK;
    }
    size_t want = cap < r->left ? cap : (size_t)r->left;
    fz7_status st = r->step(r, buf, want, got, &at_end);
    if (st != FZ7_OK)
        return st;
    if (at_end)
        return FZ7_E_DATA;   /* the frames hold fewer bytes than the unpack size */
    r->left -= *got;
    return FZ7_OK;
}

static fz7_status fork_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    fz7_fork_reader *r = (fz7_fork_reader *)s;
    *got = 0;
    if (r->err != FZ7_OK)
        return r->err;
    /* The end check runs on a read after the last byte, whatever cap. */
    if (r->done || (cap == 0 && r->left != 0))
        return FZ7_OK;
    fz7_status st = read_some(r, buf, cap, got);
    if (st != FZ7_OK) {
        r->err = st;
        *got = 0;
    }
    return st;
}

void fz7_fork_reader_init(fz7_fork_reader *r, fz7_istream *src, uint64_t out_size,
                          fz7_fork_step_fn step, void (*destroy)(fz7_istream *s))
{
    r->base.read = fork_read;
    r->base.destroy = destroy;
    r->src = src;
    r->step = step;
    r->left = out_size;
}
