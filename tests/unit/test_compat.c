/* test_compat.c - what the readers report so that fz7 can answer as 7-Zip
 * 26.02 does: an .xz whose end is damaged opened by its first headers
 * (fz7_open_opts.xz_salvage), a reserved check ID decoded, bytes after a
 * 7z archive (tail_size), and the xz "Cluster Size" / "Characteristics".
 * compat_7zz.sh compares the command line with 7zz itself. */
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
#include "test_util.h"

/* Extracts all of a into s (tu_sink, end FZ7_E_ARG until called);
 * returns fz7_archive_extract's status. */
static fz7_status extract(fz7_archive *a, tu_sink *s)
{
    tu_sink_init(s, FZ7_E_ARG);
    fz7_extract_cb cb = tu_sink_cb(s);
    char err[256] = "";
    return fz7_archive_extract(a, NULL, &cb, err, sizeof err);
}

static const char *corpus(const char *sub)
{
    const char *dir = tu_shared_dir(sub);
    if (!dir)
        print_message("SKIP: the shared corpus (%s) is missing\n", sub);
    return dir;
}

static fz7_status open_in(const char *dir, const char *name, bool salvage, fz7_archive **a)
{
    char path[4400], err[256] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fz7_open_opts o = {.xz_salvage = salvage};
    return fz7_archive_open(path, &o, a, err, sizeof err);
}

/* Damaged footers and indexes: closed without xz_salvage, opened with it
 * when the stream header and first block header are sound (as 7-Zip
 * lists them), and the damage reported on decoding. */
static void test_xz_salvage(void **state)
{
    (void)state;
    const char *dir = corpus("corpus/xz");
    if (!dir)
        skip();
    static const struct {
        const char *name;
        fz7_status strict, salvaged;   /* open without / with xz_salvage */
        const char *method;
        uint64_t size;                 /* bytes decoded before the damage */
        fz7_status end;
    } rows[] = {
        {"bad-0-backward_size.xz", FZ7_E_FORMAT, FZ7_OK, "", 0, FZ7_E_CRC},
        {"bad-0-footer_magic.xz", FZ7_E_FORMAT, FZ7_OK, "", 0, FZ7_E_CRC},
        {"bad-1-stream_flags-1.xz", FZ7_E_FORMAT, FZ7_OK, "LZMA2:16", 13, FZ7_E_CRC},
        {"bad-1-stream_flags-3.xz", FZ7_E_CRC, FZ7_OK, "LZMA2:16", 13, FZ7_E_CRC},
        {"bad-0pad-empty.xz", FZ7_E_FORMAT, FZ7_OK, "", 0, FZ7_E_TRUNCATED},
        {"bad-0cat-alone.xz", FZ7_E_FORMAT, FZ7_OK, "", 0, FZ7_E_DATA},
        /* 7-Zip does not open these either: the header or the first block
         * header is what is damaged. */
        {"bad-1-stream_flags-2.xz", FZ7_E_CRC, FZ7_E_CRC, NULL, 0, FZ7_OK},
        {"bad-1-vli-1.xz", FZ7_E_FORMAT, FZ7_E_FORMAT, NULL, 0, FZ7_OK},
        {"bad-1-block_header-1.xz", FZ7_E_FORMAT, FZ7_E_FORMAT, NULL, 0, FZ7_OK},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fz7_archive *a = NULL;
        fz7_status st = open_in(dir, rows[i].name, false, &a);
        if (st != rows[i].strict)
            fail_msg("%s: strict open gave %s", rows[i].name, fz7_status_str(st));
        fz7_archive_close(a);
        a = NULL;
        st = open_in(dir, rows[i].name, true, &a);
        if (st != rows[i].salvaged)
            fail_msg("%s: salvaging open gave %s", rows[i].name, fz7_status_str(st));
        if (st != FZ7_OK)
            continue;
        const fz7_archive_info *in = fz7_archive_get_info(a);
        assert_int_equal(in->format, FZ7_FORMAT_XZ);
        assert_true(in->sizes_unknown);
        assert_string_equal(in->method, rows[i].method);
        assert_int_equal(fz7_archive_count(a), 1);
        const fz7_entry *e = fz7_archive_entry(a, 0);
        assert_false(e->has_size);
        assert_string_equal(e->method, rows[i].method);
        tu_sink s;
        assert_int_equal(extract(a, &s), FZ7_OK);
        if (s.end != rows[i].end)
            fail_msg("%s: decoding ended with %s (%s)", rows[i].name, fz7_status_str(s.end),
                     s.detail);
        assert_int_equal(s.total, rows[i].size);
        fz7_archive_close(a);
    }
}

