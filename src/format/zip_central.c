/* zip_central.c - what a zip's central directory (APPNOTE.TXT 4.3.12)
 * says of its entries that libarchive 3.6 does not tell: the NTFS times
 * (extra field 0x000a, 4.5.5), where 7-Zip keeps a file's times to 100 ns
 * beside a DOS time rounded up to an even second (without them a zip
 * would list and extract its files up to 2 s off); each entry's packed
 * size; and for `l -slt` its CRC, method, flags, extra fields, host and
 * offset. */
#include "format/archive_impl.h"
#include "check/check.h"
#include "cpu/bytes.h"
#include "format/zip_format.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define FILETIME_UNIX_EPOCH 11644473600LL

/* How many of the last bytes of the zip of size bytes in v to search for
 * its end record: at most cap, and of a split zip the last disk's alone
 * (the one before it may be missing). */
static size_t tail_bytes(const fz7_volumes *v, uint64_t size, size_t cap)
{
    uint64_t n = size;
    if (fz7_volumes_are_disks(v) && fz7_volumes_count(v) > 1)
        n = size - fz7_volumes_start(v, fz7_volumes_count(v) - 1);
    return n < cap ? (size_t)n : cap;
}

/* The end record at i of the last n bytes of the file (tail holds them):
 * the directory it gives, as fz7_zip_find_directory says. */
static bool directory_of(const fz7_volumes *v, uint64_t size, const uint8_t *tail, size_t n, size_t i,
                         uint64_t *cd_off, uint64_t *cd_len, uint64_t *shift)
{
    const uint8_t *e = tail + i;
    uint64_t off = fz7_get32le(e + 16), len = fz7_get32le(e + 12);
    uint64_t at = size - n + i;
    /* A zip64 end record (and its locator) sits between the directory
     * and this one whenever a writer made one: for more than 65,534
     * entries too, where the fields here need not overflow. */
    bool overflow = off == 0xffffffffu || len == 0xffffffffu;
    uint8_t loc[ZIP_EOCD64_LOC_LEN], rec[ZIP_EOCD64_LEN];
    bool has_loc = at >= sizeof loc && fz7_volumes_pread(v, loc, sizeof loc, at - sizeof loc) == FZ7_OK &&
                   fz7_get32le(loc) == ZIP_EOCD64_LOC_SIG;
    if (overflow && !has_loc)
        return false;
    if (has_loc) {
        /* the record right before the locator (where a prefix moves
         * it), else where the locator says */
        uint64_t pos[2] = {at - sizeof loc >= sizeof rec ? at - sizeof loc - sizeof rec : UINT64_MAX,
                           fz7_get64le(loc + 8)};
        bool ok = false;
        for (int k = 0; k < 2 && !ok; k++) {
            ok = pos[k] <= size - sizeof rec && fz7_volumes_pread(v, rec, sizeof rec, pos[k]) == FZ7_OK &&
                 fz7_get32le(rec) == ZIP_EOCD64_SIG;
            if (ok)
                at = pos[k];
        }
        if (!ok && overflow)
            return false;
        if (ok) {
            len = fz7_get64le(rec + 40);
            off = fz7_get64le(rec + 48);
        }
    }
    if (len > at)
        return false;
    /* Bytes before the zip (a self-extractor) move the directory:
     * it ends where the end record begins. */
    *cd_off = off + len == at ? off : at - len;
    *cd_len = len;
    if (shift)
        *shift = *cd_off - off;   /* (modulo 2^64: a zip cut short moves back) */
    return true;
}

