/* xar_headers.c - a xar archive's header and table of contents, for what
 * 7-Zip lists of it and libarchive does not give: the TOC itself (7-Zip
 * lists and extracts it as [TOC].xml), its order, each file's packed
 * size, offset, encoding and checksums, and times as stored. libarchive
 * reads the entries and their data. The TOC is zlib-wrapped Deflate
 * (inflated here by fz7's own decoder, as fz7 links no zlib) and XML: the
 * walk below knows only the elements it takes (xar's "toc" schema), keeps
 * raw spans of the text and never recurses, bounded by the TOC's size,
 * mem_limit and XAR_DEPTH_MAX. */
#include "format/archive_impl.h"
#include "codec/codec.h"
#include "cpu/bytes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XAR_HEADER 28
#define XAR_DEPTH_MAX 512   /* nested elements: far more than real folders need */

static uint64_t get64be(const uint8_t *p) { return (uint64_t)fz7_get32be(p) << 32 | fz7_get32be(p + 4); }

/* Inflates the TOC (zlib: a 2-byte header, Deflate, an Adler-32 not
 * checked: the header's checksum covers the packed bytes) into out,
 * exactly want bytes. */
static fz7_status toc_inflate(const fz7_volumes *v, uint64_t at, uint64_t packed, uint8_t *out, size_t want)
{
    uint8_t zh[2];
    if (packed < sizeof zh || fz7_volumes_pread(v, zh, sizeof zh, at) != FZ7_OK || (zh[0] & 0x0F) != 8 ||
        ((unsigned)zh[0] << 8 | zh[1]) % 31 != 0 || (zh[1] & 0x20))
        return FZ7_E_FORMAT;
    fz7_istream *raw = fz7_volumes_istream_new(v, at + 2, packed - 2), *dec = NULL;
    if (!raw)
        return FZ7_E_MEM;
    fz7_status st = fz7_deflate_istream_new(raw, false, &dec);
    size_t got = 0;
    uint8_t extra;
    if (st == FZ7_OK)
        st = fz7_istream_read_upto(dec, out, want, &got);
    if (st == FZ7_OK && got != want)
        st = FZ7_E_FORMAT;
    if (st == FZ7_OK && dec->read(dec, &extra, 1, &got) == FZ7_OK && got != 0)
        st = FZ7_E_FORMAT;   /* more XML than the header says */
    if (dec)
        dec->destroy(dec);
    raw->destroy(raw);
    return st == FZ7_E_MEM ? st : st == FZ7_OK ? FZ7_OK : FZ7_E_FORMAT;
}

/* What an open element is to the walk. */
typedef enum { R_OTHER, R_XAR, R_TOC, R_TOC_SUM, R_FILE, R_DATA, R_LEAF } role;

typedef struct {
    role r;
    size_t file;            /* the innermost <file>'s index, or SIZE_MAX */
    fz7_xar_text *leaf;     /* R_LEAF: where its text goes, or NULL */
    uint64_t *number;       /* R_LEAF: or the number it holds */
    uint32_t text_at;
    const char *name;       /* in the TOC, for the end tag */
    size_t name_len;
} level;

static bool is(const char *s, size_t n, const char *word) { return strlen(word) == n && memcmp(s, word, n) == 0; }

static uint64_t span_number(const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t k = 0; k < n && s[k] >= '0' && s[k] <= '9'; k++)
        v = v > UINT64_MAX / 10 ? UINT64_MAX : v * 10 + (uint64_t)(s[k] - '0');
    return v;
}

/* The value of attribute key in the start tag's text s (n bytes), or a
 * zero span. */
static fz7_xar_text attribute(const char *toc, const char *s, size_t n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k + 2 < n; i++) {
        if ((i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n') && memcmp(s + i, key, k) == 0 &&
            s[i + k] == '=' && (s[i + k + 1] == '"' || s[i + k + 1] == '\'')) {
            const char *v = s + i + k + 2, *end = memchr(v, s[i + k + 1], (size_t)(s + n - v));
            if (end)
                return (fz7_xar_text){(uint32_t)(v - toc), (uint32_t)(end - v)};
        }
    }
    return (fz7_xar_text){0, 0};
}

