/* 7z_read.c - opens a 7z archive: the signature header, the (possibly
 * encoded) header, its streams info and files info, turned into fz7_entry
 * items (7zFormat.txt). Every count and size in the header is checked
 * against the bytes that could hold it before anything is allocated. */
#include "format/7z/7z_internal.h"

#include "check/check.h"
#include "format/file_io.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Property IDs (7zFormat.txt, "Property IDs"). */
enum {
    K_END = 0x00, K_HEADER, K_ARCHIVE_PROPERTIES, K_ADDITIONAL_STREAMS_INFO,
    K_MAIN_STREAMS_INFO, K_FILES_INFO, K_PACK_INFO, K_UNPACK_INFO, K_SUBSTREAMS_INFO,
    K_SIZE, K_CRC, K_FOLDER, K_CODERS_UNPACK_SIZE, K_NUM_UNPACK_STREAM, K_EMPTY_STREAM,
    K_EMPTY_FILE, K_ANTI, K_NAME, K_CTIME, K_ATIME, K_MTIME, K_WIN_ATTRIBUTES, K_COMMENT,
    K_ENCODED_HEADER, K_START_POS, K_DUMMY
};

static const uint8_t signature[6] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C};
#define SIGNATURE_HEADER_BYTES 32
#define MAX_ENCODED_HEADER_LEVELS 4

/* A cursor over header bytes; failures leave a reason in err. */
typedef struct {
    const uint8_t *p;
    size_t left;
    char *err;
    size_t errlen;
    uint64_t mem_limit;
    uint64_t start;       /* where the archive begins (behind an SFX stub) */
    uint8_t *buf;         /* the header's own buffer, whose start file names
                             may be written over (parse_names), or NULL */
} cursor;

