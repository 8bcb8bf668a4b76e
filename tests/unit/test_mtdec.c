/* test_mtdec.c - multi-threaded decoding of multi-block xz files and
 * non-solid 7z archives: every thread count gives the same bytes, the same
 * callbacks and the same errors (at the same block) as one thread. Archives
 * are written with fz7's own writers; damaged copies are made byte by byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"
#include "format/decode_pool.h"
#include "format/xz/xz_write.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma_presets.h"
#include "test_util.h"

/* Text-like bytes from a fixed seed: words from a small vocabulary, so
 * LZMA finds matches and a block is far from incompressible. */
static uint8_t *make_data(size_t n, uint32_t seed)
{
    static const char *const words[] = {"folder ", "coder ", "stream ", "block ", "index ",
                                        "check ", "literal ", "match ", "rep0 ", "dictionary ",
                                        "\n", "0123 ", "range ", "price "};
    uint8_t *p = malloc(n);
    assert_non_null(p);
    uint32_t x = seed ? seed : 1;
    for (size_t i = 0; i < n;) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const char *w = words[x % (sizeof words / sizeof words[0])];
        for (size_t k = 0; w[k] && i < n; k++)
            p[i++] = (uint8_t)(w[k] ^ ((x >> 8) % 7 == 0 ? 0x20 : 0));
    }
    return p;
}

static char *tmp_path(const char *suffix)
{
    static unsigned counter;
    char *p = malloc(256);
    assert_non_null(p);
    snprintf(p, 256, "/tmp/fz7_test_mtdec_%ld_%u%s", (long)getpid(), counter++, suffix);
    return p;
}

/* ---- What extraction reported ------------------------------------------ */

typedef struct {
    tu_sink sink;          /* sizes, CRC-32s, SHA-256, max_chunk, fail_after */
    char log[8192];        /* B<index> ... #<index>:<status>:<bytes>:<crc>:<detail> */
    size_t log_len;
    uint32_t entry_crc[16];
    uint64_t entry_size[16];
} recorder;

static void log_add(recorder *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(r->log + r->log_len, sizeof r->log - r->log_len, fmt, ap);
    va_end(ap);
    assert_true(k > 0 && (size_t)k < sizeof r->log - r->log_len);
    r->log_len += (size_t)k;
}

static void log_begin(void *user, size_t index)
{
    log_add(user, "B%zu ", index);
}

static void log_end(void *user, size_t index, fz7_status result, const char *detail)
{
    recorder *r = user;
    if (index < 16) {
        r->entry_crc[index] = r->sink.entry_crc;
        r->entry_size[index] = r->sink.entry_bytes;
    }
    log_add(r, "#%zu:%d:%llu:%08x:%s\n", index, (int)result,
            (unsigned long long)r->sink.entry_bytes, (unsigned)r->sink.entry_crc,
            detail ? detail : "-");
}

/* Opens path with `threads` decoder threads and extracts (select may be
 * NULL) into r; returns the extract status. */
static fz7_status run(const char *path, unsigned threads, uint64_t mem_limit, const bool *select,
                      uint64_t fail_after, recorder *r)
{
    memset(r, 0, sizeof *r);
    tu_sink_init(&r->sink, FZ7_OK);
    r->sink.fail_after = fail_after;   /* data() refuses once total would pass it (0: never) */
    r->sink.user = r;
    r->sink.begin_hook = log_begin;
    r->sink.end_hook = log_end;
    fz7_open_opts o = {.mem_limit = mem_limit, .threads = threads};
    fz7_archive *a = NULL;
    char err[256] = "";
    fz7_status st = fz7_archive_open(path, &o, &a, err, sizeof err);
    assert_int_equal(st, FZ7_OK);
    fz7_extract_cb cb = tu_sink_cb(&r->sink);
    st = fz7_archive_extract(a, select, &cb, err, sizeof err);
    fz7_archive_close(a);
    return st;
}

/* ---- xz ---------------------------------------------------------------- */

#define XZ_DATA_BYTES ((size_t)1500 * 1000)
#define XZ_BLOCK_BYTES ((uint64_t)64 << 10)

static char *make_xz(const uint8_t *data, size_t n, uint64_t block_size, fz7_xz_check check)
{
    char *path = tmp_path(".xz");
    FILE *f = fopen(path, "w+b");
    assert_non_null(f);
    fz7_xz_opts o;
    memset(&o, 0, sizeof o);
    assert_int_equal(fz7_lzma_enc_preset(&o.lzma, 1), FZ7_OK);
    o.check = check;
    o.block_size = block_size;
    fz7_xz_writer *w;
    assert_int_equal(fz7_xz_writer_new(fileno(f), &o, &w), FZ7_OK);
    assert_int_equal(fz7_xz_writer_write(w, data, n), FZ7_OK);
    assert_int_equal(fz7_xz_writer_finish(w), FZ7_OK);
    fz7_xz_writer_free(w);
    fclose(f);
    return path;
}

