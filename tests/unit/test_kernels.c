/* test_kernels.c - every SIMD kernel the CPU can run (CRC-32/CRC-64
 * folding, SHA-NI, match_len, hash_mask) against known answers and against its
 * portable twin on random inputs of many lengths, alignments and split
 * points; buffers that end at an unmapped page catch any over-read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "check/check_kernels.h"
#include "cpu/cpu.h"
#include "lz/hash_mask.h"
#include "lz/match_len.h"
#include "test_util.h"

typedef uint32_t (*crc32_fn)(uint32_t, const uint8_t *, size_t);
typedef uint64_t (*crc64_fn)(uint64_t, const uint8_t *, size_t);
typedef void (*sha_fn)(uint32_t *, const uint8_t *, size_t);
typedef uint32_t (*mlen_fn)(const uint8_t *, const uint8_t *, uint32_t);
typedef uint64_t (*hmask_fn)(const uint8_t *, uint32_t, uint32_t, uint32_t);

typedef struct path {
    const char *name;
    void (*fn)(void);  /* cast to the kernel's type at the call */
    bool have;
} path;

enum { CRC32_PATHS, CRC64_PATHS, SHA_PATHS, MLEN_PATHS, HMASK_PATHS, KINDS };
static path g_paths[KINDS][4];
static int g_npaths[KINDS];

#define FN(f) ((void (*)(void))(f))

/* Copies a family's table: every kernel built in, have = the CPU can run
 * it. */
#define ADD_FAMILY(kind, list, n)                                              \
    for (size_t i_ = 0; i_ < (n) && g_npaths[kind] < 4; i_++)                  \
        g_paths[kind][g_npaths[kind]++] = (path){(list)[i_].info.name, FN((list)[i_].fn), \
                                                 fz7_cpu_can_run((list)[i_].info.need)}

/* Every kernel of the five families; prints the ones this CPU cannot run. */
static void find_paths(void)
{
    if (g_npaths[0])
        return;
    size_t n;
    const fz7_crc32_kernel *c32 = fz7_crc32_kernels(&n);
    ADD_FAMILY(CRC32_PATHS, c32, n);
    const fz7_crc64_kernel *c64 = fz7_crc64_kernels(&n);
    ADD_FAMILY(CRC64_PATHS, c64, n);
    const fz7_sha256_kernel *sha = fz7_sha256_kernels(&n);
    ADD_FAMILY(SHA_PATHS, sha, n);
    const fz7_match_len_kernel *ml = fz7_match_len_kernels(&n);
    ADD_FAMILY(MLEN_PATHS, ml, n);
    const fz7_hash_mask_kernel *hm = fz7_hash_mask_kernels(&n);
    ADD_FAMILY(HMASK_PATHS, hm, n);
    static const char *kinds[KINDS] = {"crc32", "crc64", "sha256_blocks", "match_len", "hash_mask"};
    for (int k = 0; k < KINDS; k++)
        for (int i = 0; i < g_npaths[k]; i++)
            printf("%s %s path %s%s\n", g_paths[k][i].have ? "RUN " : "SKIP", kinds[k],
                   g_paths[k][i].name, g_paths[k][i].have ? "" : ": not supported by this CPU");
}

/* splitmix64: a fixed seed per test, printed with every failure. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill_random(uint8_t *p, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng_next(s) >> 56);
}

/* A region of n readable bytes whose end touches a PROT_NONE page. */
typedef struct guarded {
    uint8_t *map;
    size_t map_len;
    uint8_t *end;
} guarded;

static guarded guarded_alloc(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = (n + page - 1) / page * page;
    guarded g;
    g.map_len = data + page;
    g.map = mmap(NULL, g.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g.map != MAP_FAILED);
    assert_int_equal(mprotect(g.map + data, page, PROT_NONE), 0);
    g.end = g.map + data;
    return g;
}

static void guarded_free(guarded *g)
{
    munmap(g->map, g->map_len);
}

/* ---- known answers ---- */

/* Deterministic 100003-byte pattern; its CRCs and digest were computed by
 * independent implementations (Python's zlib.crc32, a bit-at-a-time CRC-64,
 * hashlib.sha256). */
static uint8_t *pattern_100003(void)
{
    uint8_t *d = malloc(100003);
    assert_non_null(d);
    for (uint64_t i = 0; i < 100003; i++)
        d[i] = (uint8_t)((i * i * 7 + i * 13 + 5) >> 3);
    return d;
}

