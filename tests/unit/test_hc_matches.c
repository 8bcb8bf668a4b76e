/* test_hc_matches.c - the hash-chain match finders (hc4, hc5) on their own:
 * their 2- and 3-byte heads are hashed into small tables, so a head may
 * name a position with other bytes. Every match they return must be real
 * (the bytes equal for len at dist), as long as it can be (maximal up to
 * min(nice_len, avail)), in reach, with lengths strictly increasing; the
 * same sequence under every dispatch level; through window moves and skip
 * runs; hb5, the bucket finder, against them. Also the memory the
 * one-huge-page layout of a 256 KiB dictionary (7zz's -mx1) reports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu/cpu.h"
#include "lz/lz_mf.h"
#include "lz/lz_mf_impl.h" /* fz7_lz_hb_bits */
#include "test_util.h"

#define INPUT_BYTES (3u << 20)

static uint8_t *g_in;
/* run_depth: 1 reads the input in place (fz7_lz_mf_borrow) after a
 * reset, 2 also runs a window stream of it before that reset. */
static int g_borrow;

static uint64_t g_x;
static uint32_t rnd(void)
{
    g_x ^= g_x << 13;
    g_x ^= g_x >> 7;
    g_x ^= g_x << 17;
    return (uint32_t)(g_x >> 32);
}

/* Words (many 2- and 3-byte repeats that collide in 512 slots), copies
 * at near and far distances (some past a 64 KiB dictionary, some longer
 * than nice_len), byte runs and random stretches, from a fixed seed. */
static void generate(void)
{
    static const char *words[] = {"hash ", "chain ", "head ", "link ", "slot ", "of ", "a ", "\n",
                                  "window ", "depth ", "nice ", "match "};
    g_x = 0x243F6A8885A308D3ull;
    size_t n = 0;
    while (n < INPUT_BYTES) {
        uint32_t r = rnd(), kind = r % 16;
        if (kind < 8) {
            const char *w = words[(r >> 8) % 12];
            for (size_t k = 0; w[k] && n < INPUT_BYTES; k++)
                g_in[n++] = (uint8_t)w[k];
        } else if (kind < 13 && n > 300000) {
            size_t d = 1 + rnd() % (kind < 11 ? 5000u : 300000u);
            size_t len = 2 + rnd() % (kind == 12 ? 300u : 20u);
            for (size_t k = 0; k < len && n < INPUT_BYTES; k++, n++)
                g_in[n] = g_in[n - d];
        } else if (kind == 13) {
            size_t len = rnd() % 300;
            uint8_t b = (uint8_t)rnd();
            for (size_t k = 0; k < len && n < INPUT_BYTES; k++)
                g_in[n++] = b;
        } else {
            size_t len = rnd() % 200;
            for (size_t k = 0; k < len && n < INPUT_BYTES; k++)
                g_in[n++] = (uint8_t)rnd();
        }
    }
}

/* Runs one finder over the input as a parser would (find, and after a
 * long enough match skip most of it), checking each match; returns a
 * hash of every (position, len, dist) and the number of matches.
 * longest: only each position's longest match, and only when it has at
 * least 5 bytes, counts and decides the skips. */
