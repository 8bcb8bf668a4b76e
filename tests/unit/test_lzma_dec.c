/* test_lzma_dec.c - the LZMA and LZMA2 decoders against vectors made by xz
 * and 7zz (tests/data/lzma/MANIFEST.tsv: exact size and SHA-256 of each
 * output), read in odd piece sizes; truncated, bit-flipped and hand-made
 * malformed streams; memory limits; the xz test suite's .lzma files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check/check.h"
#include "lzma/lzma_dec.h"
#include "test_util.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma_presets.h"
#include "lzma/range_dec.h"
#include "lzma/range_enc.h"

/* The decoders built a second time with the portable twins of the x86-64
 * cmov bit decoders (fz7lzmadec_portable), so every vector also checks
 * those. */
#include "lzma_dec_portable.h"

/* When set, open_dec() builds the portable decoders. */
static int g_portable;

/* ---- Helpers --------------------------------------------------------------- */

static char g_data_dir[1024];

/* tests/data/lzma, found from this file's path (CMake compiles by
 * absolute path). */
static const char *data_dir(void)
{
    if (!g_data_dir[0]) {
        const char *f = __FILE__;
        const char *cut = strstr(f, "unit/test_lzma_dec.c");
        size_t n = cut ? (size_t)(cut - f) : 0;
        snprintf(g_data_dir, sizeof g_data_dir, "%.*sdata/lzma", (int)n, f);
    }
    return g_data_dir;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static void hexstr(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

typedef enum { K_ALONE, K_LZMA1, K_LZMA2 } kind_t;

typedef struct {
    kind_t kind;
    uint8_t props[5];   /* lzma1 */
    uint8_t dict_prop;  /* lzma2 */
    uint64_t size;      /* lzma1: unpacked size or UINT64_MAX */
} stream_desc;

typedef struct {
    fz7_status st;
    uint64_t total;
    char sha[65];
} decode_result;

/* Opens a decoder over data[0, n) as described. */
static fz7_status open_dec(const stream_desc *sd, const uint8_t *data, size_t n, uint64_t mem_limit,
                           fz7_istream **src, fz7_istream **dec)
{
    *dec = NULL;
    if (sd->kind == K_ALONE) {
        if (n < 13) {
            *src = fz7_istream_from_memory(data, 0);
            return FZ7_E_TRUNCATED;
        }
        *src = fz7_istream_from_memory(data + 13, n - 13);
        return (g_portable ? portable_lzma_istream_new : fz7_lzma_istream_new)(*src, data, fz7_get64le(data + 5),
                                                                               mem_limit, dec);
    }
    *src = fz7_istream_from_memory(data, n);
    if (sd->kind == K_LZMA1)
        return (g_portable ? portable_lzma_istream_new : fz7_lzma_istream_new)(*src, sd->props, sd->size,
                                                                               mem_limit, dec);
    return (g_portable ? portable_lzma2_istream_new : fz7_lzma2_istream_new)(*src, sd->dict_prop, mem_limit, dec);
}

/* Decodes everything, reading piece bytes per call; returns the first
 * error, the byte count and the SHA-256 of the output. */
static decode_result decode(const stream_desc *sd, const uint8_t *data, size_t n, size_t piece)
{
    decode_result r = { FZ7_OK, 0, "" };
    fz7_istream *src, *dec;
    r.st = open_dec(sd, data, n, FZ7_DEFAULT_MEM_LIMIT, &src, &dec);
    uint8_t *buf = malloc(piece);
    fz7_sha256 sh;
    fz7_sha256_init(&sh);
    while (r.st == FZ7_OK) {
        size_t got = 0;
        r.st = dec->read(dec, buf, piece, &got);
        if (r.st != FZ7_OK || got == 0)
            break;
        assert_true(got <= piece);
        fz7_sha256_update(&sh, buf, got);
        r.total += got;
        /* Never more than the stream holds (guards runaway decoding). */
        if (r.total > ((uint64_t)64 << 20))
            fail_msg("decoder produced more than 64 MiB");
    }
    uint8_t d[32];
    fz7_sha256_final(&sh, d);
    hexstr(d, 32, r.sha);
    free(buf);
    fz7_istream_free(dec);
    fz7_istream_free(src);
    return r;
}

typedef struct {
    char file[128];
    stream_desc sd;
    uint64_t out_size;
    char sha[65];
} vector;

static vector g_vec[64];
static int g_nvec;

static void parse_hex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

static int load_manifest(void **state)
{
    (void)state;
    char path[1200];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", data_dir());
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char line[512];
    while (fgets(line, sizeof line, f) && g_nvec < 64) {
        if (line[0] == '#')
            continue;
        char file[128], kind[16], props[32], usize[32], osize[32], sha[65];
        if (sscanf(line, "%127s %15s %31s %31s %31s %64s", file, kind, props, usize, osize, sha) != 6)
            continue;
        vector *v = &g_vec[g_nvec++];
        memset(v, 0, sizeof *v);
        snprintf(v->file, sizeof v->file, "%s", file);
        v->sd.kind = !strcmp(kind, "alone") ? K_ALONE : !strcmp(kind, "lzma1") ? K_LZMA1 : K_LZMA2;
        if (v->sd.kind == K_LZMA1)
            parse_hex(props, v->sd.props, 5);
        if (v->sd.kind == K_LZMA2)
            v->sd.dict_prop = (uint8_t)atoi(props);
        v->sd.size = strcmp(usize, "-") ? strtoull(usize, NULL, 10) : UINT64_MAX;
        v->out_size = strtoull(osize, NULL, 10);
        snprintf(v->sha, sizeof v->sha, "%s", sha);
    }
    fclose(f);
    return g_nvec >= 18 ? 0 : -1;
}

static uint8_t *load_vector(const vector *v, size_t *n)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", data_dir(), v->file);
    uint8_t *b = slurp(path, n);
    assert_non_null(b);
    return b;
}

/* ---- Vectors ----------------------------------------------------------------- */

static void test_vectors(void **state)
{
    (void)state;
    static const size_t pieces[] = { (size_t)1 << 20, 65536, 4093, 7, 1 };
    for (g_portable = 0; g_portable < 2; g_portable++)
    for (int i = 0; i < g_nvec; i++) {
        size_t n;
        uint8_t *data = load_vector(&g_vec[i], &n);
        for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
            /* One-byte reads of the 2.5-3 MiB vectors add little. */
            if (pieces[k] < 16 && g_vec[i].out_size > 400000)
                continue;
            decode_result r = decode(&g_vec[i].sd, data, n, pieces[k]);
            if (r.st != FZ7_OK || r.total != g_vec[i].out_size || strcmp(r.sha, g_vec[i].sha))
                fail_msg("%s (reads of %zu%s): %s, %llu bytes, sha %s", g_vec[i].file, pieces[k],
                         g_portable ? ", portable" : "", fz7_status_str(r.st), (unsigned long long)r.total, r.sha);
        }
        free(data);
    }
    g_portable = 0;
}

