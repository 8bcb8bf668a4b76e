/* test_lzma_enc.c - the LZMA/LZMA2 encoders: round trips through fz7's own
 * decoder and through xz (an independent implementation), over many inputs
 * and option sets, plus options parsing, presets and property bytes.
 * Inputs come from fixed seeds; a failure prints its seed and settings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma_presets.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static char g_ctx[256]; /* printed when a check fails */
static char g_tmpdir[64];
static int g_have_xz = -1;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            print_message("failed: %s\n  case: %s\n", #cond, g_ctx);       \
            fail();                                                        \
        }                                                                  \
    } while (0)

enum { IN_TEXT, IN_BINARY, IN_ZEROS, IN_RANDOM, IN_MIXED };

static uint8_t *make_input(int kind, size_t n, uint32_t seed)
{
    static const char *words[] = {"the", "of", "and", "compression", "range", "coder", "literal",
                                  "match", "distance", "window", "LZMA", "a", "is", "in", "to",
                                  "dictionary", "\n", ", ", "probability", "state"};
    uint8_t *p = malloc(n ? n : 1);
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 1 | 1);
    size_t i = 0;
    while (i < n) {
        switch (kind) {
        case IN_TEXT: {
            const char *w = words[rnd() % 20];
            for (size_t k = 0; w[k] && i < n; k++)
                p[i++] = (uint8_t)w[k];
            if (i < n)
                p[i++] = ' ';
            break;
        }
        case IN_BINARY: {
            /* records: a counter, a small field, some noise */
            uint32_t v = (uint32_t)(i / 16);
            uint8_t rec[16] = {(uint8_t)v, (uint8_t)(v >> 8), 0, 0, 0x7f, 0x45, (uint8_t)(rnd() & 3), 0,
                               (uint8_t)rnd(), 1, 2, 3, (uint8_t)(v * 3), 0, 0, 0xff};
            for (size_t k = 0; k < 16 && i < n; k++)
                p[i++] = rec[k];
            break;
        }
        case IN_ZEROS:
            p[i++] = 0;
            break;
        case IN_RANDOM:
            p[i++] = (uint8_t)rnd();
            break;
        default: { /* runs of each kind, and repeats of earlier data */
            size_t len = 1 + rnd() % 20000;
            uint32_t k = rnd() % 5;
            for (size_t j = 0; j < len && i < n; j++, i++) {
                if (k == 0)
                    p[i] = (uint8_t)rnd();
                else if (k == 1)
                    p[i] = (uint8_t)('a' + rnd() % 4);
                else if (k == 2 && i > 70000)
                    p[i] = p[i - 65536 - 3];
                else if (k == 3 && i > 300)
                    p[i] = p[i - 300];
                else
                    p[i] = (uint8_t)(j & 0x3f);
            }
            break;
        }
        }
    }
    return p;
}

/* Encodes data in pieces of random sizes (1 byte .. 200 KiB). */
static fz7_status encode(const fz7_lzma_enc_opts *o, int lzma2, const uint8_t *d, size_t n, tu_membuf *out,
                         uint8_t props[5], uint8_t *dict_prop)
{
    memset(out, 0, sizeof(*out));
    out->base.write = tu_membuf_write;
    fz7_lzma_enc *e;
    fz7_status st = lzma2 ? fz7_lzma2_enc_new(o, &out->base, &e) : fz7_lzma_enc_new(o, &out->base, &e);
    if (st != FZ7_OK)
        return st;
    size_t i = 0;
    while (st == FZ7_OK && i < n) {
        size_t piece = 1 + (rnd() % 4 == 0 ? rnd() % 16 : rnd() % (200 << 10));
        if (piece > n - i)
            piece = n - i;
        st = fz7_lzma_enc_write(e, d + i, piece);
        i += piece;
    }
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(e);
    if (st == FZ7_OK) {
        CHECK(fz7_lzma_enc_bytes_in(e) == n);
        CHECK(fz7_lzma_enc_bytes_out(e) == out->n);
        fz7_lzma_enc_props(e, props);
        *dict_prop = fz7_lzma2_enc_dict_prop(e);
    }
    fz7_lzma_enc_free(e);
    return st;
}

