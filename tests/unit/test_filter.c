/* test_filter.c - BCJ (x86, PowerPC, ARM, ARM Thumb, SPARC, ARM64, IA-64) and
 * Delta against vectors made
 * by xz 5.4 (tests/data/filter: `xz --format=raw --FILTER --lzma2` output
 * decoded with plain --lzma2, i.e. the filtered bytes), round trips on
 * random and executable data, and independence from read sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "filter/filter.h"
#include "test_util.h"

static char *data_path(const char *name)
{
    static char path[4096];
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    int dir_len = slash ? (int)(slash - here) : 1;
    snprintf(path, sizeof path, "%.*s/../data/filter/%s", dir_len, slash ? here : ".", name);
    return path;
}

static uint8_t *load_vector(const char *name, size_t *n)
{
    uint8_t *p = tu_load(data_path(name), n);
    if (!p)
        fail_msg("missing test vector %s", data_path(name));
    return p;
}

/* A source that hands out at most a few bytes per read (sizes from a fixed
 * seed), to put read boundaries inside instructions. */
typedef struct {
    fz7_istream base;
    const uint8_t *p;
    size_t left;
    uint32_t seed;
    size_t max_piece;
} drip_istream;

static fz7_status drip_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    drip_istream *d = (drip_istream *)s;
    d->seed = d->seed * 1103515245u + 12345u;
    size_t n = 1 + (d->seed >> 16) % d->max_piece;
    if (n > cap)
        n = cap;
    if (n > d->left)
        n = d->left;
    memcpy(buf, d->p, n);
    d->p += n;
    d->left -= n;
    *got = n;
    return FZ7_OK;
}

static void drip_destroy(fz7_istream *s) { (void)s; }

/* Reads all of s with reads of `cap` bytes into a new buffer of n bytes;
 * fails the test unless exactly n bytes come out. */
static uint8_t *drain(fz7_istream *s, size_t n, size_t cap)
{
    uint8_t *out = malloc(n + cap);
    assert_non_null(out);
    size_t total = 0;
    for (;;) {
        size_t got = 0;
        assert_int_equal(s->read(s, out + total, cap, &got), FZ7_OK);
        if (got == 0)
            break;
        total += got;
        assert_true(total <= n);
    }
    assert_int_equal(total, n);
    return out;
}

/* X86, or one of fz7_bcj_arch. */
enum kind { PPC = FZ7_BCJ_PPC, ARM = FZ7_BCJ_ARM, ARMT = FZ7_BCJ_ARMT, SPARC = FZ7_BCJ_SPARC,
            ARM64 = FZ7_BCJ_ARM64, IA64 = FZ7_BCJ_IA64, X86 };

static fz7_status open_decoder(enum kind k, fz7_istream *src, uint32_t start, fz7_istream **out)
{
    if (k == X86)
        return fz7_bcj_x86_istream_new(src, start, out);
    return fz7_bcj_risc_istream_new(src, (fz7_bcj_arch)k, start, out);
}

/* Encodes buf in place in pieces of `piece` bytes the way a writer would:
 * the unconverted tail of each call is presented again with the next piece. */
static void encode_pieces(enum kind k, uint32_t start, uint8_t *buf, size_t n, size_t piece)
{
    fz7_bcj_x86_state x;
    fz7_bcj_x86_init(&x, start);
    fz7_bcj_risc_state r = {(fz7_bcj_arch)(k == X86 ? ARM64 : k), start};
    size_t done = 0;
    while (done < n) {
        size_t avail = n - done < piece ? n - done : piece;
        size_t used = k == X86 ? fz7_bcj_x86_encode(&x, buf + done, avail)
                               : fz7_bcj_risc_code(&r, buf + done, avail, true);
        if (avail == n - done && used == 0)
            break; /* the end: the rest stays as it is */
        if (used == 0) {
            piece *= 2; /* not enough for one instruction: offer more */
            continue;
        }
        done += used;
    }
}

