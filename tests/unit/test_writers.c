/* test_writers.c - the .7z and .xz writers through their API, read back with
 * fz7's own readers (entries, sizes, CRCs, attributes, times, bytes), the
 * exact bytes of an empty .xz as xz writes it, block headers with sizes,
 * 7-Zip's solid-block rules, and the input naming/wildcard rules. */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"
#include "format/xz/xz_write.h"
#include "format/zip_write.h"
#include "fsio/read_tree.h"
#include "lzma/lzma_presets.h"

static char *tmp_path(const char *suffix)
{
    static int n;
    char *p = malloc(256);
    snprintf(p, 256, "/tmp/fz7_test_writers_%d_%d%s", (int)getpid(), n++, suffix);
    return p;
}

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return b;
}

/* ---- extraction into memory --------------------------------------------- */

typedef struct got {
    uint8_t data[4][70000];
    size_t len[4];
    size_t cur;
    int errors;
} got;

static fz7_status g_begin(void *ctx, size_t index, const fz7_entry *e)
{
    (void)e;
    got *g = ctx;
    g->cur = index;
    return FZ7_OK;
}

static fz7_status g_data(void *ctx, const uint8_t *p, size_t n)
{
    got *g = ctx;
    if (g->cur < 4) {
        assert_true(g->len[g->cur] + n <= sizeof g->data[0]);
        memcpy(g->data[g->cur] + g->len[g->cur], p, n);
        g->len[g->cur] += n;
    }
    return FZ7_OK;
}

static fz7_status g_end(void *ctx, size_t index, fz7_status r, const char *d)
{
    (void)index;
    (void)d;
    got *g = ctx;
    if (r != FZ7_OK)
        g->errors++;
    return FZ7_OK;
}

/* ---- .7z ------------------------------------------------------------------ */

static void fill_text(uint8_t *b, size_t n, unsigned seed)
{
    static const char *w[] = {"folder ", "coder ", "stream ", "match ", "literal "};
    size_t o = 0;
    while (o < n) {
        seed = seed * 1103515245u + 12345u;
        const char *s = w[(seed >> 16) % 5];
        for (size_t i = 0; s[i] && o < n; i++)
            b[o++] = (uint8_t)s[i];
    }
}

/* Writes: dir "d", empty file "d/e", then files "d/a" and "d/b" in one
 * folder with method m (BCJ as asked), header compressed or not. */
