/* gzip_read.c - gzip files (RFC 1952) decoded by fz7's own Deflate
 * decoder, from a file or forward from a pipe (-si). The members follow one
 * another as one entry (what gzip -d writes); each member's CRC-32 and
 * ISIZE are checked, and bytes after the last member that start no member
 * fail the entry once its data were delivered (7-Zip's "There are some data
 * after the end of the payload data"). The listing is 7-Zip's: one entry
 * named by the first header's FNAME, else by the file's name without .gz,
 * with the size and CRC of the last trailer. */
#include "format/archive_impl.h"
#include "format/file_io.h"
#include "check/check.h"
#include "codec/codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GZ_OUT_CHUNK ((size_t)256 << 10)
#define BACK_READ_BYTES ((size_t)4 << 10)

/* Header flags (RFC 1952 2.3.1); the other three bits are reserved. */
enum { FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16, FRESERVED = 0xE0 };

/* The file's bytes in order: first those pushed back (a member's Deflate
 * decoder reads past the member's end), then the source: the file's byte
 * space, or a pipe's head bytes and then its descriptor. */
typedef struct {
    fz7_istream base;
    fz7_istream *file;          /* the volumes, or NULL for a pipe */
    int fd;                     /* a pipe */
    const uint8_t *head;        /* a pipe's bytes read at open */
    size_t head_len, head_pos;
    uint8_t back[FZ7_DEFLATE_TAIL_MAX];
    size_t back_len, back_pos;
    uint64_t consumed;          /* bytes taken and not pushed back */
} gz_src;

typedef struct {
    uint8_t os;
    bool trailer;               /* the entry's size and CRC are the last
                                   trailer's (a file, not a pipe) */
    bool extracted;             /* a pipe is read once */
    uint8_t *head;              /* a pipe's first bytes */
    size_t head_len;
    int fd;                     /* a pipe, else -1 */
} gz_priv;

static fz7_status src_read(fz7_istream *is, uint8_t *buf, size_t cap, size_t *got)
{
    gz_src *s = (gz_src *)is;
    *got = 0;
    if (s->back_pos < s->back_len) {
        /* Small pieces: what a member's decoder reads past its end comes
         * back, and with many short members each copy would be 64 KiB. */
        size_t n = s->back_len - s->back_pos;
        n = n < cap ? n : cap;
        n = n < BACK_READ_BYTES ? n : BACK_READ_BYTES;
        memcpy(buf, s->back + s->back_pos, n);
        s->back_pos += n;
        *got = n;
    } else if (s->head_pos < s->head_len) {
        size_t n = s->head_len - s->head_pos < cap ? s->head_len - s->head_pos : cap;
        memcpy(buf, s->head + s->head_pos, n);
        s->head_pos += n;
        *got = n;
    } else if (s->file) {
        fz7_status st = s->file->read(s->file, buf, cap, got);
        if (st != FZ7_OK)
            return st;
    } else {
        ssize_t n;
        while ((n = read(s->fd, buf, cap)) < 0 && errno == EINTR)
            ;
        if (n < 0)
            return FZ7_E_IO;
        *got = (size_t)n;
    }
    s->consumed += *got;
    return FZ7_OK;
}

/* Puts n bytes back before those not read yet. */
static fz7_status push_back(gz_src *s, const uint8_t *p, size_t n)
{
    size_t rest = s->back_len - s->back_pos;
    if (n > sizeof s->back - rest)
        return FZ7_E_DATA;   /* cannot happen: the decoder read at most these */
    memmove(s->back + n, s->back + s->back_pos, rest);
    memcpy(s->back, p, n);
    s->back_len = n + rest;
    s->back_pos = 0;
    s->consumed -= n;
    return FZ7_OK;
}

/* Reads up to n bytes, fewer only at the end. */
static fz7_status src_take(gz_src *s, uint8_t *buf, size_t n, size_t *got)
{
    return fz7_istream_read_upto(&s->base, buf, n, got);
}

