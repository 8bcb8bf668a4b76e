/* test_mf_thread.c - the match finder on its own thread (lz/lz_mf_mt.h,
 * opts.mf_thread) must not change one output byte: LZMA and LZMA2 streams
 * from bt4 (-mx5 and -mx9 settings), bt2, bt3, hc4 and hc5, through window
 * moves (inputs many times a small dictionary), write() pieces of 1, 7,
 * 65537 bytes and 1 MiB, empty and tiny inputs, LZMA2 block starts (the
 * 2 MiB prefix of fz7_lzma2_enc_new_mt) and the one-block path of
 * fz7_lzma2_enc_new_mt; and an encoder freed mid-stream must not hang.
 * Encoders sharing one worker pool (fz7_lzma2_pool) give new_mt's bytes;
 * an input of known size ends in shorter blocks, at the offsets planned.
 * An encoder or match finder started over (fz7_lzma_enc_reset,
 * fz7_lz_mf_reset) gives what a new one gives, and blocks coded while
 * they are still being filled give the one-thread stream. Incompressible
 * pieces the searcher passes over are stored the same for any write size. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lz/lz_mf_mt.h"
#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_presets.h"
#include "test_util.h"

static uint8_t *g_in;
static size_t g_n;

static uint64_t g_x = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    g_x ^= g_x << 13;
    g_x ^= g_x >> 7;
    g_x ^= g_x << 17;
    return (uint32_t)(g_x >> 32);
}

/* Words, copies of earlier bytes at near and far distances (many match
 * lengths, some past nice_len), runs of one byte and nearly random
 * stretches (stored LZMA2 chunks), from a fixed seed. */
static void generate(size_t n)
{
    static const char *words[] = {"match ", "literal ", "range ", "coder ", "the ", "of ", "window ",
                                  "distance ", "\n", "state ", "price ", "dictionary "};
    g_n = 0;
    while (g_n < n) {
        uint32_t r = rnd(), kind = r % 16;
        if (kind < 7) {
            const char *w = words[(r >> 8) % 12];
            for (size_t k = 0; w[k] && g_n < n; k++)
                g_in[g_n++] = (uint8_t)w[k];
        } else if (kind < 12 && g_n > 1024) {
            size_t far = kind < 10 && g_n > 4096 ? 4096 : g_n;
            size_t d = 1 + rnd() % (uint32_t)far;
            size_t len = 2 + rnd() % (kind == 11 ? 400 : 40);
            for (size_t k = 0; k < len && g_n < n; k++, g_n++)
                g_in[g_n] = g_in[g_n - d];
        } else if (kind == 12) {
            size_t len = rnd() % 600;
            uint8_t b = (uint8_t)rnd();
            for (size_t k = 0; k < len && g_n < n; k++)
                g_in[g_n++] = b;
        } else if (kind == 13 && rnd() % 64 == 0) {
            /* One byte in 32 is 0: too skewed for the store pieces
             * (lzma2_store.c), which one-thread and threaded LZMA2
             * streams test at other positions (test_store_pieces), yet
             * LZMA gains little on it. */
            size_t len = 70000 + rnd() % 50000;
            for (size_t k = 0; k < len && g_n < n; k++) {
                uint32_t v = rnd();   /* one draw per byte */
                g_in[g_n++] = v >> 27 == 0 ? 0 : (uint8_t)v;
            }
        } else {
            g_in[g_n++] = (uint8_t)r;
        }
    }
}

/* Bench corpus text and an ELF after the generated data when available. */
static void add_slice(const char *dir, const char *name, long off, size_t len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/bench/corpus/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    if (fseek(f, off, SEEK_SET) == 0)
        g_n += fread(g_in + g_n, 1, len, f);
    fclose(f);
}

#define INPUT_MAX ((size_t)2 << 20)

static int setup(void **state)
{
    (void)state;
    g_in = malloc(INPUT_MAX);
    if (!g_in)
        return -1;
    generate((size_t)1 << 20);
    const char *dir = getenv("FZ7_SHARED");
    if (dir) {
        add_slice(dir, "brown.txt", 1 << 20, 512 << 10);
        add_slice(dir, "cmake.elf", 2 << 20, 512 << 10);
    }
    print_message("input: %zu bytes\n", g_n);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(g_in);
    return 0;
}

/* Settings under test: a level's preset with a small dictionary (window
 * moves and renumbering within a few MiB), or another match finder. */
typedef struct case_opts {
    const char *name;
    unsigned level;
    uint32_t dict;
    int mf;  /* -1: the preset's */
} case_opts;

static fz7_lzma_enc_opts opts_of(const case_opts *c, int mf_thread)
{
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, c->level), FZ7_OK);
    /* The cases keep the nice_len and lc they were made with, so their
     * digests stay valid when a level's row changes. */
    o.nice_len = c->level >= 7 ? 64 : 32;
    o.lc = 3;
    o.dict_size = c->dict;
    if (c->mf >= 0)
        o.mf = (fz7_lz_kind)c->mf;
    o.mf_thread = mf_thread;
    return o;
}

/* Encodes in[0..n) in pieces of `step` bytes (0: random sizes). */
static void encode(const fz7_lzma_enc_opts *o, int lzma2, const uint8_t *in, size_t n, size_t step, tu_membuf *out)
{
    memset(out, 0, sizeof(*out));
    out->base.write = tu_membuf_write;
    fz7_lzma_enc *e = NULL;
    assert_int_equal(lzma2 ? fz7_lzma2_enc_new(o, &out->base, &e) : fz7_lzma_enc_new(o, &out->base, &e), FZ7_OK);
    size_t at = 0;
    g_x = 12345;
    while (at < n) {
        size_t k = step ? step : 1 + (rnd() % 4 == 0 ? rnd() % 16 : rnd() % (300 << 10));
        if (k > n - at)
            k = n - at;
        assert_int_equal(fz7_lzma_enc_write(e, in + at, k), FZ7_OK);
        at += k;
    }
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_bytes_in(e), n);
    assert_int_equal(fz7_lzma_enc_bytes_out(e), out->n);
    fz7_lzma_enc_free(e);
}