/* Keeps the first reason only: the innermost failure says most. */
static void note(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cursor *c, const char *fmt, ...)
{
    if (c->errlen && !c->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
}

/* Records a reason and evaluates to st (a macro, so the compiler sees
 * which status comes back). */
#define fail(c, st, ...) (note((c), __VA_ARGS__), (st))

#define TRY(expr)                        \
    do {                                 \
        fz7_status try_st_ = (expr);     \
        if (try_st_ != FZ7_OK)           \
            return try_st_;              \
    } while (0)

static fz7_status rd_byte(cursor *c, uint8_t *v)
{
    if (c->left < 1)
        return fail(c, FZ7_E_FORMAT, "Headers Error: header ends early");
    *v = *c->p++;
    c->left--;
    return FZ7_OK;
}

static fz7_status rd_bytes(cursor *c, size_t n, const uint8_t **at)
{
    if (c->left < n)
        return fail(c, FZ7_E_FORMAT, "Headers Error: header ends early");
    *at = c->p;
    c->p += n;
    c->left -= n;
    return FZ7_OK;
}

/* UINT64 of 7zFormat.txt: the first byte's leading one bits count the
 * extra little-endian bytes; its remaining bits are the highest ones. */
static fz7_status rd_num(cursor *c, uint64_t *v)
{
    uint8_t first;
    TRY(rd_byte(c, &first));
    unsigned extra = 0;
    while (extra < 8 && (first & (0x80u >> extra)))
        extra++;
    const uint8_t *b;
    TRY(rd_bytes(c, extra, &b));
    uint64_t x = 0;
    for (unsigned i = 0; i < extra; i++)
        x |= (uint64_t)b[i] << (8 * i);
    if (extra < 8)
        x |= (uint64_t)(first & ((0x80u >> extra) - 1)) << (8 * extra);
    *v = x;
    return FZ7_OK;
}

/* A number that counts items each taking at least one header byte. */
static fz7_status rd_count(cursor *c, uint64_t max, const char *what, uint64_t *v)
{
    TRY(rd_num(c, v));
    if (*v > max)
        return fail(c, FZ7_E_FORMAT, "Headers Error: %s count %" PRIu64 " is too large", what, *v);
    return FZ7_OK;
}

static fz7_status rd_u32(cursor *c, uint32_t *v)
{
    const uint8_t *b;
    TRY(rd_bytes(c, 4, &b));
    *v = fz7_get32le(b);
    return FZ7_OK;
}

static fz7_status rd_u64(cursor *c, uint64_t *v)
{
    const uint8_t *b;
    TRY(rd_bytes(c, 8, &b));
    *v = fz7_get64le(b);
    return FZ7_OK;
}

/* A property ID: a UINT64 like every number of the header (7zFormat.txt,
 * "Property IDs"), so an ID may take up to nine bytes. */
static fz7_status rd_id(cursor *c, uint64_t *id) { return rd_num(c, id); }

/* Skips a property's data: UINT64 size, then that many bytes. */
static fz7_status skip_data(cursor *c)
{
    uint64_t n;
    const uint8_t *b;
    TRY(rd_num(c, &n));
    if (n > c->left)
        return fail(c, FZ7_E_FORMAT, "Headers Error: property larger than the header");
    return rd_bytes(c, (size_t)n, &b);
}

/* n bits, most significant first in each byte, into out[0..n) as 0/1. */
static fz7_status rd_bits(cursor *c, uint64_t n, uint8_t *out)
{
    const uint8_t *b;
    if (n / 8 >= c->left + 1)
        return fail(c, FZ7_E_FORMAT, "Headers Error: bit vector ends early");
    TRY(rd_bytes(c, (size_t)((n + 7) / 8), &b));
    for (uint64_t i = 0; i < n; i++)
        out[i] = (b[i / 8] >> (7 - i % 8)) & 1;
    return FZ7_OK;
}

/* The AllAreDefined byte and, when 0, a bit vector. */
static fz7_status rd_defined(cursor *c, uint64_t n, uint8_t *out)
{
    uint8_t all;
    TRY(rd_byte(c, &all));
    if (all) {
        memset(out, 1, (size_t)n);
        return FZ7_OK;
    }
    return rd_bits(c, n, out);
}

static void *alloc_array(cursor *c, uint64_t n, size_t size, fz7_status *st)
{
    if (n > c->mem_limit / (size ? size : 1) || n > SIZE_MAX / size) {
        *st = fail(c, FZ7_E_MEMLIMIT, "Headers need more memory than the limit allows");
        return NULL;
    }
    void *p = calloc(n ? (size_t)n : 1, size);
    *st = p ? FZ7_OK : FZ7_E_MEM;
    return p;
}

/* Digests (7zFormat.txt): defined flags, then a CRC for each defined one. */
static fz7_status rd_digests(cursor *c, uint64_t n, uint8_t *defined, uint32_t *crcs)
{
    TRY(rd_defined(c, n, defined));
    for (uint64_t i = 0; i < n; i++)
        if (defined[i])
            TRY(rd_u32(c, &crcs[i]));
    return FZ7_OK;
}

/* ---- StreamsInfo ---- */

static fz7_status parse_pack_info(cursor *c, fz7_7z_streams *s)
{
    uint64_t pack_pos;
    fz7_status st;
    TRY(rd_num(c, &pack_pos));
    TRY(rd_count(c, c->left, "pack stream", &s->num_pack));
    if (pack_pos > UINT64_MAX - SIGNATURE_HEADER_BYTES - c->start)
        return fail(c, FZ7_E_FORMAT, "Headers Error: pack position out of range");
    s->pack_sizes = alloc_array(c, s->num_pack, sizeof *s->pack_sizes, &st);
    if (!s->pack_sizes)
        return st;
    s->pack_offsets = alloc_array(c, s->num_pack, sizeof *s->pack_offsets, &st);
    if (!s->pack_offsets)
        return st;
    bool have_sizes = false;
    for (;;) {
        uint64_t id;
        TRY(rd_id(c, &id));
        if (id == K_END)
            break;
        if (id == K_SIZE) {
            uint64_t off = c->start + SIGNATURE_HEADER_BYTES + pack_pos;
            for (uint64_t i = 0; i < s->num_pack; i++) {
                TRY(rd_num(c, &s->pack_sizes[i]));
                s->pack_offsets[i] = off;
                if (s->pack_sizes[i] > UINT64_MAX - off)
                    return fail(c, FZ7_E_FORMAT, "Headers Error: pack sizes out of range");
                off += s->pack_sizes[i];
            }
            have_sizes = true;
        } else if (id == K_CRC) {
            /* Pack stream CRCs: 7-Zip does not write them; the unpacked
             * data's CRCs are what extraction checks. */
            uint8_t *def = alloc_array(c, s->num_pack, 1, &st);
            uint32_t *crcs = def ? alloc_array(c, s->num_pack, 4, &st) : NULL;
            if (crcs)
                st = rd_digests(c, s->num_pack, def, crcs);
            free(def);
            free(crcs);
            TRY(st);
        } else {
            TRY(skip_data(c));
        }
    }
    if (!have_sizes && s->num_pack > 0)
        return fail(c, FZ7_E_FORMAT, "Headers Error: pack sizes missing");
    return FZ7_OK;
}

static fz7_status parse_folder(cursor *c, fz7_7z_folder *f)
{
    uint64_t n;
    fz7_status st;
    TRY(rd_count(c, c->left, "coder", &n));
    if (n == 0 || n > FZ7_7Z_MAX_CODERS)
        return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: folder with %" PRIu64 " coders", n);
    f->num_coders = (uint32_t)n;
    f->coders = alloc_array(c, n, sizeof *f->coders, &st);
    if (!f->coders)
        return st;
    uint32_t total_in = 0;
    for (uint32_t i = 0; i < f->num_coders; i++) {
        fz7_7z_coder *cd = &f->coders[i];
        uint8_t flags;
        const uint8_t *idb;
        TRY(rd_byte(c, &flags));
        unsigned id_size = flags & 0x0F;
        if (id_size > 8 || (flags & 0x80))
            return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: coder flags %02x", flags);
        TRY(rd_bytes(c, id_size, &idb));
        for (unsigned k = 0; k < id_size; k++)
            cd->id = (cd->id << 8) | idb[k];
        cd->num_in = cd->num_out = 1;
        if (flags & 0x10) {
            uint64_t ni, no;
            TRY(rd_num(c, &ni));
            TRY(rd_num(c, &no));
            if (ni == 0 || ni > FZ7_7Z_MAX_IN_STREAMS || no != 1)
                return fail(c, FZ7_E_UNSUPPORTED,
                            "Unsupported: coder with %" PRIu64 " in and %" PRIu64 " out streams", ni, no);
            cd->num_in = (uint32_t)ni;
        }
        cd->first_in = total_in;
        total_in += cd->num_in;
        if (total_in > FZ7_7Z_MAX_IN_STREAMS)
            return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: folder with too many streams");
        if (flags & 0x20) {
            uint64_t plen;
            const uint8_t *pb;
            TRY(rd_num(c, &plen));
            if (plen > c->left)
                return fail(c, FZ7_E_FORMAT, "Headers Error: coder properties ends early");
            TRY(rd_bytes(c, (size_t)plen, &pb));
            if (plen) {
                cd->props = malloc((size_t)plen);
                if (!cd->props)
                    return FZ7_E_MEM;
                memcpy(cd->props, pb, (size_t)plen);
                cd->props_len = (uint32_t)plen;
            }
        }
    }
    f->num_in = total_in;
    f->num_bind_pairs = f->num_coders - 1;
    if (total_in < f->num_bind_pairs)
        return fail(c, FZ7_E_FORMAT, "Headers Error: folder has fewer in streams than bind pairs");
    f->num_packed = total_in - f->num_bind_pairs;
    f->bind_pairs = alloc_array(c, f->num_bind_pairs, sizeof *f->bind_pairs, &st);
    f->packed = f->bind_pairs ? alloc_array(c, f->num_packed, sizeof *f->packed, &st) : NULL;
    f->unpack_sizes = f->packed ? alloc_array(c, f->num_coders, sizeof *f->unpack_sizes, &st) : NULL;
    if (!f->unpack_sizes)
        return st;
    for (uint32_t i = 0; i < f->num_bind_pairs; i++) {
        uint64_t in, out;
        TRY(rd_num(c, &in));
        TRY(rd_num(c, &out));
        if (in >= total_in || out >= f->num_coders)
            return fail(c, FZ7_E_FORMAT, "Headers Error: bind pair out of range");
        f->bind_pairs[i].in_index = (uint32_t)in;
        f->bind_pairs[i].out_index = (uint32_t)out;
    }
    if (f->num_packed == 1) {
        /* The one in stream no bind pair feeds. */
        for (uint32_t in = 0; in < total_in; in++) {
            bool bound = false;
            for (uint32_t b = 0; b < f->num_bind_pairs; b++)
                bound |= f->bind_pairs[b].in_index == in;
            if (!bound) {
                f->packed[0] = in;
                break;
            }
            if (in + 1 == total_in)
                return fail(c, FZ7_E_FORMAT, "Headers Error: folder has no packed stream");
        }
    } else {
        for (uint32_t k = 0; k < f->num_packed; k++) {
            uint64_t in;
            TRY(rd_num(c, &in));
            if (in >= total_in)
                return fail(c, FZ7_E_FORMAT, "Headers Error: packed stream index out of range");
            f->packed[k] = (uint32_t)in;
        }
    }
    if (fz7_7z_folder_check(f) != FZ7_OK)
        return fail(c, FZ7_E_FORMAT, "Headers Error: malformed coder graph");
    return FZ7_OK;
}

static fz7_status parse_unpack_info(cursor *c, fz7_7z_streams *s)
{
    uint64_t id;
    uint8_t external;
    fz7_status st;
    TRY(rd_id(c, &id));
    if (id != K_FOLDER)
        return fail(c, FZ7_E_FORMAT, "Headers Error: expected folders");
    /* Entries index folders in 32 bits (fz7_entry.folder). */
    TRY(rd_count(c, c->left / 2 < FZ7_MAX_FOLDERS ? c->left / 2 : FZ7_MAX_FOLDERS, "folder", &s->num_folders));
    TRY(rd_byte(c, &external));
    if (external)
        return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: external folder data");
    s->folders = alloc_array(c, s->num_folders, sizeof *s->folders, &st);
    if (!s->folders)
        return st;
    uint64_t next_pack = 0;
    for (uint64_t i = 0; i < s->num_folders; i++) {
        TRY(parse_folder(c, &s->folders[i]));
        if (!(s->folders[i].method = fz7_7z_folder_method(&s->folders[i])))
            return FZ7_E_MEM;
        s->folders[i].first_pack = next_pack;
        next_pack += s->folders[i].num_packed;
    }
    if (next_pack > s->num_pack)
        return fail(c, FZ7_E_FORMAT, "Headers Error: folders use more pack streams than exist");
    TRY(rd_id(c, &id));
    if (id != K_CODERS_UNPACK_SIZE)
        return fail(c, FZ7_E_FORMAT, "Headers Error: expected unpack sizes");
    for (uint64_t i = 0; i < s->num_folders; i++)
        for (uint32_t o = 0; o < s->folders[i].num_coders; o++)
            TRY(rd_num(c, &s->folders[i].unpack_sizes[o]));
    for (;;) {
        TRY(rd_id(c, &id));
        if (id == K_END)
            break;
        if (id == K_CRC) {
            uint8_t *def = alloc_array(c, s->num_folders, 1, &st);
            uint32_t *crcs = def ? alloc_array(c, s->num_folders, 4, &st) : NULL;
            if (crcs)
                st = rd_digests(c, s->num_folders, def, crcs);
            for (uint64_t i = 0; st == FZ7_OK && i < s->num_folders; i++) {
                s->folders[i].has_crc = def[i];
                s->folders[i].crc = crcs[i];
            }
            free(def);
            free(crcs);
            TRY(st);
        } else {
            TRY(skip_data(c));
        }
    }
    return FZ7_OK;
}

static uint64_t folder_size(const fz7_7z_folder *f) { return f->unpack_sizes[f->main_out]; }

static fz7_status alloc_substreams(cursor *c, fz7_7z_streams *s)
{
    fz7_status st;
    uint64_t total = 0;
    for (uint64_t i = 0; i < s->num_folders; i++) {
        s->folders[i].first_substream = total;
        total += s->folders[i].num_substreams;
    }
    s->num_substreams = total;
    s->sub_sizes = alloc_array(c, total, sizeof *s->sub_sizes, &st);
    s->sub_crcs = s->sub_sizes ? alloc_array(c, total, sizeof *s->sub_crcs, &st) : NULL;
    s->sub_has_crc = s->sub_crcs ? alloc_array(c, total, sizeof *s->sub_has_crc, &st) : NULL;
    return s->sub_has_crc ? FZ7_OK : st;
}

/* Without SubStreamsInfo every folder holds one file, the folder's size. */
static fz7_status default_substreams(cursor *c, fz7_7z_streams *s)
{
    for (uint64_t i = 0; i < s->num_folders; i++)
        s->folders[i].num_substreams = 1;
    TRY(alloc_substreams(c, s));
    for (uint64_t i = 0; i < s->num_folders; i++) {
        s->sub_sizes[i] = folder_size(&s->folders[i]);
        s->sub_has_crc[i] = s->folders[i].has_crc;
        s->sub_crcs[i] = s->folders[i].crc;
    }
    return FZ7_OK;
}

static fz7_status parse_substreams(cursor *c, fz7_7z_streams *s)
{
    uint64_t id;
    fz7_status st;
    for (uint64_t i = 0; i < s->num_folders; i++)
        s->folders[i].num_substreams = 1;
    TRY(rd_id(c, &id));
    if (id == K_NUM_UNPACK_STREAM) {
        /* Sizes take a byte each (all but the last of a folder), so the
         * header bounds the total. */
        uint64_t budget = c->left;
        for (uint64_t i = 0; i < s->num_folders; i++) {
            uint64_t n;
            TRY(rd_num(c, &n));
            if (n > budget + 1)
                return fail(c, FZ7_E_FORMAT, "Headers Error: substream count %" PRIu64 " is too large", n);
            if (n > 0)
                budget -= n - 1;
            s->folders[i].num_substreams = n;
        }
        TRY(rd_id(c, &id));
    }
    TRY(alloc_substreams(c, s));
    uint64_t k = 0;
    for (uint64_t i = 0; i < s->num_folders; i++) {
        const fz7_7z_folder *f = &s->folders[i];
        uint64_t n = f->num_substreams, left = folder_size(f);
        if (n == 0)
            continue;
        if (n > 1 && id != K_SIZE)
            return fail(c, FZ7_E_FORMAT, "Headers Error: substream sizes missing");
        for (uint64_t j = 0; j + 1 < n; j++) {
            TRY(rd_num(c, &s->sub_sizes[k]));
            if (s->sub_sizes[k] > left)
                return fail(c, FZ7_E_FORMAT, "Headers Error: substream sizes exceed the folder size");
            left -= s->sub_sizes[k++];
        }
        s->sub_sizes[k++] = left;
    }
    if (id == K_SIZE)
        TRY(rd_id(c, &id));

    /* Digests cover the substreams whose CRC the folder does not give. */
    uint64_t missing = 0;
    for (uint64_t i = 0; i < s->num_folders; i++) {
        const fz7_7z_folder *f = &s->folders[i];
        if (f->num_substreams == 1 && f->has_crc) {
            s->sub_has_crc[f->first_substream] = true;
            s->sub_crcs[f->first_substream] = f->crc;
        } else {
            missing += f->num_substreams;
        }
    }
    while (id != K_END) {
        if (id == K_CRC) {
            uint8_t *def = alloc_array(c, missing, 1, &st);
            uint32_t *crcs = def ? alloc_array(c, missing, 4, &st) : NULL;
            if (crcs)
                st = rd_digests(c, missing, def, crcs);
            uint64_t m = 0;
            for (uint64_t i = 0; st == FZ7_OK && i < s->num_folders; i++) {
                const fz7_7z_folder *f = &s->folders[i];
                if (f->num_substreams == 1 && f->has_crc)
                    continue;
                for (uint64_t j = 0; j < f->num_substreams; j++, m++) {
                    s->sub_has_crc[f->first_substream + j] = def[m];
                    s->sub_crcs[f->first_substream + j] = crcs[m];
                }
            }
            free(def);
            free(crcs);
            TRY(st);
        } else {
            TRY(skip_data(c));
        }
        TRY(rd_id(c, &id));
    }
    return FZ7_OK;
}

static fz7_status parse_streams_info(cursor *c, fz7_7z_streams *s)
{
    uint64_t id;
    TRY(rd_id(c, &id));
    if (id == K_PACK_INFO) {
        TRY(parse_pack_info(c, s));
        TRY(rd_id(c, &id));
    }
    if (id == K_UNPACK_INFO) {
        TRY(parse_unpack_info(c, s));
        TRY(rd_id(c, &id));
    }
    if (id == K_SUBSTREAMS_INFO) {
        TRY(parse_substreams(c, s));
        TRY(rd_id(c, &id));
    } else {
        TRY(default_substreams(c, s));
    }
    if (id != K_END)
        return fail(c, FZ7_E_FORMAT, "Headers Error: unexpected property %" PRIu64 " in streams info", id);
    return FZ7_OK;
}

/* ---- FilesInfo ---- */

/* The code point at units[*i] (a surrogate pair taken whole, *i moved to
 * its second unit), as put_name_unit writes it. */
static uint32_t next_unit(const uint8_t *units, size_t n, size_t *i)
{
    uint32_t u = fz7_get16le(units + 2 * *i);
    if (u >= 0xD800 && u < 0xDC00 && *i + 1 < n) {
        uint32_t lo = fz7_get16le(units + 2 * (*i + 1));
        if (lo >= 0xDC00 && lo < 0xE000) {
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            ++*i;
        }
    }
    return u;
}

/* Bytes put_name_unit writes for code point u. */
static size_t utf8_len(uint32_t u)
{
    if ((u >= 0xEF80 && u <= 0xEFFF) || u < 0x80)
        return 1;
    return u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
}

/* Writes code point u as the bytes of a Linux name: UTF-8, except that
 * U+EF80..U+EFFF, 7-Zip's escapes for bytes that are not UTF-8
 * (7z_write.c), give back those bytes, and an unpaired surrogate is written
 * as its three-byte form, as 7zz does, so that distinct names stay
 * distinct. Returns the byte after the last one written. */
static char *put_name_unit(char *o, uint32_t u)
{
    if (u >= 0xEF80 && u <= 0xEFFF) {
        *o++ = (char)(u - 0xEF00);
        return o;
    }
    return o + fz7_utf8_put((uint8_t *)o, u);
}

/* Forgets the entries' paths (a second kName replaces the first). A block
 * that is the header's own buffer (header_buf) goes back to its reader.
 * Before the first kName every path is NULL: the entries' pages are left
 * untouched. */
static void drop_names(fz7_archive *a, const uint8_t *header_buf)
{
    if (!a->names)
        return;
    uintptr_t lo = (uintptr_t)a->names, hi = lo + a->names_len;
    for (size_t i = 0; i < a->count; i++) {
        uintptr_t p = (uintptr_t)a->entries[i].path;
        if (p < lo || p >= hi)
            free(a->entries[i].path);
        a->entries[i].path = NULL;
    }
    if ((const uint8_t *)a->names != header_buf)
        free(a->names);
    a->names = NULL;
    a->names_len = 0;
}

/* Gives the whole pages of [from, to), bytes of a buffer that are read and
 * no longer needed, back to the system (they read as zeros after). */
static void release_pages(uint8_t *from, const uint8_t *to)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)from + page - 1) & ~(page - 1), hi = (uintptr_t)to & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* kName: num_files NUL-terminated UTF-16LE names, turned into the bytes of
 * Linux names (put_name_unit) in one block, a->names. The block is the
 * start of the header's own buffer (c->buf) when every name's bytes land
 * on units already read (ASCII halves them), which spares a copy of the
 * names while the header and the entries are both in memory, and the pages
 * of UTF-16 behind the block go back at once; else a block of their exact
 * size. */
