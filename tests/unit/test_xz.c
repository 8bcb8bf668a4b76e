/* test_xz.c - the .xz and .lzma readers: every file of the shared xz corpus
 * (MANIFEST.tsv: size and SHA-256 of good files, failure of bad and
 * unsupported ones), our own vectors made with xz 5.4.1 (tests/data/xz:
 * multi-block, each check, concatenated and padded streams, BCJ/Delta/ARM64
 * chains, .lzma), listing fields as 7-Zip shows them, and error details.
 * Rows that need the LZMA/LZMA2 decoder are reported as skipped while
 * lzma/ only has its stub. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "format/archive.h"
#include "format/xz/xz_parse.h"
#include "lzma/lzma_dec.h"
#include "test_util.h"

static const char *own_dir(void)
{
    static char path[4096];
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    snprintf(path, sizeof path, "%.*s/../data/xz", slash ? (int)(slash - here) : 1,
             slash ? here : ".");
    return path;
}

/* The shared corpus folder, or NULL when it is absent. */
static const char *corpus_dir(void) { return tu_shared_dir("corpus/xz"); }

/* Whether lzma/ has real decoders yet (the stub answers UNSUPPORTED). */
static int have_lzma2(void)
{
    static const uint8_t end_only[1] = {0x00};
    fz7_istream *src = fz7_istream_from_memory(end_only, 1), *dec = NULL;
    fz7_status st = fz7_lzma2_istream_new(src, 0, FZ7_DEFAULT_MEM_LIMIT, &dec);
    fz7_istream_free(dec);
    fz7_istream_free(src);
    return st != FZ7_E_UNSUPPORTED;
}

static int have_lzma(void)
{
    static const uint8_t props[5] = {0x5D, 0x00, 0x10, 0x00, 0x00};
    static const uint8_t data[5] = {0};
    fz7_istream *src = fz7_istream_from_memory(data, 5), *dec = NULL;
    fz7_status st = fz7_lzma_istream_new(src, props, 0, FZ7_DEFAULT_MEM_LIMIT, &dec);
    fz7_istream_free(dec);
    fz7_istream_free(src);
    return st != FZ7_E_UNSUPPORTED;
}

/* Opens and extracts path. Returns the open status; on success *rc is
 * extract's return and s what the callbacks saw; *a_out the archive, if
 * wanted (else closed). */
static fz7_status run(const char *path, uint64_t mem_limit, tu_sink *s, fz7_status *rc,
                      char *err, size_t errlen, fz7_archive **a_out)
{
    tu_sink_init(s, FZ7_OK);
    fz7_open_opts opts = {.mem_limit = mem_limit};
    fz7_archive *a = NULL;
    fz7_status st = fz7_archive_open(path, &opts, &a, err, errlen);
    if (st != FZ7_OK)
        return st;
    fz7_extract_cb cb = tu_sink_cb(s);
    *rc = fz7_archive_extract(a, NULL, &cb, err, errlen);
    if (a_out)
        *a_out = a;
    else
        fz7_archive_close(a);
    return FZ7_OK;
}

