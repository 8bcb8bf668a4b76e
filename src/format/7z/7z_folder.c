/* 7z_folder.c - a 7z folder's coder graph: checking it, naming its methods
 * as 7-Zip lists them, and turning it into a chain of fz7_istream stages
 * from the pack streams up to the folder's main output (7zFormat.txt,
 * Folder; Methods.txt for the IDs). */
#include "format/7z/7z_internal.h"

#include "codec/codec.h"
#include "crypto/aes7z.h"
#include "filter/bcj2.h"
#include "filter/filter.h"
#include "format/file_io.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz7_7z_streams_free(fz7_7z_streams *s)
{
    if (!s)
        return;
    for (uint64_t i = 0; s->folders && i < s->num_folders; i++) {
        fz7_7z_folder *f = &s->folders[i];
        for (uint32_t c = 0; f->coders && c < f->num_coders; c++)
            free(f->coders[c].props);
        free(f->coders);
        free(f->bind_pairs);
        free(f->packed);
        free(f->unpack_sizes);
        free(f->method);
    }
    free(s->folders);
    free(s->pack_offsets);
    free(s->pack_sizes);
    free(s->sub_sizes);
    free(s->sub_crcs);
    free(s->sub_has_crc);
    memset(s, 0, sizeof *s);
}

/* ---- Method names ---- */

static const struct {
    uint64_t id;
    const char *name;
    bool listed_as_hex;   /* 7-Zip has no name for it in listings */
} method_names[] = {
    {0x00, "Copy", false},          {0x03, "Delta", false},
    {0x04, "BCJ", false},           {0x05, "PPC", false},
    {0x06, "IA64", false},          {0x07, "ARM", false},
    {0x08, "ARMT", false},          {0x09, "SPARC", false},
    {0x0A, "ARM64", false},         {0x0B, "RISCV", false},
    {0x21, "LZMA2", false},         {0x020302, "Swap2", false},
    {0x020304, "Swap4", false},     {0x030101, "LZMA", false},
    {0x03030103, "BCJ", false},     {0x0303011B, "BCJ2", false},
    {0x03030205, "PPC", false},     {0x03030401, "IA64", false},
    {0x03030501, "ARM", false},     {0x03030701, "ARMT", false},
    {0x03030805, "SPARC", false},   {0x030401, "PPMD", false},
    {0x040108, "Deflate", false},   {0x040109, "Deflate64", false},
    {0x040202, "BZip2", false},     {0x04F71101, "ZSTD", true},
    {0x04F71102, "BROTLI", true},   {0x04F71104, "LZ4", true},
    {0x04F71105, "LZ5", true},      {0x04F71106, "LIZARD", true},
    {0x06F10701, "7zAES", false},
};

static void id_hex(uint64_t id, char *buf, size_t buflen)
{
    /* The ID's bytes, most significant first, as stored. */
    int bytes = 1;
    while (bytes < 8 && (id >> (8 * bytes)) != 0)
        bytes++;
    size_t o = 0;
    for (int i = bytes - 1; i >= 0 && o + 3 <= buflen; i--, o += 2)
        snprintf(buf + o, 3, "%02" PRIX64, (id >> (8 * i)) & 0xFF);
    if (o < buflen)
        buf[o] = 0;
}

