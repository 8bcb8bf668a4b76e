/* 7z_header_write.c - the .7z Header as 7zFormat.txt lays it out:
 * MainStreamsInfo (PackInfo, UnPackInfo with each folder's coders and bind
 * pairs, SubStreamsInfo) and FilesInfo, and its LZMA-encoded (and, with a
 * password, encrypted) form behind a kEncodedHeader. */
#include "format/7z/7z_write_impl.h"

#include "check/check.h"
#include "lzma/lzma_presets.h"

#include <stdlib.h>
#include <string.h>

static void put_coder(bytebuf *b, const uint8_t *id, size_t id_len, const uint8_t *props,
                      size_t props_len)
{
    uint8_t flags = (uint8_t)id_len;
    if (props_len)
        flags |= 0x20;
    bb_byte(b, flags);
    bb_bytes(b, id, id_len);
    if (props_len) {
        bb_number(b, props_len);
        bb_bytes(b, props, props_len);
    }
}

static void put_method(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_copy[] = {0x00};
    static const uint8_t id_lzma[] = {0x03, 0x01, 0x01};
    static const uint8_t id_lzma2[] = {0x21};
    static const uint8_t id_bzip2[] = {0x04, 0x02, 0x02};
    static const uint8_t id_ppmd[] = {0x03, 0x04, 0x01};
    static const uint8_t id_deflate[] = {0x04, 0x01, 0x08};
    static const uint8_t id_deflate64[] = {0x04, 0x01, 0x09};
    switch (f->method) {
    case FZ7_7Z_COPY: put_coder(b, id_copy, sizeof id_copy, NULL, 0); break;
    case FZ7_7Z_LZMA: put_coder(b, id_lzma, sizeof id_lzma, f->props, f->props_len); break;
    case FZ7_7Z_LZMA2: put_coder(b, id_lzma2, sizeof id_lzma2, f->props, f->props_len); break;
    case FZ7_7Z_BZIP2: put_coder(b, id_bzip2, sizeof id_bzip2, NULL, 0); break;
    case FZ7_7Z_PPMD: put_coder(b, id_ppmd, sizeof id_ppmd, f->props, f->props_len); break;
    case FZ7_7Z_DEFLATE: put_coder(b, id_deflate, sizeof id_deflate, NULL, 0); break;
    case FZ7_7Z_DEFLATE64: put_coder(b, id_deflate64, sizeof id_deflate64, NULL, 0); break;
    case FZ7_7Z_NONE: break;
    }
}

/* The 7zAES coders of a BCJ2 folder whose side streams are raw, in
 * 7zz's order: rc's, jump's, call's, then the main stream's. */
static void put_raw_bcj2_aes(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_aes[] = {0x06, 0xF1, 0x07, 0x01};
    static const int side_of_coder[3] = {2, 1, 0};   /* rc, jump, call */
    for (int k = 0; k < 3; k++)
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[side_of_coder[k]], f->side_aes_props_len[side_of_coder[k]]);
    put_coder(b, id_aes, sizeof id_aes, f->aes_props, f->aes_props_len);
}

/* A BCJ2 folder as 7zz 26 writes it. Coders: [7zAES for jump, call, rc,
 * main,] LZMA (jump), LZMA (call), the method (main), BCJ2 (4 in streams:
 * main, call, jump, rc). Bind pairs join each coder's output to the input
 * the next stage reads; pack streams main, rc, call, jump. */