/* 23 blocks: every thread count gives the input back, in chunks of at
 * most 256 KiB, with one begin and one OK end. */
static void test_xz_threads_agree(void **state)
{
    (void)state;
    uint8_t *data = make_data(XZ_DATA_BYTES, 7);
    uint32_t want = fz7_crc32(0, data, XZ_DATA_BYTES);
    char *path = make_xz(data, XZ_DATA_BYTES, XZ_BLOCK_BYTES, FZ7_XZ_CHECK_CRC64);
    char want_log[128];
    snprintf(want_log, sizeof want_log, "B0 #0:0:%zu:%08x:-\n", XZ_DATA_BYTES, (unsigned)want);
    static const unsigned threads[] = {1, 2, 3, 8, 0};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        recorder r;
        assert_int_equal(run(path, threads[i], 0, NULL, 0, &r), FZ7_OK);
        assert_string_equal(r.log, want_log);
        assert_true(r.sink.max_chunk <= (256u << 10));
    }
    /* A memory limit that leaves no room for block buffers: blocks are
     * streamed by the calling thread, same result. 16 MiB / 2 / 16 slots
     * = 512 KiB per block; 1 MiB blocks do not fit. */
    char *big = make_xz(data, XZ_DATA_BYTES, (uint64_t)1 << 20, FZ7_XZ_CHECK_SHA256);
    recorder r;
    assert_int_equal(run(big, 8, 16u << 20, NULL, 0, &r), FZ7_OK);
    assert_string_equal(r.log, want_log);
    unlink(big);
    free(big);
    unlink(path);
    free(path);
    free(data);
}

/* One changed byte at many places of a multi-block file: threads 2 and 4
 * report exactly what one thread reports (status, detail, the bytes
 * delivered before the damaged block and their CRC). */
static void test_xz_damage_agrees(void **state)
{
    (void)state;
    uint8_t *data = make_data(XZ_DATA_BYTES, 11);
    char *path = make_xz(data, XZ_DATA_BYTES, XZ_BLOCK_BYTES, FZ7_XZ_CHECK_CRC32);
    size_t n;
    uint8_t *raw = tu_load_existing(path, &n);
    char *bad = tmp_path(".xz");
    unsigned failures = 0, partial = 0;
    /* Blocks start after the 12-byte stream header; the index and footer
     * are at the end (damage there fails at open, which is not this test). */
    for (size_t k = 1; k < 40; k++) {
        size_t off = 12 + (n - 12 - 400) * k / 40;
        raw[off] ^= 0x5A;
        tu_save(bad, raw, n);
        raw[off] ^= 0x5A;
        recorder one, many;
        fz7_open_opts o = {.threads = 1};
        fz7_archive *a = NULL;
        char err[256];
        if (fz7_archive_open(bad, &o, &a, err, sizeof err) != FZ7_OK)
            continue;
        fz7_archive_close(a);
        fz7_status s1 = run(bad, 1, 0, NULL, 0, &one);
        for (unsigned t = 2; t <= 4; t += 2) {
            fz7_status s2 = run(bad, t, 0, NULL, 0, &many);
            assert_int_equal(s1, s2);
            if (strcmp(one.log, many.log) != 0)
                fail_msg("offset %zu, %u threads:\n%s\nvs one thread:\n%s", off, t, many.log,
                         one.log);
        }
        if (!strstr(one.log, "#0:0:"))
            failures++;
        if (one.sink.total > 0 && one.sink.total < XZ_DATA_BYTES)
            partial++;
    }
    /* The damage was seen, and mostly in a block after the first. */
    assert_true(failures >= 30);
    assert_true(partial >= 20);
    unlink(bad);
    free(bad);
    unlink(path);
    free(path);
    free(raw);
    free(data);
}

/* A callback's error stops extraction with that status, after the same
 * bytes, and end() is not called. */
static void test_xz_callback_error(void **state)
{
    (void)state;
    uint8_t *data = make_data(XZ_DATA_BYTES, 3);
    char *path = make_xz(data, XZ_DATA_BYTES, XZ_BLOCK_BYTES, FZ7_XZ_CHECK_CRC64);
    for (unsigned t = 1; t <= 4; t++) {
        recorder r;
        assert_int_equal(run(path, t, 0, NULL, 700000, &r), FZ7_E_IO);
        assert_string_equal(r.log, "B0 ");
        assert_int_equal(r.sink.total, 10 * XZ_BLOCK_BYTES);   /* whole 64 KiB blocks fit */
        assert_int_equal(r.sink.entry_crc, fz7_crc32(0, data, (size_t)r.sink.total));
    }
    unlink(path);
    free(path);
    free(data);
}

