/* test_codecs.c - the Deflate, Deflate64, BZip2, PPMd (var.H) and BCJ2
 * decoders: vectors built here bit by bit from RFC 1951, streams made by
 * 7zz at test time (decoded raw and through the 7z reader), truncated,
 * corrupted and random inputs, and the corpus rows that use these methods
 * (compared with expected/<archive>.tsv). The PPMd encoder: byte for byte
 * 7zz's streams, and round trips through the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "codec/codec.h"
#include "filter/bcj2.h"
#include "filter/bcj_riscv.h"
#include "format/archive.h"
#include "test_util.h"

/* test_ppmd_encoder's text (tu_fill_text, 300000 bytes, seed 5) at o6 mem 1m,
 * as 7zz 26.02 packs it. */
#define PPMD_TEXT_PACKED 22845
#define PPMD_TEXT_CRC 0x4b56ea44u
/* test_deflate_encoder's text (tu_fill_text, 400000 bytes, seed 9) at level 5:
 * fz7's own stream, pinned so that a change to it is seen. */
#define DEFLATE_TEXT_PACKED 14550
#define DEFLATE_TEXT_CRC 0x53c534eeu

/* ---- Helpers ---- */

/* Reads d to its end in pieces of at most `piece` bytes; returns the
 * status that stopped it and the bytes before that. */
static fz7_status drain(fz7_istream *d, size_t piece, uint8_t **out, size_t *n)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    fz7_status st;
    for (;;) {
        if (cap - len < piece) {
            cap = 2 * cap + piece;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = 0;
        st = d->read(d, buf + len, piece, &got);
        if (st != FZ7_OK || got == 0)
            break;
        assert_true(got <= piece);
        len += got;
    }
    *out = buf;
    *n = len;
    return st;
}

enum kind { K_DEFLATE, K_DEFLATE64, K_BZIP2, K_PPMD };

/* Decodes src[0..n) with one decoder; out and out_n as for drain(). */
static fz7_status decode(enum kind k, const uint8_t *src, size_t n, const uint8_t *props,
                         uint64_t out_size, size_t piece, uint8_t **out, size_t *out_n)
{
    fz7_istream *in = fz7_istream_from_memory(src, n), *d = NULL;
    assert_non_null(in);
    fz7_status st;
    switch (k) {
    case K_DEFLATE: st = fz7_deflate_istream_new(in, false, &d); break;
    case K_DEFLATE64: st = fz7_deflate_istream_new(in, true, &d); break;
    case K_BZIP2: st = fz7_bzip2_istream_new(in, 0, &d); break;
    default: st = fz7_ppmd7_istream_new(in, props, 5, out_size, 0, &d); break;
    }
    assert_int_equal(st, FZ7_OK);
    st = drain(d, piece, out, out_n);
    fz7_istream_free(d);
    fz7_istream_free(in);
    return st;
}

/* src[0..n) through the PPMd encoder with props (order, mem); the stream
 * in *out (malloc'd), *out_n bytes. */
static void ppmd_encode(const uint8_t props[5], const uint8_t *src, size_t n, uint8_t **out, size_t *out_n)
{
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_ppmd7_enc *e = NULL;
    assert_int_equal(fz7_ppmd7_enc_new(props[0], fz7_get32le(props + 1), &mb.base, &e), FZ7_OK);
    /* Uneven pieces: the encoder's state carries across writes. */
    for (size_t at = 0, piece = 1; at < n; at += piece, piece = piece * 3 + 7) {
        size_t k = n - at < piece ? n - at : piece;
        assert_int_equal(fz7_ppmd7_enc_write(e, src + at, k), FZ7_OK);
    }
    assert_int_equal(fz7_ppmd7_enc_finish(e), FZ7_OK);
    assert_int_equal(fz7_ppmd7_enc_bytes_out(e), mb.n);
    fz7_ppmd7_enc_free(e);
    *out = mb.p;
    *out_n = mb.n;
}


/* ---- Deflate vectors built from RFC 1951 ---- */

typedef struct {
    uint8_t buf[1 << 17];
    size_t len;
    uint32_t acc;
    unsigned nacc;
} bit_writer;

/* Data elements go LSB first (RFC 1951 3.1.1). */
static void put_bits(bit_writer *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        w->acc |= ((v >> i) & 1u) << w->nacc;
        if (++w->nacc == 8) {
            w->buf[w->len++] = (uint8_t)w->acc;
            w->acc = 0;
            w->nacc = 0;
        }
    }
}

/* Huffman codes go most significant bit first. */
static void put_code(bit_writer *w, uint32_t code, unsigned len)
{
    for (unsigned i = len; i-- > 0;)
        put_bits(w, (code >> i) & 1u, 1);
}

static void flush_bits(bit_writer *w)
{
    if (w->nacc)
        put_bits(w, 0, 8 - w->nacc);
}

/* The fixed literal/length code (RFC 1951 3.2.6). */
static void put_fixed_lit(bit_writer *w, unsigned sym)
{
    if (sym < 144)
        put_code(w, 0x30 + sym, 8);
    else if (sym < 256)
        put_code(w, 0x190 + sym - 144, 9);
    else if (sym < 280)
        put_code(w, sym - 256, 7);
    else
        put_code(w, 0xC0 + sym - 280, 8);
}

static void put_stored(bit_writer *w, bool final, const uint8_t *p, uint16_t n)
{
    put_bits(w, final, 1);
    put_bits(w, 0, 2);
    flush_bits(w);
    put_bits(w, n, 16);
    put_bits(w, (uint16_t)~n, 16);
    for (uint16_t i = 0; i < n; i++)
        put_bits(w, p[i], 8);
}

static void expect_deflate(enum kind k, const bit_writer *w, fz7_status want, const uint8_t *exp,
                           size_t exp_n)
{
    static const size_t pieces[] = {1, 3, 1 << 20};
    for (size_t i = 0; i < 3; i++) {
        uint8_t *out;
        size_t n;
        fz7_status st = decode(k, w->buf, w->len, NULL, 0, pieces[i], &out, &n);
        assert_int_equal(st, want);
        if (want == FZ7_OK) {
            assert_int_equal(n, exp_n);
            assert_memory_equal(out, exp, exp_n);
        }
        free(out);
    }
}