static void test_crc_known_answers(void **state)
{
    (void)state;
    find_paths();
    uint8_t *d = pattern_100003();
    for (int i = 0; i < g_npaths[CRC32_PATHS]; i++) {
        const path *pt = &g_paths[CRC32_PATHS][i];
        if (!pt->have)
            continue;
        crc32_fn fn = (crc32_fn)pt->fn;
        assert_int_equal(fn(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
        assert_int_equal(fn(0, d, 100003), 0x3246ea5cu);
        assert_int_equal(fn(fn(0, d, 50000), d + 50000, 50003), 0x3246ea5cu);
        assert_int_equal(fn(0, NULL, 0), 0);
    }
    for (int i = 0; i < g_npaths[CRC64_PATHS]; i++) {
        const path *pt = &g_paths[CRC64_PATHS][i];
        if (!pt->have)
            continue;
        crc64_fn fn = (crc64_fn)pt->fn;
        assert_true(fn(0, (const uint8_t *)"123456789", 9) == 0x995DC9BBDF1939FAull);
        assert_true(fn(0, d, 100003) == 0xba0c50406e1370fbull);
        assert_true(fn(fn(0, d, 777), d + 777, 100003 - 777) == 0xba0c50406e1370fbull);
    }
    free(d);
}

/* FIPS 180-4 examples (and the NIST long-message one) through the
 * incremental API at every level, which picks each SHA path in turn. */
static void test_sha256_fips_vectors(void **state)
{
    (void)state;
    find_paths();
    char h[65];
    uint8_t *million = malloc(1000000);
    assert_non_null(million);
    memset(million, 'a', 1000000);
    uint8_t *d = pattern_100003();
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        tu_sha256_hex("abc", 3, h);
        assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        tu_sha256_hex("", 0, h);
        assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        tu_sha256_hex(m2, strlen(m2), h);
        assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        const char *m3 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                         "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
        tu_sha256_hex(m3, strlen(m3), h);
        assert_string_equal(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
        tu_sha256_hex(million, 1000000, h);
        assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        tu_sha256_hex(d, 100003, h);
        assert_string_equal(h, "76f71edcad7721baf424e1b72194bb8054af2ec51aeb7f1046a0f77dc6ebe55f");
    }
    fz7_cpu_set_level(fz7_cpu_max_level());
    free(million);
    free(d);
}

/* Each level picks the kernels the families' tables promise, by name. */
static void test_dispatch_paths(void **state)
{
    (void)state;
    find_paths();
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        const char *crc = "portable", *sha = "portable", *ml = "portable";
        if (lvl >= FZ7_LEVEL_AVX2) {
            if (g_npaths[CRC32_PATHS] > 1 && g_paths[CRC32_PATHS][1].have)
                crc = "pclmulqdq";
            if (lvl >= FZ7_LEVEL_AVX512 && g_npaths[CRC32_PATHS] > 2 && g_paths[CRC32_PATHS][2].have)
                crc = "vpclmulqdq-512";
            if (g_npaths[SHA_PATHS] > 1 && g_paths[SHA_PATHS][1].have)
                sha = "sha-ni";
            ml = lvl >= FZ7_LEVEL_AVX512 ? "avx512" : "avx2";
        }
        assert_string_equal(fz7_crc32_pick()->info.name, crc);
        assert_string_equal(fz7_crc64_pick()->info.name, crc);
        assert_string_equal(fz7_sha256_pick()->info.name, sha);
        assert_string_equal(fz7_match_len_pick()->info.name, ml);
        printf("level %s: crc32 %s, crc64 %s, sha256 %s, match_len %s\n",
               fz7_cpu_level_name((fz7_cpu_level)lvl), fz7_crc32_pick()->info.name,
               fz7_crc64_pick()->info.name, fz7_sha256_pick()->info.name,
               fz7_match_len_pick()->info.name);
    }
    tu_print_skipped_levels("test_kernels");
    fz7_cpu_set_level(fz7_cpu_max_level());
}

/* ---- differential: CRC ---- */

#define BIG (5u << 20)

/* One CRC-32 and one CRC-64 comparison of path i against portable. */
static void crc_compare(int i, const uint8_t *p, size_t n, uint64_t init, const char *what, uint64_t seed)
{
    const path *p32 = &g_paths[CRC32_PATHS][i], *p64 = &g_paths[CRC64_PATHS][i];
    if (p32->have) {
        uint32_t want = fz7_crc32_portable((uint32_t)init, p, n);
        uint32_t got = ((crc32_fn)p32->fn)((uint32_t)init, p, n);
        if (got != want)
            fail_msg("crc32 %s %s: seed %llu len %zu align %u init %08x: got %08x want %08x",
                     p32->name, what, (unsigned long long)seed, n, (unsigned)((uintptr_t)p & 63),
                     (uint32_t)init, got, want);
    }
    if (p64->have) {
        uint64_t want = fz7_crc64_portable(init, p, n);
        uint64_t got = ((crc64_fn)p64->fn)(init, p, n);
        if (got != want)
            fail_msg("crc64 %s %s: seed %llu len %zu align %u: got %016llx want %016llx", p64->name,
                     what, (unsigned long long)seed, n, (unsigned)((uintptr_t)p & 63),
                     (unsigned long long)got, (unsigned long long)want);
    }
}

static void test_crc_differential(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 20240601, s = seed;
    uint8_t *buf = malloc(BIG + 64);
    assert_non_null(buf);
    fill_random(buf, BIG + 64, &s);
    for (int i = 1; i < g_npaths[CRC32_PATHS]; i++) {
        for (size_t n = 0; n <= 5000; n++) {
            size_t align = rng_next(&s) & 63;
            uint64_t init = n & 1 ? rng_next(&s) : 0;
            crc_compare(i, buf + align, n, init, "short", seed);
        }
        static const size_t big[] = {1u << 20, (1u << 20) + 1, (1u << 20) + 15, (1u << 20) + 63,
                                     (3u << 20) + 255, BIG - 13, BIG};
        for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
            crc_compare(i, buf + (k * 17 & 63), big[k], rng_next(&s), "long", seed);
    }
    free(buf);
}

/* Chained calls over random split points equal one call over the whole. */
static void test_crc_incremental(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 77, s = seed;
    size_t n = 300000;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    fill_random(buf, n, &s);
    uint32_t want32 = fz7_crc32_portable(0, buf, n);
    uint64_t want64 = fz7_crc64_portable(0, buf, n);
    for (int i = 1; i < g_npaths[CRC32_PATHS]; i++) {
        for (int round = 0; round < 200; round++) {
            uint32_t c32 = 0;
            uint64_t c64 = 0;
            size_t at = 0;
            while (at < n) {
                /* Mostly short pieces, sometimes long ones. */
                size_t piece = rng_next(&s) % (round & 1 ? 70000 : 3000);
                if (piece > n - at)
                    piece = n - at;
                if (g_paths[CRC32_PATHS][i].have)
                    c32 = ((crc32_fn)g_paths[CRC32_PATHS][i].fn)(c32, buf + at, piece);
                if (g_paths[CRC64_PATHS][i].have)
                    c64 = ((crc64_fn)g_paths[CRC64_PATHS][i].fn)(c64, buf + at, piece);
                at += piece;
            }
            if (g_paths[CRC32_PATHS][i].have && c32 != want32)
                fail_msg("crc32 %s split: seed %llu round %d", g_paths[CRC32_PATHS][i].name,
                         (unsigned long long)seed, round);
            if (g_paths[CRC64_PATHS][i].have && c64 != want64)
                fail_msg("crc64 %s split: seed %llu round %d", g_paths[CRC64_PATHS][i].name,
                         (unsigned long long)seed, round);
        }
    }
    free(buf);
}

/* Data ending at an unmapped page: a read past the end faults. */
static void test_crc_no_overread(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 5, s = seed;
    guarded g = guarded_alloc(70000);
    fill_random(g.end - 70000, 70000, &s);
    for (int i = 1; i < g_npaths[CRC32_PATHS]; i++) {
        for (size_t n = 0; n <= 1200; n++)
            crc_compare(i, g.end - n, n, n, "guard", seed);
        crc_compare(i, g.end - 70000, 70000, 1, "guard", seed);
        crc_compare(i, g.end - 69999, 69999, 1, "guard", seed);
    }
    guarded_free(&g);
}

/* ---- differential: SHA-256 ---- */

static void test_sha256_differential(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 256, s = seed;
    size_t maxblocks = (4u << 20) / 64;
    uint8_t *buf = malloc(maxblocks * 64 + 64);
    assert_non_null(buf);
    fill_random(buf, maxblocks * 64 + 64, &s);
    for (int i = 1; i < g_npaths[SHA_PATHS]; i++) {
        const path *pt = &g_paths[SHA_PATHS][i];
        if (!pt->have)
            continue;
        for (int round = 0; round < 400; round++) {
            size_t nblocks = round < 300 ? (size_t)round % 70 : rng_next(&s) % maxblocks;
            const uint8_t *p = buf + (rng_next(&s) & 63);
            uint32_t want[8], got[8];
            for (int k = 0; k < 8; k++)
                want[k] = got[k] = (uint32_t)rng_next(&s);
            fz7_sha256_blocks_portable(want, p, nblocks);
            ((sha_fn)pt->fn)(got, p, nblocks);
            if (memcmp(want, got, sizeof want))
                fail_msg("sha256 %s: seed %llu round %d nblocks %zu", pt->name,
                         (unsigned long long)seed, round, nblocks);
        }
    }
    free(buf);
}

/* Incremental SHA-256 over random split points, at every level. */
static void test_sha256_incremental(void **state)
{
    (void)state;
    uint64_t seed = 9, s = seed;
    size_t n = 200000;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    fill_random(buf, n, &s);
    fz7_cpu_set_level(FZ7_LEVEL_PORTABLE);
    char want[65], got[65];
    tu_sha256_hex(buf, n, want);
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        for (int round = 0; round < 50; round++) {
            fz7_sha256 h;
            uint8_t d[32];
            fz7_sha256_init(&h);
            for (size_t at = 0, piece; at < n; at += piece) {
                piece = rng_next(&s) % (round & 1 ? 20000 : 200);
                if (piece > n - at)
                    piece = n - at;
                fz7_sha256_update(&h, buf + at, piece);
            }
            fz7_sha256_final(&h, d);
            tu_hex(d, 32, got);
            if (strcmp(want, got))
                fail_msg("sha256 level %d split: seed %llu round %d", lvl, (unsigned long long)seed, round);
        }
    }
    fz7_cpu_set_level(fz7_cpu_max_level());
    free(buf);
}