static uint64_t run_depth(int kind, uint32_t dict_size, uint32_t nice_len, uint32_t depth, int longest,
                          uint64_t *count)
{
    fz7_lz_mf mf;
    /* depth 0: the encoder's automatic depth; hb5's ways as the encoder
     * picks them (lzma_presets.h). */
    if (depth == 0)
        depth = (16 + nice_len / 2) >> (kind == FZ7_LZ_BT2 || kind == FZ7_LZ_BT3 || kind == FZ7_LZ_BT4 ? 0 : 1);
    assert_int_equal(fz7_lz_mf_init(&mf, kind, dict_size, 300, nice_len, depth, depth <= 8 ? 8 : 16, 0), 0);
    if (g_borrow) {
        for (size_t in = 0; g_borrow == 2 && in < INPUT_BYTES;) {
            size_t got = fz7_lz_mf_append(&mf, g_in + in, INPUT_BYTES - in);
            in += got;
            if (fz7_lz_mf_avail(&mf) > 0)
                fz7_lz_mf_skip(&mf, fz7_lz_mf_avail(&mf));
        }
        fz7_lz_mf_reset(&mf);
        fz7_lz_mf_borrow(&mf, g_in, INPUT_BYTES);
        assert_int_equal(fz7_lz_mf_append(&mf, g_in + 1, 10), 0);   /* not the next bytes */
    }
    fz7_lz_match m[FZ7_LZ_MATCHES_MAX];
    uint64_t digest = 0xCBF29CE484222325ull, found = 0;
    size_t in = 0;
    g_x = 0x13198A2E03707344ull;
    for (;;) {
        while (in < INPUT_BYTES && fz7_lz_mf_avail(&mf) < 4096) {
            size_t want = INPUT_BYTES - in < 65536 ? INPUT_BYTES - in : 65536;
            size_t got = fz7_lz_mf_append(&mf, g_in + in, want);
            if (got == 0)
                break;
            in += got;
        }
        uint32_t avail = fz7_lz_mf_avail(&mf);
        if (avail == 0)
            break;
        uint64_t at = in - avail;   /* input offset of the position searched */
        const uint8_t *cur = g_in + at;
        uint32_t cap = avail < nice_len ? avail : nice_len;
        uint32_t n = fz7_lz_mf_find(&mf, m);
        uint32_t prev = 1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t len = m[i].len, dist = m[i].dist;
            if (len <= prev || len > cap || dist == 0 || dist > dict_size || dist > at
                || memcmp(cur, cur - dist, len) != 0 || (len < cap && cur[len] == (cur - dist)[len]))
                fail_msg("kind %d dict %u: at %llu match %u: len %u dist %u (cap %u, previous len %u)", kind,
                         dict_size, (unsigned long long)at, i, len, dist, cap, prev);
            prev = len;
            if (!longest || (i + 1 == n && len >= 5))
                digest = (digest ^ ((at << 24) ^ ((uint64_t)len << 32) ^ dist)) * 0x100000001B3ull;
        }
        found += !longest ? n : prev >= 5;
        if (n > 0 && prev >= (longest ? 5u : 3u) && avail > prev && rnd() % 4 != 0)
            fz7_lz_mf_skip(&mf, prev - 1);
    }
    fz7_lz_mf_free(&mf);
    *count = found;
    return digest;
}

static uint64_t run(int kind, uint32_t dict_size, uint32_t nice_len, uint64_t *count)
{
    return run_depth(kind, dict_size, nice_len, 0, 0, count);
}

static void same_at_every_level(int kind, uint32_t dict_size, uint32_t nice_len)
{
    fz7_cpu_level max = fz7_cpu_max_level();
    fz7_cpu_set_level(FZ7_LEVEL_PORTABLE);
    uint64_t count, ref = run(kind, dict_size, nice_len, &count);
    /* Most positions of this input repeat earlier bytes. */
    if (count < INPUT_BYTES / 20)
        fail_msg("kind %d dict %u: only %llu matches", kind, dict_size, (unsigned long long)count);
    print_message("kind %d dict %u nice %u: %llu matches, digest %016llx\n", kind, dict_size, nice_len,
                  (unsigned long long)count, (unsigned long long)ref);
    for (int l = FZ7_LEVEL_PORTABLE + 1; l <= (int)max; l++) {
        fz7_cpu_set_level((fz7_cpu_level)l);
        uint64_t c, got = run(kind, dict_size, nice_len, &c);
        if (got != ref || c != count)
            fail_msg("kind %d dict %u: level %s differs from portable", kind, dict_size,
                     fz7_cpu_level_name((fz7_cpu_level)l));
    }
    tu_print_skipped_levels("test_hc_matches");
    fz7_cpu_set_level(max);
}

static void test_hc5_mx1(void **state)
{
    (void)state;
    same_at_every_level(FZ7_LZ_HC5, 1u << 18, 32);   /* 256 KiB: the one-page layout */
}

static void test_hc5_small_dict(void **state)
{
    (void)state;
    same_at_every_level(FZ7_LZ_HC5, 1u << 16, 273);
}

static void test_hc4(void **state)
{
    (void)state;
    same_at_every_level(FZ7_LZ_HC4, 1u << 16, 16);
    same_at_every_level(FZ7_LZ_HC4, 1u << 20, 64);
}

/* hb5 (buckets of the 16 newest positions per hc5 hash): every match
 * real and maximal at each dispatch level, and with the same hash bits
 * and a depth of at most 16 the longest match hc5's chain walk finds
 * wherever that has 5 bytes or more (hb5 passes over the candidates
 * whose tag says their 5 bytes differ, so a shorter one can be lost). */
static void test_hb5(void **state)
{
    (void)state;
    same_at_every_level(FZ7_LZ_HB5, 1u << 18, 32);
    same_at_every_level(FZ7_LZ_HB5, 1u << 16, 273);
    same_at_every_level(FZ7_LZ_HB5, 1u << 20, 32);   /* -mx2: fewer buckets than hc5 heads */
    static const struct { uint32_t dict_size, nice_len, depth; } cases[] = {
        {1u << 18, 32, 11}, {1u << 18, 32, 16}, {1u << 16, 273, 14}, {1u << 16, 16, 4}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (fz7_lz_hb_bits(cases[i].dict_size) != (cases[i].dict_size >= (1u << 18) ? 17u : 16u))
            continue;   /* other bucket bits than hc5's heads: other matches */
        uint64_t nc, nb;
        uint64_t hc = run_depth(FZ7_LZ_HC5, cases[i].dict_size, cases[i].nice_len, cases[i].depth, 1, &nc);
        uint64_t hb = run_depth(FZ7_LZ_HB5, cases[i].dict_size, cases[i].nice_len, cases[i].depth, 1, &nb);
        if (hc != hb || nc != nb)
            fail_msg("dict %u nice %u depth %u: hb5 %llu matches %016llx, hc5 %llu %016llx", cases[i].dict_size,
                     cases[i].nice_len, cases[i].depth, (unsigned long long)nb, (unsigned long long)hb,
                     (unsigned long long)nc, (unsigned long long)hc);
    }
}