/* Runs every row of dir/MANIFEST.tsv; fails the test on any wrong row. */
static void run_manifest(const char *dir)
{
    char mpath[4200];
    snprintf(mpath, sizeof mpath, "%s/MANIFEST.tsv", dir);
    FILE *m = fopen(mpath, "r");
    if (!m)
        fail_msg("cannot read %s", mpath);
    int lzma2 = have_lzma2(), lzma = have_lzma();
    int pass = 0, skipped = 0, failed = 0;
    char line[512];
    while (fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char name[256], expect[16], size_s[32], sha_s[80];
        if (sscanf(line, "%255s %15s %31s %79s", name, expect, size_s, sha_s) != 4)
            continue;
        /* A reserved check ID: 7-Zip 26 decodes the data without verifying
         * the check (xz warns), and so does fz7. */
        if (strcmp(name, "unsupported-check.xz") == 0)
            sscanf("ok 13 8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046", "%15s %31s %79s",
                   expect, size_s, sha_s);
        char path[4600], err[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, name);
        tu_sink s;
        fz7_status rc = FZ7_OK;
        fz7_status st = run(path, 0, &s, &rc, err, sizeof err, NULL);
        int is_lzma = strstr(name, ".lzma") != NULL;
        int no_decoder = is_lzma ? !lzma : !lzma2;
        /* The stub's refusal, not the file's fault. */
        int stub = no_decoder && st == FZ7_OK && rc == FZ7_OK &&
                   s.end == FZ7_E_UNSUPPORTED &&
                   strncasecmp(s.detail, "Unsupported method", 18) == 0;
        if (stub) {
            print_message("  skip  %-36s (needs the %s decoder)\n", name, is_lzma ? "LZMA" : "LZMA2");
            skipped++;
            continue;
        }
        if (strcmp(expect, "ok") == 0) {
            char h[65];
            tu_sink_hex(&s, h);
            if (st != FZ7_OK) {
                print_message("  FAIL  %-36s open: %s (%s)\n", name, fz7_status_str(st), err);
            } else if (rc != FZ7_OK || s.begins != 1 || s.ends != 1 || s.end != FZ7_OK) {
                print_message("  FAIL  %-36s extract: %s / %s (%s)\n", name, fz7_status_str(rc),
                              fz7_status_str(s.end), s.detail);
            } else if (s.total != strtoull(size_s, NULL, 10) || strcmp(h, sha_s) != 0) {
                print_message("  FAIL  %-36s got %llu bytes, sha256 %s\n", name,
                              (unsigned long long)s.total, h);
            } else {
                pass++;
                continue;
            }
            failed++;
        } else {
            if (st != FZ7_OK || rc != FZ7_OK || s.end != FZ7_OK) {
                pass++;
                continue;
            }
            print_message("  FAIL  %-36s should fail but gave %llu bytes\n", name,
                          (unsigned long long)s.total);
            failed++;
        }
    }
    fclose(m);
    print_message("%s: %d pass, %d skipped, %d failed\n", mpath, pass, skipped, failed);
    assert_int_equal(failed, 0);
    assert_true(pass > 0);
}

static void test_corpus_manifest(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/xz) is missing\n");
        skip();
    }
    run_manifest(dir);
}

static void test_own_manifest(void **state)
{
    (void)state;
    run_manifest(own_dir());
}

static fz7_archive *open_own(const char *name, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", own_dir(), name);
    fz7_archive *a = NULL;
    fz7_status st = fz7_archive_open(path, NULL, &a, err, errlen);
    if (st != FZ7_OK)
        fail_msg("%s: %s (%s)", name, fz7_status_str(st), err);
    return a;
}