bool fz7_zip_find_directory(const fz7_volumes *v, uint64_t size, uint64_t *cd_off, uint64_t *cd_len,
                            char **comment, uint64_t *shift, uint64_t *tail_size)
{
    uint8_t tail[ZIP_EOCD_LEN + 0xffff];
    size_t n = tail_bytes(v, size, sizeof tail);
    if (tail_size)
        *tail_size = 0;
    if (n < ZIP_EOCD_LEN || fz7_volumes_pread(v, tail, n, size - n) != FZ7_OK)
        return false;
    /* The record whose comment reaches the end of the file; else (bytes
     * appended after the zip: 7-Zip's tail) the last record whose
     * comment fits and whose directory starts with a directory record. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = n - ZIP_EOCD_LEN + 1; i-- > 0;) {
            const uint8_t *e = tail + i;
            size_t end = i + ZIP_EOCD_LEN + fz7_get16le(e + 20);
            if (fz7_get32le(e) != ZIP_EOCD_SIG || (pass == 0 ? end != n : end >= n))
                continue;
            uint64_t off, len, sh;
            if (!directory_of(v, size, tail, n, i, &off, &len, &sh))
                continue;
            uint8_t sig[4];
            if (pass == 1 && (len < 4 || off > size - 4 || fz7_volumes_pread(v, sig, 4, off) != FZ7_OK ||
                              fz7_get32le(sig) != ZIP_CDH_SIG))
                continue;
            *cd_off = off;
            *cd_len = len;
            if (shift)
                *shift = sh;
            if (comment && fz7_get16le(e + 20))
                *comment = strndup((const char *)e + ZIP_EOCD_LEN, fz7_get16le(e + 20));
            if (tail_size)
                *tail_size = n - end;
            return true;
        }
    }
    return false;
}

/* The number of the disk the zip of size bytes in v ends on (its end
 * record's; 0 for a zip in one file). */
static unsigned last_disk(const fz7_volumes *v, uint64_t size)
{
    uint8_t tail[ZIP_EOCD_LEN + 0xffff];
    size_t n = tail_bytes(v, size, sizeof tail);
    if (n < ZIP_EOCD_LEN || fz7_volumes_pread(v, tail, n, size - n) != FZ7_OK)
        return 0;
    for (size_t i = n - ZIP_EOCD_LEN + 1; i-- > 0;) {
        const uint8_t *e = tail + i;
        if (fz7_get32le(e) == ZIP_EOCD_SIG && i + ZIP_EOCD_LEN + fz7_get16le(e + 20) <= n)
            return fz7_get16le(e + 4) ? fz7_get16le(e + 4) : fz7_get16le(e + 6);
    }
    return 0;
}

bool fz7_zip_spans_disks(const fz7_volumes *v, uint64_t size)
{
    return !fz7_volumes_are_disks(v) && last_disk(v, size) != 0;
}

/* Whether name's extension is ".zip" (any case), or ".z01": then *z01. */
static bool disk_name(const char *name, size_t *stem, bool *z01)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return false;
    *stem = (size_t)(dot - name);
    *z01 = (dot[1] == 'z' || dot[1] == 'Z') && strcmp(dot + 2, "01") == 0;
    return *z01 || strcasecmp(dot + 1, "zip") == 0;
}

fz7_status fz7_zip_open_disks(const char *path, const fz7_volumes *v, fz7_volumes **disks, size_t *named,
                              char *err, size_t errlen)
{
    *disks = NULL;
    size_t stem;
    bool z01;
    if (!disk_name(path, &stem, &z01))
        return FZ7_E_FORMAT;
    /* the last disk's end record says how many there are: x.z01 is
     * opened by way of x.zip */
    char *last = z01 ? malloc(stem + 5) : strdup(path);
    if (!last)
        return FZ7_E_MEM;
    if (z01) {
        memcpy(last, path, stem);
        snprintf(last + stem, 5, ".%s", path[stem + 1] == 'Z' ? "ZIP" : "zip");
    }
    fz7_volumes *lv = NULL;
    char lerr[8];
    unsigned n = 0;
    if (!z01 || fz7_volumes_open(last, &lv, lerr, sizeof lerr) == FZ7_OK)
        n = last_disk(z01 ? lv : v, fz7_volumes_size(z01 ? lv : v));
    fz7_volumes_close(lv);
    if (n == 0) {
        free(last);
        return FZ7_E_FORMAT;
    }
    char **names = calloc((size_t)n + 1, sizeof *names);
    fz7_status st = names ? FZ7_OK : FZ7_E_MEM;
    char letter = path[stem + 1] == 'Z' || path[stem + 1] == 'z' ? path[stem + 1] : 'z';
    for (unsigned k = 1; k <= n && st == FZ7_OK; k++) {
        if (!(names[k - 1] = malloc(stem + 16)))
            st = FZ7_E_MEM;
        else
            snprintf(names[k - 1], stem + 16, "%.*s.%c%02u", (int)stem, path, letter, k);
    }
    if (st == FZ7_OK) {
        names[n] = last;
        last = NULL;
        st = fz7_volumes_open_disks((const char *const *)names, (size_t)n + 1, disks, err, errlen);
        *named = z01 ? 0 : n;
    }
    for (unsigned k = 0; names && k <= n; k++)
        free(names[k]);
    free(names);
    free(last);
    return st;
}

/* Where the local header offsets of record h count from: the start of
 * its disk in a zip split across files, else shift (a stub's bytes). */
