/* file_io.c - pread-based istreams over byte ranges of an archive file. */
#include "format/file_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FD_BUF_BYTES (1u << 16)

typedef struct {
    fz7_istream base;
    int fd;
    uint64_t next;   /* file offset of the next byte to fetch */
    uint64_t end;    /* offset + length */
    uint64_t start;
    size_t pos, fill;
    uint8_t buf[FD_BUF_BYTES];
} fd_istream;

fz7_status fz7_pread_full(int fd, void *buf, size_t n, uint64_t offset)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)offset);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return FZ7_E_IO;
        }
        if (r == 0)
            return FZ7_E_TRUNCATED;
        p += r;
        n -= (size_t)r;
        offset += (uint64_t)r;
    }
    return FZ7_OK;
}

static fz7_status fd_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    fd_istream *f = (fd_istream *)s;
    *got = 0;
    if (f->pos == f->fill) {
        uint64_t left = f->end - f->next;
        if (left == 0)
            return FZ7_OK;
        /* Large reads bypass the buffer. */
        if (cap >= FD_BUF_BYTES) {
            size_t want = left < cap ? (size_t)left : cap;
            fz7_status st = fz7_pread_full(f->fd, buf, want, f->next);
            if (st != FZ7_OK)
                return st;
            f->next += want;
            *got = want;
            return FZ7_OK;
        }
        size_t want = left < FD_BUF_BYTES ? (size_t)left : FD_BUF_BYTES;
        fz7_status st = fz7_pread_full(f->fd, f->buf, want, f->next);
        if (st != FZ7_OK)
            return st;
        f->next += want;
        f->pos = 0;
        f->fill = want;
    }
    size_t n = f->fill - f->pos;
    if (n > cap)
        n = cap;
    memcpy(buf, f->buf + f->pos, n);
    f->pos += n;
    *got = n;
    return FZ7_OK;
}

static void fd_destroy(fz7_istream *s) { free(s); }

fz7_istream *fz7_fd_istream_new(int fd, uint64_t offset, uint64_t length)
{
    fd_istream *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    f->base.read = fd_read;
    f->base.destroy = fd_destroy;
    f->fd = fd;
    f->start = offset;
    f->next = offset;
    f->end = length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
    f->pos = f->fill = 0;
    return &f->base;
}

uint64_t fz7_fd_istream_pos(const fz7_istream *s)
{
    const fd_istream *f = (const fd_istream *)s;
    return f->next - f->start - (f->fill - f->pos);
}