static void test_deflate_vectors(void **state)
{
    (void)state;
    static bit_writer w;
    static uint8_t exp[70000];

    /* Stored "hello", final. */
    memset(&w, 0, sizeof w);
    put_stored(&w, true, (const uint8_t *)"hello", 5);
    expect_deflate(K_DEFLATE, &w, FZ7_OK, (const uint8_t *)"hello", 5);
    expect_deflate(K_DEFLATE64, &w, FZ7_OK, (const uint8_t *)"hello", 5);

    /* Stored "ab", then a fixed block: 'c', a match of 5 at distance 3,
     * end of block: "abcabcab". */
    memset(&w, 0, sizeof w);
    put_stored(&w, false, (const uint8_t *)"ab", 2);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 'c');
    put_fixed_lit(&w, 259);   /* length 5 */
    put_code(&w, 2, 5);       /* distance 3 */
    put_fixed_lit(&w, 256);
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_OK, (const uint8_t *)"abcabcab", 8);

    /* Empty fixed block. */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 256);
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_OK, NULL, 0);

    /* 'a' then code 285: Deflate reads length 258; Deflate64 reads 16
     * extra bits (997: length 1000). Distance 1. */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 'a');
    put_fixed_lit(&w, 285);
    put_bits(&w, 997, 16);
    put_code(&w, 0, 5);
    put_fixed_lit(&w, 256);
    flush_bits(&w);
    memset(exp, 'a', 1001);
    expect_deflate(K_DEFLATE64, &w, FZ7_OK, exp, 1001);
    {
        uint8_t *out;
        size_t n;
        fz7_status st = decode(K_DEFLATE, w.buf, w.len, NULL, 0, 1 << 20, &out, &n);
        /* 997's bits are not a valid continuation as Deflate codes. */
        assert_true(st != FZ7_OK || n != 1001);
        free(out);
    }

    /* 40000 stored bytes, then a match at distance 40000 (distance code
     * 30, 14 extra bits = 7231): Deflate64 only. */
    memset(&w, 0, sizeof w);
    uint32_t seed = 7;
    for (size_t i = 0; i < 40000; i++)
        exp[i] = (uint8_t)tu_lcg(&seed);
    put_stored(&w, false, exp, 40000);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 265);   /* length 11 + 1 extra bit */
    put_bits(&w, 1, 1);       /* 12 */
    put_code(&w, 30, 5);
    put_bits(&w, 7231, 14);
    put_fixed_lit(&w, 256);
    flush_bits(&w);
    memcpy(exp + 40000, exp, 12);
    expect_deflate(K_DEFLATE64, &w, FZ7_OK, exp, 40012);
    expect_deflate(K_DEFLATE, &w, FZ7_E_DATA, NULL, 0);

    /* Malformed: block type 3. */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 3, 2);
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_E_DATA, NULL, 0);

    /* Malformed: NLEN is not the complement of LEN. */
    static const uint8_t bad_nlen[] = {0x01, 0x05, 0x00, 0xFA, 0xFE, 'h', 'e', 'l', 'l', 'o'};
    memcpy(w.buf, bad_nlen, sizeof bad_nlen);
    w.len = sizeof bad_nlen;
    expect_deflate(K_DEFLATE, &w, FZ7_E_DATA, NULL, 0);

    /* Malformed: a match before the start of the data. */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 'x');
    put_fixed_lit(&w, 257);
    put_code(&w, 1, 5);   /* distance 2, only 1 byte so far */
    put_fixed_lit(&w, 256);
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_E_DATA, NULL, 0);

    /* Malformed: literal/length symbols 286 and 287. */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    put_fixed_lit(&w, 286);
    flush_bits(&w);
    expect_deflate(K_DEFLATE64, &w, FZ7_E_DATA, NULL, 0);

    /* Malformed dynamic header: code length code 16 with nothing to
     * repeat (HCLEN = 4 codes: 16, 17, 18, 0; only 16 and 0 present). */
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 2, 2);
    put_bits(&w, 0, 5);   /* 257 literal/length codes */
    put_bits(&w, 0, 5);   /* 1 distance code */
    put_bits(&w, 0, 4);   /* 4 code length codes */
    put_bits(&w, 1, 3);   /* 16: length 1 (code 1: symbol 0 comes first) */
    put_bits(&w, 0, 3);
    put_bits(&w, 0, 3);
    put_bits(&w, 1, 3);   /* 0: length 1 (code 0) */
    put_code(&w, 1, 1);   /* 16 first */
    put_bits(&w, 0, 2);
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_E_DATA, NULL, 0);

    /* Truncated: the stored block cut short, and a fixed block without
     * its end-of-block code. */
    memset(&w, 0, sizeof w);
    put_stored(&w, true, (const uint8_t *)"hello", 5);
    w.len -= 2;
    expect_deflate(K_DEFLATE, &w, FZ7_E_TRUNCATED, NULL, 0);
    memset(&w, 0, sizeof w);
    put_bits(&w, 1, 1);
    put_bits(&w, 1, 2);
    for (int i = 0; i < 20; i++)
        put_fixed_lit(&w, 'z');
    flush_bits(&w);
    expect_deflate(K_DEFLATE, &w, FZ7_E_TRUNCATED, NULL, 0);
    w.len = 0;
    expect_deflate(K_DEFLATE, &w, FZ7_E_TRUNCATED, NULL, 0);
}

/* Random bytes as Deflate/Deflate64 streams: any status but a crash or a
 * hang; only OK, DATA and TRUNCATED are possible. */
static void test_deflate_random(void **state)
{
    (void)state;
    uint8_t buf[512];
    uint32_t seed = 12345;
    for (int round = 0; round < 4000; round++) {
        size_t n = 1 + tu_lcg(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)tu_lcg(&seed);
        /* Mostly fixed or dynamic blocks, so the Huffman paths run. */
        buf[0] = (uint8_t)((buf[0] & ~6u) | ((round & 1) ? 2u : 4u));
        uint8_t *out;
        size_t got;
        fz7_status st = decode(round & 2 ? K_DEFLATE64 : K_DEFLATE, buf, n, NULL, 0, 4096, &out, &got);
        if (st != FZ7_OK && st != FZ7_E_DATA && st != FZ7_E_TRUNCATED)
            fail_msg("round %d (seed 12345): status %d", round, st);
        free(out);
    }
}

static fz7_status bcj2_run(const uint8_t *const s[4], const size_t n[4], uint64_t out_size, size_t piece,
                           uint8_t **out, size_t *out_n);

/* A fuzz finding kept as a case (tests/data/codec/fuzz-deflate64-expand.bin:
 * one byte, 0xE5, whose bit 0 asks for Deflate64, then 1,439 bytes of
 * stream). Its short codes for long matches expand it to 11,235,135 bytes
 * before the input runs out without a final block. It took 0.07 s natively
 * but passed libFuzzer's 10 s under ASan on a loaded machine: a slow unit,
 * not a hang. Pinned: every byte is produced, the CRC is stable, and the
 * end is TRUNCATED, never OK. */
static void test_deflate64_expansion(void **state)
{
    (void)state;
    char path[1024];
    const char *f = __FILE__, *cut = strstr(f, "unit/test_codecs.c");
    snprintf(path, sizeof path, "%.*sdata/codec/fuzz-deflate64-expand.bin", cut ? (int)(cut - f) : 0, f);
    size_t n;
    uint8_t *in = tu_load_existing(path, &n);
    assert_int_equal(n, 1440);
    assert_int_equal(in[0] & 1, 1);
    uint8_t *out;
    size_t got;
    fz7_status st = decode(K_DEFLATE64, in + 1, n - 1, NULL, 0, 65536, &out, &got);
    assert_int_equal(st, FZ7_E_TRUNCATED);
    assert_int_equal(got, 11235135);
    assert_int_equal(fz7_crc32(0, out, got), 0xeab7a00fu);
    free(out);
    free(in);
}

/* Random bytes as PPMd streams (small models, so they restart often) and
 * as the four BCJ2 inputs: only OK, DATA or TRUNCATED, never a crash. */
static void test_random_streams(void **state)
{
    (void)state;
    static const uint8_t orders[] = {2, 3, 6, 16, 64};
    static const uint32_t mems[] = {1u << 11, 1u << 12, 1u << 16, 1u << 20};
    uint8_t buf[2048], props[5];
    uint32_t seed = 777;
    for (int round = 0; round < 60; round++) {
        size_t n = 5 + tu_lcg(&seed) % (sizeof buf - 5);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)tu_lcg(&seed);
        buf[0] = 0;   /* past the range decoder's first check */
        props[0] = orders[round % 5];
        fz7_put32le(props + 1, mems[(round / 5) % 4]);
        uint8_t *out;
        size_t got;
        fz7_status st = decode(K_PPMD, buf, n, props, 3000, 4096, &out, &got);
        if (st != FZ7_OK && st != FZ7_E_DATA && st != FZ7_E_TRUNCATED)
            fail_msg("PPMd round %d (seed 777): status %d", round, st);
        free(out);
    }
    for (int round = 0; round < 300; round++) {
        static uint8_t s4[4][512];
        const uint8_t *s[4];
        size_t n[4];
        for (int k = 0; k < 4; k++) {
            n[k] = tu_lcg(&seed) % sizeof s4[k];
            for (size_t i = 0; i < n[k]; i++)
                s4[k][i] = (uint8_t)(k == 0 && tu_lcg(&seed) % 4 == 0 ? 0xE8 : tu_lcg(&seed));
            s[k] = s4[k];
        }
        uint8_t *out;
        size_t got;
        fz7_status st = bcj2_run(s, n, tu_lcg(&seed) % 1024, 1 + tu_lcg(&seed) % 64, &out, &got);
        if (st != FZ7_OK && st != FZ7_E_DATA)
            fail_msg("BCJ2 round %d (seed 777): status %d", round, st);
        free(out);
    }
}

/* ---- Streams made by 7zz ---- */

static char scratch[256];
static bool have_7zz;