/* Where a child element of a <file> or its <data> goes. */
static void file_field(fz7_xar_file *f, const char *n, size_t len, level *l)
{
    l->r = R_LEAF;
    if (is(n, len, "name")) l->leaf = &f->name;
    else if (is(n, len, "type")) l->leaf = &f->type;
    else if (is(n, len, "link")) l->leaf = &f->link;
    else if (is(n, len, "mode")) l->leaf = &f->mode;
    else if (is(n, len, "uid")) l->leaf = &f->uid;
    else if (is(n, len, "gid")) l->leaf = &f->gid;
    else if (is(n, len, "user")) l->leaf = &f->user;
    else if (is(n, len, "group")) l->leaf = &f->group;
    else if (is(n, len, "inode")) l->leaf = &f->inode;
    else if (is(n, len, "mtime")) l->leaf = &f->time[0];
    else if (is(n, len, "ctime")) l->leaf = &f->time[1];
    else if (is(n, len, "atime")) l->leaf = &f->time[2];
    else if (is(n, len, "data")) { l->r = R_DATA; f->has_data = true; }
    else l->r = R_OTHER;
}

static void data_field(fz7_xar_file *f, const char *n, size_t len, level *l, const char *toc, const char *tag,
                       size_t tag_len)
{
    l->r = R_LEAF;
    if (is(n, len, "length")) l->number = &f->length;
    else if (is(n, len, "offset")) l->number = &f->offset;
    else if (is(n, len, "size")) l->number = &f->size;
    else if (is(n, len, "encoding")) f->encoding = attribute(toc, tag, tag_len, "style");
    else if (is(n, len, "archived-checksum")) f->archived_style = attribute(toc, tag, tag_len, "style");
    else if (is(n, len, "extracted-checksum")) {
        f->extracted_style = attribute(toc, tag, tag_len, "style");
        l->leaf = &f->extracted_sum;
    } else l->r = R_OTHER;
}

/* Walks the XML of x (its toc and toc_size filled in). */
static fz7_status toc_walk(fz7_xar_headers *x, uint64_t mem_limit)
{
    const char *t = (const char *)x->toc, *end = t + x->toc_size;
    level *stack = malloc(XAR_DEPTH_MAX * sizeof *stack);
    size_t depth = 0, cap = 0;
    uint64_t sum_at = 0, sum_size = 0;
    fz7_status st = stack ? FZ7_OK : FZ7_E_MEM;
    for (const char *p = t; st == FZ7_OK && p < end;) {
        if (*p != '<') {   /* text: a leaf takes its span at its end tag */
            const char *lt = memchr(p, '<', (size_t)(end - p));
            p = lt ? lt : end;
            continue;
        }
        const char *gt = memchr(p, '>', (size_t)(end - p));
        if (!gt) {
            st = FZ7_E_FORMAT;
            break;
        }
        if (p[1] == '?' || p[1] == '!') {   /* declaration, comment: nothing of ours */
            if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
                const char *c = p + 4;
                while (c + 3 <= end && memcmp(c, "-->", 3) != 0)
                    c++;
                gt = c + 3 <= end ? c + 2 : NULL;
            }
            if (!gt) {
                st = FZ7_E_FORMAT;
                break;
            }
            p = gt + 1;
            continue;
        }
        if (p[1] == '/') {   /* an end tag: its element's text is before it */
            const char *n = p + 2;
            size_t len = (size_t)(gt - n);
            while (len && (n[len - 1] == ' ' || n[len - 1] == '\n' || n[len - 1] == '\t' || n[len - 1] == '\r'))
                len--;
            if (depth == 0 || len != stack[depth - 1].name_len ||
                memcmp(n, stack[depth - 1].name, len) != 0) {
                st = FZ7_E_FORMAT;
                break;
            }
            level *l = &stack[--depth];
            fz7_xar_text span = {l->text_at, (uint32_t)(p - t) - l->text_at};
            if (l->r == R_LEAF && l->leaf)
                *l->leaf = span;
            if (l->r == R_LEAF && l->number)
                *l->number = span_number(t + span.at, span.len);
            p = gt + 1;
            continue;
        }
        const char *n = p + 1, *tag = n;
        size_t len = 0;
        while (n + len < gt && n[len] != ' ' && n[len] != '\t' && n[len] != '\n' && n[len] != '\r' && n[len] != '/')
            len++;
        size_t tag_len = (size_t)(gt - tag);
        bool empty = gt[-1] == '/';
        if (depth == XAR_DEPTH_MAX) {
            st = FZ7_E_FORMAT;
            break;
        }
        const level *up = depth ? &stack[depth - 1] : NULL;
        level *l = &stack[depth];
        *l = (level){.r = R_OTHER, .file = up ? up->file : SIZE_MAX, .text_at = (uint32_t)(gt + 1 - t),
                     .name = n, .name_len = len};
        role pr = up ? up->r : R_OTHER;
        if (!up && is(n, len, "xar")) {
            l->r = R_XAR;
        } else if (pr == R_XAR && is(n, len, "toc")) {
            l->r = R_TOC;
        } else if (pr == R_TOC && is(n, len, "creation-time")) {
            l->r = R_LEAF;
            l->leaf = &x->created;
        } else if (pr == R_TOC && is(n, len, "checksum")) {
            l->r = R_TOC_SUM;
        } else if (pr == R_TOC_SUM && (is(n, len, "offset") || is(n, len, "size"))) {
            l->r = R_LEAF;
            l->number = is(n, len, "offset") ? &sum_at : &sum_size;
        } else if ((pr == R_TOC || pr == R_FILE) && is(n, len, "file")) {
            if ((st = fz7_grow((void **)&x->files, x->count, &cap, sizeof *x->files, 64, mem_limit)) != FZ7_OK)
                break;
            fz7_xar_file *f = &x->files[x->count];
            memset(f, 0, sizeof *f);
            f->parent = l->file;
            f->id = attribute(t, tag, tag_len, "id");
            l->r = R_FILE;
            l->file = x->count++;
        } else if (pr == R_FILE) {
            file_field(&x->files[l->file], n, len, l);
        } else if (pr == R_DATA) {
            data_field(&x->files[l->file], n, len, l, t, tag, tag_len);
        }
        if (!empty)
            depth++;
        p = gt + 1;
    }
    if (st == FZ7_OK && depth != 0)
        st = FZ7_E_FORMAT;
    free(stack);
    if (st != FZ7_OK)
        return st;
    x->heap_end = sum_at + sum_size < sum_at ? UINT64_MAX : sum_at + sum_size;
    for (size_t i = 0; i < x->count; i++) {
        const fz7_xar_file *f = &x->files[i];
        uint64_t e = f->offset + f->length;
        if (f->has_data && e >= f->offset && e > x->heap_end)
            x->heap_end = e;
    }
    return FZ7_OK;
}