static void decode_fz7(int lzma2, const uint8_t props[5], uint8_t dict_prop, int eos, const tu_membuf *c,
                       const uint8_t *d, size_t n)
{
    fz7_istream *src = fz7_istream_from_memory(c->p, c->n);
    fz7_istream *dec = NULL;
    fz7_status st = lzma2 ? fz7_lzma2_istream_new(src, dict_prop, FZ7_DEFAULT_MEM_LIMIT, &dec)
                          : fz7_lzma_istream_new(src, props, eos ? UINT64_MAX : n, FZ7_DEFAULT_MEM_LIMIT, &dec);
    CHECK(st == FZ7_OK);
    uint8_t *got = malloc(n + 1);
    size_t have = 0;
    for (;;) {
        size_t r = 0;
        st = dec->read(dec, got + have, n + 1 - have, &r);
        CHECK(st == FZ7_OK);
        have += r;
        if (r == 0 || have > n)
            break;
    }
    CHECK(have == n);
    CHECK(memcmp(got, d, n) == 0);
    free(got);
    fz7_istream_free(dec);
    fz7_istream_free(src);
}

static int have_xz(void)
{
    if (g_have_xz < 0) {
        g_have_xz = system("xz --version >/dev/null 2>&1") == 0;
        if (!g_have_xz)
            print_message("SKIP xz round trips: xz not found\n");
    }
    return g_have_xz;
}

static void decode_xz(int lzma2, const uint8_t props[5], const fz7_lzma_enc_opts *o, int eos, const tu_membuf *c,
                      const uint8_t *d, size_t n)
{
    if (!have_xz())
        return;
    char in[128], outp[128], cmd[512];
    snprintf(in, sizeof in, "%s/in", g_tmpdir);
    snprintf(outp, sizeof outp, "%s/out", g_tmpdir);
    FILE *f = fopen(in, "wb");
    CHECK(f != NULL);
    if (!lzma2) {
        uint8_t h[13];
        memcpy(h, props, 5);
        uint64_t size = eos ? UINT64_MAX : n;
        for (int i = 0; i < 8; i++)
            h[5 + i] = (uint8_t)(size >> (8 * i));
        CHECK(fwrite(h, 1, 13, f) == 13);
        snprintf(cmd, sizeof cmd, "xz --format=lzma -dc '%s' > '%s'", in, outp);
    } else {
        snprintf(cmd, sizeof cmd, "xz --format=raw --lzma2=dict=%lu -dc '%s' > '%s'", (unsigned long)o->dict_size,
                 in, outp);
    }
    CHECK(fwrite(c->p, 1, c->n, f) == c->n);
    fclose(f);
    CHECK(system(cmd) == 0);
    f = fopen(outp, "rb");
    CHECK(f != NULL);
    uint8_t *got = malloc(n + 1);
    size_t r = fread(got, 1, n + 1, f);
    fclose(f);
    CHECK(r == n);
    CHECK(memcmp(got, d, n) == 0);
    free(got);
}

/* Encodes and checks through both decoders (xz only where it accepts the
 * stream: lc + lp <= 4). Returns the compressed size. */
static size_t round_trip(const fz7_lzma_enc_opts *o, int lzma2, int kind, size_t n, uint32_t seed, int use_xz)
{
    snprintf(g_ctx, sizeof g_ctx,
             "seed=%u kind=%d n=%zu %s d=%u lc=%u lp=%u pb=%u mode=%d fb=%u mf=%d mc=%u eos=%d", seed, kind, n,
             lzma2 ? "lzma2" : "lzma1", o->dict_size, o->lc, o->lp, o->pb, (int)o->mode, o->nice_len, (int)o->mf,
             o->depth, o->end_marker);
    uint8_t *d = make_input(kind, n, seed);
    tu_membuf c;
    uint8_t props[5], dict_prop;
    CHECK(encode(o, lzma2, d, n, &c, props, &dict_prop) == FZ7_OK);
    int eos = !lzma2 && o->end_marker;
    if (use_xz && o->lc + o->lp <= 4)
        decode_xz(lzma2, props, o, eos, &c, d, n);
    decode_fz7(lzma2, props, dict_prop, eos, &c, d, n);
    size_t size = c.n;
    free(c.p);
    free(d);
    return size;
}

/* ---- tests -------------------------------------------------------------- */