static void put_folder_bcj2(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_lzma[] = {0x03, 0x01, 0x01};
    static const uint8_t id_aes[] = {0x06, 0xF1, 0x07, 0x01};
    static const uint8_t id_bcj2[] = {0x03, 0x03, 0x01, 0x1B};
    /* {InIndex, OutIndex} pairs, then the pack streams' InIndex. */
    static const uint8_t plain_binds[][2] = {{5, 0}, {4, 1}, {3, 2}};
    static const uint8_t plain_packed[] = {2, 6, 1, 0};
    static const uint8_t aes_binds[][2] = {{4, 0}, {5, 1}, {10, 2}, {6, 3}, {9, 4}, {8, 5}, {7, 6}};
    static const uint8_t aes_packed[] = {3, 2, 1, 0};
    if (f->method == FZ7_7Z_NONE || f->filter_first) {
        /* BCJ2's four streams raw (BCJ2 alone, or over the method's output
         * when the chain names it after the method), as 7zz writes them:
         * with a password a 7zAES each for rc, jump, call and main, in
         * front of BCJ2; then the method, reading BCJ2's output. Pack
         * streams main, call, jump, rc. */
        bool method = f->method != FZ7_7Z_NONE;
        unsigned bcj2_in = f->aes ? 4 : 0;
        bb_number(b, (f->aes ? 4 : 0) + 1 + method);
        if (f->aes)
            put_raw_bcj2_aes(b, f);
        bb_byte(b, 0x10 | sizeof id_bcj2);
        bb_bytes(b, id_bcj2, sizeof id_bcj2);
        bb_number(b, 4);
        bb_number(b, 1);
        if (method)
            put_method(b, f);
        for (unsigned k = 0; f->aes && k < 4; k++) {
            bb_number(b, 7 - k);   /* BCJ2's input 3 - k (InIndex) */
            bb_number(b, k);       /* from 7zAES k (OutIndex) */
        }
        if (method) {
            bb_number(b, bcj2_in + 4);   /* the method's input */
            bb_number(b, bcj2_in);       /* from BCJ2's output */
        }
        for (unsigned k = 0; k < 4; k++)
            bb_number(b, f->aes ? 3 - k : k);
        return;
    }
    if (f->bcj2_raw_sides) {
        /* The method on the main stream alone, call, jump and rc raw, as
         * 7zz writes -m0=BCJ2 -m1=LZMA2: [a 7zAES each for rc, jump,
         * call and main,] the method, BCJ2. Pack streams main, call, jump,
         * rc. */
        unsigned base = f->aes ? 4 : 0;   /* the method's InIndex and OutIndex */
        bb_number(b, base + 2);
        if (f->aes)
            put_raw_bcj2_aes(b, f);
        put_method(b, f);
        bb_byte(b, 0x10 | sizeof id_bcj2);
        bb_bytes(b, id_bcj2, sizeof id_bcj2);
        bb_number(b, 4);
        bb_number(b, 1);
        for (unsigned k = 0; f->aes && k < 3; k++) {
            bb_number(b, base + 4 - k);   /* BCJ2's rc, jump, call input */
            bb_number(b, k);              /* from 7zAES k */
        }
        if (f->aes) {
            bb_number(b, base);   /* the method's input */
            bb_number(b, 3);      /* from the main stream's 7zAES */
        }
        bb_number(b, base + 1);   /* BCJ2's main input */
        bb_number(b, base);       /* from the method */
        if (f->aes) {
            for (unsigned k = 0; k < 4; k++)
                bb_number(b, 3 - k);
        } else {
            static const uint8_t packed[] = {0, 2, 3, 4};
            for (unsigned k = 0; k < 4; k++)
                bb_number(b, packed[k]);
        }
        return;
    }
    bb_number(b, f->aes ? 8 : 4);
    if (f->aes) {
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[1], f->side_aes_props_len[1]);
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[0], f->side_aes_props_len[0]);
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[2], f->side_aes_props_len[2]);
        put_coder(b, id_aes, sizeof id_aes, f->aes_props, f->aes_props_len);
    }
    put_coder(b, id_lzma, sizeof id_lzma, f->side_props[1], 5);
    put_coder(b, id_lzma, sizeof id_lzma, f->side_props[0], 5);
    put_method(b, f);
    bb_byte(b, 0x10 | sizeof id_bcj2);   /* complex coder, no properties */
    bb_bytes(b, id_bcj2, sizeof id_bcj2);
    bb_number(b, 4);
    bb_number(b, 1);
    const uint8_t(*binds)[2] = f->aes ? aes_binds : plain_binds;
    size_t n_binds = f->aes ? 7 : 3;
    for (size_t i = 0; i < n_binds; i++) {
        bb_number(b, binds[i][0]);
        bb_number(b, binds[i][1]);
    }
    for (size_t i = 0; i < 4; i++)
        bb_number(b, (f->aes ? aes_packed : plain_packed)[i]);
}

