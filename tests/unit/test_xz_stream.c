/* test_xz_stream.c - the forward .xz reader (fz7_archive_open_fd) fed
 * through a real pipe in small, odd-sized writes: on every .xz file of the
 * shared corpus and of tests/data/xz it must agree with the seeking reader
 * (same result, same bytes, same size), give the manifest's SHA-256 for good
 * files, and refuse what cannot be read without seeking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "format/archive.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------ */

static const char *dir_of(const char *rel)
{
    static char path[2][4096];
    static int which;
    which ^= 1;
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    snprintf(path[which], sizeof path[which], "%.*s/%s", slash ? (int)(slash - here) : 1,
             slash ? here : ".", rel);
    return path[which];
}

static const char *corpus_dir(void) { return tu_shared_dir("corpus/xz"); }

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    if (b && len > 0 && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = len > 0 ? (size_t)len : 0;
    return b;
}

/* A pipe whose write end a child process fills with data in writes of 1
 * to 13 bytes (a fixed pattern), so reads see every kind of boundary. */
typedef struct feeder {
    int fd;
    pid_t pid;
} feeder;

static feeder feed(const uint8_t *data, size_t n)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_DFL);
        size_t pos = 0, step = 0;
        while (pos < n) {
            size_t k = 1 + (step++ * 7) % 13;
            if (k > n - pos)
                k = n - pos;
            ssize_t w = write(p[1], data + pos, k);
            if (w <= 0)
                _exit(1);
            pos += (size_t)w;
        }
        _exit(0);
    }
    close(p[1]);
    return (feeder){p[0], pid};
}

static void unfeed(feeder *f)
{
    close(f->fd); /* the child may still be writing after an early error */
    int status;
    waitpid(f->pid, &status, 0);
}

/* What an extraction produced. */
typedef struct result {
    fz7_status open_st;
    tu_sink sink;   /* sink.end: the entry's result, or the fatal one */
    uint64_t entry_size, phy_size, blocks, streams;
    bool has_size;
} result;

static void run_extract(fz7_archive *a, result *r)
{
    fz7_extract_cb cb = tu_sink_cb(&r->sink);
    char err[256];
    fz7_status st = fz7_archive_extract(a, NULL, &cb, err, sizeof err);
    if (st != FZ7_OK)
        r->sink.end = st;
    const fz7_entry *e = fz7_archive_entry(a, 0);
    r->entry_size = e->size;
    r->has_size = e->has_size;
    r->phy_size = fz7_archive_get_info(a)->phy_size;
    r->blocks = fz7_archive_get_info(a)->num_blocks;
    r->streams = fz7_archive_get_info(a)->num_streams;
}

static void through_pipe(const uint8_t *data, size_t n, const char *name, result *r)
{
    memset(r, 0, sizeof *r);
    tu_sink_init(&r->sink, FZ7_OK);
    feeder f = feed(data, n);
    fz7_archive *a = NULL;
    char err[256];
    r->open_st = fz7_archive_open_fd(f.fd, name, NULL, &a, err, sizeof err);
    if (r->open_st == FZ7_OK) {
        run_extract(a, r);
        fz7_archive_close(a);
    }
    unfeed(&f);
}

static void by_path(const char *path, result *r)
{
    memset(r, 0, sizeof *r);
    tu_sink_init(&r->sink, FZ7_OK);
    fz7_archive *a = NULL;
    char err[256];
    r->open_st = fz7_archive_open(path, NULL, &a, err, sizeof err);
    if (r->open_st == FZ7_OK) {
        run_extract(a, r);
        fz7_archive_close(a);
    }
}

/* The manifest's expectation for a file name: "ok" with its SHA-256, or
 * "error"; NULL when the file is not listed. */