/* fz7_lzma_decode_whole on data[0, n) as sd describes (LZMA1 of a
 * known size): the status, and the output's SHA-256 into sha. */
static fz7_status decode_whole(const stream_desc *sd, const uint8_t *data, size_t n, uint64_t size,
                               uint64_t mem_limit, char sha[65])
{
    const uint8_t *props = sd->kind == K_ALONE ? data : sd->props;
    size_t skip = sd->kind == K_ALONE ? 13 : 0;
    fz7_istream *src = fz7_istream_from_memory(data + skip, n - skip);
    uint8_t *out = NULL;
    fz7_status st = (g_portable ? portable_lzma_decode_whole : fz7_lzma_decode_whole)(src, props, size, mem_limit,
                                                                                      &out);
    fz7_istream_free(src);
    sha[0] = 0;
    if (st == FZ7_OK) {
        uint8_t d[32];
        fz7_sha256 sh;
        fz7_sha256_init(&sh);
        fz7_sha256_update(&sh, out, (size_t)size);
        fz7_sha256_final(&sh, d);
        hexstr(d, 32, sha);
    }
    assert_true(st == FZ7_OK || out == NULL);
    free(out);
    return st;
}

/* Every LZMA1 vector of a known size decoded into one buffer (a 7z
 * encoded header's path) gives the streaming decoder's bytes; sizes one
 * off, a bad first byte and a small memory limit fail as streaming does. */