/* One folder's coder list (7zFormat.txt, Folder), laid out as 7-Zip does:
 * from the pack side to the output side, [7zAES,] method[, BCJ | Delta]; coder
 * k's output (out stream k) feeds coder k + 1's input (in stream k + 1),
 * so the first coder reads the pack stream and the last one's output is
 * the folder's. */
static void put_folder(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_bcj[] = {0x03, 0x03, 0x01, 0x03};
    static const uint8_t id_aes[] = {0x06, 0xF1, 0x07, 0x01};
    static const uint8_t id_delta[] = {0x03};
    if (f->raw_folder) {
        bb_bytes(b, f->raw_folder, f->raw_folder_len);
        return;
    }
    if (f->bcj2) {
        put_folder_bcj2(b, f);
        return;
    }
    unsigned n = (f->method != FZ7_7Z_NONE) + f->bcj + f->has_delta + (f->branch_id != 0) + f->aes;
    bb_number(b, n);
    if (f->aes)
        put_coder(b, id_aes, sizeof id_aes, f->aes_props, f->aes_props_len);
    /* A filter named after the method (filter_first) runs over the
     * method's output: its coder reads the pack stream side. */
    if (!f->filter_first)
        put_method(b, f);
    if (f->bcj)
        put_coder(b, id_bcj, sizeof id_bcj, NULL, 0);
    if (f->has_delta)
        put_coder(b, id_delta, sizeof id_delta, &f->delta, 1);
    if (f->branch_id) {
        /* The ID's bytes big endian, without leading zero bytes. */
        uint8_t id[4];
        size_t len = 0;
        for (int shift = 24; shift >= 0; shift -= 8)
            if (len || (f->branch_id >> shift) & 0xFF || shift == 0)
                id[len++] = (uint8_t)(f->branch_id >> shift);
        put_coder(b, id, len, NULL, 0);
    }
    if (f->filter_first)
        put_method(b, f);
    for (unsigned k = 0; k + 1 < n; k++) {
        bb_number(b, k + 1);   /* InIndex */
        bb_number(b, k);       /* OutIndex */
    }
}

/* The folder's unpack sizes, one per coder output in coder order. */
static void put_unpack_sizes(bytebuf *b, const folder_rec *f)
{
    if (f->raw_sizes) {
        bb_bytes(b, f->raw_sizes, f->raw_sizes_len);
        return;
    }
    if (f->bcj2 && (f->method == FZ7_7Z_NONE || f->filter_first)) {
        if (f->aes) {   /* the 7zAES coders' outputs: rc, jump, call, main */
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_RC]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_JUMP]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_CALL]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_MAIN]);
        }
        if (f->filter_first)
            bb_number(b, f->method_out);   /* BCJ2's output, the method's input */
        bb_number(b, f->unpack_size);
        return;
    }
    if (f->bcj2 && f->bcj2_raw_sides) {
        if (f->aes) {   /* the 7zAES coders' outputs: rc, jump, call, the method's stream */
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_RC]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_JUMP]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_CALL]);
            bb_number(b, f->method_out);
        }
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_MAIN]);
        bb_number(b, f->unpack_size);
        return;
    }
    if (f->bcj2) {
        if (f->aes) {
            bb_number(b, f->side_method_out[1]);
            bb_number(b, f->side_method_out[0]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_RC]);
            bb_number(b, f->method_out);
        }
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_JUMP]);
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_CALL]);
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_MAIN]);
        bb_number(b, f->unpack_size);
        return;
    }
    /* Filters do not change the size: one before the method's coder sees
     * the method's output, one after it the folder's bytes. */
    bool filter = f->bcj || f->has_delta || f->branch_id;
    if (f->aes)
        bb_number(b, f->method_out);
    if (filter && f->filter_first)
        bb_number(b, f->method_out);
    if (f->method != FZ7_7Z_NONE)
        bb_number(b, f->unpack_size);
    if (filter && !f->filter_first)
        bb_number(b, f->unpack_size);
}