static fz7_status parse_names(cursor *c, fz7_archive *a, uint64_t num_files)
{
    uint8_t external;
    TRY(rd_byte(c, &external));
    if (external)
        return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: external file names");
    if (c->left % 2)
        return fail(c, FZ7_E_FORMAT, "Headers Error: odd length of file names");
    const uint8_t *src = c->p;
    size_t units = c->left / 2, out = 0, read_before = c->buf ? (size_t)(src - c->buf) : 0;
    bool in_place = c->buf != NULL;
    uint64_t names = 0;
    for (size_t i = 0; i < units; i++) {
        uint32_t u = next_unit(src, units, &i);
        out += u == 0 ? 1 : utf8_len(u);
        names += u == 0;
        if (out > read_before + 2 * (i + 1))
            in_place = false;
    }
    /* The names fill the property exactly, as 7-Zip demands: one more
     * NUL would shift every later file onto another's name. */
    if (names != num_files || (units > 0 && fz7_get16le(src + 2 * (units - 1)) != 0))
        return fail(c, FZ7_E_FORMAT, "Headers Error: %" PRIu64 " names for %" PRIu64 " files", names,
                    num_files);
    drop_names(a, c->buf);
    if (num_files == 0)
        return FZ7_OK;
    char *block = in_place ? (char *)c->buf : malloc(out);
    if (!block)
        return FZ7_E_MEM;
    a->names = block;
    a->names_len = out;
    char *o = block, *name = block;
    names = 0;
    /* In place, the UTF-16 already read and not written over goes back
     * every RELEASE_UNITS, so the header, the names and the entries never
     * all stand at their full size at once. */
    enum { RELEASE_UNITS = 1 << 19 };
    size_t release_at = RELEASE_UNITS;
    for (size_t i = 0; names < num_files; i++) {
        uint32_t u = next_unit(src, units, &i);
        if (in_place && i >= release_at) {
            release_pages((uint8_t *)o + 4, src + 2 * i);
            release_at = i + RELEASE_UNITS;
        }
        if (u != 0) {
            o = put_name_unit(o, u);
            continue;
        }
        *o++ = 0;
        a->entries[names++].path = name;
        name = o;
    }
    if (in_place)
        release_pages(c->buf + out, src + 2 * units);
    return FZ7_OK;
}

