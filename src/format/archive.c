/* archive.c - opens an archive by content and hands it to its reader. */
#include "format/archive_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void free_archive(fz7_archive *a)
{
    if (!a)
        return;
    if (a->ops && a->ops->close)
        a->ops->close(a);
    for (size_t i = 0; i < a->count; i++)
        free(a->entries[i].path);
    free(a->entries);
    if (a->fd >= 0)
        close(a->fd);
    free(a);
}

fz7_status fz7_archive_open(const char *path, const fz7_open_opts *opts, fz7_archive **out,
                            char *err, size_t errlen)
{
    *out = NULL;
    if (errlen)
        err[0] = 0;
    fz7_archive *a = calloc(1, sizeof *a);
    if (!a)
        return FZ7_E_MEM;
    a->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (a->fd < 0) {
        snprintf(err, errlen, "Can not open the file: %s", strerror(errno));
        free(a);
        return FZ7_E_IO;
    }
    struct stat st;
    if (fstat(a->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "Can not open the file as archive: not a regular file");
        free_archive(a);
        return FZ7_E_IO;
    }
    a->file_size = (uint64_t)st.st_size;
    if (opts)
        a->opts = *opts;
    if (a->opts.mem_limit == 0)
        a->opts.mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    a->path = path;

    fz7_status (*readers[])(fz7_archive *, char *, size_t) = {fz7_7z_open, fz7_xz_open,
                                                              fz7_lzma_alone_open};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        if (errlen)
            err[0] = 0;
        fz7_status s = readers[i](a, err, errlen);
        if (s == FZ7_OK) {
            a->info.phy_size = a->file_size;
            *out = a;
            return FZ7_OK;
        }
        if (s != FZ7_E_FORMAT || (errlen && err[0])) {
            free_archive(a);
            return s;
        }
    }
    snprintf(err, errlen, "Can not open the file as archive");
    free_archive(a);
    return FZ7_E_FORMAT;
}

void fz7_archive_close(fz7_archive *a) { free_archive(a); }

const fz7_archive_info *fz7_archive_get_info(const fz7_archive *a) { return &a->info; }
size_t fz7_archive_count(const fz7_archive *a) { return a->count; }
const fz7_entry *fz7_archive_entry(const fz7_archive *a, size_t i) { return &a->entries[i]; }

fz7_status fz7_archive_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                               char *err, size_t errlen)
{
    if (errlen)
        err[0] = 0;
    return a->ops->extract(a, select, cb, err, errlen);
}

char *fz7_strip_compressed_suffix(const char *archive_path)
{
    const char *base = strrchr(archive_path, '/');
    base = base ? base + 1 : archive_path;
    size_t n = strlen(base);
    static const struct { const char *suffix, *repl; } map[] = {
        {".txz", ".tar"}, {".tlz", ".tar"}, {".xz", ""}, {".lzma", ""}, {".lz", ""}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t sl = strlen(map[i].suffix);
        if (n > sl && strcasecmp(base + n - sl, map[i].suffix) == 0) {
            size_t keep = n - sl, rl = strlen(map[i].repl);
            char *r = malloc(keep + rl + 1);
            if (!r)
                return NULL;
            memcpy(r, base, keep);
            memcpy(r + keep, map[i].repl, rl + 1);
            return r;
        }
    }
    return strdup(base);
}