static void test_decode_whole(void **state)
{
    (void)state;
    int tried = 0;
    for (g_portable = 0; g_portable < 2; g_portable++)
    for (int i = 0; i < g_nvec; i++) {
        const vector *v = &g_vec[i];
        uint64_t size = v->sd.kind == K_LZMA1 ? v->sd.size : v->sd.kind == K_ALONE ? v->out_size : 0;
        if (v->sd.kind == K_LZMA2 || size == 0 || size == UINT64_MAX)
            continue;
        size_t n;
        uint8_t *data = load_vector(v, &n);
        if (v->sd.kind == K_ALONE && fz7_get64le(data + 5) != size) {
            free(data);   /* a stream sized by its end marker only */
            continue;
        }
        char sha[65];
        fz7_status st = decode_whole(&v->sd, data, n, size, FZ7_DEFAULT_MEM_LIMIT, sha);
        if (st != FZ7_OK || strcmp(sha, v->sha))
            fail_msg("%s%s: %s, sha %s", v->file, g_portable ? " (portable)" : "", fz7_status_str(st), sha);
        /* One more byte: the stream runs out, or its end marker comes
         * first; one fewer: bytes are left, never OK. */
        fz7_status longer = decode_whole(&v->sd, data, n, size + 1, FZ7_DEFAULT_MEM_LIMIT, sha);
        assert_true(longer == FZ7_E_TRUNCATED || longer == FZ7_E_DATA);
        assert_int_equal(decode_whole(&v->sd, data, n, size - 1, FZ7_DEFAULT_MEM_LIMIT, sha), FZ7_E_DATA);
        assert_int_equal(decode_whole(&v->sd, data, n, size, size / 2, sha), FZ7_E_MEMLIMIT);
        data[v->sd.kind == K_ALONE ? 13 : 0] = 1;
        assert_int_equal(decode_whole(&v->sd, data, n, size, FZ7_DEFAULT_MEM_LIMIT, sha), FZ7_E_DATA);
        free(data);
        tried++;
    }
    g_portable = 0;
    assert_true(tried >= 4);
    fz7_istream *src = fz7_istream_from_memory(NULL, 0);
    uint8_t props[5] = {0x5D, 0, 0, 1, 0}, *out = NULL;
    assert_int_equal(fz7_lzma_decode_whole(src, props, 0, FZ7_DEFAULT_MEM_LIMIT, &out), FZ7_E_ARG);
    fz7_istream_free(src);
}

/* Every cut of a stream fails (never OK, never a crash). */
static void test_truncated(void **state)
{
    (void)state;
    for (int i = 0; i < g_nvec; i++) {
        size_t n;
        uint8_t *data = load_vector(&g_vec[i], &n);
        if (g_vec[i].out_size == 0 && g_vec[i].sd.kind == K_LZMA2) {
            free(data);
            continue;
        }
        size_t step = n / 37 + 1;
        for (size_t cut = 0; cut < n; cut += (cut < 40 || cut + 40 > n) ? 1 : step) {
            /* A copy of exactly cut bytes, so ASan sees any over-read. */
            uint8_t *part = malloc(cut + 1);
            memcpy(part, data, cut);
            decode_result r = decode(&g_vec[i].sd, part, cut, 65536);
            free(part);
            if (r.st == FZ7_OK)
                fail_msg("%s cut at %zu of %zu: decoded OK (%llu bytes)", g_vec[i].file, cut, n,
                         (unsigned long long)r.total);
            assert_true(r.st == FZ7_E_TRUNCATED || r.st == FZ7_E_DATA);
            /* LZMA1 stops at the first byte it lacks: truncation, not data. */
            if (g_vec[i].sd.kind != K_LZMA2 && cut >= 13 + 5)
                assert_int_equal(r.st, FZ7_E_TRUNCATED);
        }
        free(data);
    }
}

/* Flipped bits: an error or some output, never a crash or a hang. Flips
 * inside range-coded data must nearly always be caught (the exact-end
 * checks see them); mixed.lzma2 is mostly a stored chunk, where a flip
 * only changes the output. The counts are fixed for these vectors. */
static void test_bit_flips(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int min_detected; /* of 150 */
    } cases[] = {
        { "text.lzma", 140 }, { "text-7z-lc8lp4pb4.lzma1", 140 }, { "text.lzma2", 140 },
        { "bin-lc1lp2pb3.lzma1", 140 }, { "reptext.lzma2", 140 }, { "mixed.lzma2", 40 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int vi = -1;
        for (int i = 0; i < g_nvec; i++)
            if (!strcmp(g_vec[i].file, cases[k].name))
                vi = i;
        assert_true(vi >= 0);
        size_t n;
        uint8_t *data = load_vector(&g_vec[vi], &n);
        int errors = 0, changed = 0;
        uint32_t rnd = 12345;
        for (int t = 0; t < 150; t++) {
            rnd = rnd * 1103515245u + 12345u;
            size_t at = g_vec[vi].sd.kind == K_ALONE ? 13 + (rnd >> 8) % (n - 13) : (rnd >> 8) % n;
            uint8_t bit = (uint8_t)(1u << ((rnd >> 3) & 7));
            data[at] ^= bit;
            decode_result r = decode(&g_vec[vi].sd, data, n, 65536);
            data[at] ^= bit;
            assert_true(r.st == FZ7_OK || r.st == FZ7_E_DATA || r.st == FZ7_E_TRUNCATED);
            if (r.st != FZ7_OK)
                errors++;
            else if (strcmp(r.sha, g_vec[vi].sha))
                changed++;
        }
        print_message("%s: %d of 150 flips detected, %d changed the output only\n", cases[k].name, errors,
                      changed);
        assert_true(errors >= cases[k].min_detected);
        free(data);
    }
}

/* ---- LZMA1 edge cases --------------------------------------------------------- */