/* ---- 7z ---------------------------------------------------------------- */

#define N7 9

static size_t sizes7[N7] = {300000, 0, 120000, 5, 450000, 70000, 70001, 200000, 1};
/* Folder of each file: files 5 and 6 share one (a two-file solid block);
 * file 1 is empty (no folder). */
static const int folder7[N7] = {0, -1, 1, 2, 3, 4, 4, 5, 6};

static char *make_7z(uint8_t *data[N7])
{
    char *path = tmp_path(".7z");
    FILE *f = fopen(path, "w+b");
    assert_non_null(f);
    fz7_7z_writer *w;
    assert_int_equal(fz7_7z_writer_new(fileno(f), &w), FZ7_OK);
    int open_folder = -1;
    for (size_t i = 0; i < N7; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%zu", i);
        fz7_7z_entry_meta m = {.name = name, .attrib = fz7_7z_attrib_from_mode(S_IFREG | 0644),
                               .is_dir = false, .has_mtime = true, .mtime = 1600000000,
                               .mtime_nsec = 0};
        if (folder7[i] < 0) {
            assert_int_equal(fz7_7z_writer_add_empty(w, &m), FZ7_OK);
            continue;
        }
        if (folder7[i] != open_folder) {
            if (open_folder >= 0)
                assert_int_equal(fz7_7z_writer_end_folder(w), FZ7_OK);
            fz7_7z_folder_opts fo;
            memset(&fo, 0, sizeof fo);
            fo.method = FZ7_7Z_LZMA2;
            assert_int_equal(fz7_lzma_enc_preset(&fo.lzma, 1), FZ7_OK);
            assert_int_equal(fz7_7z_writer_begin_folder(w, &fo), FZ7_OK);
            open_folder = folder7[i];
        }
        assert_int_equal(fz7_7z_writer_begin_file(w, &m), FZ7_OK);
        assert_int_equal(fz7_7z_writer_write(w, data[i], sizes7[i]), FZ7_OK);
        assert_int_equal(fz7_7z_writer_end_file(w), FZ7_OK);
    }
    assert_int_equal(fz7_7z_writer_end_folder(w), FZ7_OK);
    assert_int_equal(fz7_7z_writer_finish(w, NULL), FZ7_OK);
    fz7_7z_writer_free(w);
    fclose(f);
    return path;
}

static void free7(uint8_t *data[N7])
{
    for (size_t i = 0; i < N7; i++)
        free(data[i]);
}

static void make7_data(uint8_t *data[N7])
{
    for (size_t i = 0; i < N7; i++)
        data[i] = make_data(sizes7[i] ? sizes7[i] : 1, (uint32_t)(100 + i));
}

/* Seven folders, one holding two files: all thread counts give every file
 * back with its CRC, also for selections. */
static void test_7z_threads_agree(void **state)
{
    (void)state;
    uint8_t *data[N7];
    make7_data(data);
    char *path = make_7z(data);
    static const bool sel_a[N7] = {false, false, true, false, false, false, true, false, false};
    static const bool sel_b[N7] = {true, true, false, false, false, true, false, false, true};
    const bool *sels[] = {NULL, sel_a, sel_b};
    for (size_t s = 0; s < 3; s++) {
        recorder one;
        assert_int_equal(run(path, 1, 0, sels[s], 0, &one), FZ7_OK);
        for (size_t i = 0; i < N7; i++) {
            if (sels[s] && !sels[s][i])
                continue;
            assert_int_equal(one.entry_size[i], sizes7[i]);
            assert_int_equal(one.entry_crc[i], fz7_crc32(0, data[i], sizes7[i]));
        }
        for (unsigned t = 2; t <= 5; t++) {
            recorder many;
            assert_int_equal(run(path, t, 0, sels[s], 0, &many), FZ7_OK);
            assert_string_equal(many.log, one.log);
        }
    }
    /* Folders too large for the per-job budget are streamed here:
     * 4 MiB / 2 / 4 slots = 512 KiB; none is that large, so use 2 MiB:
     * 256 KiB, and folders 0 and 3 (300000, 450000 bytes) are streamed. */
    recorder one, many;
    assert_int_equal(run(path, 1, 0, NULL, 0, &one), FZ7_OK);
    assert_int_equal(run(path, 2, 2u << 20, NULL, 0, &many), FZ7_OK);
    assert_string_equal(many.log, one.log);
    unlink(path);
    free(path);
    free7(data);
}

/* Damaged pack data: the same entries fail, with the same messages, and
 * the others come out whole, on any thread count. */