/* A stream read in place from the caller's buffer (fz7_lz_mf_borrow, the
 * multi-threaded encoder's blocks) gives the matches the window gives,
 * fresh or after a stream through the window; a reset then returns to
 * the window. */
static void test_borrow(void **state)
{
    (void)state;
    static const struct { int kind; uint32_t dict_size, nice_len; } cases[] = {
        {FZ7_LZ_HC5, 1u << 18, 32}, {FZ7_LZ_HC4, 1u << 16, 16}, {FZ7_LZ_HB5, 1u << 20, 32},
        {FZ7_LZ_HB5, 1u << 16, 273}, {FZ7_LZ_BT4, 1u << 20, 64}, {FZ7_LZ_BT4, 1u << 16, 273}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t c0, c1, c2;
        g_borrow = 0;
        uint64_t window = run(cases[i].kind, cases[i].dict_size, cases[i].nice_len, &c0);
        g_borrow = 1;
        uint64_t fresh = run(cases[i].kind, cases[i].dict_size, cases[i].nice_len, &c1);
        g_borrow = 2;
        uint64_t after = run(cases[i].kind, cases[i].dict_size, cases[i].nice_len, &c2);
        g_borrow = 0;
        if (fresh != window || c1 != c0 || after != window || c2 != c0)
            fail_msg("kind %d dict %u: borrowed %llu/%llu matches (%016llx/%016llx), window %llu (%016llx)",
                     cases[i].kind, cases[i].dict_size, (unsigned long long)c1, (unsigned long long)c2,
                     (unsigned long long)fresh, (unsigned long long)after, (unsigned long long)c0,
                     (unsigned long long)window);
    }
}

/* With a 256 KiB dictionary (7zz's -mx1; fz7's is 1 MiB) the window (1-2 MiB) and the heads plus links
 * (1.5 MiB) each take one 2 MiB huge page; bt4 counts its tables as they
 * are (2- and 3-byte heads of 1024 slots each, the 4- and 5-byte heads
 * of 2^18 each, the 6-byte tree roots, two links a position). */
static void test_memusage(void **state)
{
    (void)state;
    assert_int_equal(fz7_lz_mf_memusage(FZ7_LZ_HC5, 1u << 18, 300), 4u << 20);
    uint64_t window = (1u << 18) + 300 + (1u << 20);
    uint64_t bt4 = window + 4 * (1024 + 1024 + 2 * (1u << 18) + (1u << 17) + 2 * ((1u << 18) + 1));
    assert_int_equal(fz7_lz_mf_memusage(FZ7_LZ_BT4, 1u << 18, 300), bt4);
    /* 64 KiB: the window (just over 1 MiB) takes a huge page; heads and
     * links (0.5 MiB) stay in small ones. */
    uint64_t hc = (2u << 20) + 4 * (512 + 512 + 65536 + (1u << 16) + 1);
    assert_int_equal(fz7_lz_mf_memusage(FZ7_LZ_HC5, 1u << 16, 300), hc);
    /* hb5 at 256 KiB: the window's huge page, 2^17 buckets of 64 bytes,
     * their 16 tag bytes and index byte, the 2- and 3-byte heads (16-way,
     * the upper bound); from 1 MiB on at most 2^18 buckets. */
    assert_int_equal(fz7_lz_mf_memusage(FZ7_LZ_HB5, 1u << 18, 300), (2u << 20) + (1u << 17) * 81 + 4096);
    uint64_t hb_mx4 = (16u << 20) + 300 + (4u << 20) + (1u << 18) * 81 + 4096;
    assert_int_equal(fz7_lz_mf_memusage(FZ7_LZ_HB5, 16u << 20, 300), hb_mx4);
}

int main(void)
{
    g_in = malloc(INPUT_BYTES);
    if (!g_in)
        return 1;
    generate();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hc5_mx1),
        cmocka_unit_test(test_hc5_small_dict),
        cmocka_unit_test(test_hc4),
        cmocka_unit_test(test_hb5),
        cmocka_unit_test(test_borrow),
        cmocka_unit_test(test_memusage),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(g_in);
    return rc;
}