static const vector *find_vec(const char *name)
{
    for (int i = 0; i < g_nvec; i++)
        if (!strcmp(g_vec[i].file, name))
            return &g_vec[i];
    fail_msg("no vector %s", name);
    return NULL;
}

static void test_lzma1_sizes(void **state)
{
    (void)state;
    const vector *v = find_vec("text-7z-lc8lp4pb4.lzma1");
    size_t n;
    uint8_t *data = load_vector(v, &n);
    stream_desc sd = v->sd;

    /* A size smaller than the stream's: data after the end -> data error. */
    sd.size = 119000;
    decode_result r = decode(&sd, data, n, 65536);
    assert_int_equal(r.st, FZ7_E_DATA);
    /* A larger size: the stream's bytes run out. */
    sd.size = 120001;
    r = decode(&sd, data, n, 65536);
    assert_int_equal(r.st, FZ7_E_TRUNCATED);
    /* Range coder first byte must be 0. */
    data[0] = 1;
    sd.size = 120000;
    r = decode(&sd, data, n, 65536);
    assert_int_equal(r.st, FZ7_E_DATA);
    assert_int_equal(r.total, 0);
    free(data);

    /* Known size with the end marker: the marker after the last byte is
     * accepted; a size one short leaves a symbol that is no marker. */
    v = find_vec("text-known-eopm.lzma");
    data = load_vector(v, &n);
    stream_desc alone = { K_ALONE, { 0 }, 0, 0 };
    fz7_put64le(data + 5, 119999);
    r = decode(&alone, data, n, 65536);
    assert_int_equal(r.st, FZ7_E_DATA);
    fz7_put64le(data + 5, 120000);
    r = decode(&alone, data, n, 65536);
    assert_int_equal(r.st, FZ7_OK);
    assert_int_equal(r.total, 120000);
    /* The end marker before a larger known size: data error. */
    fz7_put64le(data + 5, 120001);
    r = decode(&alone, data, n, 65536);
    assert_int_equal(r.st, FZ7_E_DATA);
    free(data);
}

static void test_lzma1_props_and_limits(void **state)
{
    (void)state;
    uint8_t stream[16] = { 0 };
    fz7_istream *src = fz7_istream_from_memory(stream, sizeof stream), *dec = NULL;
    /* Properties byte 225 is invalid. */
    uint8_t bad[5] = { 225, 0, 0, 1, 0 };
    assert_int_not_equal(fz7_lzma_istream_new(src, bad, 10, FZ7_DEFAULT_MEM_LIMIT, &dec), FZ7_OK);
    assert_null(dec);
    /* 64 MiB dictionary, 1 MiB limit: over unless the size is small. */
    uint8_t p64[5] = { 0x5d, 0, 0, 0, 4 };
    assert_int_equal(fz7_lzma_istream_new(src, p64, UINT64_MAX, 1 << 20, &dec), FZ7_E_MEMLIMIT);
    assert_int_equal(fz7_lzma_istream_new(src, p64, 1 << 21, 1 << 20, &dec), FZ7_E_MEMLIMIT);
    assert_int_equal(fz7_lzma_istream_new(src, p64, 1000, 1 << 20, &dec), FZ7_OK);
    fz7_istream_free(dec);
    /* Any 32-bit dictionary (7-Zip writes up to 3840 MiB): the window is
     * fitted to a known size; unknown, the whole dictionary meets the limit. */
    uint8_t p2g[5] = { 0x5d, 0, 0, 0, 0x80 }, p4g[5] = { 0x5d, 0xff, 0xff, 0xff, 0xff };
    assert_int_equal(fz7_lzma_istream_new(src, p2g, UINT64_MAX, (uint64_t)1 << 31, &dec), FZ7_E_MEMLIMIT);
    assert_int_equal(fz7_lzma_istream_new(src, p2g, 1000, 1 << 20, &dec), FZ7_OK);
    fz7_istream_free(dec);
    assert_int_equal(fz7_lzma_istream_new(src, p4g, 1000, 1 << 20, &dec), FZ7_OK);
    fz7_istream_free(dec);
    fz7_istream_free(src);

    /* An all-zero stream of unknown size decodes literal 0s until the input
     * runs out: truncated. */
    uint8_t zeros[64] = { 0 };
    stream_desc sd = { K_LZMA1, { 0x5d, 0, 0, 1, 0 }, 0, UINT64_MAX };
    decode_result r = decode(&sd, zeros, sizeof zeros, 4096);
    assert_int_equal(r.st, FZ7_E_TRUNCATED);
    /* Known size 0: nothing to decode, the range coder is finished (code 0). */
    sd.size = 0;
    r = decode(&sd, zeros, 5, 4096);
    assert_int_equal(r.st, FZ7_OK);
    assert_int_equal(r.total, 0);
    /* A first symbol that is a rep (nothing decoded yet): data error.
     * code = 0xFFFFFFFE makes every bit a 1. */
    uint8_t ones[64];
    memset(ones, 0xFF, sizeof ones);
    ones[0] = 0;
    ones[4] = 0xFE;
    sd.size = UINT64_MAX;
    r = decode(&sd, ones, sizeof ones, 4096);
    assert_int_equal(r.st, FZ7_E_DATA);
}