static void check_bcj_vector(enum kind k, uint32_t start, const char *plain_name,
                             const char *encoded_name)
{
    size_t n, m;
    uint8_t *plain = load_vector(plain_name, &n);
    uint8_t *encoded = load_vector(encoded_name, &m);
    assert_int_equal(n, m);

    /* Encoder: one call and in small pieces both give xz's bytes. */
    static const size_t pieces[] = {1 << 20, 4096, 7, 5, 1};
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        uint8_t *work = malloc(n);
        memcpy(work, plain, n);
        encode_pieces(k, start, work, n, pieces[p]);
        if (memcmp(work, encoded, n) != 0)
            fail_msg("%s: encoder differs from xz (piece %zu)", encoded_name, pieces[p]);
        free(work);
    }

    /* Decoder stream, with read boundaries anywhere. */
    static const size_t caps[] = {1 << 17, 4096, 3, 1};
    static const size_t drips[] = {1 << 16, 9, 1};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        for (size_t d = 0; d < sizeof drips / sizeof drips[0]; d++) {
            drip_istream src = {{drip_read, drip_destroy}, encoded, m, 7u, drips[d]};
            fz7_istream *dec = NULL;
            assert_int_equal(open_decoder(k, &src.base, start, &dec), FZ7_OK);
            uint8_t *out = drain(dec, n, caps[c]);
            if (memcmp(out, plain, n) != 0)
                fail_msg("%s: decoder differs (cap %zu, drip %zu)", encoded_name, caps[c], drips[d]);
            free(out);
            fz7_istream_free(dec);
        }
    }
    free(plain);
    free(encoded);
}

static void test_x86_matches_xz(void **state) { (void)state; check_bcj_vector(X86, 0, "code.bin", "code.x86"); }
static void test_x86_start_offset_matches_xz(void **state) { (void)state; check_bcj_vector(X86, 1000, "code.bin", "code.x86s"); }
/* Dense E8/E9/00/FF bytes: every history rule of the x86 filter. */
static void test_x86_dense_matches_xz(void **state) { (void)state; check_bcj_vector(X86, 0, "e8.bin", "e8.x86"); }
static void test_ppc_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(PPC, 0, "code.bin", "code.ppc");
    check_bcj_vector(PPC, 0, "risc.bin", "risc.ppc");
}

static void test_arm_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(ARM, 0, "risc.bin", "risc.arm");
    check_bcj_vector(ARM, 4096, "risc.bin", "risc.arms");
}

static void test_armt_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(ARMT, 0, "risc.bin", "risc.armt");
    check_bcj_vector(ARMT, 6, "risc.bin", "risc.armts");
}

static void test_sparc_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(SPARC, 0, "risc.bin", "risc.sparc");
    check_bcj_vector(SPARC, 400, "risc.bin", "risc.sparcs");
}

static void test_ia64_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(IA64, 0, "ia64.bin", "ia64.ia64");
    check_bcj_vector(IA64, 4096, "ia64.bin", "ia64.ia64s");
}

static void test_arm64_matches_xz(void **state)
{
    (void)state;
    check_bcj_vector(ARM64, 0, "code.bin", "code.arm64");
    check_bcj_vector(ARM64, 0, "risc.bin", "risc.arm64");
    check_bcj_vector(ARM64, 4294963200u, "code.bin", "code.arm64s");
}

