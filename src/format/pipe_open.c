/* pipe_open.c - an archive arriving on a descriptor that need not seek
 * (-si): its first bytes say what it is. xz (xz_stream.c), gzip
 * (gzip_read.c) and bzip2, zstd, lz4, compress (libarchive) are read in one
 * forward pass; lzip, 7z, zip, tar and cpio, which must be whole before
 * they are read, are copied to an unlinked temporary file first (a
 * redirected file is opened in place). */
#include "format/archive_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most read ahead before the format is known, and the copy's pieces. */
#define PIPE_BUF_BYTES ((size_t)64 << 10)
/* What gzip's stored name may need, and tar's magic at 257. */
#define PIPE_HEAD_BYTES ((size_t)1 << 10)

static const uint8_t magic_7z[6] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C};

/* The first bytes of the pipe. */
typedef struct {
    int fd;
    uint8_t *buf;    /* PIPE_BUF_BYTES */
    size_t len;
    bool eof;
} pipe_head;

/* Reads until h holds at least want bytes (fewer at the end of the input;
 * more if a read gives more). */
static fz7_status read_head(pipe_head *h, size_t want)
{
    while (!h->eof && h->len < want) {
        ssize_t n = read(h->fd, h->buf + h->len, PIPE_BUF_BYTES - h->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return FZ7_E_IO;
        if (n == 0)
            h->eof = true;
        else
            h->len += (size_t)n;
    }
    return FZ7_OK;
}

/* Where a pipe is spooled: $TMPDIR, else /tmp. */
static const char *spool_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && d[0] ? d : "/tmp";
}

/* An unlinked temporary file in spool_dir(), or NULL with errno set. */
static FILE *spool_file(void)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/fz7spoolXXXXXX", spool_dir()) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+b");
    if (!f)
        close(fd);
    return f;
}

/* True when h (n bytes, at least 512 unless the input is shorter) starts
 * an archive read only from a file, its entries listed before any is
 * extracted: 7z (its headers are at the end), zip, tar (ustar magic), cpio. */
static bool spooled_magic(const uint8_t *h, size_t n)
{
    static const char *cpio[] = {"070701", "070702", "070707"};
    if (n >= sizeof magic_7z && memcmp(h, magic_7z, sizeof magic_7z) == 0)
        return true;
    if (n >= 4 && h[0] == 'P' && h[1] == 'K' && ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6)))
        return true;
    for (size_t i = 0; i < 3; i++)
        if (n >= 6 && memcmp(h, cpio[i], 6) == 0)
            return true;
    return n >= 262 && memcmp(h + 257, "ustar", 5) == 0;
}

/* Opens the file at path (the whole input); a one-stream file's (lzip's)
 * entry is named as a stream's: name, or "~". */
static fz7_status open_whole(const char *path, const char *name, const fz7_open_opts *opts,
                             fz7_archive **out, char *err, size_t errlen)
{
    fz7_status st = fz7_archive_open(path, opts, out, err, errlen);
    const char *type = st == FZ7_OK ? (*out)->info.type_name : NULL;
    if (type && strcmp(type, "lzip") == 0 && (*out)->count == 1) {
        char *p = strdup(name && name[0] ? name : "~");
        if (!p) {
            fz7_archive_close(*out);
            *out = NULL;
            return FZ7_E_MEM;
        }
        free((*out)->entries[0].path);
        (*out)->entries[0].path = p;
    }
    return st;
}

/* An archive that must be whole before it is read (lzip: its sizes are
 * in its trailers; 7z, zip, tar, cpio: spooled_magic) from a pipe: the
 * bytes so far (head) and the rest of fd go to an unlinked temporary file
 * in $TMPDIR, which is then opened as a file; a redirected file is
 * opened in place (open_whole). */