static void assert_same(const char *what, const tu_membuf *a, const tu_membuf *b)
{
    if (a->n != b->n || memcmp(a->p, b->p, a->n) != 0) {
        size_t i = 0;
        while (i < a->n && i < b->n && a->p[i] == b->p[i])
            i++;
        fail_msg("%s: threaded finder differs at byte %zu (sizes %zu vs %zu)", what, i, b->n, a->n);
    }
}

/* One-thread and threaded encodes of in[0..n) must be the same bytes. */
static size_t same_both_ways(const case_opts *c, int lzma2, const uint8_t *in, size_t n, size_t step)
{
    fz7_lzma_enc_opts o1 = opts_of(c, 0), o2 = opts_of(c, 1);
    tu_membuf ref, got;
    encode(&o1, lzma2, in, n, step, &ref);
    encode(&o2, lzma2, in, n, step, &got);
    char what[160];
    snprintf(what, sizeof(what), "%s %s, %zu bytes in pieces of %zu", c->name, lzma2 ? "LZMA2" : "LZMA", n, step);
    assert_same(what, &ref, &got);
    size_t out = ref.n;
    free(ref.p);
    free(got.p);
    return out;
}

static void check_decodes(const tu_membuf *c, uint32_t dict, const uint8_t *in, size_t n)
{
    fz7_istream *src = fz7_istream_from_memory(c->p, c->n);
    fz7_istream *dec = NULL;
    assert_int_equal(fz7_lzma2_istream_new(src, fz7_lzma2_dict_prop(dict), FZ7_DEFAULT_MEM_LIMIT, &dec), FZ7_OK);
    uint8_t *got = malloc(n + 1);
    assert_non_null(got);
    size_t have = 0;
    for (;;) {
        size_t r = 0;
        assert_int_equal(dec->read(dec, got + have, n + 1 - have, &r), FZ7_OK);
        have += r;
        if (r == 0 || have > n)
            break;
    }
    assert_int_equal(have, n);
    assert_memory_equal(got, in, n);
    free(got);
    fz7_istream_free(dec);
    fz7_istream_free(src);
}

static const case_opts BT4_MX5 = {"bt4 -mx5 d=256k", 5, 256 << 10, FZ7_LZ_BT4};
static const case_opts BT4_MX9 = {"bt4 -mx9 d=512k", 9, 512 << 10, -1};

/* bt4 at the -mx5 and -mx9 settings over the whole input (many window
 * moves: the dictionary is a tenth of it or less), random write() pieces
 * and 1 MiB pieces, LZMA2 and LZMA; the threaded LZMA2 stream decodes. */
static void test_bt4_levels(void **state)
{
    (void)state;
    size_t a = same_both_ways(&BT4_MX5, 1, g_in, g_n, 0);
    size_t b = same_both_ways(&BT4_MX5, 0, g_in, g_n, (size_t)1 << 20);
    size_t c = same_both_ways(&BT4_MX9, 1, g_in, g_n, (size_t)1 << 20);
    print_message("bt4: %zu -> %zu (mx5 LZMA2), %zu (mx5 LZMA), %zu (mx9 LZMA2) bytes, identical\n", g_n, a, b, c);
    fz7_lzma_enc_opts o = opts_of(&BT4_MX5, 1);
    tu_membuf m;
    encode(&o, 1, g_in, g_n, 65537, &m);
    check_decodes(&m, o.dict_size, g_in, g_n);
    free(m.p);
}

/* rdx: the thread that builds the next block's table must not change a
 * byte either: 64 KiB blocks over the whole input, random write() pieces
 * and 1 MiB ones, LZMA2 and LZMA; the threaded stream decodes. */
static void test_rdx_builder_thread(void **state)
{
    (void)state;
    static const case_opts RDX_MX5 = {"rdx -mx5 d=256k", 5, 256 << 10, FZ7_LZ_RDX};
    size_t a = same_both_ways(&RDX_MX5, 1, g_in, g_n, 0);
    size_t b = same_both_ways(&RDX_MX5, 0, g_in, g_n, (size_t)1 << 20);
    print_message("rdx: %zu -> %zu (LZMA2), %zu (LZMA) bytes, identical\n", g_n, a, b);
    fz7_lzma_enc_opts o = opts_of(&RDX_MX5, 1);
    tu_membuf m;
    encode(&o, 1, g_in, g_n, 65537, &m);
    check_decodes(&m, o.dict_size, g_in, g_n);
    free(m.p);
}

/* Over 4 MiB with a 64 KiB dictionary the window moves three times and
 * the stored positions are renumbered (lz_mf.c starts them high so that
 * the second move does it) while the searcher is paused. */
static void test_renumbering(void **state)
{
    (void)state;
    static const case_opts c = {"bt4 -mx5 d=64k", 5, 64 << 10, FZ7_LZ_BT4};
    uint8_t *twice = malloc(2 * g_n);
    assert_non_null(twice);
    memcpy(twice, g_in, g_n);
    memcpy(twice + g_n, g_in, g_n);
    size_t out = same_both_ways(&c, 1, twice, 2 * g_n, 65536);
    print_message("%s: %zu -> %zu bytes, identical\n", c.name, 2 * g_n, out);
    free(twice);
}

/* The other match finders, including the fast parser's hc4/hc5 (which
 * skip most positions one-threaded: the searcher still searches them). */