static uint64_t record_base(const fz7_volumes *v, const uint8_t *h, uint64_t shift)
{
    size_t disk = fz7_get16le(h + 34);
    if (fz7_volumes_are_disks(v))
        return disk < fz7_volumes_count(v) ? fz7_volumes_start(v, disk) : fz7_volumes_size(v);
    return shift;
}

/* The times of an NTFS extra field's data (modified, accessed, created:
 * 0 where absent), as FILETIME values. False without its attribute 1. */
static bool ntfs_times(const uint8_t *x, size_t n, uint64_t ft[3])
{
    for (size_t i = 4; i + 4 <= n;) {   /* 4 reserved bytes, then tag-size-value */
        uint16_t tag = fz7_get16le(x + i), len = fz7_get16le(x + i + 2);
        if (len > n - i - 4)
            return false;
        if (tag == 1 && len >= 24) {
            for (int k = 0; k < 3; k++)
                ft[k] = fz7_get64le(x + i + 4 + 8 * k);
            return true;
        }
        i += 4u + len;
    }
    return false;
}

static void filetime_split(uint64_t ft, int64_t *sec, uint32_t *nsec)
{
    *sec = (int64_t)(ft / 10000000u) - FILETIME_UNIX_EPOCH;
    *nsec = (uint32_t)(ft % 10000000u) * 100u;
}

/* Whether central directory name nm (n bytes, a folder's with its '/')
 * is entry path p. */
/* Whether the name in central record h (or nm, n bytes, given instead)
 * is entry path p: a folder's last '/' dropped, and a backslash of a
 * non-Unix host's record matching libarchive's '/' (it makes those
 * backslashes separators; a Unix host's it keeps). */
static bool same_name_bs(const uint8_t *nm, size_t n, const char *p, bool bs_sep)
{
    while (n > 1 && nm[n - 1] == '/')
        n--;
    if (strlen(p) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)p[i] != nm[i] && !(bs_sep && nm[i] == '\\' && p[i] == '/'))
            return false;
    return true;
}

static bool same_name(const uint8_t *h, const char *p)
{
    return same_name_bs(h + ZIP_CDH_LEN, fz7_get16le(h + 28), p, (fz7_get16le(h + 4) >> 8) != ZIP_HOST_UNIX);
}

/* The Info-ZIP Unicode Path (APPNOTE 4.6.9) of central record h, when its
 * CRC says it belongs to the record's name: the UTF-8 name, in *n bytes. */
static const uint8_t *unicode_path(const uint8_t *h, size_t *n)
{
    size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30);
    const uint8_t *nm = h + ZIP_CDH_LEN, *x = nm + nlen;
    for (size_t i = 0; i + 4 <= xlen;) {
        size_t id = fz7_get16le(x + i), len = fz7_get16le(x + i + 2);
        if (len > xlen - i - 4)
            break;
        if (id == ZIP_EXTRA_UPATH && len > 5 && x[i + 4] == 1 && fz7_get32le(x + i + 5) == fz7_crc32(0, nm, nlen)) {
            *n = len - 5;
            return x + i + 9;
        }
        i += 4 + len;
    }
    return NULL;
}

void fz7_zip64_fields(const uint8_t *x, size_t n, uint64_t *size, uint64_t *packed,
                         uint64_t *offset)
{
    size_t at = 0;
    uint64_t *f[3] = {size, packed, offset};
    for (int k = 0; k < 3; k++) {
        if (*f[k] != 0xffffffffu)
            continue;
        if (at + 8 > n)
            return;
        *f[k] = fz7_get64le(x + at);
        at += 8;
    }
}

/* A record of a root folder ("/"), which libarchive lists and fz7 does
 * not (fz7_la_is_root_folder). */
static bool is_root(const uint8_t *nm, size_t n)
{
    size_t k = 0;
    while (k < n && nm[k] == '/')
        k++;
    return n && k == n;
}

/* Entry e takes the record's name nm (n bytes, a folder's '/' dropped),
 * keeping libarchive's in r->la_path for the reader's checks. False when
 * memory runs out. */
static bool take_name(fz7_entry *e, const uint8_t *nm, size_t n, fz7_zip_rec *r)
{
    while (n > 1 && nm[n - 1] == '/')
        n--;
    char *raw = strndup((const char *)nm, n);
    if (!raw)
        return false;
    r->la_path = e->path;
    e->path = raw;
    return true;
}

/* Appends word to the space-separated list s (cap bytes). */
static void word_add(char *s, size_t cap, const char *word)
{
    size_t n = strlen(s);
    snprintf(s + n, cap - n, "%s%s", n ? " " : "", word);
}

