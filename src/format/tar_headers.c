/* tar_headers.c - a plain tar's headers read as they are stored (POSIX.1
 * ustar and pax, GNU tar's format), for what 7-Zip lists of a tar and
 * libarchive does not tell: the packed size of each entry, its typeflag,
 * which header kinds and pax records made it, raw device fields and the
 * pax global header. libarchive still decodes the archive; this walk only
 * reads the 512-byte headers and the pax and long-name records. */
#include "format/archive_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 512u
/* The longest pax or long-name record set read: libarchive refuses
 * longer ones too (its limit is 1 MiB for a long name). */
#define META_MAX ((uint64_t)1 << 20)

/* A numeric header field: octal digits (leading spaces, ending at a space
 * or NUL) or GNU's base-256 (high bit of the first byte). */
static bool header_number(const uint8_t *f, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (f[0] & 0x80) {
        if (f[0] & 0x40)
            return false;   /* negative: no size or id */
        v = f[0] & 0x3f;
        for (size_t i = 1; i < n; i++) {
            if (v >> 56)
                return false;
            v = v << 8 | f[i];
        }
        *out = v;
        return true;
    }
    size_t i = 0;
    while (i < n && f[i] == ' ')
        i++;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            return false;
        v = v << 3 | (uint64_t)(f[i] - '0');
    }
    *out = v;
    return true;
}

static bool header_checksum_ok(const uint8_t *h)
{
    uint64_t want;
    if (!header_number(h + 148, 8, &want))
        return false;
    uint64_t sum = 0;
    for (size_t i = 0; i < BLOCK; i++)
        sum += i >= 148 && i < 156 ? ' ' : h[i];
    return sum == want;
}

/* A pax time value "[-]seconds[.fraction]" into t (seconds, nanoseconds
 * and the fraction's digits as stored, at most 9 kept). */
static bool pax_time(const char *v, size_t n, fz7_tar_time *t)
{
    size_t i = 0;
    bool neg = i < n && v[i] == '-';
    i += neg;
    int64_t s = 0;
    size_t d0 = i;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        if (s > INT64_MAX / 10 - 1)
            return false;
        s = s * 10 + (v[i] - '0');
    }
    if (i == d0)
        return false;
    uint32_t ns = 0;
    uint8_t digits = 0;
    if (i < n && v[i] == '.') {
        for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            if (digits < 9) {
                ns = ns * 10 + (uint32_t)(v[i] - '0');
                digits++;
            }
        for (uint8_t k = digits; k < 9; k++)
            ns *= 10;
    }
    if (neg && ns) {
        s = -s - 1;
        ns = 1000000000u - ns;
    } else if (neg) {
        s = -s;
    }
    t->sec = s;
    t->nsec = ns;
    t->digits = digits;
    t->set = true;
    return true;
}

/* A pax decimal value; false unless all of it is digits. */
static bool pax_number(const char *v, size_t n, uint64_t *out)
{
    uint64_t z = 0;
    size_t k = 0;
    for (; k < n && v[k] >= '0' && v[k] <= '9'; k++) {
        if (z > (UINT64_MAX - 9) / 10)
            return false;
        z = z * 10 + (uint64_t)(v[k] - '0');
    }
    if (k != n || !k)
        return false;
    *out = z;
    return true;
}

/* Appends n bytes of s to the growing text *buf (len *len), '\n' after
 * when nl. False when out of memory. */
static bool text_add(char **buf, size_t *len, const char *s, size_t n, bool nl)
{
    char *b = realloc(*buf, *len + n + 2);
    if (!b)
        return false;
    memcpy(b + *len, s, n);
    *len += n;
    if (nl)
        b[(*len)++] = '\n';
    b[*len] = 0;
    *buf = b;
    return true;
}

/* A header's name field (n bytes at most, to its NUL) with bytes above
 * 0x7f taken as Latin-1, the way 7-Zip shows the name of a pax header. */
static bool text_add_latin1(char **buf, size_t *len, const uint8_t *s, size_t n)
{
    char tmp[2 * 100];
    size_t k = 0;
    for (size_t i = 0; i < n && s[i] && k + 2 <= sizeof tmp; i++) {
        if (s[i] < 0x80) {
            tmp[k++] = (char)s[i];
        } else {
            tmp[k++] = (char)(0xc0 | s[i] >> 6);
            tmp[k++] = (char)(0x80 | (s[i] & 0x3f));
        }
    }
    return text_add(buf, len, tmp, k, true);
}

