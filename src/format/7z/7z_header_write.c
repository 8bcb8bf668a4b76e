/* 7z_header_write.c - the .7z Header as 7zFormat.txt lays it out:
 * MainStreamsInfo (PackInfo, UnPackInfo with each folder's coders and bind
 * pairs, SubStreamsInfo) and FilesInfo, and its LZMA-encoded (and, with a
 * password, encrypted) form behind a kEncodedHeader. */
#include "format/7z/7z_write_impl.h"

#include "check/check.h"
#include "lzma/lzma_presets.h"

#include <stdlib.h>
#include <string.h>

/* Where the encoder's out stream `out` stands among the Folder's in
 * streams: the coders' are numbered last coder first, each coder's in a
 * row. */
static unsigned folder_in_index(const folder_graph *g, unsigned out)
{
    unsigned first = 0, base = 0;
    for (unsigned k = 0; k < g->n; k++)
        base += g->c[k].n_out;
    for (unsigned k = 0; k < g->n; k++) {
        base -= g->c[k].n_out;
        if (out < first + g->c[k].n_out)
            return base + (out - first);
        first += g->c[k].n_out;
    }
    return 0;
}

void fz7_7z_graph_put(const folder_graph *g, bytebuf *folder, bytebuf *sizes)
{
    bb_number(folder, g->n);
    for (unsigned j = g->n; j-- > 0;) {
        const graph_coder *c = &g->c[j];
        /* The ID's bytes big endian, without leading zero bytes. */
        uint8_t id[4];
        uint8_t len = 0;
        for (int shift = 24; shift >= 0; shift -= 8)
            if (len || (c->id >> shift) & 0xFF || shift == 0)
                id[len++] = (uint8_t)(c->id >> shift);
        bb_byte(folder, (uint8_t)(len | (c->n_out != 1 ? 0x10 : 0) | (c->props_len ? 0x20 : 0)));
        bb_bytes(folder, id, len);
        if (c->n_out != 1) {   /* a complex coder: its in and out streams */
            bb_number(folder, c->n_out);
            bb_number(folder, 1);
        }
        if (c->props_len) {
            bb_number(folder, c->props_len);
            bb_bytes(folder, c->props, c->props_len);
        }
    }
    for (unsigned b = g->n_bonds; b-- > 0;) {
        bb_number(folder, folder_in_index(g, g->bond[b].out));   /* InIndex */
        bb_number(folder, g->n - 1 - g->bond[b].coder);          /* OutIndex */
    }
    if (g->n_packs > 1)
        for (unsigned p = 0; p < g->n_packs; p++)
            bb_number(folder, folder_in_index(g, g->pack[p]));
    for (unsigned j = g->n; j-- > 0;)
        bb_number(sizes, g->c[j].in);
}

static void put_unit(bytebuf *b, uint32_t u)
{
    uint8_t t[2] = {(uint8_t)u, (uint8_t)(u >> 8)};
    bb_bytes(b, t, 2);
}

unsigned fz7_7z_name_units(const uint8_t **pp, uint16_t u[4])
{
    const uint8_t *p = *pp;
    uint32_t c = *p;
    if (c == 0)
        return 0;
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
        u[0] = (uint16_t)(0xEF00 + *p);
        *pp = p + 1;
        return 1;
    }
    *pp = p + len;
    if (c >= 0xEF80 && c <= 0xEFFF) {   /* would read back as escapes */
        for (size_t i = 0; i < len; i++)
            u[i] = (uint16_t)(0xEF00 + p[i]);
        return (unsigned)len;
    }
    if (c >= 0x10000) {
        uint32_t v = c - 0x10000;
        u[0] = (uint16_t)(0xD800 + (v >> 10));
        u[1] = (uint16_t)(0xDC00 + (v & 0x3FF));
        return 2;
    }
    u[0] = (uint16_t)c;
    return 1;
}

/* Appends name as UTF-16LE (fz7_7z_name_units) with its terminating 0. */
static void put_utf16(bytebuf *b, const char *s)
{
    const uint8_t *p = (const uint8_t *)s;
    uint16_t u[4];
    for (unsigned n; (n = fz7_7z_name_units(&p, u)) > 0;)
        for (unsigned i = 0; i < n; i++)
            put_unit(b, u[i]);
    bb_byte(b, 0);
    bb_byte(b, 0);
}

static void put_main_streams(bytebuf *b, const fz7_7z_writer *w)
{
    bb_byte(b, K_PACK_INFO);
    bb_number(b, 0);   /* PackPos: right after the signature header */
    size_t n_pack = 0;
    for (size_t i = 0; i < w->n_folders; i++)
        n_pack += w->folders[i].raw_pack_sizes ? w->folders[i].raw_n_packs : 1;
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
    }
    bb_byte(b, K_END);

    bb_byte(b, K_UNPACK_INFO);
    bb_byte(b, K_FOLDER);
    bb_number(b, w->n_folders);
    bb_byte(b, 0);   /* not external */
    for (size_t i = 0; i < w->n_folders; i++)
        bb_bytes(b, w->folders[i].raw_folder, w->folders[i].raw_folder_len);
    bb_byte(b, K_CODERS_UNPACK_SIZE);
    for (size_t i = 0; i < w->n_folders; i++)
        bb_bytes(b, w->folders[i].raw_sizes, w->folders[i].raw_sizes_len);
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

static int cmp_empty_entry(const void *x, const void *y)
{
    const entry_rec *a = *(const entry_rec *const *)x, *b = *(const entry_rec *const *)y;
    if (a->is_anti != b->is_anti)
        return a->is_anti ? 1 : -1;
    if (a->is_dir != b->is_dir) /* folders first; anti-folders last */
        return a->is_dir != a->is_anti ? -1 : 1;
    int c = fz7_path_cmp(a->name, b->name);
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
    /* One folder: LZMA [-> 7zAES]. */
    folder_graph g = {.n = 1, .n_packs = 1};
    g.c[0] = (graph_coder){.id = 0x030101, .n_out = 1, .props_len = 5, .in = header->m.n};
    fz7_7zaes_writer *aes = NULL;
    fz7_ostream *dst = &ms.os;
    if (key) {
        st = fz7_7zaes_writer_new(key, &ms.os, &aes);
        if (st != FZ7_OK)
            return st;
        g.c[1] = (graph_coder){.id = 0x06F10701, .n_out = 1};
        g.c[1].props_len = (uint8_t)fz7_7zaes_writer_props(aes, g.c[1].props);
        g.n = 2;
        g.bond[g.n_bonds++].coder = 1;   /* LZMA's output to 7zAES */
        g.pack[0] = 1;
        dst = fz7_7zaes_writer_stream(aes);
    }
    fz7_lzma_enc *enc = NULL;
    st = fz7_lzma_enc_new(&lo, dst, &enc);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_write(enc, header->m.p, header->m.n);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(enc);
    if (enc) {
        fz7_lzma_enc_props(enc, g.c[0].props);
        g.c[1].in = fz7_lzma_enc_bytes_out(enc);
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
    bytebuf sizes = {0};
    fz7_7z_graph_put(&g, &b, &sizes);
    bb_byte(&b, K_CODERS_UNPACK_SIZE);
    bb_bytes(&b, sizes.m.p, sizes.m.n);
    b.failed |= sizes.failed;
    free(sizes.m.p);
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