/* ---- differential: match_len ---- */

/* The definition itself, byte by byte: the reference for every path,
 * the word-at-a-time portable one included. */
static uint32_t match_len_bytes(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
    uint32_t len = 0;
    while (len < limit && a[len] == b[len])
        len++;
    return len;
}

static void mlen_compare(const uint8_t *a, const uint8_t *b, uint32_t limit, const char *what, uint64_t seed)
{
    uint32_t want = match_len_bytes(a, b, limit);
    for (int i = 0; i < g_npaths[MLEN_PATHS]; i++) {
        const path *pt = &g_paths[MLEN_PATHS][i];
        if (!pt->have)
            continue;
        uint32_t got = ((mlen_fn)pt->fn)(a, b, limit);
        if (got != want)
            fail_msg("match_len %s %s: seed %llu limit %u: got %u want %u", pt->name, what,
                     (unsigned long long)seed, limit, got, want);
    }
}

static void test_match_len_differential(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 31337, s = seed;
    size_t n = 20000;
    uint8_t *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    fill_random(a, n, &s);
    for (int round = 0; round < 40000; round++) {
        uint32_t limit = round < 20000 ? (uint32_t)round % 300 : (uint32_t)(rng_next(&s) % 5000);
        size_t oa = rng_next(&s) % 1000, ob = rng_next(&s) % 1000;
        memcpy(b + ob, a + oa, limit);
        /* Mismatch at a random place, often inside limit, sometimes not. */
        uint32_t at = (uint32_t)(rng_next(&s) % (limit + 70));
        if (at < limit)
            b[ob + at] ^= (uint8_t)(1 + rng_next(&s) % 255);
        mlen_compare(a + oa, b + ob, limit, "random", seed);
    }
    /* Overlapping, as in a window: b = a - distance over a periodic run. */
    for (uint32_t dist = 1; dist <= 100; dist++) {
        for (size_t i = 0; i < n; i++)
            a[i] = (uint8_t)(i % dist * 37);
        a[n - 1 - dist] ^= 1;
        mlen_compare(a + 1000, a + 1000 - dist, (uint32_t)(n - 1000 - 1), "overlap", seed);
        mlen_compare(a + 1000, a + 1000 - dist, 4000, "overlap", seed);
    }
    free(a);
    free(b);
}

