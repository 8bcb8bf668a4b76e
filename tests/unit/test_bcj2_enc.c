/* test_bcj2_enc.c - the BCJ2 encoder against the decoder in bcj2.c (round
 * trips of every short branch pattern at the end of the data, random code
 * in random piece sizes on both sides), hand-made vectors for the
 * conversion rule, and cmake.elf's four streams as 7zz 26.02 -mx9 makes
 * them (SHA-256 of each, decoded from its archive). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "filter/bcj2.h"
#include "test_util.h"

/* Deterministic generator (xorshift64*), seeds printed on failure. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* The four streams of one encoding. */
typedef struct {
    tu_membuf m[FZ7_BCJ2_STREAMS];
} streams;

static void streams_init(streams *s)
{
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++)
        s->m[k] = (tu_membuf){{tu_membuf_write}, NULL, 0, 0};
}

static void streams_free(streams *s)
{
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++)
        free(s->m[k].p);
}

/* Encodes data as files of the given sizes (file_sizes NULL: no file
 * information), written in pieces of 1..max_piece bytes (0: all at once). */
static void encode(const uint8_t *data, size_t n, const uint64_t *file_sizes, size_t n_files,
                   size_t max_piece, uint64_t *seed, streams *out)
{
    streams_init(out);
    fz7_ostream *dst[FZ7_BCJ2_STREAMS];
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++)
        dst[k] = &out->m[k].base;
    fz7_bcj2_enc *e = NULL;
    assert_int_equal(fz7_bcj2_enc_new(dst, &e), FZ7_OK);
    size_t pos = 0, file = 0;
    uint64_t file_end = 0;
    while (pos < n || (file_sizes && file < n_files)) {
        if (file_sizes && file < n_files && pos == file_end) {
            assert_int_equal(fz7_bcj2_enc_file(e, file_sizes[file]), FZ7_OK);
            file_end += file_sizes[file++];
        }
        size_t take = n - pos;
        size_t lim = max_piece ? 1 + (size_t)(rng_next(seed) % max_piece) : take;
        if (take > lim)
            take = lim;
        if (file_sizes && file < n_files && take > file_end - pos)
            take = (size_t)(file_end - pos);
        assert_int_equal(fz7_bcj2_enc_write(e, data + pos, take), FZ7_OK);
        pos += take;
    }
    assert_int_equal(fz7_bcj2_enc_finish(e), FZ7_OK);
    for (unsigned k = 0; k < FZ7_BCJ2_STREAMS; k++)
        assert_int_equal(fz7_bcj2_enc_bytes_out(e, k), out->m[k].n);
    assert_int_equal(fz7_bcj2_enc_write(e, data, 0), FZ7_E_ARG);
    fz7_bcj2_enc_free(e);
}

/* A source that hands out 1..max bytes per read. */
typedef struct {
    fz7_istream base;
    const uint8_t *p;
    size_t n, pos, max;
    uint64_t seed;
} piece_src;

static fz7_status piece_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    piece_src *ps = (piece_src *)s;
    size_t take = ps->n - ps->pos;
    size_t lim = ps->max ? 1 + (size_t)(rng_next(&ps->seed) % ps->max) : take;
    if (take > lim)
        take = lim;
    if (take > cap)
        take = cap;
    memcpy(buf, ps->p + ps->pos, take);
    ps->pos += take;
    *got = take;
    return FZ7_OK;
}

static void piece_destroy(fz7_istream *s) { (void)s; }

/* Decodes s with our decoder (inputs and output in pieces of up to
 * max_piece bytes, 0 = whole) and checks the result is data. */
static void check_decodes(const streams *s, const uint8_t *data, size_t n, size_t max_piece,
                          uint64_t seed)
{
    piece_src src[FZ7_BCJ2_STREAMS];
    fz7_istream *in[FZ7_BCJ2_STREAMS];
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++) {
        src[k] = (piece_src){{piece_read, piece_destroy}, s->m[k].p, s->m[k].n, 0, max_piece,
                             seed + (uint64_t)k + 1};
        in[k] = &src[k].base;
    }
    fz7_istream *z = NULL;
    assert_int_equal(fz7_bcj2_istream_new(in, n, &z), FZ7_OK);
    uint8_t *out = malloc(n + 16);
    assert_non_null(out);
    size_t got = 0, g;
    for (;;) {
        size_t cap = n + 16 - got;
        size_t lim = max_piece ? 1 + (size_t)(rng_next(&seed) % max_piece) : cap;
        if (cap > lim)
            cap = lim;
        fz7_status st = z->read(z, out + got, cap, &g);
        if (st != FZ7_OK)
            fail_msg("decoder: %s (n=%zu seed=%llu)", fz7_status_str(st), n,
                     (unsigned long long)seed);
        if (g == 0)
            break;
        got += g;
    }
    z->destroy(z);
    assert_int_equal(got, n);
    if (n && memcmp(out, data, n) != 0)
        fail_msg("round trip differs (n=%zu seed=%llu)", n, (unsigned long long)seed);
    /* Every side stream was read to its end. */
    for (int k = 0; k < FZ7_BCJ2_STREAMS - 1; k++)
        if (src[k].pos != src[k].n)
            fail_msg("stream %d: %zu of %zu bytes read (n=%zu seed=%llu)", k, src[k].pos,
                     src[k].n, n, (unsigned long long)seed);
    free(out);
}

