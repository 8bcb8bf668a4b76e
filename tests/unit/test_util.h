/* test_util.h - helpers the unit tests share: whole-file read and write,
 * an in-memory ostream, hex and SHA-256 hex digests, the shared corpus
 * folder, and an extraction sink that hashes what fz7_archive_extract
 * gives it. Include it after <cmocka.h>: the helpers assert with cmocka. */
#ifndef FZ7_TEST_UTIL_H
#define FZ7_TEST_UTIL_H

#include "check/check.h"
#include "cpu/cpu.h"
#include "format/archive.h"
#include "fz7_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* xorshift64: the tests' reproducible pseudo-random numbers (the top 32
 * bits of the next state of *x, which must not be 0). */
static inline uint32_t tu_rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (uint32_t)(*x >> 32);
}

/* A small linear congruential generator (bits 8..31 of the next state):
 * the fixed-seed data of the codec tests, whose pinned sizes and CRCs
 * depend on it. */
static inline uint32_t tu_lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Text-like bytes: words from a list of 8, now and then a random byte. */
static inline void tu_fill_text(uint8_t *p, size_t n, uint32_t seed)
{
    static const char *words[] = {"the ", "codec ", "window ", "of\n", "Huffman ", "range ", "7z ", "data, "};
    size_t o = 0;
    while (o < n) {
        const char *w = words[tu_lcg(&seed) % 8];
        for (size_t i = 0; w[i] && o < n; i++)
            p[o++] = (uint8_t)w[i];
        if (tu_lcg(&seed) % 64 == 0 && o < n)
            p[o++] = (uint8_t)tu_lcg(&seed);
    }
}

/* Prints the CPU levels above this CPU's highest, which a test that runs
 * every level cannot cover here. */
static inline void tu_print_skipped_levels(const char *test)
{
    for (int l = (int)fz7_cpu_max_level() + 1; l <= (int)FZ7_LEVEL_AVX512; l++)
        printf("%s: SKIP level %s (CPU/OS lacks it)\n", test, fz7_cpu_level_name((fz7_cpu_level)l));
}

/* The whole file at path in a malloc'ed buffer (at least 1 byte), its
 * size in *n; NULL when the file cannot be opened. A short read fails. */