const char *fz7_7z_method_name(uint64_t id, char *buf, size_t buflen)
{
    for (size_t i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (method_names[i].id == id) {
            snprintf(buf, buflen, "%s", method_names[i].name);
            return buf;
        }
    id_hex(id, buf, buflen);
    return buf;
}

/* The name 7-Zip's listing uses: unknown and external codecs in hex. */
static void list_name(uint64_t id, char *buf, size_t buflen)
{
    for (size_t i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (method_names[i].id == id && !method_names[i].listed_as_hex) {
            snprintf(buf, buflen, "%s", method_names[i].name);
            return;
        }
    id_hex(id, buf, buflen);
}


/* The LZMA2 dictionary byte as 7-Zip prints it: even values name a power
 * of two, odd ones 3 * 2^n. */
static void lzma2_dict_str(uint8_t p, char *buf, size_t buflen)
{
    if ((p & 1) == 0 || p >= 40)
        snprintf(buf, buflen, "%u", (unsigned)(p >> 1) + 12);
    else
        fz7_dict_name((uint64_t)3 << ((p >> 1) + 11), buf, buflen);
}

/* One coder as 7-Zip describes it per file ("LZMA:12:lc0:lp2"). */
static void coder_str(const fz7_7z_coder *c, char *buf, size_t buflen)
{
    char name[24], sz[24];
    list_name(c->id, name, sizeof name);
    const uint8_t *p = c->props;
    if (c->id == FZ7_7Z_ID_LZMA && c->props_len >= 5) {
        unsigned lc = p[0] % 9, lp = (p[0] / 9) % 5, pb = p[0] / 45;
        fz7_dict_name(fz7_get32le(p + 1), sz, sizeof sz);
        int n = snprintf(buf, buflen, "LZMA:%s", sz);
        if (lc != 3 && n >= 0 && (size_t)n < buflen)
            n += snprintf(buf + n, buflen - (size_t)n, ":lc%u", lc);
        if (lp != 0 && n >= 0 && (size_t)n < buflen)
            n += snprintf(buf + n, buflen - (size_t)n, ":lp%u", lp);
        if (pb != 2 && n >= 0 && (size_t)n < buflen)
            snprintf(buf + n, buflen - (size_t)n, ":pb%u", pb);
    } else if (c->id == FZ7_7Z_ID_LZMA2 && c->props_len == 1) {
        lzma2_dict_str(p[0], sz, sizeof sz);
        snprintf(buf, buflen, "LZMA2:%s", sz);
    } else if (c->id == FZ7_7Z_ID_AES && c->props_len >= 1) {
        snprintf(buf, buflen, "7zAES:%u", p[0] & 0x3Fu);
    } else if (c->id == FZ7_7Z_ID_DELTA && c->props_len == 1) {
        snprintf(buf, buflen, "Delta:%u", p[0] + 1u);
    } else if (c->id == FZ7_7Z_ID_PPMD && c->props_len == 5) {
        fz7_dict_name(fz7_get32le(p + 1), sz, sizeof sz);
        snprintf(buf, buflen, "PPMD:o%u:mem%s", p[0], sz);
    } else {
        snprintf(buf, buflen, "%s", name);
    }
}

char *fz7_7z_folder_method(const fz7_7z_folder *f)
{
    size_t cap = (size_t)f->num_coders * 48 + 1;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = 0;
    s[0] = 0;
    /* 7-Zip lists the last coder first (the one reading the pack stream,
     * for simple chains). */
    for (uint32_t i = f->num_coders; i-- > 0;) {
        char one[48];
        coder_str(&f->coders[i], one, sizeof one);
        n += (size_t)snprintf(s + n, cap - n, "%s%s", n ? " " : "", one);
    }
    return s;
}

void fz7_7z_method_set_add(fz7_7z_method_set *m, const fz7_7z_folder *f)
{
    for (uint32_t i = 0; i < f->num_coders; i++) {
        const fz7_7z_coder *c = &f->coders[i];
        if (c->id == FZ7_7Z_ID_LZMA && c->props_len >= 5 && fz7_get32le(c->props + 1) > m->lzma_dict)
            m->lzma_dict = fz7_get32le(c->props + 1);
        if (c->id == FZ7_7Z_ID_LZMA2 && c->props_len == 1 && (int)c->props[0] > m->lzma2_prop)
            m->lzma2_prop = c->props[0];
        /* Kept sorted by ID, as 7-Zip lists them. */
        size_t at = 0;
        while (at < m->count && m->ids[at] < c->id)
            at++;
        if ((at < m->count && m->ids[at] == c->id) ||
            m->count == sizeof m->ids / sizeof m->ids[0])
            continue;
        memmove(m->ids + at + 1, m->ids + at, (m->count - at) * sizeof m->ids[0]);
        m->ids[at] = c->id;
        m->count++;
    }
}

char *fz7_7z_method_union(const fz7_7z_method_set *m)
{
    size_t cap = m->count * 32 + 1;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = 0;
    s[0] = 0;
    for (size_t i = 0; i < m->count; i++) {
        char one[32], sz[24];
        if (m->ids[i] == FZ7_7Z_ID_LZMA) {
            fz7_dict_name(m->lzma_dict, sz, sizeof sz);
            snprintf(one, sizeof one, "LZMA:%s", sz);
        } else if (m->ids[i] == FZ7_7Z_ID_LZMA2 && m->lzma2_prop >= 0) {
            lzma2_dict_str((uint8_t)m->lzma2_prop, sz, sizeof sz);
            snprintf(one, sizeof one, "LZMA2:%s", sz);
        } else {
            list_name(m->ids[i], one, sizeof one);
        }
        n += (size_t)snprintf(s + n, cap - n, "%s%s", n ? " " : "", one);
    }
    return s;
}

/* ---- Graph checks ---- */


/* Coders open_coder() can decode (given valid properties). */
static bool coder_known(uint64_t id)
{
    fz7_bcj_arch arch;
    return id == FZ7_7Z_ID_COPY || id == FZ7_7Z_ID_LZMA || id == FZ7_7Z_ID_LZMA2 ||
           id == FZ7_7Z_ID_BCJ || id == FZ7_7Z_ID_DELTA || id == FZ7_7Z_ID_AES ||
           id == FZ7_7Z_ID_BCJ2 || id == FZ7_7Z_ID_DEFLATE || id == FZ7_7Z_ID_DEFLATE64 ||
           id == FZ7_7Z_ID_BZIP2 || id == FZ7_7Z_ID_PPMD ||
           (id == 0x04F71101 && fz7_zstd_supported()) ||
           (id == 0x04F71102 && fz7_brotli_supported()) ||
           (id == 0x04F71104 && fz7_lz4_supported()) || fz7_7z_branch_arch(id, &arch);
}

/* In streams the decoder of a coder takes. */
static uint32_t coder_inputs(uint64_t id) { return id == FZ7_7Z_ID_BCJ2 ? 4 : 1; }

fz7_status fz7_7z_folder_check(fz7_7z_folder *f)
{
    uint8_t in_used[FZ7_7Z_MAX_IN_STREAMS] = {0};
    uint8_t out_used[FZ7_7Z_MAX_CODERS] = {0};
    if (f->num_coders == 0 || f->num_coders > FZ7_7Z_MAX_CODERS || f->num_in > FZ7_7Z_MAX_IN_STREAMS)
        return FZ7_E_FORMAT;
    for (uint32_t i = 0; i < f->num_bind_pairs; i++) {
        const fz7_7z_bind_pair *bp = &f->bind_pairs[i];
        if (bp->in_index >= f->num_in || bp->out_index >= f->num_coders ||
            in_used[bp->in_index]++ || out_used[bp->out_index]++)
            return FZ7_E_FORMAT;
    }
    for (uint32_t k = 0; k < f->num_packed; k++)
        if (f->packed[k] >= f->num_in || in_used[f->packed[k]]++)
            return FZ7_E_FORMAT;
    f->main_out = UINT32_MAX;
    for (uint32_t o = 0; o < f->num_coders; o++)
        if (!out_used[o]) {
            if (f->main_out != UINT32_MAX)
                return FZ7_E_FORMAT;
            f->main_out = o;
        }
    if (f->main_out == UINT32_MAX)
        return FZ7_E_FORMAT;

    /* Walk from the main output; each out stream feeds at most one in
     * stream, so the walk cannot loop, and a coder it never reaches sits
     * on a cycle or is dangling. */
    uint32_t stack[FZ7_7Z_MAX_CODERS], depth = 0, seen = 0;
    stack[depth++] = f->main_out;
    f->encrypted = false;
    f->unsupported = false;
    while (depth > 0) {
        uint32_t c = stack[--depth];
        if (++seen > f->num_coders)
            return FZ7_E_FORMAT;
        const fz7_7z_coder *cd = &f->coders[c];
        if (cd->id == FZ7_7Z_ID_AES)
            f->encrypted = true;
        if (!coder_known(cd->id) || cd->num_in != coder_inputs(cd->id))
            f->unsupported = true;
        for (uint32_t j = 0; j < cd->num_in; j++)
            for (uint32_t b = 0; b < f->num_bind_pairs; b++)
                if (f->bind_pairs[b].in_index == cd->first_in + j)
                    stack[depth++] = f->bind_pairs[b].out_index;
    }
    if (seen != f->num_coders)
        return FZ7_E_FORMAT;
    return FZ7_OK;
}

/* ---- The chain of streams ---- */

/* Checks that a coder produces exactly its unpack size: a stream that ends
 * early or has bytes beyond it is corrupt. 7zAES output is the exception:
 * its last block's padding follows the unpack size. */
typedef struct sized_istream {
    fz7_istream base;
    fz7_istream *src;
    uint64_t left;
    bool padded;
} sized_istream;

static fz7_status sized_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    sized_istream *z = (sized_istream *)s;
    *got = 0;
    if (z->left == 0) {
        if (z->padded)
            return FZ7_OK;
        uint8_t probe;
        size_t n = 0;
        fz7_status st = z->src->read(z->src, &probe, 1, &n);
        if (st != FZ7_OK)
            return st;
        return n ? FZ7_E_DATA : FZ7_OK;
    }
    if (cap == 0)
        return FZ7_OK;
    size_t want = cap < z->left ? cap : (size_t)z->left;
    size_t n = 0;
    fz7_status st = z->src->read(z->src, buf, want, &n);
    if (st != FZ7_OK)
        return st;
    if (n == 0)
        return FZ7_E_DATA;
    z->left -= n;
    *got = n;
    return FZ7_OK;
}

static void sized_destroy(fz7_istream *s) { free(s); }

/* A pack stream that counts the bytes its coder has read. */
typedef struct {
    fz7_istream base;
    fz7_istream *src;
    uint64_t read;
} counted_istream;

static fz7_status counted_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    counted_istream *c = (counted_istream *)s;
    fz7_status st = c->src->read(c->src, buf, cap, got);
    c->read += *got;
    return st;
}