static void write_sample_7z(const char *path, fz7_7z_method m, bool bcj, bool hc,
                            const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    FILE *f = fopen(path, "w+b");
    assert_non_null(f);
    int fd = fileno(f);
    fz7_7z_writer *w;
    assert_int_equal(fz7_7z_writer_new(fd, &w), FZ7_OK);
    fz7_7z_entry_meta dm = {.name = "d", .attrib = fz7_7z_attrib_from_mode(S_IFDIR | 0750),
                            .is_dir = true, .has_mtime = true, .mtime = 1600000000,
                            .mtime_nsec = 0};
    fz7_7z_entry_meta em = {.name = "d/e", .attrib = fz7_7z_attrib_from_mode(S_IFREG | 0444),
                            .is_dir = false, .has_mtime = true, .mtime = 1600000001,
                            .mtime_nsec = 500};
    assert_int_equal(fz7_7z_writer_add_empty(w, &dm), FZ7_OK);
    assert_int_equal(fz7_7z_writer_add_empty(w, &em), FZ7_OK);
    fz7_7z_folder_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.method = m;
    fo.bcj_x86 = bcj;
    if (m != FZ7_7Z_COPY)
        assert_int_equal(fz7_lzma_enc_preset(&fo.lzma, 5), FZ7_OK);
    fo.size_hint = na + nb;
    if (m != FZ7_7Z_COPY)
        fz7_lzma_enc_reduce_dict(&fo.lzma, fo.size_hint);
    assert_int_equal(fz7_7z_writer_begin_folder(w, &fo), FZ7_OK);
    fz7_7z_entry_meta am = {.name = "d/a", .attrib = fz7_7z_attrib_from_mode(S_IFREG | 0644),
                            .is_dir = false, .has_mtime = true, .mtime = 1600000002,
                            .mtime_nsec = 0};
    fz7_7z_entry_meta bm = {.name = "d/\xc3\xbc\xe2\x98\x83",
                            .attrib = fz7_7z_attrib_from_mode(S_IFREG | 0755), .is_dir = false,
                            .has_mtime = true, .mtime = 1600000003, .mtime_nsec = 0};
    assert_int_equal(fz7_7z_writer_begin_file(w, &am), FZ7_OK);
    /* In uneven pieces, to cross the writer's buffers. */
    for (size_t o = 0; o < na;) {
        size_t k = na - o < 777 ? na - o : 777;
        assert_int_equal(fz7_7z_writer_write(w, a + o, k), FZ7_OK);
        o += k;
    }
    assert_int_equal(fz7_7z_writer_end_file(w), FZ7_OK);
    assert_int_equal(fz7_7z_writer_begin_file(w, &bm), FZ7_OK);
    assert_int_equal(fz7_7z_writer_write(w, b, nb), FZ7_OK);
    assert_int_equal(fz7_7z_writer_end_file(w), FZ7_OK);
    assert_int_equal(fz7_7z_writer_end_folder(w), FZ7_OK);
    fz7_7z_header_opts ho = {hc, NULL};
    assert_int_equal(fz7_7z_writer_finish(w, &ho), FZ7_OK);
    fflush(f);
    struct stat sb;
    fstat(fd, &sb);
    assert_int_equal((uint64_t)sb.st_size, fz7_7z_writer_size(w));
    fz7_7z_writer_free(w);
    fclose(f);
}

static void check_sample_7z(const char *path, const uint8_t *a, size_t na, const uint8_t *b,
                            size_t nb, bool hc)
{
    size_t n;
    uint8_t *raw = read_all(path, &n);
    /* Signature header: signature, version 0.4, start header CRC. */
    static const uint8_t sig[8] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4};
    assert_memory_equal(raw, sig, 8);
    assert_int_equal(fz7_get32le(raw + 8), fz7_crc32(0, raw + 12, 20));
    uint64_t off = fz7_get64le(raw + 12), len = fz7_get64le(raw + 20);
    assert_true(32 + off + len == n);
    assert_int_equal(fz7_get32le(raw + 28), fz7_crc32(0, raw + 32 + off, (size_t)len));
    assert_int_equal(raw[32 + off], hc ? 0x17 : 0x01);   /* kEncodedHeader / kHeader */
    free(raw);

    fz7_archive *arc;
    char err[200];
    assert_int_equal(fz7_archive_open(path, NULL, &arc, err, sizeof err), FZ7_OK);
    assert_int_equal(fz7_archive_count(arc), 4);
    const fz7_entry *e0 = fz7_archive_entry(arc, 0), *e1 = fz7_archive_entry(arc, 1);
    const fz7_entry *e2 = fz7_archive_entry(arc, 2), *e3 = fz7_archive_entry(arc, 3);
    assert_string_equal(e0->path, "d");
    assert_true(e0->is_dir);
    assert_int_equal(e0->attrib, 0x8000u | 0x10u | ((uint32_t)(S_IFDIR | 0750) << 16));
    assert_int_equal(e0->mtime, 1600000000);
    assert_string_equal(e1->path, "d/e");
    assert_false(e1->is_dir);
    assert_false(e1->has_stream);
    assert_int_equal(e1->size, 0);
    assert_int_equal(e1->attrib, 0x8000u | 0x20u | 0x1u | ((uint32_t)(S_IFREG | 0444) << 16));
    assert_int_equal(e1->mtime, 1600000001);
    assert_string_equal(e2->path, "d/a");
    assert_int_equal(e2->size, na);
    assert_int_equal(e2->crc, fz7_crc32(0, a, na));
    assert_int_equal(e2->mtime, 1600000002);
    assert_string_equal(e3->path, "d/\xc3\xbc\xe2\x98\x83");
    assert_int_equal(e3->size, nb);
    assert_int_equal(e3->crc, fz7_crc32(0, b, nb));
    assert_int_equal(e3->mode & 0777, 0755);
    assert_int_equal(e2->folder, e3->folder);

    got *g = calloc(1, sizeof *g);
    fz7_extract_cb cb = {g, g_begin, g_data, g_end, NULL};
    assert_int_equal(fz7_archive_extract(arc, NULL, &cb, err, sizeof err), FZ7_OK);
    assert_int_equal(g->errors, 0);
    assert_int_equal(g->len[2], na);
    assert_memory_equal(g->data[2], a, na);
    assert_int_equal(g->len[3], nb);
    assert_memory_equal(g->data[3], b, nb);
    free(g);
    fz7_archive_close(arc);
}