/* Entry k takes what record h (its fields checked to fit) says: packed
 * size, NTFS times, attributes, and into r (when kept) what `l -slt`
 * lists. */
static void apply_record(const uint8_t *h, fz7_entry *entries, size_t k, fz7_zip_rec *r, const fz7_volumes *v,
                         uint64_t shift)
{
    size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30), clen = fz7_get16le(h + 32);
    const uint8_t *x = h + ZIP_CDH_LEN + nlen;
    uint64_t usize = fz7_get32le(h + 24), packed = fz7_get32le(h + 20);
    uint64_t local = fz7_get32le(h + 42);
    char extras[sizeof r->extras] = "";
    for (size_t j = 0; j + 4 <= xlen;) {
        uint16_t id = fz7_get16le(x + j), dlen = fz7_get16le(x + j + 2);
        if (dlen > xlen - j - 4)
            break;
        const uint8_t *d = x + j + 4;
        uint64_t ft[3];
        if (id == ZIP_EXTRA_ZIP64) {
            fz7_zip64_fields(d, dlen, &usize, &packed, &local);
        } else if (id == ZIP_EXTRA_NTFS) {
            word_add(extras, sizeof extras, "NTFS");
            if (ntfs_times(d, dlen, ft) && ft[0]) {
                entries[k].has_mtime = true;
                filetime_split(ft[0], &entries[k].mtime, &entries[k].mtime_nsec);
                entries[k].mtime_prec = FZ7_MTIME_EXACT;
            }
            if (r && ntfs_times(d, dlen, ft)) {
                r->has_atime = ft[1] != 0;
                r->has_ctime = ft[2] != 0;
                filetime_split(ft[1], &r->atime, &r->atime_nsec);
                filetime_split(ft[2], &r->ctime, &r->ctime_nsec);
            }
        } else if (id == ZIP_EXTRA_UT && dlen >= 1) {
            /* 7-Zip names the times the flags announce, then how many
             * this copy of the field holds */
            char ut[16];
            snprintf(ut, sizeof ut, "UT:%s%s%s:%u", d[0] & 1 ? "M" : "", d[0] & 2 ? "A" : "",
                     d[0] & 4 ? "C" : "", (unsigned)((dlen - 1) / 4));
            word_add(extras, sizeof extras, ut);
            if (dlen >= 5 && (d[0] & 1) && entries[k].mtime_prec == FZ7_MTIME_DOS)
                entries[k].mtime_prec = FZ7_MTIME_SECONDS;   /* libarchive read its time */
        } else if (id == ZIP_EXTRA_UX) {
            word_add(extras, sizeof extras, "ux");
        } else if (id == ZIP_EXTRA_AES) {
            word_add(extras, sizeof extras, "WzAES");
            entries[k].zip_aes = true;
            if (r && dlen >= 7) {
                r->aes_strength = d[4];
                r->aes_method = fz7_get16le(d + 5);
                r->aes = true;
            }
        }
        j += 4u + dlen;
    }
    entries[k].packed_size = packed;
    entries[k].packed_known = true;
    /* an encrypted link's target came from libarchive still encrypted
     * (or not at all): its size is the record's */
    if (entries[k].is_symlink && (fz7_get16le(h + 8) & 1))
        entries[k].size = usize;
    /* Attributes as 7-Zip takes them: any other host's DOS bits; a
     * Unix mode without a file type (Python's zipfile writes 0600 so) is
     * listed as it is but not applied: its permissions are dropped, so
     * that extraction gives the umask's, as 7zz does (libarchive made it
     * a regular file's mode) */
    uint32_t ext = fz7_get32le(h + 38);
    unsigned host = fz7_get16le(h + 4) >> 8;
    if (host != ZIP_HOST_UNIX) {
        entries[k].attrib = ext;
    } else if ((ext >> 16) && ((ext >> 16) & S_IFMT) == (entries[k].mode & S_IFMT)) {
        /* the record's mode: libarchive reads a split zip from its local
         * headers, which have none */
        entries[k].mode = ext >> 16;
        entries[k].attrib = (entries[k].attrib & 0xffffu) | (ext & 0xffff0000u);
    } else if ((ext >> 16) && !((ext >> 16) & S_IFMT)) {
        entries[k].attrib = (ext & 0xffff0000u) | ZIP_ATTR_UNIX_EXTENSION |
                            (entries[k].is_dir ? ZIP_ATTR_DIRECTORY : 0);
        entries[k].mode &= ~(uint32_t)07777;
    } else if (((ext >> 16) & S_IFMT) == S_IFIFO) {
        /* a FIFO (7zz's -si entry, a stored FIFO): libarchive made it a
         * regular file; listed as a FIFO (extracted as a file, with the
         * umask's permissions for its type) */
        entries[k].attrib = (ext & 0xffff0000u) | ZIP_ATTR_UNIX_EXTENSION;
    }
    if (r) {
        r->matched = true;
        r->size = usize;
        r->at = record_base(v, h, shift) + local;
        r->offset = local;   /* 7-Zip's: in the zip (a stub not counted), in its disk */
        r->crc = fz7_get32le(h + 16);
        r->disk = fz7_get16le(h + 34);
        r->flags = fz7_get16le(h + 8);
        r->method = fz7_get16le(h + 10);
        r->made_by = fz7_get16le(h + 4);
        r->needed = fz7_get16le(h + 6);
        memcpy(r->extras, extras, sizeof extras);
        if (clen && !(r->comment = strndup((const char *)x + xlen, clen)))
            r->matched = false;
    }
}