/* ---- LZMA2 edge cases --------------------------------------------------------- */

static decode_result decode2(const uint8_t *data, size_t n)
{
    stream_desc sd = { K_LZMA2, { 0 }, 8, 0 };
    return decode(&sd, data, n, 4096);
}

static void test_lzma2_chunks(void **state)
{
    (void)state;
    /* Stored chunks with and without a dictionary reset. */
    const uint8_t ok[] = { 0x01, 0x00, 0x02, 'a', 'b', 'c', 0x02, 0x00, 0x00, 'd', 0x00 };
    decode_result r = decode2(ok, sizeof ok);
    assert_int_equal(r.st, FZ7_OK);
    assert_int_equal(r.total, 4);
    /* SHA-256("abcd") */
    assert_string_equal(r.sha, "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589");

    /* The end byte alone: an empty stream. */
    const uint8_t empty[] = { 0x00 };
    r = decode2(empty, 1);
    assert_int_equal(r.st, FZ7_OK);
    assert_int_equal(r.total, 0);

    /* The first chunk must reset the dictionary. */
    const uint8_t no_reset[] = { 0x02, 0x00, 0x00, 'a', 0x00 };
    assert_int_equal(decode2(no_reset, sizeof no_reset).st, FZ7_E_DATA);
    /* Control bytes 0x03..0x7F are invalid. */
    const uint8_t bad_ctl[] = { 0x01, 0x00, 0x00, 'a', 0x03, 0x00 };
    assert_int_equal(decode2(bad_ctl, sizeof bad_ctl).st, FZ7_E_DATA);
    /* After a dictionary reset an LZMA chunk needs new properties:
     * 0x80 (no reset) and 0xA0 (state reset) are refused. */
    const uint8_t no_props[] = { 0x01, 0x00, 0x00, 'a', 0x80, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 0, 0, 0x00 };
    assert_int_equal(decode2(no_props, sizeof no_props).st, FZ7_E_DATA);
    uint8_t no_props2[sizeof no_props];
    memcpy(no_props2, no_props, sizeof no_props);
    no_props2[4] = 0xA0;
    assert_int_equal(decode2(no_props2, sizeof no_props2).st, FZ7_E_DATA);
    /* Missing end byte: truncated. */
    assert_int_equal(decode2(ok, sizeof ok - 1).st, FZ7_E_TRUNCATED);
    /* Packed size below the 5 range-coder bytes. */
    const uint8_t tiny[] = { 0xE0, 0x00, 0x00, 0x00, 0x03, 0x5d, 0, 0, 0, 0, 0x00 };
    assert_int_equal(decode2(tiny, sizeof tiny).st, FZ7_E_DATA);

    /* Dictionary-size byte. */
    assert_true(fz7_lzma2_dict_size(0) == 4096);
    assert_true(fz7_lzma2_dict_size(1) == 6144);
    assert_true(fz7_lzma2_dict_size(8) == 65536);
    assert_true(fz7_lzma2_dict_size(16) == (1u << 20));
    assert_true(fz7_lzma2_dict_size(37) == (3ull << 29));
    assert_true(fz7_lzma2_dict_size(40) == 0xFFFFFFFFu);
    assert_true(fz7_lzma2_dict_size(41) == 0);
    fz7_istream *src = fz7_istream_from_memory(ok, sizeof ok), *dec = NULL;
    assert_int_equal(fz7_lzma2_istream_new(src, 41, FZ7_DEFAULT_MEM_LIMIT, &dec), FZ7_E_FORMAT);
    assert_int_equal(fz7_lzma2_istream_new(src, 16, 1 << 19, &dec), FZ7_E_MEMLIMIT);
    assert_int_equal(fz7_lzma2_istream_new_sized(src, 16, 4, 1 << 19, &dec), FZ7_OK);
    size_t got;
    uint8_t out[8];
    assert_int_equal(dec->read(dec, out, sizeof out, &got), FZ7_OK);
    assert_int_equal(got, 4);
    assert_memory_equal(out, "abcd", 4);
    fz7_istream_free(dec);
    fz7_istream_free(src);
}