/* a+limit and b+limit both touch unmapped pages: the contract says no byte
 * past limit is read, whatever the limit. */
static void test_match_len_no_overread(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 4, s = seed;
    guarded ga = guarded_alloc(8192), gb = guarded_alloc(8192);
    fill_random(ga.end - 8192, 8192, &s);
    memcpy(gb.end - 8192, ga.end - 8192, 8192);
    for (uint32_t limit = 0; limit <= 600; limit++)
        mlen_compare(ga.end - limit, gb.end - limit, limit, "guard equal", seed);
    for (uint32_t limit = 1; limit <= 600; limit++) {
        uint32_t at = (uint32_t)(rng_next(&s) % limit);
        gb.end[-(ptrdiff_t)limit + at] ^= 0x40;
        mlen_compare(ga.end - limit, gb.end - limit, limit, "guard diff", seed);
        gb.end[-(ptrdiff_t)limit + at] ^= 0x40;
    }
    mlen_compare(ga.end - 8192, gb.end - 8192, 8192, "guard equal", seed);
    guarded_free(&ga);
    guarded_free(&gb);
}

/* ---- differential: hash_mask ---- */

/* The definition, one position at a time: the reference for every path. */
static uint64_t hash_mask_ref(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below)
{
    uint64_t mask = 0;
    for (uint32_t k = 0; k < span; k++) {
        uint32_t w = (uint32_t)p[k] | (uint32_t)p[k + 1] << 8 | (uint32_t)p[k + 2] << 16 | (uint32_t)p[k + 3] << 24;
        if (w * mult < below)
            mask |= 1ull << k;
    }
    return mask;
}