static const char *manifest_expect(const char *dir, const char *file, char sha[65])
{
    static char expect[16];
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    const char *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        char name[512], exp[16], size[32], digest[80];
        if (line[0] == '#' || sscanf(line, "%511s %15s %31s %79s", name, exp, size, digest) != 4)
            continue;
        if (strcmp(name, file) == 0) {
            snprintf(expect, sizeof expect, "%s", exp);
            snprintf(sha, 65, "%.64s", digest);
            found = expect;
        }
        /* A reserved check ID: decoded, the check skipped (as 7-Zip 26). */
        if (found && strcmp(file, "unsupported-check.xz") == 0) {
            snprintf(expect, sizeof expect, "ok");
            snprintf(sha, 65, "8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046");
        }
    }
    fclose(f);
    return found;
}

/* Every .xz file of dir: the pipe reader agrees with the seeking one. */
static unsigned compare_dir(const char *dir, unsigned *good)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    unsigned files = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 3, ".xz") != 0)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n;
        uint8_t *data = slurp(path, &n);
        assert_non_null(data);
        result p, s;
        through_pipe(data, n, "x", &p);
        by_path(path, &s);
        char ph[65], sh[65], want[65] = "";
        tu_sink_hex(&p.sink, ph);
        tu_sink_hex(&s.sink, sh);
        const char *expect = manifest_expect(dir, de->d_name, want);
        bool seek_ok = s.open_st == FZ7_OK && s.sink.end == FZ7_OK;
        bool pipe_ok = p.open_st == FZ7_OK && p.sink.end == FZ7_OK;
        if (seek_ok != pipe_ok || (expect && (strcmp(expect, "ok") == 0) != pipe_ok))
            print_error("%s: pipe %s (%d/%d %s), seeking %s (%d/%d), manifest %s\n", de->d_name,
                        pipe_ok ? "ok" : "error", p.open_st, p.sink.end, p.sink.detail,
                        seek_ok ? "ok" : "error", s.open_st, s.sink.end, expect ? expect : "-");
        assert_int_equal(seek_ok, pipe_ok);
        if (expect)
            assert_int_equal(strcmp(expect, "ok") == 0, pipe_ok);
        if (pipe_ok) {
            (*good)++;
            assert_string_equal(ph, sh);
            if (expect)
                assert_string_equal(ph, want);
            assert_true(p.has_size);
            assert_int_equal(p.sink.total, p.entry_size);
            assert_int_equal(p.entry_size, s.entry_size);
            assert_int_equal(p.phy_size, n);
            assert_int_equal(p.blocks, s.blocks);
            assert_int_equal(p.streams, s.streams);
        }
        free(data);
        files++;
    }
    closedir(d);
    return files;
}

/* ---- tests ------------------------------------------------------------ */

static void test_corpus_agrees(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: shared corpus absent\n");
        skip();
    }
    unsigned good = 0, files = compare_dir(dir, &good);
    assert_true(files >= 40);
    assert_true(good >= 15);
}

static void test_own_vectors_agree(void **state)
{
    (void)state;
    unsigned good = 0, files = compare_dir(dir_of("../data/xz"), &good);
    assert_true(files >= 15);
    assert_true(good >= 10);
}

/* An xz stream built here: one block of "hello\n" (LZMA2 uncompressed
 * chunk), CRC32 check, so fields can be broken one at a time. */