static void test_empty_and_tiny(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, 5), FZ7_OK);
    uint8_t props[5], dp;
    tu_membuf c;
    /* Empty LZMA2: only the end byte. Empty LZMA1: the range coder's 5 bytes. */
    assert_int_equal(encode(&o, 1, NULL, 0, &c, props, &dp), FZ7_OK);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.p[0], 0x00);
    free(c.p);
    assert_int_equal(encode(&o, 0, NULL, 0, &c, props, &dp), FZ7_OK);
    assert_int_equal(c.n, 5);
    assert_memory_equal(c.p, "\0\0\0\0\0", 5);
    free(c.p);
    for (int lzma2 = 0; lzma2 < 2; lzma2++)
        for (int level = 1; level <= 9; level += 4) {
            fz7_lzma_enc_preset(&o, (unsigned)level);
            o.dict_size = 1 << 16;
            for (size_t n = 0; n < 8; n++)
                round_trip(&o, lzma2, IN_TEXT, n, (uint32_t)(n + 100 * level), 0);
            round_trip(&o, lzma2, IN_BINARY, 1, 7, 1);
            o.end_marker = 1;
            round_trip(&o, lzma2, IN_TEXT, 0, 8, 1);
            round_trip(&o, lzma2, IN_TEXT, 1, 9, 1);
        }
}

static void test_levels_kinds(void **state)
{
    (void)state;
    static const int kinds[] = {IN_TEXT, IN_BINARY, IN_ZEROS, IN_MIXED};
    for (unsigned level = 1; level <= 9; level++) {
        for (size_t k = 0; k < 4; k++) {
            fz7_lzma_enc_opts o;
            fz7_lzma_enc_preset(&o, level);
            fz7_lzma_enc_reduce_dict(&o, 200000);
            uint32_t seed = level * 10 + (uint32_t)k;
            round_trip(&o, (int)((level + k) & 1), kinds[k], 200000, seed, 1);
        }
    }
}

static void test_zeros_long_matches(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    for (unsigned level = 1; level <= 9; level += 4) {
        fz7_lzma_enc_preset(&o, level);
        o.nice_len = 273;
        fz7_lzma_enc_reduce_dict(&o, 1 << 20);
        /* 1 MiB of zeros: matches of 273 bytes; far below 1% of the input. */
        size_t n1 = round_trip(&o, 0, IN_ZEROS, 1 << 20, 1, 1);
        size_t n2 = round_trip(&o, 1, IN_ZEROS, 1 << 20, 1, 1);
        CHECK(n1 < 1000);
        CHECK(n2 < 1000);
    }
}

static void test_random_stored_chunks(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    o.dict_size = 1 << 20;
    size_t n = 300000;
    uint8_t *d = make_input(IN_RANDOM, n, 5);
    tu_membuf c;
    uint8_t props[5], dp;
    snprintf(g_ctx, sizeof g_ctx, "random 300000 seed 5 lzma2 level 5");
    assert_int_equal(encode(&o, 1, d, n, &c, props, &dp), FZ7_OK);
    /* Incompressible: every chunk is stored (control 1 first, then 2), the
     * sizes add up to the input, and the stream ends with the end byte. */
    size_t i = 0, total = 0, chunks = 0;
    while (i < c.n && c.p[i] != 0) {
        assert_int_equal(c.p[i], chunks == 0 ? 0x01 : 0x02);
        size_t u = ((size_t)c.p[i + 1] << 8 | c.p[i + 2]) + 1;
        CHECK(memcmp(c.p + i + 3, d + total, u) == 0);
        total += u;
        i += 3 + u;
        chunks++;
    }
    assert_int_equal(total, n);
    assert_int_equal(i + 1, c.n);
    assert_int_equal(c.n, n + 3 * chunks + 1);
    CHECK(chunks >= 5);
    decode_fz7(1, props, dp, 0, &c, d, n);
    free(c.p);
    free(d);
    round_trip(&o, 0, IN_RANDOM, n, 6, 1);
}

/* Bytes of the LZMA2 stream of d[0..n) with options o, after a check that
 * it decodes. */