/* Which entry field a per-file property fills (kStartPos fills none). */
typedef enum { PROP_NONE, PROP_ATTRIB, PROP_MTIME, PROP_CTIME, PROP_ATIME } file_prop;

/* Windows FILETIME (100 ns ticks since 1601) to Unix seconds + ns. */
static void filetime_to_unix(uint64_t ft, int64_t *sec, uint32_t *nsec)
{
    *sec = (int64_t)(ft / 10000000u) - INT64_C(11644473600);
    *nsec = (uint32_t)(ft % 10000000u) * 100u;
}

/* kCTime/kATime/kMTime, kWinAttributes, kStartPos: defined flags (into
 * defined[0..n), scratch), the External byte, then one value of `width`
 * bytes per defined item, stored straight into the entries: no array of
 * values per property, whose size would follow the file count. */
static fz7_status parse_values(cursor *c, fz7_archive *a, uint64_t n, unsigned width, uint8_t *defined,
                               file_prop which)
{
    fz7_entry *e = a->entries;
    uint8_t external;
    TRY(rd_defined(c, n, defined));
    TRY(rd_byte(c, &external));
    if (external)
        return fail(c, FZ7_E_UNSUPPORTED, "Unsupported: external file properties");
    /* Creation and access times live beside the entries (fz7_entry_more). */
    fz7_status st = FZ7_OK;
    if ((which == PROP_CTIME || which == PROP_ATIME) && !a->more &&
        !(a->more = alloc_array(c, n, sizeof *a->more, &st)))
        return st;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        if (defined[i]) {
            if (width == 4) {
                uint32_t v32;
                TRY(rd_u32(c, &v32));
                v = v32;
            } else {
                TRY(rd_u64(c, &v));
            }
        }
        bool def = defined[i];
        switch (which) {
        case PROP_ATTRIB:
            e[i].has_attrib = def;
            e[i].attrib = (uint32_t)v;
            break;
        case PROP_MTIME:
            e[i].has_mtime = def;
            if (def)
                filetime_to_unix(v, &e[i].mtime, &e[i].mtime_nsec);
            break;
        case PROP_CTIME:
            e[i].has_ctime = def;
            if (def) {
                filetime_to_unix(v, &a->more[i].ctime, &a->more[i].ctime_nsec);
                e[i].more = &a->more[i];
            }
            break;
        case PROP_ATIME:
            e[i].has_atime = def;
            if (def) {
                filetime_to_unix(v, &a->more[i].atime, &a->more[i].atime_nsec);
                e[i].more = &a->more[i];
            }
            break;
        case PROP_NONE:
            break;
        }
    }
    return FZ7_OK;
}