static void test_other_finders(void **state)
{
    (void)state;
    static const case_opts cases[] = {
        {"bt2 -mx5 d=64k", 5, 64 << 10, FZ7_LZ_BT2},
        {"bt3 -mx7 d=128k", 7, 128 << 10, FZ7_LZ_BT3},
        {"hc4 -mx5 d=64k", 5, 64 << 10, FZ7_LZ_HC4},
        {"hc4 -mx3 d=128k", 3, 128 << 10, FZ7_LZ_HC4},
        {"hc5 -mx1 d=64k", 1, 64 << 10, FZ7_LZ_HC5},
    };
    size_t n = g_n < ((size_t)1 << 20) ? g_n : (size_t)1 << 20;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t out = same_both_ways(&cases[i], 1, g_in, n, 0);
        print_message("%s: %zu -> %zu bytes, identical\n", cases[i].name, n, out);
    }
}

/* Repeating data from a fixed seed: periods of 2, 7, 300 and 4093 bytes,
 * a copied 150 KB stretch, and periods broken every few thousand bytes by
 * one changed byte (the repeat path must stop and start again there). */
static size_t make_repeats(uint8_t *out, size_t cap)
{
    size_t n = 0;
    g_x = 0x5851F42D4C957F2Dull;
    static const uint32_t periods[] = {4093, 2, 7, 300, 4093, 61};
    for (size_t k = 0; k < sizeof(periods) / sizeof(periods[0]) && n < cap; k++) {
        uint32_t d = periods[k];
        for (uint32_t i = 0; i < d && n < cap; i++)
            out[n++] = (uint8_t)rnd();
        size_t end = n + (k % 2 ? 40000 : 300000);
        for (uint32_t i = 0; n < end && n < cap; i++, n++)
            out[n] = k >= 4 && rnd() % 5000 == 0 ? (uint8_t)rnd() : out[n - d];
        /* Text-like bytes, then a copy of an earlier stretch. */
        for (size_t i = 0; i < 20000 && n < cap; i++)
            out[n++] = (uint8_t)("abcdefgh ij\n"[rnd() % 12]);
        if (n > 200000 && n + 150000 <= cap) {
            memmove(out + n, out + n - 200000, 150000);
            n += 150000;
        }
    }
    return n;
}

/* FNV-1a of a stream. */
static uint64_t digest_of(const tu_membuf *m)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < m->n; i++)
        h = (h ^ m->p[i]) * 0x100000001B3ull;
    return h;
}

/* Repeating data (make_repeats) through bt4 at the -mx5 and -mx9
 * settings, bt2 and bt3: one-thread and threaded bytes equal, the stream
 * decodes, and it is byte for byte what the tree walk at every position
 * gave before the binary trees recorded repeats without it (the digests,
 * sizes and hashes below). */
static void test_repeats(void **state)
{
    (void)state;
    static const struct {
        case_opts c;
        size_t bytes;
        uint64_t digest;
    } cases[] = {
        {{"bt4 -mx5 d=256k", 5, 256 << 10, FZ7_LZ_BT4}, 66048, 0x15a341ed902dafcdull},
        {{"bt4 -mx9 d=1m", 9, 1 << 20, -1}, 66628, 0x060bbbb4b2414c7eull},
        {{"bt2 -mx5 d=256k", 5, 256 << 10, FZ7_LZ_BT2}, 66217, 0x306b3ebd56f36654ull},
        {{"bt3 -mx7 d=256k", 7, 256 << 10, FZ7_LZ_BT3}, 66192, 0xf191a801cb82534cull},
    };
    uint8_t *in = malloc(INPUT_MAX);
    assert_non_null(in);
    size_t n = make_repeats(in, INPUT_MAX);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t out = same_both_ways(&cases[i].c, 1, in, n, 65536);
        fz7_lzma_enc_opts o = opts_of(&cases[i].c, 1);
        tu_membuf m;
        encode(&o, 1, in, n, 65536, &m);
        check_decodes(&m, o.dict_size, in, n);
        uint64_t h = digest_of(&m);
        print_message("%s: %zu -> %zu bytes, digest %016llx\n", cases[i].c.name, n, out, (unsigned long long)h);
        assert_int_equal(m.n, cases[i].bytes);
        assert_true(h == cases[i].digest);
        free(m.p);
    }
    free(in);
}

/* write() pieces of 1 and 7 bytes (every append tells the searcher), and
 * inputs shorter than nice_len, of one byte, and empty. */
static void test_pieces_and_tiny(void **state)
{
    (void)state;
    static const case_opts small = {"bt4 -mx5 d=64k", 5, 64 << 10, FZ7_LZ_BT4};
    static const case_opts hc = {"hc4 -mx5 d=64k", 5, 64 << 10, FZ7_LZ_HC4};
    same_both_ways(&small, 1, g_in, 300000, 1);
    same_both_ways(&small, 1, g_in, 300000, 7);
    same_both_ways(&hc, 1, g_in, 200000, 7);
    same_both_ways(&small, 0, g_in, 200000, 7);
    for (size_t n = 0; n <= 40; n++) {
        same_both_ways(&small, 1, g_in + 5000, n, 1);
        same_both_ways(&BT4_MX9, 0, g_in, n, 3);
    }
    tu_membuf m;
    fz7_lzma_enc_opts o = opts_of(&small, 1);
    encode(&o, 1, g_in, 0, 1, &m);
    assert_int_equal(m.n, 1); /* the LZMA2 end byte alone */
    assert_int_equal(m.p[0], 0x00);
    free(m.p);
}

/* Encodes g_in with fz7_lzma2_enc_new_mt. */
static void encode_mt(const fz7_lzma_enc_opts *o, uint32_t threads, uint64_t block, size_t n, size_t step,
                      tu_membuf *out)
{
    memset(out, 0, sizeof(*out));
    out->base.write = tu_membuf_write;
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new_mt(o, threads, block, &out->base, &e), FZ7_OK);
    for (size_t at = 0; at < n; at += step)
        assert_int_equal(fz7_lzma_enc_write(e, g_in + at, n - at < step ? n - at : step), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    fz7_lzma_enc_free(e);
}

/* LZMA2 blocks: each later block starts from the previous block's last
 * bytes (skipped through the match finder, positions close to what the
 * block has written so far); with a match finder thread per block the
 * stream is the same. One block with two threads is the one-stream
 * encoder with a match finder thread: the single-threaded stream. */
