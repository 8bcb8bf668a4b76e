/* test_lzma_plan.c - the multi-thread plan (lzma_presets.h): for given
 * options, input size, threads and memory cap, the exact threads, block
 * size and match finder thread it picks, and the memory cap it derives
 * from -mmemuse and the process's address-space limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/resource.h>
#include <unistd.h>

#include "lzma/lzma_presets.h"
#include "lzma/lzma2_mt.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

static fz7_lzma_enc_opts level(unsigned l)
{
    fz7_lzma_enc_opts o;
    assert_int_equal(fz7_lzma_enc_preset(&o, l), FZ7_OK);
    return o;
}

static fz7_lzma_plan plan(const fz7_lzma_enc_opts *o, uint64_t bytes, uint32_t threads, uint64_t mem, bool xz)
{
    fz7_lzma_plan_in in = {bytes, threads, mem, true, xz, 0};
    return fz7_lzma_plan_threads(o, &in);
}

static void expect(fz7_lzma_plan p, uint32_t threads, uint64_t block, bool mf_thread, bool lowered)
{
    assert_int_equal(p.threads, threads);
    assert_int_equal(p.block_size, block);
    assert_int_equal(p.mf_thread, mf_thread);
    assert_int_equal(p.lowered, lowered);
}

/* -mx1 (1 MiB dictionary, hb5): one encoder per thread; a 1 GiB folder is
 * cut into blocks of 4 dictionaries whatever its size, an unknown size
 * gets the encoder's default block. */
static void test_fast_levels(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o = level(1);
    expect(plan(&o, GiB, 2, UINT64_MAX, false), 2, 4 * MiB, false, false);
    expect(plan(&o, 8 * GiB, 2, UINT64_MAX, false), 2, 4 * MiB, false, false);
    expect(plan(&o, 8 * GiB, 8, UINT64_MAX, false), 8, 4 * MiB, false, false);
    expect(plan(&o, 0, 2, UINT64_MAX, false), 2, 0, false, false);
    /* 7 MiB: 4 blocks would be under the 3 MiB floor; 3 blocks of it. */
    expect(plan(&o, 7 * MiB, 2, UINT64_MAX, false), 2, 3 * MiB, false, false);
    /* At most one floor: one stream, and hb5 gets no match finder thread. */
    expect(plan(&o, 3 * MiB, 2, UINT64_MAX, false), 1, 0, false, false);
    /* xz: one independent block per thread, at most 4 dictionaries or
     * 16 MiB (they share no prefix: each cut costs more). */
    expect(plan(&o, 10 * MiB, 2, UINT64_MAX, true), 2, 5 * MiB, false, false);
    expect(plan(&o, GiB, 2, UINT64_MAX, true), 2, 16 * MiB, false, false);
    expect(plan(&o, 7 * MiB, 2, UINT64_MAX, true), 2, (7 * MiB / 2 + 0xFFFF) & ~(uint64_t)0xFFFF, false, false);
    expect(plan(&o, GiB, 1, UINT64_MAX, false), 1, 0, false, false);
}

/* The memory cap drops threads one at a time: exactly the bytes two
 * encoders need keeps two, one byte less leaves one. */
static void test_fast_cap(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o = level(1);
    uint64_t two = fz7_lzma2_mt_memusage(&o, 2, 4 * MiB);
    uint64_t three = fz7_lzma2_mt_memusage(&o, 3, 4 * MiB);
    assert_true(two > 0 && three > two);
    /* Two encoders (window and tables) and 4 blocks in flight with their
     * output, counted at their largest: under 96 MiB for any input. */
    assert_true(two < 96 * MiB);
    expect(plan(&o, GiB, 2, two, false), 2, 4 * MiB, false, false);
    expect(plan(&o, GiB, 2, two - 1, false), 1, 0, false, true);
    expect(plan(&o, GiB, 4, three, false), 3, 4 * MiB, false, true);
}

/* -mx5 (32 MiB, bt4): two threads per encoder, the match finder on the
 * second, so -mmt2 is one stream (the bytes of -mmt1) and -mmt4 two
 * encoders on blocks of 4 dictionaries. */
static void test_normal_levels(void **state)
{
    (void)state;
    fz7_lzma_enc_opts o = level(5);
    o.dict_size = 32u << 20;   /* the plan's figures below are for 32 MiB */
    expect(plan(&o, GiB, 2, UINT64_MAX, false), 1, 0, true, false);
    expect(plan(&o, 0, 2, UINT64_MAX, false), 1, 0, true, false);
    expect(plan(&o, GiB, 3, UINT64_MAX, false), 1, 0, true, false);
    expect(plan(&o, GiB, 4, UINT64_MAX, false), 2, 128 * MiB, true, false);
    expect(plan(&o, 8 * GiB, 4, UINT64_MAX, false), 2, 128 * MiB, true, false);
    /* Up to the 96 MiB floor: one stream at any thread count. */
    expect(plan(&o, 96 * MiB, 4, UINT64_MAX, false), 1, 0, true, false);
    /* Too small to be worth a thread; -mmt1: none. */
    expect(plan(&o, 60000, 2, UINT64_MAX, false), 1, 0, false, false);
    expect(plan(&o, GiB, 1, UINT64_MAX, false), 1, 0, false, false);
    /* The cap: two encoders with their match finder threads, else one
     * stream with its thread, else one stream on one thread. */
    fz7_lzma_enc_opts mt = o;
    mt.mf_thread = 1;
    uint64_t two = fz7_lzma2_mt_memusage(&mt, 2, 128 * MiB);
    uint64_t one = fz7_lzma_enc_memusage(&mt);
    expect(plan(&o, GiB, 4, two, false), 2, 128 * MiB, true, false);
    expect(plan(&o, GiB, 4, two - 1, false), 1, 0, true, true);
    expect(plan(&o, GiB, 2, one - 1, false), 1, 0, false, true);
    /* LZMA1: one stream, a match finder thread when it pays. */
    fz7_lzma_plan_in in = {MiB, 2, UINT64_MAX, false, false, 0};
    expect(fz7_lzma_plan_threads(&o, &in), 1, 0, true, false);
}

