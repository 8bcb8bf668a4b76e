/* archive.c - opens an archive by content and hands it to its reader. */
#include "format/archive_impl.h"

#include "check/check.h"

#include <strings.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void fz7_archive_free_entries(fz7_archive *a)
{
    const char *lo = a->names, *hi = a->names ? a->names + a->names_len : NULL;
    for (size_t i = 0; i < a->count; i++) {
        char *p = a->entries[i].path;
        /* Integer compares: the paths of other blocks are not in this one. */
        if (!lo || (uintptr_t)p < (uintptr_t)lo || (uintptr_t)p >= (uintptr_t)hi)
            free(p);
    }
    free(a->entries);
    free(a->more);
    free(a->owners);
    a->owners = NULL;
    a->owners_cap = 0;
    free(a->names);
    free(a->listed);
    a->listed = NULL;
    a->entries = NULL;
    a->more = NULL;
    a->names = NULL;
    a->names_len = 0;
    a->count = 0;
}

static void free_archive(fz7_archive *a)
{
    if (!a)
        return;
    if (a->ops && a->ops->close)
        a->ops->close(a);
    fz7_archive_free_entries(a);
    fz7_volumes_close(a->vol);
    free(a->main_blocks);
    free_archive(a->outer);
    free(a);
}

/* Tries the readers on a->vol in turn: FZ7_OK when one opened it, else
 * the status to return (err says why; FZ7_E_FORMAT with err empty: no
 * reader knows it). */
static fz7_status open_by_content(fz7_archive *a, char *err, size_t errlen)
{
    /* Signatures at offset 0 first, the search for a stub's end last (as
     * 7-Zip does), so an archive stored inside a tar or zip opens as that
     * tar or zip. The lzip and lzma readers read one file only. */
    bool one_file = fz7_volumes_count(a->vol) == 1 && !fz7_volumes_is_window(a->vol);
    struct {
        fz7_status (*open)(fz7_archive *, char *, size_t);
        bool any_volumes;
    } readers[] = {{fz7_7z_open, true}, {fz7_xz_open, true}, {fz7_gzip_open, true}, {fz7_lzip_open, false},
                   {fz7_lzma_alone_open, false}, {fz7_ar_open, true}, {fz7_rpm_open, true}, {fz7_vhd_open, true}, {fz7_vdi_open, true}, {fz7_qcow_open, true}, {fz7_vmdk_open, true},
                   {fz7_squashfs_open, true}, {fz7_cfb_open, true}, {fz7_fat_open, true},
                   {fz7_udf_open, true},
                   {fz7_libarchive_open, true}, {fz7_gpt_open, true}, {fz7_mbr_open, true}, {fz7_7z_sfx_open, true},
                   {fz7_split_open, true}};
    size_t n_readers = sizeof readers / sizeof readers[0];
    for (size_t i = a->opts.split ? n_readers - 1 : 0; i < n_readers; i++) {
        if (errlen)
            err[0] = 0;
        if (!one_file && !readers[i].any_volumes)
            continue;
        fz7_status s = readers[i].open(a, err, errlen);
        if (s == FZ7_OK) {
            if (!a->info.phy_size)   /* (a tar cut short: where it would end) */
                a->info.phy_size = a->file_size - a->info.offset - a->info.tail_size;
            a->info.file_size = a->file_size - fz7_volumes_missing_bytes(a->vol);
            return FZ7_OK;
        }
        if (s != FZ7_E_FORMAT || (errlen && err[0]))
            return s;
    }
    return FZ7_E_FORMAT;
}

/* The archive in outer's main subfile (a .deb's data.tar.xz, an rpm's
 * payload), opened over that member's bytes, or NULL when none opens:
 * then outer is listed as it is, as 7-Zip does. */
/* Levels of archives opened one inside another's main subfile: a
 * virtual disk, its partition table, the file system (a crafted image
 * whose disk holds the image itself must not recurse for ever). */
#define MAIN_SUBFILE_DEPTH 3