static void test_blocks(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o1, o2;
    assert_int_equal(fz7_lzma_enc_preset(&o1, 5), FZ7_OK);
    o1.mf = FZ7_LZ_BT4;
    o1.dict_size = 1 << 20;
    o2 = o1;
    o2.mf_thread = 1;
    const uint64_t block = (uint64_t)1 << 20;
    tu_membuf ref, got;
    encode_mt(&o1, 2, block, g_n, 300007, &ref);
    encode_mt(&o2, 2, block, g_n, 300007, &got);
    assert_same("1 MiB blocks, 2 threads", &ref, &got);
    free(got.p);
    encode_mt(&o2, 1, block, g_n, 1 << 20, &got);
    assert_same("1 MiB blocks, 1 thread", &ref, &got);
    print_message("1 MiB blocks: %zu -> %zu bytes, identical with a finder thread per block\n", g_n, ref.n);
    free(got.p);
    free(ref.p);

    /* One block: the size hint says the input fits (3 x the -mx5
     * dictionary reduced to the input). */
    fz7_lzma_enc_opts one;
    assert_int_equal(fz7_lzma_enc_preset(&one, 5), FZ7_OK);
    one.mf = FZ7_LZ_BT4;
    fz7_lzma_enc_reduce_dict(&one, g_n);
    tu_membuf single;
    encode(&one, 1, g_in, g_n, 65536, &single);
    encode_mt(&one, 2, 0, g_n, 65536, &got);
    assert_same("one block on 2 threads", &single, &got);
    free(got.p);
    free(single.p);
    /* Its memory: one encoder and the ring, not a block's buffers. */
    fz7_lzma_enc_opts with = one;
    with.mf_thread = 1;
    assert_int_equal(fz7_lzma2_mt_memusage(&one, 2, 0), fz7_lzma_enc_memusage(&with));
    assert_int_equal(fz7_lzma_enc_memusage(&with), fz7_lzma_enc_memusage(&one) + fz7_lz_mf_mt_memusage());
    assert_true(fz7_lz_mf_mt_memusage() >= ((uint64_t)2 << 20));

    /* rdx (-mx5): its second thread builds tables, the same stream; its
     * memory adds the thread's table and copy of a block. */
    assert_int_equal(fz7_lzma_enc_preset(&one, 5), FZ7_OK);
    assert_int_equal(one.mf, FZ7_LZ_RDX);
    fz7_lzma_enc_reduce_dict(&one, g_n);
    encode(&one, 1, g_in, g_n, 65536, &single);
    encode_mt(&one, 2, 0, g_n, 65536, &got);
    assert_same("rdx: one block on 2 threads", &single, &got);
    free(got.p);
    free(single.p);
    with = one;
    with.mf_thread = 1;
    assert_int_equal(fz7_lzma2_mt_memusage(&one, 2, 0), fz7_lzma_enc_memusage(&with));
    assert_int_equal(fz7_lzma_enc_memusage(&with),
                     fz7_lzma_enc_memusage(&one) + fz7_lz_mf_rdx_thread_memusage(one.dict_size));
}

/* Encodes n bytes of data with fz7_lzma2_enc_new_mt (its own pool). */
static void encode_mt_of(const fz7_lzma_enc_opts *o, uint32_t threads, uint64_t block, const uint8_t *data,
                         size_t n, tu_membuf *out)
{
    memset(out, 0, sizeof(*out));
    out->base.write = tu_membuf_write;
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new_mt(o, threads, block, &out->base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_write(e, data, n), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    fz7_lzma_enc_free(e);
}

/* A pooled encoder: n bytes of data written in pieces of 65537 bytes. */
static fz7_lzma_enc *pooled_write(const fz7_lzma_enc_opts *o, fz7_lzma2_pool *pool, uint64_t block,
                                  const uint8_t *data, size_t n, tu_membuf *out)
{
    memset(out, 0, sizeof(*out));
    out->base.write = tu_membuf_write;
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new_pooled(o, pool, block, &out->base, &e), FZ7_OK);
    for (size_t at = 0; at < n; at += 65537)
        assert_int_equal(fz7_lzma_enc_write(e, data + at, n - at < 65537 ? n - at : 65537), FZ7_OK);
    return e;
}

/* Encoders sharing one pool one after the other (a 7z writer's folders):
 * the second starts while the first's last blocks are queued (its input
 * ended), and an encoder freed with blocks still queued leaves the pool
 * working. Each stream must be the one fz7_lzma2_enc_new_mt gives. */