/* Listing fields against what `7zz l -slt` prints for the same files. */
static void test_listing(void **state)
{
    (void)state;
    static const struct {
        const char *name, *path, *method;
        int has_size;
        uint64_t size, blocks, streams;
        fz7_format format;
    } rows[] = {
        {"multiblock-crc64.xz", "multiblock-crc64", "LZMA2:23 CRC64", 1, 150000, 4, 1, FZ7_FORMAT_XZ},
        {"concat-padding.xz", "concat-padding", "LZMA2:23 CRC32 CRC64", 1, 153000, 5, 2, FZ7_FORMAT_XZ},
        {"x86-lzma2.xz", "x86-lzma2", "BCJ LZMA2:16 CRC64", 1, 150000, 1, 1, FZ7_FORMAT_XZ},
        {"delta4-lzma2-3m.xz", "delta4-lzma2-3m", "Delta:4 LZMA2:3m CRC32", 1, 150000, 1, 1, FZ7_FORMAT_XZ},
        {"arm64-start-lzma2.xz", "arm64-start-lzma2", "ARM64:[00100000] LZMA2:23 CRC64", 1, 3000, 1, 1, FZ7_FORMAT_XZ},
        {"check-none.xz", "check-none", "LZMA2:23 NoCheck", 1, 3000, 1, 1, FZ7_FORMAT_XZ},
        {"arm-start-lzma2.xz", "arm-start-lzma2", "ARM:[00100000] LZMA2:16 CRC32", 1, 16384, 1, 1, FZ7_FORMAT_XZ},
        {"ia64-lzma2.xz", "ia64-lzma2", "IA64 LZMA2:16 CRC32", 1, 16384, 1, 1, FZ7_FORMAT_XZ},
        {"armt-lzma2.xz", "armt-lzma2", "ARMT LZMA2:16 CRC64", 1, 16384, 1, 1, FZ7_FORMAT_XZ},
        {"sparc-delta-lzma2.xz", "sparc-delta-lzma2", "SPARC Delta:2 LZMA2:16 SHA256", 1, 16384, 1, 1, FZ7_FORMAT_XZ},
        {"check-sha256.xz", "check-sha256", "LZMA2:23 SHA256", 1, 3000, 1, 1, FZ7_FORMAT_XZ},
        {"unknown-size.lzma", "unknown-size", "LZMA:20:lc1:lp2:pb1", 0, 0, 0, 0, FZ7_FORMAT_LZMA},
        {"known-size-with-eopm.lzma", "known-size-with-eopm", "LZMA:20:lc1:lp2:pb1", 1, 3000, 0, 0, FZ7_FORMAT_LZMA},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char err[256] = "";
        fz7_archive *a = open_own(rows[i].name, err, sizeof err);
        const fz7_archive_info *info = fz7_archive_get_info(a);
        assert_int_equal(fz7_archive_count(a), 1);
        const fz7_entry *e = fz7_archive_entry(a, 0);
        assert_int_equal(info->format, rows[i].format);
        assert_string_equal(info->method, rows[i].method);
        assert_string_equal(e->method, rows[i].method);
        assert_string_equal(e->path, rows[i].path);
        assert_int_equal(e->has_size, rows[i].has_size);
        assert_int_equal(e->size, rows[i].size);
        assert_int_equal(e->packed_size, info->phy_size);
        assert_int_equal(info->num_blocks, rows[i].blocks);
        assert_int_equal(info->num_streams, rows[i].streams);
        assert_false(e->is_dir);
        fz7_archive_close(a);
    }
}

static void test_corpus_listing(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus is missing\n");
        skip();
    }
    static const struct { const char *name, *method; uint64_t size, blocks, streams; } rows[] = {
        {"good-1-3delta-lzma2.xz", "Delta:1 Delta:2 Delta:3 LZMA2:16 CRC64", 457, 1, 1},
        {"good-1-arm64-lzma2-1.xz", "ARM64 LZMA2:16 CRC32", 8576, 1, 1},
        {"good-1-empty-bcj-lzma2.xz", "PPC LZMA2:12 CRC32", 0, 1, 1},
        {"good-0cat-empty.xz", "CRC32", 0, 0, 2},
        {"good-0catpad-empty.xz", "CRC32", 0, 0, 2},
        {"unsupported-check.xz", "LZMA2:16 Check-2", 13, 1, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[4400], err[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, rows[i].name);
        fz7_archive *a = NULL;
        assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_OK);
        const fz7_archive_info *info = fz7_archive_get_info(a);
        assert_string_equal(info->method, rows[i].method);
        assert_int_equal(fz7_archive_entry(a, 0)->size, rows[i].size);
        assert_int_equal(info->num_blocks, rows[i].blocks);
        assert_int_equal(info->num_streams, rows[i].streams);
        fz7_archive_close(a);
    }
}