static fz7_archive *open_main_subfile(fz7_archive *outer, unsigned depth)
{
    size_t i = outer->main_subfile - 1;
    const fz7_entry *e = &outer->entries[i];
    if (e->is_symlink || (outer->info.open_error && i + 1 == outer->count && !outer->main_cut))
        return NULL;
    fz7_archive *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->opts = outer->opts;
    a->opts.split = false;
    a->fd = -1;
    a->path = e->path;   /* names the one entry of an .xz or .gz */
    char err[256];
    size_t n_blocks = (size_t)((e->size + ((uint64_t)1 << outer->main_bits) - 1) >> outer->main_bits);
    fz7_status ws = outer->main_blocks ? fz7_volumes_blocks(outer->vol, outer->main_blocks, n_blocks,
                                                            outer->main_bits, e->size, outer->main_cut, &a->vol)
                                       : fz7_volumes_window(outer->vol, outer->main_offset, e->size, &a->vol);
    if (ws == FZ7_OK && outer->main_blocks && outer->main_block_read)
        fz7_volumes_block_reader(a->vol, outer->main_block_read, outer);
    if (ws != FZ7_OK ||
        (a->file_size = e->size, open_by_content(a, err, sizeof err)) != FZ7_OK) {
        free_archive(a);
        return NULL;
    }
    a->info.volumes = 1;
    a->outer = outer;
    fz7_archive *inner = a->main_subfile && depth + 1 < MAIN_SUBFILE_DEPTH ? open_main_subfile(a, depth + 1) : NULL;
    return inner ? inner : a;
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
    fz7_status vs = fz7_volumes_open(path, &a->vol, err, errlen);
    if (vs != FZ7_OK) {
        free(a);
        return vs;
    }
    /* A zip split across files is read as the one byte space its disks
     * make, which is what its offsets count in. */
    fz7_volumes *disks = NULL;
    size_t named = 0;
    vs = opts && opts->split ? FZ7_E_FORMAT : fz7_zip_open_disks(path, a->vol, &disks, &named, err, errlen);
    if (vs == FZ7_OK) {
        fz7_volumes_close(a->vol);
        a->vol = disks;
    } else if (vs != FZ7_E_FORMAT) {
        fz7_volumes_close(a->vol);
        free(a);
        return vs;
    }
    a->fd = fz7_volumes_first_fd(a->vol);
    a->file_size = fz7_volumes_size(a->vol);
    if (opts)
        a->opts = *opts;
    if (a->opts.mem_limit == 0)
        a->opts.mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    a->path = path;

    fz7_status s = open_by_content(a, err, errlen);
    if (s == FZ7_OK) {
        const char *missing;
        if (a->info.open_error && !a->info.open_error_prop && fz7_volumes_missing(a->vol, &missing)) {
            snprintf(a->open_detail, sizeof a->open_detail, "Missing volume: %s", missing);
            a->info.open_detail = a->open_detail;
        }
        a->info.volumes = fz7_volumes_count(a->vol);
        if (fz7_volumes_are_disks(a->vol)) {
            a->info.multivolume = true;
            a->info.volume_index = named;
            a->info.volume_size = fz7_volumes_start(a->vol, named + 1) - fz7_volumes_start(a->vol, named);
            a->info.volumes_missing = fz7_volumes_missing_count(a->vol);
            if (a->info.volumes_missing && named)
                a->info.stub_size = 0;   /* 7-Zip shows it then only when opened by the first part */
        }
        fz7_archive *inner = a->main_subfile ? open_main_subfile(a, 0) : NULL;
        if (a->main_subfile && !inner && a->main_type) {
            a->info.unopened_name = a->entries[a->main_subfile - 1].path;
            a->info.unopened_type = a->main_type;
        }
        *out = inner ? inner : a;
        return FZ7_OK;
    }
    if (s != FZ7_E_FORMAT || (errlen && err[0])) {
        /* Bytes that end early in a split archive whose last volume
         * is full-sized: the next volume is what is missing. */
        const char *missing;
        if (s == FZ7_E_TRUNCATED && fz7_volumes_missing(a->vol, &missing))
            snprintf(err, errlen, "Missing volume: %s", missing);
        free_archive(a);
        return s;
    }
    bool one_file = fz7_volumes_count(a->vol) == 1;
    const char *missing;
    if (!one_file && fz7_volumes_missing(a->vol, &missing)) {
        snprintf(err, errlen, "Missing volume: %s", missing);
        free_archive(a);
        return FZ7_E_TRUNCATED;
    }
    snprintf(err, errlen, "Cannot open the file as archive");
    free_archive(a);
    return FZ7_E_FORMAT;
}

void fz7_archive_close(fz7_archive *a) { free_archive(a); }

const fz7_archive *fz7_archive_outer(const fz7_archive *a, size_t *entry)
{
    if (a->outer && entry)
        *entry = a->outer->main_subfile - 1;
    return a->outer;
}

const fz7_archive *fz7_archive_outermost(const fz7_archive *a)
{
    while (a->outer)
        a = a->outer;
    return a;
}

