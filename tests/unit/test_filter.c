/* test_filter.c - BCJ (x86, PowerPC, ARM, ARM Thumb, SPARC, ARM64, IA-64,
 * RISC-V) and Delta against vectors made
 * by xz 5.4 (tests/data/filter: `xz --format=raw --FILTER --lzma2` output
 * decoded with plain --lzma2, i.e. the filtered bytes) and, for RISC-V, by
 * 7zz 26.02 (riscv.riscv: the pack stream of `7zz a -m0=RISCV -m1=Copy`
 * over riscv.bin, JAL/AUIPC-dense code of 16381 bytes), round trips on
 * random and executable data, and independence from read sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "filter/bcj_riscv.h"
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
            ARM64 = FZ7_BCJ_ARM64, IA64 = FZ7_BCJ_IA64, RISCV = FZ7_BCJ_RISCV, X86 };

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

static void test_riscv_matches_7zz(void **state)
{
    (void)state;
    check_bcj_vector(RISCV, 0, "riscv.bin", "riscv.riscv");
}

/* RISC-V code (fixed seed) that hits every path of the RISC-V filter:
 * JAL with rd ra/t0 and others, AUIPC followed by an instruction that
 * uses its rd (or not), real AUIPC x2 pairs shaped like the filter's
 * special form (rs1 x0/x2 or not), AUIPC x0, and 16-bit parcels whose
 * first byte often starts a match (EF, 17, 97). */
static void make_riscv_code(uint8_t *p, size_t n, uint32_t seed)
{
    static const unsigned jal_rd[] = {1, 5, 1, 5, 0, 3, 13};
    static const unsigned auipc_rd[] = {1, 5, 6, 10, 31, 0, 2};
    static const unsigned rs1s[] = {0, 1, 2, 3, 5, 8, 31};
    static const uint8_t first[] = {0xEF, 0x17, 0x97, 0x6F};
    size_t o = 0;
    while (o + 8 <= n) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t r = seed >> 8;
        unsigned k = (seed >> 24) % 100;
        if (k < 25) {
            fz7_put32le(p + o, 0x6Fu | (jal_rd[r % 7] << 7) | ((r * 2654435761u) << 12));
            o += 4;
        } else if (k < 55) {
            unsigned rd = auipc_rd[r % 7];
            unsigned rs = (r & 0x80) ? (r >> 8) & 0x1F : rd;
            fz7_put32le(p + o, 0x17u | (rd << 7) | ((r * 2246822519u) << 12));
            fz7_put32le(p + o + 4, ((r & 0x40) ? 0x67u : 0x13u | (r & 0x20)) | (rs << 15) |
                                   ((r * 3266489917u) << 20) | (((r >> 3) & 7u) << 12));
            o += 8;
        } else if (k < 70) {
            fz7_put32le(p + o, 0x17u | (2u << 7) | ((r & 3) == 0 ? 1u : 3u) << 12 |
                                   ((r * 668265263u) & 0x1FFFu) << 14 | rs1s[r % 7] << 27);
            fz7_put32le(p + o + 4, r * 374761393u);
            o += 8;
        } else {
            p[o++] = (r & 1) ? first[(r >> 1) % 4] : (uint8_t)(r >> 3);
            p[o++] = (uint8_t)(r >> 11);
        }
    }
    while (o < n)
        p[o++] = 0x17;
}

/* Runs the RISC-V encoder or decoder over buf the way a stream does, in
 * pieces of about `piece` bytes: what a call leaves comes again at the
 * start of the next piece; at the end the rest stays as it is. */
static void riscv_pieces(bool encode, uint32_t start, uint8_t *buf, size_t n, size_t piece)
{
    fz7_bcj_riscv_state s = {start};
    size_t done = 0, end = 0;
    while (end < n) {
        end = n - end < piece ? n : end + piece;
        size_t used = encode ? fz7_bcj_riscv_encode(&s, buf + done, end - done)
                             : fz7_bcj_riscv_decode(&s, buf + done, end - done);
        assert_true(end - done - used <= 7 || end - done < 8);
        done += used;
    }
    assert_int_equal(s.pos, start + (uint32_t)done);
}