static size_t build_xz(uint8_t *out, uint64_t index_uncompressed)
{
    static const uint8_t text[] = "hello\n";
    size_t n = 0;
    const uint8_t header[12] = {0xFD, '7', 'z', 'X', 'Z', 0, 0, 1};
    memcpy(out, header, 12);
    fz7_put32le(out + 8, fz7_crc32(0, out + 6, 2));
    n = 12;
    size_t bh = n;
    const uint8_t block_header[12] = {0x02, 0x00, 0x21, 0x01, 0x00, 0, 0, 0};
    memcpy(out + n, block_header, 8);
    fz7_put32le(out + n + 8, fz7_crc32(0, out + n, 8));
    n += 12;
    out[n++] = 0x01; /* uncompressed chunk, dictionary reset */
    out[n++] = 0x00;
    out[n++] = 0x05; /* 6 bytes */
    memcpy(out + n, text, 6);
    n += 6;
    out[n++] = 0x00; /* end of LZMA2 */
    size_t unpadded = n - bh + 4;
    while (n % 4)
        out[n++] = 0;
    fz7_put32le(out + n, fz7_crc32(0, text, 6));
    n += 4;
    size_t index = n;
    out[n++] = 0x00;
    out[n++] = 0x01;
    out[n++] = (uint8_t)unpadded;
    out[n++] = (uint8_t)index_uncompressed;
    while ((n - index) % 4)
        out[n++] = 0;
    fz7_put32le(out + n, fz7_crc32(0, out + index, n - index));
    n += 4;
    size_t index_size = n - index;
    fz7_put32le(out + n + 4, (uint32_t)(index_size / 4 - 1));
    out[n + 8] = 0;
    out[n + 9] = 1;
    fz7_put32le(out + n, fz7_crc32(0, out + n + 4, 6));
    out[n + 10] = 'Y';
    out[n + 11] = 'Z';
    return n + 12;
}

static void test_built_stream(void **state)
{
    (void)state;
    uint8_t buf[128];
    size_t n = build_xz(buf, 6);
    result r;
    through_pipe(buf, n, NULL, &r);
    assert_int_equal(r.open_st, FZ7_OK);
    assert_int_equal(r.sink.end, FZ7_OK);
    assert_int_equal(r.sink.total, 6);
    assert_int_equal(r.entry_size, 6);
    assert_int_equal(r.phy_size, n);
    assert_int_equal(r.blocks, 1);
    assert_int_equal(r.streams, 1);

    /* The index says 7 bytes where the block gave 6: caught only by
     * comparing with the block seen (the index CRC is recomputed). */
    n = build_xz(buf, 7);
    through_pipe(buf, n, NULL, &r);
    assert_int_equal(r.open_st, FZ7_OK);
    assert_int_equal(r.sink.end, FZ7_E_CRC); /* 7-Zip's "CRC Failed" */
    assert_non_null(strstr(r.sink.detail, "Index record 1"));

    /* Stream padding of 4 zero bytes then a second stream: two streams;
     * 2 bytes of padding: an error. */
    n = build_xz(buf, 6);
    uint8_t two[300];
    memcpy(two, buf, n);
    memset(two + n, 0, 4);
    memcpy(two + n + 4, buf, n);
    through_pipe(two, 2 * n + 4, NULL, &r);
    assert_int_equal(r.sink.end, FZ7_OK);
    assert_int_equal(r.sink.total, 12);
    assert_int_equal(r.streams, 2);
    assert_int_equal(r.phy_size, 2 * n + 4);
    memset(two + n, 0, 2);
    through_pipe(two, n + 2, NULL, &r);
    assert_int_equal(r.sink.end, FZ7_E_TRUNCATED); /* 7-Zip's "Unexpected end of data" */

    /* Cut anywhere: never OK. */
    for (size_t cut = 12; cut < n; cut++) {
        through_pipe(buf, cut, NULL, &r);
        assert_int_equal(r.open_st, FZ7_OK);
        assert_true(r.sink.end != FZ7_OK);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    char err[256];
    fz7_archive *a = NULL;
    /* A 7z signature: its headers are at the end, so the pipe is copied
     * to a temporary file first, which the 7z reader then opens: here it
     * finds the start header's CRC wrong (all zeros but the version):
     * not an archive, as 7-Zip says. */
    static const uint8_t sig7z[32] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4};
    feeder f = feed(sig7z, sizeof sig7z);
    assert_int_equal(fz7_archive_open_fd(f.fd, NULL, NULL, &a, err, sizeof err), FZ7_E_FORMAT);
    assert_null(a);
    assert_null(strstr(err, "pipe"));
    unfeed(&f);
    /* Empty input and text: not an archive. */
    f = feed(sig7z, 0);
    assert_int_equal(fz7_archive_open_fd(f.fd, NULL, NULL, &a, err, sizeof err), FZ7_E_FORMAT);
    unfeed(&f);
    f = feed((const uint8_t *)"hello world\n", 12);
    assert_int_equal(fz7_archive_open_fd(f.fd, NULL, NULL, &a, err, sizeof err), FZ7_E_FORMAT);
    unfeed(&f);

    /* The entry's name, and extraction only once. */
    uint8_t buf[128];
    size_t n = build_xz(buf, 6);
    f = feed(buf, n);
    assert_int_equal(fz7_archive_open_fd(f.fd, NULL, NULL, &a, err, sizeof err), FZ7_OK);
    assert_string_equal(fz7_archive_entry(a, 0)->path, "~");
    assert_false(fz7_archive_entry(a, 0)->has_size);
    result r = {0};
    tu_sink_init(&r.sink, FZ7_OK);
    run_extract(a, &r);
    assert_int_equal(r.sink.end, FZ7_OK);
    fz7_extract_cb cb = tu_sink_cb(&r.sink);
    assert_int_equal(fz7_archive_extract(a, NULL, &cb, err, sizeof err), FZ7_E_ARG);
    fz7_archive_close(a);
    unfeed(&f);
    f = feed(buf, n);
    assert_int_equal(fz7_archive_open_fd(f.fd, "notes.txt", NULL, &a, err, sizeof err), FZ7_OK);
    assert_string_equal(fz7_archive_entry(a, 0)->path, "notes.txt");
    fz7_archive_close(a); /* closed without reading: the fd stays the caller's */
    unfeed(&f);
}