/* The records of a pax header (data, n bytes) into h: the keys 7-Zip
 * names, the times, and the other records appended to *comment. */
static fz7_status pax_records(const char *data, size_t n, fz7_tar_hdr *h, char **comment,
                              size_t *clen)
{
    for (size_t at = 0; at < n;) {
        size_t len = 0, i = at;
        for (; i < n && data[i] >= '0' && data[i] <= '9' && len < META_MAX; i++)
            len = len * 10 + (size_t)(data[i] - '0');
        /* "<len> <key>=<value>\n", len counting all of it */
        if (i == at || i >= n || data[i] != ' ' || len < i - at + 3 || len > n - at)
            break;   /* libarchive reports a malformed record */
        const char *key = data + i + 1, *end = data + at + len - 1;   /* at the '\n' */
        const char *eq = memchr(key, '=', (size_t)(end - key));
        if (!eq || *end != '\n')
            break;
        size_t klen = (size_t)(eq - key), vlen = (size_t)(end - eq - 1);
        const char *v = eq + 1;
#define KEY(s) (klen == sizeof(s) - 1 && memcmp(key, s, klen) == 0)
        if (KEY("path") || KEY("linkpath")) {
            bool link = key[0] == 'l';
            h->pax |= link ? FZ7_TAR_PAX_LINKPATH : FZ7_TAR_PAX_PATH;
            char **raw = link ? &h->pax_linkpath : &h->pax_path;
            free(*raw);
            *raw = NULL;
            bool wide = false;
            for (size_t k = 0; k < vlen && !wide; k++)
                wide = (unsigned char)v[k] >= 0x80;
            if (wide && !(*raw = strndup(v, vlen)))
                return FZ7_E_MEM;
        }
        else if (KEY("size")) {
            if (pax_number(v, vlen, &h->pax_size))
                h->pax |= FZ7_TAR_PAX_SIZE;
        }
        else if (KEY("mtime") && pax_time(v, vlen, &h->time[0]))
            h->pax |= FZ7_TAR_PAX_MTIME;
        else if (KEY("atime") && pax_time(v, vlen, &h->time[1]))
            h->pax |= FZ7_TAR_PAX_ATIME;
        else if (KEY("ctime") && pax_time(v, vlen, &h->time[2]))
            h->pax |= FZ7_TAR_PAX_CTIME;
        else if (KEY("uid") || KEY("gid")) {
            uint64_t id;
            if (pax_number(v, vlen, &id))
                h->pax_ids |= key[0] == 'u' ? 1 : 2, *(key[0] == 'u' ? &h->uid : &h->gid) = id;
        } else if (KEY("uname") || KEY("gname")) {
            char **name = key[0] == 'u' ? &h->user : &h->group;
            free(*name);
            if (!(*name = strndup(v, vlen)))
                return FZ7_E_MEM;
        }
        else {
            h->pax |= FZ7_TAR_PAX_UNSUPPORTED;
            if (!text_add(comment, clen, key, (size_t)(end - key), true))
                return FZ7_E_MEM;
        }
#undef KEY
        at += len;
    }
    return FZ7_OK;
}

static void hdr_free(fz7_tar_hdr *h)
{
    free(h->comment);
    free(h->user);
    free(h->group);
    free(h->pax_path);
    free(h->pax_linkpath);
}

/* A name field (user, group) of n bytes: NULL when empty. */
static fz7_status field_name(const uint8_t *f, size_t n, char **out)
{
    size_t k = 0;
    while (k < n && f[k])
        k++;
    if (*out || !k)
        return FZ7_OK;   /* a pax record gave it */
    *out = strndup((const char *)f, k);
    return *out ? FZ7_OK : FZ7_E_MEM;
}

void fz7_tar_headers_free(fz7_tar_headers *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->h && i < t->count; i++)
        hdr_free(&t->h[i]);
    free(t->h);
    free(t->packed);
    free(t->global);
    for (size_t i = 0; i < t->raw_count; i++)
        free(t->raw[i].path), free(t->raw[i].linkpath);
    free(t->raw);
    free(t->span);
    memset(t, 0, sizeof *t);
}

/* Reads the meta record set of a header (an 'x', 'g', 'L' or 'K' one) of
 * size bytes at off: malloc'd, NUL-terminated. */
static fz7_status read_meta(const fz7_volumes *v, uint64_t off, uint64_t size, char **out)
{
    *out = NULL;
    if (size > META_MAX)
        return FZ7_E_FORMAT;
    char *b = malloc((size_t)size + 1);
    if (!b)
        return FZ7_E_MEM;
    fz7_status st = fz7_volumes_pread(v, b, (size_t)size, off);
    if (st != FZ7_OK) {
        free(b);
        return st;
    }
    b[size] = 0;
    *out = b;
    return FZ7_OK;
}