static int cmp_place(const void *x, const void *y)
{
    const fz7_zip_place *a = x, *b = y;
    return a->local != b->local ? (a->local < b->local ? -1 : 1) : (a->at > b->at) - (a->at < b->at);
}

void fz7_zip_places_sort(fz7_zip_place *p, size_t n)
{
    qsort(p, n, sizeof *p, cmp_place);
}

void fz7_zip_record_sizes(const uint8_t *h, uint64_t *size, uint64_t *packed, uint64_t *local)
{
    size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30);
    *size = fz7_get32le(h + 24), *packed = fz7_get32le(h + 20), *local = fz7_get32le(h + 42);
    const uint8_t *x = h + ZIP_CDH_LEN + nlen;
    for (size_t j = 0; j + 4 <= xlen;) {
        uint16_t id = fz7_get16le(x + j), dlen = fz7_get16le(x + j + 2);
        if (dlen > xlen - j - 4)
            break;
        if (id == ZIP_EXTRA_ZIP64)
            fz7_zip64_fields(x + j + 4, dlen, size, packed, local);
        j += 4u + dlen;
    }
}

uint64_t fz7_zip_record_local(const uint8_t *h)
{
    uint64_t size, packed, local;
    fz7_zip_record_sizes(h, &size, &packed, &local);
    return local;
}

/* The entries (paired in place with place, sorted by data) in the order
 * of their records; NULL when that is the entries' own order. */
static uint32_t *directory_order(const fz7_zip_place *place, size_t count)
{
    size_t k = 1;
    while (k < count && place[k - 1].at < place[k].at)
        k++;
    if (k >= count || count > UINT32_MAX)
        return NULL;
    fz7_zip_place *by_at = malloc(count * sizeof *by_at);
    uint32_t *order = malloc(count * sizeof *order);
    if (by_at && order) {
        for (k = 0; k < count; k++)
            by_at[k] = (fz7_zip_place){place[k].at, k};
        fz7_zip_places_sort(by_at, count);
        for (k = 0; k < count; k++)
            order[k] = (uint32_t)by_at[k].at;
    } else {
        free(order);
        order = NULL;
    }
    free(by_at);
    return order;
}