static void run_7z_case(fz7_7z_method m, bool bcj, bool hc)
{
    size_t na = 65536 + 1234, nb = 3000;
    uint8_t *a = malloc(na), *b = malloc(nb);
    fill_text(a, na, 1);
    for (size_t i = 0; i < nb; i++)   /* E8 calls for BCJ to convert */
        b[i] = (i % 5 == 0) ? 0xE8 : (uint8_t)(i * 7);
    char *path = tmp_path(".7z");
    write_sample_7z(path, m, bcj, hc, a, na, b, nb);
    check_sample_7z(path, a, na, b, nb, hc);
    unlink(path);
    free(path);
    free(a);
    free(b);
}

static void test_7z_copy_plain_header(void **s) { (void)s; run_7z_case(FZ7_7Z_COPY, false, false); }
static void test_7z_copy_encoded_header(void **s) { (void)s; run_7z_case(FZ7_7Z_COPY, false, true); }
static void test_7z_lzma2_bcj(void **s) { (void)s; run_7z_case(FZ7_7Z_LZMA2, true, true); }
static void test_7z_lzma(void **s) { (void)s; run_7z_case(FZ7_7Z_LZMA, false, false); }

/* Anti-items (kAnti): in 7-Zip's order (after the other entries without
 * data; anti files by path, then anti folders deepest first), with their
 * kEmptyStream/kEmptyFile/kAnti vectors as 7zz writes them, and read back
 * without times or attributes. */