/* Skips a zero-terminated field (FNAME, FCOMMENT). */
static fz7_status skip_string(gz_src *s)
{
    for (;;) {
        uint8_t c;
        size_t got;
        fz7_status st = src_take(s, &c, 1, &got);
        if (st != FZ7_OK)
            return st;
        if (got == 0)
            return FZ7_E_TRUNCATED;
        if (c == 0)
            return FZ7_OK;
    }
}

/* Reads a member's header. *none: the file ended before it (after the
 * first member, its normal end). FZ7_E_TAIL: the bytes there start no
 * member; FZ7_E_TRUNCATED: a header cut short. */
static fz7_status member_header(gz_src *s, bool *none, char *detail, size_t dlen)
{
    uint8_t h[10];
    size_t got;
    uint64_t at = s->consumed;
    *none = false;
    fz7_status st = src_take(s, h, sizeof h, &got);
    if (st != FZ7_OK)
        return st;
    if (got == 0) {
        *none = true;
        return FZ7_OK;
    }
    static const uint8_t magic[3] = {0x1f, 0x8b, 8};
    size_t m = got < 3 ? got : 3;
    if (memcmp(h, magic, m) != 0 || (got >= 4 && (h[3] & FRESERVED))) {
        snprintf(detail, dlen, "bytes at offset %" PRIu64 " start no gzip member", at);
        return FZ7_E_TAIL;
    }
    if (got < sizeof h) {
        snprintf(detail, dlen, "the gzip member at offset %" PRIu64 " is cut in its header", at);
        return FZ7_E_TRUNCATED;
    }
    unsigned flg = h[3];
    if (flg & FEXTRA) {
        uint8_t x[2];
        if ((st = src_take(s, x, 2, &got)) != FZ7_OK)
            return st;
        size_t skip = got == 2 ? fz7_get16le(x) : SIZE_MAX;
        while (skip != SIZE_MAX && skip > 0) {
            uint8_t junk[256];
            size_t k = skip < sizeof junk ? skip : sizeof junk;
            if ((st = src_take(s, junk, k, &got)) != FZ7_OK)
                return st;
            skip = got == k ? skip - k : SIZE_MAX;
        }
        if (skip == SIZE_MAX)
            st = FZ7_E_TRUNCATED;
    }
    if (st == FZ7_OK && (flg & FNAME))
        st = skip_string(s);
    if (st == FZ7_OK && (flg & FCOMMENT))
        st = skip_string(s);
    if (st == FZ7_OK && (flg & FHCRC)) {
        uint8_t c[2];
        if ((st = src_take(s, c, 2, &got)) == FZ7_OK && got < 2)
            st = FZ7_E_TRUNCATED;
    }
    if (st == FZ7_E_TRUNCATED)
        snprintf(detail, dlen, "the gzip member at offset %" PRIu64 " is cut in its header", at);
    return st;
}

/* Decodes one member's Deflate stream into cb with dec (restarted here)
 * and checks its trailer. */
static fz7_status member_data(gz_src *s, fz7_istream *dec, const fz7_extract_cb *cb, uint8_t *buf,
                              uint64_t *produced, bool *cb_failed, char *detail, size_t dlen)
{
    uint64_t at = s->consumed, n = 0;
    uint32_t crc = 0;
    fz7_deflate_istream_restart(dec);
    fz7_status st = fz7_pump_decoded(dec, cb, buf, GZ_OUT_CHUNK, &n, &crc, cb_failed);
    *produced += n;
    if (st == FZ7_OK) {
        size_t k = fz7_deflate_istream_tail(dec, buf, FZ7_DEFLATE_TAIL_MAX);
        st = push_back(s, buf, k);
    }
    if (*cb_failed)
        return st;
    if (st != FZ7_OK) {
        if (st == FZ7_E_DATA || st == FZ7_E_TRUNCATED)
            snprintf(detail, dlen, "%s in the Deflate data of the gzip member at offset %" PRIu64
                     " after %" PRIu64 " bytes", st == FZ7_E_DATA ? "Data error" : "truncated input",
                     at, n);
        return st;
    }
    uint8_t t[8];
    size_t got;
    if ((st = src_take(s, t, sizeof t, &got)) != FZ7_OK)
        return st;
    if (got < sizeof t) {
        snprintf(detail, dlen, "the gzip member at offset %" PRIu64 " ends before its trailer", at);
        return FZ7_E_TRUNCATED;
    }
    if (fz7_get32le(t) != crc || fz7_get32le(t + 4) != (uint32_t)n) {
        snprintf(detail, dlen, "the gzip member at offset %" PRIu64 " decodes to %" PRIu64
                 " bytes of CRC32 %08" PRIX32 "; its trailer says %" PRIu32 " bytes, %08" PRIX32,
                 at, n, crc, fz7_get32le(t + 4), fz7_get32le(t));
        return FZ7_E_CRC;
    }
    return FZ7_OK;
}