static void hmask_compare(const uint8_t *p, uint32_t span, uint32_t mult, uint32_t below, const char *what,
                          uint64_t seed)
{
    uint64_t want = hash_mask_ref(p, span, mult, below);
    for (int i = 0; i < g_npaths[HMASK_PATHS]; i++) {
        const path *pt = &g_paths[HMASK_PATHS][i];
        if (!pt->have)
            continue;
        uint64_t got = ((hmask_fn)pt->fn)(p, span, mult, below);
        if (got != want)
            fail_msg("hash_mask %s %s: seed %llu span %u mult %08x below %08x: got %016llx want %016llx",
                     pt->name, what, (unsigned long long)seed, span, mult, below, (unsigned long long)got,
                     (unsigned long long)want);
    }
}

/* Random bytes, runs of one value and every span, with limits from
 * nothing to everything; the store test's own constants among them. The
 * buffer ends at an unmapped page right after p[span + 3): the contract
 * says no byte beyond is read. */
static void test_hash_mask_differential(void **state)
{
    (void)state;
    find_paths();
    uint64_t seed = 2545, s = seed;
    guarded g = guarded_alloc(4096);
    static const uint32_t belows[] = {0, 1, 1u << 24, 1u << 28, 0x80000000u, 0xFFFFFFFFu};
    for (int round = 0; round < 3000; round++) {
        uint32_t span = 1 + (uint32_t)(rng_next(&s) % 64);
        uint8_t *p = g.end - (span + 3);
        if (round % 3 == 0)
            memset(p, (int)(rng_next(&s) & 0xFF), span + 3);
        else
            fill_random(p, span + 3, &s);
        uint32_t mult = round % 2 ? 0x2545F491u : (uint32_t)rng_next(&s) | 1;
        uint32_t below = round % 4 == 3 ? (uint32_t)rng_next(&s) : belows[round % 6];
        hmask_compare(p, span, mult, below, "guarded", seed);
        if (span == 64)
            continue;
        hmask_compare(g.end - 67, 64, mult, below, "full", seed);
    }
    /* The set bits over 64 KiB of seeded random bytes at the store test's
     * constants: about one in 16, and exactly this count on every path. */
    uint8_t *buf = malloc(65536 + 3);
    assert_non_null(buf);
    s = seed;
    fill_random(buf, 65536 + 3, &s);
    uint32_t ones = 0;
    for (uint32_t base = 0; base < 65536; base += 64) {
        hmask_compare(buf + base, 64, 0x2545F491u, 1u << 28, "big", seed);
        ones += (uint32_t)__builtin_popcountll(hash_mask_ref(buf + base, 64, 0x2545F491u, 1u << 28));
    }
    assert_int_equal(ones, 4038);
    free(buf);
    guarded_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_known_answers),
        cmocka_unit_test(test_sha256_fips_vectors),
        cmocka_unit_test(test_dispatch_paths),
        cmocka_unit_test(test_crc_differential),
        cmocka_unit_test(test_crc_incremental),
        cmocka_unit_test(test_crc_no_overread),
        cmocka_unit_test(test_sha256_differential),
        cmocka_unit_test(test_sha256_incremental),
        cmocka_unit_test(test_match_len_differential),
        cmocka_unit_test(test_match_len_no_overread),
        cmocka_unit_test(test_hash_mask_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