/* Past the whole 512-byte blocks of zeros from at (the end blocks and the
 * padding to the record size). */
static uint64_t zero_blocks_end(const fz7_volumes *v, uint64_t at, uint64_t size)
{
    uint8_t buf[64 * BLOCK];
    while (size - at >= BLOCK) {
        uint64_t want = (size - at) / BLOCK * BLOCK;
        size_t n = want < sizeof buf ? (size_t)want : sizeof buf;
        if (fz7_volumes_pread(v, buf, n, at) != FZ7_OK)
            return at;
        for (size_t b = 0; b < n; b += BLOCK) {
            for (size_t i = 0; i < BLOCK; i++)
                if (buf[b + i])
                    return at + b;
        }
        at += n;
    }
    return at;
}

fz7_status fz7_tar_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit,
                                fz7_detail keep, fz7_tar_headers *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0, raw_cap = 0, span_cap = 0;
    uint8_t hb[BLOCK];
    fz7_tar_hdr cur = {0};
    char *comment = NULL;   /* the pending pax header's Comment text */
    size_t clen = 0;
    size_t glen = 0;
    uint64_t kept = 0;      /* bytes of text kept with the headers */
    uint64_t entry_at = UINT64_MAX;   /* the first record of the coming entry */
    fz7_status st = FZ7_OK;
    for (uint64_t at = 0; size - at >= BLOCK;) {
        if ((st = fz7_volumes_pread(v, hb, BLOCK, at)) != FZ7_OK)
            break;
        bool zero = true;
        for (size_t i = 0; i < BLOCK && zero; i++)
            zero = hb[i] == 0;
        if (zero) {
            out->end = zero_blocks_end(v, at, size);
            break;   /* the end blocks */
        }
        uint64_t dsize;
        if (!header_checksum_ok(hb) || !header_number(hb + 124, 12, &dsize)) {
            st = FZ7_E_FORMAT;
            break;
        }
        char type = (char)hb[156];
        bool gnu = memcmp(hb + 257, "ustar  ", 8) == 0;
        bool posix = !gnu && memcmp(hb + 257, "ustar", 6) == 0;
        uint64_t data_at = at + BLOCK;
        if (entry_at == UINT64_MAX)
            entry_at = at;
        if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
            char *meta;
            if ((st = read_meta(v, data_at, dsize, &meta)) != FZ7_OK)
                break;
            if (type == 'L') {
                cur.flags |= FZ7_TAR_LONG_NAME;
            } else if (type == 'K') {
                cur.flags |= FZ7_TAR_LONG_LINK;
            } else if (type == 'x') {
                cur.pax |= FZ7_TAR_PAX_HEADER;
                free(comment);
                comment = NULL;
                clen = 0;
                if (!text_add_latin1(&comment, &clen, hb, 100))
                    st = FZ7_E_MEM;
                else
                    st = pax_records(meta, (size_t)dsize, &cur, &comment, &clen);
            } else {
                /* 7-Zip's archive Comment: each global header's name and
                 * the records it does not take, in braces */
                fz7_tar_hdr g = {0};
                size_t glen0 = glen;
                if (!text_add(&out->global, &glen, "{", 1, true) ||
                    !text_add_latin1(&out->global, &glen, hb, 100))
                    st = FZ7_E_MEM;
                else
                    st = pax_records(meta, (size_t)dsize, &g, &out->global, &glen);
                hdr_free(&g);
                if (st == FZ7_OK && !text_add(&out->global, &glen, "}", 1, false))
                    st = FZ7_E_MEM;
                out->global_bytes += BLOCK + ((dsize + BLOCK - 1) & ~(uint64_t)(BLOCK - 1));
                kept += glen - glen0;
                if (st == FZ7_OK && kept > mem_limit)
                    st = FZ7_E_MEMLIMIT;
            }
            free(meta);
            if (st != FZ7_OK)
                break;
            at = data_at + ((dsize + BLOCK - 1) & ~(uint64_t)(BLOCK - 1));
            if (at > size)
                break;
            continue;
        }
        if (cur.pax & FZ7_TAR_PAX_SIZE) {
            /* the size record stands for the data's size */
            dsize = cur.pax_size;
        }
        if (keep == FZ7_DETAIL_PROPS)
            st = fz7_grow((void **)&out->h, out->count, &cap, sizeof *out->h, 64, mem_limit);
        else if (keep == FZ7_DETAIL_PACKED)
            st = fz7_grow((void **)&out->packed, out->count, &cap, sizeof *out->packed, 64, mem_limit);
        if (st != FZ7_OK)
            break;
        cur.type = type;
        if (!gnu && !posix)
            memcpy(cur.magic, hb + 257, 8);
        cur.flags |= gnu ? FZ7_TAR_GNU : posix ? FZ7_TAR_POSIX : 0;
        if (posix && hb[345])
            cur.flags |= FZ7_TAR_PREFIX;
        if (!hb[329])
            cur.flags |= FZ7_TAR_DEV_EMPTY;
        else if (!header_number(hb + 329, 8, &cur.dev_major) || !header_number(hb + 337, 8, &cur.dev_minor))
            cur.flags |= FZ7_TAR_DEV_EMPTY;
        uint64_t id;
        if (!(cur.pax_ids & 1) && header_number(hb + 108, 8, &id))
            cur.uid = id;
        if (!(cur.pax_ids & 2) && header_number(hb + 116, 8, &id))
            cur.gid = id;
        if ((gnu || posix) && ((st = field_name(hb + 265, 32, &cur.user)) != FZ7_OK ||
                               (st = field_name(hb + 297, 32, &cur.group)) != FZ7_OK))
            break;
        cur.packed = dsize > size ? dsize : (dsize + BLOCK - 1) & ~(uint64_t)(BLOCK - 1);
        out->pax_union |= cur.pax;
        out->flags_union |= cur.flags;
        if ((st = fz7_grow((void **)&out->span, out->count, &span_cap, 2 * sizeof *out->span, 64, mem_limit)) != FZ7_OK)
            break;
        out->span[2 * out->count] = entry_at;
        out->span[2 * out->count + 1] = UINT64_MAX;   /* set below, once the sparse map is passed */
        if (cur.pax_path || cur.pax_linkpath) {
            kept += (cur.pax_path ? strlen(cur.pax_path) : 0) + (cur.pax_linkpath ? strlen(cur.pax_linkpath) : 0);
            st = kept > mem_limit ? FZ7_E_MEMLIMIT
                 : fz7_grow((void **)&out->raw, out->raw_count, &raw_cap, sizeof *out->raw, 16, mem_limit);
            if (st != FZ7_OK)
                break;
            out->raw[out->raw_count++] = (fz7_tar_raw_name){out->count, entry_at, cur.pax_path, cur.pax_linkpath};
            cur.pax_path = cur.pax_linkpath = NULL;
        }
        if (keep == FZ7_DETAIL_PROPS) {
            cur.comment = comment;
            /* the kept text is bounded like the headers, not by the input */
            kept += (comment ? clen : 0) + (cur.user ? strlen(cur.user) : 0) +
                    (cur.group ? strlen(cur.group) : 0);
            if (kept + (uint64_t)cap * sizeof(fz7_tar_hdr) > mem_limit) {
                cur.comment = NULL;
                st = FZ7_E_MEMLIMIT;
                break;
            }
            out->h[out->count] = cur;
            comment = NULL;
            memset(&cur, 0, sizeof cur);
        } else {
            if (keep == FZ7_DETAIL_PACKED)
                out->packed[out->count] = cur.packed;
            hdr_free(&cur);
            memset(&cur, 0, sizeof cur);
            free(comment);
            comment = NULL;
        }
        out->count++;
        entry_at = UINT64_MAX;
        clen = 0;
        /* GNU's old sparse header: its map goes on in extension blocks
         * (byte 504 of each says another follows) before the data */
        for (uint8_t more = type == 'S' && gnu ? hb[482] : 0; more; data_at += BLOCK) {
            if (size - data_at < BLOCK || (st = fz7_volumes_pread(v, hb, BLOCK, data_at)) != FZ7_OK)
                break;
            more = hb[504];
        }
        bool cut = st != FZ7_OK || data_at > size || dsize > size - data_at;
        if (st == FZ7_OK && dsize <= UINT64_MAX - BLOCK - data_at)   /* a cut entry: where it would end */
            out->span[2 * (out->count - 1) + 1] = data_at + ((dsize + BLOCK - 1) & ~(uint64_t)(BLOCK - 1));
        if (cut)
            break;   /* truncated: libarchive says so */
        at = out->span[2 * (out->count - 1) + 1];
    }
    free(comment);
    hdr_free(&cur);   /* what records gave no entry: comment is not in it */
    if (st != FZ7_OK)
        fz7_tar_headers_free(out);
    return st;
}