static void test_7z_damage_agrees(void **state)
{
    (void)state;
    uint8_t *data[N7];
    make7_data(data);
    char *path = make_7z(data);
    size_t n;
    uint8_t *raw = tu_load_existing(path, &n);
    char *bad = tmp_path(".7z");
    unsigned damaged = 0;
    /* Pack streams follow the 32-byte signature header; the header is at
     * the end, and is avoided by staying below 80% of the file. */
    for (size_t k = 1; k < 24; k++) {
        size_t off = 32 + (n * 8 / 10 - 32) * k / 24;
        raw[off] ^= 0x21;
        tu_save(bad, raw, n);
        raw[off] ^= 0x21;
        recorder one, many;
        assert_int_equal(run(bad, 1, 0, NULL, 0, &one), FZ7_OK);
        for (unsigned t = 2; t <= 4; t += 2) {
            assert_int_equal(run(bad, t, 0, NULL, 0, &many), FZ7_OK);
            if (strcmp(one.log, many.log) != 0)
                fail_msg("offset %zu, %u threads:\n%s\nvs one thread:\n%s", off, t, many.log,
                         one.log);
        }
        /* Entries reported good are whole; count the runs where one failed. */
        bool any_failed = false;
        for (const char *l = one.log; (l = strchr(l, '#')) != NULL; l++) {
            unsigned idx;
            int status;
            assert_int_equal(sscanf(l, "#%u:%d:", &idx, &status), 2);
            if (status != 0) {
                any_failed = true;
                continue;
            }
            assert_int_equal(one.entry_size[idx], sizes7[idx]);
            assert_int_equal(one.entry_crc[idx], fz7_crc32(0, data[idx], sizes7[idx]));
        }
        damaged += any_failed;
    }
    assert_true(damaged >= 12);
    unlink(bad);
    free(bad);
    unlink(path);
    free(path);
    free(raw);
    free7(data);
}

/* ---- The pool itself ---------------------------------------------------- */

#define POOL_JOBS 200
#define POOL_WINDOW 5

typedef struct {
    pthread_mutex_t lock;
    pthread_t consumer;
    size_t consumed;            /* jobs the consumer released */
    unsigned window_violations; /* jobs started beyond the window */
    unsigned on_consumer;       /* jobs run on the consumer's thread */
    size_t slot_value[POOL_WINDOW];
} pool_probe;

static void pool_job(void *ctx, size_t j, size_t slot)
{
    pool_probe *p = ctx;
    pthread_mutex_lock(&p->lock);
    if (j >= p->consumed + POOL_WINDOW || slot != j % POOL_WINDOW)
        p->window_violations++;
    if (pthread_equal(pthread_self(), p->consumer))
        p->on_consumer++;
    pthread_mutex_unlock(&p->lock);
    p->slot_value[slot] = j * 7 + 1;
}

/* Jobs run on worker threads, never more than the window ahead of the
 * consumer, and their results wait in their slot; stopping early with jobs
 * left returns. */
static void test_pool_order_and_window(void **state)
{
    (void)state;
    assert_int_equal(fz7_decode_threads(3, 2), 2);
    assert_int_equal(fz7_decode_threads(500, 1000), FZ7_DECODE_THREADS_MAX);
    assert_true(fz7_decode_threads(0, 1000) >= 1);
    for (unsigned threads = 1; threads <= 4; threads++) {
        pool_probe p = {.consumer = pthread_self()};
        pthread_mutex_init(&p.lock, NULL);
        fz7_decode_pool *pool = fz7_decode_pool_start(POOL_JOBS, threads, POOL_WINDOW, pool_job, &p);
        assert_non_null(pool);
        for (size_t j = 0; j < POOL_JOBS; j++) {
            if (threads == 4 && j == 50)
                break;   /* stop with jobs left */
            size_t slot = fz7_decode_pool_wait(pool, j);
            assert_int_equal(slot, j % POOL_WINDOW);
            assert_int_equal(p.slot_value[slot], j * 7 + 1);
            pthread_mutex_lock(&p.lock);
            p.consumed = j + 1;
            pthread_mutex_unlock(&p.lock);
            fz7_decode_pool_release(pool, j);
        }
        fz7_decode_pool_stop(pool);
        assert_int_equal(p.window_violations, 0);
        assert_int_equal(p.on_consumer, 0);
        pthread_mutex_destroy(&p.lock);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_order_and_window),
        cmocka_unit_test(test_xz_threads_agree),
        cmocka_unit_test(test_xz_damage_agrees),
        cmocka_unit_test(test_xz_callback_error),
        cmocka_unit_test(test_7z_threads_agree),
        cmocka_unit_test(test_7z_damage_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