/* Appends the name of span s with XML's character references decoded
 * (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) to out at *n. */
static void name_decode(const char *s, size_t len, char *out, size_t *n)
{
    for (size_t k = 0; k < len; k++) {
        if (s[k] != '&') {
            out[(*n)++] = s[k];
            continue;
        }
        const char *semi = memchr(s + k, ';', len - k);
        size_t ref = semi ? (size_t)(semi - (s + k)) : 0;
        static const struct { const char *name; char c; } named[] = {
            {"&amp", '&'}, {"&lt", '<'}, {"&gt", '>'}, {"&quot", '"'}, {"&apos", '\''}};
        bool done = false;
        for (size_t j = 0; semi && j < 5 && !done; j++)
            if (is(s + k, ref, named[j].name)) {
                out[(*n)++] = named[j].c;
                done = true;
            }
        if (!done && semi && ref >= 3 && s[k + 1] == '#') {
            bool hex = s[k + 2] == 'x';
            uint32_t c = 0;
            for (size_t j = k + 2 + hex; j < k + ref && c <= 0x10FFFF; j++) {
                int d = s[j] >= '0' && s[j] <= '9' ? s[j] - '0'
                        : hex && (s[j] | 0x20) >= 'a' && (s[j] | 0x20) <= 'f' ? (s[j] | 0x20) - 'a' + 10 : -1;
                c = d < 0 ? 0x110000 : c * (hex ? 16 : 10) + (uint32_t)d;
            }
            if (c > 0 && c <= 0x10FFFF) {   /* as UTF-8; at most ref + 1 bytes */
                if (c < 0x80) {
                    out[(*n)++] = (char)c;
                } else if (c < 0x800) {
                    out[(*n)++] = (char)(0xC0 | c >> 6);
                    out[(*n)++] = (char)(0x80 | (c & 0x3F));
                } else if (c < 0x10000) {
                    out[(*n)++] = (char)(0xE0 | c >> 12);
                    out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
                    out[(*n)++] = (char)(0x80 | (c & 0x3F));
                } else {
                    out[(*n)++] = (char)(0xF0 | c >> 18);
                    out[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3F));
                    out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
                    out[(*n)++] = (char)(0x80 | (c & 0x3F));
                }
                done = true;
            }
        }
        if (done)
            k += ref;
        else
            out[(*n)++] = '&';
    }
}