static void put_unit(bytebuf *b, uint32_t u)
{
    uint8_t t[2] = {(uint8_t)u, (uint8_t)(u >> 8)};
    bb_bytes(b, t, 2);
}

/* Appends name as UTF-16LE with its terminating 0. Names are bytes on
 * Linux: a byte that does not start valid UTF-8 (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF) is written as U+EF00
 * plus the byte, the escape 7-Zip uses, and so are each of the bytes of a
 * character in U+EF80..U+EFFF, so that reading the name back (7z_read.c)
 * gives the same bytes. */
static void put_utf16(bytebuf *b, const char *s)
{
    const uint8_t *p = (const uint8_t *)s;
    while (*p) {
        uint32_t c = *p;
        size_t len = 1;
        if (c >= 0xF0 && c < 0xF5)
            len = 4, c &= 0x07;
        else if (c >= 0xE0)
            len = c < 0xF0 ? 3 : 0, c &= 0x0F;
        else if (c >= 0xC2)
            len = 2, c &= 0x1F;
        else if (c >= 0x80)
            len = 0;
        for (size_t i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                len = 0;
                break;
            }
            c = (c << 6) | (p[i] & 0x3F);
        }
        if (len == 0 || (len == 3 && (c < 0x800 || (c >= 0xD800 && c < 0xE000))) ||
            (len == 4 && (c < 0x10000 || c > 0x10FFFF))) {
            put_unit(b, 0xEF00 + *p++);
            continue;
        }
        if (c >= 0xEF80 && c <= 0xEFFF) {   /* would read back as escapes */
            for (size_t i = 0; i < len; i++)
                put_unit(b, 0xEF00 + *p++);
            continue;
        }
        p += len;
        if (c >= 0x10000) {
            uint32_t v = c - 0x10000;
            put_unit(b, 0xD800 + (v >> 10));
            put_unit(b, 0xDC00 + (v & 0x3FF));
        } else {
            put_unit(b, c);
        }
    }
    bb_byte(b, 0);
    bb_byte(b, 0);
}