static fz7_status gz_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err,
                             size_t errlen)
{
    gz_priv *p = a->priv;
    if (select && !select[0])
        return FZ7_OK;
    if (p->extracted && p->fd >= 0) {
        snprintf(err, errlen, "a piped archive can be read once");
        return FZ7_E_UNSUPPORTED;
    }
    p->extracted = true;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    gz_src *s = calloc(1, sizeof *s);
    uint8_t *buf = malloc(GZ_OUT_CHUNK > FZ7_DEFLATE_TAIL_MAX ? GZ_OUT_CHUNK : FZ7_DEFLATE_TAIL_MAX);
    fz7_istream *dec = NULL;
    if (s && p->fd < 0)
        s->file = fz7_volumes_istream_new(a->vol, 0, a->file_size);
    if (s && fz7_deflate_istream_new(&s->base, false, &dec) != FZ7_OK)
        dec = NULL;
    if (!s || !buf || !dec || (p->fd < 0 && !s->file)) {
        if (s)
            fz7_istream_free(s->file);
        fz7_istream_free(dec);
        free(s);
        free(buf);
        return FZ7_E_MEM;
    }
    s->base.read = src_read;
    s->fd = p->fd;
    s->head = p->head;
    s->head_len = p->head_len;
    bool cb_failed = false;
    char detail[256] = "";
    uint64_t produced = 0;
    for (bool first = true;; first = false) {
        bool end;
        st = member_header(s, &end, detail, sizeof detail);
        if (st == FZ7_OK && end && first)
            st = FZ7_E_TRUNCATED;   /* a pipe that closed after the magic */
        if (st != FZ7_OK || end)
            break;
        st = member_data(s, dec, cb, buf, &produced, &cb_failed, detail, sizeof detail);
        if (st != FZ7_OK)
            break;
    }
    fz7_istream_free(dec);
    fz7_istream_free(s->file);
    if (p->fd >= 0) {   /* a pipe: what it held is known now */
        a->info.phy_size = s->consumed;
        a->entries[0].size = produced;
        a->entries[0].has_size = true;
    }
    free(s);
    free(buf);
    return cb_failed ? st : fz7_end_one(cb, st, detail, err, errlen);
}

/* 7-Zip's -slt lines of the entry: a pipe's size and CRC are blank (its
 * trailer is not read yet). */
static size_t gz_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const gz_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", p->trailer ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size) : "");
    fz7_prop_text(pr, &n, "Packed Size", p->trailer ? fz7_prop_put(buf, cap, &used, "%llu",
                                                                    (unsigned long long)e->packed_size) : "");
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    const char *os = fz7_host_os_name(p->os);
    fz7_prop_text(pr, &n, "Host OS", os ? os : fz7_prop_put(buf, cap, &used, "%u", p->os));
    fz7_prop_text(pr, &n, "CRC", p->trailer ? fz7_prop_put(buf, cap, &used, "%08X", (unsigned)e->crc) : "");
    return n;
}

