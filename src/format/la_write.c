/* la_write.c - tar and bzip2 writers over libarchive, the gzip writer on
 * fz7's Deflate encoder, and zip_write.c's zip writer behind the same
 * calls (see la_write.h). Names are handed to libarchive as the bytes of
 * a UTF-8 locale (archive_entry_copy_*, inside fz7_la_utf8_enter), so they
 * are stored as UTF-8 whatever the process locale is, and as they are:
 * libarchive's *_utf8 setters compose them (NFC), so a name of "e" +
 * U+0301 would be stored as U+00E9. */
#include "format/la_write.h"
#include "check/check.h"
#include "cpu/bytes.h"
#include "format/archive_impl.h"
#include "format/fd_ostream.h"
#include "format/zip_write.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GZIP_OS_UNIX 3
#define GZIP_FNAME 8

struct fz7_la_writer {
    struct archive *ar;        /* NULL for gzip and zip */
    int fd;                    /* tar: where old entries are copied as they are */
    fz7_zip_writer *zip;
    fz7_la_kind kind;
    fz7_la_opts opts;
    /* gzip (RFC 1952): the member's header is written at the entry's
     * begin, with its base name (FNAME) and time; the trailer holds the
     * CRC-32 and size of what was compressed. */
    fz7_fd_ostream gz_out;
    fz7_deflate_enc *gz_enc;
    uint32_t gz_crc;
    uint64_t gz_size;
    /* A GNU tar entry's header while libarchive makes it, when the fix
     * below must change it (held, then written to fd). */
    bool capturing;
    uint8_t *held;
    size_t held_n, held_cap;
    char err[256];
};

/* libarchive's output of a tar: to fd as it comes, or held while a header
 * that gnu_negative_mtime fixes is made. */
static la_ssize_t tar_out(struct archive *ar, void *ctx, const void *buf, size_t n)
{
    fz7_la_writer *w = ctx;
    if (w->capturing) {
        if (w->held_n + n > w->held_cap) {
            size_t cap = (w->held_n + n) * 2;
            uint8_t *h = realloc(w->held, cap);
            if (!h) {
                archive_set_error(ar, ENOMEM, "out of memory");
                return -1;
            }
            w->held = h;
            w->held_cap = cap;
        }
        memcpy(w->held + w->held_n, buf, n);
        w->held_n += n;
        return (la_ssize_t)n;
    }
    int err = fz7_write_full(w->fd, buf, n);
    if (err) {
        archive_set_error(ar, err, "%s", strerror(err));
        return -1;
    }
    return (la_ssize_t)n;
}

/* Sets a GNU header's mtime (offset 136, 12 bytes) to t before 1970, which
 * libarchive's GNU writer stores as 0, in base-256 (two's complement, the
 * top bit set: the form GNU tar and 7-Zip write and read), then its
 * checksum (offset 148: six octal digits, NUL, space). */
static void gnu_negative_mtime(uint8_t *h, int64_t t)
{
    uint64_t v = (uint64_t)t;
    memset(h + 136, 0xFF, 4);
    for (int i = 0; i < 8; i++)
        h[147 - i] = (uint8_t)(v >> (8 * i));
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    char digits[8];
    snprintf(digits, sizeof digits, "%06o", sum & 0777777u);
    memcpy(h + 148, digits, 7);   /* the six digits and a NUL; the space stays */
}

static fz7_status la_fail(fz7_la_writer *w, struct archive *ar)
{
    const char *m = ar ? archive_error_string(ar) : NULL;
    snprintf(w->err, sizeof w->err, "%s", m ? m : "libarchive error");
    int en = ar ? archive_errno(ar) : 0;
    return en == ENOMEM ? FZ7_E_MEM : FZ7_E_IO;
}

/* The gzip member's header (2.3): FNAME when the entry has a name; MTIME
 * the entry's, 0 when not stored or out of its 32 bits; XFL as 7-Zip sets
 * it (2, "maximum compression", from -mx7). */