static size_t lzma2_size(const fz7_lzma_enc_opts *o, const uint8_t *d, size_t n)
{
    tu_membuf out;
    uint8_t props[5], dp;
    assert_int_equal(encode(o, 1, d, n, &out, props, &dp), FZ7_OK);
    decode_fz7(1, props, dp, 0, &out, d, n);
    free(out.p);
    return out.n;
}

/* The LZMA2 stream of d[0..n) at level 5 with a 1 MiB dictionary, on one
 * thread or with the match finder's: its size. */
static size_t store_case_size(const uint8_t *d, size_t n, int thread, const char *what, fz7_lz_kind mf)
{
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    o.mf = mf;
    o.lc = 3;
    o.dict_size = 1 << 20;
    o.mf_thread = thread;
    snprintf(g_ctx, sizeof g_ctx, "store refusal: %s thread %d", what, thread);
    return lzma2_size(&o, d, n);
}

/* What the store test must not store, at one thread and with the match
 * finder's: random blocks written again and again (the repeat scan's
 * samples find them within a piece, the anchors beyond one) and random
 * records behind a fixed 16-byte header (the literal histograms). Exact
 * sizes: the verdicts are a function of the input. */
static void test_store_refusals(void **state)
{
    (void)state;
    static const struct {
        size_t period;
        size_t packed;      /* LZMA2 stream bytes of 400,000 input bytes (bt4) */
        size_t packed_rdx;  /* the same with rdx (its coder tests on both) */
    } cases[] = {{300, 449, 449}, {1000, 1156, 1156}, {5000, 5201, 5201}, {30000, 30529, 30529}, {70000, 71245, 70184}};
    const size_t n = 400000;
    uint8_t *rnd = make_input(IN_RANDOM, n, 11), *d = malloc(n);
    assert_non_null(d);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t i = 0; i < n; i++)
            d[i] = rnd[i % cases[c].period];
        for (int thread = 0; thread < 2; thread++) {
            assert_int_equal(store_case_size(d, n, thread, "period", FZ7_LZ_BT4), cases[c].packed);
            assert_int_equal(store_case_size(d, n, thread, "period rdx", FZ7_LZ_RDX), cases[c].packed_rdx);
        }
    }
    /* Records of 256 bytes: a fixed 16-byte header, then random bytes. */
    for (size_t i = 0; i < n; i++)
        d[i] = i % 256 < 16 ? (uint8_t)("fz7-record-head!"[i % 256]) : rnd[i];
    for (int thread = 0; thread < 2; thread++) {
        assert_int_equal(store_case_size(d, n, thread, "records", FZ7_LZ_BT4), 381637);
        assert_int_equal(store_case_size(d, n, thread, "records rdx", FZ7_LZ_RDX), 381638);
    }
    free(d);
    free(rnd);
}

/* LZMA2 stream bytes of d[0..n) at level 5 (rdx, 32 MiB), on one thread
 * or with the sort's, after a check that it decodes. */
static size_t level5_size(const uint8_t *d, size_t n, int thread)
{
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    o.mf_thread = thread;
    snprintf(g_ctx, sizeof g_ctx, "far repeat: %zu bytes, thread %d", n, thread);
    return lzma2_size(&o, d, n);
}

/* 1 MiB of random letters (16 of them: 4 bits a byte, and few 6-byte
 * strings twice), 20 MiB of random bytes, the same letters again: the
 * second copy lies 21 MiB back, past rdx's table (a 4 MiB block and its
 * prefix), and is found through the head of anchors, so it costs a few
 * hundred bytes instead of the letters' half a megabyte. Exact sizes: a
 * function of the input, whichever thread sorts. */
static void test_rdx_far_repeat(void **state)
{
    (void)state;
    const size_t t = 1 << 20, r = 20 << 20, n = 2 * t + r;
    uint8_t *text = make_input(IN_RANDOM, t, 21), *noise = make_input(IN_RANDOM, r, 22), *d = malloc(n);
    assert_non_null(d);
    for (size_t i = 0; i < t; i++)
        text[i] = (uint8_t)('a' + (text[i] & 15));
    memcpy(d, text, t);
    memcpy(d + t, noise, r);
    memcpy(d + t + r, text, t);
    size_t once = level5_size(d, t + r, 0);
    for (int thread = 0; thread < 2; thread++) {
        size_t twice = level5_size(d, n, thread);
        CHECK(twice - once < 1000);
        assert_int_equal(twice, 21517237);
    }
    free(d);
    free(noise);
    free(text);
}