void fz7_zip_central(const fz7_volumes *v, uint64_t size, fz7_entry *entries, size_t count,
                     uint64_t mem_limit, fz7_zip_rec **recs_out, char **comment, uint32_t **listed,
                     uint64_t *tail_size, uint64_t *stub)
{
    *listed = NULL;
    if (recs_out)
        *recs_out = NULL;
    *comment = NULL;
    *stub = 0;
    uint64_t off, len;
    uint64_t shift = 0;
    if (!fz7_zip_find_directory(v, size, &off, &len, comment, &shift, tail_size) || !count || len > mem_limit || len > SIZE_MAX ||
        off > size || len > size - off)
        return;
    if (shift < size && !fz7_volumes_are_disks(v))
        *stub = shift;
    uint8_t *cd = malloc(len ? (size_t)len : 1);
    fz7_zip_rec *recs = recs_out ? calloc(count, sizeof *recs) : NULL;
    if (!cd || (recs_out && !recs) || fz7_volumes_pread(v, cd, (size_t)len, off) != FZ7_OK) {
        free(cd);
        free(recs);
        return;
    }
    /* libarchive lists a zip's entries in the order of their data (local
     * header offsets), not the directory's. When there is one record for
     * each entry, besides root folders, the records sorted so pair with
     * the entries in place: a UTF-8 name that libarchive gave in Unicode's
     * composed form (NFC: "e" + U+0301 as U+00E9) takes the record's
     * bytes. Otherwise records are matched by name in the directory's
     * order, one libarchive did not list (a root folder) or named
     * otherwise passed over. */
    size_t records = 0;
    fz7_zip_place *place = malloc((count + 1) * sizeof *place);
    for (size_t at = 0; place && at + ZIP_CDH_LEN <= len;) {
        const uint8_t *h = cd + at;
        size_t nlen = fz7_get16le(h + 28), rlen = ZIP_CDH_LEN + nlen + fz7_get16le(h + 30) + fz7_get16le(h + 32);
        if (fz7_get32le(h) != ZIP_CDH_SIG || rlen > len - at)
            break;
        if (!is_root(h + ZIP_CDH_LEN, nlen)) {
            if (records == count) {
                records++;   /* more records than entries */
                break;
            }
            place[records++] = (fz7_zip_place){record_base(v, h, shift) + fz7_zip_record_local(h), at};
        }
        at += rlen;
    }
    if (place && records == count) {
        fz7_zip_places_sort(place, count);
        *listed = directory_order(place, count);
        for (size_t k = 0; k < count; k++) {
            const uint8_t *h = cd + place[k].at;
            const uint8_t *nm = h + ZIP_CDH_LEN;
            size_t nlen = fz7_get16le(h + 28);
            /* the record's bytes where libarchive changed a UTF-8 name, or
             * made a Unix name's backslash a separator (7zz keeps it); a
             * Unicode Path that only the record has names the entry (as
             * 7zz names it; libarchive reads the local header's) */
            bool unix_bs = (fz7_get16le(h + 4) >> 8) == ZIP_HOST_UNIX && memchr(nm, '\\', nlen);
            size_t ulen = 0;
            const uint8_t *un = unicode_path(h, &ulen);
            bool by_upath = un && same_name_bs(un, ulen, entries[k].path, false);
            if (!by_upath && !same_name(h, entries[k].path) &&
                (!((fz7_get16le(h + 8) & ZIP_FLAG_UTF8) || unix_bs) || !recs ||
                 !take_name(&entries[k], nm, nlen, &recs[k])))
                continue;   /* not this entry after all */
            if (un && !by_upath && recs && !recs[k].la_path && !take_name(&entries[k], un, ulen, &recs[k]))
                continue;
            apply_record(h, entries, k, recs ? &recs[k] : NULL, v, shift);
        }
        free(place);
        free(cd);
        if (recs_out)
            *recs_out = recs;
        return;
    }
    free(place);
    size_t i = 0;
    for (size_t at = 0; at + ZIP_CDH_LEN <= len && i < count;) {
        const uint8_t *h = cd + at;
        if (fz7_get32le(h) != ZIP_CDH_SIG)
            break;
        size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30), clen = fz7_get16le(h + 32);
        if (ZIP_CDH_LEN + nlen + xlen + clen > len - at)
            break;
        at += ZIP_CDH_LEN + nlen + xlen + clen;
        size_t k = same_name(h, entries[i].path)                              ? i
                   : i + 1 < count && same_name(h, entries[i + 1].path) ? i + 1
                                                                         : SIZE_MAX;
        if (k == SIZE_MAX)
            continue;
        apply_record(h, entries, k, recs ? &recs[k] : NULL, v, shift);
        i = k + 1;
    }
    free(cd);
    if (recs_out)
        *recs_out = recs;
}

/* APPNOTE 4.4.2.2's hosts (gzip's OS byte, RFC 1952, counts the same way
 * up to 13), as 7-Zip names them. */
static const char *const host_names[] = {
    "FAT", "AMIGA", "VMS", "Unix", "VM/CMS", "Atari", "HPFS", "Macintosh", "Z-System", "CP/M",
    "TOPS-20", "NTFS", "SMS/QDOS", "Acorn", "VFAT", "MVS", "BeOS", "Tandem", "OS/400", "OS/X"};

const char *fz7_host_os_name(unsigned host)
{
    return host < sizeof host_names / sizeof host_names[0] ? host_names[host] : NULL;
}

/* A compression method's name (APPNOTE 4.4.5). */
static const char *method_name(uint16_t m)
{
    switch (m) {
    case 0: return "Store";
    case 1: return "Shrink";
    case 6: return "Implode";
    case 8: return "Deflate";
    case 9: return "Deflate64";
    case 12: return "BZip2";
    case 14: return "LZMA";
    case 93: return "Zstd";
    case 95: return "xz";
    case 98: return "PPMd";
    }
    return NULL;
}