static void test_7z_anti_items(void **s)
{
    (void)s;
    char *path = tmp_path(".7z");
    FILE *f = fopen(path, "w+b");
    assert_non_null(f);
    fz7_7z_writer *w;
    assert_int_equal(fz7_7z_writer_new(fileno(f), &w), FZ7_OK);
    fz7_7z_writer_order_7zip(w);
    static const struct { const char *name; bool dir, anti; } add[] = {
        {"d1/e", false, true}, {"d1", true, true}, {"n/ne", false, false},
        {"d1/sub", true, true}, {"a", true, false}, {"e1", false, true},
    };
    for (size_t i = 0; i < sizeof add / sizeof add[0]; i++) {
        fz7_7z_entry_meta m = {.name = add[i].name, .is_dir = add[i].dir, .is_anti = add[i].anti,
                               .attrib = fz7_7z_attrib_from_mode(add[i].dir ? S_IFDIR | 0755
                                                                            : S_IFREG | 0644),
                               .has_mtime = true, .mtime = 1600000000};
        assert_int_equal(fz7_7z_writer_add_empty(w, &m), FZ7_OK);
    }
    fz7_7z_folder_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.method = FZ7_7Z_COPY;
    assert_int_equal(fz7_7z_writer_begin_folder(w, &fo), FZ7_OK);
    fz7_7z_entry_meta xm = {.name = "x", .attrib = fz7_7z_attrib_from_mode(S_IFREG | 0644),
                            .has_mtime = true, .mtime = 1600000000};
    assert_int_equal(fz7_7z_writer_begin_file(w, &xm), FZ7_OK);
    assert_int_equal(fz7_7z_writer_write(w, (const uint8_t *)"x\n", 2), FZ7_OK);
    assert_int_equal(fz7_7z_writer_end_file(w), FZ7_OK);
    assert_int_equal(fz7_7z_writer_end_folder(w), FZ7_OK);
    fz7_7z_header_opts ho = {false, NULL};
    assert_int_equal(fz7_7z_writer_finish(w, &ho), FZ7_OK);
    fz7_7z_writer_free(w);
    fclose(f);

    /* Seven entries, six without data: a, n/ne, d1/e, e1, d1/sub, d1. */
    size_t n;
    uint8_t *raw = read_all(path, &n);
    static const uint8_t vectors[] = {0x05, 0x07, 0x0E, 0x01, 0xFC, 0x0F, 0x01, 0x70,
                                      0x10, 0x01, 0x3C};
    bool found = false;
    for (size_t i = 0; !found && i + sizeof vectors <= n; i++)
        found = memcmp(raw + i, vectors, sizeof vectors) == 0;
    assert_true(found);
    free(raw);

    fz7_archive *arc;
    char err[200];
    assert_int_equal(fz7_archive_open(path, NULL, &arc, err, sizeof err), FZ7_OK);
    assert_int_equal(fz7_archive_count(arc), 7);
    static const struct { const char *name; bool dir, anti; } want[] = {
        {"a", true, false}, {"n/ne", false, false}, {"d1/e", false, true}, {"e1", false, true},
        {"d1/sub", true, true}, {"d1", true, true}, {"x", false, false},
    };
    for (size_t i = 0; i < 7; i++) {
        const fz7_entry *e = fz7_archive_entry(arc, i);
        assert_string_equal(e->path, want[i].name);
        assert_int_equal(e->is_dir, want[i].dir);
        assert_int_equal(e->is_anti, want[i].anti);
        assert_int_equal(e->has_mtime, !want[i].anti);
        assert_int_equal(e->has_attrib, !want[i].anti);
    }
    fz7_archive_close(arc);
    unlink(path);
    free(path);
}

/* An archive of nothing is the 32-byte signature header alone, as 7-Zip
 * writes it; a folder that got no bytes is dropped. */
static void test_7z_empty(void **s)
{
    (void)s;
    char *path = tmp_path(".7z");
    FILE *f = fopen(path, "w+b");
    fz7_7z_writer *w;
    assert_int_equal(fz7_7z_writer_new(fileno(f), &w), FZ7_OK);
    fz7_7z_folder_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.method = FZ7_7Z_COPY;
    assert_int_equal(fz7_7z_writer_begin_folder(w, &fo), FZ7_OK);
    assert_int_equal(fz7_7z_writer_end_folder(w), FZ7_OK);
    fz7_7z_header_opts ho = {true, NULL};
    assert_int_equal(fz7_7z_writer_finish(w, &ho), FZ7_OK);
    fz7_7z_writer_free(w);
    fclose(f);
    size_t n;
    uint8_t *raw = read_all(path, &n);
    static const uint8_t want[32] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4,
                                     0x8D, 0x9B, 0xD5, 0x0F};   /* CRC of 20 zero bytes */
    assert_int_equal(n, 32);
    assert_memory_equal(raw, want, 32);
    free(raw);
    unlink(path);
    free(path);
}

/* ---- .xz ------------------------------------------------------------------ */