static fz7_status gz_header(fz7_la_writer *w, const fz7_la_entry *e)
{
    const char *base = NULL;
    if (e && e->name[0]) {
        base = strrchr(e->name, '/');
        base = base ? base + 1 : e->name;
    }
    int64_t t = e && !w->opts.no_mtime ? e->mtime : 0;
    uint8_t h[10] = {0x1f, 0x8b, 8, base ? GZIP_FNAME : 0};
    fz7_put32le(h + 4, t > 0 && t <= UINT32_MAX ? (uint32_t)t : 0);
    h[8] = w->opts.level >= 7 ? 2 : 4;
    h[9] = GZIP_OS_UNIX;
    fz7_status st = w->gz_out.os.write(&w->gz_out.os, h, sizeof h);
    if (st == FZ7_OK && base)
        st = w->gz_out.os.write(&w->gz_out.os, (const uint8_t *)base, strlen(base) + 1);
    if (st != FZ7_OK)
        return st;
    fz7_deflate_enc_opts d = w->opts.deflate;
    d.level = w->opts.level < 1 ? 1 : w->opts.level;
    return fz7_deflate_enc_new_opts(&d, false, &w->gz_out.os, &w->gz_enc);
}

static fz7_status gz_finish(fz7_la_writer *w)
{
    fz7_status st = w->gz_enc ? FZ7_OK : gz_header(w, NULL);
    if (st == FZ7_OK)
        st = fz7_deflate_enc_finish(w->gz_enc);
    uint8_t t[8];
    fz7_put32le(t, w->gz_crc);
    fz7_put32le(t + 4, (uint32_t)w->gz_size);   /* ISIZE: the size modulo 2^32 */
    if (st == FZ7_OK)
        st = w->gz_out.os.write(&w->gz_out.os, t, sizeof t);
    if (st == FZ7_OK)
        st = fz7_fd_ostream_flush(&w->gz_out);
    if (st == FZ7_E_IO)
        snprintf(w->err, sizeof w->err, "%s", strerror(errno));
    return st;
}