/* The RISC-V encoder is the decoder's inverse both ways, whatever the
 * pieces: decode(encode(x)) == x on code and random bytes, and
 * encode(decode(y)) == y (the filter is a bijection). Pieces of odd sizes
 * put boundaries inside instructions; the start offsets wrap 2^32. */
static void test_riscv_round_trip(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 7, 8, 9, 15, 16, 4097, 65539};
    static const size_t pieces[] = {1 << 20, 4097, 13, 9, 8, 3, 1};
    static const uint32_t starts[] = {0, 2, 4294967294u, 0x7FFFF000u};
    uint32_t seed = 99;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        size_t n = sizes[z];
        uint8_t *code = malloc(n + 1), *rnd = malloc(n + 1), *one = malloc(n + 1),
                *work = malloc(n + 1);
        make_riscv_code(code, n, (uint32_t)z + 1);
        for (size_t j = 0; j < n; j++) {
            seed = seed * 1103515245u + 12345u;
            rnd[j] = (uint8_t)(seed >> 16);
        }
        const uint8_t *inputs[] = {code, rnd};
        for (size_t in = 0; in < 2; in++) {
            for (size_t st = 0; st < sizeof starts / sizeof starts[0]; st++) {
                for (int enc = 1; enc >= 0; enc--) {
                    memcpy(one, inputs[in], n);
                    riscv_pieces(enc, starts[st], one, n, (size_t)1 << 20);
                    if (in == 0 && n >= 4097 && memcmp(one, inputs[in], n) == 0)
                        fail_msg("RISC-V %s left %zu bytes of code unchanged",
                                 enc ? "encode" : "decode", n);
                    for (size_t pc = 1; pc < sizeof pieces / sizeof pieces[0]; pc++) {
                        memcpy(work, inputs[in], n);
                        riscv_pieces(enc, starts[st], work, n, pieces[pc]);
                        if (memcmp(work, one, n) != 0)
                            fail_msg("RISC-V %s of %zu bytes depends on the pieces (%zu)",
                                     enc ? "encode" : "decode", n, pieces[pc]);
                    }
                    /* The other direction in other pieces gives the input back. */
                    riscv_pieces(!enc, starts[st], one, n, 9 + 2 * st);
                    if (memcmp(one, inputs[in], n) != 0)
                        fail_msg("RISC-V %s then %s of %zu bytes (%s, start %u) differs",
                                 enc ? "encode" : "decode", enc ? "decode" : "encode", n,
                                 in ? "random" : "code", (unsigned)starts[st]);
                }
            }
        }
        free(code);
        free(rnd);
        free(one);
        free(work);
    }
}

