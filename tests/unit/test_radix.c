/* test_radix.c - the radix match table (lz/lz_radix.h) against the
 * definition, computed pair by pair: for every position, the nearest
 * earlier position in [lo, p) and in reach with the most common bytes
 * (up to max_len and the end of the data), and the nearest with at least
 * each near link's depth in bytes. Inputs: words with copies, runs of one byte
 * (the ones the sort leaves out), short periods, random bytes, and data
 * ending inside a run; blocks that start after a prefix of sources; and
 * one block sorted by several threads at once. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lz/lz_radix.h"
#include "test_util.h"

static uint64_t g_x;
static uint32_t rnd(void)
{
    return tu_rnd(&g_x);
}

/* Mixed data of n bytes from seed: kind 0 words and copies, 1 runs, 2
 * periods, 3 random over 4 values, 4 everything together. */
static void generate(uint8_t *d, uint32_t n, int kind, uint64_t seed)
{
    static const char *words[] = {"radix ", "sort ", "bucket ", "of ", "a ", "\n", "list ", "depth "};
    g_x = seed;
    uint32_t i = 0;
    while (i < n) {
        uint32_t r = rnd(), k = kind == 4 ? r % 4 : (uint32_t)kind;
        if (k == 0 && r % 3 != 0) {
            const char *w = words[(r >> 8) % 8];
            for (size_t j = 0; w[j] && i < n; j++)
                d[i++] = (uint8_t)w[j];
        } else if (k == 0) {
            uint32_t dist = 1 + rnd() % 3000, len = 2 + rnd() % 80;
            for (uint32_t j = 0; j < len && i < n; j++, i++)
                d[i] = i >= dist ? d[i - dist] : 'x';
        } else if (k == 1) {
            uint32_t len = 1 + rnd() % 200;
            uint8_t v = (uint8_t)(rnd() % 3);
            for (uint32_t j = 0; j < len && i < n; j++)
                d[i++] = v;
        } else if (k == 2) {
            uint32_t period = 2 + rnd() % 7, len = rnd() % 400;
            for (uint32_t j = 0; j < len && i < n; j++, i++)
                d[i] = i >= period ? d[i - period] : (uint8_t)rnd();
        } else {
            d[i++] = (uint8_t)(rnd() % 4);
        }
    }
}

static uint32_t lcp(const uint8_t *d, uint32_t a, uint32_t b, uint32_t lim)
{
    uint32_t l = 0;
    while (l < lim && d[a + l] == d[b + l])
        l++;
    return l;
}

/* Builds the table of [from, to) from [lo, to) and checks every entry. */
static void check(const uint8_t *d, uint32_t len, uint32_t lo, uint32_t from, uint32_t to, uint32_t dict,
                  uint32_t max_len)
{
    fz7_lz_radix_work w;
    assert_int_equal(fz7_lz_radix_work_init(&w, to - lo), 0);
    fz7_lz_radix_entry *out = malloc((size_t)(to - from) * sizeof(*out));
    assert_non_null(out);
    memset(out, 0xA5, (size_t)(to - from) * sizeof(*out));   /* the builder sets every entry */
    fz7_lz_radix_build(&w, d, len, lo, from, to, dict, max_len, out);
    for (uint32_t p = from; p < to; p++) {
        uint32_t lim = len - p < max_len ? len - p : max_len;
        uint32_t best = 0, bd = 0, near[FZ7_LZ_RADIX_NEARS] = {0};
        for (uint32_t q = p; q-- > lo && p - q <= dict;) {
            uint32_t l = lcp(d, p, q, lim);
            if (l > best) {
                best = l;
                bd = p - q;
            }
            for (int t = 0; t < FZ7_LZ_RADIX_NEARS; t++)
                if (!near[t] && l >= fz7_lz_radix_near_depth[t])
                    near[t] = p - q;
        }
        uint32_t want = best >= 2 ? (bd - 1) << 8 | best : 0;
        const fz7_lz_radix_entry *e = &out[p - from];
        int ok = e->longest == want;
        for (int t = 0; t < FZ7_LZ_RADIX_NEARS; t++)
            ok = ok && e->near[t] == near[t];
        if (!ok && best == lim && best >= fz7_lz_radix_near_depth[FZ7_LZ_RADIX_NEARS - 1]) {
            /* Inside a repeat the table may name a farther source of the
             * same (full) length, and take it for the near links too. */
            uint32_t dist = (e->longest >> 8) + 1;
            ok = (e->longest & 0xFFu) == best && dist >= bd && dist <= dict && p - dist >= lo
                 && lcp(d, p, p - dist, lim) == best;
            for (int t = 0; t < FZ7_LZ_RADIX_NEARS; t++)
                ok = ok && e->near[t] >= near[t] && e->near[t] <= p - lo
                     && lcp(d, p, p - e->near[t], lim) >= fz7_lz_radix_near_depth[t];
        }
        if (!ok)
            fail_msg("position %u (from %u, lo %u, dict %u, max_len %u): longest %u/%u near[0] %u/%u near[last] %u/%u",
                     p, from, lo, dict, max_len, e->longest, want, e->near[0], near[0],
                     e->near[FZ7_LZ_RADIX_NEARS - 1], near[FZ7_LZ_RADIX_NEARS - 1]);
    }
    free(out);
    fz7_lz_radix_work_free(&w);
}