static void counted_destroy(fz7_istream *s)
{
    counted_istream *c = (counted_istream *)s;
    fz7_istream_free(c->src);
    free(c);
}

/* A coder that must use its whole pack stream: the range coders (LZMA,
 * LZMA2, PPMd) end exactly where their packed data does, so bytes left
 * over once all of its output is read mean a corrupt folder (7zz: "Data
 * Error"). unread: what the decoder read ahead of its use (NULL: it reads
 * nothing ahead); out: the coder's output, checked against its size. */
typedef struct {
    counted_istream *pack;
    uint64_t size;
    fz7_istream *dec;
    size_t (*unread)(const fz7_istream *dec);
    const struct sized_istream *out;
} exact_end;

/* The whole graph: stages in creation order (sources first), destroyed in
 * reverse so every decoder goes before the streams it reads. */
typedef struct {
    fz7_istream base;
    fz7_istream *top;
    size_t count;
    fz7_istream *stages[3 * FZ7_7Z_MAX_CODERS + FZ7_7Z_MAX_IN_STREAMS];
    size_t n_exact;
    exact_end exact[FZ7_7Z_MAX_CODERS];
} chain_istream;

static fz7_status chain_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    chain_istream *c = (chain_istream *)s;
    fz7_status st = c->top->read(c->top, buf, cap, got);
    if (st != FZ7_OK || *got || !cap)
        return st;
    /* The end of the folder: every range coder used all its packed bytes. */
    for (size_t i = 0; i < c->n_exact; i++) {
        const exact_end *e = &c->exact[i];
        if (e->out->left != 0)
            continue;   /* not read to its end (BCJ2 may stop short): nothing to check */
        /* A coder read by another (BCJ2) has not been asked past its end:
         * LZMA2 reads its end byte then. */
        uint8_t probe;
        size_t n = 0;
        st = e->dec->read(e->dec, &probe, 1, &n);
        if (st != FZ7_OK)
            return st;
        uint64_t unread = e->unread ? e->unread(e->dec) : 0;
        if (n || e->pack->read - unread < e->size)
            return FZ7_E_DATA;
    }
    return FZ7_OK;
}