typedef struct {
    uint8_t *empty_stream, *empty_file, *anti, *defined;
} files_props;

static void files_props_free(files_props *fp)
{
    free(fp->empty_stream);
    free(fp->empty_file);
    free(fp->anti);
    free(fp->defined);
}

/* The name of a file stored without one: the archive's base name without
 * its extension, as 7-Zip shows it. (An empty name lies in a->names, which
 * keeps it.) */
static char *default_name(const char *archive_path)
{
    const char *base = strrchr(archive_path, '/');
    base = base ? base + 1 : archive_path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return strndup(base, len);
}

/* attrib, kind -> st_mode, as described in archive.h. */
static void derive_mode(fz7_entry *e)
{
    uint32_t unix_mode = (e->has_attrib && (e->attrib & 0x8000)) ? e->attrib >> 16 : 0;
    /* Mode bits without a file type are not a Unix mode 7-Zip honours
     * (some writers set 0x8000 with garbage above it): use the defaults. */
    if ((unix_mode & S_IFMT) == 0)
        unix_mode = 0;
    /* An entry with data is a file whatever its attributes say, as 7-Zip
     * reads it (folders come from the empty-stream bits): its bytes are
     * never dropped for an empty folder. */
    bool data = e->has_stream;
    if (e->has_attrib && (e->attrib & 0x10) && !data)
        e->is_dir = true;
    if (unix_mode) {
        if (S_ISDIR(unix_mode) && data)
            unix_mode = (unix_mode & 07777) | S_IFREG;
        if (S_ISDIR(unix_mode))
            e->is_dir = true;
        if (S_ISLNK(unix_mode) && !e->is_dir)
            e->is_symlink = true;
        if (e->is_dir && !S_ISDIR(unix_mode))
            unix_mode = (unix_mode & 07777) | S_IFDIR;
        e->mode = unix_mode;
        return;
    }
    e->mode = e->is_dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
    if (e->has_attrib && (e->attrib & 0x1))
        e->mode &= ~(uint32_t)0222;
}

static fz7_status parse_files_info(cursor *c, fz7_archive *a, fz7_7z_db *db)
{
    const fz7_7z_streams *s = &db->main;
    uint64_t n;
    fz7_status st = FZ7_OK;
    /* A file either has a substream or is flagged in the kEmptyStream bit
     * vector, which the remaining header bytes must hold. */
    uint64_t max_files = s->num_substreams + (c->left > UINT64_MAX / 8 ? UINT64_MAX / 8 : c->left * 8);
    /* Entries index folders and substreams in 32 bits. */
    if (max_files > FZ7_MAX_FOLDERS)
        max_files = FZ7_MAX_FOLDERS;
    TRY(rd_count(c, max_files, "file", &n));
    a->entries = alloc_array(c, n, sizeof *a->entries, &st);
    if (!a->entries)
        return st;
    a->count = (size_t)n;
    files_props fp = {0};
    fp.empty_stream = alloc_array(c, n, 1, &st);
    fp.empty_file = fp.empty_stream ? alloc_array(c, n, 1, &st) : NULL;
    fp.anti = fp.empty_file ? alloc_array(c, n, 1, &st) : NULL;
    fp.defined = fp.anti ? alloc_array(c, n, 1, &st) : NULL;
    if (!fp.defined) {
        files_props_free(&fp);
        return st;
    }
    uint64_t num_empty = 0;
    for (;;) {
        /* The property type is a UINT64 as 7-Zip reads it (types from 0x80
         * up take more than one byte). */
        uint64_t type, size;
        if ((st = rd_num(c, &type)) != FZ7_OK)
            break;
        if (type == K_END)
            break;
        if ((st = rd_num(c, &size)) != FZ7_OK)
            break;
        if (size > c->left) {
            st = fail(c, FZ7_E_FORMAT, "Headers Error: file property %" PRIu64 " larger than the header", type);
            break;
        }
        cursor p = *c;
        p.left = (size_t)size;
        c->p += size;
        c->left -= (size_t)size;
        switch (type) {
        case K_EMPTY_STREAM:
            st = rd_bits(&p, n, fp.empty_stream);
            num_empty = 0;
            for (uint64_t i = 0; i < n; i++)
                num_empty += fp.empty_stream[i];
            memset(fp.empty_file, 0, (size_t)n);
            memset(fp.anti, 0, (size_t)n);
            break;
        case K_EMPTY_FILE:
        case K_ANTI:
            st = rd_bits(&p, num_empty, type == K_EMPTY_FILE ? fp.empty_file : fp.anti);
            break;
        case K_NAME:
            st = parse_names(&p, a, n);
            break;
        case K_MTIME:
            st = parse_values(&p, a, n, 8, fp.defined, PROP_MTIME);
            break;
        case K_CTIME:
            st = parse_values(&p, a, n, 8, fp.defined, PROP_CTIME);
            break;
        case K_ATIME:
            st = parse_values(&p, a, n, 8, fp.defined, PROP_ATIME);
            break;
        case K_START_POS:
            st = parse_values(&p, a, n, 8, fp.defined, PROP_NONE);
            break;
        case K_WIN_ATTRIBUTES:
            st = parse_values(&p, a, n, 4, fp.defined, PROP_ATTRIB);
            break;
        case K_DUMMY:   /* padding: zero bytes only, as 7-Zip demands */
            for (; p.left && st == FZ7_OK; p.left--, p.p++)
                if (*p.p != 0)
                    st = fail(c, FZ7_E_FORMAT, "Headers Error: kDummy padding not zero");
            break;
        default:   /* kComment and properties unknown here */
            p.left = 0;
            break;
        }
        if (st != FZ7_OK)
            break;
        /* A known property must fill its size exactly (7-Zip refuses the
         * archive otherwise); names check their own length. */
        if (type != K_NAME && p.left != 0) {
            st = fail(c, FZ7_E_FORMAT, "Headers Error: %zu bytes left in file property %" PRIu64, p.left, type);
            break;
        }
    }
    if (st == FZ7_OK && n - num_empty != s->num_substreams)
        st = fail(c, FZ7_E_FORMAT, "Headers Error: %" PRIu64 " files with data for %" PRIu64 " substreams",
                  n - num_empty, s->num_substreams);
    if (st == FZ7_OK)
        db->entry_substream = alloc_array(c, n, sizeof *db->entry_substream, &st);
    if (st != FZ7_OK) {
        files_props_free(&fp);
        return st;
    }

    /* Spread the substreams over the files with data, in order. */
    uint64_t sub = 0, folder = 0, empty_index = 0;
    for (uint64_t i = 0; i < n; i++) {
        fz7_entry *e = &a->entries[i];
        if ((!e->path || !e->path[0]) && !(e->path = default_name(a->path))) {
            st = FZ7_E_MEM;
            break;
        }
        e->has_size = true;
        e->folder = -1;
        e->method = "";
        db->entry_substream[i] = UINT32_MAX;
        if (fp.empty_stream[i]) {
            /* kEmptyFile and kAnti index the empty streams only. */
            bool empty_file = fp.empty_file[empty_index], anti = fp.anti[empty_index];
            empty_index++;
            e->is_dir = !empty_file;
            e->is_anti = anti;
            /* Between two files of one folder 7-Zip lists the folder's
             * method for it too. */
            if (sub > 0 && folder < s->num_folders &&
                sub < s->folders[folder].first_substream + s->folders[folder].num_substreams &&
                sub > s->folders[folder].first_substream) {
                e->method = s->folders[folder].method;
                e->encrypted = s->folders[folder].encrypted;
            }
        } else {
            while (folder < s->num_folders &&
                   sub >= s->folders[folder].first_substream + s->folders[folder].num_substreams)
                folder++;
            const fz7_7z_folder *f = &s->folders[folder];
            e->has_stream = true;
            e->folder = (int32_t)folder;
            e->size = s->sub_sizes[sub];
            e->has_crc = s->sub_has_crc[sub];
            e->crc = s->sub_crcs[sub];
            e->method = f->method ? f->method : "";
            e->encrypted = f->encrypted;
            if (sub == f->first_substream)
                for (uint32_t k = 0; k < f->num_packed; k++)
                    e->packed_size += s->pack_sizes[f->first_pack + k];
            db->entry_substream[i] = (uint32_t)sub++;
        }
        derive_mode(e);
    }
    files_props_free(&fp);
    return st;
}