/* Both readers parse block headers with the same code (xz_parse.c): a
 * RISC-V filter before LZMA2 reads through a pipe as from a file, and a
 * refused filter chain gives the same reason both ways. */
static void test_same_block_headers(void **state)
{
    (void)state;
    static const struct {
        uint8_t header[8];      /* the block header before its CRC32 */
        fz7_status want;
        const char *text;
    } rows[] = {
        {{0x02, 0x01, 0x0B, 0x00, 0x21, 0x01, 0x00, 0x00}, FZ7_OK, ""},
        {{0x02, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00}, FZ7_E_UNSUPPORTED,
         "Unsupported filter chain: filter 0x03 is last"},
        {{0x02, 0x01, 0x21, 0x01, 0x00, 0x03, 0x01, 0x00}, FZ7_E_UNSUPPORTED,
         "Unsupported filter chain: LZMA2 before the last filter"},
        {{0x02, 0x01, 0x7F, 0x00, 0x21, 0x01, 0x00, 0x00}, FZ7_E_UNSUPPORTED,
         "Unsupported filter 0x7F"},
    };
    char path[] = "/tmp/fz7_test_xz_stream_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t buf[128];
        size_t n = build_xz(buf, 6);
        /* Same 12 bytes as build_xz's header: the index stays right. */
        memcpy(buf + 12, rows[i].header, 8);
        fz7_put32le(buf + 20, fz7_crc32(0, buf + 12, 8));
        tu_save(path, buf, n);
        result p, s;
        through_pipe(buf, n, NULL, &p);
        by_path(path, &s);
        assert_int_equal(p.open_st, FZ7_OK);
        assert_int_equal(s.open_st, FZ7_OK);
        if (p.sink.end != rows[i].want || s.sink.end != rows[i].want ||
            strcmp(p.sink.detail, rows[i].text) != 0 || strcmp(s.sink.detail, rows[i].text) != 0)
            fail_msg("row %zu: pipe %d \"%s\", file %d \"%s\"", i, p.sink.end, p.sink.detail,
                     s.sink.end, s.sink.detail);
        assert_int_equal(p.sink.total, rows[i].want == FZ7_OK ? 6 : 0);
        assert_int_equal(s.sink.total, p.sink.total);
    }
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built_stream),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_own_vectors_agree),
        cmocka_unit_test(test_corpus_agrees),
        cmocka_unit_test(test_same_block_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