static void test_lzma2_props_and_ends(void **state)
{
    (void)state;
    const vector *v = find_vec("text.lzma2");
    size_t n;
    uint8_t *data = load_vector(v, &n);
    /* The first chunk is 0xE0 with props at byte 5: lc + lp > 4 is refused
     * (lc=3, lp=2 -> (0*5+2)*9+3 = 21). */
    assert_int_equal(data[0] & 0xE0, 0xE0);
    uint8_t saved = data[5];
    data[5] = 21;
    assert_int_equal(decode2(data, n).st, FZ7_E_DATA);
    data[5] = 225;
    assert_int_equal(decode2(data, n).st, FZ7_E_DATA);
    data[5] = saved;

    /* Nothing past the end byte is read: trailing bytes stay in src. */
    uint8_t *ext = malloc(n + 7);
    memcpy(ext, data, n);
    memcpy(ext + n, "TRAILER", 7);
    fz7_istream *src = fz7_istream_from_memory(ext, n + 7), *dec = NULL;
    assert_int_equal(fz7_lzma2_istream_new(src, 8, FZ7_DEFAULT_MEM_LIMIT, &dec), FZ7_OK);
    uint8_t *buf = malloc(1 << 17);
    uint64_t total = 0;
    size_t got;
    do {
        assert_int_equal(dec->read(dec, buf, 1 << 17, &got), FZ7_OK);
        total += got;
    } while (got);
    assert_int_equal(total, 120000);
    assert_int_equal(src->read(src, buf, 100, &got), FZ7_OK);
    assert_int_equal(got, 7);
    assert_memory_equal(buf, "TRAILER", 7);
    /* Reading again after the end stays at the end. */
    assert_int_equal(dec->read(dec, buf, 100, &got), FZ7_OK);
    assert_int_equal(got, 0);
    fz7_istream_free(dec);
    fz7_istream_free(src);
    free(buf);
    free(ext);

    /* The first chunk's packed size one larger than its data: the chunk
     * does not end exactly -> data error. */
    uint32_t packed = ((uint32_t)data[3] << 8 | data[4]) + 1;
    ext = malloc(n + 1);
    memcpy(ext, data, 6 + packed);
    ext[6 + packed] = 0;
    memcpy(ext + 7 + packed, data + 6 + packed, n - 6 - packed);
    ext[3] = (uint8_t)(packed >> 8);
    ext[4] = (uint8_t)packed;
    assert_int_equal(decode2(ext, n + 1).st, FZ7_E_DATA);
    free(ext);
    free(data);
}

/* ---- The xz test suite's .lzma files ------------------------------------------ */

