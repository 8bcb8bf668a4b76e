/* la_write.c - tar, zip, gzip and bzip2 writers over libarchive (see
 * la_write.h). Names go through a UTF-8 locale so non-ASCII paths are
 * stored as UTF-8 whatever the process locale is. */
#include "format/la_write.h"
#include "format/archive_impl.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fz7_la_writer {
    struct archive *ar;
    fz7_la_kind kind;
    int fd;
    /* gzip: libarchive writes no FNAME (3.6); its 10-byte header is held
     * here and written with FNAME set and the entry's base name after it,
     * as 7-Zip and gzip(1) write it. */
    uint8_t gz_head[10];
    size_t gz_seen;
    char *gz_name;
    char err[256];
};

/* Writes all n bytes to fd. */
static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static la_ssize_t gz_write(struct archive *ar, void *ctx, const void *buf, size_t n)
{
    fz7_la_writer *w = ctx;
    const uint8_t *p = buf;
    size_t left = n;
    if (w->gz_seen < sizeof w->gz_head) {
        size_t k = sizeof w->gz_head - w->gz_seen < left ? sizeof w->gz_head - w->gz_seen : left;
        memcpy(w->gz_head + w->gz_seen, p, k);
        w->gz_seen += k;
        p += k;
        left -= k;
        if (w->gz_seen == sizeof w->gz_head) {
            if (w->gz_name)
                w->gz_head[3] |= 8;   /* FNAME (RFC 1952 2.3.1) */
            if (!write_all(w->fd, w->gz_head, sizeof w->gz_head) ||
                (w->gz_name && !write_all(w->fd, (const uint8_t *)w->gz_name, strlen(w->gz_name) + 1))) {
                archive_set_error(ar, errno, "%s", strerror(errno));
                return -1;
            }
        }
    }
    if (left && !write_all(w->fd, p, left)) {
        archive_set_error(ar, errno, "%s", strerror(errno));
        return -1;
    }
    return (la_ssize_t)n;
}

static fz7_status la_fail(fz7_la_writer *w, struct archive *ar)
{
    const char *m = ar ? archive_error_string(ar) : NULL;
    snprintf(w->err, sizeof w->err, "%s", m ? m : "libarchive error");
    int en = ar ? archive_errno(ar) : 0;
    return en == ENOMEM ? FZ7_E_MEM : FZ7_E_IO;
}

fz7_status fz7_la_writer_new(int fd, fz7_la_kind kind, int level, fz7_la_writer **out,
                             char *err, size_t errlen)
{
    *out = NULL;
    fz7_la_writer *w = calloc(1, sizeof *w);
    struct archive *ar = archive_write_new();
    if (!w || !ar) {
        free(w);
        if (ar)
            archive_write_free(ar);
        return FZ7_E_MEM;
    }
    w->ar = ar;
    w->kind = kind;
    if (level < 0)
        level = 5;
    int lv19 = level < 1 ? 1 : level > 9 ? 9 : level;
    char opt[64];
    int r = ARCHIVE_OK;
    switch (kind) {
    case FZ7_LA_TAR:
        r = archive_write_set_format_gnutar(ar);
        break;
    case FZ7_LA_ZIP:
        r = archive_write_set_format_zip(ar);
        if (r == ARCHIVE_OK && level == 0)
            r = archive_write_set_format_option(ar, "zip", "compression", "store");
        else if (r == ARCHIVE_OK) {
            snprintf(opt, sizeof opt, "%d", lv19);
            r = archive_write_set_format_option(ar, "zip", "compression-level", opt);
        }
        break;
    case FZ7_LA_GZIP:
    case FZ7_LA_BZIP2:
        r = archive_write_set_format_raw(ar);
        if (r == ARCHIVE_OK)
            r = kind == FZ7_LA_GZIP ? archive_write_add_filter_gzip(ar)
                                    : archive_write_add_filter_bzip2(ar);
        if (r == ARCHIVE_OK) {
            /* bzip2's block size as 7-Zip picks it: 100k at -mx1, 500k
             * at -mx3, 900k from -mx5. */
            int lv = kind == FZ7_LA_GZIP ? lv19 : level <= 2 ? 1 : level <= 4 ? 5 : 9;
            snprintf(opt, sizeof opt, "%d", lv);
            r = archive_write_set_filter_option(ar, NULL, "compression-level", opt);
        }
        break;
    }
    /* No padding of the last block: the file ends where the format does
     * (tar's two zero records, the compressor's trailer). */
    if (r == ARCHIVE_OK)
        r = archive_write_set_bytes_in_last_block(ar, 1);
    w->fd = fd;
    if (r == ARCHIVE_OK)
        r = kind == FZ7_LA_GZIP ? archive_write_open(ar, w, NULL, gz_write, NULL)
                                : archive_write_open_fd(ar, fd);
    if (r != ARCHIVE_OK) {
        fz7_status st = la_fail(w, ar);
        snprintf(err, errlen, "%s", w->err);
        fz7_la_writer_free(w);
        return st;
    }
    *out = w;
    return FZ7_OK;
}