/* Each file's path: its folders' names and its own, '/'-separated. A
 * file's folder comes before it in the TOC, so one pass builds them. */
static fz7_status paths_build(fz7_xar_headers *x, uint64_t mem_limit)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < x->count; i++) {
        fz7_xar_file *f = &x->files[i];
        const char *up = f->parent < i ? x->files[f->parent].path : NULL;
        size_t ul = up ? strlen(up) : 0;
        bytes += ul + 1 + f->name.len + 1;
        if (bytes > mem_limit)
            return FZ7_E_MEMLIMIT;
        if (!(f->path = malloc(ul + 1 + f->name.len + 1)))
            return FZ7_E_MEM;
        size_t n = 0;
        if (up) {
            memcpy(f->path, up, ul);
            n = ul;
            f->path[n++] = '/';
        }
        name_decode((const char *)x->toc + f->name.at, f->name.len, f->path, &n);
        f->path[n] = 0;
    }
    return FZ7_OK;
}

fz7_status fz7_xar_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit, fz7_xar_headers *out)
{
    memset(out, 0, sizeof *out);
    uint8_t h[XAR_HEADER];
    if (size < sizeof h || fz7_volumes_pread(v, h, sizeof h, 0) != FZ7_OK || memcmp(h, "xar!", 4) != 0)
        return FZ7_E_FORMAT;
    out->header_size = fz7_get16be(h + 4);
    out->toc_packed = get64be(h + 8);
    uint64_t toc_size = get64be(h + 16);
    out->checksum_alg = fz7_get32be(h + 24);
    if (out->header_size < XAR_HEADER || out->toc_packed > size - out->header_size || toc_size == 0 ||
        toc_size > mem_limit || toc_size >= UINT32_MAX)
        return FZ7_E_FORMAT;
    if (!(out->toc = malloc((size_t)toc_size)))
        return FZ7_E_MEM;
    out->toc_size = (size_t)toc_size;
    fz7_status st = toc_inflate(v, out->header_size, out->toc_packed, out->toc, out->toc_size);
    if (st == FZ7_OK)
        st = toc_walk(out, mem_limit);
    if (st == FZ7_OK)
        st = paths_build(out, mem_limit);
    if (st != FZ7_OK) {
        fz7_xar_headers_free(out);
        return st;
    }
    static const char *const algs[] = {"NONE", "SHA1", "MD5"};
    snprintf(out->method, sizeof out->method, "%s", out->checksum_alg < 3 ? algs[out->checksum_alg] : "");
    return FZ7_OK;
}

void fz7_xar_headers_free(fz7_xar_headers *x)
{
    for (size_t i = 0; x->files && i < x->count; i++)
        free(x->files[i].path);
    free(x->files);
    free(x->toc);
    memset(x, 0, sizeof *x);
}

bool fz7_xar_time(const fz7_xar_headers *x, fz7_xar_text s, int64_t *sec)
{
    /* 7-Zip takes exactly "YYYY-MM-DDThh:mm:ssZ" (no fraction) */
    const char *p = (const char *)x->toc + s.at;
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (s.len != sizeof shape - 1)
        return false;
    for (size_t k = 0; k < s.len; k++)
        if (shape[k] == 'd' ? p[k] < '0' || p[k] > '9' : p[k] != shape[k])
            return false;
    int64_t y = (int64_t)span_number(p, 4), mo = (int64_t)span_number(p + 5, 2), d = (int64_t)span_number(p + 8, 2);
    int64_t hh = (int64_t)span_number(p + 11, 2), mi = (int64_t)span_number(p + 14, 2),
            ss = (int64_t)span_number(p + 17, 2);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mi > 59 || ss > 60)
        return false;
    /* days since 1970-01-01 of a proleptic Gregorian date */
    int64_t yy = y - (mo <= 2), era = yy / 400, yoe = yy - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    *sec = days * 86400 + hh * 3600 + mi * 60 + ss;
    return true;
}

/* A checksum's style as 7-Zip's Method names it: the known ones whose
 * digest has their length (hex), else the style and "-ERROR"; none
 * given is "NO-CHECKSUM". */
