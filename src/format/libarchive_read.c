/* libarchive_read.c - zip, tar, cpio, iso9660, rar, rar5, cab, xar and lzh, and one
 * bzip2, zstd, lz4 or compress file (a compressed tar too, as 7-Zip opens
 * it), read through libarchive behind the fz7_archive interface, so `l`,
 * `t`, `x` and `e` treat them like 7z archives (the same safe extraction in
 * cli/). libarchive reads the archive's byte space (volumes included)
 * through callbacks; the entries are listed in one pass at open and decoded
 * in a second pass from the start at extract. A compressed file from a
 * pipe is read once, forward (fz7_libarchive_open_pipe). gzip has fz7's
 * own reader (gzip_read.c), which checks every member. */
#include "format/archive_impl.h"
#include "format/zip_crypt.h"
#include "format/zip_format.h"
#include "check/check.h"
#include "codec/codec.h"
#include "lzma/lzma_dec.h"
#include "cpu/bytes.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LA_READ_BYTES ((size_t)1 << 16)

/* What extraction does with an entry. LA_HARDLINK: a hard link (tar)
 * whose data is an earlier file's; LA_LINK_LATER: an empty first name of
 * a file whose data comes with a later link (cpio). Both are written as a
 * copy of the entry at link_index. LA_XAR_TOC: a xar's TOC, which fz7
 * holds (no header of libarchive's). */
typedef enum { LA_FILE, LA_DIR, LA_SYMLINK, LA_HARDLINK, LA_LINK_LATER, LA_SPECIAL, LA_XAR_TOC } la_kind;

/* The archive's byte space as libarchive sees it: a read position and the
 * buffer the last read callback filled. */
typedef struct {
    const fz7_volumes *vol;
    uint64_t size;
    uint64_t pos;          /* a pipe: the bytes handed to libarchive */
    int fd;                /* a pipe (pipe_read), else -1 */
    const uint8_t *head;   /* a pipe's first head_len bytes, read before */
    size_t head_len;
    uint64_t pad;          /* zero bytes served after size: an lzh without
                              its end mark gets one, as its decoder reads
                              past the last entry's data */
    uint8_t buf[LA_READ_BYTES];
} la_source;

typedef struct {
    bool raw;              /* one compressed file (x.gz), not an archive:
                              a compressed tar too, as 7-Zip opens it */
    struct archive *pipe_ar; /* a pipe's reader, its one header read, until
                              extracted (fz7_libarchive_open_pipe) */
    la_source *pipe_src;   /* a pipe's source, with its head bytes */
    char raw_method[256];  /* 7-Zip's Method line of a zstd frame */
    char iso_comment[1024]; /* an ISO's identifiers and volume numbers
                              (info.comment) */
    bool iso_rr;           /* an ISO's names and modes are Rock Ridge's */
    bool bad_start;        /* a bzip2 file whose first block does not
                              decode: listed, its one entry a Data Error */
    char missing_error[PATH_MAX + 32]; /* a split zip's "Missing volume : x.z02" */
    size_t la_count;       /* entries libarchive listed; those after them
                              (a split zip's past a missing disk) come from
                              the central directory alone, 0: none do */
    la_kind *kinds;        /* per entry */
    char **link_targets;   /* per entry: symlink or hard link target, or NULL */
    size_t *link_index;    /* per entry: the entry holding a link's data, or
                              SIZE_MAX */
    char type_name[16];
    char method[16];
    char traits[160];      /* a tar's Characteristics (tar_traits) */
    size_t *hdr_of;        /* per entry: its header's index in the tar */
    uint64_t *hdr_pos;     /* per entry: where libarchive read its header */
    fz7_tar_headers tar;   /* a plain tar's headers (FZ7_DETAIL_PROPS) */
    fz7_zip_rec *zip;      /* a zip's records, per entry */
    char **tar_la_path;    /* a tar's entries whose pax name was taken as
                              stored: libarchive's (NFC) name, per entry,
                              else NULL (or no array) */
    fz7_cpio_headers cpio; /* a cpio's headers (FZ7_DETAIL_PROPS) */
    uint32_t *cpio_check;  /* per header a "crc" cpio's byte sum, or NULL */
    char *comment;         /* the archive's Comment (info.comment) */
    fz7_cab_headers cab;   /* a cabinet's records, one per entry, or none */
    char cab_lines[3][8];  /* its Blocks, Volume Index and ID values */
    fz7_xar_headers xar;   /* a xar's header and TOC, or none (toc NULL) */
    size_t *xar_file;      /* per entry its <file> in xar.files (the TOC's
                              entry: xar.count) */
    char xar_created[40];  /* its creation-time as stored */
    fz7_lzh_headers lzh;   /* an lzh's headers, one per entry, or none */
    bool la_stopped;       /* libarchive failed on a header after entries
                              (an lzh's: lzh_take says what 7-Zip says) */
} la_priv;

static void lzh_raw_name(char *s);
static char *lzh_join(char *path, const char *target);

/* What 7-Zip's Characteristics line says of a tar: the header kinds met
 * (GNU with LongName/LongLink records, POSIX ustar with PREFIX), then
 * ASCII or UTF8 with the largest code point of the names. pax headers
 * list their keys there, which libarchive does not show: no line then. */
typedef struct tar_traits {
    bool gnu, ustar, pax, long_name, long_link, prefix, utf8;
    bool bad_utf8;         /* a name that is not UTF-8 (7-Zip: "UTF8-ERROR non-UTF8") */
    bool walked;           /* the headers were read (pax_keys known) */
    uint8_t pax_keys;      /* FZ7_TAR_PAX_* of all entries */
    uint32_t max_unicode;
    uint64_t data_bytes;   /* entries' data, padded to 512-byte blocks */
    uint64_t extent;       /* where the last entry's data ends (walked) */
    uint64_t end;          /* past the end blocks and zeros after them (walked; 0: not reached) */
} tar_traits;

static void tar_traits_take(tar_traits *t, struct archive *ar, struct archive_entry *ae)
{
    int f = archive_format(ar);
    const char *raw = archive_entry_pathname(ae);
    const char *link = archive_entry_hardlink(ae) ? archive_entry_hardlink(ae) : archive_entry_symlink(ae);
    size_t n = raw ? strlen(raw) : 0;
    if (f == ARCHIVE_FORMAT_TAR_GNUTAR) {
        t->gnu = true;
        t->long_name |= n > 100;
        t->long_link |= link && strlen(link) > 100;
    } else if (f == ARCHIVE_FORMAT_TAR_USTAR) {
        t->ustar = true;
        t->prefix |= n > 100;
    } else {
        t->pax = true;
    }
    bool valid = !raw || fz7_utf8_valid(raw);
    t->bad_utf8 |= !valid;
    uint32_t m = raw && valid ? fz7_max_code_point(raw) : 0;
    t->utf8 |= m > 0x7F;
    if (m > t->max_unicode)
        t->max_unicode = m;
    mode_t type = archive_entry_filetype(ae);
    int64_t size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : 0;
    if ((type == AE_IFREG || type == 0 || archive_entry_hardlink(ae)) && size > 0)
        t->data_bytes += ((uint64_t)size + 511) & ~(uint64_t)511;
}

/* The tar's Characteristics and Headers Size, as 7-Zip shows them. */
static void tar_traits_put(const tar_traits *t, fz7_archive *a, la_priv *p)
{
    /* cut short: 7-Zip's Physical Size is where the last entry would end */
    if (a->info.open_error && t->extent != UINT64_MAX && t->extent > a->file_size) {
        a->info.phy_size = t->extent;
        a->info.headers_size = t->extent - t->data_bytes;
    } else if (!a->info.open_error && t->end && t->end < a->file_size && t->end >= t->data_bytes) {
        /* bytes after the end blocks: 7-Zip's tail, with its warning */
        a->info.phy_size = t->end;
        a->info.tail_size = a->file_size - t->end;
        a->info.headers_size = t->end - t->data_bytes;
    } else if (a->file_size >= t->data_bytes)
        a->info.headers_size = a->file_size - t->data_bytes;
    a->info.code_page = a->opts.code_page ? a->opts.code_page : "UTF-8";
    if (t->pax && !t->walked)
        return;   /* which pax records there are is not known */
    char max[24] = "";
    if (t->utf8)
        snprintf(max, sizeof max, " MaxUnicode=%u", (unsigned)t->max_unicode);
    uint8_t k = t->pax_keys;
    snprintf(p->traits, sizeof p->traits, "%s%s%s%s%s%s%s%s%s%s%s%s%s", t->gnu ? "GNU " : "",
             t->long_name ? "LongName " : "", t->long_link ? "LongLink " : "",
             t->ustar || t->pax ? "POSIX " : "", t->prefix ? "PREFIX " : "",
             k & FZ7_TAR_PAX_HEADER ? "PAX " : "", k & FZ7_TAR_PAX_PATH ? "path " : "",
             k & FZ7_TAR_PAX_LINKPATH ? "linkpath " : "", k & FZ7_TAR_PAX_MTIME ? "mtime " : "",
             k & FZ7_TAR_PAX_ATIME ? "atime " : "", k & FZ7_TAR_PAX_CTIME ? "ctime " : "",
             t->bad_utf8 ? "UTF8-ERROR non-UTF8" : t->utf8 ? "UTF8" : "ASCII", max);
    a->info.characteristics = p->traits;
}

/* The pax names past ASCII as stored: libarchive composes them (NFC), and
 * 7zz, tar and a restore keep the bytes. An entry whose name differs
 * takes the stored one (libarchive's kept to check its reader against);
 * a symlink whose target differs, the stored target. */
static void raw_names_take(fz7_archive *a, la_priv *p, const fz7_tar_headers *th)
{
    size_t r = 0;
    for (size_t i = 0; i < a->count && r < th->raw_count; i++) {
        while (r < th->raw_count && th->raw[r].header < p->hdr_of[i])
            r++;
        if (r == th->raw_count || th->raw[r].header != p->hdr_of[i])
            continue;
        const fz7_tar_raw_name *n = &th->raw[r];
        fz7_entry *e = &a->entries[i];
        if (n->path) {
            size_t len = strlen(n->path);
            while (len > 1 && n->path[len - 1] == '/')
                len--;
            if ((strlen(e->path) != len || memcmp(e->path, n->path, len) != 0) &&
                (p->tar_la_path || (p->tar_la_path = calloc(a->count, sizeof *p->tar_la_path)))) {
                char *raw = strndup(n->path, len);
                if (raw) {
                    p->tar_la_path[i] = e->path;
                    e->path = raw;
                }
            }
        }
        if (n->linkpath && p->kinds[i] == LA_SYMLINK && p->link_targets[i] &&
            strcmp(p->link_targets[i], n->linkpath) != 0) {
            char *raw = strdup(n->linkpath);
            if (raw) {
                free(p->link_targets[i]);
                p->link_targets[i] = raw;
                e->size = strlen(raw);
            }
        }
    }
}

/* Reads the tar's own headers (tar_headers.c): what the archive block
 * says of them and, as the listing asks (opts.detail), each entry's packed
 * size and what fz7_archive_entry_props lists; names as stored. Nothing
 * changes when they cannot be read or do not pair with libarchive's
 * headers (headers of them, one per entry and root folder). */
static void tar_headers_take(fz7_archive *a, la_priv *p, size_t headers, tar_traits *t)
{
    fz7_tar_headers th;
    if (fz7_tar_headers_read(a->vol, a->file_size, a->opts.mem_limit, a->opts.detail, &th) != FZ7_OK)
        return;
    if (th.count != headers) {
        fz7_tar_headers_free(&th);
        return;
    }
    for (size_t i = 0; a->opts.detail != FZ7_DETAIL_NONE && i < a->count; i++) {
        a->entries[i].packed_size = th.h ? th.h[p->hdr_of[i]].packed : th.packed[p->hdr_of[i]];
        a->entries[i].packed_known = true;
    }
    raw_names_take(a, p, &th);
    t->walked = true;
    t->extent = th.count && th.span ? th.span[2 * (th.count - 1) + 1] : 0;
    t->end = th.end;
    t->pax_keys = th.pax_union;
    t->gnu = th.flags_union & FZ7_TAR_GNU;
    t->ustar = th.flags_union & FZ7_TAR_POSIX;
    t->pax = false;   /* the walk tells: POSIX magic, PAX records */
    t->data_bytes += th.global_bytes;
    p->comment = th.global;
    th.global = NULL;
    a->info.comment = p->comment;
    if (th.h)
        p->tar = th;
    else
        fz7_tar_headers_free(&th);
}

