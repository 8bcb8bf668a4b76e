/* test_volumes.c - the volume set under the readers (x.7z.001, .002, ...
 * read as one byte space: names, pread and istreams across volume
 * boundaries, the missing-volume rule) and 7z archives found behind a
 * self-extractor stub, checked against the same archive opened whole. */
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
#include "format/archive.h"
#include "format/archive_impl.h"
#include "format/file_io.h"
#include "test_util.h"

static char g_dir[256];

static void path_in(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

static void write_file(const char *name, const void *p, size_t n)
{
    char path[512];
    path_in(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *name)
{
    char path[512];
    path_in(path, sizeof path, name);
    unlink(path);
}

static fz7_volumes *open_set(const char *name)
{
    char path[512], err[256] = "";
    path_in(path, sizeof path, name);
    fz7_volumes *v = NULL;
    fz7_status st = fz7_volumes_open(path, &v, err, sizeof err);
    if (st != FZ7_OK)
        print_message("open %s: %s\n", name, err);
    assert_int_equal(st, FZ7_OK);
    return v;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/fz7_test_volumes_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Which names start a set, and how far it reaches. */
static void test_names(void **state)
{
    (void)state;
    static const struct { const char *name; bool split; size_t count; } cases[] = {
        {"plain.7z", false, 1},   {"n.7z.001", true, 3}, {"two.01", true, 2},
        {"one.1", false, 1},      {"n.7z.002", false, 1}, {"w.0001", true, 2},
        {"dot.001x", false, 1},
    };
    const char *files[] = {"plain.7z", "n.7z.001", "n.7z.002", "n.7z.003", "n.7z.005", "two.01",
                           "two.02", "one.1",    "one.2",    "w.0001",   "w.0002",   "w.002",
                           "dot.001x", "dot.002x"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        write_file(files[i], "abc", 3);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fz7_volumes *v = open_set(cases[i].name);
        if (fz7_volumes_is_split(v) != cases[i].split || fz7_volumes_count(v) != cases[i].count)
            print_message("%s: split %d count %zu\n", cases[i].name, fz7_volumes_is_split(v),
                          fz7_volumes_count(v));
        assert_int_equal(fz7_volumes_is_split(v), cases[i].split);
        assert_int_equal(fz7_volumes_count(v), cases[i].count);
        assert_int_equal(fz7_volumes_size(v), 3 * cases[i].count);
        fz7_volumes_close(v);
    }
    char path[512], err[256] = "";
    path_in(path, sizeof path, "absent.7z.001");
    fz7_volumes *v = (fz7_volumes *)1;
    assert_int_equal(fz7_volumes_open(path, &v, err, sizeof err), FZ7_E_IO);
    assert_null(v);
    assert_non_null(strstr(err, "Cannot open the file"));
    assert_int_equal(fz7_volumes_open(g_dir, &v, err, sizeof err), FZ7_E_IO);
    assert_non_null(strstr(err, "not a regular file"));
}

/* 13 bytes over volumes of 5, 5 and 3 (and a set with an empty middle
 * volume): every range read through pread and through istreams. */
static void test_pread_across(void **state)
{
    (void)state;
    uint8_t all[13];
    for (size_t i = 0; i < sizeof all; i++)
        all[i] = (uint8_t)(0xA0 + i);
    write_file("p.001", all, 5);
    write_file("p.002", all + 5, 5);
    write_file("p.003", all + 10, 3);
    write_file("e.001", all, 6);
    write_file("e.002", "", 0);
    write_file("e.003", all + 6, 7);
    const char *sets[] = {"p.001", "e.001"};
    for (size_t k = 0; k < 2; k++) {
        fz7_volumes *v = open_set(sets[k]);
        assert_int_equal(fz7_volumes_count(v), 3);
        assert_int_equal(fz7_volumes_size(v), 13);
        for (size_t off = 0; off <= 13; off++) {
            for (size_t n = 0; off + n <= 15; n++) {
                uint8_t got[16];
                memset(got, 0, sizeof got);
                fz7_status st = fz7_volumes_pread(v, got, n, off);
                if (off + n > 13) {
                    assert_int_equal(st, FZ7_E_TRUNCATED);
                    continue;
                }
                assert_int_equal(st, FZ7_OK);
                assert_memory_equal(got, all + off, n);
            }
        }
        static const size_t read_sizes[] = {1, 3, 7, 1 << 16};
        for (size_t r = 0; r < 4; r++) {
            fz7_istream *s = fz7_volumes_istream_new(v, 2, 9);
            assert_non_null(s);
            uint8_t got[1 << 16];
            size_t have = 0, n;
            do {
                assert_int_equal(s->read(s, got + have, read_sizes[r], &n), FZ7_OK);
                have += n;
            } while (n);
            assert_int_equal(have, 9);
            assert_memory_equal(got, all + 2, 9);
            fz7_istream_free(s);
            /* A range past the end of the last volume. */
            s = fz7_volumes_istream_new(v, 10, 8);
            assert_non_null(s);
            fz7_status st;
            have = 0;
            while ((st = s->read(s, got + have, read_sizes[r], &n)) == FZ7_OK && n)
                have += n;
            assert_int_equal(st, FZ7_E_TRUNCATED);
            fz7_istream_free(s);
        }
        fz7_volumes_close(v);
    }
}

/* The next volume is named missing only when the last one present is as
 * large as the first. */
static void test_missing_rule(void **state)
{
    (void)state;
    write_file("m.7z.001", "12345", 5);
    write_file("m.7z.002", "12345", 5);
    write_file("m.7z.003", "123", 3);
    const char *name = NULL;
    fz7_volumes *v = open_set("m.7z.001");
    assert_false(fz7_volumes_missing(v, &name));   /* a short last volume: complete */
    fz7_volumes_close(v);

    remove_file("m.7z.003");
    v = open_set("m.7z.001");
    assert_int_equal(fz7_volumes_count(v), 2);
    assert_true(fz7_volumes_missing(v, &name));
    char want[512];
    path_in(want, sizeof want, "m.7z.003");
    assert_string_equal(name, want);
    fz7_volumes_close(v);

    write_file("m.7z.003", "123", 3);
    remove_file("m.7z.002");
    v = open_set("m.7z.001");
    assert_int_equal(fz7_volumes_count(v), 1);
    assert_true(fz7_volumes_missing(v, &name));
    path_in(want, sizeof want, "m.7z.002");
    assert_string_equal(name, want);
    fz7_volumes_close(v);

    write_file("plain.bin", "12345", 5);
    v = open_set("plain.bin");
    assert_false(fz7_volumes_missing(v, &name));
    fz7_volumes_close(v);
}

/* ---- archives ---- */

/* Per entry: CRC32 of the data delivered and the end status. */
typedef struct {
    uint32_t crc[256];
    uint64_t bytes[256];
    fz7_status result[256];
    size_t cur;
} digest;

static fz7_status d_begin(void *ctx, size_t i, const fz7_entry *e)
{
    (void)e;
    digest *d = ctx;
    d->cur = i;
    return FZ7_OK;
}

static fz7_status d_data(void *ctx, const uint8_t *p, size_t n)
{
    digest *d = ctx;
    if (d->cur < 256) {
        d->crc[d->cur] = fz7_crc32(d->crc[d->cur], p, n);
        d->bytes[d->cur] += n;
    }
    return FZ7_OK;
}

static fz7_status d_end(void *ctx, size_t i, fz7_status r, const char *detail)
{
    (void)detail;
    digest *d = ctx;
    if (i < 256)
        d->result[i] = r;
    return FZ7_OK;
}

/* Opens name and decodes every entry into d. */
static fz7_archive *open_and_digest(const char *name, digest *d)
{
    char path[512], err[256] = "";
    path_in(path, sizeof path, name);
    fz7_archive *a = NULL;
    fz7_status st = fz7_archive_open(path, NULL, &a, err, sizeof err);
    if (st != FZ7_OK)
        print_message("open %s: %s\n", name, err);
    assert_int_equal(st, FZ7_OK);
    memset(d, 0, sizeof *d);
    fz7_extract_cb cb = {d, d_begin, d_data, d_end, NULL};
    assert_int_equal(fz7_archive_extract(a, NULL, &cb, err, sizeof err), FZ7_OK);
    return a;
}

static void assert_same_archive(fz7_archive *a, const digest *da, fz7_archive *b,
                                const digest *db)
{
    assert_int_equal(fz7_archive_count(a), fz7_archive_count(b));
    assert_true(fz7_archive_count(a) > 0);
    for (size_t i = 0; i < fz7_archive_count(a) && i < 256; i++) {
        const fz7_entry *x = fz7_archive_entry(a, i), *y = fz7_archive_entry(b, i);
        assert_string_equal(x->path, y->path);
        assert_int_equal(x->size, y->size);
        assert_int_equal(da->result[i], FZ7_OK);
        assert_int_equal(db->result[i], FZ7_OK);
        assert_int_equal(da->crc[i], db->crc[i]);
        assert_int_equal(da->bytes[i], x->size);
        if (x->has_crc)
            assert_int_equal(da->crc[i], x->crc);
    }
}

/* Writes bytes [0, n) of p as volumes of vol bytes: stem.001, stem.002... */
static void write_volumes(const char *stem, const uint8_t *p, size_t n, size_t vol)
{
    for (size_t off = 0, k = 1; off < n; off += vol, k++) {
        char name[128];
        snprintf(name, sizeof name, "%s.%03zu", stem, k);
        write_file(name, p + off, n - off < vol ? n - off : vol);
    }
}

static const uint8_t sig[6] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C};

/* A start header at p with a valid CRC pointing at [nh_offset, +nh_size). */
static void put_start_header(uint8_t *p, uint64_t nh_offset, uint64_t nh_size)
{
    memcpy(p, sig, 6);
    p[6] = 0;
    p[7] = 4;
    fz7_put64le(p + 12, nh_offset);
    fz7_put64le(p + 20, nh_size);
    fz7_put32le(p + 28, 0x12345678);
    fz7_put32le(p + 8, fz7_crc32(0, p + 12, 20));
}

/* A stub that starts like an ELF (even n) or PE (odd n) file and holds
 * decoys: bare signature bytes, a start header with a bad CRC, and one with
 * a good CRC whose next header lies past the end of any file. */
static uint8_t *make_stub(size_t n)
{
    uint8_t *s = calloc(1, n);
    assert_non_null(s);
    if (n % 2)
        memcpy(s, "MZ\x90\x00\x03", 5);
    else
        memcpy(s, "\x7f" "ELF\x02\x01\x01", 7);
    for (size_t i = 64; i < n; i++)
        s[i] = (uint8_t)(i * 7 + (i >> 5));
    memcpy(s + 100, sig, 6);
    put_start_header(s + 300, 10, 10);
    s[300 + 9] ^= 1;   /* CRC wrong */
    put_start_header(s + 1000, (uint64_t)1 << 40, 100);
    memcpy(s + n - 3, sig, 3);   /* a signature cut by the archive's start */
    return s;
}

static const char *corpus_archive(char *buf, size_t cap)
{
    const char *shared = getenv("FZ7_SHARED");
    static const char *const names[] = {"test_6.7z", "solid.7z", "lzma2bcj2.7z"};
    for (size_t i = 0; shared && i < 3; i++) {
        snprintf(buf, cap, "%s/corpus/7z/%s", shared, names[i]);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    return NULL;
}

/* A corpus archive split into odd-sized volumes, behind a stub, and both:
 * the same entries and bytes as the archive read whole. */
static void test_split_and_sfx_archive(void **state)
{
    (void)state;
    char src[600];
    if (!corpus_archive(src, sizeof src)) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/7z) is missing\n");
        skip();
    }
    size_t n;
    uint8_t *arc = tu_load(src, &n);
    assert_non_null(arc);
    write_file("whole.7z", arc, n);
    digest *d0 = malloc(sizeof *d0), *d1 = malloc(sizeof *d1);
    assert_non_null(d0);
    assert_non_null(d1);
    fz7_archive *a0 = open_and_digest("whole.7z", d0);
    assert_int_equal(fz7_archive_get_info(a0)->offset, 0);
    assert_int_equal(fz7_archive_get_info(a0)->volumes, 1);

    static const size_t vol_sizes[] = {1, 31, 997, 4096};
    for (size_t k = 0; k < 4; k++) {
        if (n / vol_sizes[k] > 3000)
            continue;   /* keep the file count modest */
        char stem[32];
        snprintf(stem, sizeof stem, "split%zu.7z", k);
        write_volumes(stem, arc, n, vol_sizes[k]);
        char first[48];
        snprintf(first, sizeof first, "%s.001", stem);
        fz7_archive *a1 = open_and_digest(first, d1);
        assert_int_equal(fz7_archive_get_info(a1)->volumes, (n + vol_sizes[k] - 1) / vol_sizes[k]);
        assert_int_equal(fz7_archive_get_info(a1)->phy_size, n);
        assert_same_archive(a1, d1, a0, d0);
        fz7_archive_close(a1);
    }

    static const size_t stub_sizes[] = {4096, 70001};
    for (size_t k = 0; k < 2; k++) {
        size_t sn = stub_sizes[k];
        uint8_t *stub = make_stub(sn);
        uint8_t *sfx = malloc(sn + n);
        assert_non_null(sfx);
        memcpy(sfx, stub, sn);
        memcpy(sfx + sn, arc, n);
        write_file("sfx.bin", sfx, sn + n);
        fz7_archive *a2 = open_and_digest("sfx.bin", d1);
        assert_int_equal(fz7_archive_get_info(a2)->offset, sn);
        assert_int_equal(fz7_archive_get_info(a2)->phy_size, n);
        assert_same_archive(a2, d1, a0, d0);
        fz7_archive_close(a2);

        /* The stub alone (with its decoys) is no archive. */
        write_file("stub.bin", stub, sn);
        char path[512], err[256] = "";
        path_in(path, sizeof path, "stub.bin");
        fz7_archive *a3 = NULL;
        assert_int_equal(fz7_archive_open(path, NULL, &a3, err, sizeof err), FZ7_E_FORMAT);
        assert_string_equal(err, "Cannot open the file as archive");

        /* Self-extractor and volumes together. */
        write_volumes("sfxvol", sfx, sn + n, 65536);
        fz7_archive *a4 = open_and_digest("sfxvol.001", d1);
        assert_int_equal(fz7_archive_get_info(a4)->offset, sn);
        assert_same_archive(a4, d1, a0, d0);
        fz7_archive_close(a4);
        free(stub);
        free(sfx);
    }
    fz7_archive_close(a0);
    free(d0);
    free(d1);
    free(arc);
}

/* A split archive whose middle or last volume is gone: FZ7_E_TRUNCATED
 * with "Missing volume: <name>", not a data or password error. */
static void test_missing_volume_archive(void **state)
{
    (void)state;
    char src[600];
    if (!corpus_archive(src, sizeof src)) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/7z) is missing\n");
        skip();
    }
    size_t n;
    uint8_t *arc = tu_load(src, &n);
    assert_non_null(arc);
    size_t vol = n / 3 + 1;   /* three volumes, the last one shorter */
    write_volumes("mv.7z", arc, n, vol);
    for (int gone = 2; gone <= 3; gone++) {
        char name[32], path[512], err[256] = "";
        snprintf(name, sizeof name, "mv.7z.%03d", gone);
        remove_file(name);
        path_in(path, sizeof path, "mv.7z.001");
        fz7_archive *a = NULL;
        fz7_status st = fz7_archive_open(path, NULL, &a, err, sizeof err);
        char want[600];
        path_in(want, sizeof want, name);
        char msg[700];
        snprintf(msg, sizeof msg, "Missing volume: %s", want);
        /* The set ends before the gone volume, and the volume before it
         * is full-sized, so the gone one is named. */
        assert_int_equal(st, FZ7_E_TRUNCATED);
        assert_string_equal(err, msg);
        assert_null(a);
        write_volumes("mv.7z", arc, n, vol);
    }
    /* The last volume cut short is a truncated archive, not a missing one. */
    char last[64];
    snprintf(last, sizeof last, "mv.7z.%03zu", (n + vol - 1) / vol);
    write_file(last, arc + 2 * vol, n - 2 * vol - 1);
    char path[512], err[256] = "";
    path_in(path, sizeof path, "mv.7z.001");
    fz7_archive *a = NULL;
    assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_E_TRUNCATED);
    assert_null(strstr(err, "Missing volume"));
    free(arc);
}

/* The one entry of a compressed file is named after the archive, never
 * with the archive's own name (7-Zip's rule: drop the last extension, or
 * add "~"). */
static void test_compressed_entry_name(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"x.tar.gz.001", "x.tar"}, {"dir/a.txz", "a.tar"}, {"b.xz", "b"},
        {"c.TGZ", "c.tar"},        {"d.tar.zst", "d.tar"}, {"e.bz2.0001", "e"},
        {"archive.2023", "archive"}, {"f.gz.1", "f.gz"}, {"g.Z", "g"},
        {".xz", ".xz~"},           {"h.lzma.01", "h"},     {"i.tbz2", "i.tar"},
        {"noext", "noext~"},       {"foo.bin", "foo"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *n = fz7_strip_compressed_suffix(cases[i][0]);
        assert_non_null(n);
        if (strcmp(n, cases[i][1]) != 0)
            print_message("%s -> %s, want %s\n", cases[i][0], n, cases[i][1]);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_pread_across),
        cmocka_unit_test(test_missing_rule),
        cmocka_unit_test(test_split_and_sfx_archive),
        cmocka_unit_test(test_missing_volume_archive),
        cmocka_unit_test(test_compressed_entry_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