static void round_trip(const uint8_t *data, size_t n, const uint64_t *files, size_t n_files,
                       size_t max_piece, uint64_t seed)
{
    streams s;
    uint64_t es = seed;
    encode(data, n, files, n_files, max_piece, &es, &s);
    check_decodes(&s, data, n, max_piece, seed ^ 0x9E3779B97F4A7C15ULL);
    streams_free(&s);
}

/* Every string of up to 6 bytes over {00, 0F, 80, E8, E9, FF} after a
 * fixed prefix: opcodes right at the end, operands cut short, 0F 8x pairs
 * split, with and without the file size (so both rules convert). */
static void test_every_tail_pattern(void **state)
{
    (void)state;
    static const uint8_t alphabet[] = {0x00, 0x0F, 0x80, 0xE8, 0xE9, 0xFF};
    uint8_t buf[16] = {0x55, 0xE8, 0x00, 0x00, 0x00, 0x00, 0x90};
    const size_t prefix = 7;
    size_t cases = 0;
    for (size_t len = 0; len <= 6; len++) {
        size_t count = 1;
        for (size_t i = 0; i < len; i++)
            count *= sizeof alphabet;
        for (size_t c = 0; c < count; c++) {
            size_t v = c;
            for (size_t i = 0; i < len; i++) {
                buf[prefix + i] = alphabet[v % sizeof alphabet];
                v /= sizeof alphabet;
            }
            size_t n = prefix + len;
            uint64_t size = n;
            round_trip(buf, n, NULL, 0, 0, c);
            round_trip(buf, n, &size, 1, 3, c);
            round_trip(buf + prefix, len, NULL, 0, 1, c);
            cases += 3;
        }
    }
    assert_int_equal(cases, 3 * (1 + 6 + 36 + 216 + 1296 + 7776 + 46656));
}

/* x86-like random code: many E8/E9/0F 8x with near, far and in-file
 * targets; several files; pieces of random size on both sides. */
static void test_random_code_in_pieces(void **state)
{
    (void)state;
    const size_t n = 300000;
    uint8_t *d = malloc(n);
    assert_non_null(d);
    uint64_t seed = 12345;
    for (size_t i = 0; i < n;) {
        uint64_t r = rng_next(&seed);
        switch (r % 8) {
        case 0: d[i++] = 0xE8; break;
        case 1: d[i++] = 0xE9; break;
        case 2: d[i++] = 0x0F; if (i < n) d[i++] = (uint8_t)(0x80 | (r >> 8 & 15)); break;
        default: d[i++] = (uint8_t)(r >> 16); break;
        }
        if (r % 8 < 3 && i + 4 <= n) {
            /* Operand: in the file, near, or anything. */
            uint32_t rel = (r >> 20) % 3 == 0 ? (uint32_t)((r >> 24) % n - i - 4)
                           : (r >> 20) % 3 == 1 ? (uint32_t)((int32_t)((r >> 32) % 4096) - 2048)
                                                : (uint32_t)(r >> 32);
            fz7_put32le(d + i, rel);
            i += 4;
        }
    }
    static const size_t pieces[] = {0, 1, 2, 5, 7, 64, 4099, 70000};
    const uint64_t files[] = {1, 4, 100000, 5, 99990, 100000};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        round_trip(d, n, NULL, 0, pieces[k], 1000 + k);
        round_trip(d, n, files, 6, pieces[k], 2000 + k);
    }
    /* The piece sizes never change the streams. */
    streams a, b;
    uint64_t s1 = 1, s2 = 2;
    encode(d, n, files, 6, 0, &s1, &a);
    encode(d, n, files, 6, 3, &s2, &b);
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++) {
        assert_int_equal(a.m[k].n, b.m[k].n);
        assert_memory_equal(a.m[k].p, b.m[k].p, a.m[k].n);
    }
    assert_true(a.m[FZ7_BCJ2_CALL].n > 4 * 1000);   /* some of each were converted */
    assert_true(a.m[FZ7_BCJ2_JUMP].n > 4 * 1000);
    streams_free(&a);
    streams_free(&b);
    free(d);
}