size_t fz7_zip_props(const fz7_entry *e, const fz7_zip_rec *r, fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)r->size));
    fz7_prop_text(pr, &n, "Packed Size",
                  fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size));
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, e->mtime_nsec,
                  e->mtime_prec == FZ7_MTIME_EXACT ? 7 : 0);
    fz7_prop_time(pr, &n, "Created", r->has_ctime, r->ctime, r->ctime_nsec, 7);
    fz7_prop_time(pr, &n, "Accessed", r->has_atime, r->atime, r->atime_nsec, 7);
    char attrs[64];
    fz7_attrib_string(e, attrs, sizeof attrs);
    fz7_prop_text(pr, &n, "Attributes", fz7_prop_put(buf, cap, &used, "%s", attrs));
    fz7_prop_text(pr, &n, "Encrypted", r->flags & 1 ? "+" : "-");
    fz7_prop_text(pr, &n, "Comment", r->comment);
    /* a folder's CRC, and an AES entry's that AE-2 leaves 0, are none */
    bool no_crc = e->is_dir || (r->aes && r->crc == 0);
    fz7_prop_text(pr, &n, "CRC", no_crc ? "" : fz7_prop_put(buf, cap, &used, "%08X", (unsigned)r->crc));
    uint16_t m = r->aes ? r->aes_method : r->method;
    char name[16];
    snprintf(name, sizeof name, "%s", method_name(m) ? method_name(m) : "");
    if (!name[0])
        snprintf(name, sizeof name, "%u", (unsigned)m);
    /* flag bits 1-2: the Deflate level, or LZMA's end marker */
    unsigned opt = (r->flags >> 1) & 3;
    static const char *const deflate_opt[] = {"", ":Maximum", ":Fast", ":SuperFast"};
    char suffix[16] = "";
    if (m == 8 || m == 9)
        snprintf(suffix, sizeof suffix, "%s", deflate_opt[opt]);
    else if (m == 14)
        snprintf(suffix, sizeof suffix, "%s", opt & 1 ? ":eos" : "");
    else if (opt)
        snprintf(suffix, sizeof suffix, ":v%u", opt);
    char crypt[16] = "";
    if (r->aes)
        snprintf(crypt, sizeof crypt, "AES-%u ", r->aes_strength >= 1 && r->aes_strength <= 3
                                                     ? 64u + 64u * r->aes_strength : 0u);
    else if (r->flags & 1)
        snprintf(crypt, sizeof crypt, "ZipCrypto ");
    fz7_prop_text(pr, &n, "Method", fz7_prop_put(buf, cap, &used, "%s%s%s", crypt, name, suffix));
    bool enc = r->flags & 1, desc = r->flags & 8, utf8 = r->flags & 0x800;
    /* "NTFS : Descriptor UTF8"; without extra fields the flags alone */
    char flags[40];
    snprintf(flags, sizeof flags, "%s%s%s", enc ? " Encrypt" : "", desc ? " Descriptor" : "", utf8 ? " UTF8" : "");
    fz7_prop_text(pr, &n, "Characteristics",
                  fz7_prop_put(buf, cap, &used, "%s%s%s", r->extras, r->extras[0] && flags[0] ? " :" : "",
                               r->extras[0] || !flags[0] ? flags : flags + 1));
    unsigned host = r->made_by >> 8;
    const char *hn = fz7_host_os_name(host);
    fz7_prop_text(pr, &n, "Host OS", hn ? hn : fz7_prop_put(buf, cap, &used, "%u", host));
    fz7_prop_text(pr, &n, "Version", fz7_prop_put(buf, cap, &used, "%u", (unsigned)r->needed));
    fz7_prop_text(pr, &n, "Volume Index", fz7_prop_put(buf, cap, &used, "%u", (unsigned)r->disk));
    fz7_prop_text(pr, &n, "Offset", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)r->offset));
    return n;
}

/* A DOS date and time (APPNOTE 4.4.6), local time as libarchive reads it. */
static int64_t dos_time_to_unix(uint32_t dt)
{
    struct tm tm = {0};
    tm.tm_year = (int)((dt >> 25) & 0x7f) + 80;
    tm.tm_mon = (int)((dt >> 21) & 0x0f) - 1;
    tm.tm_mday = (int)((dt >> 16) & 0x1f);
    tm.tm_hour = (int)((dt >> 11) & 0x1f);
    tm.tm_min = (int)((dt >> 5) & 0x3f);
    tm.tm_sec = (int)((dt << 1) & 0x3e);
    tm.tm_isdst = -1;
    return (int64_t)mktime(&tm);
}

/* The modification time of a UT extra field's data (n bytes at x), when
 * its flags say it is there. */