/* A compressed file's one entry (bzip2, zstd...): nothing is known of it
 * before decoding; gzip has its own reader (gzip_read.c). */
static size_t raw_props(const fz7_archive *a, fz7_prop *pr, char *buf, size_t cap)
{
    (void)a;
    (void)buf;
    (void)cap;
    size_t n = 0;
    fz7_prop_text(pr, &n, "Size", "");
    fz7_prop_text(pr, &n, "Packed Size", "");
    return n;
}

static size_t la_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const la_priv *p = a->priv;
    if (p->raw)
        return raw_props(a, pr, buf, cap);
    if (p->cpio.h)
        return fz7_cpio_props(&a->entries[i], &p->cpio.h[p->hdr_of[i]], p->link_targets[i],
                              p->kinds[i] == LA_LINK_LATER ? p->link_index[i] : i, pr, buf, cap);
    if (p->tar.h)
        return fz7_tar_props(&a->entries[i], &p->tar.h[p->hdr_of[i]], p->link_targets[i], pr, buf,
                             cap);
    if (p->zip && p->zip[i].matched)
        return fz7_zip_props(&a->entries[i], &p->zip[i], pr, buf, cap);
    if (strcmp(p->type_name, "Iso") == 0)
        return fz7_iso_props(&a->entries[i], p->link_targets[i], p->iso_rr, pr, buf, cap);
    if (p->cab.count)
        return fz7_cab_props(&a->entries[i], &p->cab, i, pr, buf, cap);
    if (p->xar.toc)
        return fz7_xar_props(&a->entries[i], &p->xar, p->xar_file[i], pr, buf, cap);
    if (p->lzh.h && i < p->lzh.count)
        return fz7_lzh_props(&a->entries[i], &p->lzh.h[i], pr, buf, cap);
    return 0;
}

static la_ssize_t src_read(struct archive *ar, void *ctx, const void **out)
{
    la_source *s = ctx;
    *out = s->buf;
    uint64_t left = s->pos < s->size ? s->size - s->pos : 0;   /* (an ISO's skip may pass the end) */
    size_t n = left < LA_READ_BYTES ? (size_t)left : LA_READ_BYTES;
    if (n == 0 && s->pos >= s->size && s->pos - s->size < s->pad) {
        n = (size_t)(s->size + s->pad - s->pos);
        n = n < LA_READ_BYTES ? n : LA_READ_BYTES;
        memset(s->buf, 0, n);
        s->pos += n;
        return (la_ssize_t)n;
    }
    if (n == 0)
        return 0;
    fz7_status st = fz7_volumes_pread(s->vol, s->buf, n, s->pos);
    /* (a disk inside a cut image: its blocks past the image's end read
     * as the end of the bytes, so libarchive's probe finds no format
     * there rather than a read error that ends the search) */
    if (st == FZ7_E_TRUNCATED && fz7_volumes_is_window(s->vol))
        return 0;
    if (st != FZ7_OK) {
        archive_set_error(ar, EIO, "Read error: %s", fz7_status_str(st));
        return -1;
    }
    s->pos += n;
    return (la_ssize_t)n;
}

static la_int64_t src_skip(struct archive *ar, void *ctx, la_int64_t request)
{
    la_source *s = ctx;
    uint64_t left = s->pos < s->size ? s->size - s->pos : 0;
    uint64_t n = request < 0 ? 0 : (uint64_t)request < left ? (uint64_t)request : left;
    /* An ISO image's directory records are read before any data: a skip
     * past a cut lets the entries after it be listed as 7-Zip lists them
     * (their data fails when it is read) */
    if (request > 0 && (archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ISO9660 &&
        (uint64_t)request <= UINT64_MAX - s->pos)
        n = (uint64_t)request;
    s->pos += n;
    return (la_int64_t)n;
}

static la_int64_t src_seek(struct archive *ar, void *ctx, la_int64_t offset, int whence)
{
    la_source *s = ctx;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)s->pos : (int64_t)s->size;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) {
        archive_set_error(ar, EINVAL, "Bad seek");
        return ARCHIVE_FATAL;
    }
    if ((offset < 0 && -offset > base) || (offset > 0 && offset > INT64_MAX - base)) {
        archive_set_error(ar, EINVAL, "Seek out of range");
        return ARCHIVE_FATAL;
    }
    int64_t to = base + offset;
    s->pos = (uint64_t)to > s->size ? s->size : (uint64_t)to;
    return (la_int64_t)s->pos;
}

/* A source over the archive's volumes (la_start fills it in). */
static la_source *source_new(void)
{
    la_source *src = malloc(sizeof *src);
    if (src) {
        src->fd = -1;
        src->head = NULL;
        src->head_len = 0;
        src->pad = 0;
    }
    return src;
}

/* A pipe's bytes: the head read before libarchive started, then fd. */
static la_ssize_t pipe_read(struct archive *ar, void *ctx, const void **out)
{
    la_source *s = ctx;
    if (s->pos < s->head_len) {
        *out = s->head + s->pos;
        size_t n = s->head_len - (size_t)s->pos;
        s->pos += n;
        return (la_ssize_t)n;
    }
    *out = s->buf;
    for (;;) {
        ssize_t n = read(s->fd, s->buf, LA_READ_BYTES);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            archive_set_error(ar, EIO, "Read error: %s", strerror(errno));
            return -1;
        }
        s->pos += (uint64_t)n;
        return (la_ssize_t)n;
    }
}

/* A reader over the archive's bytes from offset 0, with the formats and
 * filters fz7 hands to libarchive (no external programs, no 7z: fz7 reads
 * 7z itself). raw: the bytes are one compressed file (gzip, bzip2, zstd,
 * lz4, compress), taken only when a compression filter recognised them.
 * FZ7_E_FORMAT with err empty when libarchive recognises nothing there. */
static fz7_status la_start(fz7_archive *a, la_source *src, bool raw, struct archive **ar_out,
                           char *err, size_t errlen)
{
    *ar_out = NULL;
    bool pipe = src->fd >= 0;
    if (!pipe) {
        src->vol = a->vol;
        src->size = fz7_volumes_present(a->vol);   /* a split zip with a disk missing: a zip cut short */
    }
    src->pos = 0;
    struct archive *ar = archive_read_new();
    if (!ar)
        return FZ7_E_MEM;
    archive_read_support_filter_gzip(ar);
    archive_read_support_filter_bzip2(ar);
    archive_read_support_filter_xz(ar);
    archive_read_support_filter_lzma(ar);
    archive_read_support_filter_zstd(ar);
    archive_read_support_filter_lz4(ar);
    archive_read_support_filter_compress(ar);
    if (raw) {
        archive_read_support_format_raw(ar);
    } else {
        archive_read_support_format_zip(ar);
        archive_read_support_format_tar(ar);
        archive_read_support_format_gnutar(ar);
        archive_read_support_format_cpio(ar);
        archive_read_support_format_iso9660(ar);
        archive_read_support_format_rar(ar);
        archive_read_support_format_rar5(ar);
        archive_read_support_format_cab(ar);
        archive_read_support_format_xar(ar);
        archive_read_support_format_lha(ar);
        /* an lzh's names as stored, as 7-Zip shows them (libarchive's
         * default, CP932, fails the header on any byte past ASCII): each
         * byte comes as U+0000-U+00FF, lzh_raw_name makes it a byte again */
        archive_read_set_format_option(ar, "lha", "hdrcharset", "ISO-8859-1");
    }
    if (a->opts.password)
        archive_read_add_passphrase(ar, a->opts.password);
    if (pipe) {
        archive_read_set_read_callback(ar, pipe_read);
    } else {
        archive_read_set_read_callback(ar, src_read);
        archive_read_set_skip_callback(ar, src_skip);
        archive_read_set_seek_callback(ar, src_seek);
    }
    archive_read_set_callback_data(ar, src);
    if (archive_read_open1(ar) != ARCHIVE_OK) {
        /* Either no format recognised (not ours: the next reader tries) or
         * a read error. */
        bool io = archive_errno(ar) == EIO;
        if (io)
            snprintf(err, errlen, "%s", archive_error_string(ar) ? archive_error_string(ar) : "Read error");
        archive_read_free(ar);
        return io ? FZ7_E_IO : FZ7_E_FORMAT;
    }
    /* The raw format takes any bytes: only behind a real decompressor
     * (filter 0 is the outermost; the last one is the plain source). And
     * behind one, 7-Zip opens one compressed file, a tar in it or not:
     * `x a.tar.gz` gives a.tar. */
    bool filtered = archive_filter_count(ar) >= 2 && archive_filter_code(ar, 0) != ARCHIVE_FILTER_NONE;
    if (raw != filtered) {
        archive_read_free(ar);
        return FZ7_E_FORMAT;
    }
    *ar_out = ar;
    return FZ7_OK;
}

#define LA_NO_MESSAGE "unknown libarchive error"

static const char *la_message(struct archive *ar)
{
    const char *m = archive_error_string(ar);
    return m ? m : LA_NO_MESSAGE;
}

/* The status a failed header or data read stands for. */
static fz7_status la_failure(struct archive *ar)
{
    const char *m = la_message(ar);
    if (archive_errno(ar) == EIO && strncmp(m, "Read error", 10) == 0)
        return FZ7_E_IO;
    if (strstr(m, "runcated") || strstr(m, "premature end") || strstr(m, "Premature end"))
        return FZ7_E_TRUNCATED;
    return FZ7_E_DATA;
}

static void name_format(struct archive *ar, la_priv *p)
{
    const char *t = "?";
    switch (archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) {
    case ARCHIVE_FORMAT_ZIP: t = "zip"; break;
    case ARCHIVE_FORMAT_TAR: t = "tar"; break;
    case ARCHIVE_FORMAT_CPIO: t = "Cpio"; break;
    case ARCHIVE_FORMAT_ISO9660: t = "Iso"; break;
    case ARCHIVE_FORMAT_RAR: t = "Rar"; break;
    case ARCHIVE_FORMAT_RAR_V5: t = "Rar5"; break;
    case ARCHIVE_FORMAT_CAB: t = "Cab"; break;
    case ARCHIVE_FORMAT_XAR: t = "Xar"; break;
    case ARCHIVE_FORMAT_LHA: t = "Lzh"; break;
    }
    snprintf(p->type_name, sizeof p->type_name, "%s", t);
    p->iso_rr = archive_format_name(ar) && strstr(archive_format_name(ar), "Rockridge");
    const char *m = "";
    switch (archive_filter_code(ar, 0)) {
    case ARCHIVE_FILTER_GZIP: m = "gzip"; break;
    case ARCHIVE_FILTER_BZIP2: m = "bzip2"; break;
    case ARCHIVE_FILTER_XZ: m = "xz"; break;
    case ARCHIVE_FILTER_LZMA: m = "lzma"; break;
    case ARCHIVE_FILTER_ZSTD: m = "zstd"; break;
    case ARCHIVE_FILTER_LZ4: m = "lz4"; break;
    case ARCHIVE_FILTER_COMPRESS: m = "Z"; break;
    }
    snprintf(p->method, sizeof p->method, "%s", m);
}

char *fz7_la_entry_path(struct archive_entry *ae)
{
    const char *p = archive_entry_pathname_utf8(ae);
    if (!p)
        p = archive_entry_pathname(ae);
    if (!p)
        p = "";
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, p, n);
        r[n] = 0;
    }
    return r;
}