/* ---- Header and encoded header ---- */

static fz7_status parse_header(cursor *c, fz7_archive *a, fz7_7z_db *db)
{
    uint64_t id;
    TRY(rd_id(c, &id));
    if (id == K_ARCHIVE_PROPERTIES) {
        for (;;) {
            uint64_t type;
            TRY(rd_id(c, &type));
            if (type == 0)
                break;
            TRY(skip_data(c));
        }
        TRY(rd_id(c, &id));
    }
    if (id == K_ADDITIONAL_STREAMS_INFO) {
        /* Only external properties refer to it, and those are refused. */
        fz7_7z_streams extra = {0};
        fz7_status st = parse_streams_info(c, &extra);
        fz7_7z_streams_free(&extra);
        TRY(st);
        TRY(rd_id(c, &id));
    }
    if (id == K_MAIN_STREAMS_INFO) {
        TRY(parse_streams_info(c, &db->main));
        TRY(rd_id(c, &id));
    }
    if (id == K_FILES_INFO) {
        TRY(parse_files_info(c, a, db));
        /* 7-Zip only warns ("Unsupported feature") when the last ID is a
         * whole number other than kEnd; bytes after it it refuses. */
        uint64_t last;
        TRY(rd_num(c, &last));
        id = K_END;
    } else if (db->main.num_substreams > 0) {
        return fail(c, FZ7_E_FORMAT, "Headers Error: streams without files");
    }
    if (id != K_END)
        return fail(c, FZ7_E_FORMAT, "Headers Error: unexpected property %" PRIu64 " in header", id);
    if (c->left != 0)
        return fail(c, FZ7_E_FORMAT, "Headers Error: %zu bytes after the end of the header", c->left);
    return FZ7_OK;
}