fz7_status fz7_la_writer_begin(fz7_la_writer *w, const fz7_la_entry *e)
{
    struct archive_entry *ae = archive_entry_new();
    if (!ae)
        return FZ7_E_MEM;
    locale_t old = fz7_la_utf8_enter();
    archive_entry_set_pathname_utf8(ae, e->name);
    if (w->kind == FZ7_LA_GZIP && !w->gz_name && e->name[0]) {
        const char *base = strrchr(e->name, '/');
        w->gz_name = strdup(base ? base + 1 : e->name);   /* none when out of memory */
    }
    archive_entry_set_mode(ae, e->mode);
    archive_entry_set_mtime(ae, (time_t)e->mtime, (long)e->mtime_nsec);
    if (S_ISREG(e->mode) && e->hardlink)
        archive_entry_set_hardlink_utf8(ae, e->hardlink);
    if (S_ISREG(e->mode) && !e->hardlink)
        archive_entry_set_size(ae, (la_int64_t)e->size);
    else
        archive_entry_set_size(ae, 0);
    if (S_ISLNK(e->mode) && e->link_target)
        archive_entry_set_symlink_utf8(ae, e->link_target);
    int r = archive_write_header(w->ar, ae);
    fz7_la_utf8_leave(old);
    archive_entry_free(ae);
    return r < ARCHIVE_WARN ? la_fail(w, w->ar) : FZ7_OK;
}

fz7_status fz7_la_writer_write(fz7_la_writer *w, const uint8_t *p, size_t n)
{
    while (n) {
        la_ssize_t k = archive_write_data(w->ar, p, n);
        if (k <= 0)
            return la_fail(w, w->ar);
        p += k;
        n -= (size_t)k;
    }
    return FZ7_OK;
}

fz7_status fz7_la_writer_copy(fz7_la_writer *w, const char *old_path, fz7_la_copy_fn fn, void *ctx,
                              uint64_t *kept_dirs, uint64_t *kept_files, uint64_t *kept_bytes)
{
    *kept_dirs = *kept_files = *kept_bytes = 0;
    struct archive *in = archive_read_new();
    if (!in)
        return FZ7_E_MEM;
    archive_read_support_format_tar(in);
    archive_read_support_format_gnutar(in);
    archive_read_support_format_zip(in);
    locale_t old = fz7_la_utf8_enter();
    fz7_status st = FZ7_OK;
    uint8_t *buf = NULL;
    if (archive_read_open_filename(in, old_path, 64 << 10) != ARCHIVE_OK) {
        la_fail(w, in);
        st = FZ7_E_FORMAT;
        goto out;
    }
    buf = malloc(64 << 10);
    if (!buf) {
        st = FZ7_E_MEM;
        goto out;
    }
    for (size_t index = 0;;) {
        struct archive_entry *ae;
        int r = archive_read_next_header(in, &ae);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            la_fail(w, in);
            st = FZ7_E_DATA;
            goto out;
        }
        if (!fz7_la_is_root_folder(in, ae)) {
            char *path = fz7_la_entry_path(ae);
            if (!path) {
                st = FZ7_E_MEM;
                goto out;
            }
            const char *hard = archive_entry_hardlink_utf8(ae);
            if (!hard)
                hard = archive_entry_hardlink(ae);
            fz7_la_copy_as as = {.link = hard};
            st = fn(ctx, w, index++, path, hard, &as);
            const char *write_as = as.name;
            if (st == FZ7_OK && write_as && strcmp(write_as, path) != 0) {
                bool dir = archive_entry_filetype(ae) == AE_IFDIR;
                size_t n = strlen(write_as);
                char *name = malloc(n + 2);
                if (name) {   /* a folder's name ends in '/', as tar and zip write it */
                    snprintf(name, n + 2, "%s%s", write_as, dir ? "/" : "");
                    archive_entry_set_pathname_utf8(ae, name);
                    free(name);
                } else {
                    st = FZ7_E_MEM;
                }
            }
            if (st == FZ7_OK && write_as && hard && as.link != hard)
                archive_entry_set_hardlink_utf8(ae, as.link);
            if (st == FZ7_OK && write_as && as.set_mtime)
                archive_entry_set_mtime(ae, (time_t)as.mtime, (long)as.mtime_nsec);
            free(path);
            if (st != FZ7_OK)
                goto out;
            if (!write_as)
                continue;
        }
        bool dir = archive_entry_filetype(ae) == AE_IFDIR;
        if (dir)
            (*kept_dirs)++;
        else
            (*kept_files)++, *kept_bytes += (uint64_t)archive_entry_size(ae);
        if (archive_write_header(w->ar, ae) < ARCHIVE_WARN) {
            st = la_fail(w, w->ar);
            goto out;
        }
        for (;;) {
            la_ssize_t n = archive_read_data(in, buf, 64 << 10);
            if (n < 0) {
                la_fail(w, in);
                st = FZ7_E_DATA;
                goto out;
            }
            if (n == 0)
                break;
            if ((st = fz7_la_writer_write(w, buf, (size_t)n)) != FZ7_OK)
                goto out;
        }
    }
out:
    free(buf);
    archive_read_free(in);
    fz7_la_utf8_leave(old);
    return st;
}

fz7_status fz7_la_writer_finish(fz7_la_writer *w)
{
    if (archive_write_close(w->ar) != ARCHIVE_OK)
        return la_fail(w, w->ar);
    return FZ7_OK;
}

const char *fz7_la_writer_error(const fz7_la_writer *w)
{
    return w ? w->err : "";
}

void fz7_la_writer_free(fz7_la_writer *w)
{
    if (!w)
        return;
    archive_write_free(w->ar);
    free(w->gz_name);
    free(w);
}