static void chain_destroy(fz7_istream *s)
{
    chain_istream *c = (chain_istream *)s;
    while (c->count > 0)
        fz7_istream_free(c->stages[--c->count]);
    free(c);
}

typedef struct {
    const fz7_volumes *vol;
    const fz7_7z_streams *s;
    const fz7_7z_folder *f;
    const char *password;
    uint64_t mem_limit;
    chain_istream *chain;
    char *detail;
    size_t detail_len;
} build_ctx;

static fz7_status keep(build_ctx *b, fz7_istream *st)
{
    if (!st)
        return FZ7_E_MEM;
    b->chain->stages[b->chain->count++] = st;
    return FZ7_OK;
}

static fz7_status unsupported(build_ctx *b, uint64_t id)
{
    char name[24];
    snprintf(b->detail, b->detail_len, "Unsupported Method: %s",
             fz7_7z_method_name(id, name, sizeof name));
    return FZ7_E_UNSUPPORTED;
}

bool fz7_7z_branch_arch(uint64_t id, fz7_bcj_arch *arch)
{
    switch (id) {
    case 0x03030205: *arch = FZ7_BCJ_PPC; return true;
    case 0x03030401: *arch = FZ7_BCJ_IA64; return true;
    case 0x03030501: *arch = FZ7_BCJ_ARM; return true;
    case 0x03030701: *arch = FZ7_BCJ_ARMT; return true;
    case 0x03030805: *arch = FZ7_BCJ_SPARC; return true;
    case 0x0A: *arch = FZ7_BCJ_ARM64; return true;
    case 0x0B: *arch = FZ7_BCJ_RISCV; return true;
    default: return false;
    }
}

