/* test_enc_identity.c - the encoder's bytes must not depend on the CPU path:
 * a few MB of the bench corpus (generated data without ../shared) encoded
 * at -mx1, -mx5 and -mx9 under every dispatch level the CPU has must give
 * byte-identical LZMA2 streams that decode back to the input. The
 * multi-threaded LZMA2 encoder must give the same bytes for every thread
 * count, and with one block the single-threaded encoder's bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu/cpu.h"
#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_presets.h"
#include "test_util.h"

static uint8_t *g_in;
static size_t g_n;

/* Appends up to len bytes of file name at offset off; 0 if unreadable. */
static int append_slice(const char *dir, const char *name, long off, size_t len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/bench/corpus/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int ok = fseek(f, off, SEEK_SET) == 0;
    size_t got = ok ? fread(g_in + g_n, 1, len, f) : 0;
    fclose(f);
    g_n += got;
    return got > 0;
}

/* Text-like and binary-like data from a fixed seed (no corpus). */
static void generate(size_t n)
{
    static const char *words[] = {"match", "literal", "range", "coder", "the", "of", "window",
                                  "distance", "\n", "state", "price", "dictionary"};
    uint64_t x = 0x243F6A8885A308D3ull;
    g_n = 0;
    while (g_n < n) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (g_n < n / 2) {
            const char *w = words[(x >> 20) % 12];
            for (size_t k = 0; w[k] && g_n < n; k++)
                g_in[g_n++] = (uint8_t)w[k];
            if (g_n < n)
                g_in[g_n++] = ' ';
        } else if ((x >> 40) % 4 == 0 && g_n > 4096) {
            /* a copy of earlier bytes: matches at many distances */
            size_t d = 1 + (size_t)((x >> 8) % 4000), len = 3 + (size_t)((x >> 30) % 60);
            for (size_t k = 0; k < len && g_n < n; k++, g_n++)
                g_in[g_n] = g_in[g_n - d];
        } else {
            g_in[g_n++] = (uint8_t)(x >> 33);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    const size_t cap = (size_t)4 << 20;
    g_in = malloc(cap);
    if (!g_in)
        return -1;
    const char *dir = getenv("FZ7_SHARED");
    int ok = dir != NULL;
    if (ok) {
        ok = append_slice(dir, "brown.txt", 0, 1 << 20) && append_slice(dir, "headers.tar", 2 << 20, 1 << 20)
          && append_slice(dir, "cmake.elf", 1 << 20, 1 << 20) && append_slice(dir, "zoneinfo.tar", 0, 512 << 10);
    }
    if (!ok) {
        print_message("SKIP corpus slices (FZ7_SHARED unset or corpus missing): using generated data\n");
        generate((size_t)3 << 20);
    }
    print_message("input: %zu bytes\n", g_n);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(g_in);
    fz7_cpu_set_level(fz7_cpu_max_level());
    return 0;
}

/* threads 0: the single-threaded encoder; else the multi-threaded one. */
static void encode_with(unsigned level, uint32_t threads, uint64_t block_size, size_t step, tu_membuf *out)
{
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, level), FZ7_OK);
    fz7_lzma_enc_reduce_dict(&o, g_n);
    out->base.write = tu_membuf_write;
    out->n = 0;
    fz7_lzma_enc *e = NULL;
    if (threads)
        assert_int_equal(fz7_lzma2_enc_new_mt(&o, threads, block_size, &out->base, &e), FZ7_OK);
    else
        assert_int_equal(fz7_lzma2_enc_new(&o, &out->base, &e), FZ7_OK);
    size_t at = 0;
    while (at < g_n) {
        size_t k = g_n - at < step ? g_n - at : step;
        assert_int_equal(fz7_lzma_enc_write(e, g_in + at, k), FZ7_OK);
        at += k;
    }
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    assert_int_equal(fz7_lzma_enc_bytes_in(e), g_n);
    assert_int_equal(fz7_lzma_enc_bytes_out(e), out->n);
    fz7_lzma_enc_free(e);
}

static void encode(unsigned level, tu_membuf *out)
{
    /* Uneven pieces, so window moves fall at odd places. */
    encode_with(level, 0, 0, 300001, out);
}

static void check_decodes(const tu_membuf *c, uint8_t dict_prop)
{
    fz7_istream *src = fz7_istream_from_memory(c->p, c->n);
    fz7_istream *dec = NULL;
    assert_int_equal(fz7_lzma2_istream_new(src, dict_prop, FZ7_DEFAULT_MEM_LIMIT, &dec), FZ7_OK);
    uint8_t *got = malloc(g_n + 1);
    assert_non_null(got);
    size_t have = 0;
    for (;;) {
        size_t r = 0;
        assert_int_equal(dec->read(dec, got + have, g_n + 1 - have, &r), FZ7_OK);
        have += r;
        if (r == 0 || have > g_n)
            break;
    }
    assert_int_equal(have, g_n);
    assert_memory_equal(got, g_in, g_n);
    free(got);
    fz7_istream_free(dec);
    fz7_istream_free(src);
}