bool fz7_la_is_root_folder(struct archive *ar, struct archive_entry *ae)
{
    const char *p = archive_entry_pathname(ae);
    if (!p || !*p || archive_entry_filetype(ae) != AE_IFDIR)
        return false;
    /* An image's root is the image itself (7-Zip lists none). */
    bool image = (archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ISO9660;
    while (image && p[0] == '.' && (p[1] == '/' || p[1] == 0))
        p += p[1] ? 2 : 1;
    if (!image && *p != '/')
        return false;
    while (*p == '/')
        p++;
    return *p == 0;
}

/* A zip without its central directory: each entry's packed size from its
 * local header (APPNOTE 4.3.7), as 7-Zip lists them; left unknown where
 * the sizes are in a data descriptor or a zip64 field. */
static void zip_local_sizes(fz7_archive *a, const la_priv *p)
{
    for (size_t i = 0; i < a->count; i++) {
        uint8_t h[ZIP_LFH_LEN];
        if (p->hdr_pos[i] == UINT64_MAX || fz7_volumes_pread(a->vol, h, sizeof h, p->hdr_pos[i]) != FZ7_OK ||
            fz7_get32le(h) != ZIP_LFH_SIG || (fz7_get16le(h + 6) & ZIP_FLAG_DESCRIPTOR))
            continue;
        uint32_t packed = fz7_get32le(h + 18);
        if (packed != UINT32_MAX) {
            a->entries[i].packed_size = packed;
            a->entries[i].packed_known = true;
        }
    }
}

/* Fills e from a libarchive header; kind and link target for extraction. */
static fz7_status fill_entry(struct archive_entry *ae, fz7_entry *e, la_kind *kind, char **target)
{
    memset(e, 0, sizeof *e);
    *target = NULL;
    e->path = fz7_la_entry_path(ae);
    if (!e->path)
        return FZ7_E_MEM;
    mode_t type = archive_entry_filetype(ae);
    uint32_t perm = archive_entry_perm(ae) & 07777;
    const char *hard = archive_entry_hardlink_utf8(ae);
    if (!hard)
        hard = archive_entry_hardlink(ae);
    const char *sym = archive_entry_symlink_utf8(ae);
    if (!sym)
        sym = archive_entry_symlink(ae);
    int64_t size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1;
    bool odd_type = false;   /* listed with its own type, extracted as a file */
    if (type == AE_IFDIR) {
        *kind = LA_DIR;
        e->is_dir = true;
        e->mode = S_IFDIR | perm;
        size = 0;
    } else if (type == AE_IFLNK && sym) {
        *kind = LA_SYMLINK;
        e->is_symlink = true;
        e->mode = S_IFLNK | perm;
        size = (int64_t)strlen(sym);
        if (!(*target = strdup(sym)))
            return FZ7_E_MEM;
    } else if (hard && size <= 0) {
        *kind = LA_HARDLINK;   /* no data of its own */
        e->mode = S_IFREG | perm;
        size = 0;
        if (!(*target = strdup(hard)))
            return FZ7_E_MEM;
    } else if (type == AE_IFREG || type == 0 || hard) {
        *kind = LA_FILE;
        e->mode = S_IFREG | perm;
        if (hard && !(*target = strdup(hard)))   /* a link carrying the data */
            return FZ7_E_MEM;
    } else if (size > 0) {
        /* a type with data (a zip's mode says device, or all bits set):
         * the data are the entry's, as 7-Zip extracts them */
        *kind = LA_FILE;
        e->mode = S_IFREG | perm;
        odd_type = true;
    } else {
        *kind = LA_SPECIAL;   /* devices, FIFOs, sockets */
        e->mode = (uint32_t)type | perm;
        size = 0;
    }
    e->has_size = size >= 0;
    e->size = size > 0 ? (uint64_t)size : 0;
    /* Attributes as 7-Zip gives them for Unix archives: the mode in the
     * high 16 bits, 0x8000 to say so, 0x10 for directories. */
    e->has_attrib = true;
    uint32_t shown_type = odd_type ? (uint32_t)type : e->mode & S_IFMT;
    e->attrib = 0x8000u | ((shown_type | perm) << 16) | (e->is_dir ? 0x10u : 0);
    if (archive_entry_mtime_is_set(ae)) {
        e->has_mtime = true;
        e->mtime = (int64_t)archive_entry_mtime(ae);
        long ns = archive_entry_mtime_nsec(ae);
        e->mtime_nsec = ns > 0 && ns < 1000000000L ? (uint32_t)ns : 0;
        /* whole seconds: a tar's (pax can say more); a zip's are
         * refined by its central directory (zip_central.c) */
        e->mtime_prec = e->mtime_nsec ? FZ7_MTIME_EXACT : FZ7_MTIME_SECONDS;
    }
    e->encrypted = archive_entry_is_encrypted(ae) != 0;
    e->has_stream = *kind == LA_SYMLINK || (*kind == LA_FILE && e->size != 0) ||
                    (*kind == LA_FILE && !e->has_size);
    e->folder = -1;
    e->method = "";
    return FZ7_OK;
}

static void la_close(fz7_archive *a)
{
    la_priv *p = a->priv;
    if (!p)
        return;
    for (size_t i = 0; i < a->count; i++)
        free(p->link_targets[i]);
    free(p->link_targets);
    free(p->link_index);
    free(p->kinds);
    free(p->hdr_of);
    free(p->hdr_pos);
    free(p->cpio.h);
    free(p->cpio_check);
    fz7_cab_headers_free(&p->cab);
    fz7_xar_headers_free(&p->xar);
    fz7_lzh_headers_free(&p->lzh);
    free(p->xar_file);
    fz7_tar_headers_free(&p->tar);
    for (size_t i = 0; p->zip && i < a->count; i++) {
        free(p->zip[i].comment);
        free(p->zip[i].la_path);
    }
    for (size_t i = 0; p->tar_la_path && i < a->count; i++)
        free(p->tar_la_path[i]);
    free(p->tar_la_path);
    free(p->zip);
    free(p->comment);
    if (p->pipe_src) {
        archive_read_free(p->pipe_ar);
        free((void *)p->pipe_src->head);
        free(p->pipe_src);
    }
    free(p);
    a->priv = NULL;
}

/* Delivers n zero bytes (holes of sparse files). */
static fz7_status send_zeros(const fz7_extract_cb *cb, uint64_t n)
{
    static const uint8_t zeros[4096];
    while (n > 0) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        fz7_status st = cb->data(cb->ctx, zeros, k);
        if (st != FZ7_OK)
            return st;
        n -= k;
    }
    return FZ7_OK;
}

/* A libarchive message as an error's detail: one line (some end in '\n'). */
/* An entry's damaged data in 7-Zip's words, by libarchive's message m: a
 * check that fails (a zip's CRC, a zstd frame's checksum, a xar's
 * "Sumcheck") is "CRC Failed", data that end before the size the header gives (a zip's "read
 * 600, expected 4294967280") "Unexpected end of data", else "Data Error". */
static fz7_status data_failure(const char *m)
{
    if (strstr(m, "CRC") || strstr(m, "checksum") || strstr(m, "Sumcheck"))
        return FZ7_E_CRC;
    unsigned long long got, want;
    const char *w = strstr(m, "wrong size (read ");
    if (w && sscanf(w, "wrong size (read %llu, expected %llu)", &got, &want) == 2 && got < want)
        return FZ7_E_TRUNCATED;
    return FZ7_E_DATA;
}

static void detail_set(char *detail, size_t dlen, const char *m)
{
    /* libarchive's newc reader fails some cuts without a reason: no
     * line then, rather than "unknown libarchive error" */
    if (!strcmp(m, LA_NO_MESSAGE))
        m = "";
    snprintf(detail, dlen, "%s", m);
    size_t n = strlen(detail);
    while (n > 0 && (detail[n - 1] == '\n' || detail[n - 1] == ' '))
        detail[--n] = 0;
}

/* Decodes the current entry's data into cb. *cb_st gets a callback's
 * failure; *fatal says libarchive cannot read on (a failed read, not a
 * warning such as a CRC mismatch); the result is the entry's status,
 * FZ7_E_CRC when check (a "crc" cpio's byte sum, or NULL) disagrees. */