static size_t style_name(const fz7_xar_headers *x, fz7_xar_text style, const fz7_xar_text *sum, char *out,
                         size_t cap)
{
    const char *s = (const char *)x->toc + style.at;
    if (!style.len)
        return (size_t)snprintf(out, cap, "NO-CHECKSUM");
    size_t want = is(s, style.len, "sha1") ? 40 : is(s, style.len, "md5") ? 32 : 0;
    bool good = want && (!sum || sum->len == want);
    int shown = style.len < 24 ? (int)style.len : 24;   /* 7-Zip's names are short */
    int k = snprintf(out, cap, "%.*s%s", shown, s, good ? "" : "-ERROR");
    return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap - 1;
}

bool fz7_xar_supported(const fz7_xar_headers *x, size_t i)
{
    if (i >= x->count || !x->files[i].has_data)
        return true;
    const fz7_xar_file *f = &x->files[i];
    char m[48];
    style_name(x, f->extracted_style, &f->extracted_sum, m, sizeof m);
    if (strstr(m, "-ERROR"))
        return false;
    style_name(x, f->archived_style, NULL, m, sizeof m);
    if (strstr(m, "-ERROR"))
        return false;
    /* the encodings libarchive decodes (xz and lzma too, which 7-Zip does not) */
    static const char *const known[] = {"application/octet-stream", "application/x-gzip", "application/x-bzip2",
                                        "application/x-xz", "application/x-lzma"};
    const char *s = (const char *)x->toc + f->encoding.at;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (is(s, f->encoding.len, known[k]))
            return true;
    return f->encoding.len == 0;
}

size_t fz7_xar_props(const fz7_entry *e, const fz7_xar_headers *x, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    const fz7_xar_file *f = i < x->count ? &x->files[i] : NULL;
    const char *t = (const char *)x->toc;
#define RAW(name, span) fz7_prop_text(pr, &n, name, f ? fz7_prop_put(buf, cap, &used, "%.*s", (int)(span).len, t + (span).at) : "")
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", e->has_size ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size) : "");
    fz7_prop_text(pr, &n, "Packed Size",
                  e->packed_known ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size) : "");
    static const char *const times[] = {"Modified", "Created", "Accessed"};
    for (size_t k = 0; k < 3; k++) {
        int64_t s = 0;
        bool set = f && fz7_xar_time(x, f->time[k], &s);
        fz7_prop_time(pr, &n, times[k], set, s, 0, 7);
    }
    char mode[11] = "", digits[24];
    if (f && f->mode.len) {
        snprintf(digits, sizeof digits, "%.*s", f->mode.len < 16 ? (int)f->mode.len : 16, t + f->mode.at);
        fz7_mode_string((e->mode & S_IFMT) | ((uint32_t)strtoul(digits, NULL, 8) & 07777), mode);
    }
    fz7_prop_text(pr, &n, "Mode", fz7_prop_put(buf, cap, &used, "%s", mode));
    RAW("Type", f->type);
    RAW("User", f->user);
    RAW("Group", f->group);
    RAW("User ID", f->uid);
    RAW("Group ID", f->gid);
    /* 7-Zip lists no device number there: 0 */
    fz7_prop_text(pr, &n, "iNode", f && f->inode.len ? fz7_prop_put(buf, cap, &used, "0-%.*s", (int)f->inode.len, t + f->inode.at) : "");
    RAW("Symbolic Link", f->link);
    char m[96] = "";
    if (f && f->has_data) {
        size_t k = 0;
        const char *enc = t + f->encoding.at;
        size_t el = f->encoding.len;
        if (el > 12 && memcmp(enc, "application/", 12) == 0)
            enc += 12, el -= 12;
        if (el > 2 && memcmp(enc, "x-", 2) == 0)
            enc += 2, el -= 2;
        if (is(enc, el, "gzip"))
            enc = "zlib", el = 4;
        if (el > 32)
            el = 32;
        if (el)
            k += (size_t)snprintf(m + k, sizeof m - k, "%.*s ", (int)el, enc);
        k += style_name(x, f->extracted_style, &f->extracted_sum, m + k, 40);
        m[k++] = ' ';
        style_name(x, f->archived_style, NULL, m + k, sizeof m - k);
    }
    fz7_prop_text(pr, &n, "Method", fz7_prop_put(buf, cap, &used, "%s", m));
    RAW("ID", f->id);
    fz7_prop_text(pr, &n, "Offset", f && f->has_data ? fz7_prop_put(buf, cap, &used, "%llu",
                  (unsigned long long)(x->header_size + x->toc_packed + f->offset)) : "");
    RAW("Checksum", f->extracted_sum);
#undef RAW
    return n;
}