static void test_pool(void **state)
{
    (void)state;
    const size_t n = (size_t)7 << 19; /* 3.5 MiB: 4 blocks of 1 MiB */
    uint8_t *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(g_in[i % g_n] ^ (i / g_n));
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, 1), FZ7_OK);
    const uint64_t block = (uint64_t)1 << 20;
    const size_t na = n, nb = n - 300000;
    tu_membuf ref_a, ref_b, ma, mb, mc, md;
    encode_mt_of(&o, 2, block, data, na, &ref_a);
    encode_mt_of(&o, 2, block, data + 300000, nb, &ref_b);

    fz7_lzma2_pool *pool = NULL;
    assert_int_equal(fz7_lzma2_pool_new(0, &pool), FZ7_E_ARG);
    assert_int_equal(fz7_lzma2_pool_new(FZ7_LZMA2_MT_THREADS_MAX + 1, &pool), FZ7_E_ARG);
    assert_int_equal(fz7_lzma2_pool_new(2, &pool), FZ7_OK);
    assert_int_equal(fz7_lzma2_pool_threads(pool), 2);
    fz7_lzma_enc *a = pooled_write(&o, pool, block, data, na, &ma);
    assert_int_equal(fz7_lzma2_mt_end_input(a), FZ7_OK);
    fz7_lzma_enc *b = pooled_write(&o, pool, block, data + 300000, nb, &mb);
    assert_int_equal(fz7_lzma_enc_finish(a), FZ7_OK);
    assert_true(fz7_lzma2_mt_blocks_done(a));
    fz7_lzma_enc_free(a);
    assert_same("first pooled encoder", &ref_a, &ma);
    /* Freed with blocks queued: the pool goes on with the next one. */
    fz7_lzma_enc *c = pooled_write(&o, pool, block, data, na, &mc);
    assert_int_equal(fz7_lzma2_mt_end_input(c), FZ7_OK);
    fz7_lzma_enc_free(c);
    assert_int_equal(fz7_lzma_enc_finish(b), FZ7_OK);
    fz7_lzma_enc_free(b);
    assert_same("second pooled encoder", &ref_b, &mb);
    fz7_lzma_enc *d = pooled_write(&o, pool, block, data, na, &md);
    assert_int_equal(fz7_lzma_enc_finish(d), FZ7_OK);
    assert_int_equal(fz7_lzma2_mt_end_input(d), FZ7_E_ARG); /* after finish */
    fz7_lzma_enc_free(d);
    assert_same("encoder after a freed one", &ref_a, &md);
    print_message("pool: %zu -> %zu and %zu -> %zu bytes, as with their own threads\n", na, ref_a.n, nb, ref_b.n);
    fz7_lzma2_pool_free(pool);

    /* A one-stream encoder is not multi-threaded: nothing to end early. */
    tu_membuf m1 = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new(&o, &m1.base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma2_mt_end_input(e), FZ7_E_ARG);
    assert_true(fz7_lzma2_mt_blocks_done(e));
    fz7_lzma_enc_free(e);
    assert_int_equal(fz7_lzma2_enc_new_pooled(&o, NULL, block, &m1.base, &e), FZ7_E_ARG);
    assert_null(e);
    free(m1.p);
    free(ma.p);
    free(mb.p);
    free(mc.p);
    free(md.p);
    free(ref_a.p);
    free(ref_b.p);
    free(data);
}

/* Uncompressed offsets of the chunks that begin a later LZMA2 block: the
 * LZMA chunks that reset state and properties but not the dictionary
 * (control 0xC0-0xDF, xz-file-format.txt 5.3.1). Returns their count. */
static size_t block_starts(const tu_membuf *m, uint64_t *at, size_t max)
{
    size_t i = 0, k = 0;
    uint64_t pos = 0;
    while (i < m->n && m->p[i] != 0x00) {
        uint8_t c = m->p[i];
        assert_true(i + 3 <= m->n);
        uint32_t size = ((uint32_t)m->p[i + 1] << 8 | m->p[i + 2]) + 1;
        if (c == 0x01 || c == 0x02) { /* stored chunk */
            pos += size;
            i += 3 + size;
            continue;
        }
        assert_true(c >= 0x80 && i + 5 <= m->n);
        uint64_t unpacked = ((uint64_t)(c & 0x1F) << 16) + size;
        uint32_t packed = ((uint32_t)m->p[i + 3] << 8 | m->p[i + 4]) + 1;
        if (c >> 5 == 6 && k < max)
            at[k++] = pos;
        pos += unpacked;
        i += 5 + (c >= 0xC0) + packed;
    }
    assert_true(i < m->n);
    return k;
}

/* An input of known size (opts.size_hint) ends in blocks of a quarter
 * block (lzma2_mt.c, plan_len): 1 MiB blocks, the rest over a multiple
 * of 1 MiB (cut down to a multiple of 16, at least 256 KiB), then 256 KiB
 * blocks, the last one taking a remainder under 128 KiB. The same bytes with 1, 2
 * and 3 threads and on a pool; without a size hint every block is 1 MiB;
 * both decode. */
static void test_tail_blocks(void **state)
{
    (void)state;
    const size_t n = ((size_t)3 << 20) + 100000;
    uint8_t *data = malloc(n + 16);
    assert_non_null(data);
    /* Numbers as text: every chunk compresses (a stored chunk would hide
     * a block's start from block_starts). */
    uint32_t x = 12345;
    for (size_t i = 0; i < n;) {
        x = x * 1103515245u + 12345u;
        i += (size_t)snprintf((char *)data + i, 16, "%u ", (x >> 16) % 5000);
    }
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, 1), FZ7_OK);
    o.dict_size = 256u << 10;   /* the plan below is for a 256 KiB dictionary */
    const uint64_t block = (uint64_t)1 << 20;
    fz7_lzma_enc_opts hinted = o;
    fz7_lzma_enc_reduce_dict(&hinted, n);
    assert_int_equal(hinted.size_hint, n);
    assert_int_equal(hinted.dict_size, 256u << 10);
    tu_membuf ref, got;
    encode_mt_of(&hinted, 2, block, data, n, &ref);
    /* 3245728 bytes: 1 MiB, 1 MiB, then 256 KiB (the 100000 bytes over
     * 3 MiB are less than a tail block), two more, and 362144 last (the
     * 100000 left after a 256 KiB block are under half of one). */
    const uint64_t want[] = {1048576, 2097152, 2359296, 2621440, 2883584};
    uint64_t at[16];
    size_t k = block_starts(&ref, at, 16);
    assert_int_equal(k, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(at[i], want[i]);
    check_decodes(&ref, hinted.dict_size, data, n);
    for (uint32_t threads = 1; threads <= 3; threads += 2) {
        encode_mt_of(&hinted, threads, block, data, n, &got);
        assert_same(threads == 1 ? "tail blocks, 1 thread" : "tail blocks, 3 threads", &ref, &got);
        free(got.p);
    }
    fz7_lzma2_pool *pool = NULL;
    assert_int_equal(fz7_lzma2_pool_new(2, &pool), FZ7_OK);
    fz7_lzma_enc *e = pooled_write(&hinted, pool, block, data, n, &got);
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    fz7_lzma_enc_free(e);
    fz7_lzma2_pool_free(pool);
    assert_same("tail blocks on a pool", &ref, &got);
    free(got.p);

    /* An input longer than its hint (a file that grew): the planned tail
     * and then 1 MiB blocks; every later block's prefix is real input.
     * A hint under the prefix (256 KiB) with one thread (no one-block
     * stream) plans no block shorter than the prefix. */
    static const uint64_t hints[] = {(uint64_t)5 << 19, 100000};
    for (size_t h = 0; h < 2; h++) {
        fz7_lzma_enc_opts grew = hinted;
        grew.size_hint = hints[h];
        tu_membuf g1, g2;
        encode_mt_of(&grew, 1, block, data, n, &g1);
        check_decodes(&g1, grew.dict_size, data, n);
        if (h == 0) {
            encode_mt_of(&grew, 2, block, data, n, &g2);
            assert_same("longer than its hint, 2 threads", &g1, &g2);
            free(g2.p);
        }
        free(g1.p);
    }

    /* No size hint: 1 MiB blocks to the end. */
    tu_membuf plain;
    encode_mt_of(&o, 2, block, data, n, &plain);
    const uint64_t even[] = {1048576, 2097152, 3145728};
    k = block_starts(&plain, at, 16);
    assert_int_equal(k, 3);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(at[i], even[i]);
    check_decodes(&plain, o.dict_size, data, n);
    print_message("tail blocks: %zu -> %zu bytes (1 MiB blocks to the end: %zu)\n", n, ref.n, plain.n);
    free(plain.p);
    free(ref.p);
    free(data);
}