const fz7_archive_info *fz7_archive_get_info(const fz7_archive *a) { return &a->info; }
size_t fz7_archive_count(const fz7_archive *a) { return a->count; }
const fz7_entry *fz7_archive_entry(const fz7_archive *a, size_t i) { return &a->entries[i]; }
size_t fz7_archive_listed(const fz7_archive *a, size_t k) { return a->listed ? a->listed[k] : k; }

size_t fz7_archive_entry_props(const fz7_archive *a, size_t i, fz7_prop *props, char *buf,
                               size_t cap)
{
    return a->ops && a->ops->props && i < a->count ? a->ops->props(a, i, props, buf, cap) : 0;
}

bool fz7_entry_done(const fz7_extract_cb *cb, size_t i, fz7_status r, bool cb_failed, const char *why, char *err,
                    size_t errlen, fz7_status *st)
{
    if (cb_failed || r == FZ7_E_MEM || r == FZ7_E_IO) {
        if (r == FZ7_E_IO)
            snprintf(err, errlen, "Read error");
        *st = r;
        return true;
    }
    *st = cb->end(cb->ctx, i, r, why);
    return false;
}

fz7_status fz7_child_path(const fz7_archive *a, long parent, const void *name, size_t len, uint64_t *budget,
                          char **path)
{
    const char *pp = parent >= 0 ? a->entries[parent].path : NULL;
    size_t pl = pp ? strlen(pp) + 1 : 0;
    *budget += pl + len + 1;
    if (*budget > a->opts.mem_limit / 4)
        return FZ7_E_MEMLIMIT;
    char *p = malloc(pl + len + 1);
    if (!p)
        return FZ7_E_MEM;
    if (pp) {
        memcpy(p, pp, pl - 1);
        p[pl - 1] = '/';
    }
    memcpy(p + pl, name, len);
    p[pl + len] = 0;
    *path = p;
    return FZ7_OK;
}

fz7_status fz7_grow(void **items, size_t count, size_t *cap, size_t size, size_t first,
                    uint64_t mem_limit)
{
    if (count < *cap)
        return FZ7_OK;
    size_t ncap = *cap ? 2 * *cap : first;
    if (ncap > SIZE_MAX / size || (uint64_t)ncap * size > mem_limit)
        return FZ7_E_MEMLIMIT;
    void *n = realloc(*items, ncap * size);
    if (!n)
        return FZ7_E_MEM;
    *items = n;
    *cap = ncap;
    return FZ7_OK;
}

size_t fz7_utf16_to_utf8(const uint16_t *u, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n && u[i]; i++) {
        uint32_t c = u[i];
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (u[++i] - 0xDC00);
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6);
            out[o++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | c >> 12);
            out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        } else {
            out[o++] = (char)(0xF0 | c >> 18);
            out[o++] = (char)(0x80 | ((c >> 12) & 63));
            out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        }
    }
    out[o] = 0;
    return o;
}

fz7_status fz7_extract_slices(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                              uint64_t (*offset_of)(const fz7_archive *a, size_t i), char *err, size_t errlen)
{
    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK);
    fz7_status st = buf ? FZ7_OK : FZ7_E_MEM;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status r = FZ7_OK;
        bool cb_failed = false;
        uint64_t at = offset_of(a, i), left = e->size;
        while (left && r == FZ7_OK) {
            /* a slice past the end of the file gives what is there */
            size_t n = left < CHUNK ? (size_t)left : CHUNK;
            if (at >= a->file_size) {
                r = FZ7_E_TRUNCATED;   /* 7-Zip: Unexpected end of data */
                break;
            }
            if (a->file_size - at < n)
                n = (size_t)(a->file_size - at);
            if ((r = fz7_volumes_pread(a->vol, buf, n, at)) != FZ7_OK)
                break;
            if ((r = cb->data(cb->ctx, buf, n)) != FZ7_OK) {
                cb_failed = true;
                break;
            }
            at += n;
            left -= n;
        }
        if (fz7_entry_done(cb, i, r, cb_failed, r == FZ7_E_TRUNCATED ? "the partition ends past the end of the file" : NULL,
                           err, errlen, &st))
            break;
    }
    free(buf);
    return st;
}