static void test_settings_matrix(void **state)
{
    (void)state;
    uint32_t seed = 1000;
    /* hc4, bt2, bt3, bt4, hc5, then rdx. */
    for (int mf = 0; mf <= FZ7_LZ_HC5 + 1; mf++)
        for (int mode = 0; mode < 2; mode++)
            for (int v = 0; v < 6; v++) {
                fz7_lzma_enc_opts o;
                fz7_lzma_enc_preset(&o, mode ? 5 : 1);
                o.mf = mf > FZ7_LZ_HC5 ? FZ7_LZ_RDX : (fz7_lz_kind)mf;
                o.dict_size = v == 0 ? 4096 : (uint32_t)1 << (12 + 2 * v);
                o.lc = (uint32_t)(v % 5);
                o.lp = (uint32_t)((v + mf) % 3);
                o.pb = (uint32_t)((v + mode) % 5);
                o.nice_len = v == 1 ? 5 : v == 2 ? 273 : 8 + 20 * (uint32_t)v;
                o.depth = v == 3 ? 1 : v == 4 ? 200 : 0;
                o.end_marker = v & 1;
                int lzma2 = (v + mf + mode) & 1;
                if (lzma2 && o.lc + o.lp > 4)
                    o.lc = 4 - o.lp;
                round_trip(&o, lzma2, (v + mf) % 2 ? IN_MIXED : IN_TEXT, 100000 + (size_t)v * 7777, seed++, 1);
            }
    /* lc + lp above 4 works for LZMA1 (fz7's decoder only; xz refuses). */
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    o.lc = 8;
    o.lp = 4;
    o.pb = 4;
    o.dict_size = 1 << 16;
    round_trip(&o, 0, IN_BINARY, 80000, seed++, 0);
    o.mode = FZ7_LZMA_MODE_FAST;
    round_trip(&o, 0, IN_TEXT, 80000, seed++, 0);
}

/* More than 4 MiB with a small dictionary: several LZMA2 chunks, and the
 * window moves many times. */
static void test_big_sliding(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 1);
    o.dict_size = 1 << 16;
    round_trip(&o, 1, IN_MIXED, (size_t)5 << 20, 77, 1);
    round_trip(&o, 0, IN_MIXED, (size_t)5 << 20, 78, 1);
    fz7_lzma_enc_preset(&o, 5);
    o.dict_size = 1 << 18;
    o.mf = FZ7_LZ_BT4;
    round_trip(&o, 1, IN_MIXED, (size_t)9 << 19, 79, 1);
}

/* A window of 2 MiB or more hands the pages behind the dictionary back
 * to the kernel as it slides (lz_mf.c), and opts.size_hint only decides
 * which memory gets huge pages: neither may change a byte, even when the
 * hint is far too small or too large. */
static void test_window_release_and_hint(void **state)
{
    (void)state;
    const size_t n = (size_t)6 << 20;
    uint8_t *d = make_input(IN_MIXED, n, 81);
    for (unsigned level = 1; level <= 5; level += 4) {
        fz7_lzma_enc_opts o;
        fz7_lzma_enc_preset(&o, level);
        o.dict_size = 1 << 20;
        snprintf(g_ctx, sizeof g_ctx, "window release: level %u d=1 MiB n=6 MiB", level);
        tu_membuf ref, c;
        uint8_t props[5], dp;
        CHECK(encode(&o, 1, d, n, &ref, props, &dp) == FZ7_OK);
        decode_fz7(1, props, dp, 0, &ref, d, n);
        static const uint64_t hints[] = {1, (uint64_t)3 << 20, (uint64_t)1 << 40};
        for (int h = 0; h < 3; h++) {
            o.size_hint = hints[h];
            CHECK(encode(&o, 1, d, n, &c, props, &dp) == FZ7_OK);
            CHECK(c.n == ref.n);
            CHECK(memcmp(c.p, ref.p, c.n) == 0);
            free(c.p);
        }
        free(ref.p);
    }
    free(d);
}