/* Bytes of memory the coder's properties ask for (the dictionary, no
 * larger than the output as the decoders allocate it; the PPMd model), for
 * the message when that is over the limit; 0 when not known. */
static uint64_t coder_memory(const fz7_7z_coder *c, uint64_t out_size)
{
    uint64_t m = 0;
    if (c->id == FZ7_7Z_ID_LZMA && c->props_len == 5)
        m = fz7_get32le(c->props + 1);
    else if (c->id == FZ7_7Z_ID_LZMA2 && c->props_len == 1)
        m = fz7_lzma2_dict_size(c->props[0]);
    else if (c->id == FZ7_7Z_ID_PPMD && c->props_len == 5)
        return fz7_get32le(c->props + 1);
    return m < out_size ? m : out_size;
}

/* Opens the decoder of one coder over its inputs (in[0..n_in), the coder's
 * in streams in order): one for most, four for BCJ2 (main, call, jump,
 * range-coded stream). */
static fz7_status open_coder(build_ctx *b, const fz7_7z_coder *c, fz7_istream **in,
                             uint32_t n_in, uint64_t out_size, fz7_istream **out)
{
    const uint8_t *p = c->props;
    fz7_bcj_arch arch;
    fz7_status st;
    *out = NULL;
    if (n_in != coder_inputs(c->id))
        return unsupported(b, c->id);
    if (c->id == FZ7_7Z_ID_BCJ2) {
        st = fz7_bcj2_istream_new(in, out_size, out);
    } else if (fz7_7z_branch_arch(c->id, &arch)) {
        if (c->props_len != 0 && c->props_len != 4)
            return unsupported(b, c->id);
        st = fz7_bcj_risc_istream_new(in[0], arch, c->props_len ? fz7_get32le(p) : 0, out);
        if (st == FZ7_E_ARG)
            return unsupported(b, c->id);
    } else {
        switch (c->id) {
        case FZ7_7Z_ID_COPY:
            *out = in[0];
            return FZ7_OK;
        case FZ7_7Z_ID_LZMA:
            if (c->props_len != 5)
                return unsupported(b, c->id);
            st = fz7_lzma_istream_new(in[0], p, out_size, b->mem_limit, out);
            break;
        case FZ7_7Z_ID_LZMA2:
            if (c->props_len != 1 || p[0] > 40)
                return unsupported(b, c->id);
            /* Like LZMA: the window need not exceed the coder's output. */
            st = fz7_lzma2_istream_new_sized(in[0], p[0], out_size, b->mem_limit, out);
            break;
        case FZ7_7Z_ID_BCJ:
            if (c->props_len != 0 && c->props_len != 4)
                return unsupported(b, c->id);
            st = fz7_bcj_x86_istream_new(in[0], c->props_len ? fz7_get32le(p) : 0, out);
            break;
        case FZ7_7Z_ID_DELTA:
            if (c->props_len != 1)
                return unsupported(b, c->id);
            st = fz7_delta_istream_new(in[0], p[0] + 1u, out);
            break;
        case FZ7_7Z_ID_DEFLATE:
        case FZ7_7Z_ID_DEFLATE64:
            st = fz7_deflate_istream_new(in[0], c->id == FZ7_7Z_ID_DEFLATE64, out);
            break;
        case FZ7_7Z_ID_BZIP2:
            st = fz7_bzip2_istream_new(in[0], b->mem_limit, out);
            break;
        case FZ7_7Z_ID_PPMD:
            st = fz7_ppmd7_istream_new(in[0], p, c->props_len, out_size, b->mem_limit, out);
            break;
        case 0x04F71101:   /* ZSTD, 7-Zip-zstd fork */
            st = fz7_zstd_istream_new(in[0], p, c->props_len, out_size, b->mem_limit, out);
            break;
        case 0x04F71102:   /* BROTLI, 7-Zip-zstd fork */
            st = fz7_brotli_istream_new(in[0], p, c->props_len, out_size, b->mem_limit, out);
            break;
        case 0x04F71104:   /* LZ4, 7-Zip-zstd fork */
            st = fz7_lz4_istream_new(in[0], p, c->props_len, out_size, b->mem_limit, out);
            break;
        case FZ7_7Z_ID_AES:
            if (!b->password) {
                snprintf(b->detail, b->detail_len, "Cannot open encrypted data: no password given");
                return FZ7_E_NEED_PASSWORD;
            }
            st = fz7_7zaes_istream_new(in[0], p, c->props_len, b->password, out);
            break;
        default:
            return unsupported(b, c->id);
        }
    }
    if (st == FZ7_E_UNSUPPORTED)
        return unsupported(b, c->id);
    if (st != FZ7_OK) {
        char name[24];
        uint64_t need = st == FZ7_E_MEMLIMIT ? coder_memory(c, out_size) : 0;
        if (need)
            snprintf(b->detail, b->detail_len, "%s: %s (needs %" PRIu64 " bytes, limit %" PRIu64 ")",
                     fz7_7z_method_name(c->id, name, sizeof name), fz7_status_str(st), need, b->mem_limit);
        else
            snprintf(b->detail, b->detail_len, "%s: %s", fz7_7z_method_name(c->id, name, sizeof name),
                     fz7_status_str(st));
        fz7_istream_free(*out);
        *out = NULL;
        return st;
    }
    return keep(b, *out);
}