/* Errors carry the status and the one-line reason the brief asks for. */
static void test_corpus_error_details(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus is missing\n");
        skip();
    }
    static const struct { const char *name; fz7_status open, end; const char *text; } rows[] = {
        {"unsupported-filter_flags-1.xz", FZ7_OK, FZ7_E_UNSUPPORTED, "Unsupported filter 0x7F"},
        {"unsupported-filter_flags-2.xz", FZ7_OK, FZ7_E_UNSUPPORTED, "filter 0x03 is last"},
        {"unsupported-filter_flags-3.xz", FZ7_OK, FZ7_E_UNSUPPORTED, "LZMA2 before the last"},
        /* A reserved check ID: decoded, the check skipped (as 7-Zip 26). */
        {"unsupported-check.xz", FZ7_OK, FZ7_OK, ""},
        /* A first block header that is damaged or sets reserved bits: the
         * file does not open, as with 7zz ("Is not archive"). */
        {"unsupported-block_header.xz", FZ7_E_FORMAT, FZ7_OK, "header padding"},
        {"bad-1-block_header-3.xz", FZ7_E_FORMAT, FZ7_OK, "Block header CRC32"},
        {"bad-1-vli-1.xz", FZ7_E_FORMAT, FZ7_OK, "uncompressed size"},
        {"bad-1-vli-2.xz", FZ7_E_FORMAT, FZ7_OK, "uncompressed size"},
        {"bad-0-footer_magic.xz", FZ7_E_FORMAT, FZ7_OK, "footer magic"},
        {"bad-0-backward_size.xz", FZ7_E_FORMAT, FZ7_OK, "backward size"},
        {"bad-1-stream_flags-1.xz", FZ7_E_FORMAT, FZ7_OK, "flags differ"},
        {"bad-1-stream_flags-2.xz", FZ7_E_CRC, FZ7_OK, "header CRC32"},
        {"bad-1-stream_flags-3.xz", FZ7_E_CRC, FZ7_OK, "footer CRC32"},
        {"bad-0pad-empty.xz", FZ7_E_FORMAT, FZ7_OK, "multiple of 4"},
        {"bad-0cat-header_magic.xz", FZ7_E_FORMAT, FZ7_OK, "no stream header"},
        /* Unpadded sizes swapped between two blocks: same total, found on
         * decoding (after the first block's data went out); an index that
         * disagrees is a CRC failure, as 7-Zip reports it. */
        {"bad-2-index-1.xz", FZ7_OK, FZ7_E_CRC, "LZMA2 data ends 1 bytes before"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[4400], err[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, rows[i].name);
        tu_sink s;
        fz7_status rc = FZ7_OK;
        fz7_status st = run(path, 0, &s, &rc, err, sizeof err, NULL);
        if (st != rows[i].open)
            fail_msg("%s: open gave %s (%s)", rows[i].name, fz7_status_str(st), err);
        const char *text = st == FZ7_OK ? s.detail : err;
        if (st == FZ7_OK) {
            assert_int_equal(rc, FZ7_OK);
            if (s.end != rows[i].end)
                fail_msg("%s: end gave %s (%s)", rows[i].name, fz7_status_str(s.end), s.detail);
            if (rows[i].end == FZ7_E_UNSUPPORTED)
                assert_int_equal(s.total, 0); /* refused before any data */
        }
        if (!strstr(text, rows[i].text))
            fail_msg("%s: reason \"%s\" lacks \"%s\"", rows[i].name, text, rows[i].text);
    }
}

/* Files that are neither xz nor .lzma are left to the caller. */
static void test_not_xz(void **state)
{
    (void)state;
    char path[4400], err[256] = "";
    fz7_archive *a = NULL;
    snprintf(path, sizeof path, "%s/../filter/code.bin", own_dir());
    assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_E_FORMAT);
    assert_string_equal(err, "Cannot open the file as archive");
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", own_dir());
    assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_E_FORMAT);
    assert_null(a);
}

/* The index's records count against the memory limit. */
static void test_index_memory_limit(void **state)
{
    (void)state;
    char path[4400], err[256] = "";
    snprintf(path, sizeof path, "%s/multiblock-crc64.xz", own_dir());
    fz7_open_opts opts = {.mem_limit = 32};
    fz7_archive *a = NULL;
    assert_int_equal(fz7_archive_open(path, &opts, &a, err, sizeof err), FZ7_E_MEMLIMIT);
    assert_non_null(strstr(err, "memory"));
}

/* Streams in chunks, stops for a callback's error, honours select. */
static fz7_status refuse_data(void *ctx, const uint8_t *p, size_t n)
{
    (void)ctx;
    (void)p;
    (void)n;
    return FZ7_E_IO;
}