/* Blocks asked for (c=): cut on one thread too, kept within the
 * encoder's bounds; an input of one block stays one stream. */
static void test_asked_blocks(void **state)
{
    (void)state;
    fz7_lzma_enc_opts fast = level(3), bt = level(5);
    fz7_lzma_plan_in in = {100 * MiB, 1, UINT64_MAX, true, false, 8 * MiB};
    expect(fz7_lzma_plan_threads(&fast, &in), 1, 8 * MiB, false, false);
    in.threads = 2;
    expect(fz7_lzma_plan_threads(&fast, &in), 2, 8 * MiB, false, false);
    /* bt: one encoder and its match finder thread on two threads */
    expect(fz7_lzma_plan_threads(&bt, &in), 1, 8 * MiB, true, false);
    in.threads = 4;
    expect(fz7_lzma_plan_threads(&bt, &in), 2, 8 * MiB, true, false);
    /* fewer encoders than blocks: 3 blocks of 40 MiB for 4 threads of hb5 */
    in.block_size = 40 * MiB;
    expect(fz7_lzma_plan_threads(&fast, &in), 3, 40 * MiB, false, false);
    /* below the encoder's smallest block, above its largest, one block */
    in.threads = 1;
    in.block_size = 1;
    expect(fz7_lzma_plan_threads(&fast, &in), 1, FZ7_LZMA2_MT_BLOCK_MIN, false, false);
    in.bytes = 0;
    in.block_size = (uint64_t)64 << 30;
    expect(fz7_lzma_plan_threads(&fast, &in), 1, FZ7_LZMA2_MT_BLOCK_MAX, false, false);
    in.bytes = 100 * MiB;
    in.block_size = 100 * MiB;
    expect(fz7_lzma_plan_threads(&fast, &in), 1, 0, false, false);
    /* memory: the match finder thread goes last */
    in.threads = 2;
    in.block_size = 8 * MiB;
    fz7_lzma_enc_opts o = fz7_lzma2_block_opts(&bt, 100 * MiB);
    in.mem_limit = fz7_lzma2_mt_memusage(&o, 1, 8 * MiB);
    expect(fz7_lzma_plan_threads(&bt, &in), 1, 8 * MiB, false, true);
}

/* -mmemuse wins; without it the cap is at most 3/4 of `ulimit -v`. */
static void test_mem_cap(void **state)
{
    (void)state;
    assert_int_equal(fz7_lzma_mem_cap(123456789, 0), 123456789);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        skip();
    uint64_t ram = (uint64_t)pages * (uint64_t)psize;
    struct rlimit as, data;
    assert_int_equal(getrlimit(RLIMIT_AS, &as), 0);
    assert_int_equal(getrlimit(RLIMIT_DATA, &data), 0);
    if (as.rlim_cur != RLIM_INFINITY || data.rlim_cur != RLIM_INFINITY)
        skip();   /* the expected values below assume no limit yet */
    assert_int_equal(fz7_lzma_mem_cap(0, 0), ram / 4 * 3);
    assert_int_equal(fz7_lzma_mem_cap(0, 10), ram / 100 * 10);
    /* Nothing is allocated while the soft limit is lowered (a sanitizer's
     * shadow memory is mapped already); it goes back at once. */
    struct rlimit low = as;
    low.rlim_cur = 1000000 * (rlim_t)1024;
    int set = setrlimit(RLIMIT_AS, &low);
    uint64_t capped = fz7_lzma_mem_cap(0, 0);
    uint64_t given = fz7_lzma_mem_cap(5 * GiB, 0);
    if (set == 0)
        assert_int_equal(setrlimit(RLIMIT_AS, &as), 0);
    assert_int_equal(set, 0);
    uint64_t want = (uint64_t)low.rlim_cur / 4 * 3;
    assert_int_equal(capped, want < ram / 4 * 3 ? want : ram / 4 * 3);
    assert_int_equal(given, 5 * GiB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_levels),
        cmocka_unit_test(test_fast_cap),
        cmocka_unit_test(test_normal_levels),
        cmocka_unit_test(test_asked_blocks),
        cmocka_unit_test(test_mem_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