static void test_against_definition(void **state)
{
    (void)state;
    const uint32_t n = 12000;
    uint8_t *d = malloc(n);
    assert_non_null(d);
    for (int kind = 0; kind <= 4; kind++) {
        generate(d, n, kind, 0x9E3779B97F4A7C15ull + (uint64_t)kind);
        check(d, n, 0, 0, n, 1u << 20, 32);        /* whole input, all in reach */
        check(d, n, 0, 0, n, 700, 12);             /* short reach, shallow cut */
        check(d, n, 2000, 5000, 8000, 2048, 255);  /* a block after a prefix */
        check(d, n, 0, 6000, 10000, 1u << 20, 64); /* the data goes on past to */
    }
    free(d);
}

/* One byte value throughout, and data that ends inside a long run: every
 * position's match is one back. */
static void test_runs(void **state)
{
    (void)state;
    const uint32_t n = 5000;
    uint8_t *d = malloc(n);
    assert_non_null(d);
    memset(d, 0, n);
    check(d, n, 0, 0, n, 1u << 20, 48);
    for (uint32_t i = 0; i < 3000; i++)
        d[i] = (uint8_t)(i * 7 % 251);
    check(d, n, 0, 0, n, 1u << 20, 48);
    check(d, n, 100, 2990, 4000, 1u << 20, 48);
    free(d);
}

static void *sort_thread(void *arg)
{
    fz7_lz_radix_sort(arg);
    return NULL;
}

/* One block sorted by three threads at once (begin, sort on each, end)
 * gives the table of fz7_lz_radix_build, entry for entry. */
static void test_shared_sort(void **state)
{
    (void)state;
    const uint32_t n = 1u << 20, lo = 100000, from = 400000, to = 1000000;
    uint8_t *d = malloc(n);
    assert_non_null(d);
    generate(d, n, 4, 0x5EED5EEDull);
    fz7_lz_radix_work w;
    assert_int_equal(fz7_lz_radix_work_init(&w, to - lo), 0);
    fz7_lz_radix_entry *one = calloc(to - from, sizeof(*one)), *many = calloc(to - from, sizeof(*many));
    assert_non_null(one);
    assert_non_null(many);
    fz7_lz_radix_build(&w, d, n, lo, from, to, 1u << 20, 48, one);
    fz7_lz_radix_job *j = fz7_lz_radix_begin(&w, d, n, lo, from, to, 1u << 20, 48, many);
    assert_non_null(j);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, sort_thread, j), 0);
    fz7_lz_radix_sort(j);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_true(fz7_lz_radix_sorted(j));
    fz7_lz_radix_end(j);
    assert_memory_equal(one, many, (size_t)(to - from) * sizeof(*one));
    free(one);
    free(many);
    fz7_lz_radix_work_free(&w);
    free(d);
}

/* With the argument "shared", only test_shared_sort (the ThreadSanitizer
 * build runs that one: the others take minutes there). */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "shared") == 0) {
        const struct CMUnitTest shared[] = {cmocka_unit_test(test_shared_sort)};
        return cmocka_run_group_tests(shared, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_definition),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_shared_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