fz7_status fz7_la_writer_new(int fd, fz7_la_kind kind, const fz7_la_opts *o, fz7_la_writer **out,
                             char *err, size_t errlen)
{
    *out = NULL;
    fz7_la_writer *w = calloc(1, sizeof *w);
    if (!w)
        return FZ7_E_MEM;
    w->kind = kind;
    w->fd = fd;
    if (o)
        w->opts = *o;
    else
        w->opts.level = -1;
    if (w->opts.level < 0)
        w->opts.level = 5;
    int level = w->opts.level;
    if (kind == FZ7_LA_ZIP) {
        fz7_status st = fz7_zip_writer_new(fd, &w->opts, &w->zip, err, errlen);
        if (st != FZ7_OK) {
            fz7_la_writer_free(w);
            return st;
        }
        *out = w;
        return FZ7_OK;
    }
    if (kind == FZ7_LA_GZIP) {
        if (fz7_fd_ostream_init(&w->gz_out, fd) != FZ7_OK) {
            fz7_la_writer_free(w);
            return FZ7_E_MEM;
        }
        *out = w;
        return FZ7_OK;
    }
    struct archive *ar = archive_write_new();
    if (!ar) {
        free(w);
        return FZ7_E_MEM;
    }
    w->ar = ar;
    char opt[64];
    int r = ARCHIVE_OK;
    switch (kind) {
    case FZ7_LA_TAR:
        r = w->opts.tar_posix ? archive_write_set_format_pax(ar) : archive_write_set_format_gnutar(ar);
        break;
    case FZ7_LA_ZIP:    /* zip_write.c's, above */
    case FZ7_LA_GZIP:   /* fz7's Deflate, above */
    case FZ7_LA_BZIP2:
        r = archive_write_set_format_raw(ar);
        if (r == ARCHIVE_OK)
            r = archive_write_add_filter_bzip2(ar);
        if (r == ARCHIVE_OK) {
            /* bzip2's block size as 7-Zip picks it: 100k at -mx1, 500k
             * at -mx3, 900k from -mx5; d= sets it. */
            int lv = w->opts.bzip2_block ? w->opts.bzip2_block : level <= 2 ? 1 : level <= 4 ? 5 : 9;
            snprintf(opt, sizeof opt, "%d", lv);
            r = archive_write_set_filter_option(ar, NULL, "compression-level", opt);
        }
        break;
    }
    /* No padding of the last block: the file ends where the format does
     * (tar's two zero records, the compressor's trailer). */
    if (r == ARCHIVE_OK)
        r = archive_write_set_bytes_in_last_block(ar, 1);
    /* a tar's blocks go out as each entry ends (no 10 KiB blocking), so
     * that an update can put old entries' bytes between them */
    if (r == ARCHIVE_OK && kind == FZ7_LA_TAR)
        r = archive_write_set_bytes_per_block(ar, 0);
    if (r == ARCHIVE_OK)
        r = kind == FZ7_LA_TAR ? archive_write_open2(ar, w, NULL, tar_out, NULL, NULL) : archive_write_open_fd(ar, fd);
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
    if (w->zip)
        return fz7_zip_writer_begin(w->zip, e);
    if (w->kind == FZ7_LA_GZIP) {
        if (w->gz_enc)
            return FZ7_E_ARG;   /* one member: the caller checks for one file */
        fz7_status st = gz_header(w, e);
        if (st == FZ7_E_IO)
            snprintf(w->err, sizeof w->err, "%s", strerror(errno));
        return st;
    }
    struct archive_entry *ae = archive_entry_new();
    if (!ae)
        return FZ7_E_MEM;
    locale_t old = fz7_la_utf8_enter();
    archive_entry_copy_pathname(ae, e->name);
    archive_entry_set_mode(ae, S_ISSOCK(e->mode) ? S_IFREG | (e->mode & 07777) : e->mode);
    if (S_ISCHR(e->mode) || S_ISBLK(e->mode))
        archive_entry_set_rdev(ae, (dev_t)e->rdev);
    /* GNU headers keep whole seconds; a POSIX tar the fraction -mtp asks
     * for, and ctime and atime, in pax records */
    uint32_t unit = w->opts.tar_posix ? w->opts.tar_time_unit : 0;
    if (!w->opts.no_mtime)
        archive_entry_set_mtime(ae, (time_t)e->mtime, unit ? (long)(e->mtime_nsec / unit * unit) : 0);
    if (w->opts.tar_posix && w->opts.zip_ctime)
        archive_entry_set_ctime(ae, (time_t)e->ctime, unit ? (long)(e->ctime_nsec / unit * unit) : 0);
    if (w->opts.tar_posix && w->opts.zip_atime)
        archive_entry_set_atime(ae, (time_t)e->atime, unit ? (long)(e->atime_nsec / unit * unit) : 0);
    if (S_ISREG(e->mode) && e->hardlink)
        archive_entry_copy_hardlink(ae, e->hardlink);
    if (S_ISREG(e->mode) && !e->hardlink)
        archive_entry_set_size(ae, (la_int64_t)e->size);
    else
        archive_entry_set_size(ae, 0);
    if (S_ISLNK(e->mode) && e->link_target)
        archive_entry_copy_symlink(ae, e->link_target);
    if (e->owner_ids) {
        archive_entry_set_uid(ae, e->uid);
        archive_entry_set_gid(ae, e->gid);
    }
    if (e->uname)
        archive_entry_copy_uname(ae, e->uname);
    if (e->gname)
        archive_entry_copy_gname(ae, e->gname);
    /* the header libarchive writes last is the entry's own (a long name's
     * records come before it) */
    bool fix = w->kind == FZ7_LA_TAR && !w->opts.tar_posix && !w->opts.no_mtime && e->mtime < 0;
    w->capturing = fix;
    w->held_n = 0;
    int r = archive_write_header(w->ar, ae);
    fz7_la_utf8_leave(old);
    archive_entry_free(ae);
    w->capturing = false;
    if (r < ARCHIVE_WARN)
        return la_fail(w, w->ar);
    if (fix && w->held_n >= 512)
        gnu_negative_mtime(w->held + w->held_n - 512, e->mtime);
    if (fix && w->held_n && tar_out(w->ar, w, w->held, w->held_n) < 0)
        return la_fail(w, w->ar);
    return FZ7_OK;
}