static fz7_status read_file_data(struct archive *ar, const fz7_entry *e, bool raw, const uint32_t *check,
                                 const fz7_extract_cb *cb, fz7_status *cb_st, bool *fatal,
                                 uint64_t *produced, char *detail, size_t dlen)
{
    uint32_t sum = 0;
    uint64_t here = 0, *done = produced ? produced : &here;   /* bytes decoded (delivered up to the size) */
    *done = 0;
    fz7_status warned = FZ7_OK;
    for (;;) {
        const void *blk = NULL;
        size_t n = 0;
        la_int64_t off = (la_int64_t)*done;
        int r = archive_read_data_block(ar, &blk, &n, &off);
        if (r == ARCHIVE_EOF)
            break;
        if (r == ARCHIVE_WARN && warned == FZ7_OK) {
            /* The entry is damaged (a zip CRC mismatch comes this way)
             * but the archive can go on. */
            const char *m = la_message(ar);
            warned = data_failure(m);
            detail_set(detail, dlen, m);
        }
        if (r == ARCHIVE_WARN && (n == 0 || !blk))
            continue;
        if (r < ARCHIVE_WARN || off < 0 || (uint64_t)off < *done) {
            *fatal = r == ARCHIVE_FATAL;   /* FAILED: this entry alone (a zip's wrong password) */
            detail_set(detail, dlen, r < ARCHIVE_WARN ? la_message(ar) : "data out of order");
            if (r < ARCHIVE_WARN && la_failure(ar) == FZ7_E_DATA)
                return data_failure(la_message(ar));
            return r < ARCHIVE_WARN ? la_failure(ar) : FZ7_E_DATA;
        }
        if ((uint64_t)off > *done && (*cb_st = send_zeros(cb, (uint64_t)off - *done)) != FZ7_OK)
            return *cb_st;
        *done = (uint64_t)off;
        /* never more than the header's size: what damaged data decodes
         * to past it is not the file's (7-Zip stops there too) */
        size_t keep = n;
        if (!raw && e->has_size && (*done >= e->size || n > e->size - *done))
            keep = *done >= e->size ? 0 : (size_t)(e->size - *done);
        if (keep > 0 && (*cb_st = cb->data(cb->ctx, blk, keep)) != FZ7_OK)
            return *cb_st;
        for (size_t k = 0; check && k < n; k++)
            sum += ((const uint8_t *)blk)[k];
        *done += n;
    }
    if (warned != FZ7_OK)
        return warned;
    if (check && sum != *check)
        return FZ7_E_CRC;
    if (raw)
        return FZ7_OK;   /* its size is a trailer's, modulo 2^32 (gzip) */
    if (e->has_size && *done > e->size) {
        snprintf(detail, dlen, "%llu bytes of data where the header says %llu",
                 (unsigned long long)*done, (unsigned long long)e->size);
        return FZ7_E_DATA;
    }
    /* A tar's sparse file may end in a hole; in another format data that
     * ends early is damage (a zip entry cut short decodes to nothing and
     * libarchive checks no CRC then: 7zz's Data Error). */
    if (e->has_size && *done < e->size) {
        if ((archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR) {
            snprintf(detail, dlen, "%llu bytes of data where the header says %llu",
                     (unsigned long long)*done, (unsigned long long)e->size);
            return FZ7_E_DATA;
        }
        if ((*cb_st = send_zeros(cb, e->size - *done)) != FZ7_OK)
            return *cb_st;
    }
    return FZ7_OK;
}


/* Bytes after a bzip2 file's last stream, which libarchive stops at
 * without a word: how many (from a pipe, at least how many); 0 none. */
static uint64_t bzip2_tail(struct archive *ar, const la_source *src)
{
    int nf = archive_filter_count(ar);
    if (nf < 2 || archive_filter_code(ar, 0) != ARCHIVE_FILTER_BZIP2)
        return 0;
    la_int64_t used = archive_filter_bytes(ar, nf - 1);
    if (used < 0)
        return 0;
    if (src->fd < 0)
        return src->size > (uint64_t)used ? src->size - (uint64_t)used : 0;
    if (src->pos > (uint64_t)used)
        return src->pos - (uint64_t)used;
    uint8_t b;
    ssize_t n;
    do
        n = read(src->fd, &b, 1);
    while (n < 0 && errno == EINTR);
    return n > 0;
}

/* libarchive fails the header of a zip's encrypted symbolic link whose
 * target it cannot decode (an AES one): the name and mode are there, and fz7
 * decodes the target itself (zip_own). r: the header's result. */
static int zip_link_header(struct archive *ar, struct archive_entry *ae, int r)
{
    if (r != ARCHIVE_FAILED || !ae || (archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_ZIP ||
        archive_entry_filetype(ae) != AE_IFLNK || !archive_entry_is_data_encrypted(ae))
        return r;
    if (!archive_entry_symlink(ae))
        archive_entry_set_symlink(ae, "");
    return ARCHIVE_WARN;
}

/* archive_read_next_header, with zip_link_header's exception. */
static int la_next_header(struct archive *ar, struct archive_entry **ae)
{
    *ae = NULL;
    int r = archive_read_next_header(ar, ae);
    return zip_link_header(ar, *ae, r);
}

/* Whether fz7 decodes entry i of a zip itself: Deflate64, which 7-Zip
 * writes and libarchive cannot read; PPMd (var.I), fz7's own codec; LZMA,
 * whose end marker libarchive does not require where the flag says it is;
 * encrypted BZip2, LZMA and xz, which libarchive reads undecrypted; and
 * an encrypted symbolic link, whose target libarchive hands over still
 * encrypted; and a file whose mode says device or socket (libarchive hands
 * over no data for it). */
static bool zip_own(const fz7_archive *a, size_t i)
{
    const la_priv *p = a->priv;
    const fz7_zip_rec *r = p->zip ? &p->zip[i] : NULL;
    if (!r || !r->matched)
        return false;
    if (p->la_count && i >= p->la_count)
        return p->kinds[i] != LA_DIR;   /* libarchive never reaches it */
    /* a file whose mode says device or socket: libarchive gives no data */
    uint32_t type = (a->entries[i].attrib >> 16) & S_IFMT;
    if (p->kinds[i] == LA_FILE && type && type != S_IFREG && type != S_IFIFO)
        return true;
    uint16_t method = r->aes ? r->aes_method : r->method;
    bool enc = r->flags & ZIP_FLAG_ENCRYPTED;
    return method == ZIP_METHOD_DEFLATE64 || method == ZIP_METHOD_PPMD || method == ZIP_METHOD_LZMA ||
           (enc && (method == ZIP_METHOD_BZIP2 || method == ZIP_METHOD_LZMA || method == ZIP_METHOD_XZ)) ||
           (enc && p->kinds[i] == LA_SYMLINK);
}

/* An entry's data as it leaves its cipher (ZipCrypto or WinZip AES). */
typedef struct zip_plain {
    fz7_istream base;
    fz7_istream *raw;
    enum { PLAIN, ZIPCRYPTO, WZAES } cipher;
    fz7_zipcrypto zc;
    fz7_wzaes aes;
} zip_plain;

static fz7_status zip_plain_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    zip_plain *z = (zip_plain *)s;
    fz7_status st = z->raw->read(z->raw, buf, cap, got);
    if (st == FZ7_OK && z->cipher == ZIPCRYPTO)
        fz7_zipcrypto_decrypt(&z->zc, buf, *got);
    else if (st == FZ7_OK && z->cipher == WZAES)
        fz7_wzaes_decrypt(&z->aes, buf, *got);
    return st;
}

/* Sets z's cipher from the bytes at *at (the encryption header), moving
 * *at and *len past them (and an AES entry's code at the end). */
static fz7_status zip_plain_start(const fz7_archive *a, const fz7_zip_rec *r, const uint8_t *lh, zip_plain *z,
                                  uint64_t *at, uint64_t *len, char *detail, size_t dlen)
{
    const char *pw = a->opts.password;
    if (!(r->flags & ZIP_FLAG_ENCRYPTED))
        return FZ7_OK;
    if (!pw) {
        snprintf(detail, dlen, "the entry is encrypted and no password was given");
        return FZ7_E_NEED_PASSWORD;
    }
    if (r->aes) {
        size_t slen = fz7_wzaes_salt_len(r->aes_strength);
        uint8_t salt[16 + 2], pv[2];
        if (r->aes_strength < 1 || r->aes_strength > 3 || *len < slen + 2 + FZ7_WZAES_MAC ||
            fz7_volumes_pread(a->vol, salt, slen + 2, *at) != FZ7_OK)
            return FZ7_E_DATA;
        fz7_wzaes_init(&z->aes, r->aes_strength, pw, salt, pv);
        if (memcmp(pv, salt + slen, 2) != 0)
            return FZ7_E_WRONG_PASSWORD;
        z->cipher = WZAES;
        *at += slen + 2;
        *len -= slen + 2 + FZ7_WZAES_MAC;
        return FZ7_OK;
    }
    uint8_t h[FZ7_ZIPCRYPTO_HEADER];
    if (*len < sizeof h || fz7_volumes_pread(a->vol, h, sizeof h, *at) != FZ7_OK)
        return FZ7_E_DATA;
    fz7_zipcrypto_init(&z->zc, pw);
    fz7_zipcrypto_decrypt(&z->zc, h, sizeof h);
    /* the check byte (APPNOTE 6.1.6): the CRC's high byte, or with a data
     * descriptor the DOS time's */
    uint8_t want = r->flags & ZIP_FLAG_DESCRIPTOR ? lh[11] : (uint8_t)(r->crc >> 24);
    if (h[sizeof h - 1] != want)
        return FZ7_E_WRONG_PASSWORD;
    z->cipher = ZIPCRYPTO;
    *at += sizeof h;
    *len -= sizeof h;
    return FZ7_OK;
}

/* Where a zip entry's own decoding delivers: counted, its CRC-32 summed,
 * no more than the record's size let through. */
typedef struct zip_sink {
    const fz7_extract_cb *cb;
    fz7_status *cb_st;
    uint32_t crc;
    uint64_t n, limit;
} zip_sink;

static fz7_status zip_sink_data(void *ctx, const uint8_t *p, size_t n)
{
    zip_sink *k = ctx;
    if (n > k->limit - k->n)
        return FZ7_E_DATA;
    k->crc = fz7_crc32(k->crc, p, n);
    k->n += n;
    fz7_status st = k->cb->data(k->cb->ctx, p, n);
    if (st != FZ7_OK)
        *k->cb_st = st;
    return st;
}

/* Decodes entry i of a zip with fz7's own code, from the data after its
 * local header (APPNOTE 4.3.7): decrypted, inflated (Deflate, Deflate64)
 * or stored, its size, CRC-32 (or AES code) checked. */
static fz7_status zip_own_data(fz7_archive *a, size_t i, const fz7_extract_cb *cb, fz7_status *cb_st,
                               char *detail, size_t dlen)
{
    const la_priv *p = a->priv;
    const fz7_zip_rec *r = &p->zip[i];
    const fz7_entry *e = &a->entries[i];
    uint16_t method = r->aes ? r->aes_method : r->method;
    if (method != ZIP_METHOD_STORE && method != ZIP_METHOD_DEFLATE && method != ZIP_METHOD_DEFLATE64 &&
        method != ZIP_METHOD_BZIP2 && method != ZIP_METHOD_LZMA && method != ZIP_METHOD_XZ &&
        method != ZIP_METHOD_PPMD) {
        snprintf(detail, dlen, "unsupported method %u", (unsigned)method);
        return FZ7_E_UNSUPPORTED;
    }
    uint8_t lh[ZIP_LFH_LEN];
    if (a->file_size < ZIP_LFH_LEN || r->at > a->file_size - ZIP_LFH_LEN ||
        fz7_volumes_pread(a->vol, lh, sizeof lh, r->at) != FZ7_OK || fz7_get32le(lh) != ZIP_LFH_SIG) {
        snprintf(detail, dlen, "no local header where the central directory says");
        return FZ7_E_DATA;
    }
    uint64_t at = r->at + ZIP_LFH_LEN + fz7_get16le(lh + 26) + fz7_get16le(lh + 28), len = e->packed_size;
    if (at > a->file_size || len > a->file_size - at) {
        snprintf(detail, dlen, "the data reaches past the archive's end");
        return FZ7_E_TRUNCATED;
    }
    zip_plain *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    fz7_status st = zip_plain_start(a, r, lh, z, &at, &len, detail, dlen);
    fz7_istream *dec = NULL;
    if (st == FZ7_OK && !(z->raw = fz7_volumes_istream_new(a->vol, at, len)))
        st = FZ7_E_MEM;
    z->base.read = zip_plain_read;
    if (st == FZ7_OK && (method == ZIP_METHOD_DEFLATE || method == ZIP_METHOD_DEFLATE64))
        st = fz7_deflate_istream_new(&z->base, method == ZIP_METHOD_DEFLATE64, &dec);
    if (st == FZ7_OK && method == ZIP_METHOD_BZIP2)
        st = fz7_bzip2_istream_new(&z->base, a->opts.mem_limit, &dec);
    if (st == FZ7_OK && method == ZIP_METHOD_LZMA) {
        /* APPNOTE 5.8.8: the SDK's version, the properties' size (5), the
         * properties; the stream may end with its end marker */
        uint8_t h[4 + 5];
        st = fz7_istream_read_full(&z->base, h, sizeof h);
        if (st == FZ7_OK && fz7_get16le(h + 2) != 5)
            st = FZ7_E_UNSUPPORTED;
        /* bit 1: the stream ends with its marker, which must be there (7zz) */
        if (st == FZ7_OK)
            st = fz7_lzma_istream_new(&z->base, h + 4, r->flags & ZIP_FLAG_LZMA_EOS ? UINT64_MAX : r->size,
                                      a->opts.mem_limit, &dec);
    }
    if (st == FZ7_OK && method == ZIP_METHOD_PPMD) {
        /* APPNOTE 5.10: 2 bytes of properties, then the stream */
        uint8_t h[2];
        unsigned order, restore;
        uint32_t mem;
        st = fz7_istream_read_full(&z->base, h, sizeof h);
        if (st == FZ7_E_TRUNCATED)
            st = FZ7_E_DATA;   /* 7zz: the entry's bytes ended, a data error */
        if (st == FZ7_OK)
            st = fz7_ppmd8_zip_props_parse(h, &order, &mem, &restore);
        if (st == FZ7_OK)
            st = fz7_ppmd8_istream_new(&z->base, order, mem, restore, r->size, a->opts.mem_limit, &dec);
    }
    fz7_istream *in = dec ? dec : &z->base;
    uint8_t buf[1 << 14];
    zip_sink sink = {cb, cb_st, 0, 0, r->size};
    if (st == FZ7_OK && method == ZIP_METHOD_XZ) {
        /* a whole .xz stream (APPNOTE 5.14), its checks verified too */
        const fz7_extract_cb xcb = {.ctx = &sink, .data = zip_sink_data};
        bool cb_failed;
        st = fz7_xz_decode_istream(&z->base, a->opts.mem_limit, &xcb, &cb_failed, detail, dlen);
    }
    for (size_t got = 0; st == FZ7_OK && method != ZIP_METHOD_XZ;) {
        st = in->read(in, buf, sizeof buf, &got);
        if (st != FZ7_OK || got == 0)
            break;
        st = zip_sink_data(&sink, buf, got);
    }
    /* A PPMd or LZMA stream's end (its marker, or the size) ends the
     * entry's bytes: one more is a data error, as in 7zz (and a PPMd
     * stream shorter than the size) */
    bool ppmd_end = method == ZIP_METHOD_PPMD && (st == FZ7_OK || st == FZ7_E_TRUNCATED);
    if (ppmd_end || (method == ZIP_METHOD_LZMA && dec && st == FZ7_OK)) {
        size_t got = 0;
        size_t unread = ppmd_end ? fz7_ppmd8_istream_unread(dec) : fz7_lzma_istream_unread(dec);
        if (unread != 0 || (z->base.read(&z->base, buf, 1, &got) == FZ7_OK && got != 0))
            st = FZ7_E_DATA;
    }
    /* 7zz calls every damage of an LZMA entry a Data Error: cut short, or
     * its end marker before or after the size */
    if (method == ZIP_METHOD_LZMA && (st == FZ7_E_TRUNCATED || (st == FZ7_OK && sink.n != r->size)))
        st = FZ7_E_DATA;
    uint32_t crc = sink.crc;
    uint64_t n = sink.n;
    if (dec)
        dec->destroy(dec);
    if (st == FZ7_OK && z->cipher == WZAES) {
        /* the code covers all of the ciphertext, what Deflate left too */
        for (size_t got = 1; st == FZ7_OK && got;)
            st = z->base.read(&z->base, buf, sizeof buf, &got);
        uint8_t mac[FZ7_WZAES_MAC], stored[FZ7_WZAES_MAC];
        fz7_wzaes_mac(&z->aes, mac);
        if (st == FZ7_OK && (fz7_volumes_pread(a->vol, stored, sizeof stored, at + len) != FZ7_OK ||
                             memcmp(mac, stored, sizeof mac) != 0))
            st = FZ7_E_DATA;
    }
    /* AE-2 stores no CRC (0): the code above checked the data */
    bool crc_stored = !(r->aes && r->crc == 0);
    if (st == FZ7_OK && (n != r->size || (crc_stored && crc != r->crc)))
        st = FZ7_E_CRC;
    if (z->raw)
        z->raw->destroy(z->raw);   /* not the decoder's (codec.h) */
    fz7_wzaes_wipe(&z->aes);
    free(z);
    return st;
}

/* Delivers the data of entry t (a regular file) again, for a hard link to
 * it: a second reader goes from the start to t. The entry's status comes
 * back; *cb_st gets a callback's failure. */
static fz7_status copy_link_target(fz7_archive *a, size_t t, const fz7_extract_cb *cb,
                                   fz7_status *cb_st, char *detail, size_t dlen)
{
    la_priv *p = a->priv;
    la_source *src = source_new();
    if (!src)
        return FZ7_E_MEM;
    struct archive *ar;
    char err[160] = "";
    fz7_status st = la_start(a, src, p->raw, &ar, err, sizeof err);
    if (st != FZ7_OK) {
        snprintf(detail, dlen, "can not read the archive again: %s", err[0] ? err : fz7_status_str(st));
        free(src);
        return st == FZ7_E_FORMAT ? FZ7_E_DATA : st;
    }
    struct archive_entry *ae;
    for (size_t k = 0; k <= t && st == FZ7_OK; k++) {
        int r;
        while ((r = la_next_header(ar, &ae)) >= ARCHIVE_WARN && r != ARCHIVE_EOF &&
               fz7_la_is_root_folder(ar, ae))
            ;
        if (r < ARCHIVE_WARN || r == ARCHIVE_EOF) {
            detail_set(detail, dlen, r == ARCHIVE_EOF ? "the archive ends early" : la_message(ar));
            st = r == ARCHIVE_EOF ? FZ7_E_TRUNCATED : la_failure(ar);
        }
    }
    if (st == FZ7_OK) {
        bool fatal = false;
        st = read_file_data(ar, &a->entries[t], false, NULL, cb, cb_st, &fatal, NULL, detail, dlen);
    }
    archive_read_free(ar);
    free(src);
    return st;
}

/* A hard link's target as entries are named: without a leading '/'. */
static const char *link_name(const char *path)
{
    while (path[0] == '/' && path[1])
        path++;
    return path;
}

/* The entry before i that is a regular file named path, or the file an
 * earlier hard link of that name was resolved to (a chain of links), or
 * SIZE_MAX. A leading '/' of path is dropped, as entry names drop it. */
static size_t find_file_before(const fz7_archive *a, size_t i, const char *path)
{
    const la_priv *p = a->priv;
    path = link_name(path);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    for (size_t k = i; k-- > 0;) {
        if (strlen(a->entries[k].path) != n || memcmp(a->entries[k].path, path, n) != 0)
            continue;
        if (p->kinds[k] == LA_FILE || p->kinds[k] == LA_LINK_LATER)
            return k;
        size_t t = p->kinds[k] == LA_HARDLINK ? p->link_index[k] : SIZE_MAX;
        if (t < k && p->kinds[t] == LA_FILE)
            return t;
    }
    return SIZE_MAX;
}

/* The first regular file after i named path (a leading '/' dropped), or
 * SIZE_MAX: a tar hard link written before its file, which 7-Zip links
 * too. */
static size_t find_file_after(const fz7_archive *a, size_t i, const char *path)
{
    const la_priv *p = a->priv;
    path = link_name(path);
    for (size_t k = i + 1; k < a->count; k++)
        if (p->kinds[k] == LA_FILE && strcmp(a->entries[k].path, path) == 0)
            return k;
    return SIZE_MAX;
}

/* Points every hard link at the entry that holds its data: a tar link at
 * the earlier file it names (else a later one); the empty first name of a
 * cpio link set at the later entry that carries the data. */
static fz7_status resolve_links(fz7_archive *a)
{
    la_priv *p = a->priv;
    for (size_t i = 0; i < a->count; i++)
        p->link_index[i] = SIZE_MAX;
    for (size_t i = 0; i < a->count; i++) {
        if (!p->link_targets[i] || p->kinds[i] == LA_SYMLINK)
            continue;
        size_t k = find_file_before(a, i, p->link_targets[i]);
        if (p->kinds[i] == LA_HARDLINK && k == SIZE_MAX)
            k = find_file_after(a, i, p->link_targets[i]);
        if (p->kinds[i] == LA_HARDLINK) {
            p->link_index[i] = k;
            /* A tar hard link's target goes in its fz7_entry_more. */
            if ((k == SIZE_MAX || p->kinds[k] != LA_LINK_LATER) && !a->more &&
                !(a->more = calloc(a->count, sizeof *a->more)))
                return FZ7_E_MEM;
            if (k == SIZE_MAX) {
                a->more[i].hardlink_missing = p->link_targets[i];
                a->entries[i].more = &a->more[i];
            } else if (p->kinds[k] == LA_LINK_LATER) {
                p->link_index[i] = p->link_index[k];
            } else {
                a->entries[i].is_hardlink = true;
                a->more[i].hardlink_index = k;
                a->entries[i].more = &a->more[i];
            }
        } else if (p->kinds[i] == LA_FILE && k != SIZE_MAX && a->entries[k].size == 0 &&
                   a->entries[i].size > 0) {
            p->kinds[k] = LA_LINK_LATER;
            p->link_index[k] = i;
            a->entries[k].size = a->entries[i].size;
        }
    }
    return FZ7_OK;
}

/* libarchive converts names through the thread's locale; under the C
 * locale a UTF-8 zip name converts to nothing. These calls run with a
 * UTF-8 LC_CTYPE for this thread only (uselocale), the process's locale
 * untouched. Returns the locale to restore, or 0 when none was set. */
locale_t fz7_la_utf8_enter(void)
{
    static const char *const names[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        locale_t l = newlocale(LC_CTYPE_MASK, names[i], (locale_t)0);
        if (l) {
            locale_t old = uselocale(l);
            if (old != (locale_t)0)
                return old;
            freelocale(l);
            return (locale_t)0;
        }
    }
    return (locale_t)0;
}

void fz7_la_utf8_leave(locale_t old)
{
    if (old == (locale_t)0)
        return;
    locale_t mine = uselocale(old);
    if (mine != (locale_t)0 && mine != LC_GLOBAL_LOCALE)
        freelocale(mine);
}

/* A hard link's entry i (or cpio's empty first name of a link set): made
 * a link by cb->hardlink, else written as a copy of the file it links
 * to. Returns the entry's status; *cb_st a callback's failure. */
static fz7_status link_entry(fz7_archive *a, size_t i, const fz7_extract_cb *cb, fz7_status *cb_st,
                             char *detail, size_t dlen)
{
    const la_priv *p = a->priv;
    size_t t = p->link_index[i];
    if (t == SIZE_MAX) {
        snprintf(detail, dlen, "hard link to %s, which is not an earlier file", p->link_targets[i]);
        return FZ7_E_UNSUPPORTED;
    }
    if (p->kinds[i] == LA_HARDLINK && p->kinds[t] == LA_FILE && cb->hardlink && cb->hardlink(cb->ctx, i, t))
        return FZ7_OK;
    return copy_link_target(a, t, cb, cb_st, detail, dlen);
}

/* A tar hard link to a later file: made once that file was extracted. */
static bool links_forward(const la_priv *p, size_t i)
{
    return p->kinds[i] == LA_HARDLINK && p->link_index[i] != SIZE_MAX && p->link_index[i] > i;
}

static fz7_status extract_in_locale(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                                    char *err, size_t errlen)
{
    la_priv *p = a->priv;
    la_source *src;
    struct archive *ar;
    if (p->bad_start) {
        fz7_status ret = FZ7_OK;
        if (!select || select[0]) {
            ret = cb->begin(cb->ctx, 0, &a->entries[0]);
            if (ret == FZ7_OK)
                ret = cb->end(cb->ctx, 0, FZ7_E_DATA, "the first bzip2 block does not decode");
        }
        return ret;
    }
    /* A pipe's reader is open at its one entry, and cannot start over. */
    bool header_read = p->pipe_src != NULL;
    if (header_read) {
        if (!p->pipe_ar) {
            snprintf(err, errlen, "a piped archive can be read once");
            return FZ7_E_UNSUPPORTED;
        }
        ar = p->pipe_ar;
        src = p->pipe_src;
        p->pipe_ar = NULL;
        p->pipe_src = NULL;
    } else {
        if (!(src = source_new()))
            return FZ7_E_MEM;
        src->pad = p->lzh.h && !p->lzh.end_mark && !p->lzh.cut ? 1 : 0;
        fz7_status st = la_start(a, src, p->raw, &ar, err, errlen);
        if (st == FZ7_E_FORMAT && errlen && !err[0])
            snprintf(err, errlen, "Cannot open the file as archive (it changed since it was opened)");
        if (st != FZ7_OK) {
            free(src);
            return st;
        }
    }
    uint64_t produced = 0;
    fz7_status ret = FZ7_OK;
    /* Once the stream is broken (a fatal header or data error), every
     * later selected entry fails with the same reason. */
    fz7_status broken = FZ7_OK;
    char broken_detail[256] = "";
    for (size_t i = 0; i < a->count && ret == FZ7_OK; i++) {
        const fz7_entry *e = &a->entries[i];
        bool wanted = !select || select[i];
        struct archive_entry *ae = NULL;
        bool cd_only = p->la_count && i >= p->la_count;
        if (header_read) {
            header_read = false;
        } else if (cd_only) {
            /* no header of libarchive's: the record says it all */
        } else if (broken == FZ7_OK && p->kinds[i] != LA_XAR_TOC) {
            int r;
            while ((r = la_next_header(ar, &ae)) >= ARCHIVE_WARN && r != ARCHIVE_EOF &&
                   fz7_la_is_root_folder(ar, ae))
                ;
            if (r < ARCHIVE_WARN || r == ARCHIVE_EOF) {
                broken = r == ARCHIVE_EOF ? FZ7_E_TRUNCATED : la_failure(ar);
                detail_set(broken_detail, sizeof broken_detail,
                           r == ARCHIVE_EOF ? "the archive ends early" : la_message(ar));
            } else {
                char *path = fz7_la_entry_path(ae);
                if (!path) {
                    ret = FZ7_E_MEM;
                    break;
                }
                if (p->lzh.h) {
                    lzh_raw_name(path);
                    const char *t = archive_entry_symlink_utf8(ae);
                    if (p->kinds[i] == LA_DIR && archive_entry_filetype(ae) == AE_IFLNK && t &&
                        !(path = lzh_join(path, t))) {
                        ret = FZ7_E_MEM;
                        break;
                    }
                }
                const char *listed = p->zip && p->zip[i].la_path                   ? p->zip[i].la_path
                                     : p->tar_la_path && p->tar_la_path[i] ? p->tar_la_path[i]
                                                                           : e->path;
                if (!p->raw && strcmp(path, listed) != 0) {
                    broken = FZ7_E_DATA;
                    snprintf(broken_detail, sizeof broken_detail, "the archive changed since it was opened");
                }
                free(path);
            }
        }
        if (!wanted || links_forward(p, i))
            continue;   /* libarchive skips its data at the next header */
        if ((ret = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status est = FZ7_OK, cb_st = FZ7_OK;
        char detail[256] = "";
        /* what the listing holds whole (a folder, a link's target, an
         * empty file) is made even when the stream is broken before it */
        bool listed_whole = !zip_own(a, i) && (p->kinds[i] == LA_DIR || p->kinds[i] == LA_SYMLINK ||
                                               p->kinds[i] == LA_SPECIAL || p->kinds[i] == LA_XAR_TOC ||
                                               (p->kinds[i] == LA_FILE && e->has_size && e->size == 0));
        if (cd_only && p->kinds[i] == LA_DIR) {
            /* a folder: nothing to read */
        } else if (cd_only) {
            est = zip_own_data(a, i, cb, &cb_st, detail, sizeof detail);
        } else if (broken != FZ7_OK && !listed_whole) {
            est = broken;
            snprintf(detail, sizeof detail, "%s", broken_detail);
        } else if (broken != FZ7_OK && p->kinds[i] != LA_SYMLINK && p->kinds[i] != LA_XAR_TOC) {
            /* nothing to read */
        } else if (p->kinds[i] == LA_SYMLINK && zip_own(a, i)) {
            est = zip_own_data(a, i, cb, &cb_st, detail, sizeof detail);
        } else if (p->kinds[i] == LA_SYMLINK) {
            const char *t = p->link_targets[i];
            if (t[0])
                cb_st = cb->data(cb->ctx, (const uint8_t *)t, strlen(t));
        } else if (p->kinds[i] == LA_HARDLINK || p->kinds[i] == LA_LINK_LATER) {
            est = link_entry(a, i, cb, &cb_st, detail, sizeof detail);
        } else if (p->kinds[i] == LA_XAR_TOC) {
            cb_st = cb->data(cb->ctx, p->xar.toc, p->xar.toc_size);
        } else if (p->kinds[i] == LA_SPECIAL) {
            /* A device, FIFO or socket has no data: written as an empty
             * file (the umask's permissions), exit 0, as 7-Zip writes it. */
        } else if (p->kinds[i] == LA_FILE && p->xar_file && !fz7_xar_supported(&p->xar, p->xar_file[i])) {
            est = FZ7_E_UNSUPPORTED;   /* libarchive skips its data at the next header */
        } else if (p->kinds[i] == LA_FILE && zip_own(a, i)) {
            est = zip_own_data(a, i, cb, &cb_st, detail, sizeof detail);
        } else if (p->kinds[i] == LA_FILE) {
            bool fatal = false;
            const uint32_t *check = p->cpio_check ? &p->cpio_check[p->hdr_of[i]] : NULL;
            est = read_file_data(ar, e, p->raw, check, cb, &cb_st, &fatal, &produced, detail, sizeof detail);
            if (e->encrypted && (est == FZ7_E_DATA || est == FZ7_E_CRC))
                est = strstr(detail, "Incorrect passphrase") ? FZ7_E_WRONG_PASSWORD : FZ7_E_PASSWORD;
            /* the entry the cut went through, in 7-Zip's words: its zip
             * reader finds the CRC wrong, its tar reader the data short */
            if (a->info.open_error && est == FZ7_E_TRUNCATED)
                est = strcmp(p->type_name, "zip") == 0 ? FZ7_E_CRC : FZ7_E_DATA;
            uint64_t tail = est == FZ7_OK && p->raw ? bzip2_tail(ar, src) : 0;
            if (tail) {   /* 7-Zip's error for them */
                est = FZ7_E_TAIL;
                snprintf(detail, sizeof detail, "%s%llu bytes after the bzip2 stream's end",
                         src->fd >= 0 ? "at least " : "", (unsigned long long)tail);
            }
            if (cb_st == FZ7_OK && fatal) {
                /* libarchive cannot go on after a fatal data error. */
                broken = est;
                snprintf(broken_detail, sizeof broken_detail, "%s", detail);
            }
        }
        if (cb_st != FZ7_OK) {
            ret = cb_st;
            break;
        }
        ret = cb->end(cb->ctx, i, est, detail[0] ? detail : NULL);
    }
    /* Links to later files, now that those were extracted. */
    for (size_t i = 0; i < a->count && ret == FZ7_OK; i++) {
        if ((select && !select[i]) || !links_forward(p, i))
            continue;
        if ((ret = cb->begin(cb->ctx, i, &a->entries[i])) != FZ7_OK)
            break;
        fz7_status cb_st = FZ7_OK;
        char detail[256] = "";
        fz7_status est = link_entry(a, i, cb, &cb_st, detail, sizeof detail);
        if (cb_st != FZ7_OK) {
            ret = cb_st;
            break;
        }
        ret = cb->end(cb->ctx, i, est, detail[0] ? detail : NULL);
    }
    if (src->fd >= 0) {   /* a pipe: what it held is known now */
        a->entries[0].size = produced;
        a->entries[0].has_size = true;
        a->info.phy_size = src->pos;
        free((void *)src->head);
    }
    archive_read_free(ar);
    free(src);
    return ret;
}

static fz7_status la_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                             char *err, size_t errlen)
{
    locale_t old = fz7_la_utf8_enter();
    fz7_status st = extract_in_locale(a, select, cb, err, errlen);
    fz7_la_utf8_leave(old);
    return st;
}

static const fz7_archive_ops la_ops = {la_extract, la_close, la_props};

/* Keeps entry i's owner ids from its header (opts.owners); the entries
 * between without one get none (UINT32_MAX twice). */
static fz7_status keep_owner(fz7_archive *a, size_t i, struct archive_entry *ae)
{
    if (i >= a->owners_cap) {
        size_t ncap = a->owners_cap ? 2 * a->owners_cap : 64;
        while (ncap <= i)
            ncap *= 2;
        uint32_t *o = realloc(a->owners, ncap * 2 * sizeof *o);
        if (!o)
            return FZ7_E_MEM;
        memset(o + 2 * a->owners_cap, 0xff, (ncap - a->owners_cap) * 2 * sizeof *o);
        a->owners = o;
        a->owners_cap = ncap;
    }
    a->owners[2 * i] = (uint32_t)archive_entry_uid(ae);
    a->owners[2 * i + 1] = (uint32_t)archive_entry_gid(ae);
    return FZ7_OK;
}

/* Grows the per-entry arrays to hold n + 1 items. */
static fz7_status grow(fz7_archive *a, la_priv *p, size_t *cap)
{
    if (a->count < *cap)
        return FZ7_OK;
    size_t ncap = *cap ? 2 * *cap : 64;
    uint64_t bytes = (uint64_t)ncap * (sizeof(fz7_entry) + sizeof(la_kind) + sizeof(char *) +
                                       2 * sizeof(size_t) + sizeof(uint64_t));
    if (bytes > a->opts.mem_limit)
        return FZ7_E_MEMLIMIT;
    fz7_entry *e = realloc(a->entries, ncap * sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    a->entries = e;
    la_kind *k = realloc(p->kinds, ncap * sizeof *k);
    if (!k)
        return FZ7_E_MEM;
    p->kinds = k;
    char **t = realloc(p->link_targets, ncap * sizeof *t);
    if (!t)
        return FZ7_E_MEM;
    p->link_targets = t;
    size_t *li = realloc(p->link_index, ncap * sizeof *li);
    if (!li)
        return FZ7_E_MEM;
    p->link_index = li;
    size_t *ho = realloc(p->hdr_of, ncap * sizeof *ho);
    if (!ho)
        return FZ7_E_MEM;
    p->hdr_of = ho;
    uint64_t *hp = realloc(p->hdr_pos, ncap * sizeof *hp);
    if (!hp)
        return FZ7_E_MEM;
    p->hdr_pos = hp;
    *cap = ncap;
    return FZ7_OK;
}

/* A split zip with a disk missing: the entries whose local headers lie
 * past the hole, which libarchive never reached, from the central
 * directory (fz7_zip_unlisted), their data for fz7's own decoder. */
static fz7_status append_unlisted(fz7_archive *a, la_priv *p, size_t *cap)
{
    fz7_entry *ex;
    fz7_zip_rec *rx;
    size_t n;
    fz7_status st = fz7_zip_unlisted(a->vol, a->file_size, fz7_volumes_present(a->vol), a->opts.mem_limit,
                                     &ex, &rx, &n);
    if (st != FZ7_OK || n == 0)
        return st;
    fz7_zip_rec *z = realloc(p->zip, (a->count + n) * sizeof *z);
    if (!z)
        st = FZ7_E_MEM;
    else if (!p->zip)
        memset(z, 0, a->count * sizeof *z);
    if (z)
        p->zip = z;
    size_t k = 0;
    p->la_count = a->count;
    for (; st == FZ7_OK && k < n; k++) {
        if ((st = grow(a, p, cap)) != FZ7_OK)
            break;
        size_t i = a->count++;
        a->entries[i] = ex[k];
        p->zip[i] = rx[k];
        p->kinds[i] = ex[k].is_dir ? LA_DIR : ex[k].is_symlink ? LA_SYMLINK : LA_FILE;
        p->link_targets[i] = NULL;
        p->link_index[i] = SIZE_MAX;
        p->hdr_of[i] = SIZE_MAX;
        p->hdr_pos[i] = UINT64_MAX;
    }
    for (; k < n; k++) {   /* (not taken: memory ran out) */
        free(ex[k].path);
        free(rx[k].comment);
    }
    free(ex);
    free(rx);
    return st;
}

/* A cpio's own headers (cpio_headers.c): the SubType and, as the
 * listing asks (opts.detail), each entry's packed size and what
 * fz7_archive_entry_props lists; nothing when they do not pair with
 * libarchive's headers. */
static void cpio_headers_take(fz7_archive *a, la_priv *p, size_t headers)
{
    fz7_cpio_headers ch;
    if (fz7_cpio_headers_read(a->vol, a->file_size, a->opts.mem_limit, a->opts.detail, &ch) != FZ7_OK)
        return;
    if (ch.count == headers) {
        for (size_t i = 0; a->opts.detail != FZ7_DETAIL_NONE && i < a->count; i++) {
            a->entries[i].packed_size = ch.h ? ch.h[p->hdr_of[i]].packed : ch.packed[p->hdr_of[i]];
            a->entries[i].packed_known = true;
        }
        a->info.sub_type = ch.sub_type;
        if (ch.cut_end && a->info.open_error)
            a->info.phy_size = ch.cut_end;   /* where it would end (7-Zip's) */
    }
    free(ch.packed);
    if (ch.count == headers) {
        p->cpio_check = ch.check;
        ch.check = NULL;
    }
    free(ch.check);
    if (ch.count == headers && ch.h)
        p->cpio = ch;
    else
        free(ch.h);
}

/* An ISO 9660 image's volume descriptor as 7-Zip's archive block shows
 * it (file_headers.c). */
static void iso_take(fz7_archive *a, la_priv *p)
{
    bool joliet = false;
    uint64_t space = 0;
    if (fz7_iso_volume(a->vol, a->file_size, p->iso_comment, sizeof p->iso_comment, a->info.times, &joliet,
                       &space)) {
        a->info.comment = p->iso_comment;
        if (space > a->file_size) {   /* cut short: libarchive reads on without a word */
            a->info.open_error = "Unexpected end of archive";
            a->info.phy_size = space;
        }
    }
    /* a file's extent is stored as it is; a folder has no size (7-Zip) */
    for (size_t i = 0; i < a->count; i++) {
        fz7_entry *e = &a->entries[i];
        if (e->is_dir) {
            e->has_size = false;
        } else if (e->is_symlink) {
            e->size = 0;   /* Rock Ridge's target has no extent */
            e->packed_known = true;
            /* a link 7-Zip makes too (it reads Rock Ridge without Joliet)
             * is left out of its Files line, as a tar's */
            e->link_named = !joliet;
        } else {
            e->packed_size = e->size;
            e->packed_known = true;
        }
    }
    a->listed = fz7_iso_order(a->entries, a->count);
}

/* A cabinet's own records (cab_headers.c): the archive's Method, Blocks,
 * Volumes, Volume Index and ID lines, and each file's attributes, method
 * and folder, when there is one record per entry libarchive listed (in
 * the records' order, which is libarchive's). */
static void cab_take(fz7_archive *a, la_priv *p)
{
    if (fz7_cab_headers_read(a->vol, a->file_size, &p->cab) != FZ7_OK)
        return;
    if (p->cab.count != a->count) {
        fz7_cab_headers_free(&p->cab);
        return;
    }
    snprintf(p->cab_lines[0], sizeof p->cab_lines[0], "%zu", p->cab.folders);
    snprintf(p->cab_lines[1], sizeof p->cab_lines[1], "%u", (unsigned)p->cab.cabinet_index);
    snprintf(p->cab_lines[2], sizeof p->cab_lines[2], "%u", (unsigned)p->cab.set_id);
    /* the size its header gives is 7-Zip's Physical Size, cut short or not */
    if (p->cab.cabinet_size > a->file_size)
        a->info.open_error = "Unexpected end of archive";
    else
        a->info.tail_size = a->file_size - p->cab.cabinet_size;
    a->info.phy_size = p->cab.cabinet_size;
    const char *names[] = {"Blocks", "Volumes", "Volume Index", "ID"};
    const char *values[] = {p->cab_lines[0], "1", p->cab_lines[1], p->cab_lines[2]};
    for (size_t k = 0; k < 4; k++)
        a->info.lines[k] = (fz7_prop){.name = names[k], .value = values[k], .digits = -1};
    for (size_t i = 0; i < a->count; i++) {
        /* (0x80: the name is UTF-8, no attribute) */
        a->entries[i].attrib = p->cab.files[i].attribs & 0x7Fu;
        a->entries[i].has_attrib = true;
        /* a folder's files share its packed bytes, an empty one too:
         * 7-Zip lists none */
        a->entries[i].packed_known = false;
        a->entries[i].packed_size = 0;
        a->entries[i].has_stream = true;
    }
}

/* A TOC file's path and place, sorted by path then place. */
typedef struct xar_named {
    const char *path;
    size_t file;
} xar_named;

static int xar_named_cmp(const void *l, const void *r)
{
    const xar_named *a = l, *b = r;
    int c = strcmp(a->path, b->path);
    return c ? c : a->file < b->file ? -1 : a->file > b->file;
}

/* A xar's header and TOC (xar_headers.c), when each entry libarchive
 * listed (in the order of their data) is one <file> of it by path: 7-Zip's
 * order (the TOC's), Method and Created lines, each file's sizes as the
 * TOC has them (none without <data>) and times as 7-Zip reads them, and
 * the TOC itself as the last entry, [TOC].xml. */
static fz7_status xar_take(fz7_archive *a, la_priv *p, size_t *cap)
{
    fz7_xar_headers *x = &p->xar;
    fz7_status st = fz7_xar_headers_read(a->vol, a->file_size, a->opts.mem_limit, x);
    if (st != FZ7_OK)
        return st == FZ7_E_MEM ? st : FZ7_OK;   /* libarchive's entries as they are */
    xar_named *by_path = x->count == a->count ? malloc((x->count ? x->count : 1) * sizeof *by_path) : NULL;
    bool *taken = by_path ? calloc(x->count ? x->count : 1, 1) : NULL;
    size_t *file_of = taken ? malloc((a->count + 1) * sizeof *file_of) : NULL;
    uint32_t *listed = file_of ? malloc((a->count + 1) * sizeof *listed) : NULL;
    st = x->count != a->count ? FZ7_E_FORMAT : listed ? FZ7_OK : FZ7_E_MEM;
    for (size_t k = 0; st == FZ7_OK && k < x->count; k++)
        by_path[k] = (xar_named){x->files[k].path, k};
    if (st == FZ7_OK)
        qsort(by_path, x->count, sizeof *by_path, xar_named_cmp);
    for (size_t i = 0; st == FZ7_OK && i < a->count; i++) {
        size_t lo = 0, hi = x->count;   /* the first file of that path */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(by_path[mid].path, a->entries[i].path) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        while (lo < x->count && taken[lo] && strcmp(by_path[lo].path, a->entries[i].path) == 0)
            lo++;
        if (lo == x->count || strcmp(by_path[lo].path, a->entries[i].path) != 0) {
            st = FZ7_E_FORMAT;
            break;
        }
        taken[lo] = true;
        file_of[i] = by_path[lo].file;
        listed[by_path[lo].file] = (uint32_t)i;
    }
    free(by_path);
    free(taken);
    if (st == FZ7_OK)
        st = grow(a, p, cap);
    if (st != FZ7_OK) {
        free(file_of);
        free(listed);
        fz7_xar_headers_free(x);
        return st == FZ7_E_MEM ? st : FZ7_OK;
    }
    for (size_t i = 0; i < a->count; i++) {
        fz7_entry *e = &a->entries[i];
        const fz7_xar_file *f = &x->files[file_of[i]];
        e->has_size = f->has_data;
        e->size = f->has_data ? f->size : 0;
        e->packed_known = f->has_data;
        e->packed_size = f->has_data ? f->length : 0;
        int64_t t;
        e->has_mtime = fz7_xar_time(x, f->time[0], &t);
        e->mtime = e->has_mtime ? t : 0;
        e->mtime_nsec = 0;
        e->mtime_prec = FZ7_MTIME_SECONDS;
        e->link_named = p->kinds[i] == LA_SYMLINK;   /* 7-Zip's x leaves it out of Files */
        e->has_stream = !e->is_dir;   /* no <data>: a blank packed size, not 0 */
    }
    /* the TOC, [TOC].xml */
    size_t t = a->count;
    fz7_entry *e = &a->entries[t];
    memset(e, 0, sizeof *e);
    if (!(e->path = strdup("[TOC].xml"))) {
        free(file_of);
        free(listed);
        return FZ7_E_MEM;
    }
    e->size = e->packed_size = x->toc_size;
    e->has_size = e->packed_known = e->has_stream = true;
    e->mode = S_IFREG | 0644;
    e->folder = -1;
    e->method = "";
    p->kinds[t] = LA_XAR_TOC;
    p->link_targets[t] = NULL;
    p->link_index[t] = SIZE_MAX;
    p->hdr_of[t] = 0;
    p->hdr_pos[t] = UINT64_MAX;
    file_of[t] = x->count;
    listed[t] = (uint32_t)t;
    a->count++;
    p->xar_file = file_of;
    a->listed = listed;
    a->info.no_size_is_empty = true;
    /* the archive ends where its last data does; bytes after it are a tail */
    uint64_t base = (uint64_t)x->header_size + x->toc_packed, end = base + x->heap_end;
    if (end < base || end > a->file_size) {
        a->info.open_error = "Unexpected end of archive";
        a->info.phy_size = end < base ? UINT64_MAX : end;
    } else {
        a->info.phy_size = end;
        a->info.tail_size = a->file_size - end;
    }
    snprintf(p->xar_created, sizeof p->xar_created, "%.*s", x->created.len < 39 ? (int)x->created.len : 39,
             (const char *)x->toc + x->created.at);
    if (x->created.len)
        a->info.lines[0] = (fz7_prop){.name = "Created", .value = p->xar_created, .digits = -1};
    return FZ7_OK;
}

/* An lzh name libarchive gave as ISO-8859-1 read into UTF-8 (la_start):
 * back to the stored bytes, in place (never longer). */
static void lzh_raw_name(char *s)
{
    uint8_t *w = (uint8_t *)s;
    for (const uint8_t *r = (const uint8_t *)s; *r; r++) {
        if ((r[0] == 0xC2 || r[0] == 0xC3) && (r[1] & 0xC0) == 0x80) {
            *w++ = (uint8_t)(((r[0] & 0x03) << 6) | (r[1] & 0x3F));
            r++;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
}

/* path (malloc'ed, freed here) and "|" and target back in its stored
 * bytes: an lzh's Unix symlink as 7-Zip names it. NULL: out of memory. */
static char *lzh_join(char *path, const char *target)
{
    size_t n = strlen(path), m = strlen(target);
    char *j = realloc(path, n + m + 2);
    if (!j) {
        free(path);
        return NULL;
    }
    j[n] = '|';
    memcpy(j + n + 1, target, m + 1);
    lzh_raw_name(j + n + 1);
    return j;
}

/* An lzh's own headers (lzh_headers.c): each entry's packed size, CRC,
 * method and host OS, and where 7-Zip says the archive ends (its tail, a
 * header that does not read, a cut). 7-Zip lists the entries up to the
 * first header that does not read: libarchive's after it are dropped. */
static fz7_status lzh_take(fz7_archive *a, la_priv *p, char *err, size_t errlen)
{
    fz7_status st = fz7_lzh_headers_read(a->vol, a->file_size, a->opts.mem_limit, &p->lzh);
    if (st == FZ7_E_FORMAT) {
        /* 7-Zip's words for a first header that does not read */
        if (p->lzh.headers_error)
            snprintf(err, errlen, "Headers Error");
        return FZ7_E_FORMAT;
    }
    if (st != FZ7_OK)
        return st;
    while (a->count > p->lzh.count) {
        a->count--;
        free(a->entries[a->count].path);
        free(p->link_targets[a->count]);
        p->link_targets[a->count] = NULL;
    }
    for (size_t i = 0; i < a->count; i++) {
        a->entries[i].packed_size = p->lzh.h[i].packed;
        a->entries[i].packed_known = true;
        lzh_raw_name(a->entries[i].path);
        if (p->kinds[i] == LA_SYMLINK && !memcmp(p->lzh.h[i].method, "-lhd-", 5)) {
            /* a Unix symlink, stored as a folder named "link|target": 7-Zip
             * lists and makes that folder (the target still as libarchive
             * gave it: lzh_join makes it bytes) */
            fz7_entry *e = &a->entries[i];
            if (!(e->path = lzh_join(e->path, p->link_targets[i])))
                return FZ7_E_MEM;
            free(p->link_targets[i]);
            p->link_targets[i] = NULL;
            p->kinds[i] = LA_DIR;
            e->is_symlink = false;
            e->is_dir = true;
            e->size = 0;
            e->has_stream = false;
        }
        /* 7-Zip takes no Unix mode or DOS attribute from an lzh: a folder
         * is a folder, files get the umask's defaults */
        if (!a->entries[i].is_symlink) {
            fz7_entry *e = &a->entries[i];
            e->attrib = e->is_dir ? 0x10u : 0;
            e->mode = e->is_dir ? S_IFDIR | 0777u : (e->mode & S_IFMT) | 0666u;
        }
        if (p->link_targets[i]) {
            lzh_raw_name(p->link_targets[i]);
            if (a->entries[i].is_symlink)
                a->entries[i].size = strlen(p->link_targets[i]);
        }
    }
    a->info.phy_size = p->lzh.end;
    a->info.tail_size = a->file_size - p->lzh.end;
    a->info.open_error = p->lzh.cut ? "Unexpected end of archive" : p->lzh.headers_error ? "Headers Error" : NULL;
    if (p->la_stopped && a->count < p->lzh.count && !a->info.open_error) {
        /* a header 7-Zip reads and libarchive does not (an unknown method,
         * a level 2 header CRC): the entries from it on are not listed */
        a->info.open_error = "Headers Error";
        snprintf(a->open_detail, sizeof a->open_detail, "libarchive read %zu of the %zu headers",
                 a->count, p->lzh.count);
        a->info.open_detail = a->open_detail;
    }
    return FZ7_OK;
}

/* An lzh whose first header starts as one but does not read (cut, a bad
 * checksum), which libarchive does not take: 7-Zip's Headers Error. */
static bool lzh_bad_start(fz7_archive *a)
{
    fz7_lzh_headers l;
    fz7_status st = fz7_lzh_headers_read(a->vol, a->file_size, a->opts.mem_limit, &l);
    bool bad = st == FZ7_E_FORMAT && l.headers_error;
    fz7_lzh_headers_free(&l);
    return bad;
}

/* A compressed file's type as 7-Zip names it, and zstd's frame header
 * as its Method line (file_headers.c). */
static void raw_take(fz7_archive *a, la_priv *p)
{
    snprintf(p->type_name, sizeof p->type_name, "%s", p->method);
    p->method[0] = 0;
    a->info.sizes_unknown = true;   /* 7-Zip lists no Physical Size */
    if (a->count != 1 || strcmp(p->type_name, "zstd") != 0)
        return;
    uint8_t h[32];
    size_t n = a->file_size < sizeof h ? (size_t)a->file_size : sizeof h;
    if (fz7_volumes_pread(a->vol, h, n, 0) == FZ7_OK) {
        fz7_zstd_method(h, n, p->raw_method, sizeof p->raw_method);
        a->info.method = p->raw_method;
    }
}

/* A bzip2 file whose first block does not decode: libarchive cannot open
 * it at all, 7-Zip lists it and fails its one entry (Data Error). True
 * when the file starts with a stream header and a block's magic
 * (0x314159265359). */
static bool bzip2_bad_start(fz7_archive *a)
{
    uint8_t h[10];
    return a->file_size >= sizeof h && fz7_volumes_pread(a->vol, h, sizeof h, 0) == FZ7_OK &&
           memcmp(h, "BZh", 3) == 0 && h[3] >= '1' && h[3] <= '9' && memcmp(h + 4, "1AY&SY", 6) == 0;
}

static fz7_status open_bad_bzip2(fz7_archive *a)
{
    la_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    a->priv = p;
    a->ops = &la_ops;
    p->raw = p->bad_start = true;
    size_t cap = 0;
    fz7_status st = grow(a, p, &cap);
    if (st != FZ7_OK)
        return st;
    fz7_entry *e = &a->entries[0];
    memset(e, 0, sizeof *e);
    if (!(e->path = fz7_strip_compressed_suffix(a->path)))
        return FZ7_E_MEM;
    e->has_stream = true;
    e->folder = -1;
    e->method = "";
    e->mode = S_IFREG | 0644;
    p->kinds[0] = LA_FILE;
    p->link_targets[0] = NULL;
    p->link_index[0] = SIZE_MAX;
    p->hdr_of[0] = 0;
    p->hdr_pos[0] = UINT64_MAX;
    a->count = 1;
    snprintf(p->method, sizeof p->method, "bzip2");
    raw_take(a, p);
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = p->type_name;
    a->info.method = p->method;
    return FZ7_OK;
}

static fz7_status open_in_locale(fz7_archive *a, char *err, size_t errlen)
{
    la_source *src = source_new();
    if (!src)
        return FZ7_E_MEM;
    struct archive *ar;
    bool raw = false;
    fz7_status st = la_start(a, src, false, &ar, err, errlen);
    if (st == FZ7_E_FORMAT && !(errlen && err[0]) && lzh_bad_start(a)) {
        snprintf(err, errlen, "Headers Error");
        free(src);
        return FZ7_E_FORMAT;
    }
    if (st == FZ7_E_FORMAT && !(errlen && err[0])) {
        raw = true;
        st = la_start(a, src, true, &ar, err, errlen);
    }
    if (st == FZ7_E_FORMAT && !(errlen && err[0]) && bzip2_bad_start(a)) {
        free(src);
        return open_bad_bzip2(a);
    }
    if (st != FZ7_OK) {
        free(src);
        return st;
    }
    la_priv *p = calloc(1, sizeof *p);
    if (!p) {
        archive_read_free(ar);
        free(src);
        return FZ7_E_MEM;
    }
    p->raw = raw;
    a->priv = p;
    a->ops = &la_ops;
    size_t cap = 0;
    uint64_t path_bytes = 0;
    tar_traits traits = {0};
    bool tar = false;
    size_t headers = 0;   /* libarchive's entries, root folders too */
    for (;;) {
        struct archive_entry *ae = NULL;
        int r = la_next_header(ar, &ae);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            st = la_failure(ar);
            /* (libarchive's newc reader fails a cut trailer without a
             * word: as zip's, such a failure after entries is the end) */
            bool zip = strcmp(p->type_name, "zip") == 0 || strcmp(p->type_name, "Cpio") == 0;
            if ((archive_format(ar) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_LHA && st != FZ7_E_IO) {
                /* where it ends, and in what words: lzh_take; a first
                 * header that does not read is 7-Zip's bare Headers Error */
                if (a->count) {
                    st = FZ7_OK;
                    p->la_stopped = true;
                } else {
                    snprintf(err, errlen, "Headers Error");
                    st = FZ7_E_FORMAT;
                }
                break;
            }
            if ((st == FZ7_E_TRUNCATED || (zip && (st == FZ7_E_DATA || st == FZ7_E_FORMAT))) && a->count && !raw) {
                /* a tar, cpio or zip cut short, a zip whose central
                 * directory is gone: the entries before are there to save
                 * (7zz lists and extracts them) */
                a->info.open_error = "Unexpected end of archive";
                st = FZ7_OK;
                break;
            }
            if (st == FZ7_E_TRUNCATED)
                snprintf(err, errlen, "Unexpected end of archive: %s", la_message(ar));
            else if (st != FZ7_E_IO)
                snprintf(err, errlen, "Headers Error: %s", la_message(ar));
            else
                snprintf(err, errlen, "%s", la_message(ar));
            if (st == FZ7_E_DATA)
                st = FZ7_E_FORMAT;
            break;
        }
        if (a->count == 0 && !tar)
            name_format(ar, p), tar = strcmp(p->type_name, "tar") == 0 && !p->method[0];
        if (tar)
            tar_traits_take(&traits, ar, ae);
        headers++;
        if (fz7_la_is_root_folder(ar, ae))
            continue;
        if ((st = grow(a, p, &cap)) != FZ7_OK)
            break;
        fz7_entry *e = &a->entries[a->count];
        st = fill_entry(ae, e, &p->kinds[a->count], &p->link_targets[a->count]);
        if (st != FZ7_OK) {
            free(e->path);
            free(p->link_targets[a->count]);
            break;
        }
        if (a->opts.owners && (st = keep_owner(a, a->count, ae)) != FZ7_OK) {
            free(e->path);
            free(p->link_targets[a->count]);
            break;
        }
        p->hdr_of[a->count] = headers - 1;
        la_int64_t at = archive_read_header_position(ar);
        p->hdr_pos[a->count] = at >= 0 ? (uint64_t)at : UINT64_MAX;
        a->count++;
        if (raw) {
            free(e->path);
            if (!(e->path = fz7_strip_compressed_suffix(a->path))) {
                st = FZ7_E_MEM;
                break;
            }
        }
        path_bytes += strlen(e->path) + 1;
        if (path_bytes > a->opts.mem_limit) {
            st = FZ7_E_MEMLIMIT;
            break;
        }
        /* A zip entry's size is known only once its data was read when
         * the local header has none; leave it unknown then. */
    }
    if (st == FZ7_OK && a->count == 0)
        name_format(ar, p);
    archive_read_free(ar);
    free(src);
    if (st == FZ7_OK && headers == 0 && !raw && strcmp(p->type_name, "tar") == 0) {
        /* zero blocks alone (a disk image's first sector, padding before
         * a 7z) are no tar to 7-Zip: the next readers look further */
        la_close(a);
        a->ops = NULL;
        a->priv = NULL;
        return FZ7_E_FORMAT;
    }
    if (st == FZ7_E_MEMLIMIT && errlen && !err[0])
        snprintf(err, errlen, "The list of entries exceeds the memory limit");
    if (st != FZ7_OK)
        return st;   /* archive.c frees the entries and calls la_close */
    st = resolve_links(a);
    if (st != FZ7_OK)
        return st;
    if (strcmp(p->type_name, "zip") == 0 && fz7_zip_spans_disks(a->vol, a->file_size)) {
        /* its entries' offsets count from other files: never "0 files, Ok" */
        snprintf(err, errlen, "%s is the last part of a zip split into .z01, .z02, ... volumes, which fz7 "
                 "does not read; join them first (zip -s 0 %s --out whole.zip)", a->path, a->path);
        return FZ7_E_UNSUPPORTED;
    }
    if (strcmp(p->type_name, "zip") == 0 && !p->method[0]) {
        for (size_t i = 0; i < a->count; i++)
            if (a->entries[i].has_mtime && !a->entries[i].mtime_nsec)
                a->entries[i].mtime_prec = FZ7_MTIME_DOS;
        /* the records always: they also say which entries libarchive
         * cannot decode (zip_own_data) */
        uint64_t tail = 0, stub = 0;
        fz7_zip_central(a->vol, a->file_size, a->entries, a->count, a->opts.mem_limit, &p->zip,
                        &p->comment, &a->listed, &tail, &stub);
        a->info.comment = p->comment;
        const char *missing;
        if (fz7_volumes_are_disks(a->vol) && fz7_volumes_missing(a->vol, &missing) &&
            (st = append_unlisted(a, p, &cap)) != FZ7_OK)
            return st;
        uint8_t mark[4];
        if (fz7_volumes_are_disks(a->vol) && fz7_volumes_pread(a->vol, mark, 4, 0) == FZ7_OK &&
            fz7_get32le(mark) == ZIP_SPAN_SIG)
            a->info.stub_size = 4;
        if (a->listed)
            a->info.characteristics = "Unsorted_CD";   /* 7-Zip's word for it */
        bool central = false;
        for (size_t i = 0; p->zip && i < a->count && !central; i++)
            central = p->zip[i].matched;
        if (a->count && fz7_volumes_are_disks(a->vol) && fz7_volumes_missing(a->vol, &missing)) {
            /* 7-Zip's one line for it, its name as the set was opened */
            snprintf(p->missing_error, sizeof p->missing_error, "Missing volume : %s", missing);
            a->info.open_error = p->missing_error;
            a->info.open_error_prop = true;
        } else if (a->count && !central) {   /* read from local headers alone: 7-Zip's words */
            a->info.open_error = "Unexpected end of archive";
            a->info.characteristics = "Local";
            zip_local_sizes(a, p);
        } else if (central) {
            a->info.tail_size = tail;   /* bytes after the end record: 7-Zip's tail */
            a->info.offset = stub;
        }
    }
    if (tar) {
        tar_headers_take(a, p, headers, &traits);
        tar_traits_put(&traits, a, p);
    }
    for (size_t i = 0; (tar || (!raw && strcmp(p->type_name, "Cpio") == 0)) && i < a->count; i++)
        a->entries[i].link_named = p->kinds[i] == LA_SYMLINK || p->kinds[i] == LA_HARDLINK ||
                                   p->kinds[i] == LA_LINK_LATER;
    if (!raw && strcmp(p->type_name, "Cpio") == 0)
        cpio_headers_take(a, p, headers);
    if (!raw && strcmp(p->type_name, "Iso") == 0)
        iso_take(a, p);
    if (!raw && strcmp(p->type_name, "Cab") == 0)
        cab_take(a, p);
    if (!raw && strcmp(p->type_name, "Xar") == 0 && (st = xar_take(a, p, &cap)) != FZ7_OK)
        return st;
    if (!raw && strcmp(p->type_name, "Lzh") == 0 && (st = lzh_take(a, p, err, errlen)) != FZ7_OK) {
        if (st == FZ7_E_FORMAT && !(errlen && err[0])) {
            /* no LHA header at offset 0 (libarchive found one further on,
             * in a self-extractor): not an lzh to 7-Zip, the next readers
             * look */
            fz7_archive_free_entries(a);
            la_close(a);
            a->ops = NULL;
        }
        return st;
    }
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = p->type_name;
    a->info.method = p->cab.count ? p->cab.method : p->xar.toc ? p->xar.method : p->method;
    if (raw)
        raw_take(a, p);
    return FZ7_OK;
}

fz7_status fz7_libarchive_open(fz7_archive *a, char *err, size_t errlen)
{
    locale_t old = fz7_la_utf8_enter();
    fz7_status st = open_in_locale(a, err, errlen);
    fz7_la_utf8_leave(old);
    return st;
}

/* The one entry of a piped compressed file, as 7-Zip shows it before it
 * has read the data: named name or "~", no size, no time. */
static fz7_status pipe_take(fz7_archive *a, la_priv *p, struct archive_entry *ae, const char *name)
{
    size_t cap = 0;
    fz7_status st = grow(a, p, &cap);
    if (st != FZ7_OK)
        return st;
    fz7_entry *e = &a->entries[0];
    if ((st = fill_entry(ae, e, &p->kinds[0], &p->link_targets[0])) != FZ7_OK)
        return st;
    p->link_index[0] = SIZE_MAX;
    p->hdr_of[0] = 0;
    a->count = 1;
    free(e->path);
    if (!(e->path = strdup(name && name[0] ? name : "~")))
        return FZ7_E_MEM;
    e->has_size = false;
    e->has_stream = true;
    e->has_mtime = false;
    name_format(p->pipe_ar, p);
    snprintf(p->type_name, sizeof p->type_name, "%s", p->method);
    p->method[0] = 0;
    if (strcmp(p->type_name, "zstd") == 0) {
        /* 7-Zip's words for a frame not yet read */
        snprintf(p->raw_method, sizeof p->raw_method, "header-open-only: data-frames:0");
        a->info.method = p->raw_method;
    }
    return FZ7_OK;
}

static fz7_status open_pipe_in_locale(fz7_archive *a, la_priv *p, const uint8_t *head,
                                      size_t head_len, const char *name, char *err, size_t errlen)
{
    la_source *src = source_new();
    uint8_t *copy = malloc(head_len ? head_len : 1);
    if (!src || !copy) {
        free(src);
        free(copy);
        return FZ7_E_MEM;
    }
    memcpy(copy, head, head_len);
    src->fd = a->fd;
    src->head = copy;
    src->head_len = head_len;
    p->pipe_src = src;   /* la_close frees it from here on */
    fz7_status st = la_start(a, src, true, &p->pipe_ar, err, errlen);
    if (st != FZ7_OK)
        return st;
    struct archive_entry *ae;
    int r = archive_read_next_header(p->pipe_ar, &ae);
    if (r < ARCHIVE_WARN || r == ARCHIVE_EOF) {
        st = r == ARCHIVE_EOF ? FZ7_E_TRUNCATED : la_failure(p->pipe_ar);
        snprintf(err, errlen, "%s", r == ARCHIVE_EOF ? "Unexpected end of archive" : la_message(p->pipe_ar));
        return st == FZ7_E_DATA ? FZ7_E_FORMAT : st;
    }
    return pipe_take(a, p, ae, name);
}

fz7_status fz7_libarchive_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                                    const fz7_open_opts *opts, fz7_archive **out, char *err,
                                    size_t errlen)
{
    *out = NULL;
    if (errlen)
        err[0] = 0;
    fz7_archive *a = calloc(1, sizeof *a);
    la_priv *p = calloc(1, sizeof *p);
    if (!a || !p) {
        free(a);
        free(p);
        return FZ7_E_MEM;
    }
    if (opts)
        a->opts = *opts;
    if (a->opts.mem_limit == 0)
        a->opts.mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    a->fd = fd;   /* the caller's: read by pipe_read, never closed */
    a->ops = &la_ops;
    a->priv = p;
    p->raw = true;
    locale_t old = fz7_la_utf8_enter();
    fz7_status st = open_pipe_in_locale(a, p, head, head_len, name, err, errlen);
    fz7_la_utf8_leave(old);
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = p->type_name;
    if (!a->info.method)
        a->info.method = p->method;
    a->info.sizes_unknown = true;
    a->info.piped = true;
    a->info.volumes = 1;
    if (st != FZ7_OK) {
        a->fd = -1;
        fz7_archive_close(a);
        return st;
    }
    a->fd = -1;   /* archive.c would close a file it owns */
    *out = a;
    return FZ7_OK;
}
