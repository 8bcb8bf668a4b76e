/* fd_ostream.c - buffered writes to a file descriptor for the archive
 * writers, with the offset they need for pack positions and sizes; a
 * write interrupted by a signal (EINTR) is retried. */
#include "format/fd_ostream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Starts writeback of everything written so far (FZ7_FD_OSTREAM_KICK); it
 * runs while fz7 computes. Pipes and systems without the call: nothing. */
static void kick_writeback(fz7_fd_ostream *s, size_t n)
{
    s->unkicked += n;
    if (s->unkicked < FZ7_FD_OSTREAM_KICK)
        return;
    s->unkicked = 0;
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(s->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
}

int fz7_write_full(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static fz7_status write_all(fz7_fd_ostream *s, const uint8_t *p, size_t n)
{
    if (s->next)
        return n ? s->next->write(s->next, p, n) : FZ7_OK;
    kick_writeback(s, n);
    return fz7_write_full(s->fd, p, n) ? FZ7_E_IO : FZ7_OK;
}

fz7_status fz7_fd_ostream_init(fz7_fd_ostream *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->os.write = fz7_fd_ostream_write;
    s->fd = fd;
    s->buf = malloc(FZ7_FD_OSTREAM_BUF);
    return s->buf ? FZ7_OK : FZ7_E_MEM;
}

fz7_status fz7_fd_ostream_flush(fz7_fd_ostream *s)
{
    fz7_status st = write_all(s, s->buf, s->fill);
    s->fill = 0;
    return st;
}

fz7_status fz7_fd_ostream_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    fz7_fd_ostream *s = (fz7_fd_ostream *)os;
    s->pos += n;
    if (s->fill + n > FZ7_FD_OSTREAM_BUF) {
        fz7_status st = fz7_fd_ostream_flush(s);
        if (st != FZ7_OK)
            return st;
        if (n >= FZ7_FD_OSTREAM_BUF)
            return write_all(s, p, n);
    }
    memcpy(s->buf + s->fill, p, n);
    s->fill += n;
    return FZ7_OK;
}

void fz7_fd_ostream_free(fz7_fd_ostream *s)
{
    free(s->buf);
    s->buf = NULL;
    s->fill = 0;
}
