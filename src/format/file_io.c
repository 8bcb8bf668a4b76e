/* file_io.c - pread-based istreams over byte ranges of an archive file, and
 * the volume set that makes a split archive (x.7z.001, .002, ...) or a zip
 * split across disks (x.z01, ..., x.zip) one byte space for the readers
 * above it. */
#include "format/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A split archive of more volumes than this is refused rather than opened
 * (each volume keeps a descriptor). */
#define MAX_VOLUMES 100000u

struct fz7_volumes {
    size_t count, cap;
    int *fds;              /* the first VOLUMES_KEPT_OPEN volumes' (the
                              rest: -1, opened for each read) */
    char **names;          /* the later volumes' names in dir_fd (NULL below) */
    int dir_fd;            /* their folder, opened with the first of them:
                              the process may change its folder meanwhile */
    uint64_t *starts;      /* count + 1 entries: where each volume begins in
                              the byte space; starts[count] is the total */
    bool split;
    bool disks;            /* opened by fz7_volumes_open_disks */
    char *missing_name;    /* the first absent volume's path, when split */
    const fz7_volumes *parent; /* a window: these bytes are parent's from
                              base on (count 1, no descriptors of its own) */
    uint64_t base;
    uint64_t *blocks;      /* a window of scattered blocks: where each
                              2^block_bits-byte block lies in parent (base
                              unused); else NULL */
    unsigned block_bits;
    fz7_block_reader block_read;   /* FZ7_BLOCK_CODED blocks: decoded */
    void *block_ctx;
};

#define FD_BUF_BYTES (1u << 16)
/* Volumes whose files stay open; a set of thousands (a 100 GB backup in
 * 50 MB volumes) would otherwise run out of descriptors (ulimit -n). */
#define VOLUMES_KEPT_OPEN 16u