/* Freed before finish (an error upstream), in the middle of a window and
 * right after creation: the searcher is joined, nothing leaks or hangs.
 * An mf_thread other than 0 or 1 is refused. */
static void test_free_early(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o = opts_of(&BT4_MX5, 1);
    for (int k = 0; k < 3; k++) {
        tu_membuf m = {{tu_membuf_write}, NULL, 0, 0};
        fz7_lzma_enc *e = NULL;
        assert_int_equal(fz7_lzma2_enc_new(&o, &m.base, &e), FZ7_OK);
        if (k > 0)
            assert_int_equal(fz7_lzma_enc_write(e, g_in, k == 1 ? 100000 : (size_t)2 << 20), FZ7_OK);
        fz7_lzma_enc_free(e);
        free(m.p);
    }
    o.mf_thread = 2;
    assert_int_equal(fz7_lzma_enc_check(&o), FZ7_E_ARG);
}

/* Writes in[0..n) to e in pieces of `step` bytes and finishes it (finish
 * 0: the stream is left open). */
static void write_all(fz7_lzma_enc *e, const uint8_t *in, size_t n, size_t step, int finish)
{
    for (size_t at = 0; at < n; at += step)
        assert_int_equal(fz7_lzma_enc_write(e, in + at, n - at < step ? n - at : step), FZ7_OK);
    if (finish)
        assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
}

/* One encoder reset (fz7_lzma_enc_reset) between inputs must give each
 * input the bytes a new encoder gives it: after a finished stream, after
 * one left open, after an empty one, with a second input that repeats the
 * first's bytes (an old table entry left within reach would find them). */
static void reset_case(const char *name, const fz7_lzma_enc_opts *o, int lzma2)
{
    const size_t na = g_n < ((size_t)3 << 19) ? g_n : (size_t)3 << 19;
    struct { const uint8_t *p; size_t n; int finish; } in[] = {
        {g_in, na, 1},                        /* moves a small window */
        {g_in + 1000, 700000, 1},             /* the first's bytes again */
        {g_in + 5, 5000, 0},                  /* left open */
        {g_in + 200000, 300000, 1},
        {g_in, 0, 1},                         /* empty */
        {g_in + 3, 12, 1},                    /* tiny */
        {g_in + 4096, 600000, 1},
    };
    tu_membuf got = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    assert_int_equal(lzma2 ? fz7_lzma2_enc_new(o, &got.base, &e) : fz7_lzma_enc_new(o, &got.base, &e), FZ7_OK);
    for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++) {
        if (k > 0) {
            got.n = 0;
            assert_int_equal(fz7_lzma_enc_reset(e, &got.base), FZ7_OK);
        }
        write_all(e, in[k].p, in[k].n, 65537, in[k].finish);
        if (!in[k].finish)
            continue;
        assert_int_equal(fz7_lzma_enc_bytes_in(e), in[k].n);
        assert_int_equal(fz7_lzma_enc_bytes_out(e), got.n);
        tu_membuf ref = {{tu_membuf_write}, NULL, 0, 0};
        fz7_lzma_enc *f = NULL;
        assert_int_equal(lzma2 ? fz7_lzma2_enc_new(o, &ref.base, &f) : fz7_lzma_enc_new(o, &ref.base, &f), FZ7_OK);
        write_all(f, in[k].p, in[k].n, 65537, 1);
        fz7_lzma_enc_free(f);
        char what[160];
        snprintf(what, sizeof(what), "%s %s, input %zu after a reset", name, lzma2 ? "LZMA2" : "LZMA", k);
        assert_same(what, &ref, &got);
        free(ref.p);
    }
    fz7_lzma_enc_free(e);
    free(got.p);
}

/* The match finder alone, reset after a stream whose positions came near
 * the top of 32 bits (the tables are then cleared) and after one that did
 * not (old entries pushed out of reach): every search of the next input
 * returns what a fresh match finder's does. */