static void test_deterministic(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 7);
    fz7_lzma_enc_reduce_dict(&o, 150000);
    uint8_t *d = make_input(IN_MIXED, 150000, 3);
    tu_membuf a, b;
    uint8_t props[5], dp;
    rng_state = 1; /* different write pieces each time */
    assert_int_equal(encode(&o, 1, d, 150000, &a, props, &dp), FZ7_OK);
    rng_state = 99;
    assert_int_equal(encode(&o, 1, d, 150000, &b, props, &dp), FZ7_OK);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.p, b.p, a.n);
    free(a.p);
    free(b.p);
    free(d);
}

static void test_options(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, 10), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_preset(&o, 1), FZ7_OK);
    assert_int_equal(o.dict_size, 1u << 20);   /* -mx1: 1 MiB, 7zz 256 KiB */
    assert_int_equal(o.mode, FZ7_LZMA_MODE_FAST);
    assert_int_equal(o.mf, FZ7_LZ_HB5);
    assert_int_equal(o.nice_len, 32);
    assert_int_equal(fz7_lzma_enc_preset(&o, 3), FZ7_OK);
    assert_int_equal(o.mode, FZ7_LZMA_MODE_NORMAL);   /* -mx3/4: normal parser on hb5 */
    assert_int_equal(o.mf, FZ7_LZ_HB5);
    assert_int_equal(o.nice_len, 16);
    assert_int_equal(fz7_lzma_mf_depth(&o), 16);
    assert_int_equal(fz7_lzma_enc_preset(&o, 4), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_HB5);
    assert_int_equal(o.dict_size, 4u << 20);
    assert_int_equal(o.nice_len, 48);
    assert_int_equal(fz7_lzma_mf_depth(&o), 16);
    assert_int_equal(fz7_lzma_enc_preset(&o, 5), FZ7_OK);
    assert_int_equal(o.dict_size, 32u << 20);
    assert_int_equal(o.mode, FZ7_LZMA_MODE_NORMAL);
    assert_int_equal(o.mf, FZ7_LZ_RDX);
    assert_int_equal(o.nice_len, 48);
    assert_int_equal(o.lc, 3);
    assert_int_equal(fz7_lzma_enc_preset(&o, 6), FZ7_OK);
    assert_int_equal(o.dict_size, 64u << 20);
    assert_int_equal(o.mf, FZ7_LZ_RDX);
    assert_int_equal(o.nice_len, 96);
    assert_int_equal(o.lc, 4);
    assert_int_equal(fz7_lzma_enc_preset(&o, 7), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_BT4);
    assert_int_equal(fz7_lzma_enc_preset(&o, 9), FZ7_OK);
    assert_int_equal(o.dict_size, 256u << 20);
    assert_int_equal(o.nice_len, 273);
    assert_int_equal(fz7_lzma_mf_depth(&o), 16 + 273 / 2);

    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=64m"), FZ7_OK);
    assert_int_equal(o.dict_size, 64u << 20);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=20"), FZ7_OK);
    assert_int_equal(o.dict_size, 1u << 20);
    /* a bare number is always 2^N, as 7-Zip documents it */
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=32"), FZ7_OK);
    assert_int_equal(o.dict_size, FZ7_LZMA_DICT_ENC_MAX);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=40"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=1048576"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=1099511627776g"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "D=96K"), FZ7_OK);
    assert_int_equal(o.dict_size, 96u << 10);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=273"), FZ7_OK);
    assert_int_equal(o.nice_len, 273);
    /* fb kept within 5..273 as 7zz keeps it; 2^31 and up: by the level */
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=1000"), FZ7_OK);
    assert_int_equal(o.nice_len, 273);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=1"), FZ7_OK);
    assert_int_equal(o.nice_len, 5);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=2147483647"), FZ7_OK);
    assert_int_equal(o.nice_len, 273);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=2147483648"), FZ7_OK);
    assert_int_equal(o.nice_len, 273);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=4294967296"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mc=4294967295"), FZ7_OK);
    assert_int_equal(o.depth, 4294967295u);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mc=4294967296"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mf=hc4"), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_HC4);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mf=HC5"), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_HC5);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mf=BT2"), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_BT2);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mf=Hb5"), FZ7_OK);
    assert_int_equal(o.mf, FZ7_LZ_HB5);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mf=bt5"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "lc=1"), FZ7_OK);
    assert_int_equal(o.lc, 1);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "lc=9"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "lp=1"), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "pb=0"), FZ7_OK);
    assert_int_equal(o.pb, 0);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "pb=5"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "mc=100"), FZ7_OK);
    assert_int_equal(o.depth, 100);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "a=0"), FZ7_OK);
    assert_int_equal(o.mode, FZ7_LZMA_MODE_FAST);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "a=2"), FZ7_OK);
    assert_int_equal(o.mode, FZ7_LZMA_MODE_NORMAL);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "eos=1"), FZ7_OK);
    assert_int_equal(o.end_marker, 1);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=1k"), FZ7_OK);
    assert_int_equal(o.dict_size, FZ7_LZMA_DICT_MIN);
    /* 7-Zip's d= goes up to 4 GiB, kept as LZMA2's largest, 4 GiB - 1 */
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=2g"), FZ7_OK);
    assert_int_equal(o.dict_size, (uint32_t)1 << 31);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=4g"), FZ7_OK);
    assert_int_equal(o.dict_size, UINT32_MAX);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=4097m"), FZ7_E_ARG);
    assert_int_equal(o.dict_size, UINT32_MAX);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "d=1k"), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "x=1"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb"), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_parse_param(&o, "fb=12x"), FZ7_E_ARG);

    /* LZMA2 refuses lc + lp > 4; LZMA1 takes it. */
    tu_membuf c = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    fz7_lzma_enc_preset(&o, 1);
    o.lc = 4;
    o.lp = 1;
    assert_int_equal(fz7_lzma2_enc_new(&o, &c.base, &e), FZ7_E_ARG);
    assert_null(e);
    assert_int_equal(fz7_lzma_enc_new(&o, &c.base, &e), FZ7_OK);
    fz7_lzma_enc_free(e);

    /* Property bytes. */
    fz7_lzma_enc_preset(&o, 5);
    assert_int_equal(fz7_lzma_enc_new(&o, &c.base, &e), FZ7_OK);
    uint8_t props[5];
    fz7_lzma_enc_props(e, props);
    assert_memory_equal(props, "\x5d\x00\x00\x00\x02", 5);
    assert_int_equal(fz7_lzma2_enc_dict_prop(e), 26); /* 32 MiB */
    /* the window, rdx's table of a 4 MiB block and its sort's scratch */
    assert_true(fz7_lzma_enc_memusage(&o) > (uint64_t)o.dict_size * 5);
    fz7_lzma_enc_free(e);
    assert_int_equal(fz7_lzma2_dict_prop(4096), 0);
    assert_int_equal(fz7_lzma2_dict_prop(4097), 1);
    assert_int_equal(fz7_lzma2_dict_prop(6144), 1);
    assert_int_equal(fz7_lzma2_dict_prop(8u << 20), 22);
    assert_int_equal(fz7_lzma2_dict_prop(0xFFFFFFFFu), 40);

    /* Dictionary reduction, as 7zz reports it (LZMA2:17 for 100000 bytes). */
    fz7_lzma_enc_preset(&o, 9);
    fz7_lzma_enc_reduce_dict(&o, 100000);
    assert_int_equal(o.dict_size, 1u << 17);
    fz7_lzma_enc_reduce_dict(&o, 70000);
    assert_int_equal(o.dict_size, 96u << 10);
    fz7_lzma_enc_reduce_dict(&o, 10);
    assert_int_equal(o.dict_size, 4096);
    fz7_lzma_enc_reduce_dict(&o, 1u << 30);
    assert_int_equal(o.dict_size, 4096);
    o.dict_size = 0;
    assert_int_equal(fz7_lzma_enc_check(&o), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_memusage(&o), 0);
}

int main(void)
{
    snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/fz7_test_lzma_enc_XXXXXX");
    if (!mkdtemp(g_tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_empty_and_tiny),
        cmocka_unit_test(test_random_stored_chunks),
        cmocka_unit_test(test_store_refusals),
        cmocka_unit_test(test_rdx_far_repeat),
        cmocka_unit_test(test_zeros_long_matches),
        cmocka_unit_test(test_levels_kinds),
        cmocka_unit_test(test_settings_matrix),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_big_sliding),
        cmocka_unit_test(test_window_release_and_hint),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