static void test_xz_corpus(void **state)
{
    (void)state;
    const char *shared = getenv("FZ7_SHARED");
    char dir[1024];
    if (!shared || !*shared) {
        const char *f = __FILE__;
        const char *cut = strstr(f, "main/tests/unit/");
        if (!cut) {
            print_message("SKIP: no shared folder\n");
            skip();
        }
        snprintf(dir, sizeof dir, "%.*sshared", (int)(cut - f), f);
    } else {
        snprintf(dir, sizeof dir, "%s", shared);
    }
    struct {
        const char *name;
        fz7_status st;
        uint64_t size;
        const char *sha;
    } cases[] = {
        { "good-known_size-with_eopm.lzma", FZ7_OK, 13,
          "8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046" },
        { "good-unknown_size-with_eopm.lzma", FZ7_OK, 13,
          "8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046" },
        { "bad-too_big_size-with_eopm.lzma", FZ7_E_DATA, 0, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/corpus/xz/%s", dir, cases[i].name);
        size_t n;
        uint8_t *data = slurp(path, &n);
        if (!data) {
            print_message("SKIP: %s missing\n", path);
            skip();
        }
        stream_desc sd = { K_ALONE, { 0 }, 0, 0 };
        decode_result r = decode(&sd, data, n, 4096);
        assert_int_equal(r.st, cases[i].st);
        if (cases[i].sha) {
            assert_int_equal(r.total, cases[i].size);
            assert_string_equal(r.sha, cases[i].sha);
        }
        free(data);
    }
}

/* RC_DIRECT_BITS (8 fixed steps and one division) against the bit-by-bit
 * RC_DIRECT_BIT, on streams made by the range encoder: a random number of
 * probability-coded bits first puts the range anywhere, then groups of
 * 1..26 direct bits (every count a far distance can have). Both must give
 * the encoded values and leave range, code and the input pointer alike. */
static void test_direct_bits(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    uint64_t seed = 0x9E3779B97F4A7C15u;
#define NEXT_RAND() (seed = seed * 6364136223846793005u + 1442695040888963407u, (uint32_t)(seed >> 33))
    for (unsigned trial = 0; trial < 20000; trial++) {
        fz7_lzma_prob enc_probs[64], dec_probs[64];
        for (unsigned i = 0; i < 64; i++)
            enc_probs[i] = dec_probs[i] = (fz7_lzma_prob)(31 + NEXT_RAND() % 1987);
        unsigned nprob = NEXT_RAND() % 48;
        unsigned bits[48], counts[4];
        uint32_t values[4];
        fz7_range_enc rc;
        rc.out = buf;
        fz7_rc_reset(&rc);
        for (unsigned i = 0; i < nprob; i++) {
            bits[i] = NEXT_RAND() & 1;
            fz7_rc_bit(&rc, &enc_probs[i], bits[i]);
        }
        for (unsigned g = 0; g < 4; g++) {
            counts[g] = 1 + (trial + g * 7) % 26;
            values[g] = NEXT_RAND() & ((1u << counts[g]) - 1u);
            fz7_rc_direct(&rc, values[g], counts[g]);
        }
        fz7_rc_flush(&rc);
        assert_true(rc.out_pos + 64 <= sizeof buf);
        memset(buf + rc.out_pos, 0, 64);

        uint32_t range = 0xFFFFFFFFu;
        uint32_t code = ((uint32_t)buf[1] << 24) | ((uint32_t)buf[2] << 16) | ((uint32_t)buf[3] << 8) | buf[4];
        const uint8_t *in = buf + 5;
        for (unsigned i = 0; i < nprob; i++) {
            uint32_t bit;
            RC_BIT_BL(&dec_probs[i], bit);
            assert_int_equal(bit, bits[i]);
        }
        for (unsigned g = 0; g < 4; g++) {
            uint32_t range0 = range, code0 = code;
            const uint8_t *in0 = in;
            uint32_t fast = 0, slow = 0;
            RC_DIRECT_BITS(counts[g], fast);
            {
                uint32_t range1 = range, code1 = code;
                const uint8_t *in1 = in;
                range = range0;
                code = code0;
                in = in0;
                for (unsigned i = 0; i < counts[g]; i++)
                    RC_DIRECT_BIT(slow);
                assert_int_equal(range1, range);
                assert_int_equal(code1, code);
                assert_ptr_equal(in1, in);
            }
            assert_int_equal(fast, values[g]);
            assert_int_equal(slow, values[g]);
        }
    }
#undef NEXT_RAND
}

/* RC_TREE_STEP_SEL (one asm block on x86-64) against the same step made
 * of RC_BIT_SEL, on 8-bit tree symbols: from range-encoded symbols (must
 * decode to them) and from random bytes (any code below the range; both
 * must still agree). Probabilities, range, code, input pointer, symbol
 * and the preloaded next probability must match after every step. */
static void test_tree_step_sel(void **state)
{
    (void)state;
    static uint8_t buf[8192];
    uint64_t seed = 0x243F6A8885A308D3u;
#define NEXT_RAND() (seed = seed * 6364136223846793005u + 1442695040888963407u, (uint32_t)(seed >> 33))
    for (unsigned trial = 0; trial < 400; trial++) {
        fz7_lzma_prob enc[512], fast_p[512], slow_p[512];
        for (unsigned i = 0; i < 512; i++)
            enc[i] = fast_p[i] = slow_p[i] = (fz7_lzma_prob)(31 + NEXT_RAND() % 1987);
        unsigned nsym = 1 + NEXT_RAND() % 200, syms[200];
        bool random_input = trial % 4 == 3;
        size_t len;
        if (random_input) {
            len = 5 + nsym * 3;
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)NEXT_RAND();
            buf[0] = 0;
            buf[1] &= 0x7F; /* code < range from the start */
        } else {
            fz7_range_enc rc;
            rc.out = buf;
            fz7_rc_reset(&rc);
            for (unsigned k = 0; k < nsym; k++) {
                syms[k] = NEXT_RAND() & 0xFF;
                unsigned node = 1;
                for (int b = 7; b >= 0; b--) {
                    unsigned bit = (syms[k] >> b) & 1u;
                    fz7_rc_bit(&rc, &enc[node], bit);
                    node = 2 * node + bit;
                }
            }
            fz7_rc_flush(&rc);
            len = rc.out_pos;
        }
        assert_true(len + 64 <= sizeof buf);
        memset(buf + len, 0, 64);

        const uint32_t code0 = ((uint32_t)buf[1] << 24) | ((uint32_t)buf[2] << 16) |
                               ((uint32_t)buf[3] << 8) | buf[4];
        uint32_t fr = 0xFFFFFFFFu, fc = code0, sr = 0xFFFFFFFFu, sc = code0;
        const uint8_t *fin = buf + 5, *sin = buf + 5;
        for (unsigned k = 0; k < nsym; k++) {
            uint32_t fsym = 1, ssym = 1, fpv = fast_p[1], spv = slow_p[1];
            for (unsigned step = 0; step < 8; step++) {
                uint32_t range = fr, code = fc;
                const uint8_t *in = fin;
                if (step < 7) {
                    RC_TREE_STEP_SEL(fast_p, fsym, fpv);
                } else {
                    RC_TREE_STEP(fast_p, fsym);
                }
                fr = range, fc = code, fin = in;
                range = sr, code = sc, in = sin;
                if (step < 7) {
                    uint32_t bit;
                    RC_BIT_SEL(slow_p + ssym, spv, slow_p[2 * ssym], slow_p[2 * ssym + 1], bit);
                    ssym = 2 * ssym + bit;
                } else {
                    RC_TREE_STEP(slow_p, ssym);
                }
                sr = range, sc = code, sin = in;
                assert_int_equal(fr, sr);
                assert_int_equal(fc, sc);
                assert_ptr_equal(fin, sin);
                assert_int_equal(fsym, ssym);
                if (step < 7)
                    assert_int_equal(fpv, spv);
            }
            if (!random_input)
                assert_int_equal(fsym - 256, syms[k]);
        }
        assert_memory_equal(fast_p, slow_p, sizeof fast_p);
    }
#undef NEXT_RAND
}