static void check_delta_vector(unsigned distance, const char *encoded_name)
{
    size_t n, m;
    uint8_t *plain = load_vector("samples.bin", &n);
    uint8_t *encoded = load_vector(encoded_name, &m);
    assert_int_equal(n, m);

    /* Encoder in uneven pieces. */
    uint8_t *work = malloc(n);
    memcpy(work, plain, n);
    fz7_delta_state s;
    assert_int_equal(fz7_delta_init(&s, distance), FZ7_OK);
    for (size_t done = 0, piece = 1; done < n; done += piece, piece = piece * 3 % 1000 + 1) {
        size_t take = n - done < piece ? n - done : piece;
        fz7_delta_encode(&s, work + done, take);
    }
    assert_memory_equal(work, encoded, n);
    free(work);

    drip_istream src = {{drip_read, drip_destroy}, encoded, m, 3u, 300};
    fz7_istream *dec = NULL;
    assert_int_equal(fz7_delta_istream_new(&src.base, distance, &dec), FZ7_OK);
    uint8_t *out = drain(dec, n, 777);
    assert_memory_equal(out, plain, n);
    free(out);
    fz7_istream_free(dec);
    free(plain);
    free(encoded);
}

/* The writers' push stream (fz7_filter_ostream): xz's bytes whatever
 * the sizes of the writes, the held-back tail passed on by finish. */
static void check_ostream_vector(fz7_filter_enc_kind kind, fz7_bcj_arch arch, unsigned distance,
                                 const char *plain_name, const char *encoded_name)
{
    size_t n, m;
    uint8_t *plain = load_vector(plain_name, &n);
    uint8_t *encoded = load_vector(encoded_name, &m);
    assert_int_equal(n, m);
    static const size_t pieces[] = {(size_t)1 << 20, 70001, 4096, 7, 1};
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        fz7_membuf out;
        fz7_membuf_init(&out);
        fz7_filter_enc enc;
        assert_int_equal(fz7_filter_enc_init(&enc, kind, arch, distance), FZ7_OK);
        fz7_filter_ostream fs;
        assert_int_equal(fz7_filter_ostream_init(&fs, &enc, &out.base), FZ7_OK);
        for (size_t done = 0; done < n;) {
            size_t take = n - done < pieces[p] ? n - done : pieces[p];
            assert_int_equal(fs.base.write(&fs.base, plain + done, take), FZ7_OK);
            done += take;
        }
        assert_int_equal(fz7_filter_ostream_finish(&fs), FZ7_OK);
        assert_int_equal(out.n, n);
        if (memcmp(out.p, encoded, n) != 0)
            fail_msg("%s: filter ostream differs from xz (writes of %zu)", encoded_name, pieces[p]);
        fz7_filter_ostream_free(&fs);
        fz7_membuf_free(&out);
    }
    free(plain);
    free(encoded);
}

static void test_filter_ostream_matches_xz(void **state)
{
    (void)state;
    check_ostream_vector(FZ7_FILTER_ENC_X86, FZ7_BCJ_ARM64, 0, "code.bin", "code.x86");
    check_ostream_vector(FZ7_FILTER_ENC_X86, FZ7_BCJ_ARM64, 0, "e8.bin", "e8.x86");
    check_ostream_vector(FZ7_FILTER_ENC_BRANCH, FZ7_BCJ_ARM64, 0, "risc.bin", "risc.arm64");
    check_ostream_vector(FZ7_FILTER_ENC_BRANCH, FZ7_BCJ_IA64, 0, "ia64.bin", "ia64.ia64");
    check_ostream_vector(FZ7_FILTER_ENC_DELTA, FZ7_BCJ_ARM64, 3, "samples.bin", "samples.delta3");
    fz7_filter_enc enc;
    assert_int_equal(fz7_filter_enc_init(&enc, FZ7_FILTER_ENC_DELTA, FZ7_BCJ_ARM64, 257), FZ7_E_ARG);
}

static void test_delta_matches_xz(void **state)
{
    (void)state;
    check_delta_vector(1, "samples.delta1");
    check_delta_vector(3, "samples.delta3");
    check_delta_vector(256, "samples.delta256");
}