bool fz7_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p, n = c < 0x80 ? 0 : c >= 0xC2 && c < 0xE0 ? 1 : c >= 0xE0 && c < 0xF0 ? 2
                                             : c >= 0xF0 && c < 0xF5 ? 3 : 4;
        if (n == 4)
            return false;
        uint32_t v = c & (0x7Fu >> n);
        for (unsigned i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            v = v << 6 | (p[i] & 0x3F);
        }
        if ((n == 2 && (v < 0x800 || (v >= 0xD800 && v < 0xE000))) || (n == 3 && (v < 0x10000 || v > 0x10FFFF)))
            return false;
        p += n + 1;
    }
    return true;
}

uint32_t fz7_max_code_point(const char *s)
{
    uint32_t max = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = *p++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (more)
            c &= 0x3Fu >> more;
        for (; more > 0 && (*p & 0xC0) == 0x80; more--)
            c = c << 6 | (*p++ & 0x3Fu);
        if (c > max)
            max = c;
    }
    return max;
}


const char *fz7_prop_put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap)
        return "";
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *used)
        return "";
    const char *r = buf + *used;
    *used += (size_t)n + 1;
    return r;
}

void fz7_prop_text(fz7_prop *pr, size_t *n, const char *name, const char *value)
{
    pr[*n] = (fz7_prop){.name = name, .value = value ? value : "", .digits = -1};
    (*n)++;
}

void fz7_prop_time(fz7_prop *pr, size_t *n, const char *name, bool set, int64_t sec, uint32_t nsec,
                   int digits)
{
    pr[*n] = (fz7_prop){.name = name, .sec = sec, .nsec = nsec, .digits = set ? (int8_t)digits : -1};
    (*n)++;
}

void fz7_attrib_string(const fz7_entry *e, char *out, size_t cap)
{
    static const char letters[] = "RHS8DAdNTsLCOIE"; /* bits 0..14 */
    size_t n = 0;
    out[0] = 0;
    if (!e->has_attrib) { /* 7-Zip still shows a folder as one */
        snprintf(out, cap, "%s", e->is_dir ? "D" : "");
        return;
    }
    for (int bit = 0; bit < 15 && n + 1 < cap; bit++)
        if (e->attrib & (1u << bit))
            out[n++] = letters[bit];
    out[n] = 0;
    char m[11];
    fz7_mode_string(e->attrib >> 16, m);
    if ((e->attrib & 0x8000u) && ((e->attrib >> 16) & S_IFMT)) {   /* a Unix mode above */
        snprintf(out + n, cap - n, " %s", m);
    } else if (e->attrib & 0x8000u) {
        /* a mode without a file type: 7-Zip shows the flag, the bits and
         * the mode with '0' for its type */
        m[0] = '0';
        snprintf(out + n, cap - n, "V %08X %s", (unsigned)(e->attrib & 0xffff0000u), m);
    } else if (e->attrib >> 16) {   /* bits with no letter, in hex */
        snprintf(out + n, cap - n, " %08X", (unsigned)e->attrib);
    }
}

int fz7_path_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = *a == '/' ? 1u : (unsigned char)*a, cb = *b == '/' ? 1u : (unsigned char)*b;
        if (ca != cb)
            return ca < cb ? -1 : 1;
        if (!ca)
            return 0;
    }
}

void fz7_mode_string(uint32_t mode, char out[11])
{
    char t = S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : S_ISFIFO(mode) ? 'p' : S_ISCHR(mode) ? 'c'
             : S_ISBLK(mode) ? 'b' : S_ISSOCK(mode) ? 's' : '-';
    const char *rwx = "rwxrwxrwx";
    out[0] = t;
    for (int i = 0; i < 9; i++)
        out[1 + i] = (mode & (0400u >> i)) ? rwx[i] : '-';
    if (mode & S_ISUID)
        out[3] = (mode & 0100) ? 's' : 'S';
    if (mode & S_ISGID)
        out[6] = (mode & 0010) ? 's' : 'S';
    if (mode & S_ISVTX)
        out[9] = (mode & 0001) ? 't' : 'T';
    out[10] = 0;
}

bool fz7_archive_entry_owner(const fz7_archive *a, size_t i, uint32_t *uid, uint32_t *gid)
{
    if (!a->owners || i >= a->owners_cap || i >= a->count ||
        (a->owners[2 * i] == UINT32_MAX && a->owners[2 * i + 1] == UINT32_MAX))
        return false;
    *uid = a->owners[2 * i];
    *gid = a->owners[2 * i + 1];
    return true;
}

fz7_status fz7_archive_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                               char *err, size_t errlen)
{
    if (errlen)
        err[0] = 0;
    return a->ops->extract(a, select, cb, err, errlen);
}