/* Match copies around the copy loop's edges: random bytes with repeats
 * at distances 1..65536 (periods below 8, 8-15, 16-31, 32 and over) and
 * lengths 2..273 (below, at and above 16 and 32), compressed by fz7's
 * LZMA encoder and decoded by both decoders in pieces of 1, 7, 33 and
 * 65536 bytes (the piece limit cuts matches: the pending-match path).
 * The output must be the input, byte for byte (size and SHA-256). */
static void test_match_copies(void **state)
{
    (void)state;
    static const uint32_t dists[] = { 1,  2,  3,   4,   5,   7,   8,    9,    15,   16,    17,
                                      23, 31, 32,  33,  34,  47,  48,   63,   64,   65,    100,
                                      127, 128, 129, 255, 256, 1000, 4095, 4096, 30000, 65536 };
    static const uint32_t lens[] = { 2,  3,  4,  8,  9,  15, 16, 17,  18,  31,  32, 33,
                                     34, 47, 48, 49, 63, 64, 65, 100, 200, 272, 273 };
    const size_t size = 300000;
    uint8_t *data = malloc(size + 300);
    assert_non_null(data);
    uint64_t seed = 0x13198A2E03707344u;
#define NEXT_RAND() (seed = seed * 6364136223846793005u + 1442695040888963407u, (uint32_t)(seed >> 33))
    size_t n = 0;
    unsigned k = 0;
    while (n < size) {
        for (unsigned i = 1 + NEXT_RAND() % 24; i > 0; i--)
            data[n++] = (uint8_t)NEXT_RAND();
        uint32_t d = dists[NEXT_RAND() % (sizeof dists / sizeof dists[0])];
        uint32_t l = lens[k++ % (sizeof lens / sizeof lens[0])];
        if (d > n)
            continue;
        for (uint32_t i = 0; i < l; i++, n++)
            data[n] = data[n - d];
    }
#undef NEXT_RAND

    fz7_lzma_enc_opts opts;
    assert_int_equal(fz7_lzma_enc_preset(&opts, 5), FZ7_OK);
    opts.dict_size = 1u << 20;
    opts.end_marker = 0;
    tu_membuf out = { { tu_membuf_write }, NULL, 0, 0 };
    fz7_lzma_enc *enc;
    assert_int_equal(fz7_lzma_enc_new(&opts, &out.base, &enc), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_write(enc, data, n), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_finish(enc), FZ7_OK);
    stream_desc sd = { K_LZMA1, { 0 }, 0, n };
    fz7_lzma_enc_props(enc, sd.props);
    fz7_lzma_enc_free(enc);

    fz7_sha256 sh;
    uint8_t dg[32];
    char want[65];
    fz7_sha256_init(&sh);
    fz7_sha256_update(&sh, data, n);
    fz7_sha256_final(&sh, dg);
    hexstr(dg, 32, want);
    static const size_t pieces[] = { 65536, 33, 7, 1 };
    for (g_portable = 0; g_portable < 2; g_portable++) {
        for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
            decode_result r = decode(&sd, out.p, out.n, pieces[i]);
            assert_int_equal(r.st, FZ7_OK);
            assert_int_equal(r.total, n);
            assert_string_equal(r.sha, want);
        }
    }
    g_portable = 0;
    free(out.p);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_decode_whole),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_lzma1_sizes),
        cmocka_unit_test(test_lzma1_props_and_limits),
        cmocka_unit_test(test_lzma2_chunks),
        cmocka_unit_test(test_lzma2_props_and_ends),
        cmocka_unit_test(test_xz_corpus),
        cmocka_unit_test(test_direct_bits),
        cmocka_unit_test(test_tree_step_sel),
        cmocka_unit_test(test_match_copies),
    };
    return cmocka_run_group_tests(tests, load_manifest, NULL);
}