/* A check ID that xz-file-format.txt reserves (2): the data decodes, the
 * check is skipped, and the method names it "Check-2" as 7-Zip does. */
static void test_reserved_check(void **state)
{
    (void)state;
    const char *dir = corpus("corpus/xz");
    if (!dir)
        skip();
    fz7_archive *a = NULL;
    assert_int_equal(open_in(dir, "unsupported-check.xz", false, &a), FZ7_OK);
    const fz7_archive_info *in = fz7_archive_get_info(a);
    assert_string_equal(in->method, "LZMA2:16 Check-2");
    assert_string_equal(in->check, "Check-2");
    tu_sink s;
    assert_int_equal(extract(a, &s), FZ7_OK);
    assert_int_equal(s.end, FZ7_OK);
    assert_int_equal(s.total, 13);
    char h[65];
    tu_sink_hex(&s, h);
    assert_string_equal(h, "8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046");
    fz7_archive_close(a);
}

/* Bytes after a 7z archive's header: tail_size, and phy_size ends where
 * the archive does; the entries still extract. */
static void test_7z_tail(void **state)
{
    (void)state;
    const char *dir = corpus("corpus/7z");
    if (!dir)
        skip();
    char path[4400];
    snprintf(path, sizeof path, "%s/copy.7z", dir);
    size_t n;
    uint8_t *orig = tu_load_existing(path, &n);
    char tmp[] = "/tmp/fz7_test_compat_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    for (size_t extra = 0; extra <= 37; extra += 37) {
        uint8_t *buf = malloc(n + extra);
        assert_non_null(buf);
        memcpy(buf, orig, n);
        memset(buf + n, 0xA5, extra);
        tu_save(tmp, buf, n + extra);
        free(buf);
        fz7_archive *a = NULL;
        char err[256] = "";
        assert_int_equal(fz7_archive_open(tmp, NULL, &a, err, sizeof err), FZ7_OK);
        const fz7_archive_info *in = fz7_archive_get_info(a);
        assert_int_equal(in->tail_size, extra);
        assert_int_equal(in->phy_size, n);
        tu_sink s;
        assert_int_equal(extract(a, &s), FZ7_OK);
        assert_int_equal(s.end, FZ7_OK);
        fz7_archive_close(a);
    }
    unlink(tmp);
    free(orig);
}

/* 7-Zip's "Cluster Size" (the largest of several blocks) and
 * "Characteristics" (sizes in the first block headers) of an xz file. */
static void test_xz_cluster(void **state)
{
    (void)state;
    char path[4096];
    const char *here = __FILE__, *slash = strrchr(here, '/');
    snprintf(path, sizeof path, "%.*s/../data/xz/multiblock-crc64.xz",
             slash ? (int)(slash - here) : 1, slash ? here : ".");
    fz7_archive *a = NULL;
    char err[256] = "";
    assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_OK);
    const fz7_archive_info *in = fz7_archive_get_info(a);
    assert_int_equal(in->num_blocks, 4);
    assert_int_equal(in->cluster_size, 40000);
    assert_non_null(in->characteristics);
    assert_string_equal(in->characteristics, "BlockPackSize BlockUnpackSize");
    fz7_archive_close(a);
    const char *dir = tu_shared_dir("corpus/xz");
    if (!dir)
        return;
    a = NULL;
    assert_int_equal(open_in(dir, "good-1-block_header-2.xz", false, &a), FZ7_OK);
    in = fz7_archive_get_info(a);
    assert_int_equal(in->cluster_size, 0); /* one block */
    assert_string_equal(in->characteristics, "BlockPackSize");
    fz7_archive_close(a);
    a = NULL;
    assert_int_equal(open_in(dir, "good-1-lzma2-1.xz", false, &a), FZ7_OK);
    assert_null(fz7_archive_get_info(a)->characteristics);
    fz7_archive_close(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xz_salvage),
        cmocka_unit_test(test_reserved_check),
        cmocka_unit_test(test_7z_tail),
        cmocka_unit_test(test_xz_cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