static void put_main_streams(bytebuf *b, const fz7_7z_writer *w)
{
    bb_byte(b, K_PACK_INFO);
    bb_number(b, 0);   /* PackPos: right after the signature header */
    size_t n_pack = 0;
    for (size_t i = 0; i < w->n_folders; i++)
        n_pack += w->folders[i].bcj2 ? 4 : w->folders[i].raw_pack_sizes ? w->folders[i].raw_n_packs : 1;
    bb_number(b, n_pack);
    bb_byte(b, K_SIZE);
    for (size_t i = 0; i < w->n_folders; i++) {
        const folder_rec *f = &w->folders[i];
        if (f->raw_pack_sizes) {
            for (size_t k = 0; k < f->raw_n_packs; k++)
                bb_number(b, f->raw_pack_sizes[k]);
            continue;
        }
        bb_number(b, f->pack_size);
        if (f->bcj2)
            for (int k = 0; k < 3; k++)
                bb_number(b, f->side_pack[bcj2_side_order(f, k)]);
    }
    bb_byte(b, K_END);

    bb_byte(b, K_UNPACK_INFO);
    bb_byte(b, K_FOLDER);
    bb_number(b, w->n_folders);
    bb_byte(b, 0);   /* not external */
    for (size_t i = 0; i < w->n_folders; i++)
        put_folder(b, &w->folders[i]);
    bb_byte(b, K_CODERS_UNPACK_SIZE);
    for (size_t i = 0; i < w->n_folders; i++)
        put_unpack_sizes(b, &w->folders[i]);
    bb_byte(b, K_END);

    bb_byte(b, K_SUBSTREAMS_INFO);
    bool all_one = true;
    for (size_t i = 0; i < w->n_folders; i++)
        all_one &= w->folders[i].num_substreams == 1;
    if (!all_one) {
        bb_byte(b, K_NUM_UNPACK_STREAM);
        for (size_t i = 0; i < w->n_folders; i++)
            bb_number(b, w->folders[i].num_substreams);
        /* Sizes of every substream but each folder's last. */
        bb_byte(b, K_SIZE);
        size_t e = 0;
        for (size_t i = 0; i < w->n_folders; i++) {
            for (size_t k = 0; k < w->folders[i].num_substreams; k++) {
                while (!w->entries[e].has_stream)
                    e++;
                if (k + 1 < w->folders[i].num_substreams)
                    bb_number(b, w->entries[e].size);
                e++;
            }
        }
    }
    bb_byte(b, K_CRC);
    bb_byte(b, 1);   /* all defined */
    for (size_t e = 0; e < w->n_entries; e++)
        if (w->entries[e].has_stream)
            bb_u32(b, w->entries[e].crc);
    bb_byte(b, K_END);
    bb_byte(b, K_END);
}

/* Bytes bb_number writes for v. */
static size_t number_size(uint64_t v)
{
    size_t n = 1;
    while (n < 9 && v >= ((uint64_t)1 << (7 * n)))
        n++;
    return n;
}

/* 7-Zip aligns the values of some FilesInfo properties to their width
 * from the header's first byte (names to 16 bytes), so that a reader may
 * use them in place: when the property's head (head bytes: id, size,
 * defined flags, external byte) would leave them off, a kDummy property of
 * at least two bytes goes before it. */
static void put_align(bytebuf *b, size_t head, size_t align)
{
    size_t gap = (align - (b->m.n + head) % align) % align;
    if (!gap)
        return;
    if (gap < 2)
        gap += align;
    bb_byte(b, K_DUMMY);
    bb_number(b, gap - 2);
    for (size_t i = 2; i < gap; i++)
        bb_byte(b, 0);
}

/* Starts a FilesInfo vector property of width-byte values (id, size,
 * defined bits, external byte 0), aligned as 7-Zip aligns it. defined: n
 * flags, NULL = all defined. */
static void put_vector_head(bytebuf *b, uint8_t id, size_t n, const bool *defined,
                            size_t n_defined, size_t width)
{
    size_t bits = defined ? (n + 7) / 8 : 0;
    uint64_t size = 1 + bits + 1 + (uint64_t)width * n_defined;
    put_align(b, 1 + number_size(size) + 1 + bits + 1, width);
    bb_byte(b, id);
    bb_number(b, size);
    bb_byte(b, defined == NULL);
    if (defined)
        bb_bits(b, defined, n);
    bb_byte(b, 0);   /* not external */
}

/* 7-Zip's order of the path compare: byte by byte, '/' before every other
 * byte, so a folder's entries follow it directly. */
static int cmp_path(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = *a == '/' ? 1 : (unsigned char)*a, cb = *b == '/' ? 1 : (unsigned char)*b;
        if (ca != cb || ca == 0)
            return ca - cb;
    }
}

static int cmp_empty_entry(const void *x, const void *y)
{
    const entry_rec *a = *(const entry_rec *const *)x, *b = *(const entry_rec *const *)y;
    if (a->is_anti != b->is_anti)
        return a->is_anti ? 1 : -1;
    if (a->is_dir != b->is_dir) /* folders first; anti-folders last */
        return a->is_dir != a->is_anti ? -1 : 1;
    int c = cmp_path(a->name, b->name);
    if (a->is_anti && a->is_dir) /* deepest first: a folder is removed once empty */
        c = -c;
    return c ? c : a < b ? -1 : a > b;   /* the same name: the order added */
}