static void mf_reset_case(int kind, int near_top)
{
    fz7_lz_mf a, b;
    assert_int_equal(fz7_lz_mf_init(&a, kind, 65536, 4096, 32, 16, 16, 0), 0);
    assert_int_equal(fz7_lz_mf_init(&b, kind, 65536, 4096, 32, 16, 16, 0), 0);
    /* Nothing stored yet: any offset from cyclic_size up is valid. */
    a.offset = near_top ? 0xFFFFFFFFu - a.buf_size - 1 : a.cyclic_size;
    size_t first = near_top ? 200000 : g_n;
    for (size_t at = 0; at < first;) {
        size_t got = fz7_lz_mf_append(&a, g_in + at, first - at < 65536 ? first - at : 65536);
        at += got;
        fz7_lz_mf_skip(&a, fz7_lz_mf_avail(&a) - (at < first ? 32 : 0));
    }
    uint32_t old_offset = a.offset;
    fz7_lz_mf_reset(&a);
    if (near_top)
        assert_int_equal(a.offset, a.cyclic_size);
    else
        assert_true(a.offset > old_offset);
    static fz7_lz_match ma[FZ7_LZ_MATCHES_MAX], mb[FZ7_LZ_MATCHES_MAX];
    const uint8_t *in = g_in + 3000;   /* the same bytes again, shifted */
    size_t n = 400000, searches = 0, found = 0;
    for (size_t at = 0; at < n || fz7_lz_mf_avail(&b) > 0;) {
        if (at < n) {
            size_t k = n - at < 65536 ? n - at : 65536;
            assert_int_equal(fz7_lz_mf_append(&a, in + at, k), k);
            assert_int_equal(fz7_lz_mf_append(&b, in + at, k), k);
            at += k;
        }
        while (fz7_lz_mf_avail(&b) > (at < n ? 32u : 0u)) {
            uint32_t na = fz7_lz_mf_find(&a, ma), nb = fz7_lz_mf_find(&b, mb);
            assert_int_equal(na, nb);
            assert_memory_equal(ma, mb, nb * sizeof(mb[0]));
            searches++;
            found += nb > 0;
        }
    }
    assert_int_equal(searches, n);
    print_message("kind %d near_top %d: %zu of %zu searches found\n", kind, near_top, found, searches);
    assert_true(found > n / 4);
    fz7_lz_mf_free(&a);
    fz7_lz_mf_free(&b);
}

static void test_reset(void **state)
{
    (void)state;
    static const case_opts cases[] = {
        {"hb5 -mx1 d=256k", 1, 256 << 10, -1},
        {"hb5 -mx3 d=64k", 3, 64 << 10, -1},
        {"hc5 -mx1 d=256k", 1, 256 << 10, FZ7_LZ_HC5},
        {"hc4 -mx1 d=64k", 1, 64 << 10, FZ7_LZ_HC4},
        {"bt4 -mx5 d=256k", 5, 256 << 10, FZ7_LZ_BT4},
        {"bt2 -mx9 d=64k", 9, 64 << 10, FZ7_LZ_BT2},
        {"rdx -mx5 d=256k", 5, 256 << 10, FZ7_LZ_RDX},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fz7_lzma_enc_opts o = opts_of(&cases[i], 0);
        reset_case(cases[i].name, &o, 1);
        if (i == 0 || i == 4) {
            o.end_marker = 1;
            reset_case(cases[i].name, &o, 0);
        }
    }
    static const int kinds[] = {FZ7_LZ_HB5, FZ7_LZ_HC5, FZ7_LZ_HC4, FZ7_LZ_BT4, FZ7_LZ_BT3, FZ7_LZ_RDX};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        mf_reset_case(kinds[i], 0);
        mf_reset_case(kinds[i], 1);
    }
    /* Refused: a multi-threaded handle, a finder on its thread, NULL. */
    fz7_lzma_enc_opts o = opts_of(&BT4_MX5, 1);
    tu_membuf m = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new(&o, &m.base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_reset(e, &m.base), FZ7_E_ARG);
    fz7_lzma_enc_free(e);
    o.mf_thread = 0;
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, (uint64_t)1 << 20, &m.base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_reset(e, &m.base), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_reset(e, NULL), FZ7_E_ARG);
    assert_int_equal(fz7_lzma_enc_reset(NULL, &m.base), FZ7_E_ARG);
    fz7_lzma_enc_free(e);
    free(m.p);
}

/* Level `level` (bt4 at 5: its prefix needs nice_len bytes after it),
 * a 256 KiB dictionary, 1 MiB blocks written with pauses. */
static void stream_case(int level)
{
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, (unsigned)level), FZ7_OK);
    o.dict_size = 256 << 10;
    const uint64_t block = (uint64_t)1 << 20;
    const size_t n = g_n;
    tu_membuf ref;
    encode_mt_of(&o, 1, block, g_in, n, &ref);
    static const size_t pauses[] = {100, 70000, 300000, (1 << 20) + 5, (1 << 20) + 65535, (3 << 19) + 1};
    tu_membuf got = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, block, &got.base, &e), FZ7_OK);
    size_t at = 0;
    for (size_t i = 0; i <= sizeof(pauses) / sizeof(pauses[0]); i++) {
        size_t to = i < sizeof(pauses) / sizeof(pauses[0]) && pauses[i] < n ? pauses[i] : n;
        for (; at < to; at += 4099)
            assert_int_equal(fz7_lzma_enc_write(e, g_in + at, to - at < 4099 ? to - at : 4099), FZ7_OK);
        at = to;
        usleep(30000);
    }
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    fz7_lzma_enc_free(e);
    assert_same("blocks coded while filled", &ref, &got);
    print_message("-mx%d streamed blocks: %zu -> %zu bytes, as on one thread\n", level, n, ref.n);
    free(got.p);
    free(ref.p);
}

/* A worker with nothing to do begins on the block still being filled and
 * codes its bytes as they come: pauses in the input let it start (and
 * wait for more) mid-block, at a block's first bytes and inside its
 * prefix's first 64 KiB; the stream is the one-thread stream all the same.
 * An encoder freed while a worker codes its filling block must not hang. */