fz7_status fz7_la_writer_write(fz7_la_writer *w, const uint8_t *p, size_t n)
{
    if (w->zip)
        return fz7_zip_writer_write(w->zip, p, n);
    if (w->kind == FZ7_LA_GZIP) {
        if (!w->gz_enc)
            return FZ7_E_ARG;
        w->gz_crc = fz7_crc32(w->gz_crc, p, n);
        w->gz_size += n;
        fz7_status st = fz7_deflate_enc_write(w->gz_enc, p, n);
        if (st == FZ7_E_IO)
            snprintf(w->err, sizeof w->err, "%s", strerror(errno));
        return st;
    }
    while (n) {
        la_ssize_t k = archive_write_data(w->ar, p, n);
        if (k <= 0)
            return la_fail(w, w->ar);
        p += k;
        n -= (size_t)k;
    }
    return FZ7_OK;
}

/* Copies n bytes at off of the old tar v to the new one's fd (through
 * out, flushed at the end), by buf (64 KiB). */
static fz7_status copy_raw(fz7_la_writer *w, const fz7_volumes *v, uint64_t off, uint64_t n, uint8_t *buf,
                           fz7_fd_ostream *out)
{
    while (n) {
        size_t k = n < (64u << 10) ? (size_t)n : 64u << 10;
        if (fz7_volumes_pread(v, buf, k, off) != FZ7_OK) {
            snprintf(w->err, sizeof w->err, "the old archive ends inside an entry");
            return FZ7_E_TRUNCATED;
        }
        if (out->os.write(&out->os, buf, k) != FZ7_OK) {
            snprintf(w->err, sizeof w->err, "%s", strerror(errno));
            return FZ7_E_IO;
        }
        off += k;
        n -= k;
    }
    if (fz7_fd_ostream_flush(out) != FZ7_OK) {
        snprintf(w->err, sizeof w->err, "%s", strerror(errno));
        return FZ7_E_IO;
    }
    return FZ7_OK;
}