/* The conversion rule on a hand-made buffer: with the file size, a call
 * whose target lies inside the file is converted and one pointing past
 * the end is not; without it, the displacement limit (+-240 MiB) decides.
 * A trailing E8 with 3 bytes after it keeps them. */
static void test_conversion_rule(void **state)
{
    (void)state;
    static const uint8_t d[] = {
        0x90, 0xE8, 0x0A, 0x00, 0x00, 0x00,   /* call +10: target 16, inside */
        0xE9, 0x64, 0x00, 0x00, 0x00,         /* jmp +100: target 111 */
        0x0F, 0x85, 0xF0, 0xFF, 0xFF, 0xFF,   /* jne -16: target 1 */
        0xE8, 0x00, 0x00, 0x00, 0x10,         /* call +256 MiB */
        0xE8, 0x01, 0x02, 0x03};              /* cut short */
    const uint64_t size = sizeof d;
    streams s;
    uint64_t seed = 7;
    encode(d, sizeof d, &size, 1, 0, &seed, &s);
    static const uint8_t call_in[] = {0x00, 0x00, 0x00, 0x10};
    static const uint8_t jump_in[] = {0x00, 0x00, 0x00, 0x01};
    assert_int_equal(s.m[FZ7_BCJ2_CALL].n, 4);
    assert_memory_equal(s.m[FZ7_BCJ2_CALL].p, call_in, 4);
    assert_int_equal(s.m[FZ7_BCJ2_JUMP].n, 4);
    assert_memory_equal(s.m[FZ7_BCJ2_JUMP].p, jump_in, 4);
    assert_int_equal(s.m[FZ7_BCJ2_MAIN].n, sizeof d - 8);
    check_decodes(&s, d, sizeof d, 0, 1);
    streams_free(&s);

    encode(d, sizeof d, NULL, 0, 0, &seed, &s);
    static const uint8_t jump_near[] = {0x00, 0x00, 0x00, 0x6F, 0x00, 0x00, 0x00, 0x01};
    assert_int_equal(s.m[FZ7_BCJ2_CALL].n, 4);   /* +256 MiB stays */
    assert_memory_equal(s.m[FZ7_BCJ2_CALL].p, call_in, 4);
    assert_int_equal(s.m[FZ7_BCJ2_JUMP].n, 8);
    assert_memory_equal(s.m[FZ7_BCJ2_JUMP].p, jump_near, 8);
    check_decodes(&s, d, sizeof d, 1, 2);
    streams_free(&s);
}

/* cmake.elf of the bench corpus: the four streams equal those of 7zz
 * 26.02's -mx9 archive (its LZMA2/LZMA pack streams decoded). */
static void test_cmake_elf_matches_7zz(void **state)
{
    (void)state;
    const char *dir = tu_shared_dir("bench/corpus");
    char path[4200];
    size_t n = 0;
    uint8_t *d = NULL;
    if (dir) {
        snprintf(path, sizeof path, "%s/cmake.elf", dir);
        d = tu_load(path, &n);
    }
    if (!d) {
        print_message("SKIP: the shared bench corpus (cmake.elf) is missing\n");
        skip();
    }
    static const struct {
        size_t size;
        const char *sha256;
    } want[FZ7_BCJ2_STREAMS] = {
        {8080884, "5f0eccb7df433d11c7ee20480b1d2b80385cc19d774abdd18934a5d3f272288a"},
        {619320, "c0fe854d86b07b16e1b4e722beac6c287d0ae81149eafe40b209486e2b3de70f"},
        {545636, "701c5cafd225dfc79a637e1979ffd5b309b42b2c4ec7566a8c98413f63916622"},
        {4592, "0904344c05b4d029edbf14b2e82a19a09de842234c29556507a5804ab833e91e"},
    };
    uint64_t size = n, seed = 3;
    streams s;
    encode(d, n, &size, 1, 100000, &seed, &s);
    for (int k = 0; k < FZ7_BCJ2_STREAMS; k++) {
        char hex[65];
        tu_sha256_hex(s.m[k].p, s.m[k].n, hex);
        assert_int_equal(s.m[k].n, want[k].size);
        assert_string_equal(hex, want[k].sha256);
    }
    check_decodes(&s, d, n, 0, 4);
    streams_free(&s);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversion_rule),
        cmocka_unit_test(test_every_tail_pattern),
        cmocka_unit_test(test_random_code_in_pieces),
        cmocka_unit_test(test_cmake_elf_matches_7zz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