static fz7_status open_spooled(int fd, const uint8_t *head, size_t head_len, const char *name,
                               const fz7_open_opts *opts, fz7_archive **out, char *err,
                               size_t errlen)
{
    static char spool_path[64];   /* a->path points here for the archive's life */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        /* a redirected file (< a.7z): read in place, from its start */
        snprintf(spool_path, sizeof spool_path, "/proc/self/fd/%d", fd);
        return open_whole(spool_path, name, opts, out, err, errlen);
    }
    FILE *tf = spool_file();
    if (!tf) {
        snprintf(err, errlen, "cannot create a temporary file in %s: %s", spool_dir(),
                   strerror(errno));
        return FZ7_E_IO;
    }
    bool written = fwrite(head, 1, head_len, tf) == head_len, read_ok = true;
    uint8_t *buf = written ? malloc(PIPE_BUF_BYTES) : NULL;
    fz7_status st = written && !buf ? FZ7_E_MEM : FZ7_OK;
    while (written && buf) {
        ssize_t n = read(fd, buf, PIPE_BUF_BYTES);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            read_ok = n == 0;
            break;
        }
        written = fwrite(buf, 1, (size_t)n, tf) == (size_t)n;
    }
    free(buf);
    written = written && fflush(tf) == 0;
    if (st == FZ7_OK && (!written || !read_ok)) {
        st = FZ7_E_IO;
        if (!read_ok)
            snprintf(err, errlen, "Read error: %s", strerror(errno));
        else
            snprintf(err, errlen, "cannot write the temporary copy of the input in %s: %s",
                       spool_dir(), strerror(errno));
    }
    if (st == FZ7_OK) {
        snprintf(spool_path, sizeof spool_path, "/proc/self/fd/%d", fileno(tf));
        st = open_whole(spool_path, name, opts, out, err, errlen);
    }
    fclose(tf);   /* the archive holds its own descriptor of the file */
    return st;
}

/* True when h starts like a compressed file: gzip (fz7_gzip_open_pipe),
 * bzip2, zstd, lz4, compress (fz7_libarchive_open_pipe). */
static bool compressed_file_magic(const uint8_t *h, size_t n)
{
    static const uint8_t zstd[4] = {0x28, 0xb5, 0x2f, 0xfd}, lz4[4] = {0x04, 0x22, 0x4d, 0x18};
    if (n >= 3 && h[0] == 0x1f && (h[1] == 0x8b || h[1] == 0x9d))
        return true;
    if (n >= 4 && h[0] == 'B' && h[1] == 'Z' && h[2] == 'h' && h[3] >= '1' && h[3] <= '9')
        return true;
    return n >= 4 && (memcmp(h, zstd, 4) == 0 || memcmp(h, lz4, 4) == 0);
}

fz7_status fz7_archive_open_fd(int fd, const char *name, const fz7_open_opts *opts,
                               fz7_archive **out, char *err, size_t errlen)
{
    *out = NULL;
    if (errlen)
        err[0] = 0;
    pipe_head h = {fd, malloc(PIPE_BUF_BYTES), 0, false};
    if (!h.buf)
        return FZ7_E_MEM;
    fz7_status st = read_head(&h, PIPE_HEAD_BYTES);
    if (st != FZ7_OK)
        snprintf(err, errlen, "Read error: %s", strerror(errno));
    else if (h.len >= 2 && h.buf[0] == 0x1f && h.buf[1] == 0x8b)
        st = fz7_gzip_open_pipe(fd, h.buf, h.len, name, opts, out, err, errlen);
    else if (compressed_file_magic(h.buf, h.len))
        st = fz7_libarchive_open_pipe(fd, h.buf, h.len, name, opts, out, err, errlen);
    else if ((h.len >= 4 && memcmp(h.buf, "LZIP", 4) == 0) || spooled_magic(h.buf, h.len))
        st = open_spooled(fd, h.buf, h.len, name, opts, out, err, errlen);
    else
        st = fz7_xz_open_pipe(fd, h.buf, h.len, name, opts, out, err, errlen);
    if (st == FZ7_E_FORMAT && errlen && !err[0])
        snprintf(err, errlen, "Cannot open the file as archive");
    free(h.buf);
    return st;
}