static void test_delta_bad_distance(void **state)
{
    (void)state;
    fz7_delta_state s;
    assert_int_equal(fz7_delta_init(&s, 0), FZ7_E_ARG);
    assert_int_equal(fz7_delta_init(&s, 257), FZ7_E_ARG);
    fz7_istream *dec = (fz7_istream *)&s;
    assert_int_equal(fz7_delta_istream_new(NULL, 0, &dec), FZ7_E_ARG);
    assert_null(dec);
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_ARM64, 2, &dec), FZ7_E_ARG);
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_PPC, 6, &dec), FZ7_E_ARG);
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_ARMT, 3, &dec), FZ7_E_ARG);
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_ARMT, 6, &dec), FZ7_OK);
    fz7_istream_free(dec);
}

/* encode -> decode gives the input back, for x86/PPC/ARM64/Delta. */
static void round_trip(const uint8_t *plain, size_t n, const char *what)
{
    for (int k = PPC; k <= X86; k++) {
        uint8_t *work = malloc(n ? n : 1);
        memcpy(work, plain, n);
        encode_pieces((enum kind)k, 0, work, n, 65536);
        drip_istream src = {{drip_read, drip_destroy}, work, n, 11u, 70000};
        fz7_istream *dec = NULL;
        assert_int_equal(open_decoder((enum kind)k, &src.base, 0, &dec), FZ7_OK);
        uint8_t *out = drain(dec, n, 50000);
        if (memcmp(out, plain, n) != 0)
            fail_msg("round trip of %s through filter %d differs", what, k);
        free(out);
        free(work);
        fz7_istream_free(dec);
    }
    for (unsigned dist = 1; dist <= 256; dist += 85) {
        uint8_t *work = malloc(n ? n : 1);
        memcpy(work, plain, n);
        fz7_delta_state s;
        fz7_delta_init(&s, dist);
        fz7_delta_encode(&s, work, n);
        fz7_delta_init(&s, dist);
        fz7_delta_decode(&s, work, n);
        if (memcmp(work, plain, n) != 0)
            fail_msg("delta round trip of %s (distance %u) differs", what, dist);
        free(work);
    }
}

static void test_round_trip_random(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    static const size_t sizes[] = {0, 1, 4, 5, 6, 17, 4099, 200000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *buf = malloc(sizes[i] + 1);
        for (size_t j = 0; j < sizes[i]; j++) {
            seed = seed * 1664525u + 1013904223u;
            /* Bias towards E8/E9 and 00/FF so the x86 rules get exercised. */
            uint8_t b = (uint8_t)(seed >> 24);
            buf[j] = (seed & 0x300) == 0 ? (uint8_t)(0xE8 | (b & 1)) :
                     (seed & 0xC00) == 0 ? (uint8_t)(b & 0x80 ? 0xFF : 0) : b;
        }
        round_trip(buf, sizes[i], "random data");
        free(buf);
    }
}

static void test_round_trip_executable(void **state)
{
    (void)state;
    size_t n;
    uint8_t *exe = tu_load("/bin/ls", &n);
    if (!exe) {
        print_message("SKIP: /bin/ls not readable\n");
        skip();
    }
    round_trip(exe, n, "/bin/ls");
    /* The x86 filter must actually change an x86-64 executable. */
    uint8_t *work = malloc(n);
    memcpy(work, exe, n);
    encode_pieces(X86, 0, work, n, n);
    assert_true(memcmp(work, exe, n) != 0);
    free(work);
    free(exe);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x86_matches_xz),
        cmocka_unit_test(test_x86_start_offset_matches_xz),
        cmocka_unit_test(test_x86_dense_matches_xz),
        cmocka_unit_test(test_ppc_matches_xz),
        cmocka_unit_test(test_arm_matches_xz),
        cmocka_unit_test(test_armt_matches_xz),
        cmocka_unit_test(test_sparc_matches_xz),
        cmocka_unit_test(test_arm64_matches_xz),
        cmocka_unit_test(test_ia64_matches_xz),
        cmocka_unit_test(test_delta_matches_xz),
        cmocka_unit_test(test_filter_ostream_matches_xz),
        cmocka_unit_test(test_delta_bad_distance),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_round_trip_executable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