/* Builds the stream of out stream (= coder) `o`, with its inputs: each in
 * stream is either another coder's output (bind pair) or a pack stream. */
static fz7_status build_out(build_ctx *b, uint32_t o, unsigned depth, fz7_istream **out)
{
    const fz7_7z_folder *f = b->f;
    const fz7_7z_coder *c = &f->coders[o];
    fz7_istream *in[FZ7_7Z_MAX_IN_STREAMS];
    counted_istream *pack[FZ7_7Z_MAX_IN_STREAMS] = {NULL};   /* in[j] when a pack stream */
    uint64_t pack_size[FZ7_7Z_MAX_IN_STREAMS] = {0};
    if (depth > FZ7_7Z_MAX_CODERS)
        return FZ7_E_FORMAT;
    if (!coder_known(c->id))
        return unsupported(b, c->id);
    for (uint32_t j = 0; j < c->num_in; j++) {
        uint32_t in_index = c->first_in + j;
        fz7_status st = FZ7_E_FORMAT;
        in[j] = NULL;
        for (uint32_t i = 0; i < f->num_bind_pairs; i++)
            if (f->bind_pairs[i].in_index == in_index)
                st = build_out(b, f->bind_pairs[i].out_index, depth + 1, &in[j]);
        for (uint32_t k = 0; k < f->num_packed; k++)
            if (f->packed[k] == in_index) {
                uint64_t ps = f->first_pack + k;
                if (ps >= b->s->num_pack)
                    return FZ7_E_FORMAT;
                fz7_istream *vs = fz7_volumes_istream_new(b->vol, b->s->pack_offsets[ps], b->s->pack_sizes[ps]);
                counted_istream *cs = vs ? malloc(sizeof *cs) : NULL;
                if (cs) {
                    *cs = (counted_istream){{counted_read, counted_destroy}, vs, 0};
                    pack[j] = cs;
                    pack_size[j] = b->s->pack_sizes[ps];
                } else {
                    fz7_istream_free(vs);
                }
                in[j] = cs ? &cs->base : NULL;
                st = keep(b, in[j]);
            }
        if (st != FZ7_OK)
            return st;
    }
    fz7_istream *dec;
    fz7_status st = open_coder(b, c, in, c->num_in, f->unpack_sizes[o], &dec);
    if (st != FZ7_OK)
        return st;
    sized_istream *z = malloc(sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    bool range_coder = c->id == FZ7_7Z_ID_LZMA || c->id == FZ7_7Z_ID_LZMA2 || c->id == FZ7_7Z_ID_PPMD;
    if (range_coder && pack[0] && b->chain->n_exact < FZ7_7Z_MAX_CODERS)
        b->chain->exact[b->chain->n_exact++] = (exact_end){
            pack[0], pack_size[0], dec,
            c->id == FZ7_7Z_ID_LZMA ? fz7_lzma_istream_unread
            : c->id == FZ7_7Z_ID_PPMD ? fz7_ppmd7_istream_unread : NULL, z};
    z->base.read = sized_read;
    z->base.destroy = sized_destroy;
    z->src = dec;
    z->left = f->unpack_sizes[o];
    z->padded = c->id == FZ7_7Z_ID_AES;
    *out = &z->base;
    return keep(b, &z->base);
}

fz7_status fz7_7z_folder_istream_new(const fz7_volumes *vol, const fz7_7z_streams *s, uint64_t fi,
                                     const char *password, uint64_t mem_limit,
                                     fz7_istream **out, char *detail, size_t detail_len)
{
    *out = NULL;
    if (detail_len)
        detail[0] = 0;
    if (fi >= s->num_folders)
        return FZ7_E_ARG;
    chain_istream *chain = calloc(1, sizeof *chain);
    if (!chain)
        return FZ7_E_MEM;
    chain->base.read = chain_read;
    chain->base.destroy = chain_destroy;
    build_ctx b = {vol, s, &s->folders[fi], password, mem_limit, chain, detail, detail_len};
    fz7_status st = build_out(&b, s->folders[fi].main_out, 0, &chain->top);
    if (st != FZ7_OK) {
        if (detail_len && !detail[0])
            snprintf(detail, detail_len, "%s", fz7_status_str(st));
        chain_destroy(&chain->base);
        return st;
    }
    *out = &chain->base;
    return FZ7_OK;
}