static void gz_close(fz7_archive *a)
{
    gz_priv *p = a->priv;
    if (p)
        free(p->head);
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops gz_ops = {gz_extract, gz_close, gz_props};

/* True when h (n bytes) starts a gzip member: the magic, Deflate (CM 8)
 * and no reserved flag. */
static bool gzip_magic(const uint8_t *h, size_t n)
{
    return n >= 10 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8 && !(h[3] & FRESERVED);
}

/* The entry and archive fields from the first header (g); the entry is
 * named by its FNAME, else a copy of name. */
static fz7_status take_header(fz7_archive *a, gz_priv *p, fz7_gzip_info *g, const char *name)
{
    fz7_entry *e = calloc(1, sizeof *e);
    if (e)
        e->path = g->name ? g->name : strdup(name);
    if (!e || !e->path) {
        free(g->name);
        g->name = NULL;
        free(e);
        return FZ7_E_MEM;
    }
    e->mode = S_IFREG | 0644;
    e->has_stream = true;
    e->folder = 0;
    e->method = "";
    e->has_mtime = g->mtime != 0;
    e->mtime = g->mtime;
    e->mtime_prec = FZ7_MTIME_SECONDS;
    e->has_crc = e->has_size = e->size_from_trailer = g->has_trailer;
    e->crc = g->crc;
    e->size = g->isize;
    e->packed_size = a->file_size;
    e->packed_known = g->has_trailer;
    a->entries = e;
    a->count = 1;
    a->ops = &gz_ops;
    a->priv = p;
    p->os = g->os;
    p->trailer = g->has_trailer;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "gzip";
    a->info.method = "";
    a->info.headers_size = g->header_size;
    a->info.sizes_unknown = true;   /* 7-Zip lists no Physical Size */
    return FZ7_OK;
}

fz7_status fz7_gzip_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t h[10];
    if (a->file_size < 18)   /* a header and a trailer */
        return FZ7_E_FORMAT;
    fz7_status st = fz7_volumes_pread(a->vol, h, sizeof h, 0);
    if (st != FZ7_OK) {
        snprintf(err, errlen, "Read error");
        return st;
    }
    if (!gzip_magic(h, sizeof h))
        return FZ7_E_FORMAT;
    gz_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    p->fd = -1;
    fz7_gzip_info g;
    if (!fz7_gzip_header(a->vol, a->file_size, &g)) {
        /* names past the first KiB: the entry is named by the file */
        memset(&g, 0, sizeof g);
        g.os = h[9];
        g.mtime = fz7_get32le(h + 4);
    }
    char *name = fz7_strip_compressed_suffix(a->path);
    st = name ? take_header(a, p, &g, name) : FZ7_E_MEM;
    free(name);
    if (st != FZ7_OK) {
        free(g.name);
        free(p);
    }
    return st;
}

fz7_status fz7_gzip_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                              const fz7_open_opts *opts, fz7_archive **out, char *err, size_t errlen)
{
    *out = NULL;
    if (errlen)
        err[0] = 0;
    if (!gzip_magic(head, head_len))
        return FZ7_E_FORMAT;
    fz7_archive *a = calloc(1, sizeof *a);
    gz_priv *p = calloc(1, sizeof *p);
    uint8_t *copy = malloc(head_len);
    if (!a || !p || !copy) {
        free(a);
        free(p);
        free(copy);
        return FZ7_E_MEM;
    }
    memcpy(copy, head, head_len);
    p->head = copy;
    p->head_len = head_len;
    p->fd = fd;
    if (opts)
        a->opts = *opts;
    if (a->opts.mem_limit == 0)
        a->opts.mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    a->fd = -1;
    fz7_gzip_info g;
    if (!fz7_gzip_header_parse(head, head_len, &g)) {
        memset(&g, 0, sizeof g);
        g.os = head[9];
        g.mtime = fz7_get32le(head + 4);
    }
    fz7_status st = take_header(a, p, &g, name && name[0] ? name : "~");
    if (st != FZ7_OK) {
        a->priv = p;
        gz_close(a);
        free(a);
        return st;
    }
    a->info.piped = true;
    a->info.volumes = 1;
    *out = a;
    return FZ7_OK;
}