static void test_stream(void **state)
{
    (void)state;
    for (int level = 1; level <= 5; level += 4)
        stream_case(level);
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, 1), FZ7_OK);
    const uint64_t block = (uint64_t)1 << 20;
    fz7_lzma_enc *e = NULL;
    for (int k = 0; k < 3; k++) {
        tu_membuf m = {{tu_membuf_write}, NULL, 0, 0};
        assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, block, &m.base, &e), FZ7_OK);
        size_t len = k == 0 ? 1000 : k == 1 ? 200000 : (size_t)(block + 100000);
        assert_int_equal(fz7_lzma_enc_write(e, g_in, len), FZ7_OK);
        usleep(30000);
        fz7_lzma_enc_free(e);
        free(m.p);
    }
}

/* Bytes of an LZMA2 stream in uncompressed chunks (control 1 and 2);
 * *pieces: how many of those chunks are whole store pieces (64 KiB). */
static size_t stored_bytes(const tu_membuf *m, size_t *pieces)
{
    *pieces = 0;
    size_t at = 0, stored = 0;
    while (at < m->n && m->p[at] != 0x00) {
        uint8_t c = m->p[at];
        size_t u, packed = 0, head = 3;
        if (c == 0x01 || c == 0x02) {
            u = ((size_t)m->p[at + 1] << 8 | m->p[at + 2]) + 1;
            stored += u;
            packed = u;
            *pieces += u == ((size_t)1 << 16);
        } else {
            head = c >= 0xC0 ? 6 : 5;
            packed = ((size_t)m->p[at + 3] << 8 | m->p[at + 4]) + 1;
        }
        at += head + packed;
    }
    assert_int_equal(at + 1, m->n);
    return stored;
}

/* Incompressible stretches with the finder's thread: the searcher tests
 * pieces where it stands (fz7_lzma2_store_test) and the coder stores
 * those it reaches at a decision boundary. The stream must not depend on
 * how the input arrives (a timing-dependent test would show here), must
 * decode, and must store almost all of 1 MiB of random bytes, and a copy
 * of them later must be coded as matches (their anchors are recorded). */
static void test_store_pieces(void **state)
{
    (void)state;
    const size_t text = 300000, rand_len = (size_t)1 << 20, n = 2 * text + 2 * rand_len;
    uint8_t *in = malloc(n);
    assert_non_null(in);
    memcpy(in, g_in, text);
    g_x = 777;
    for (size_t i = 0; i < rand_len; i++)
        in[text + i] = (uint8_t)(rnd() >> 13);
    memcpy(in + text + rand_len, g_in + text, text);
    memcpy(in + 2 * text + rand_len, in + text, rand_len);   /* the random bytes again */
    fz7_lzma_enc_opts o = opts_of(&BT4_MX5, 1);
    o.dict_size = 4 << 20;
    tu_membuf a, b, c;
    encode(&o, 1, in, n, 0, &a);
    encode(&o, 1, in, n, 1 << 20, &b);
    encode(&o, 1, in, n, 7777, &c);
    assert_same("threaded store, random pieces vs 1 MiB", &a, &b);
    assert_same("threaded store, random pieces vs 7777", &a, &c);
    check_decodes(&a, o.dict_size, in, n);
    size_t pieces;
    size_t stored = stored_bytes(&a, &pieces);
    /* All but the pieces the random stretch starts and ends in (chunks
     * across its edges may be stored too: LZMA does not shrink them);
     * none of its copy, which costs a few bytes. */
    assert_true(stored >= rand_len - 2 * ((size_t)1 << 16));
    assert_true(stored <= rand_len + 2 * ((size_t)1 << 16));
    /* Stored as pieces, not coded and then stored (close_chunk), whose
     * chunks end where 64 KiB of LZMA output does. */
    assert_true(pieces >= rand_len / ((size_t)1 << 16) - 2);
    /* Within 0.1 % of the one-thread stream, which tests at its own
     * decision boundaries. */
    tu_membuf one, head;
    fz7_lzma_enc_opts o1 = o;
    o1.mf_thread = 0;
    encode(&o1, 1, in, n, 0, &one);
    assert_true(a.n <= one.n + one.n / 1000);
    /* The copy: a few bytes more than the input without it. */
    encode(&o, 1, in, n - rand_len, 0, &head);
    assert_true(a.n - head.n < rand_len / 100);
    free(one.p);
    free(head.p);
    /* Blocks with a finder thread each, their prefixes skipped (no tests
     * there: what follows a prefix when it is skipped depends on timing):
     * the same bytes for every write size too. */
    tu_membuf m1, m2;
    fz7_lzma_enc *e1 = NULL, *e2 = NULL;
    memset(&m1, 0, sizeof m1);
    memset(&m2, 0, sizeof m2);
    m1.base.write = m2.base.write = tu_membuf_write;
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, (uint64_t)1 << 20, &m1.base, &e1), FZ7_OK);
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, (uint64_t)1 << 20, &m2.base, &e2), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_write(e1, in, n), FZ7_OK);
    for (size_t at = 0; at < n; at += 4099)
        assert_int_equal(fz7_lzma_enc_write(e2, in + at, n - at < 4099 ? n - at : 4099), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_finish(e1), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_finish(e2), FZ7_OK);
    fz7_lzma_enc_free(e1);
    fz7_lzma_enc_free(e2);
    assert_same("threaded store in 1 MiB blocks, one write vs 4099", &m1, &m2);
    size_t block_pieces;
    assert_true(stored_bytes(&m1, &block_pieces) >= rand_len - 4 * ((size_t)1 << 16));
    free(m1.p);
    free(m2.p);
    print_message("threaded store: %zu -> %zu bytes, %zu stored (%zu pieces), the same for every write size; "
                  "the copy %zu bytes\n", n, a.n, stored, pieces, a.n - head.n);
    free(a.p);
    free(b.p);
    free(c.p);
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bt4_levels),
        cmocka_unit_test(test_rdx_builder_thread),
        cmocka_unit_test(test_renumbering),
        cmocka_unit_test(test_other_finders),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_pieces_and_tiny),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_tail_blocks),
        cmocka_unit_test(test_free_early),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_store_pieces),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