static const char *exe_path(void)
{
    static const char *const cands[] = {"/usr/bin/cmake", "/bin/bash", "/usr/bin/bash"};
    struct stat st;
    for (size_t i = 0; i < 3; i++)
        if (stat(cands[i], &st) == 0 && st.st_size > 300000)
            return cands[i];
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    have_7zz = system("7zz > /dev/null 2>&1") == 0;
    if (!have_7zz)
        return 0;
    snprintf(scratch, sizeof scratch, "/tmp/fz7_test_codecs_XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    char p[512];
    snprintf(p, sizeof p, "%s/in", scratch);
    mkdir(p, 0755);
    size_t n = 400000;
    uint8_t *buf = malloc(n);
    if (!buf)
        return -1;
    tu_fill_text(buf, n, 1);
    snprintf(p, sizeof p, "%s/in/text.txt", scratch);
    tu_save(p, buf, n);
    /* 40000 random bytes four times: long matches at distance 40000
     * (Deflate64's distance code 30, length code 285). */
    uint32_t seed = 99;
    for (size_t i = 0; i < 40000; i++)
        buf[i] = (uint8_t)tu_lcg(&seed);
    for (int r = 1; r < 4; r++)
        memcpy(buf + 40000 * r, buf, 40000);
    snprintf(p, sizeof p, "%s/in/rep40k.bin", scratch);
    tu_save(p, buf, 160000);
    for (size_t i = 0; i < 100000; i++)
        buf[i] = (uint8_t)tu_lcg(&seed);
    snprintf(p, sizeof p, "%s/in/random.bin", scratch);
    tu_save(p, buf, 100000);   /* stored blocks */
    free(buf);
    const char *exe = exe_path();
    if (exe) {
        snprintf(p, sizeof p, "head -c 1500000 %s > %s/in/exe.bin", exe, scratch);
        if (system(p) != 0)
            return -1;
    }
    snprintf(p, sizeof p, "cd %s/in && cat text.txt rep40k.bin random.bin $(ls exe.bin 2>/dev/null) > ../mix.bin"
                          " && head -c 800000 ../mix.bin > ../part.bin", scratch);
    return system(p) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (scratch[0] && !getenv("FZ7_TEST_KEEP")) {
        char p[512];
        snprintf(p, sizeof p, "rm -rf %s", scratch);
        if (system(p) != 0)
            return -1;
    }
    return 0;
}

#define NEED_7ZZ()                                              \
    do {                                                        \
        if (!have_7zz) {                                        \
            print_message("SKIP: 7zz is not installed\n");      \
            skip();                                             \
        }                                                       \
    } while (0)

/* A 7z number (7zFormat.txt, "REAL_UINT64"). */
static uint64_t read_number(const uint8_t *p, size_t *i)
{
    uint8_t first = p[(*i)++];
    unsigned extra = 0;
    while (extra < 8 && (first & (0x80u >> extra)))
        extra++;
    uint64_t v = 0;
    for (unsigned k = 0; k < extra; k++)
        v |= (uint64_t)p[(*i)++] << (8 * k);
    if (extra < 8)
        v |= (uint64_t)(first & (0xFFu >> (extra + 1))) << (8 * extra);
    return v;
}

/* Makes name.7z (plain header, -mhc=off) from files with 7zz switches and
 * returns its bytes. */
static uint8_t *make_7z(const char *name, const char *switches, const char *files, size_t *n)
{
    char cmd[1024], path[512];
    snprintf(path, sizeof path, "%s/%s.7z", scratch, name);
    snprintf(cmd, sizeof cmd, "cd %s && rm -f %s.7z && 7zz a -mhc=off %s %s.7z %s > /dev/null", scratch,
             name, switches, name, files);
    assert_int_equal(system(cmd), 0);
    uint8_t *p = tu_load(path, n);
    assert_non_null(p);
    assert_true(*n > 32);
    return p;
}

/* The pack streams of a plain-header archive: PackInfo is the first thing
 * in its header (kHeader, kMainStreamsInfo, kPackInfo, pack pos, count,
 * kSize, sizes). Offsets relative to the archive start. */
static unsigned pack_streams(const uint8_t *arc, size_t n, uint64_t off[8], uint64_t size[8])
{
    uint64_t next = fz7_get64le(arc + 12), len = fz7_get64le(arc + 20);
    assert_true(32 + next + len <= n);
    const uint8_t *h = arc + 32 + next;
    size_t i = 0;
    assert_int_equal(h[i++], 0x01);
    assert_int_equal(h[i++], 0x04);
    assert_int_equal(h[i++], 0x06);
    uint64_t pos = 32 + read_number(h, &i), count = read_number(h, &i);
    assert_true(count >= 1 && count <= 8);
    assert_int_equal(h[i++], 0x09);
    for (uint64_t k = 0; k < count; k++) {
        off[k] = pos;
        size[k] = read_number(h, &i);
        pos += size[k];
    }
    return (unsigned)count;
}

/* The 5 property bytes of a PPMd coder in a plain header. */
static void ppmd_props(const uint8_t *arc, size_t n, uint8_t props[5])
{
    static const uint8_t coder[5] = {0x23, 0x03, 0x04, 0x01, 0x05};
    uint64_t next = fz7_get64le(arc + 12);
    for (size_t i = 32 + next; i + 10 <= n; i++)
        if (memcmp(arc + i, coder, 5) == 0) {
            memcpy(props, arc + i + 5, 5);
            return;
        }
    fail_msg("no PPMd coder in the header");
}

/* One method on a file (mix.bin: 2.2 MB, part.bin: its first 800 KB for
 * the slower methods), decoded straight from the pack stream: exact bytes
 * with several read sizes, then truncated and corrupted copies. */
static void raw_method(enum kind k, const char *switches, const char *file)
{
    char path[512];
    size_t src_n, arc_n;
    snprintf(path, sizeof path, "%s/%s", scratch, file);
    uint8_t *src = tu_load(path, &src_n);
    assert_non_null(src);
    uint8_t *arc = make_7z("raw", switches, file, &arc_n);
    uint64_t off[8], size[8];
    assert_int_equal(pack_streams(arc, arc_n, off, size), 1);
    uint8_t props[5] = {0};
    if (k == K_PPMD)
        ppmd_props(arc, arc_n, props);
    const uint8_t *packed = arc + off[0];
    size_t packed_n = (size_t)size[0];
    if (k == K_PPMD) {
        /* fz7's encoder writes 7zz's stream byte for byte. */
        uint8_t *mine;
        size_t mine_n;
        ppmd_encode(props, src, src_n, &mine, &mine_n);
        assert_int_equal(mine_n, packed_n);
        assert_memory_equal(mine, packed, packed_n);
        free(mine);
    }

    static const size_t pieces[] = {1, 4099, 1 << 20};
    for (size_t i = 0; i < 3; i++) {
        if (pieces[i] == 1 && k != K_DEFLATE && k != K_DEFLATE64)
            continue;   /* they decode whole symbols: a small read adds nothing */
        uint8_t *out;
        size_t n;
        assert_int_equal(decode(k, packed, packed_n, props, src_n, pieces[i], &out, &n), FZ7_OK);
        assert_int_equal(n, src_n);
        assert_memory_equal(out, src, src_n);
        free(out);
    }

    /* Cut short: an error, never the whole output. */
    size_t cuts[] = {packed_n / 2, packed_n - 1, 3};
    for (size_t i = 0; i < 3; i++) {
        uint8_t *out;
        size_t n;
        fz7_status st = decode(k, packed, cuts[i], props, src_n, 1 << 16, &out, &n);
        if (st == FZ7_OK)
            fail_msg("%s: cut to %zu of %zu bytes decoded without error (%zu bytes)", switches, cuts[i],
                     packed_n, n);
        free(out);
    }

    /* Corrupted bytes: an error or different output (7z's CRC catches
     * the latter), and never a crash. */
    uint8_t *copy = malloc(packed_n);
    assert_non_null(copy);
    uint32_t seed = 4242;
    for (int round = 0; round < 4; round++) {
        memcpy(copy, packed, packed_n);
        size_t at = tu_lcg(&seed) % packed_n;
        copy[at] ^= (uint8_t)(1 + tu_lcg(&seed) % 255);
        uint8_t *out;
        size_t n;
        fz7_status st = decode(k, copy, packed_n, props, src_n, 1 << 16, &out, &n);
        if (st == FZ7_OK && n == src_n && memcmp(out, src, n) == 0)
            fail_msg("%s: flipping byte %zu changed nothing", switches, at);
        free(out);
    }
    free(copy);
    free(arc);
    free(src);
}

static void test_raw_deflate(void **state)
{
    (void)state;
    NEED_7ZZ();
    raw_method(K_DEFLATE, "-m0=Deflate -mx5", "mix.bin");
    raw_method(K_DEFLATE, "-m0=Deflate -mx9", "mix.bin");
}

static void test_raw_deflate64(void **state)
{
    (void)state;
    NEED_7ZZ();
    raw_method(K_DEFLATE64, "-m0=Deflate64 -mx9", "mix.bin");
}

static void test_raw_bzip2(void **state)
{
    (void)state;
    NEED_7ZZ();
    raw_method(K_BZIP2, "-m0=BZip2 -mx9", "part.bin");
}

static void test_raw_ppmd(void **state)
{
    (void)state;
    NEED_7ZZ();
    raw_method(K_PPMD, "-m0=PPMd:o=6:mem=16m", "part.bin");
    /* A small model on 800 KB: the memory fills, the model restarts, free
     * blocks are glued. */
    raw_method(K_PPMD, "-m0=PPMd:o=32:mem=1m", "part.bin");
    raw_method(K_PPMD, "-m0=PPMd:o=2:mem=2m", "part.bin");
}

/* Concatenated bzip2 streams decode as one; garbage after them does not. */
static void test_bzip2_streams(void **state)
{
    (void)state;
    NEED_7ZZ();
    char cmd[1024], path[512];
    snprintf(cmd, sizeof cmd, "cd %s/in && rm -f a.bz2 b.bz2 && 7zz a -tbzip2 a.bz2 text.txt > /dev/null"
                              " && 7zz a -tbzip2 b.bz2 random.bin > /dev/null", scratch);
    assert_int_equal(system(cmd), 0);
    size_t an, bn, tn, rn;
    snprintf(path, sizeof path, "%s/in/a.bz2", scratch);
    uint8_t *a = tu_load(path, &an);
    snprintf(path, sizeof path, "%s/in/b.bz2", scratch);
    uint8_t *b = tu_load(path, &bn);
    snprintf(path, sizeof path, "%s/in/text.txt", scratch);
    uint8_t *t = tu_load(path, &tn);
    snprintf(path, sizeof path, "%s/in/random.bin", scratch);
    uint8_t *r = tu_load(path, &rn);
    assert_true(a && b && t && r);
    uint8_t *both = malloc(an + bn + 4);
    assert_non_null(both);
    memcpy(both, a, an);
    memcpy(both + an, b, bn);
    uint8_t *out;
    size_t n;
    assert_int_equal(decode(K_BZIP2, both, an + bn, NULL, 0, 1 << 16, &out, &n), FZ7_OK);
    assert_int_equal(n, tn + rn);
    assert_memory_equal(out, t, tn);
    assert_memory_equal(out + tn, r, rn);
    free(out);
    memcpy(both + an, "junk", 4);
    assert_int_equal(decode(K_BZIP2, both, an + 4, NULL, 0, 1 << 16, &out, &n), FZ7_E_DATA);
    free(out);
    assert_int_equal(decode(K_BZIP2, both, 0, NULL, 0, 1 << 16, &out, &n), FZ7_E_TRUNCATED);
    free(out);
    free(both);
    free(a);
    free(b);
    free(t);
    free(r);
}

static void test_ppmd_props(void **state)
{
    (void)state;
    fz7_istream *in = fz7_istream_from_memory((const uint8_t *)"", 0), *d = NULL;
    assert_non_null(in);
    static const uint8_t ok[5] = {6, 0, 0, 0, 1};       /* order 6, 16 MiB */
    static const uint8_t order1[5] = {1, 0, 0, 0, 1};
    static const uint8_t order65[5] = {65, 0, 0, 0, 1};
    static const uint8_t tiny[5] = {6, 0, 4, 0, 0};     /* 1 KiB */
    static const uint8_t huge[5] = {6, 0xFF, 0xFF, 0xFF, 0xFF};
    assert_int_equal(fz7_ppmd7_istream_new(in, ok, 4, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd7_istream_new(in, order1, 5, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd7_istream_new(in, order65, 5, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd7_istream_new(in, tiny, 5, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd7_istream_new(in, huge, 5, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd7_istream_new(in, ok, 5, 10, (uint64_t)8 << 20, &d), FZ7_E_MEMLIMIT);
    assert_null(d);
    /* Empty input: the range decoder cannot start. */
    assert_int_equal(fz7_ppmd7_istream_new(in, ok, 5, 10, 0, &d), FZ7_OK);
    uint8_t buf[16];
    size_t got = 1;
    assert_int_equal(d->read(d, buf, sizeof buf, &got), FZ7_E_TRUNCATED);
    assert_int_equal(got, 0);
    fz7_istream_free(d);
    /* The first byte of 7z's range coder must be 0. */
    static const uint8_t bad_start[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    fz7_istream *in2 = fz7_istream_from_memory(bad_start, sizeof bad_start);
    assert_int_equal(fz7_ppmd7_istream_new(in2, ok, 5, 10, 0, &d), FZ7_OK);
    assert_int_equal(d->read(d, buf, sizeof buf, &got), FZ7_E_DATA);
    fz7_istream_free(d);
    fz7_istream_free(in2);
    /* Zero bytes to decode: no input is read at all. */
    assert_int_equal(fz7_ppmd7_istream_new(in, ok, 5, 0, 0, &d), FZ7_OK);
    assert_int_equal(d->read(d, buf, sizeof buf, &got), FZ7_OK);
    assert_int_equal(got, 0);
    fz7_istream_free(d);
    assert_int_equal(fz7_bzip2_istream_new(in, 1 << 20, &d), FZ7_E_MEMLIMIT);
    fz7_istream_free(in);
}

/* Streams encoded by hand with 7z's PPMd range coder on a fresh model:
 * 'A' is symbol 65 of the order-0 context (start 65, size 1, total 257);
 * after it, the end marker escapes from that context (start 260, size 1,
 * total 261, 'A' now having frequency 5). */
static void test_ppmd_vectors(void **state)
{
    (void)state;
    static const uint8_t props[5] = {6, 0, 0, 0, 1};
    static const uint8_t just_a[] = {0x00, 0x40, 0xBF, 0x40, 0xBF, 0x00};
    static const uint8_t a_marker[] = {0x00, 0x41, 0xBD, 0x47, 0x9E, 0x98, 0x00};
    static const uint8_t marker[] = {0x00, 0xFF, 0x00, 0xFF, 0x00, 0x00};
    uint8_t *out;
    size_t n;
    assert_int_equal(decode(K_PPMD, just_a, sizeof just_a, props, 1, 1, &out, &n), FZ7_OK);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 'A');
    free(out);
    /* One byte more than the stream holds. */
    assert_int_equal(decode(K_PPMD, just_a, sizeof just_a, props, 2, 1, &out, &n), FZ7_E_TRUNCATED);
    free(out);
    /* An end marker after the last byte is accepted... */
    assert_int_equal(decode(K_PPMD, a_marker, sizeof a_marker, props, 1, 1, &out, &n), FZ7_OK);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 'A');
    free(out);
    /* ...one before it is corrupt data. */
    assert_int_equal(decode(K_PPMD, a_marker, sizeof a_marker, props, 2, 1, &out, &n), FZ7_E_DATA);
    assert_int_equal(n, 1);
    free(out);
    assert_int_equal(decode(K_PPMD, marker, sizeof marker, props, 1, 1, &out, &n), FZ7_E_DATA);
    assert_int_equal(n, 0);
    free(out);
    /* The code left non-zero: a byte of the stream changed. */
    static const uint8_t bad_tail[] = {0x00, 0x40, 0xBF, 0x40, 0xBF, 0x01};
    assert_int_equal(decode(K_PPMD, bad_tail, sizeof bad_tail, props, 1, 1, &out, &n), FZ7_E_DATA);
    free(out);
}

/* The PPMd encoder without 7zz: the vector above, limits, a pinned CRC of
 * its stream for text, and round trips through the decoder with models
 * small enough to fill and restart many times. */
static void test_ppmd_encoder(void **state)
{
    (void)state;
    static const uint8_t props[5] = {6, 0, 0, 0, 1};
    static const uint8_t just_a[] = {0x00, 0x40, 0xBF, 0x40, 0xBF, 0x00};
    uint8_t *out, *back;
    size_t n, back_n;
    ppmd_encode(props, (const uint8_t *)"A", 1, &out, &n);
    assert_int_equal(n, sizeof just_a);
    assert_memory_equal(out, just_a, sizeof just_a);
    free(out);
    /* Nothing in: the range coder's flush alone. */
    ppmd_encode(props, NULL, 0, &out, &n);
    assert_int_equal(n, 5);
    free(out);
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_ppmd7_enc *e = NULL;
    assert_int_equal(fz7_ppmd7_enc_new(1, 1u << 20, &mb.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_ppmd7_enc_new(33, 1u << 20, &mb.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_ppmd7_enc_new(6, (1u << 11) - 1, &mb.base, &e), FZ7_E_ARG);
    assert_null(e);
    uint8_t p5[5];
    fz7_ppmd7_enc_props(6, 3u << 20, p5);
    assert_memory_equal(p5, "\x06\x00\x00\x30\x00", 5);

    size_t text_n = 300000;
    uint8_t *text = malloc(text_n);
    assert_non_null(text);
    tu_fill_text(text, text_n, 5);
    static const uint8_t o6_1m[5] = {6, 0, 0, 0x10, 0};
    ppmd_encode(o6_1m, text, text_n, &out, &n);
    /* 7zz 26.02 writes these bytes for this text with -m0=PPMd:o=6:mem=1m. */
    assert_int_equal(n, PPMD_TEXT_PACKED);
    assert_int_equal(fz7_crc32(0, out, n), PPMD_TEXT_CRC);
    free(out);

    static const uint8_t orders[] = {2, 3, 6, 16, 32};
    static const uint32_t mems[] = {1u << 11, 1u << 12, 1u << 16, 1u << 20};
    uint32_t seed = 31;
    for (int round = 0; round < 20; round++) {
        uint8_t pr[5];
        fz7_ppmd7_enc_props(orders[round % 5], mems[(round / 5) % 4], pr);
        /* Text with runs of random bytes and of one byte. */
        size_t len = 20000 + tu_lcg(&seed) % 60000;
        uint8_t *buf = malloc(len);
        assert_non_null(buf);
        tu_fill_text(buf, len, (uint32_t)round);
        for (size_t at = tu_lcg(&seed) % len, k = 0; k < 3000 && at + k < len; k++)
            buf[at + k] = (uint8_t)tu_lcg(&seed);
        memset(buf + tu_lcg(&seed) % (len - 2000), 0xEE, 2000);
        ppmd_encode(pr, buf, len, &out, &n);
        assert_int_equal(decode(K_PPMD, out, n, pr, len, 1 << 16, &back, &back_n), FZ7_OK);
        if (back_n != len || memcmp(back, buf, len) != 0)
            fail_msg("PPMd round trip %d (o%u, %u bytes of model): differs", round, pr[0], fz7_get32le(pr + 1));
        free(back);
        free(out);
        free(buf);
    }
    free(text);
}

/* The Deflate and Deflate64 encoders, read back by fz7's decoder: text,
 * random bytes, zeros, repeats at Deflate64-only distances, one byte, a
 * few bytes above 143 (a fixed-Huffman block of 9-bit literals) and
 * nothing, at levels 1, 5 and 9; the same stream whatever the write
 * sizes; a pinned size and CRC for text at -mx5. */
static void deflate_encode(int level, bool d64, const uint8_t *src, size_t n, size_t piece, uint8_t **out,
                           size_t *out_n)
{
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_deflate_enc *e = NULL;
    assert_int_equal(fz7_deflate_enc_new(level, d64, &mb.base, &e), FZ7_OK);
    for (size_t at = 0; at < n; at += piece)
        assert_int_equal(fz7_deflate_enc_write(e, src + at, n - at < piece ? n - at : piece), FZ7_OK);
    assert_int_equal(fz7_deflate_enc_finish(e), FZ7_OK);
    assert_int_equal(fz7_deflate_enc_bytes_out(e), mb.n);
    fz7_deflate_enc_free(e);
    *out = mb.p;
    *out_n = mb.n;
}

static void test_deflate_encoder(void **state)
{
    (void)state;
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_deflate_enc *bad = NULL;
    assert_int_equal(fz7_deflate_enc_new(0, false, &mb.base, &bad), FZ7_E_ARG);
    assert_int_equal(fz7_deflate_enc_new(10, true, &mb.base, &bad), FZ7_E_ARG);
    assert_null(bad);
    size_t n = 400000;
    /* Kinds 6 and 7 are longer than the encoder's input buffer of 32
     * windows: its slides keep the window before the position. */
    uint8_t *kinds[8];
    size_t lens[8] = {n, 150000, 200000, 3 * 50000, 1, 12, 2400000, 3 << 20};
    for (int k = 0; k < 8; k++) {
        kinds[k] = malloc(lens[k]);
        assert_non_null(kinds[k]);
    }
    tu_fill_text(kinds[0], n, 9);
    uint32_t seed = 3;
    for (size_t i = 0; i < lens[1]; i++)
        kinds[1][i] = (uint8_t)tu_lcg(&seed);
    memset(kinds[2], 0, lens[2]);
    /* 50000 random bytes three times: matches at distance 50000, which
     * only Deflate64 reaches. */
    for (size_t i = 0; i < 50000; i++)
        kinds[3][i] = (uint8_t)tu_lcg(&seed);
    memcpy(kinds[3] + 50000, kinds[3], 50000);
    memcpy(kinds[3] + 100000, kinds[3], 50000);
    kinds[4][0] = 'A';
    memcpy(kinds[5], "\xea\xd0\xe1\xf3\xe1\xd7\xea\x43\x90\xff\x80\x91", 12);
    tu_fill_text(kinds[6], lens[6], 5);
    memset(kinds[7], 0, lens[7]);
    static const int levels[] = {1, 5, 9};
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 9; k++)
            for (int l = 0; l < 3; l++) {
                if ((k == 6 && l > 0) || (k == 7 && l == 2))
                    continue;   /* the long inputs: the slides are the hash chains' (the tree keeps its own bytes) */
                const uint8_t *src = k < 8 ? kinds[k] : (const uint8_t *)"";
                size_t len = k < 8 ? lens[k] : 0;
                uint8_t *out, *again, *back;
                size_t out_n, again_n, back_n;
                deflate_encode(levels[l], v, src, len, len ? len : 1, &out, &out_n);
                deflate_encode(levels[l], v, src, len, 4097, &again, &again_n);
                assert_int_equal(again_n, out_n);
                assert_memory_equal(again, out, out_n);
                assert_int_equal(decode(v ? K_DEFLATE64 : K_DEFLATE, out, out_n, NULL, 0, 1 << 16, &back, &back_n),
                                 FZ7_OK);
                if (back_n != len || memcmp(back, src, len) != 0)
                    fail_msg("Deflate%s level %d, input %d: round trip differs", v ? "64" : "", levels[l], k);
                /* Stored where nothing else is smaller: random bytes grow
                 * by the 5 header bytes of a block (of 16383 symbols). */
                if (k == 1)
                    assert_true(out_n <= len + 5 * (len / 16383 + 1) + 1);
                if (k == 3 && l == 1)
                    assert_true(v ? out_n < 60000 : out_n > 100000);
                if (k == 0 && l == 1 && !v) {
                    assert_int_equal(out_n, DEFLATE_TEXT_PACKED);
                    assert_int_equal(fz7_crc32(0, out, out_n), DEFLATE_TEXT_CRC);
                }
                free(out);
                free(again);
                free(back);
            }
    for (int k = 0; k < 8; k++)
        free(kinds[k]);
}

/* Deflate's fb=, mc=, pass= and a= change the stream: the pinned sizes of
 * 120000 bytes of text at level 5 (fz7's own streams; fb above the
 * longest match is that match); every setting round-trips whatever the
 * write sizes, on text, noise, zeros and repeats, in both variants, and
 * pass >= 2 is never larger than pass=1. */
/* A restarted encoder codes a stream as a new one does, whatever came
 * before it (a zip's entries share one encoder). */
static void test_deflate_encoder_restart(void **state)
{
    (void)state;
    size_t n = 300000;
    uint8_t *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    /* text of the same words first: what a restart left of it would give
     * the second stream matches a new encoder does not see */
    tu_fill_text(a, n, 3);
    tu_fill_text(b, n, 11);
    const int levels[] = {1, 3, 5, 9};
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        for (int v = 0; v < 2; v++) {
            const size_t sizes[] = {0, 2, 100, 70000, 300000};
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                uint8_t *fresh = NULL;
                size_t fresh_n = 0;
                deflate_encode(levels[l], v, b, sizes[k], 4096, &fresh, &fresh_n);
                fz7_membuf mb;
                fz7_membuf_init(&mb);
                fz7_deflate_enc *e = NULL;
                assert_int_equal(fz7_deflate_enc_new(levels[l], v, &mb.base, &e), FZ7_OK);
                assert_int_equal(fz7_deflate_enc_write(e, a, n - 1000 * k), FZ7_OK);
                assert_int_equal(fz7_deflate_enc_finish(e), FZ7_OK);
                size_t first = mb.n;
                fz7_deflate_enc_restart(e);
                assert_int_equal(fz7_deflate_enc_write(e, b, sizes[k]), FZ7_OK);
                assert_int_equal(fz7_deflate_enc_finish(e), FZ7_OK);
                assert_int_equal(mb.n - first, fresh_n);
                assert_memory_equal(mb.p + first, fresh, fresh_n);
                fz7_deflate_enc_free(e);
                fz7_membuf_free(&mb);
                free(fresh);
            }
        }
    }
    free(a);
    free(b);
}

static size_t deflate_opts_size(const fz7_deflate_enc_opts *o, bool d64, const uint8_t *src, size_t n)
{
    fz7_membuf mb, again;
    fz7_membuf_init(&mb);
    fz7_membuf_init(&again);
    fz7_deflate_enc *e = NULL;
    assert_int_equal(fz7_deflate_enc_new_opts(o, d64, &mb.base, &e), FZ7_OK);
    assert_int_equal(fz7_deflate_enc_write(e, src, n), FZ7_OK);
    assert_int_equal(fz7_deflate_enc_finish(e), FZ7_OK);
    fz7_deflate_enc_free(e);
    assert_int_equal(fz7_deflate_enc_new_opts(o, d64, &again.base, &e), FZ7_OK);
    for (size_t at = 0; at < n; at += 4097)
        assert_int_equal(fz7_deflate_enc_write(e, src + at, n - at < 4097 ? n - at : 4097), FZ7_OK);
    assert_int_equal(fz7_deflate_enc_finish(e), FZ7_OK);
    fz7_deflate_enc_free(e);
    assert_int_equal(again.n, mb.n);
    assert_memory_equal(again.p, mb.p, mb.n);
    uint8_t *back;
    size_t back_n;
    assert_int_equal(decode(d64 ? K_DEFLATE64 : K_DEFLATE, mb.p, mb.n, NULL, 0, 1 << 16, &back, &back_n), FZ7_OK);
    if (back_n != n || memcmp(back, src, n) != 0)
        fail_msg("Deflate%s fb=%u mc=%u pass=%u: round trip differs", d64 ? "64" : "", o->nice_len, o->depth,
                 o->passes);
    free(back);
    free(again.p);
    size_t size = mb.n;
    free(mb.p);
    return size;
}

static void test_deflate_encoder_params(void **state)
{
    (void)state;
    enum { TEXT = 120000, NOISE = 60000, ZEROS = 300000 };
    uint8_t *in[4];
    size_t lens[4] = {TEXT, NOISE, ZEROS, 3 * 40000};
    for (int k = 0; k < 4; k++)
        assert_non_null(in[k] = malloc(lens[k]));
    tu_fill_text(in[0], TEXT, 4);
    uint32_t seed = 11;
    for (size_t i = 0; i < NOISE; i++)
        in[1][i] = (uint8_t)tu_lcg(&seed);
    memset(in[2], 0, ZEROS);
    for (size_t i = 0; i < 40000; i++)   /* text with a copy at distance 40000 */
        in[3][i] = (uint8_t)(tu_lcg(&seed) % 16 + 'a');
    memcpy(in[3] + 40000, in[3], 40000);
    memcpy(in[3] + 80000, in[3], 40000);
    /* {fb, mc, pass, a} at level 5 (a shortest-path parse, fb=258, mc=8,
     * pass=1), and the text's size under each, Deflate */
    static const struct { uint32_t fb, mc, pass; fz7_deflate_parse a; size_t text; } cases[] = {
        {0, 0, 0, 0, 5402}, {0, 0, 1, 0, 5402},
        {3, 0, 0, 0, 24129}, {64, 0, 0, 0, 8862}, {258, 0, 0, 0, 5402}, {1000, 0, 0, 0, 5402},
        {0, 1, 0, 0, 17297}, {0, 8, 0, 0, 5402}, {0, 1000, 0, 0, 4685},
        {0, 0, 2, 0, 5298}, {0, 0, 3, 0, 5266}, {0, 0, 10, 0, 5261}, {258, 1000, 5, 0, 4535},
        {0, 0, 0, FZ7_DEFLATE_PARSE_FAST, 20757}, {0, 0, 0, FZ7_DEFLATE_PARSE_OPTIMAL, 5402},
    };
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 4; k++) {
            size_t one = 0;
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
                fz7_deflate_enc_opts o;
                fz7_deflate_enc_opts_level(5, &o);
                o.nice_len = cases[c].fb, o.depth = cases[c].mc, o.passes = cases[c].pass, o.parse = cases[c].a;
                size_t got = deflate_opts_size(&o, v, in[k], lens[k]);
                if (c == 0)
                    one = got;
                if (cases[c].pass >= 2 && got > one)
                    fail_msg("Deflate%s input %d pass=%u: %zu bytes, pass=1 %zu", v ? "64" : "", k, cases[c].pass,
                             got, one);
                if (!v && k == 0 && got != cases[c].text)
                    fail_msg("Deflate text fb=%u mc=%u pass=%u a=%d: %zu bytes, want %zu", cases[c].fb, cases[c].mc,
                             cases[c].pass, (int)cases[c].a, got, cases[c].text);
            }
        }
    for (int k = 0; k < 4; k++)
        free(in[k]);
}

/* The shortest-path parse over many blocks (each block's matches come
 * from a binary tree over the whole stream, its code's costs from the
 * block before, its symbols split in halves): words with a mutated byte
 * every few dozen, written in 64 KiB pieces, decode to themselves in
 * Deflate and Deflate64. (The bench corpus case in add_roundtrip.sh is
 * the one that caught a tree fed only to each block's end.) */
static void test_deflate_encoder_blocks(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    uint8_t *src = malloc(N);
    assert_non_null(src);
    tu_fill_text(src, N, 21);
    uint32_t seed = 5;
    for (size_t i = 0; i < N; i += 16 + tu_lcg(&seed) % 64)
        src[i] = (uint8_t)tu_lcg(&seed);
    for (int v = 0; v < 2; v++) {
        uint8_t *out, *back;
        size_t out_n, back_n;
        deflate_encode(5, v, src, N, 65536, &out, &out_n);
        assert_int_equal(decode(v ? K_DEFLATE64 : K_DEFLATE, out, out_n, NULL, 0, 1 << 16, &back, &back_n), FZ7_OK);
        assert_int_equal(back_n, N);
        if (memcmp(back, src, N) != 0)
            fail_msg("Deflate%s level 5: round trip differs", v ? "64" : "");
        free(out);
        free(back);
    }
    free(src);
}

/* ---- BCJ2 ---- */

static fz7_status bcj2_run(const uint8_t *const s[4], const size_t n[4], uint64_t out_size, size_t piece,
                           uint8_t **out, size_t *out_n)
{
    fz7_istream *in[4], *d = NULL;
    for (int i = 0; i < 4; i++) {
        in[i] = fz7_istream_from_memory(s[i], n[i]);
        assert_non_null(in[i]);
    }
    assert_int_equal(fz7_bcj2_istream_new(in, out_size, &d), FZ7_OK);
    fz7_status st = drain(d, piece, out, out_n);
    fz7_istream_free(d);
    for (int i = 0; i < 4; i++)
        fz7_istream_free(in[i]);
    return st;
}

/* A range-coded stream of all zero bytes decodes every bit as 0 (code 0
 * is below every bound): nothing was converted, the main stream is the
 * output. */
static void test_bcj2_unconverted(void **state)
{
    (void)state;
    static const uint8_t main_s[] = {0x55, 0xE8, 1, 2, 3, 4, 0x0F, 0x84, 9, 9, 9, 9, 0xE9, 0, 0, 0, 0, 0xE8};
    static const uint8_t zeros[16] = {0};
    const uint8_t *s[4] = {main_s, NULL, NULL, zeros};
    size_t n[4] = {sizeof main_s, 0, 0, sizeof zeros};
    uint8_t *out;
    size_t got;
    assert_int_equal(bcj2_run(s, n, sizeof main_s, 1, &out, &got), FZ7_OK);
    assert_int_equal(got, sizeof main_s);
    assert_memory_equal(out, main_s, sizeof main_s);
    free(out);
    /* out_size below the main stream: stops there. */
    assert_int_equal(bcj2_run(s, n, 7, 1 << 10, &out, &got), FZ7_OK);
    assert_int_equal(got, 7);
    free(out);
    /* out_size beyond it: the main stream ends early. */
    assert_int_equal(bcj2_run(s, n, sizeof main_s + 1, 1 << 10, &out, &got), FZ7_E_DATA);
    free(out);
    /* The range coder's stream is too short to start. */
    n[3] = 3;
    assert_int_equal(bcj2_run(s, n, sizeof main_s, 1 << 10, &out, &got), FZ7_E_DATA);
    free(out);
}

/* BCJ2 with its four outputs stored by Copy coders: the pack streams are
 * the raw BCJ2 streams (7zz orders them main, range coder, call, jump). */
static void test_bcj2_streams(void **state)
{
    (void)state;
    NEED_7ZZ();
    char path[512];
    snprintf(path, sizeof path, "%s/in/exe.bin", scratch);
    size_t exe_n, arc_n;
    uint8_t *exe = tu_load(path, &exe_n);
    if (!exe) {
        print_message("SKIP: no executable to convert\n");
        skip();
    }
    uint8_t *arc = make_7z("bcj2copy", "-m0=BCJ2 -m1=Copy -m2=Copy -m3=Copy -mb0s0:1 -mb0s1:2 -mb0s2:3",
                           "in/exe.bin", &arc_n);
    uint64_t off[8], size[8];
    assert_int_equal(pack_streams(arc, arc_n, off, size), 4);
    const uint8_t *s[4] = {arc + off[0], arc + off[2], arc + off[3], arc + off[1]};
    size_t n[4] = {(size_t)size[0], (size_t)size[2], (size_t)size[3], (size_t)size[1]};
    /* Conversions happened: the call stream is not empty. */
    assert_true(n[1] > 1000);
    static const size_t pieces[] = {1, 5, 1 << 16};
    for (size_t i = 0; i < 3; i++) {
        uint8_t *out;
        size_t got;
        assert_int_equal(bcj2_run(s, n, exe_n, pieces[i], &out, &got), FZ7_OK);
        assert_int_equal(got, exe_n);
        assert_memory_equal(out, exe, exe_n);
        free(out);
    }
    /* A call stream cut short. */
    n[1] -= 4;
    uint8_t *out;
    size_t got;
    assert_int_equal(bcj2_run(s, n, exe_n, 1 << 16, &out, &got), FZ7_E_DATA);
    assert_true(got < exe_n);
    free(out);
    free(arc);
    free(exe);
}

/* ---- Through the 7z reader ---- */

typedef struct {
    const char *dir;        /* compare with files below it, or NULL */
    fz7_sha256 sha;
    uint8_t *data;
    size_t len, cap;
    int files, bad;
    char path[1024];
    struct {
        char path[1024];
        char sha[65];
        uint64_t size;
        fz7_status st;
    } got[64];
    int n_got;
} sink;

static fz7_status s_begin(void *ctx, size_t index, const fz7_entry *e)
{
    sink *k = ctx;
    (void)index;
    snprintf(k->path, sizeof k->path, "%s", e->path);
    k->len = 0;
    fz7_sha256_init(&k->sha);
    return FZ7_OK;
}

static fz7_status s_data(void *ctx, const uint8_t *p, size_t n)
{
    sink *k = ctx;
    fz7_sha256_update(&k->sha, p, n);
    if (k->len + n > k->cap) {
        k->cap = 2 * (k->len + n);
        k->data = realloc(k->data, k->cap);
        assert_non_null(k->data);
    }
    memcpy(k->data + k->len, p, n);
    k->len += n;
    return FZ7_OK;
}

static fz7_status s_end(void *ctx, size_t index, fz7_status result, const char *detail)
{
    sink *k = ctx;
    (void)index;
    uint8_t d[32];
    fz7_sha256_final(&k->sha, d);
    if (k->n_got < 64) {
        snprintf(k->got[k->n_got].path, sizeof k->got[0].path, "%s", k->path);
        for (int i = 0; i < 32; i++)
            sprintf(k->got[k->n_got].sha + 2 * i, "%02x", d[i]);
        k->got[k->n_got].size = k->len;
        k->got[k->n_got].st = result;
        k->n_got++;
    }
    if (result != FZ7_OK) {
        print_message("%s: status %d (%s)\n", k->path, result, detail ? detail : "");
        k->bad++;
        return FZ7_OK;
    }
    if (k->dir) {
        char full[2048];
        size_t n;
        snprintf(full, sizeof full, "%s/%s", k->dir, k->path);
        uint8_t *want = tu_load(full, &n);
        if (!want) {
            k->bad++;
            return FZ7_OK;
        }
        if (n != k->len || memcmp(want, k->data, n) != 0) {
            print_message("%s: content differs (%zu bytes, expected %zu)\n", k->path, k->len, n);
            k->bad++;
        }
        free(want);
        k->files++;
    }
    return FZ7_OK;
}

/* Opens and extracts path; per-entry results land in k. */
static fz7_status extract_all(const char *path, sink *k)
{
    fz7_archive *a = NULL;
    char err[256];
    fz7_status st = fz7_archive_open(path, NULL, &a, err, sizeof err);
    if (st != FZ7_OK)
        return st;
    fz7_extract_cb cb = {k, s_begin, s_data, s_end, NULL};
    st = fz7_archive_extract(a, NULL, &cb, err, sizeof err);
    fz7_archive_close(a);
    return st;
}

static void archive_method(const char *switches, int want_files)
{
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/made.7z", scratch);
    snprintf(cmd, sizeof cmd, "cd %s/in && rm -f %s && 7zz a %s %s text.txt rep40k.bin random.bin $(ls exe.bin 2>/dev/null) > /dev/null",
             scratch, path, switches, path);
    assert_int_equal(system(cmd), 0);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/in", scratch);
    sink k = {.dir = dir};
    assert_int_equal(extract_all(path, &k), FZ7_OK);
    if (k.bad || k.files < want_files)
        fail_msg("%s: %d bad entries, %d files checked", switches, k.bad, k.files);
    free(k.data);

    /* The archive cut inside its packed data: the entries report errors. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    size_t n;
    uint8_t *arc = tu_load(path, &n);
    uint64_t next = fz7_get64le(arc + 12);
    /* Keep the headers, damage the middle of the packed data. */
    for (size_t i = 32 + next / 2; i < 32 + next / 2 + 64 && i < 32 + next; i++)
        arc[i] ^= 0x5A;
    tu_save(path, arc, n);
    free(arc);
    sink bad = {.dir = dir};
    fz7_status st2 = extract_all(path, &bad);
    assert_int_equal(st2, FZ7_OK);
    if (bad.bad == 0)
        fail_msg("%s: damaged packed data extracted without an error", switches);
    free(bad.data);
}

static void test_archives(void **state)
{
    (void)state;
    NEED_7ZZ();
    int files = exe_path() ? 4 : 3;
    archive_method("-m0=Deflate", files);
    archive_method("-m0=Deflate64", files);
    archive_method("-m0=BZip2", files);
    archive_method("-m0=PPMd:o=6:mem=16m", files);
    archive_method("-m0=PPMd:o=16:mem=1m -ms=off", files);
    archive_method("-mf=BCJ2", files);
    archive_method("-mf=BCJ2 -m0=Deflate -ms=off", files);
}

/* ---- RISC-V ---- */

/* RISC-V-like code (fixed seed): JAL ra, AUIPC+JALR pairs, byte
 * sequences that look like the filter's special AUIPC x2 form, and
 * 16-bit filler. */
static size_t make_riscv(uint8_t *p, size_t n)
{
    static const unsigned regs[] = {1, 5, 6, 10, 11, 15};
    uint32_t seed = 5;
    size_t o = 0;
    while (o + 8 <= n) {
        unsigned k = tu_lcg(&seed) % 100;
        if (k < 20) {
            uint32_t off = (tu_lcg(&seed) << 1) & 0x1FFFFEu;
            uint32_t inst = 0x6Fu | (1u << 7) | (((off >> 20) & 1u) << 31) | (((off >> 1) & 0x3FFu) << 21) |
                            (((off >> 11) & 1u) << 20) | (((off >> 12) & 0xFFu) << 12);
            fz7_put32le(p + o, inst);
            o += 4;
        } else if (k < 40) {
            unsigned rd = regs[tu_lcg(&seed) % 6];
            fz7_put32le(p + o, 0x17u | (rd << 7) | ((tu_lcg(&seed) & 0xFFFFFu) << 12));
            fz7_put32le(p + o + 4, 0x67u | (rd << 15) | ((tu_lcg(&seed) & 0xFFFu) << 20) | ((tu_lcg(&seed) & 1u) << 7));
            o += 8;
        } else if (k < 45) {
            static const unsigned rs1s[] = {1, 3, 5, 8};
            fz7_put32le(p + o, 0x17u | (2u << 7) | (3u << 12) | ((tu_lcg(&seed) & 0x1FFFu) << 14) |
                                   (rs1s[tu_lcg(&seed) % 4] << 27));
            fz7_put32le(p + o + 4, tu_lcg(&seed) ^ (tu_lcg(&seed) << 16));
            o += 8;
        } else {
            p[o++] = (uint8_t)tu_lcg(&seed);
            p[o++] = (uint8_t)tu_lcg(&seed);
        }
    }
    return o;
}

/* 7zz's RISCV filter stored by Copy: the pack stream is the filtered
 * data; decoding gives the input back at any read size. */
static void test_riscv(void **state)
{
    (void)state;
    uint8_t *out;
    size_t got;
    /* Less than one pair: passes through unchanged. */
    static const uint8_t short_in[7] = {0xEF, 0x00, 0x12, 0x34, 0x17, 0x05, 0x00};
    fz7_istream *in = fz7_istream_from_memory(short_in, sizeof short_in), *d = NULL;
    assert_int_equal(fz7_bcj_riscv_istream_new(in, 1, &d), FZ7_E_ARG);
    assert_int_equal(fz7_bcj_riscv_istream_new(in, 0, &d), FZ7_OK);
    assert_int_equal(drain(d, 3, &out, &got), FZ7_OK);
    assert_int_equal(got, sizeof short_in);
    assert_memory_equal(out, short_in, sizeof short_in);
    free(out);
    fz7_istream_free(d);
    fz7_istream_free(in);

    NEED_7ZZ();
    size_t cap = 300000, arc_n;
    uint8_t *src = malloc(cap);
    assert_non_null(src);
    size_t n = make_riscv(src, cap);
    char path[512];
    snprintf(path, sizeof path, "%s/in/riscv.bin", scratch);
    tu_save(path, src, n);
    uint8_t *arc = make_7z("riscv", "-m0=RISCV -m1=Copy", "in/riscv.bin", &arc_n);
    uint64_t off[8], size[8];
    assert_int_equal(pack_streams(arc, arc_n, off, size), 1);
    assert_int_equal(size[0], n);
    assert_true(memcmp(arc + off[0], src, n) != 0);   /* the filter changed things */
    /* fz7's encoder gives 7zz's bytes. */
    uint8_t *enc = malloc(n);
    assert_non_null(enc);
    memcpy(enc, src, n);
    fz7_bcj_riscv_state es = {0};
    fz7_bcj_riscv_encode(&es, enc, n);
    assert_memory_equal(enc, arc + off[0], n);
    free(enc);
    static const size_t pieces[] = {1, 7, 1 << 16};
    for (size_t i = 0; i < 3; i++) {
        in = fz7_istream_from_memory(arc + off[0], n);
        assert_int_equal(fz7_bcj_riscv_istream_new(in, 0, &d), FZ7_OK);
        assert_int_equal(drain(d, pieces[i], &out, &got), FZ7_OK);
        assert_int_equal(got, n);
        assert_memory_equal(out, src, n);
        free(out);
        fz7_istream_free(d);
        fz7_istream_free(in);
    }
    free(arc);
    free(src);

    /* The same through the 7z reader: RISCV + LZMA2. */
    char cmd[1024], dir[512];
    snprintf(cmd, sizeof cmd, "cd %s/in && rm -f ../rv.7z && 7zz a -mf=RISCV ../rv.7z riscv.bin > /dev/null", scratch);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/rv.7z", scratch);
    snprintf(dir, sizeof dir, "%s/in", scratch);
    sink k = {.dir = dir};
    assert_int_equal(extract_all(path, &k), FZ7_OK);
    assert_int_equal(k.bad, 0);
    assert_int_equal(k.files, 1);
    free(k.data);
}

/* ---- The shared corpus ---- */

static const char *corpus_dir(void) { return tu_shared_dir("corpus/7z"); }

/* Every file row of expected/<name>.tsv matches an extracted entry (path,
 * size, SHA-256), and every extracted file is listed. */
static bool corpus_row(const char *dir, const char *name)
{
    char path[4500], line[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sink k = {0};
    fz7_status st = extract_all(path, &k);
    free(k.data);
    if (st != FZ7_OK || k.bad) {
        print_message("FAIL %s: status %d, %d entries failed\n", name, st, k.bad);
        return false;
    }
    snprintf(path, sizeof path, "%s/expected/%s.tsv", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    int rows = 0, matched = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] != 'f')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        strtok(line, "\t");
        char *p = strtok(NULL, "\t"), *size = strtok(NULL, "\t"), *sha = strtok(NULL, "\t");
        if (!p || !size || !sha)
            break;
        rows++;
        for (int i = 0; i < k.n_got; i++) {
            const char *g = k.got[i].path + strspn(k.got[i].path, "/");
            if (strcmp(g, p) == 0 && k.got[i].size == strtoull(size, NULL, 10) && strcmp(k.got[i].sha, sha) == 0)
                matched++;
        }
    }
    fclose(f);
    bool ok = rows > 0 && matched == rows;
    if (!ok)
        print_message("FAIL %s: %d of %d files match\n", name, matched, rows);
    return ok;
}

static void test_corpus(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/7z) is missing\n");
        skip();
    }
    static const char *const rows[] = {
        "bzip2_2.7z",         "deflate.7z",         "deflate64.7z",      "la_ppmd.7z",
        "ppmd.7z",            "la_bcj2_lzma2_1.7z", "lzma2bcj2.7z",      "lzma_bcj2_1.7z",
        "lzma2_bcj_arm.7z",   "lzma2_bcj_ia64.7z",  "lzma2_bcj_ppc.7z",  "lzma2_bcj_sparc.7z",
        "lzma_bcj_armt.7z",
    };
    int passed = 0, n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) {
        bool ok = corpus_row(dir, rows[i]);
        print_message("%s %s\n", ok ? "pass" : "FAIL", rows[i]);
        passed += ok;
    }
    print_message("codec corpus rows: %d of %d pass\n", passed, n);
    assert_int_equal(passed, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deflate_vectors),
        cmocka_unit_test(test_deflate_random),
        cmocka_unit_test(test_deflate64_expansion),
        cmocka_unit_test(test_ppmd_props),
        cmocka_unit_test(test_ppmd_vectors),
        cmocka_unit_test(test_ppmd_encoder),
        cmocka_unit_test(test_deflate_encoder),
        cmocka_unit_test(test_deflate_encoder_restart),
        cmocka_unit_test(test_deflate_encoder_params),
        cmocka_unit_test(test_deflate_encoder_blocks),
        cmocka_unit_test(test_bcj2_unconverted),
        cmocka_unit_test(test_random_streams),
        cmocka_unit_test(test_raw_deflate),
        cmocka_unit_test(test_raw_deflate64),
        cmocka_unit_test(test_raw_bzip2),
        cmocka_unit_test(test_bzip2_streams),
        cmocka_unit_test(test_raw_ppmd),
        cmocka_unit_test(test_bcj2_streams),
        cmocka_unit_test(test_riscv),
        cmocka_unit_test(test_archives),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