/* The entries in the order FilesInfo lists them: as added, or with
 * order_7zip as 7-Zip writes them, those without data first (folders,
 * then files, each by path), then those with data in the order of their
 * substreams. NULL: no memory. */
static const entry_rec **files_order(const fz7_7z_writer *w)
{
    size_t n = w->n_entries, k = 0;
    const entry_rec **ent = malloc((n ? n : 1) * sizeof *ent);
    if (!ent)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!w->order_7zip || !w->entries[i].has_stream)
            ent[k++] = &w->entries[i];
    if (!w->order_7zip)
        return ent;
    qsort(ent, k, sizeof *ent, cmp_empty_entry);
    for (size_t i = 0; i < n; i++)
        if (w->entries[i].has_stream)
            ent[k++] = &w->entries[i];
    return ent;
}

/* A property that is a bit vector: its id, its size in bytes, the bits. */
static void put_bits_property(bytebuf *b, uint8_t id, const bool *bits, size_t n)
{
    bb_byte(b, id);
    bb_number(b, (n + 7) / 8);
    bb_bits(b, bits, n);
}

static void put_files_info(bytebuf *b, const fz7_7z_writer *w)
{
    size_t n = w->n_entries;
    const entry_rec **ent = files_order(w);
    if (!ent) {
        b->failed = true;
        return;
    }
    bb_byte(b, K_FILES_INFO);
    bb_number(b, n);

    size_t n_empty = 0;
    bool any_empty_file = false, any_anti = false;
    for (size_t i = 0; i < n; i++) {
        if (!ent[i]->has_stream) {
            n_empty++;
            any_empty_file |= !ent[i]->is_dir;
            any_anti |= ent[i]->is_anti;
        }
    }
    bool *bits = malloc((n ? n : 1) * sizeof *bits);
    if (!bits) {
        free(ent);
        b->failed = true;
        return;
    }
    if (n_empty) {
        for (size_t i = 0; i < n; i++)
            bits[i] = !ent[i]->has_stream;
        put_bits_property(b, K_EMPTY_STREAM, bits, n);
        if (any_empty_file) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!ent[i]->has_stream)
                    bits[k++] = !ent[i]->is_dir;
            put_bits_property(b, K_EMPTY_FILE, bits, n_empty);
        }
        if (any_anti) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!ent[i]->has_stream)
                    bits[k++] = ent[i]->is_anti;
            put_bits_property(b, K_ANTI, bits, n_empty);
        }
    }

    bytebuf names = {0};
    bb_byte(&names, 0);   /* not external */
    for (size_t i = 0; i < n; i++)
        put_utf16(&names, ent[i]->name);
    if (names.failed)
        b->failed = true;
    put_align(b, 2 + number_size(names.m.n), 16);   /* id, size, external byte */
    bb_byte(b, K_NAME);
    bb_number(b, names.m.n);
    bb_bytes(b, names.m.p, names.m.n);
    free(names.m.p);

    /* 7-Zip's order: kCTime, kATime, kMTime. */
    static const uint8_t time_id[3] = {K_CTIME, K_ATIME, K_MTIME};
    for (int k = 0; k < 3; k++) {
        size_t n_time = 0;
        for (size_t i = 0; i < n; i++)
            n_time += ent[i]->has_time[k];
        if (!n_time)
            continue;
        for (size_t i = 0; i < n; i++)
            bits[i] = ent[i]->has_time[k];
        put_vector_head(b, time_id[k], n, n_time == n ? NULL : bits, n_time, 8);
        for (size_t i = 0; i < n; i++)
            if (ent[i]->has_time[k])
                bb_u64(b, ent[i]->time[k]);
    }

    size_t n_attrib = 0;
    for (size_t i = 0; i < n; i++)
        n_attrib += bits[i] = ent[i]->has_attrib;
    if (n_attrib)
        put_vector_head(b, K_WIN_ATTRIBUTES, n, n_attrib == n ? NULL : bits, n_attrib, 4);
    for (size_t i = 0; i < n; i++)
        if (ent[i]->has_attrib)
            bb_u32(b, ent[i]->attrib);

    bb_byte(b, K_END);
    free(bits);
    free(ent);
}