fz7_entry *fz7_single_entry_new(const fz7_archive *a)
{
    fz7_entry *e = calloc(1, sizeof *e);
    if (e && !(e->path = fz7_strip_compressed_suffix(a->path))) {
        free(e);
        e = NULL;
    }
    return e;
}

char *fz7_strip_compressed_suffix(const char *archive_path)
{
    const char *base = strrchr(archive_path, '/');
    base = base ? base + 1 : archive_path;
    size_t n = strlen(base);
    static const struct { const char *suffix, *repl; } map[] = {
        {".txz", ".tar"}, {".tlz", ".tar"}, {".tgz", ".tar"}, {".tbz2", ".tar"}, {".tbz", ".tar"},
        {".tzst", ".tar"}, {".taz", ".tar"}, {".xz", ""}, {".lzma", ""}, {".lz", ""}, {".gz", ""},
        {".bz2", ""}, {".zst", ""}, {".lz4", ""}, {".z", ""}};
    /* A split file's volume number goes too ("x.tar.gz.001" names
     * "x.tar"), when a known suffix stands before it. */
    size_t digits = 0;
    while (digits < n && base[n - 1 - digits] >= '0' && base[n - 1 - digits] <= '9')
        digits++;
    size_t ends[2] = {n, n};
    if (digits >= 2 && digits + 1 < n && base[n - 1 - digits] == '.')
        ends[1] = n - digits - 1;
    size_t keep = n, rl = 0;
    const char *repl = "";
    for (int k = 0; k < 2 && keep == n; k++) {
        size_t end = ends[k];
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
            size_t sl = strlen(map[i].suffix);
            if (end > sl && strncasecmp(base + end - sl, map[i].suffix, sl) == 0) {
                keep = end - sl;
                repl = map[i].repl;
                rl = strlen(repl);
                break;
            }
        }
    }
    /* No known suffix: as 7-Zip, drop the last extension ("data.bin" ->
     * "data"), or add "~" when there is none ("data" -> "data~"), so the
     * entry never takes the archive's own name (extracting would replace
     * the archive with its contents). */
    if (keep == n) {
        const char *dot = strrchr(base, '.');
        if (dot && dot != base) {
            keep = (size_t)(dot - base);
        } else {
            repl = "~";
            rl = 1;
        }
    }
    char *r = malloc(keep + rl + 1);
    if (!r)
        return NULL;
    memcpy(r, base, keep);
    memcpy(r + keep, repl, rl + 1);
    return r;
}

void fz7_dict_name(uint64_t bytes, char *out, size_t cap)
{
    for (unsigned i = 0; i < 64; i++)
        if (((uint64_t)1 << i) == bytes) {
            snprintf(out, cap, "%u", i);
            return;
        }
    if (bytes != 0 && bytes % ((uint64_t)1 << 20) == 0)
        snprintf(out, cap, "%" PRIu64 "m", bytes >> 20);
    else if (bytes != 0 && bytes % 1024 == 0)
        snprintf(out, cap, "%" PRIu64 "k", bytes >> 10);
    else
        snprintf(out, cap, "%" PRIu64 "b", bytes);
}

bool fz7_archive_is_volume_name(const char *path) { return fz7_volumes_is_first_name(path); }

fz7_status fz7_pump_decoded(fz7_istream *dec, const fz7_extract_cb *cb, uint8_t *buf, size_t cap,
                            uint64_t *produced, uint32_t *crc, bool *cb_failed)
{
    fz7_status st = FZ7_OK;
    for (bool more = true; more;) {
        size_t fill = 0;
        while (fill < cap) {
            size_t got = 0;
            st = dec->read(dec, buf + fill, cap - fill, &got);
            if (st != FZ7_OK || got == 0) {
                more = false;
                break;
            }
            fill += got;
        }
        if (fill == 0)
            break;
        *produced += fill;
        if (crc)
            *crc = fz7_crc32(*crc, buf, fill);
        fz7_status cst = cb->data(cb->ctx, buf, fill);
        if (cst != FZ7_OK) {
            *cb_failed = true;
            return cst;
        }
    }
    return st;
}

fz7_status fz7_end_one(const fz7_extract_cb *cb, fz7_status st, const char *detail, char *err, size_t errlen)
{
    if (st == FZ7_E_IO || st == FZ7_E_MEM) {
        snprintf(err, errlen, "%s", st == FZ7_E_IO ? "Read error" : "Out of memory");
        return st;
    }
    return cb->end(cb->ctx, 0, st, st == FZ7_OK ? NULL : detail);
}