fz7_status fz7_la_writer_copy(fz7_la_writer *w, const char *old_path, fz7_la_copy_fn fn, void *ctx,
                              uint64_t *kept_dirs, uint64_t *kept_files, uint64_t *kept_bytes)
{
    if (w->zip)
        return fz7_zip_writer_copy(w->zip, w, old_path, fn, ctx, kept_dirs, kept_files, kept_bytes);
    *kept_dirs = *kept_files = *kept_bytes = 0;
    struct archive *in = archive_read_new();
    if (!in)
        return FZ7_E_MEM;
    archive_read_support_format_tar(in);
    archive_read_support_format_gnutar(in);
    locale_t old = fz7_la_utf8_enter();
    fz7_status st = FZ7_OK;
    uint8_t *buf = NULL;
    /* the pax names past ASCII as stored (libarchive composes them, NFC):
     * the entries are named by them and keep them */
    fz7_tar_headers th = {0};
    fz7_volumes *v = NULL;
    char verr[64];
    if (fz7_volumes_open(old_path, &v, verr, sizeof verr) == FZ7_OK)
        (void)fz7_tar_headers_read(v, fz7_volumes_size(v), FZ7_DEFAULT_MEM_LIMIT, FZ7_DETAIL_NONE, &th);
    size_t raw_at = 0, span_at = 0;
    fz7_fd_ostream raw_out = {0};   /* kept entries' bytes, straight to the fd */
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
        /* paired by where the entry's headers begin, as libarchive read them */
        uint64_t at = (uint64_t)archive_read_header_position(in);
        while (raw_at < th.raw_count && th.raw[raw_at].at < at)
            raw_at++;
        const fz7_tar_raw_name *raw = raw_at < th.raw_count && th.raw[raw_at].at == at ? &th.raw[raw_at] : NULL;
        while (span_at < th.count && th.span[2 * span_at] < at)
            span_at++;
        const uint64_t *span = span_at < th.count && th.span[2 * span_at] == at ? &th.span[2 * span_at] : NULL;
        /* (set as the locale's bytes, which are UTF-8 here: from UTF-8
         * libarchive would compose them again) */
        if (raw && raw->path)
            archive_entry_copy_pathname(ae, raw->path);
        if (raw && raw->linkpath && archive_entry_filetype(ae) == AE_IFLNK)
            archive_entry_copy_symlink(ae, raw->linkpath);
        bool changed = false;   /* renamed, or its hard link retargeted */
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
            changed = (write_as && strcmp(write_as, path) != 0) || (write_as && hard && as.link != hard);
            if (st == FZ7_OK && write_as && strcmp(write_as, path) != 0) {
                bool dir = archive_entry_filetype(ae) == AE_IFDIR;
                size_t n = strlen(write_as);
                char *name = malloc(n + 2);
                if (name) {   /* a folder's name ends in '/', as tar and zip write it */
                    snprintf(name, n + 2, "%s%s", write_as, dir ? "/" : "");
                    archive_entry_copy_pathname(ae, name);
                    free(name);
                } else {
                    st = FZ7_E_MEM;
                }
            }
            if (st == FZ7_OK && write_as && hard && as.link != hard)
                archive_entry_copy_hardlink(ae, as.link);
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
        if (!changed && span && span[1] != UINT64_MAX) {
            /* kept as it is: its bytes copied, every record of it (pax
             * times and xattrs, a sparse map) as 7zz copies them; the
             * entry before it is ended first, its padding out */
            if (archive_write_finish_entry(w->ar) < ARCHIVE_WARN) {
                st = la_fail(w, w->ar);
                goto out;
            }
            if (!raw_out.buf && fz7_fd_ostream_init(&raw_out, w->fd) != FZ7_OK) {
                st = FZ7_E_MEM;
                goto out;
            }
            if ((st = copy_raw(w, v, span[0], span[1] - span[0], buf, &raw_out)) != FZ7_OK)
                goto out;
            continue;   /* libarchive passes over its data at the next header */
        }
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
    fz7_tar_headers_free(&th);
    fz7_fd_ostream_free(&raw_out);
    fz7_volumes_close(v);
    fz7_la_utf8_leave(old);
    return st;
}

fz7_status fz7_la_writer_finish(fz7_la_writer *w)
{
    if (w->zip)
        return fz7_zip_writer_finish(w->zip);
    if (w->kind == FZ7_LA_GZIP)
        return gz_finish(w);
    if (archive_write_close(w->ar) != ARCHIVE_OK)
        return la_fail(w, w->ar);
    return FZ7_OK;
}

uint64_t fz7_la_writer_bytes(const fz7_la_writer *w)
{
    if (w->zip)
        return fz7_zip_writer_bytes(w->zip);
    if (w->kind == FZ7_LA_GZIP)
        return w->gz_out.pos;
    la_int64_t n = archive_filter_bytes(w->ar, -1);
    return n > 0 ? (uint64_t)n : 0;
}

const char *fz7_la_writer_error(const fz7_la_writer *w)
{
    if (w && w->zip)
        return fz7_zip_writer_error(w->zip);
    return w ? w->err : "";
}

void fz7_la_writer_free(fz7_la_writer *w)
{
    if (!w)
        return;
    if (w->ar)
        archive_write_free(w->ar);
    fz7_zip_writer_free(w->zip);
    fz7_deflate_enc_free(w->gz_enc);
    fz7_fd_ostream_free(&w->gz_out);
    free(w->held);
    free(w);
}