fz7_status fz7_7z_header_build(const fz7_7z_writer *w, bytebuf *b)
{
    bb_byte(b, K_HEADER);
    if (w->n_folders)
        bb_byte(b, K_MAIN_STREAMS_INFO), put_main_streams(b, w);
    if (w->n_entries)
        put_files_info(b, w);
    bb_byte(b, K_END);
    return b->failed ? FZ7_E_MEM : FZ7_OK;
}

fz7_status fz7_7z_header_encode(fz7_7z_writer *w, bytebuf *header, const fz7_7zaes_key *key)
{
    fz7_lzma_enc_opts lo;
    fz7_lzma_header_preset(&lo, header->m.n);
    fz7_status st = FZ7_OK;
    bytebuf packed = {0};
    mem_sink ms = {{mem_write}, &packed};
    folder_rec f = {0};
    f.method = FZ7_7Z_LZMA;
    f.props_len = 5;
    f.unpack_size = header->m.n;
    fz7_7zaes_writer *aes = NULL;
    fz7_ostream *dst = &ms.os;
    if (key) {
        st = fz7_7zaes_writer_new(key, &ms.os, &aes);
        if (st != FZ7_OK)
            return st;
        f.aes = true;
        f.aes_props_len = fz7_7zaes_writer_props(aes, f.aes_props);
        dst = fz7_7zaes_writer_stream(aes);
    }
    fz7_lzma_enc *enc = NULL;
    st = fz7_lzma_enc_new(&lo, dst, &enc);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_write(enc, header->m.p, header->m.n);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(enc);
    if (enc) {
        fz7_lzma_enc_props(enc, f.props);
        f.method_out = fz7_lzma_enc_bytes_out(enc);
    }
    if (st == FZ7_OK && aes)
        st = fz7_7zaes_writer_finish(aes, NULL);
    fz7_lzma_enc_free(enc);
    fz7_7zaes_writer_free(aes);
    if (st != FZ7_OK) {
        free(packed.m.p);
        return st;
    }
    uint64_t pack_pos = w->out.pos - SIGNATURE_HEADER_SIZE;
    st = fz7_fd_ostream_write(&w->out.os, packed.m.p, packed.m.n);
    free(packed.m.p);
    if (st != FZ7_OK)
        return st;

    bytebuf b = {0};
    bb_byte(&b, K_ENCODED_HEADER);
    bb_byte(&b, K_PACK_INFO);
    bb_number(&b, pack_pos);
    bb_number(&b, 1);
    bb_byte(&b, K_SIZE);
    bb_number(&b, packed.m.n);
    bb_byte(&b, K_END);
    bb_byte(&b, K_UNPACK_INFO);
    bb_byte(&b, K_FOLDER);
    bb_number(&b, 1);
    bb_byte(&b, 0);
    put_folder(&b, &f);
    bb_byte(&b, K_CODERS_UNPACK_SIZE);
    put_unpack_sizes(&b, &f);
    bb_byte(&b, K_CRC);
    bb_byte(&b, 1);
    bb_u32(&b, fz7_crc32(0, header->m.p, header->m.n));
    bb_byte(&b, K_END);
    bb_byte(&b, K_END);
    if (b.failed) {
        free(b.m.p);
        return FZ7_E_MEM;
    }
    free(header->m.p);
    *header = b;
    return FZ7_OK;
}