/* Decodes the folder holding an encoded header into a new buffer. */
static fz7_status decode_header(cursor *c, fz7_archive *a, uint8_t **out, size_t *out_len)
{
    fz7_7z_streams s = {0};
    fz7_status st = parse_streams_info(c, &s);
    if (st == FZ7_OK && s.num_folders == 0)
        st = fail(c, FZ7_E_FORMAT, "Headers Error: encoded header without a folder");
    if (st != FZ7_OK) {
        fz7_7z_streams_free(&s);
        return st;
    }
    const fz7_7z_folder *f = &s.folders[0];
    uint64_t size = folder_size(f);
    char detail[128];
    fz7_istream *in = NULL;
    uint8_t *buf = NULL;
    a->info.header_encrypted |= f->encrypted;
    if (f->encrypted && !a->opts.password)
        st = fail(c, FZ7_E_NEED_PASSWORD, "Cannot open encrypted archive. Wrong password?");
    else if (size > a->opts.mem_limit || size > SIZE_MAX - 1)
        st = fail(c, FZ7_E_MEMLIMIT, "Header of %" PRIu64 " bytes exceeds the memory limit", size);
    /* The usual encoded header, one LZMA coder on one pack stream, is
     * decoded straight into its buffer, the decoder's window: the window
     * and a copy of it would double the memory of opening an archive of
     * many files. The window's pages are touched only as bytes arrive, so
     * a header that only claims to be large costs little. */
    const fz7_7z_coder *c0 = f->num_coders == 1 ? &f->coders[0] : NULL;
    bool whole = st == FZ7_OK && size > 0 && c0 && f->num_packed == 1 && c0->id == FZ7_7Z_ID_LZMA &&
                 c0->props_len == 5 && f->first_pack < s.num_pack;
    if (whole) {
        fz7_istream *packed =
            fz7_volumes_istream_new(a->vol, s.pack_offsets[f->first_pack], s.pack_sizes[f->first_pack]);
        st = packed ? fz7_lzma_decode_whole(packed, c0->props, size, a->opts.mem_limit, &buf) : FZ7_E_MEM;
        fz7_istream_free(packed);
        if (st == FZ7_E_MEMLIMIT)
            note(c, "Header of %" PRIu64 " bytes exceeds the memory limit", size);
    }
    /* Else the buffer grows as bytes arrive, so a header that only claims
     * to be large costs nothing. */
    size_t cap = size < ((size_t)1 << 20) ? (size_t)size : (size_t)1 << 20, have = whole ? (size_t)size : 0;
    if (st == FZ7_OK && !whole && !(buf = malloc(cap ? cap : 1)))
        st = FZ7_E_MEM;
    if (st == FZ7_OK && !whole) {
        st = fz7_7z_folder_istream_new(a->vol, &s, 0, a->opts.password, a->opts.mem_limit, &in,
                                       detail, sizeof detail);
        if (st != FZ7_OK)
            note(c, "Header: %s", detail);
    }
    while (st == FZ7_OK && have < size) {
        if (have == cap) {
            size_t grown = cap > (size_t)size / 2 ? (size_t)size : 2 * cap;
            uint8_t *nb = realloc(buf, grown);
            if (!nb) {
                st = FZ7_E_MEM;
                break;
            }
            buf = nb;
            cap = grown;
        }
        size_t got = 0;
        st = in->read(in, buf + have, cap - have, &got);
        if (st == FZ7_OK && got == 0)
            st = FZ7_E_TRUNCATED;
        have += got;
    }
    if (st == FZ7_OK && !whole) {
        size_t extra = 0;
        uint8_t probe;
        st = in->read(in, &probe, 1, &extra);
        if (st == FZ7_OK && extra)
            st = FZ7_E_DATA;
    }
    if (st == FZ7_OK && f->has_crc && fz7_crc32(0, buf, (size_t)size) != f->crc)
        st = FZ7_E_CRC;
    /* A header that decodes whole but fails its CRC is also a Headers
     * Error to 7zz (one whose decoder fails is not). */
    if (f->encrypted && st == FZ7_E_CRC)
        st = fail(c, FZ7_E_PASSWORD, "Cannot open encrypted archive. Wrong password? (Headers Error)");
    else if (f->encrypted && (st == FZ7_E_DATA || st == FZ7_E_TRUNCATED))
        st = fail(c, FZ7_E_PASSWORD, "Cannot open encrypted archive. Wrong password?");
    else if (st != FZ7_OK)
        note(c, "Headers Error: encoded header: %s", fz7_status_str(st));
    fz7_istream_free(in);
    fz7_7z_streams_free(&s);
    if (st != FZ7_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *out_len = (size_t)size;
    return FZ7_OK;
}

static void close_7z(fz7_archive *a)
{
    fz7_7z_db *db = a->priv;
    if (!db)
        return;
    fz7_7z_streams_free(&db->main);
    free(db->entry_substream);
    free(db->method_union);
    free(db);
    a->priv = NULL;
}

static const fz7_archive_ops ops_7z = {fz7_7z_extract, close_7z, NULL};

/* Fills what the listing shows beside the entries. */
static fz7_status fill_info(fz7_archive *a, fz7_7z_db *db, uint64_t header_end)
{
    fz7_7z_streams *s = &db->main;
    fz7_7z_method_set m = {.lzma2_prop = -1};
    uint64_t packed = 0;
    for (uint64_t i = 0; i < s->num_pack; i++)
        packed += s->pack_sizes[i];
    for (uint64_t i = 0; i < s->num_folders; i++) {
        fz7_7z_method_set_add(&m, &s->folders[i]);
        if (s->folders[i].num_substreams > 1)
            a->info.solid = true;
    }
    db->method_union = fz7_7z_method_union(&m);
    if (!db->method_union)
        return FZ7_E_MEM;
    a->info.format = FZ7_FORMAT_7Z;
    a->info.method = db->method_union;
    a->info.num_blocks = s->num_folders;
    a->info.headers_size = header_end > packed ? header_end - packed : 0;
    /* The next header ends the archive (7zFormat.txt, Archive structure);
     * bytes behind it are the tail 7-Zip warns about. */
    uint64_t end = a->info.offset + header_end;
    a->info.tail_size = a->file_size > end ? a->file_size - end : 0;
    return FZ7_OK;
}

/* Checks a start header (7zFormat.txt, SignatureHeader) read at start:
 * version, CRC, and that the next header lies inside the archive's bytes.
 * Fills the next header's place; reasons go to c. */
static fz7_status check_start_header(const fz7_archive *a, cursor *c, const uint8_t *sh,
                                     uint64_t start, uint64_t *nh_offset, uint64_t *nh_size,
                                     uint32_t *nh_crc)
{
    if (sh[6] != 0)   /* 7-Zip treats other major versions as not 7z */
        return fail(c, FZ7_E_FORMAT, "Cannot open the file as archive: 7z version %u.%u", sh[6], sh[7]);
    if (fz7_crc32(0, sh + 12, 20) != fz7_get32le(sh + 8))
        return fail(c, FZ7_E_FORMAT, "start header CRC mismatch");   /* 7-Zip: "Is not archive" */
    *nh_offset = fz7_get64le(sh + 12);
    *nh_size = fz7_get64le(sh + 20);
    *nh_crc = fz7_get32le(sh + 28);
    uint64_t room = a->file_size - start - SIGNATURE_HEADER_BYTES;
    if (*nh_offset > room || *nh_size > room - *nh_offset)
        return fail(c, FZ7_E_TRUNCATED, "Unexpected end of archive");
    return FZ7_OK;
}

/* Reads and parses the next header of len bytes at pos into a and db;
 * with nh_crc NULL its CRC is unknown (a salvaged start header). */
static fz7_status read_next_header(fz7_archive *a, fz7_7z_db *db, uint64_t start, uint64_t pos,
                                   size_t len, const uint32_t *nh_crc, char *err, size_t errlen)
{
    cursor ec = {NULL, 0, err, errlen, a->opts.mem_limit, start, NULL};
    uint8_t *buf = malloc(len);
    if (!buf)
        return FZ7_E_MEM;
    fz7_status st = fz7_volumes_pread(a->vol, buf, len, pos);
    if (st == FZ7_OK && nh_crc && fz7_crc32(0, buf, len) != *nh_crc)
        st = fail(&ec, FZ7_E_CRC, "Headers Error: header CRC mismatch");
    for (int level = 0; st == FZ7_OK; level++) {
        cursor c = {buf, len, err, errlen, a->opts.mem_limit, start, buf};
        uint64_t id;
        st = rd_id(&c, &id);
        if (st != FZ7_OK)
            break;
        if (id == K_HEADER) {
            st = parse_header(&c, a, db);
            break;
        }
        if (id != K_ENCODED_HEADER || level == MAX_ENCODED_HEADER_LEVELS) {
            st = fail(&c, FZ7_E_FORMAT, "Headers Error: unexpected header type %" PRIu64, id);
            break;
        }
        uint8_t *next = NULL;
        size_t next_len = 0;
        st = decode_header(&c, a, &next, &next_len);
        if (st == FZ7_OK) {
            free(buf);
            buf = next;
            len = next_len;
        }
    }
    if ((uint8_t *)a->names != buf) {
        free(buf);
    } else if (len > a->names_len) {
        /* The names were written over the header's start: keep just them. */
        uintptr_t old = (uintptr_t)buf;
        char *kept = realloc(buf, a->names_len);
        if (kept && (uintptr_t)kept != old) {
            for (size_t i = 0; i < a->count; i++) {
                uintptr_t p = (uintptr_t)a->entries[i].path;
                if (p >= old && p < old + a->names_len)
                    a->entries[i].path = kept + (p - old);
            }
        }
        if (kept)
            a->names = kept;
    }
    return st;
}

/* Forgets what a failed read_next_header() left in a and db. */
static void reset_db(fz7_archive *a, fz7_7z_db *db)
{
    fz7_archive_free_entries(a);
    fz7_7z_streams_free(&db->main);
    free(db->entry_substream);
    memset(db, 0, sizeof *db);
    a->info.header_encrypted = false;
}

/* How much of the file's end a zeroed start header's next header is
 * looked for in. */
#define SALVAGE_SEARCH_BYTES ((size_t)1 << 20)

/* A start header whose 24 bytes after the version are all zero (an
 * archive whose writer died before it went back to fill them in): the next
 * header is taken to run to the end of the file and to begin at one of the
 * two openings a writer puts there, kEncodedHeader kPackInfo or kHeader
 * kMainStreamsInfo; the candidates nearest the end are tried first and
 * the first that parses wins. */
static fz7_status salvage_next_header(fz7_archive *a, fz7_7z_db *db, uint64_t start,
                                      uint64_t *header_end, char *err, size_t errlen)
{
    uint64_t room = a->file_size - start - SIGNATURE_HEADER_BYTES;
    size_t n = room < SALVAGE_SEARCH_BYTES ? (size_t)room : SALVAGE_SEARCH_BYTES;
    uint64_t base = a->file_size - n;
    uint8_t *tail = malloc(n ? n : 1);
    if (!tail)
        return FZ7_E_MEM;
    fz7_status st = fz7_volumes_pread(a->vol, tail, n, base);
    fz7_status best = FZ7_E_FORMAT;
    for (size_t i = n >= 2 ? n - 2 : 0; st == FZ7_OK && n >= 2; i--) {
        if ((tail[i] == K_ENCODED_HEADER && tail[i + 1] == K_PACK_INFO) ||
            (tail[i] == K_HEADER && tail[i + 1] == K_MAIN_STREAMS_INFO)) {
            char quiet[8] = "";
            fz7_status r = read_next_header(a, db, start, base + i, n - i, NULL, quiet, sizeof quiet);
            if (r == FZ7_OK) {
                *header_end = a->file_size - start;
                free(tail);
                return FZ7_OK;
            }
            reset_db(a, db);
            /* A password or memory problem says more than "not found". */
            if (r == FZ7_E_NEED_PASSWORD || r == FZ7_E_PASSWORD || r == FZ7_E_MEMLIMIT || r == FZ7_E_MEM)
                best = r;
        }
        if (i == 0)
            break;
    }
    free(tail);
    if (st != FZ7_OK)
        return st;
    cursor ec = {NULL, 0, err, errlen, a->opts.mem_limit, start, NULL};
    if (best == FZ7_E_NEED_PASSWORD || best == FZ7_E_PASSWORD)
        return fail(&ec, best, "Cannot open encrypted archive. Wrong password?");
    return fail(&ec, best, "Headers Error: start header is empty and no header was found");
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Opens the archive whose signature header is at start. */
static fz7_status open_at(fz7_archive *a, uint64_t start, char *err, size_t errlen)
{
    uint8_t sh[SIGNATURE_HEADER_BYTES];
    cursor ec = {NULL, 0, err, errlen, a->opts.mem_limit, start, NULL};
    if (a->file_size - start < SIGNATURE_HEADER_BYTES)
        return fail(&ec, FZ7_E_TRUNCATED, "Unexpected end of archive");
    TRY(fz7_volumes_pread(a->vol, sh, sizeof sh, start));
    fz7_7z_db *db = calloc(1, sizeof *db);
    if (!db)
        return FZ7_E_MEM;
    a->priv = db;
    a->ops = &ops_7z;
    fz7_status st;
    uint64_t header_end;
    if (sh[6] == 0 && all_zero(sh + 8, SIGNATURE_HEADER_BYTES - 8) &&
        a->file_size - start > SIGNATURE_HEADER_BYTES) {
        /* 7-Zip opens these too and warns "Headers Error". */
        TRY(salvage_next_header(a, db, start, &header_end, err, errlen));
        a->info.headers_error = true;
        return fill_info(a, db, header_end);
    }
    uint64_t nh_offset, nh_size;
    uint32_t nh_crc;
    TRY(check_start_header(a, &ec, sh, start, &nh_offset, &nh_size, &nh_crc));
    if (nh_size > a->opts.mem_limit || nh_size > SIZE_MAX)
        return fail(&ec, FZ7_E_MEMLIMIT, "Header of %" PRIu64 " bytes exceeds the memory limit", nh_size);
    header_end = SIGNATURE_HEADER_BYTES + nh_offset + nh_size;
    if (nh_size == 0) {   /* an empty archive */
        if (nh_offset != 0 || nh_crc != 0)
            return fail(&ec, FZ7_E_FORMAT, "Headers Error: empty header");
        return fill_info(a, db, header_end);
    }
    st = read_next_header(a, db, start, start + SIGNATURE_HEADER_BYTES + nh_offset, (size_t)nh_size,
                          &nh_crc, err, errlen);
    if (st == FZ7_OK)
        st = fill_info(a, db, header_end);
    if (st != FZ7_OK && errlen && !err[0])
        snprintf(err, errlen, "Headers Error: %s", fz7_status_str(st));
    return st;
}

fz7_status fz7_7z_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t sig[sizeof signature];
    if (a->file_size < sizeof signature)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_volumes_pread(a->vol, sig, sizeof sig, 0);
    if (st != FZ7_OK || memcmp(sig, signature, sizeof signature) != 0) {
        if (st == FZ7_E_IO)
            snprintf(err, errlen, "Cannot read the file");
        return st == FZ7_E_IO ? st : FZ7_E_FORMAT;
    }
    return open_at(a, 0, err, errlen);
}

/* How far into a file a self-extractor's archive may start. */
#define SFX_SEARCH_BYTES ((uint64_t)1 << 24)
#define SFX_CHUNK_BYTES ((size_t)1 << 16)

fz7_status fz7_7z_sfx_open(fz7_archive *a, char *err, size_t errlen)
{
    /* Chunks overlap by a signature header, so a candidate that straddles
     * two chunks is seen whole in the second. */
    uint8_t *buf = malloc(SFX_CHUNK_BYTES + SIGNATURE_HEADER_BYTES);
    if (!buf)
        return FZ7_E_MEM;
    uint64_t limit = a->file_size < SFX_SEARCH_BYTES ? a->file_size : SFX_SEARCH_BYTES;
    fz7_status st = FZ7_E_FORMAT;
    uint64_t found = 0;
    bool have = false;
    for (uint64_t pos = 1; pos < limit && !have && st == FZ7_E_FORMAT; pos += SFX_CHUNK_BYTES) {
        uint64_t left = a->file_size - pos;
        size_t n = left < SFX_CHUNK_BYTES + SIGNATURE_HEADER_BYTES ? (size_t)left
                                                                 : SFX_CHUNK_BYTES + SIGNATURE_HEADER_BYTES;
        if (n < SIGNATURE_HEADER_BYTES)
            break;
        fz7_status rs = fz7_volumes_pread(a->vol, buf, n, pos);
        if (rs != FZ7_OK) {
            st = rs;
            break;
        }
        /* Candidates start in this chunk's first SFX_CHUNK_BYTES only. */
        size_t last = n - SIGNATURE_HEADER_BYTES;
        if (last >= SFX_CHUNK_BYTES)
            last = SFX_CHUNK_BYTES - 1;
        for (size_t i = 0; i <= last && !have; i++) {
            const uint8_t *p = memchr(buf + i, signature[0], last + 1 - i);
            if (!p)
                break;
            i = (size_t)(p - buf);
            if (memcmp(p, signature, sizeof signature) != 0)
                continue;
            char quiet[8];
            cursor qc = {NULL, 0, quiet, 0, a->opts.mem_limit, pos + i, NULL};
            uint64_t nh_offset, nh_size;
            uint32_t nh_crc;
            if (check_start_header(a, &qc, p, pos + i, &nh_offset, &nh_size, &nh_crc) == FZ7_OK) {
                found = pos + i;
                have = true;
            }
        }
    }
    free(buf);
    if (!have)
        return st == FZ7_E_FORMAT ? FZ7_E_FORMAT : st;
    a->info.offset = found;
    return open_at(a, found, err, errlen);
}