/* Each kind of instruction the RISC-V encoder rewrites, by hand. */
static void test_riscv_encode_cases(void **state)
{
    (void)state;
    uint8_t b[12];
    fz7_bcj_riscv_state s;

    /* JAL ra, +0x800 at pc 0x1000: absolute 0x1800, bits [20:1] stored
     * high first (p[1] high nibble [20:17], p[2] [16:9], p[3] [8:1]). */
    memset(b, 0, sizeof b);
    fz7_put32le(b, 0x6Fu | (1u << 7) | (1u << 20)); /* imm[11] set: +0x800 */
    s = (fz7_bcj_riscv_state){0x1000};
    assert_int_equal(fz7_bcj_riscv_encode(&s, b, 8), 4); /* 4 left: < 8 */
    assert_int_equal(b[0], 0xEF);
    assert_int_equal(b[1], 0x00);
    assert_int_equal(b[2], 0x1800 >> 9);
    assert_int_equal(b[3], (uint8_t)(0x1800 >> 1));

    /* JAL with rd = x3: left alone. */
    fz7_put32le(b, 0x6Fu | (3u << 7) | (1u << 20));
    memset(b + 4, 0, 8);
    s = (fz7_bcj_riscv_state){0x1000};
    assert_int_equal(fz7_bcj_riscv_encode(&s, b, 8), 2); /* a 2-byte step */
    assert_int_equal(fz7_get32le(b), 0x6Fu | (3u << 7) | (1u << 20));

    /* AUIPC t0, 1; JALR ra, -4(t0) at pc 0x100: target 0x100 + 0x1000 - 4
     * stored big endian after "AUIPC x2" carrying JALR's low 20 bits. */
    uint32_t jalr = 0x67u | (1u << 7) | (5u << 15) | (0xFFCu << 20);
    fz7_put32le(b, 0x17u | (5u << 7) | (1u << 12));
    fz7_put32le(b + 4, jalr);
    s = (fz7_bcj_riscv_state){0x100};
    assert_int_equal(fz7_bcj_riscv_encode(&s, b, 8), 8);
    assert_int_equal(fz7_get32le(b), 0x117u | (jalr << 12));
    static const uint8_t target[4] = {0x00, 0x00, 0x10, 0xFC};
    assert_memory_equal(b + 4, target, 4);
    fz7_bcj_riscv_decode(&(fz7_bcj_riscv_state){0x100}, b, 8);
    assert_int_equal(fz7_get32le(b), 0x17u | (5u << 7) | (1u << 12));
    assert_int_equal(fz7_get32le(b + 4), jalr);

    /* AUIPC t0 then an instruction not using t0: left alone, and the
     * 2 bytes after the AUIPC are not looked at (a JAL there is not). */
    fz7_put32le(b, 0x17u | (5u << 7) | (1u << 12));
    fz7_put32le(b + 4, 0x67u | (6u << 15));
    b[6] = 0xEF, b[7] = 0x00;
    memset(b + 8, 0, 4);
    uint8_t before[12];
    memcpy(before, b, sizeof b);
    s = (fz7_bcj_riscv_state){0};
    fz7_bcj_riscv_encode(&s, b, sizeof b);
    assert_memory_equal(b, before, sizeof b);

    /* A real AUIPC x2 shaped like the special form (rs1 field t0) becomes
     * an ordinary-looking AUIPC t0 pair; no address in it. */
    uint32_t sp = 0x17u | (2u << 7) | (3u << 12) | (0x155u << 14) | (5u << 27);
    fz7_put32le(b, sp);
    fz7_put32le(b + 4, 0x12345678u);
    s = (fz7_bcj_riscv_state){0x4000};
    assert_int_equal(fz7_bcj_riscv_encode(&s, b, 8), 8);
    assert_int_equal(fz7_get32le(b), 0x17u | (5u << 7) | 0x12345000u);
    assert_int_equal(fz7_get32le(b + 4), (sp >> 12) | (0x678u << 20));
    /* ... and with rs1 x2 it is not special: left alone. */
    sp = (sp & 0x07FFFFFFu) | (2u << 27);
    fz7_put32le(b, sp);
    s = (fz7_bcj_riscv_state){0};
    fz7_bcj_riscv_encode(&s, b, 8);
    assert_int_equal(fz7_get32le(b), sp);

    /* Fewer than 8 bytes: nothing done. */
    s = (fz7_bcj_riscv_state){0};
    assert_int_equal(fz7_bcj_riscv_encode(&s, b, 7), 0);
    assert_int_equal(s.pos, 0);
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
    check_ostream_vector(FZ7_FILTER_ENC_BRANCH, FZ7_BCJ_RISCV, 0, "riscv.bin", "riscv.riscv");
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
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_RISCV, 3, &dec), FZ7_E_ARG);
    assert_int_equal(fz7_bcj_risc_istream_new(NULL, FZ7_BCJ_RISCV, 6, &dec), FZ7_OK);
    fz7_istream_free(dec);
}

/* encode -> decode gives the input back, for every BCJ and Delta. */
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
        cmocka_unit_test(test_riscv_matches_7zz),
        cmocka_unit_test(test_riscv_encode_cases),
        cmocka_unit_test(test_riscv_round_trip),
        cmocka_unit_test(test_delta_matches_xz),
        cmocka_unit_test(test_filter_ostream_matches_xz),
        cmocka_unit_test(test_delta_bad_distance),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_round_trip_executable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