static inline uint8_t *tu_load(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* tu_load for a file that must exist: a missing one fails the test. */
static inline uint8_t *tu_load_existing(const char *path, size_t *n)
{
    uint8_t *p = tu_load(path, n);
    if (!p)
        fail_msg("cannot open %s", path);
    return p;
}

/* Writes p[0..n) to path (created or truncated); fails the test on error. */
static inline void tu_save(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

/* An fz7_ostream that collects everything written into a growing buffer
 * (free p when done). Start one as {{tu_membuf_write}, NULL, 0, 0}. */
typedef struct tu_membuf {
    fz7_ostream base;
    uint8_t *p;
    size_t n, cap;
} tu_membuf;

static inline fz7_status tu_membuf_write(fz7_ostream *s, const uint8_t *buf, size_t n)
{
    tu_membuf *m = (tu_membuf *)s;
    if (m->n + n > m->cap) {
        size_t cap = (m->n + n) * 2 + 64;
        uint8_t *q = realloc(m->p, cap);
        if (!q)
            return FZ7_E_MEM;
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->n, buf, n);
    m->n += n;
    return FZ7_OK;
}

/* The folder sub ("corpus/7z") of the shared folder: $FZ7_SHARED/sub, or
 * without FZ7_SHARED the checkout's sibling ../shared/sub (as
 * tests/CMakeLists.txt assumes). NULL when that folder does not exist (the
 * caller prints SKIP). The path is in a static buffer. */
static inline const char *tu_shared_dir(const char *sub)
{
    static char path[4096];
    const char *shared = getenv("FZ7_SHARED");
    if (shared && *shared) {
        snprintf(path, sizeof path, "%s/%s", shared, sub);
    } else {
        const char *here = __FILE__, *slash = strrchr(here, '/');
        snprintf(path, sizeof path, "%.*s/../../../shared/%s", slash ? (int)(slash - here) : 1,
                 slash ? here : ".", sub);
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

/* d[0..n) as lowercase hex into out (2n + 1 bytes). */
static inline void tu_hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* SHA-256 of p[0..n) as 64 hex digits. */
static inline void tu_sha256_hex(const void *p, size_t n, char out[65])
{
    fz7_sha256 s;
    uint8_t d[32];
    fz7_sha256_init(&s);
    fz7_sha256_update(&s, p, n);
    fz7_sha256_final(&s, d);
    tu_hex(d, 32, out);
}

/* An extraction sink for fz7_archive_extract (tu_sink_cb): the SHA-256
 * of every entry's bytes together, each entry's size and CRC-32, how
 * often begin/end were called and the last entry's result. Optional
 * hooks see each begin and end after the sink has counted it. */
typedef struct tu_sink {
    fz7_sha256 sha;         /* all bytes of all entries, in order */
    uint64_t total;         /* bytes of all entries */
    uint64_t entry_bytes;   /* bytes of the current (or last) entry */
    uint32_t entry_crc;     /* their CRC-32 */
    size_t max_chunk;       /* the largest data call, bytes */
    int begins, ends;       /* calls of begin and end */
    fz7_status end;         /* the last end's result (tu_sink_init's until one) */
    char detail[256];       /* its detail ("" for none) */
    uint64_t fail_after;    /* data returns FZ7_E_IO once total would pass it (0: never) */
    void *user;             /* for the hooks */
    void (*begin_hook)(void *user, size_t index);
    void (*end_hook)(void *user, size_t index, fz7_status result, const char *detail);
} tu_sink;

/* Empties s; end starts as before_end (e.g. FZ7_E_ARG to see that end
 * was never called). No hooks, no fail_after. */
static inline void tu_sink_init(tu_sink *s, fz7_status before_end)
{
    memset(s, 0, sizeof *s);
    s->end = before_end;
    fz7_sha256_init(&s->sha);
}

static inline fz7_status tu_sink_begin(void *ctx, size_t index, const fz7_entry *e)
{
    tu_sink *s = ctx;
    (void)e;
    s->begins++;
    s->entry_bytes = 0;
    s->entry_crc = 0;
    if (s->begin_hook)
        s->begin_hook(s->user, index);
    return FZ7_OK;
}

static inline fz7_status tu_sink_data(void *ctx, const uint8_t *p, size_t n)
{
    tu_sink *s = ctx;
    if (s->fail_after && s->total + n > s->fail_after)
        return FZ7_E_IO;
    fz7_sha256_update(&s->sha, p, n);
    s->entry_crc = fz7_crc32(s->entry_crc, p, n);
    s->entry_bytes += n;
    s->total += n;
    if (n > s->max_chunk)
        s->max_chunk = n;
    return FZ7_OK;
}

static inline fz7_status tu_sink_end(void *ctx, size_t index, fz7_status result,
                                     const char *detail)
{
    tu_sink *s = ctx;
    s->ends++;
    s->end = result;
    snprintf(s->detail, sizeof s->detail, "%s", detail ? detail : "");
    if (s->end_hook)
        s->end_hook(s->user, index, result, detail);
    return FZ7_OK;
}

/* The callbacks that fill s. */
static inline fz7_extract_cb tu_sink_cb(tu_sink *s)
{
    fz7_extract_cb cb = {s, tu_sink_begin, tu_sink_data, tu_sink_end, NULL};
    return cb;
}

/* Finishes s's SHA-256 into d (32 bytes); s->sha is spent. */
static inline void tu_sink_digest(tu_sink *s, uint8_t d[32])
{
    fz7_sha256_final(&s->sha, d);
}

/* tu_sink_digest as 64 hex digits. */
static inline void tu_sink_hex(tu_sink *s, char out[65])
{
    uint8_t d[32];
    tu_sink_digest(s, d);
    tu_hex(d, 32, out);
}

#endif