static bool ut_mtime(const uint8_t *x, size_t n, int64_t *sec)
{
    for (size_t j = 0; j + 4 <= n;) {
        uint16_t id = fz7_get16le(x + j), len = fz7_get16le(x + j + 2);
        if (len > n - j - 4)
            return false;
        if (id == ZIP_EXTRA_UT && len >= 5 && (x[j + 4] & 1)) {
            *sec = (int32_t)fz7_get32le(x + j + 5);
            return true;
        }
        j += 4u + len;
    }
    return false;
}

fz7_status fz7_zip_unlisted(const fz7_volumes *v, uint64_t size, uint64_t from, uint64_t mem_limit,
                            fz7_entry **out, fz7_zip_rec **recs_out, size_t *n_out)
{
    *out = NULL;
    *recs_out = NULL;
    *n_out = 0;
    uint64_t off, len, shift = 0;
    if (!fz7_zip_find_directory(v, size, &off, &len, NULL, &shift, NULL) || len > mem_limit / 4 ||
        len > SIZE_MAX || off > size || len > size - off)
        return FZ7_OK;
    uint8_t *cd = malloc(len ? (size_t)len : 1);
    if (!cd)
        return FZ7_E_MEM;
    fz7_status st = fz7_volumes_pread(v, cd, (size_t)len, off);
    fz7_entry *e = NULL;
    fz7_zip_rec *r = NULL;
    size_t n = 0, cap = 0, rcap = 0;
    for (size_t at = 0; st == FZ7_OK && at + ZIP_CDH_LEN <= len;) {
        const uint8_t *h = cd + at;
        size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30);
        size_t rlen = ZIP_CDH_LEN + nlen + xlen + fz7_get16le(h + 32);
        if (fz7_get32le(h) != ZIP_CDH_SIG || rlen > len - at)
            break;
        at += rlen;
        if (record_base(v, h, shift) + fz7_zip_record_local(h) < from || nlen == 0 || is_root(h + ZIP_CDH_LEN, nlen))
            continue;
        if ((st = fz7_grow((void **)&e, n, &cap, sizeof *e, 16, mem_limit)) != FZ7_OK ||
            (st = fz7_grow((void **)&r, n, &rcap, sizeof *r, 16, mem_limit)) != FZ7_OK)
            break;
        fz7_entry *x = &e[n];
        memset(x, 0, sizeof *x);
        memset(&r[n], 0, sizeof r[n]);
        const uint8_t *nm = h + ZIP_CDH_LEN;
        x->is_dir = nm[nlen - 1] == '/';
        while (nlen > 1 && nm[nlen - 1] == '/')
            nlen--;
        if (!(x->path = strndup((const char *)nm, nlen))) {
            st = FZ7_E_MEM;
            break;
        }
        n++;
        uint32_t ext = fz7_get32le(h + 38);
        bool unix_host = (fz7_get16le(h + 4) >> 8) == ZIP_HOST_UNIX;
        uint32_t type = unix_host ? (ext >> 16) & S_IFMT : 0;
        x->is_symlink = !x->is_dir && type == S_IFLNK;
        uint32_t perm = unix_host && (ext >> 16) ? (ext >> 16) & 07777 : x->is_dir ? 0755 : 0644;
        x->mode = (x->is_dir ? S_IFDIR : x->is_symlink ? S_IFLNK : S_IFREG) | perm;
        x->has_attrib = true;
        x->attrib = 0x8000u | (x->mode << 16) | (x->is_dir ? ZIP_ATTR_DIRECTORY : 0);
        x->has_size = true;
        x->has_mtime = true;
        if (!ut_mtime(nm + fz7_get16le(h + 28), xlen, &x->mtime)) {
            x->mtime = dos_time_to_unix(fz7_get32le(h + 12));
            x->mtime_prec = FZ7_MTIME_DOS;
        } else {
            x->mtime_prec = FZ7_MTIME_SECONDS;
        }
        x->encrypted = fz7_get16le(h + 8) & 1;
        x->folder = -1;
        x->method = "";
        apply_record(h, e, n - 1, &r[n - 1], v, shift);
        x->size = x->is_dir ? 0 : r[n - 1].size;
        x->has_stream = !x->is_dir && x->size != 0;
    }
    free(cd);
    if (st != FZ7_OK) {
        for (size_t k = 0; k < n; k++) {
            free(e[k].path);
            free(r[k].comment);
        }
        free(e);
        free(r);
        return st;
    }
    *out = e;
    *recs_out = r;
    *n_out = n;
    return FZ7_OK;
}