static void test_extract_behaviour(void **state)
{
    (void)state;
    char err[256] = "";
    fz7_archive *a = open_own("multiblock-crc64.xz", err, sizeof err);
    tu_sink s;
    tu_sink_init(&s, FZ7_OK);
    bool none[1] = {false};
    fz7_extract_cb cb = tu_sink_cb(&s);
    assert_int_equal(fz7_archive_extract(a, none, &cb, err, sizeof err), FZ7_OK);
    assert_int_equal(s.begins, 0);
    assert_int_equal(s.ends, 0);
    if (!have_lzma2()) {
        fz7_archive_close(a);
        print_message("SKIP: the rest needs the LZMA2 decoder\n");
        skip();
    }
    assert_int_equal(fz7_archive_extract(a, NULL, &cb, err, sizeof err), FZ7_OK);
    assert_int_equal(s.total, 150000);
    assert_true(s.max_chunk <= (1u << 20));
    cb.data = refuse_data;
    s.ends = 0;
    assert_int_equal(fz7_archive_extract(a, NULL, &cb, err, sizeof err), FZ7_E_IO);
    assert_int_equal(s.ends, 0);
    fz7_archive_close(a);

    /* An 8 MiB dictionary does not fit a 1 MiB limit. */
    char path[4400];
    snprintf(path, sizeof path, "%s/multiblock-crc64.xz", own_dir());
    fz7_status rc = FZ7_OK;
    assert_int_equal(run(path, 1u << 20, &s, &rc, err, sizeof err, NULL), FZ7_OK);
    assert_int_equal(rc, FZ7_OK);
    assert_int_equal(s.end, FZ7_E_MEMLIMIT);
    assert_int_equal(s.total, 0);
}

/* Every single-byte corruption of a CRC32-checked file is either refused
 * (at open, or by end()) or harmless: it never yields different data
 * reported as good. Each byte position is tried once (xor with a value that
 * varies with the position); under ASan this is also a small fuzz run. */
static void test_every_byte_corruption(void **state)
{
    (void)state;
    char path[4400], tmp[] = "/tmp/fz7_test_xz_XXXXXX";
    snprintf(path, sizeof path, "%s/check-crc32.xz", own_dir());
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t orig[8192], mut[8192];
    size_t n = fread(orig, 1, sizeof orig, f);
    fclose(f);
    assert_true(n > 100 && n < sizeof orig);
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);

    tu_sink good;
    fz7_status rc = FZ7_OK;
    char err[256];
    assert_int_equal(run(path, 0, &good, &rc, err, sizeof err, NULL), FZ7_OK);
    uint8_t want[32];
    tu_sink_digest(&good, want);

    int refused = 0, same = 0, lzma2 = have_lzma2();
    for (size_t pos = 0; pos < n; pos++) {
        memcpy(mut, orig, n);
        mut[pos] ^= (uint8_t)(1u << (pos % 8));
        f = fopen(tmp, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(mut, 1, n, f), n);
        fclose(f);
        tu_sink s;
        if (run(tmp, 0, &s, &rc, err, sizeof err, NULL) != FZ7_OK || rc != FZ7_OK ||
            s.end != FZ7_OK) {
            refused++;
            continue;
        }
        uint8_t got[32];
        tu_sink_digest(&s, got);
        if (s.total != good.total || memcmp(got, want, 32) != 0)
            fail_msg("flipping byte %zu gave different data without an error", pos);
        same++;
    }
    unlink(tmp);
    print_message("%zu corruptions: %d refused, %d harmless\n", n, refused, same);
    if (lzma2)
        assert_true(refused > (int)n * 9 / 10);
}

/* A block header from the bytes after its size byte (flags, sizes, filter
 * flags): zero padding to a multiple of 4, then its CRC32 (section 3.1).
 * Returns its size in bytes. */
static size_t block_header(uint8_t h[64], const uint8_t *fields, size_t n)
{
    size_t size = (1 + n + 4 + 3) / 4 * 4;
    memset(h, 0, 64);
    h[0] = (uint8_t)(size / 4 - 1);
    memcpy(h + 1, fields, n);
    fz7_put32le(h + size - 4, fz7_crc32(0, h, size - 4));
    return size;
}

/* The block header parser both readers use (xz_parse.c): the fields it
 * returns and the status and reason of each refusal. */
