/* fd_ostream.h - the buffered output both archive writers (7z_write.c,
 * xz_write.c) send their bytes through: an fz7_ostream over a file
 * descriptor that counts the file offset it has reached. */
#ifndef FZ7_FD_OSTREAM_H
#define FZ7_FD_OSTREAM_H

#include "fz7_common.h"

/* Embedded in a writer; os.write is fz7_fd_ostream_write. */
typedef struct fz7_fd_ostream {
    fz7_ostream os;
    int fd;             /* not owned: never closed here */
    uint64_t pos;       /* file offset of the next byte (bytes handed in, plus the start) */
    uint8_t *buf;       /* FZ7_FD_OSTREAM_BUF bytes not yet written */
    size_t fill;
    uint64_t unkicked;  /* bytes written since writeback was last started */
    fz7_ostream *next;  /* set (fd -1): the bytes go on to this stream
                           instead (fz7_xz_writer_new_os) */
} fz7_fd_ostream;

#define FZ7_FD_OSTREAM_BUF ((size_t)1 << 16)
/* Every this many bytes written, the kernel is asked to start writing the
 * file's dirty pages back (Linux sync_file_range), so that the fsync
 * before the archive is renamed into place waits for the last few only. */
#define FZ7_FD_OSTREAM_KICK ((uint64_t)8 << 20)

/* Sets s up over fd with pos 0 (the caller may set pos to the fd's
 * current offset). FZ7_E_MEM when the buffer cannot be allocated (s can
 * still be passed to fz7_fd_ostream_free). */
fz7_status fz7_fd_ostream_init(fz7_fd_ostream *s, int fd);

/* The ostream write: buffers n bytes of p (writes larger runs straight
 * through). FZ7_E_IO when write(2) fails (errno is left as it set it). */
fz7_status fz7_fd_ostream_write(fz7_ostream *os, const uint8_t *p, size_t n);

/* Writes out what is buffered; FZ7_E_IO on failure. */
fz7_status fz7_fd_ostream_flush(fz7_fd_ostream *s);

/* Frees the buffer (unwritten bytes are dropped; flush first). */
void fz7_fd_ostream_free(fz7_fd_ostream *s);

/* Writes all n bytes of buf to fd, again after a short or interrupted
 * write (every writer of fz7 writes through this). 0, or the error number
 * (also left in errno; ENOSPC when write takes nothing). */
int fz7_write_full(int fd, const void *buf, size_t n);

#endif