static void test_xz_empty_like_xz(void **s)
{
    (void)s;
    static const uint8_t want[32] = {
        0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46,
        0x00, 0x00, 0x00, 0x00, 0x1c, 0xdf, 0x44, 0x21, 0x1f, 0xb6, 0xf3, 0x7d,
        0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};
    char *path = tmp_path(".xz");
    FILE *f = fopen(path, "w+b");
    fz7_xz_opts o;
    memset(&o, 0, sizeof o);
    assert_int_equal(fz7_lzma_enc_preset(&o.lzma, 6), FZ7_OK);
    o.check = FZ7_XZ_CHECK_CRC64;
    fz7_xz_writer *w;
    assert_int_equal(fz7_xz_writer_new(fileno(f), &o, &w), FZ7_OK);
    assert_int_equal(fz7_xz_writer_finish(w), FZ7_OK);
    fz7_xz_writer_free(w);
    fclose(f);
    size_t n;
    uint8_t *raw = read_all(path, &n);
    assert_int_equal(n, 32);
    assert_memory_equal(raw, want, 32);
    free(raw);
    unlink(path);
    free(path);
}

/* Two blocks (block_size), each header carrying both sizes; the stream
 * reads back through fz7's xz reader; every check type. */
static void test_xz_blocks_with_sizes(void **s)
{
    (void)s;
    static const fz7_xz_check checks[] = {FZ7_XZ_CHECK_NONE, FZ7_XZ_CHECK_CRC32,
                                          FZ7_XZ_CHECK_CRC64, FZ7_XZ_CHECK_SHA256};
    size_t n = 50000;
    uint8_t *in = malloc(n);
    fill_text(in, n, 9);
    for (size_t c = 0; c < 4; c++) {
        char *path = tmp_path(".xz");
        FILE *f = fopen(path, "w+b");
        fz7_xz_opts o;
        memset(&o, 0, sizeof o);
        assert_int_equal(fz7_lzma_enc_preset(&o.lzma, 1), FZ7_OK);
        o.check = checks[c];
        o.block_size = 30000;
        o.bcj_x86 = c == 2;
        o.delta_distance = c == 3 ? 4 : 0;
        fz7_xz_writer *w;
        assert_int_equal(fz7_xz_writer_new(fileno(f), &o, &w), FZ7_OK);
        assert_int_equal(fz7_xz_writer_write(w, in, 10000), FZ7_OK);
        assert_int_equal(fz7_xz_writer_write(w, in + 10000, n - 10000), FZ7_OK);
        assert_int_equal(fz7_xz_writer_finish(w), FZ7_OK);
        fz7_xz_writer_free(w);
        fclose(f);
        size_t len;
        uint8_t *raw = read_all(path, &len);
        assert_int_equal(raw[7], checks[c]);
        /* First block header at 12: both size flags, its CRC32 correct. */
        size_t hs = ((size_t)raw[12] + 1) * 4;
        assert_int_equal(raw[13] & 0xC0, 0xC0);
        assert_int_equal(fz7_get32le(raw + 12 + hs - 4), fz7_crc32(0, raw + 12, hs - 4));
        /* Uncompressed size of block 1 (after the compressed size VLI). */
        size_t p = 14;
        while (raw[p] & 0x80)
            p++;
        p++;
        uint64_t us = 0;
        for (unsigned sh = 0;; sh += 7) {
            us |= (uint64_t)(raw[p] & 0x7F) << sh;
            if (!(raw[p++] & 0x80))
                break;
        }
        assert_int_equal(us, 30000);
        free(raw);

        fz7_archive *arc;
        char err[200];
        assert_int_equal(fz7_archive_open(path, NULL, &arc, err, sizeof err), FZ7_OK);
        assert_int_equal(fz7_archive_get_info(arc)->num_blocks, 2);
        got *g = calloc(1, sizeof *g);
        fz7_extract_cb cb = {g, g_begin, g_data, g_end, NULL};
        assert_int_equal(fz7_archive_extract(arc, NULL, &cb, err, sizeof err), FZ7_OK);
        assert_int_equal(g->errors, 0);
        assert_int_equal(g->len[0], n);
        assert_memory_equal(g->data[0], in, n);
        free(g);
        fz7_archive_close(arc);
        unlink(path);
        free(path);
    }
    free(in);
}