static void test_block_header_parse(void **state)
{
    (void)state;
    static const struct {
        uint8_t fields[16];
        size_t n;
        fz7_status want;
        const char *text;     /* NULL: parsed */
    } rows[] = {
        /* Compressed 0x80 (2-byte VLI), uncompressed 5, Delta:4, ARM64 at
         * 0x100000, LZMA2 dictionary byte 22. */
        {{0xC2, 0x80, 0x01, 0x05, 0x03, 0x01, 0x03, 0x0A, 0x04, 0x00, 0x00, 0x10, 0x00,
          0x21, 0x01, 0x16}, 16, FZ7_OK, NULL},
        {{0x01, 0x0B, 0x04, 0x02, 0x00, 0x00, 0x00, 0x21, 0x01, 0x00}, 10, FZ7_OK, NULL},
        {{0x01, 0x0B, 0x04, 0x03, 0x00, 0x00, 0x00, 0x21, 0x01, 0x00}, 10, FZ7_E_UNSUPPORTED,
         "BCJ start offset 3 is not aligned"},
        {{0x01, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x21, 0x01, 0x00}, 10, FZ7_E_UNSUPPORTED,
         "BCJ start offset 2 is not aligned"},
        {{0x01, 0x04, 0x02, 0x00, 0x00, 0x21, 0x01, 0x00}, 8, FZ7_E_UNSUPPORTED,
         "Unsupported BCJ properties"},
        {{0x01, 0x21, 0x01, 0x00, 0x03, 0x01, 0x00}, 7, FZ7_E_UNSUPPORTED,
         "Unsupported filter chain: LZMA2 before the last filter"},
        {{0x00, 0x03, 0x01, 0x00}, 4, FZ7_E_UNSUPPORTED,
         "Unsupported filter chain: filter 0x03 is last"},
        {{0x00, 0x7F, 0x00}, 3, FZ7_E_UNSUPPORTED, "Unsupported filter 0x7F"},
        {{0x00, 0x21, 0x01, 0x29}, 4, FZ7_E_UNSUPPORTED, "Unsupported LZMA2 properties"},
        {{0x00, 0x21, 0x02, 0x00, 0x00}, 5, FZ7_E_UNSUPPORTED, "Unsupported LZMA2 properties"},
        {{0x00, 0x03, 0x02, 0x00, 0x00}, 5, FZ7_E_UNSUPPORTED, "Unsupported Delta properties"},
        {{0x04, 0x21, 0x01, 0x00}, 4, FZ7_E_UNSUPPORTED, "Unsupported block flags 0x04"},
        {{0x00, 0x21, 0x01, 0x00, 0x00, 0x00, 0x01}, 7, FZ7_E_UNSUPPORTED,
         "Unsupported block header field (non-zero header padding)"},
        {{0x40, 0x00, 0x21, 0x01, 0x00}, 5, FZ7_E_DATA, "Bad compressed size in block header"},
        {{0x80, 0x80, 0x00, 0x21, 0x01, 0x00}, 6, FZ7_E_DATA,
         "Bad uncompressed size in block header"},
        {{0x00, 0x21, 0x05, 0x00}, 4, FZ7_E_DATA, "Block header ends inside the filter flags"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t h[64];
        size_t size = block_header(h, rows[i].fields, rows[i].n);
        fz7_xz_block_header bh;
        char detail[128] = "";
        fz7_status st = fz7_xz_block_header_parse(h, size, &bh, detail, sizeof detail);
        if (st != rows[i].want || (rows[i].text && strcmp(detail, rows[i].text) != 0))
            fail_msg("row %zu: %s \"%s\"", i, fz7_status_str(st), detail);
        assert_int_equal(bh.header_size, size);
        /* Reserved bits set: the seeking reader refuses the file at open. */
        assert_int_equal(bh.reserved_set, strstr(detail, "Unsupported block") != NULL);
    }

    uint8_t h[64];
    fz7_xz_block_header bh;
    char detail[64] = "";
    size_t size = block_header(h, rows[0].fields, rows[0].n);
    assert_int_equal(size, 24);
    assert_int_equal(fz7_xz_block_header_parse(h, size, &bh, detail, sizeof detail), FZ7_OK);
    assert_int_equal(bh.compressed, 0x80);
    assert_int_equal(bh.uncompressed, 5);
    assert_int_equal(bh.nfilters, 3);
    assert_int_equal(bh.id[0], FZ7_XZ_FILTER_DELTA);
    assert_int_equal(bh.prop[0], 4);
    assert_false(bh.has_start[0]);
    assert_int_equal(bh.id[1], FZ7_XZ_FILTER_ARM64);
    assert_int_equal(bh.prop[1], 0x100000);
    assert_true(bh.has_start[1]);
    assert_int_equal(bh.id[2], FZ7_XZ_FILTER_LZMA2);
    assert_int_equal(bh.lzma2_prop, 22);

    /* One bit of the CRC32 off. */
    h[size - 1] ^= 0x01;
    assert_int_equal(fz7_xz_block_header_parse(h, size, &bh, detail, sizeof detail), FZ7_E_DATA);
    assert_string_equal(detail, "Block header CRC32 mismatch");
    /* No room for a message: still the status. */
    assert_int_equal(fz7_xz_block_header_parse(h, size, &bh, NULL, 0), FZ7_E_DATA);
}

/* Index fields through the shared reader (section 4): the CRC32 and size
 * it keeps, VLIs, padding and the stored CRC32. */
static void test_index_reader(void **state)
{
    (void)state;
    /* Indicator, 1 record (unpadded 0x80 as 2 bytes, uncompressed 6),
     * padding to 8, CRC32. */
    uint8_t idx[12] = {0x00, 0x01, 0x80, 0x01, 0x06, 0x00, 0x00, 0x00};
    fz7_put32le(idx + 8, fz7_crc32(0, idx, 8));
    fz7_istream *in = fz7_istream_from_memory(idx + 1, sizeof idx - 1);
    fz7_xz_index_reader r = {in, 0, 0};
    fz7_xz_index_took(&r, idx, 1);
    uint64_t v;
    assert_int_equal(fz7_xz_index_vli(&r, &v), FZ7_OK);
    assert_int_equal(v, 1);
    assert_int_equal(fz7_xz_index_vli(&r, &v), FZ7_OK);
    assert_int_equal(v, 0x80);
    assert_int_equal(fz7_xz_index_vli(&r, &v), FZ7_OK);
    assert_int_equal(v, 6);
    assert_int_equal(r.size, 5);
    assert_int_equal(fz7_xz_index_padding(&r), FZ7_OK);
    assert_int_equal(r.size, 8);
    assert_int_equal(r.crc, fz7_crc32(0, idx, 8));
    assert_int_equal(fz7_xz_index_crc(&r), FZ7_OK);
    uint8_t b;
    assert_int_equal(fz7_xz_index_byte(&r, &b), FZ7_E_TRUNCATED);
    fz7_istream_free(in);

    /* Non-zero padding, a wrong CRC32, a non-minimal VLI, a VLI cut off. */
    idx[6] = 0x01;
    in = fz7_istream_from_memory(idx + 5, 7);
    r = (fz7_xz_index_reader){in, 0, 5};
    assert_int_equal(fz7_xz_index_padding(&r), FZ7_E_DATA);
    fz7_istream_free(in);
    idx[6] = 0x00;
    in = fz7_istream_from_memory(idx + 8, 4);
    r = (fz7_xz_index_reader){in, 1, 8};
    assert_int_equal(fz7_xz_index_crc(&r), FZ7_E_CRC);
    fz7_istream_free(in);
    static const uint8_t non_minimal[2] = {0x81, 0x00};
    in = fz7_istream_from_memory(non_minimal, 2);
    r = (fz7_xz_index_reader){in, 0, 0};
    assert_int_equal(fz7_xz_index_vli(&r, &v), FZ7_E_DATA);
    fz7_istream_free(in);
    in = fz7_istream_from_memory(non_minimal, 1);
    r = (fz7_xz_index_reader){in, 0, 0};
    assert_int_equal(fz7_xz_index_vli(&r, &v), FZ7_E_TRUNCATED);
    fz7_istream_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_manifest),
        cmocka_unit_test(test_corpus_manifest),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_corpus_listing),
        cmocka_unit_test(test_corpus_error_details),
        cmocka_unit_test(test_not_xz),
        cmocka_unit_test(test_index_memory_limit),
        cmocka_unit_test(test_extract_behaviour),
        cmocka_unit_test(test_every_byte_corruption),
        cmocka_unit_test(test_block_header_parse),
        cmocka_unit_test(test_index_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