static void bytes_shown(char *out, size_t cap, const uint8_t *b, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && k + 5 <= cap; i++) {
        if (b[i] > 0x20 && b[i] < 0x7f)
            out[k++] = (char)b[i], out[k] = 0;
        else
            k += (size_t)snprintf(out + k, cap - k, "[%02X]", b[i]);
    }
}

/* A tar entry's lines, in 7-Zip's order: its header kinds, link names,
 * owner, device numbers and pax records. */
size_t fz7_tar_props(const fz7_entry *e, const fz7_tar_hdr *h, const char *link, fz7_prop *pr,
                     char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &n, "Packed Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->packed));
    fz7_tar_time m = {e->mtime, 0, 0, e->has_mtime};
    static const char *const names[3] = {"Modified", "Accessed", "Created"};
    static const int order[3] = {0, 2, 1};
    for (int k = 0; k < 3; k++) {
        const fz7_tar_time *t = order[k] == 0 && !(h->pax & FZ7_TAR_PAX_MTIME) ? &m : &h->time[order[k]];
        fz7_prop_time(pr, &n, names[order[k]], t->set, t->sec, t->nsec, t->digits);
    }
    char *mode = buf + used;
    if (cap - used >= 11) {
        fz7_mode_string(e->mode, mode);
        used += 11;
    } else {
        mode = "";
    }
    fz7_prop_text(pr, &n, "Mode", mode);
    fz7_prop_text(pr, &n, "User", h->user);
    fz7_prop_text(pr, &n, "Group", h->group);
    fz7_prop_text(pr, &n, "User ID", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->uid));
    fz7_prop_text(pr, &n, "Group ID", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->gid));
    fz7_prop_text(pr, &n, "Symbolic Link", h->type == '2' ? link : "");
    fz7_prop_text(pr, &n, "Hard Link", h->type == '1' ? link : "");
    bool valid = fz7_utf8_valid(e->path);
    uint32_t max = valid ? fz7_max_code_point(e->path) : 0;
    char uni[32] = "ASCII";
    if (!valid)
        snprintf(uni, sizeof uni, "UTF8-ERROR non-UTF8");
    else if (max > 0x7f)
        snprintf(uni, sizeof uni, "UTF8 MaxUnicode=%u", (unsigned)max);
    uint8_t k = h->pax;
    /* the typeflag, and the magic of a header neither GNU nor POSIX, as
     * 7-Zip shows bytes: a printable one as it is, others as [XX] */
    char type[8], magic[8 * 4 + 2] = "";
    bytes_shown(type, sizeof type, (const uint8_t *)&h->type, 1);
    if (!(h->flags & (FZ7_TAR_GNU | FZ7_TAR_POSIX))) {
        magic[0] = ' ';
        bytes_shown(magic + 1, sizeof magic - 1, h->magic, 8);
    }
    fz7_prop_text(pr, &n, "Characteristics",
              fz7_prop_put(buf, cap, &used, "%s%s%s%s%s %s%s%s%s%s%s%s%s%s%s%s", type, magic,
                      h->flags & FZ7_TAR_GNU ? " GNU" : "", h->flags & FZ7_TAR_POSIX ? " POSIX" : "",
                      h->flags & FZ7_TAR_PREFIX ? " PREFIX" : "", uni,
                      h->flags & FZ7_TAR_LONG_NAME ? " LongName" : "",
                      h->flags & FZ7_TAR_LONG_LINK ? " LongLink" : "",
                      k & FZ7_TAR_PAX_HEADER ? " PAX" : "", k & FZ7_TAR_PAX_MTIME ? " mtime" : "",
                      k & FZ7_TAR_PAX_ATIME ? " atime" : "", k & FZ7_TAR_PAX_CTIME ? " ctime" : "",
                      k & FZ7_TAR_PAX_PATH ? " pax_path" : "",
                      k & FZ7_TAR_PAX_LINKPATH ? " pax_linkpath" : "",
                      k & FZ7_TAR_PAX_SIZE ? " pax_size" : "",
                      k & FZ7_TAR_PAX_UNSUPPORTED ? " PAX_unsupported_line" : ""));
    fz7_prop_text(pr, &n, "Comment", h->comment);
    bool dev = !(h->flags & FZ7_TAR_DEV_EMPTY);
    fz7_prop_text(pr, &n, "Device Major",
              dev ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->dev_major) : "");
    fz7_prop_text(pr, &n, "Device Minor",
              dev ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->dev_minor) : "");
    return n;
}