/* ---- solid blocks, names, wildcards ------------------------------------ */

static void test_plan_solid(void **s)
{
    (void)s;
    uint64_t sizes[6] = {100, 200, 300, 400, 500, 600};
    const char *exts[6] = {"c", "c", "h", "h", "h", "txt"};
    size_t blk[6], nb;
    assert_int_equal(fz7_7z_plan_solid(NULL, 0, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 1);
    assert_int_equal(fz7_7z_plan_solid("off", 0, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 6);
    assert_int_equal(blk[5], 5);
    assert_int_equal(fz7_7z_plan_solid("4f", 0, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 2);
    assert_int_equal(blk[3], 0);
    assert_int_equal(blk[4], 1);
    assert_int_equal(fz7_7z_plan_solid("e", 0, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 3);
    assert_int_equal(blk[1], 0);
    assert_int_equal(blk[2], 1);
    assert_int_equal(blk[5], 2);
    /* 1k = 1024 bytes: 100+200+300+400 = 1000 fits, +500 does not. */
    assert_int_equal(fz7_7z_plan_solid("1k", 0, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 3);
    assert_int_equal(blk[3], 0);
    assert_int_equal(blk[4], 1);
    assert_int_equal(blk[5], 2);
    /* The level's limit applies when -ms gives none: 100+200+300 | 400 |
     * 500 | 600. */
    assert_int_equal(fz7_7z_plan_solid("on", 700, sizes, exts, 6, blk, &nb), FZ7_OK);
    assert_int_equal(nb, 4);
    assert_int_equal(blk[2], 0);
    assert_int_equal(blk[3], 1);
    assert_int_equal(fz7_7z_plan_solid("12q", 0, sizes, exts, 6, blk, &nb), FZ7_E_ARG);
}

static void test_names_and_attrib(void **s)
{
    (void)s;
    static const struct { const char *in, *out; } c[] = {
        {"t", "t"}, {"t/", "t"}, {"t/d", "t/d"}, {"t//d/", "t/d"}, {"./t", "t"},
        {"./t/b.txt", "b.txt"}, {"t/./d", "d"}, {"t/d/../b.txt", "b.txt"},
        {"../w/t/b.txt", "b.txt"}, {"/tmp/x/d/", "d"}, {".", ""}, {"/", ""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char *n = fz7_archive_name_of(c[i].in);
        assert_string_equal(n, c[i].out);
        free(n);
    }
    assert_int_equal(fz7_7z_attrib_from_mode(S_IFREG | 0644), 0x81A48020u);
    assert_int_equal(fz7_7z_attrib_from_mode(S_IFDIR | 0755), 0x41ED8010u);
    assert_int_equal(fz7_7z_attrib_from_mode(S_IFLNK | 0777), 0xA1FF8020u);
    assert_int_equal(fz7_7z_attrib_from_mode(S_IFREG | 0444), 0x81248021u);
}

static void test_match_rules(void **s)
{
    (void)s;
    fz7_match_rule r1 = {"*.txt", false}, r2 = {"*.txt", true}, r3 = {"t/d", false};
    fz7_match_rule r4 = {"t/*.c", true}, r5 = {"t/*.c", false};
    assert_true(fz7_match_rule_test(&r1, "b.txt"));
    assert_false(fz7_match_rule_test(&r1, "t/b.txt"));
    assert_true(fz7_match_rule_test(&r2, "t/d/z.txt"));
    assert_true(fz7_match_rule_test(&r3, "t/d"));
    assert_true(fz7_match_rule_test(&r3, "t/d/sub/k.c"));
    assert_false(fz7_match_rule_test(&r3, "t/dd"));
    assert_true(fz7_match_rule_test(&r4, "t/d/sub/k.c"));
    assert_false(fz7_match_rule_test(&r5, "t/d/sub/k.c"));
    assert_true(fz7_match_rule_test(&r5, "t/a.c"));
    assert_false(fz7_match_rule_test(&r4, "u/a.c"));
}

/* A long non-ASCII name under -mcl with AES and NTFS times: the central
 * record's extras (NTFS, Unicode Path with the name, AES) must fit their
 * 16-bit length, the Unicode Path left out where they would not. */
static void zip_long_name_case(size_t name_bytes, bool want_upath)
{
    char *path = tmp_path(".zip");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    fz7_la_opts o = {.level = 5, .crypt = FZ7_LA_CRYPT_AES256, .password = "pw", .zip_local_names = true};
    fz7_zip_writer *w = NULL;
    char err[128];
    assert_int_equal(fz7_zip_writer_new(fd, &o, &w, err, sizeof err), FZ7_OK);
    char *name = malloc(name_bytes + 1);
    for (size_t i = 0; i < name_bytes; i += 2)
        name[i] = (char)0xC3, name[i + 1] = (char)0xA9;   /* U+00E9 */
    name[name_bytes] = 0;
    fz7_la_entry e = {.name = name, .mode = S_IFREG | 0644, .size = 5, .mtime = 1700000000, .data_fd = -1};
    assert_int_equal(fz7_zip_writer_begin(w, &e), FZ7_OK);
    assert_int_equal(fz7_zip_writer_write(w, (const uint8_t *)"hello", 5), FZ7_OK);
    assert_int_equal(fz7_zip_writer_finish(w), FZ7_OK);
    fz7_zip_writer_free(w);
    close(fd);
    size_t n;
    uint8_t *b = read_all(path, &n);
    const uint8_t *eocd = b + n - 22;
    assert_int_equal(eocd[0] | eocd[1] << 8 | eocd[2] << 16 | (uint32_t)eocd[3] << 24, 0x06054b50u);
    size_t cd_len = eocd[12] | eocd[13] << 8 | eocd[14] << 16 | (size_t)eocd[15] << 24;
    size_t cd_off = eocd[16] | eocd[17] << 8 | eocd[18] << 16 | (size_t)eocd[19] << 24;
    const uint8_t *c = b + cd_off;
    size_t nl = c[28] | c[29] << 8, xl = c[30] | c[31] << 8, cl = c[32] | c[33] << 8;
    assert_int_equal(nl, name_bytes);
    assert_int_equal(46 + nl + xl + cl, cd_len);
    bool upath = false;
    for (size_t at = 0; at < xl;) {   /* the extras tile the field exactly */
        assert_true(at + 4 <= xl);
        const uint8_t *x = c + 46 + nl + at;
        upath |= (x[0] | x[1] << 8) == 0x7075;
        at += 4 + (size_t)(x[2] | x[3] << 8);
        assert_true(at <= xl);
    }
    assert_int_equal(upath, want_upath);
    free(b);
    free(name);
    unlink(path);
    free(path);
}

static void test_zip_long_name_extras(void **s)
{
    (void)s;
    zip_long_name_case(65450, true);    /* 0xffff - 9 - (36 + 11 + 28) and under: the field fits */
    zip_long_name_case(65486, false);   /* room in a local header, none in the central record */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_7z_copy_plain_header),
        cmocka_unit_test(test_7z_copy_encoded_header),
        cmocka_unit_test(test_7z_lzma2_bcj),
        cmocka_unit_test(test_7z_lzma),
        cmocka_unit_test(test_7z_empty),
        cmocka_unit_test(test_7z_anti_items),
        cmocka_unit_test(test_xz_empty_like_xz),
        cmocka_unit_test(test_xz_blocks_with_sizes),
        cmocka_unit_test(test_plan_solid),
        cmocka_unit_test(test_names_and_attrib),
        cmocka_unit_test(test_match_rules),
        cmocka_unit_test(test_zip_long_name_extras),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