static void identical_across_levels(unsigned level)
{
    fz7_cpu_level max = fz7_cpu_max_level();
    for (int l = (int)max + 1; l <= (int)FZ7_LEVEL_AVX512; l++)
        print_message("mx%u: level %s skipped (CPU/OS lacks it)\n", level, fz7_cpu_level_name((fz7_cpu_level)l));
    tu_membuf ref = {{tu_membuf_write}, NULL, 0, 0};
    fz7_cpu_set_level(FZ7_LEVEL_PORTABLE);
    encode(level, &ref);
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, level);
    fz7_lzma_enc_reduce_dict(&o, g_n);
    check_decodes(&ref, fz7_lzma2_dict_prop(o.dict_size));
    print_message("mx%u: %zu -> %zu bytes (portable)\n", level, g_n, ref.n);
    for (int l = FZ7_LEVEL_PORTABLE + 1; l <= (int)max; l++) {
        tu_membuf got = {{tu_membuf_write}, NULL, 0, 0};
        fz7_cpu_set_level((fz7_cpu_level)l);
        encode(level, &got);
        if (got.n != ref.n || memcmp(got.p, ref.p, ref.n) != 0) {
            size_t i = 0;
            while (i < got.n && i < ref.n && got.p[i] == ref.p[i])
                i++;
            print_message("mx%u: level %s differs from portable at byte %zu (sizes %zu vs %zu)\n", level,
                          fz7_cpu_level_name((fz7_cpu_level)l), i, got.n, ref.n);
            fail();
        }
        print_message("mx%u: level %s identical\n", level, fz7_cpu_level_name((fz7_cpu_level)l));
        free(got.p);
    }
    fz7_cpu_set_level(max);
    free(ref.p);
}

/* Multi-threaded LZMA2: 1 MiB blocks on 1, 2 and 3 threads (and write
 * pieces of different sizes) give the same stream, which decodes; one block
 * covering the input gives the single-threaded encoder's stream. */
static void mt_identical(unsigned level)
{
    const uint64_t bs = (uint64_t)1 << 20;
    tu_membuf ref = {{tu_membuf_write}, NULL, 0, 0};
    encode_with(level, 1, bs, 1 << 20, &ref);
    check_decodes(&ref, fz7_lzma2_dict_prop((uint32_t)bs));
    for (uint32_t t = 2; t <= 3; t++) {
        tu_membuf got = {{tu_membuf_write}, NULL, 0, 0};
        encode_with(level, t, bs, t == 2 ? 65537 : 2 << 20, &got);
        assert_int_equal(got.n, ref.n);
        assert_memory_equal(got.p, ref.p, ref.n);
        free(got.p);
    }
    tu_membuf one = {{tu_membuf_write}, NULL, 0, 0}, single = {{tu_membuf_write}, NULL, 0, 0};
    encode_with(level, 2, (uint64_t)4 << 20, 300001, &one);
    encode(level, &single);
    assert_int_equal(one.n, single.n);
    assert_memory_equal(one.p, single.p, single.n);
    print_message("mx%u mt: 1 MiB blocks %zu bytes on 1-3 threads; one block = single-threaded (%zu)\n", level,
                  ref.n, single.n);
    free(one.p);
    free(single.p);
    free(ref.p);
}

static void test_mt_mx1(void **state) { (void)state; mt_identical(1); }
static void test_mt_mx5(void **state) { (void)state; mt_identical(5); }

static void test_mt_args(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    o.dict_size = 32u << 20;
    tu_membuf m = {{tu_membuf_write}, NULL, 0, 0};
    fz7_lzma_enc *e = NULL;
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 0, 0, &m.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, FZ7_LZMA2_MT_THREADS_MAX + 1, 0, &m.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, FZ7_LZMA2_MT_BLOCK_MIN - 1, &m.base, &e), FZ7_E_ARG);
    assert_null(e);
    assert_int_equal(fz7_lzma2_mt_memusage(&o, 0, 0), 0);
    /* Automatic block: 3 x 32 MiB, dictionary kept; reported props say so. */
    assert_true(fz7_lzma2_mt_memusage(&o, 2, 0) > 2 * fz7_lzma_enc_memusage(&o));
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, 0, &m.base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma2_enc_dict_prop(e), fz7_lzma2_dict_prop(32u << 20));
    fz7_lzma_enc_free(e);
    /* 1 MiB blocks: the dictionary shrinks to 1 MiB. */
    assert_int_equal(fz7_lzma2_enc_new_mt(&o, 2, 1 << 20, &m.base, &e), FZ7_OK);
    assert_int_equal(fz7_lzma2_enc_dict_prop(e), fz7_lzma2_dict_prop(1u << 20));
    /* Empty input: just the end byte. */
    assert_int_equal(fz7_lzma_enc_finish(e), FZ7_OK);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.p[0], 0x00);
    assert_int_equal(fz7_lzma_enc_write(e, m.p, 1), FZ7_E_ARG);
    fz7_lzma_enc_free(e);
    free(m.p);
}

static void test_mx1(void **state) { (void)state; identical_across_levels(1); }
static void test_mx5(void **state) { (void)state; identical_across_levels(5); }
static void test_mx9(void **state) { (void)state; identical_across_levels(9); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mx1),
        cmocka_unit_test(test_mx5),
        cmocka_unit_test(test_mx9),
        cmocka_unit_test(test_mt_args),
        cmocka_unit_test(test_mt_mx1),
        cmocka_unit_test(test_mt_mx5),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