typedef struct {
    fz7_istream base;
    int fd;
    const fz7_volumes *vol;   /* when not NULL, read through it, not fd */
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

static fz7_status range_pread(const fd_istream *f, void *buf, size_t n, uint64_t offset)
{
    return f->vol ? fz7_volumes_pread(f->vol, buf, n, offset) : fz7_pread_full(f->fd, buf, n, offset);
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
            fz7_status st = range_pread(f, buf, want, f->next);
            if (st != FZ7_OK)
                return st;
            f->next += want;
            *got = want;
            return FZ7_OK;
        }
        size_t want = left < FD_BUF_BYTES ? (size_t)left : FD_BUF_BYTES;
        fz7_status st = range_pread(f, f->buf, want, f->next);
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
    f->vol = NULL;
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

fz7_istream *fz7_volumes_istream_new(const fz7_volumes *v, uint64_t offset, uint64_t length)
{
    fz7_istream *s = fz7_fd_istream_new(-1, offset, length);
    if (s)
        ((fd_istream *)s)->vol = v;
    return s;
}

/* ---- volume sets ---- */

/* Where the volume number of path begins: the digits after the base
 * name's last '.', at least two of them, with value 1 ("001", "01").
 * Returns the digit count, 0 when path is not a first volume. */
static size_t first_volume_digits(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return 0;
    size_t n = strlen(dot + 1);
    if (n < 2 || n > 18)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (dot[1 + i] < '0' || dot[1 + i] > '9' || (i + 1 < n ? dot[1 + i] != '0' : dot[1 + i] != '1'))
            return 0;
    return n;
}

bool fz7_volumes_is_first_name(const char *path) { return first_volume_digits(path) > 0; }

/* The path of volume number k (1-based) of a set whose first volume is
 * first (with digits digits), in a new string; wider when k needs it. */
static char *volume_name(const char *first, size_t digits, uint64_t k)
{
    size_t stem = strlen(first) - digits;
    size_t cap = stem + 24;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    memcpy(p, first, stem);
    snprintf(p + stem, cap - stem, "%0*llu", (int)digits, (unsigned long long)k);
    return p;
}

/* Opens one volume: its descriptor and size; -1 with errno, or -2 when it
 * is not a regular file. */
static int open_volume(const char *path, uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return -2;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

/* Adds the volume open as fd (name: its path, kept for one past
 * VOLUMES_KEPT_OPEN, whose fd is closed here). */
static fz7_status add_volume(fz7_volumes *v, int fd, uint64_t size, const char *name)
{
    if (v->count + 1 >= v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        int *fds = realloc(v->fds, cap * sizeof *fds);
        if (!fds)
            return FZ7_E_MEM;
        v->fds = fds;
        char **names = realloc(v->names, cap * sizeof *names);
        if (!names)
            return FZ7_E_MEM;
        v->names = names;
        uint64_t *starts = realloc(v->starts, (cap + 1) * sizeof *starts);
        if (!starts)
            return FZ7_E_MEM;
        v->starts = starts;
        v->cap = cap;
    }
    uint64_t at = v->count ? v->starts[v->count] : 0;
    if (size > UINT64_MAX - at)
        return FZ7_E_ARG;
    v->names[v->count] = NULL;
    if (v->count >= VOLUMES_KEPT_OPEN) {
        const char *slash = strrchr(name, '/');
        if (v->dir_fd < 0) {
            char *dir = slash ? strndup(name, (size_t)(slash - name) + 1) : strdup(".");
            if (!dir)
                return FZ7_E_MEM;
            v->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            free(dir);
            if (v->dir_fd < 0)
                return FZ7_E_IO;
        }
        if (!(v->names[v->count] = strdup(slash ? slash + 1 : name)))
            return FZ7_E_MEM;
        close(fd);
        fd = -1;
    }
    v->fds[v->count] = fd;
    v->starts[v->count] = at;
    v->starts[++v->count] = at + size;
    return FZ7_OK;
}

fz7_status fz7_volumes_open(const char *path, fz7_volumes **out, char *err, size_t errlen)
{
    *out = NULL;
    fz7_volumes *v = calloc(1, sizeof *v);
    if (!v)
        return FZ7_E_MEM;
    v->dir_fd = -1;
    uint64_t size;
    int fd = open_volume(path, &size);
    if (fd < 0) {
        if (fd == -2)
            snprintf(err, errlen, "Cannot open the file as archive: not a regular file");
        else
            snprintf(err, errlen, "Cannot open the file: %s", strerror(errno));
        free(v);
        return FZ7_E_IO;
    }
    fz7_status st = add_volume(v, fd, size, path);
    if (st != FZ7_OK)
        close(fd);
    size_t digits = first_volume_digits(path);
    v->split = digits > 0;
    for (uint64_t k = 2; st == FZ7_OK && v->split; k++) {
        char *name = volume_name(path, digits, k);
        if (!name) {
            st = FZ7_E_MEM;
            break;
        }
        fd = k <= MAX_VOLUMES ? open_volume(name, &size) : -1;
        if ((fd == -1 && errno == ENOENT) || k > MAX_VOLUMES) {
            v->missing_name = name;   /* the set ends here */
            break;
        }
        if (fd < 0) {
            snprintf(err, errlen, "Cannot open the volume %s: %s", name,
                     fd == -2 ? "not a regular file" : strerror(errno));
            st = FZ7_E_IO;
        } else if ((st = add_volume(v, fd, size, name)) != FZ7_OK) {
            close(fd);   /* (add_volume closes it only once it is added) */
            if (st == FZ7_E_ARG) {
                snprintf(err, errlen, "Volumes too large");
                st = FZ7_E_IO;
            }
        }
        free(name);
    }
    if (st != FZ7_OK) {
        fz7_volumes_close(v);
        return st;
    }
    *out = v;
    return FZ7_OK;
}

fz7_status fz7_volumes_open_disks(const char *const *paths, size_t n, fz7_volumes **out, char *err,
                                  size_t errlen)
{
    *out = NULL;
    if (n == 0 || n > MAX_VOLUMES)
        return FZ7_E_ARG;
    fz7_volumes *v = calloc(1, sizeof *v);
    int *fds = malloc(n * sizeof *fds);
    uint64_t *sizes = malloc(n * sizeof *sizes);
    fz7_status st = v && fds && sizes ? FZ7_OK : FZ7_E_MEM;
    if (v) {
        v->dir_fd = -1;
        v->disks = true;
    }
    /* Every disk but the last has the split's size: a missing one is a
     * hole of that size, so that the disks after it keep their offsets. */
    uint64_t hole = 0;
    size_t opened = 0;
    for (; opened < n && st == FZ7_OK; opened++) {
        fds[opened] = open_volume(paths[opened], &sizes[opened]);
        if (fds[opened] == -1 && errno == ENOENT && opened + 1 < n) {
            if (!v->missing_name && !(v->missing_name = strdup(paths[opened])))
                st = FZ7_E_MEM;
        } else if (fds[opened] < 0) {
            bool absent = fds[opened] == -1 && errno == ENOENT;
            if (absent)
                snprintf(err, errlen, "Missing volume: %s", paths[opened]);
            else
                snprintf(err, errlen, "Cannot open the volume %s: %s", paths[opened],
                         fds[opened] == -2 ? "not a regular file" : strerror(errno));
            st = absent ? FZ7_E_TRUNCATED : FZ7_E_IO;
        } else if (opened + 1 < n && sizes[opened] > hole) {
            hole = sizes[opened];
        }
    }
    for (size_t i = 0; i < opened && st == FZ7_OK; i++) {
        bool absent = fds[i] < 0;
        st = add_volume(v, absent ? -1 : fds[i], absent ? hole : sizes[i], paths[i]);
        if (st == FZ7_OK) {
            fds[i] = -1;   /* v has it */
            if (absent) {
                free(v->names[v->count - 1]);
                v->names[v->count - 1] = NULL;   /* reads there fail */
            }
        } else if (st == FZ7_E_ARG) {
            snprintf(err, errlen, "Volumes too large");
            st = FZ7_E_IO;
        }
    }
    for (size_t i = 0; fds && i < opened; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    free(sizes);
    if (st != FZ7_OK) {
        fz7_volumes_close(v);
        return st;
    }
    *out = v;
    return FZ7_OK;
}

fz7_status fz7_volumes_window(const fz7_volumes *parent, uint64_t offset, uint64_t length,
                              fz7_volumes **out)
{
    *out = NULL;
    uint64_t size = fz7_volumes_size(parent);
    if (offset > size || length > size - offset)
        return FZ7_E_ARG;
    fz7_volumes *v = calloc(1, sizeof *v);
    uint64_t *starts = malloc(2 * sizeof *starts);
    if (!v || !starts) {
        free(v);
        free(starts);
        return FZ7_E_MEM;
    }
    starts[0] = 0;
    starts[1] = length;
    v->starts = starts;
    v->count = 1;
    v->dir_fd = -1;
    v->parent = parent;
    v->base = offset;
    *out = v;
    return FZ7_OK;
}

fz7_status fz7_volumes_blocks(const fz7_volumes *parent, const uint64_t *blocks, size_t n, unsigned bits,
                              uint64_t length, bool past_end, fz7_volumes **out)
{
    *out = NULL;
    uint64_t size = fz7_volumes_size(parent), bs = (uint64_t)1 << bits;
    if (bits >= 32 || length > (uint64_t)n << bits || n > (length + bs - 1) >> bits)
        return FZ7_E_ARG;
    for (size_t i = 0; i < n; i++)
        if (blocks[i] != FZ7_BLOCK_ZEROS && !(blocks[i] & FZ7_BLOCK_CODED) && (past_end ? blocks[i] > UINT64_MAX - 2 * bs : blocks[i] > size || bs > size - blocks[i]))
            return FZ7_E_ARG;
    fz7_status st = fz7_volumes_window(parent, 0, 0, out);
    if (st != FZ7_OK)
        return st;
    (*out)->blocks = malloc((n ? n : 1) * sizeof *blocks);
    if (!(*out)->blocks) {
        fz7_volumes_close(*out);
        *out = NULL;
        return FZ7_E_MEM;
    }
    memcpy((*out)->blocks, blocks, n * sizeof *blocks);
    (*out)->block_bits = bits;
    (*out)->starts[1] = length;
    return FZ7_OK;
}

void fz7_volumes_block_reader(fz7_volumes *v, fz7_block_reader fn, void *ctx)
{
    v->block_read = fn;
    v->block_ctx = ctx;
}

void fz7_volumes_close(fz7_volumes *v)
{
    if (!v)
        return;
    free(v->blocks);
    for (size_t i = 0; i < v->count && !v->parent; i++) {
        if (v->fds[i] >= 0)
            close(v->fds[i]);
        free(v->names[i]);
    }
    if (v->dir_fd >= 0)
        close(v->dir_fd);
    free(v->fds);
    free(v->names);
    free(v->starts);
    free(v->missing_name);
    free(v);
}

uint64_t fz7_volumes_size(const fz7_volumes *v) { return v->starts[v->count]; }
size_t fz7_volumes_count(const fz7_volumes *v) { return v->count; }
int fz7_volumes_first_fd(const fz7_volumes *v) { return v->parent ? -1 : v->fds[0]; }
bool fz7_volumes_is_window(const fz7_volumes *v) { return v->parent != NULL; }
bool fz7_volumes_is_split(const fz7_volumes *v) { return v->split; }
bool fz7_volumes_are_disks(const fz7_volumes *v) { return v->disks; }
uint64_t fz7_volumes_start(const fz7_volumes *v, size_t i) { return v->starts[i]; }

size_t fz7_volumes_missing_count(const fz7_volumes *v)
{
    size_t n = 0;
    for (size_t i = 0; v->disks && i < v->count; i++)
        n += v->fds[i] < 0 && !v->names[i];
    return n;
}

uint64_t fz7_volumes_missing_bytes(const fz7_volumes *v)
{
    uint64_t n = 0;
    for (size_t i = 0; v->disks && i < v->count; i++)
        if (v->fds[i] < 0 && !v->names[i])
            n += v->starts[i + 1] - v->starts[i];
    return n;
}

uint64_t fz7_volumes_present(const fz7_volumes *v)
{
    for (size_t i = 0; v->disks && i < v->count; i++)
        if (v->fds[i] < 0 && !v->names[i])
            return v->starts[i];
    return v->starts[v->count];
}

bool fz7_volumes_missing(const fz7_volumes *v, const char **name)
{
    if (v->disks && v->missing_name) {
        *name = v->missing_name;
        return true;
    }
    if (!v->split || !v->missing_name)
        return false;
    uint64_t first = v->starts[1] - v->starts[0];
    uint64_t last = v->starts[v->count] - v->starts[v->count - 1];
    if (first == 0 || last != first)
        return false;
    *name = v->missing_name;
    return true;
}

fz7_status fz7_volumes_pread(const fz7_volumes *v, void *buf, size_t n, uint64_t offset)
{
    if (v->parent) {
        if (offset > v->starts[1] || n > v->starts[1] - offset)
            return FZ7_E_TRUNCATED;
        if (!v->blocks)
            return fz7_volumes_pread(v->parent, buf, n, v->base + offset);
        for (uint8_t *p = buf; n;) {   /* block by block */
            uint64_t in = offset & (((uint64_t)1 << v->block_bits) - 1);
            size_t k = ((uint64_t)1 << v->block_bits) - in < n ? (size_t)(((uint64_t)1 << v->block_bits) - in) : n;
            uint64_t at = v->blocks[offset >> v->block_bits];
            fz7_status st = FZ7_OK;
            if (at == FZ7_BLOCK_ZEROS)   /* a block a virtual disk leaves unallocated */
                memset(p, 0, k);
            else if (at & FZ7_BLOCK_CODED)
                st = v->block_read ? v->block_read(v->block_ctx, offset >> v->block_bits, in, p, k) : FZ7_E_UNSUPPORTED;
            else
                st = fz7_volumes_pread(v->parent, p, k, at + in);
            if (st != FZ7_OK)
                return st;
            p += k;
            offset += k;
            n -= k;
        }
        return FZ7_OK;
    }
    uint8_t *p = buf;
    /* The last volume whose start is <= offset. */
    size_t lo = 0, hi = v->count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    for (size_t i = lo; n > 0; i++) {
        if (i >= v->count || offset >= v->starts[v->count])
            return FZ7_E_TRUNCATED;
        if (offset >= v->starts[i + 1])
            continue;   /* an empty volume */
        uint64_t room = v->starts[i + 1] - offset;
        size_t take = room < n ? (size_t)room : n;
        if (v->fds[i] < 0 && !v->names[i])
            return FZ7_E_TRUNCATED;   /* a missing disk */
        int fd = v->fds[i] >= 0 ? v->fds[i] : openat(v->dir_fd, v->names[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return FZ7_E_IO;
        fz7_status st = fz7_pread_full(fd, p, take, offset - v->starts[i]);
        if (fd != v->fds[i])
            close(fd);
        if (st != FZ7_OK)
            return st;   /* a volume shorter than it was at open: truncated */
        p += take;
        n -= take;
        offset += take;
    }
    return FZ7_OK;
}
