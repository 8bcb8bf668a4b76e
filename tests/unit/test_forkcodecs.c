/* test_forkcodecs.c - the 7-Zip-zstd fork's methods (ZSTD, LZ4, BROTLI)
 * and the xz RISC-V filter: raw streams made at test time by the zstd, lz4
 * and brotli tools (with brotli-mt frames built here), damaged, cut and
 * mis-sized inputs, 7z archives written here around each method, the
 * corpus rows zstd.7z and encrypted_5.7z, and an xz file built here around
 * 7zz's RISCV filter output. Missing tools or libraries skip visibly. */
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
#include "format/archive.h"
#include "test_util.h"

static char scratch[256];
static uint8_t *data1, *data2;       /* test inputs */
static size_t data1_n, data2_n;

/* ---- Helpers ---- */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Text-like runs mixed with random bytes (fixed seed). */
static uint8_t *make_data(size_t n, uint32_t seed)
{
    static const char *const words[] = {"folder ", "coder ", "stream ", "frame ", "window ",
                                        "literal ", "match ", "\n"};
    uint8_t *p = malloc(n);
    assert_non_null(p);
    size_t o = 0;
    while (o < n) {
        if (lcg(&seed) % 8 == 0) {
            size_t k = 1 + lcg(&seed) % 300;
            for (; k > 0 && o < n; k--)
                p[o++] = (uint8_t)lcg(&seed);
        } else {
            const char *w = words[lcg(&seed) % 8];
            for (; *w && o < n; w++)
                p[o++] = (uint8_t)*w;
        }
    }
    return p;
}

static bool have_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", name);
    return system(cmd) == 0;
}

#define NEED(lib_ok, lib, tool)                                                      \
    do {                                                                             \
        if (!(lib_ok)) {                                                             \
            print_message("SKIP: fz7 built without " lib "\n");                     \
            skip();                                                                  \
        }                                                                            \
        if ((tool) && !have_tool(tool)) {                                            \
            print_message("SKIP: the %s tool is not installed\n", (const char *)(tool)); \
            skip();                                                                  \
        }                                                                            \
    } while (0)

/* Runs a shell command in the scratch folder; it must succeed. */
static void sh(const char *fmt, ...)
{
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "cd %s && ", scratch);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

static uint8_t *load_scratch(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return tu_load_existing(path, n);
}

typedef enum { K_ZSTD, K_LZ4, K_BROTLI } kind;

static const uint8_t props5[5] = {1, 5, 3, 0, 0};

/* Decodes packed[0..n) with the decoder of kind k, reading at most piece
 * bytes per call; returns the status that ended it and the output. */
static fz7_status decode(kind k, const uint8_t *packed, size_t n, uint64_t out_size,
                         uint64_t mem_limit, size_t piece, uint8_t **out, size_t *got)
{
    fz7_istream *in = fz7_istream_from_memory(packed, n), *d = NULL;
    assert_non_null(in);
    fz7_status st;
    if (k == K_ZSTD)
        st = fz7_zstd_istream_new(in, props5, 5, out_size, mem_limit, &d);
    else if (k == K_LZ4)
        st = fz7_lz4_istream_new(in, props5, 5, out_size, mem_limit, &d);
    else
        st = fz7_brotli_istream_new(in, props5, 3, out_size, mem_limit, &d);
    size_t cap = (size_t)out_size + piece + 1, len = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    while (st == FZ7_OK) {
        size_t want = cap - len < piece ? cap - len : piece, n_got = 0;
        st = d->read(d, buf + len, want, &n_got);
        if (st == FZ7_OK && n_got == 0)
            break;
        len += n_got;
        assert_true(len < cap);
    }
    fz7_istream_free(d);
    fz7_istream_free(in);
    *out = buf;
    *got = len;
    return st;
}

/* The decoded bytes equal want[0..want_n) at several read sizes. */
static void expect_decodes(kind k, const uint8_t *packed, size_t n, const uint8_t *want,
                           size_t want_n)
{
    static const size_t pieces[] = {1, 7, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        if (pieces[i] == 1 && want_n > 100000)
            continue;   /* byte by byte only for the small ones */
        uint8_t *out;
        size_t got;
        fz7_status st = decode(k, packed, n, want_n, 0, pieces[i], &out, &got);
        if (st != FZ7_OK)
            fail_msg("kind %d piece %zu: status %d (%s)", k, pieces[i], st, fz7_status_str(st));
        assert_int_equal(got, want_n);
        assert_memory_equal(out, want, want_n);
        free(out);
    }
}

static fz7_status decode_status(kind k, const uint8_t *packed, size_t n, uint64_t out_size,
                                uint64_t mem_limit)
{
    uint8_t *out;
    size_t got;
    fz7_status st = decode(k, packed, n, out_size, mem_limit, 65536, &out, &got);
    free(out);
    return st;
}

static uint8_t *concat(const uint8_t *a, size_t an, const uint8_t *b, size_t bn, size_t *n)
{
    uint8_t *p = malloc(an + bn + 1);
    assert_non_null(p);
    memcpy(p, a, an);
    memcpy(p + an, b, bn);
    *n = an + bn;
    return p;
}

/* The cases every method shares: cut, damaged, garbage after the frames,
 * wrong unpack sizes. */
static void common_damage(kind k, const uint8_t *packed, size_t n, const uint8_t *want,
                          size_t want_n)
{
    (void)want;
    assert_int_equal(decode_status(k, packed, n, want_n - 1, 0), FZ7_E_DATA);
    assert_int_equal(decode_status(k, packed, n, want_n + 1, 0), FZ7_E_DATA);
    assert_int_equal(decode_status(k, packed, n / 2, want_n, 0), FZ7_E_TRUNCATED);
    assert_int_equal(decode_status(k, packed, n - 1, want_n, 0), FZ7_E_TRUNCATED);
    assert_int_equal(decode_status(k, packed, 0, want_n, 0), k == K_BROTLI ? FZ7_E_TRUNCATED : FZ7_E_DATA);
    size_t gn;
    uint8_t *g = concat(packed, n, (const uint8_t *)"garbage!", 8, &gn);
    assert_int_equal(decode_status(k, g, gn, want_n, 0), FZ7_E_DATA);
    free(g);
    /* One byte changed at many places: never OK with the right bytes...
     * an error or (for a change the format cannot see) different data;
     * with the content checksums the tools write, always an error. */
    uint8_t *bad = malloc(n);
    assert_non_null(bad);
    int errors = 0, tries = 0;
    for (size_t at = 16; at < n; at += n / 23 + 1, tries++) {
        memcpy(bad, packed, n);
        bad[at] ^= 0x24;
        uint8_t *out;
        size_t got;
        fz7_status st = decode(k, bad, n, want_n, 0, 65536, &out, &got);
        if (st == FZ7_OK)
            assert_true(got != want_n || memcmp(out, want, want_n) != 0);
        else
            errors++;
        free(out);
    }
    if (k != K_BROTLI)
        assert_int_equal(errors, tries);
    else
        assert_true(errors > 0);
    free(bad);
}

/* Every proper prefix of a small stream fails (cut or corrupt), never
 * decodes; garbage behind it fails too. */
static void every_cut(kind k, const char *make_cmd, const char *name)
{
    sh("head -c 3000 d2 > small && %s", make_cmd);
    size_t n;
    uint8_t *z = load_scratch(name, &n);
    for (size_t cut = 0; cut < n; cut++) {
        fz7_status st = decode_status(k, z, cut, 3000, 0);
        if (st != FZ7_E_TRUNCATED && st != FZ7_E_DATA)
            fail_msg("%s cut at %zu of %zu: status %d", name, cut, n, st);
    }
    assert_int_equal(decode_status(k, z, n, 3000, 0), FZ7_OK);
    free(z);
}

/* ---- Fixtures ---- */

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/fz7_test_forkcodecs_XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    data1_n = 300000;
    data1 = make_data(data1_n, 7);
    data2_n = 70001;
    data2 = make_data(data2_n, 11);
    char path[512];
    snprintf(path, sizeof path, "%s/d1", scratch);
    tu_save(path, data1, data1_n);
    snprintf(path, sizeof path, "%s/d2", scratch);
    tu_save(path, data2, data2_n);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
    if (system(cmd) != 0)
        return -1;
    free(data1);
    free(data2);
    return 0;
}

/* ---- Properties and limits ---- */

static void test_props(void **state)
{
    (void)state;
    static const uint8_t in_bytes[1] = {0};
    fz7_istream *in = fz7_istream_from_memory(in_bytes, 0), *d = (fz7_istream *)1;
    assert_int_equal(fz7_zstd_istream_new(in, props5, 4, 1, 0, &d), FZ7_E_UNSUPPORTED);
    assert_null(d);
    assert_int_equal(fz7_lz4_istream_new(in, props5, 0, 1, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_brotli_istream_new(in, props5, 1, 1, 0, &d), FZ7_E_UNSUPPORTED);
    if (fz7_zstd_supported()) {
        assert_int_equal(fz7_zstd_istream_new(in, props5, 5, 1, (uint64_t)512 << 10, &d), FZ7_E_MEMLIMIT);
        assert_int_equal(fz7_zstd_istream_new(in, props5, 3, 1, 0, &d), FZ7_OK);
        fz7_istream_free(d);
    }
    if (fz7_lz4_supported()) {
        assert_int_equal(fz7_lz4_istream_new(in, props5, 5, 1, (uint64_t)8 << 20, &d), FZ7_E_MEMLIMIT);
        assert_int_equal(fz7_lz4_istream_new(in, props5, 5, 1, (uint64_t)9 << 20, &d), FZ7_OK);
        fz7_istream_free(d);
    }
    fz7_istream_free(in);
    print_message("libraries: zstd %d, lz4 %d, brotli %d\n", fz7_zstd_supported(),
                  fz7_lz4_supported(), fz7_brotli_supported());
}

/* ---- zstd ---- */

/* A skippable frame (magic 0x184D2A5x, LE32 size, content). */
static const uint8_t skippable[12] = {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 9, 8, 7, 6};

static void test_zstd_raw(void **state)
{
    (void)state;
    NEED(fz7_zstd_supported(), "libzstd", "zstd");
    sh("zstd -q -f -3 d1 -o d1.zst && zstd -q -f -19 d2 -o d2.zst");
    sh("zstd -q -c --long=27 < d2 > d2long.zst");
    size_t n1, n2, nl;
    uint8_t *z1 = load_scratch("d1.zst", &n1), *z2 = load_scratch("d2.zst", &n2);
    uint8_t *zl = load_scratch("d2long.zst", &nl);
    expect_decodes(K_ZSTD, z1, n1, data1, data1_n);
    expect_decodes(K_ZSTD, z2, n2, data2, data2_n);

    /* Frames back to back with skippable frames around them, as the fork's
     * multi-threaded encoder writes. */
    size_t an, bn, cn, wn;
    uint8_t *a = concat(skippable, 12, z1, n1, &an);
    uint8_t *b = concat(a, an, skippable, 12, &bn);
    uint8_t *c = concat(b, bn, z2, n2, &cn);
    uint8_t *want = concat(data1, data1_n, data2, data2_n, &wn);
    expect_decodes(K_ZSTD, c, cn, want, wn);
    size_t dn;
    uint8_t *d = concat(c, cn, skippable, 12, &dn);
    expect_decodes(K_ZSTD, d, dn, want, wn);
    free(a), free(b), free(c), free(d), free(want);

    common_damage(K_ZSTD, z1, n1, data1, data1_n);
    every_cut(K_ZSTD, "zstd -q -f small -o small.zst", "small.zst");

    /* A 128 MiB window (no content size: from a pipe) against the limit. */
    assert_int_equal(decode_status(K_ZSTD, zl, nl, data2_n, (uint64_t)64 << 20), FZ7_E_MEMLIMIT);
    assert_int_equal(decode_status(K_ZSTD, zl, nl, data2_n, (uint64_t)130 << 20), FZ7_OK);
    expect_decodes(K_ZSTD, zl, nl, data2, data2_n);
    free(z1), free(z2), free(zl);
}

/* ---- LZ4 ---- */

static void test_lz4_raw(void **state)
{
    (void)state;
    NEED(fz7_lz4_supported(), "liblz4", "lz4");
    sh("lz4 -q -f -9 d1 d1.lz4 && lz4 -q -f -1 -B4 -BD --content-size d2 d2.lz4");
    size_t n1, n2;
    uint8_t *z1 = load_scratch("d1.lz4", &n1), *z2 = load_scratch("d2.lz4", &n2);
    expect_decodes(K_LZ4, z1, n1, data1, data1_n);
    expect_decodes(K_LZ4, z2, n2, data2, data2_n);
    size_t an, bn, cn, wn;
    uint8_t *a = concat(skippable, 12, z1, n1, &an);
    uint8_t *b = concat(a, an, skippable, 12, &bn);
    uint8_t *c = concat(b, bn, z2, n2, &cn);
    uint8_t *want = concat(data1, data1_n, data2, data2_n, &wn);
    expect_decodes(K_LZ4, c, cn, want, wn);
    free(a), free(b), free(c), free(want);
    common_damage(K_LZ4, z1, n1, data1, data1_n);
    common_damage(K_LZ4, z2, n2, data2, data2_n);
    every_cut(K_LZ4, "lz4 -q -f small small.lz4", "small.lz4");
    free(z1), free(z2);
}

/* ---- Brotli ---- */

/* Wraps a brotli stream in a brotli-mt frame header. */
static uint8_t *mt_frame(const uint8_t *s, size_t n, size_t raw_n, size_t *out_n)
{
    uint8_t h[16];
    fz7_put32le(h, 0x184D2A50u);
    fz7_put32le(h + 4, 8);
    fz7_put32le(h + 8, (uint32_t)n);
    h[12] = 'B';
    h[13] = 'R';
    h[14] = (uint8_t)((raw_n >> 16) + 1);
    h[15] = (uint8_t)(((raw_n >> 16) + 1) >> 8);
    return concat(h, 16, s, n, out_n);
}

static void test_brotli_raw(void **state)
{
    (void)state;
    NEED(fz7_brotli_supported(), "libbrotlidec", "brotli");
    sh("brotli -f -q 9 -w 24 d1 -o d1.br && brotli -f -q 5 d2 -o d2.br");
    size_t n1, n2;
    uint8_t *z1 = load_scratch("d1.br", &n1), *z2 = load_scratch("d2.br", &n2);
    /* One plain stream (no framing). */
    expect_decodes(K_BROTLI, z1, n1, data1, data1_n);
    expect_decodes(K_BROTLI, z2, n2, data2, data2_n);
    common_damage(K_BROTLI, z1, n1, data1, data1_n);
    every_cut(K_BROTLI, "brotli -f small -o small.br", "small.br");
    /* Two plain streams back to back: the plain form holds one. */
    size_t pn;
    uint8_t *pp = concat(z1, n1, z2, n2, &pn);
    assert_int_equal(decode_status(K_BROTLI, pp, pn, data1_n + data2_n, 0), FZ7_E_DATA);
    free(pp);

    /* brotli-mt: each stream behind its frame header. */
    size_t f1n, f2n, fn, wn;
    uint8_t *f1 = mt_frame(z1, n1, data1_n, &f1n), *f2 = mt_frame(z2, n2, data2_n, &f2n);
    uint8_t *f = concat(f1, f1n, f2, f2n, &fn);
    uint8_t *want = concat(data1, data1_n, data2, data2_n, &wn);
    expect_decodes(K_BROTLI, f1, f1n, data1, data1_n);
    expect_decodes(K_BROTLI, f, fn, want, wn);
    assert_int_equal(decode_status(K_BROTLI, f, fn - 1, wn, 0), FZ7_E_TRUNCATED);
    assert_int_equal(decode_status(K_BROTLI, f, f1n + 10, wn, 0), FZ7_E_TRUNCATED);
    assert_int_equal(decode_status(K_BROTLI, f, fn, wn + 1, 0), FZ7_E_DATA);
    /* Header fields: "BR", the skippable size, the compressed size. */
    uint8_t *bad = malloc(fn);
    assert_non_null(bad);
    static const struct { size_t at; uint8_t x; fz7_status want; } edits[] = {
        {12, 1, FZ7_E_DATA},   /* "BR" magic */
        {4, 4, FZ7_E_DATA},    /* skippable frame size other than 8 */
        {8, 1, FZ7_E_DATA},    /* compressed size one more: stream ends inside its frame */
        {0, 0xFF, FZ7_E_DATA}, /* not the magic: read as a plain stream, which it is not */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(bad, f, fn);
        bad[f1n + edits[i].at] ^= edits[i].x;   /* in the second frame's header */
        if (edits[i].at == 0)
            bad[edits[i].at] ^= edits[i].x;     /* the first: the whole input is plain */
        assert_int_equal(decode_status(K_BROTLI, bad, fn, wn, 0), edits[i].want);
    }
    /* Compressed size one less: the stream runs past its frame. */
    memcpy(bad, f, fn);
    fz7_put32le(bad + 8, (uint32_t)n1 - 1);
    assert_int_equal(decode_status(K_BROTLI, bad, fn, wn, 0), FZ7_E_DATA);
    free(bad);

    /* A 16 MiB window against a 64 KiB limit: libbrotlidec's allocations
     * are refused and named. */
    assert_int_equal(decode_status(K_BROTLI, z1, n1, data1_n, 64 << 10), FZ7_E_MEMLIMIT);
    free(f1), free(f2), free(f), free(want), free(z1), free(z2);
}

/* ---- Through the 7z reader ---- */

/* 7zFormat.txt NUMBER: the first byte's high 1-bits count extra bytes. */
static size_t put_number(uint8_t *p, uint64_t v)
{
    int extra = 0;
    while (extra < 8 && v >= ((uint64_t)1 << (7 * (extra + 1))))
        extra++;
    if (extra == 8) {
        p[0] = 0xFF;
        fz7_put64le(p + 1, v);
        return 9;
    }
    p[0] = (uint8_t)((0xFF00u >> extra) & 0xFF) | (uint8_t)(v >> (8 * extra));
    for (int i = 0; i < extra; i++)
        p[1 + i] = (uint8_t)(v >> (8 * i));
    return 1 + (size_t)extra;
}

/* A 7z archive of one file "f.bin" in one folder of one coder (4-byte
 * method ID, props) over packed; the header stores size and crc. */
static uint8_t *make_7z(uint32_t id, const uint8_t *props, size_t props_len, const uint8_t *packed,
                        size_t packed_n, uint64_t size, uint32_t crc, size_t *out_n)
{
    uint8_t h[256];
    size_t o = 0;
    h[o++] = 0x01;                    /* Header */
    h[o++] = 0x04;                    /* MainStreamsInfo */
    h[o++] = 0x06;                    /* PackInfo */
    o += put_number(h + o, 0);
    o += put_number(h + o, 1);
    h[o++] = 0x09;
    o += put_number(h + o, packed_n);
    h[o++] = 0x00;
    h[o++] = 0x07;                    /* UnPackInfo */
    h[o++] = 0x0B;
    o += put_number(h + o, 1);
    h[o++] = 0x00;                    /* not external */
    h[o++] = 0x01;                    /* one coder */
    h[o++] = 0x24;                    /* 4-byte ID, has properties */
    h[o++] = (uint8_t)(id >> 24), h[o++] = (uint8_t)(id >> 16);
    h[o++] = (uint8_t)(id >> 8), h[o++] = (uint8_t)id;
    o += put_number(h + o, props_len);
    memcpy(h + o, props, props_len);
    o += props_len;
    h[o++] = 0x0C;
    o += put_number(h + o, size);
    h[o++] = 0x00;
    h[o++] = 0x08;                    /* SubStreamsInfo: the CRC */
    h[o++] = 0x0A;
    h[o++] = 0x01;
    fz7_put32le(h + o, crc);
    o += 4;
    h[o++] = 0x00;
    h[o++] = 0x00;
    h[o++] = 0x05;                    /* FilesInfo */
    o += put_number(h + o, 1);
    static const char name[] = "f.bin";
    h[o++] = 0x11;
    o += put_number(h + o, 1 + 2 * sizeof name);
    h[o++] = 0x00;
    for (size_t i = 0; i < sizeof name; i++)
        h[o++] = (uint8_t)name[i], h[o++] = 0;
    h[o++] = 0x00;
    h[o++] = 0x00;
    assert_true(o <= sizeof h);

    size_t n = 32 + packed_n + o;
    uint8_t *a = malloc(n);
    assert_non_null(a);
    static const uint8_t sig[6] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C};
    memcpy(a, sig, 6);
    a[6] = 0, a[7] = 4;
    fz7_put64le(a + 12, packed_n);
    fz7_put64le(a + 20, o);
    fz7_put32le(a + 28, fz7_crc32(0, h, o));
    fz7_put32le(a + 8, fz7_crc32(0, a + 12, 20));
    memcpy(a + 32, packed, packed_n);
    memcpy(a + 32 + packed_n, h, o);
    *out_n = n;
    return a;
}

typedef struct {
    size_t entries, bytes;
    uint32_t crc;
    fz7_status result;
    char detail[160];
    uint8_t *data;
    size_t cap;
} sink;

static fz7_status s_begin(void *ctx, size_t index, const fz7_entry *e)
{
    (void)index, (void)e;
    sink *k = ctx;
    k->entries++;
    return FZ7_OK;
}

static fz7_status s_data(void *ctx, const uint8_t *p, size_t n)
{
    sink *k = ctx;
    k->crc = fz7_crc32(k->crc, p, n);
    if (k->bytes + n > k->cap) {
        k->cap = 2 * (k->bytes + n);
        k->data = realloc(k->data, k->cap);
        assert_non_null(k->data);
    }
    memcpy(k->data + k->bytes, p, n);
    k->bytes += n;
    return FZ7_OK;
}

static fz7_status s_end(void *ctx, size_t index, fz7_status result, const char *detail)
{
    (void)index;
    sink *k = ctx;
    if (k->result == FZ7_OK && result != FZ7_OK) {
        k->result = result;
        snprintf(k->detail, sizeof k->detail, "%s", detail ? detail : "");
    }
    return FZ7_OK;
}

/* Opens and extracts path (all entries) into k. */
static fz7_status extract(const char *path, const char *password, sink *k)
{
    fz7_archive *a = NULL;
    char err[256];
    fz7_open_opts o = {.password = password};
    fz7_status st = fz7_archive_open(path, &o, &a, err, sizeof err);
    if (st != FZ7_OK)
        return st;
    fz7_extract_cb cb = {k, s_begin, s_data, s_end, NULL};
    st = fz7_archive_extract(a, NULL, &cb, err, sizeof err);
    fz7_archive_close(a);
    return st;
}

static void check_7z(uint32_t id, const uint8_t *packed, size_t packed_n, const char *name)
{
    uint32_t crc = fz7_crc32(0, data1, data1_n);
    size_t n;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    uint8_t *a = make_7z(id, props5, 5, packed, packed_n, data1_n, crc, &n);
    tu_save(path, a, n);
    sink k = {0};
    assert_int_equal(extract(path, NULL, &k), FZ7_OK);
    if (k.result != FZ7_OK)
        fail_msg("%s: %d %s", name, k.result, k.detail);
    assert_int_equal(k.entries, 1);
    assert_int_equal(k.bytes, data1_n);
    assert_memory_equal(k.data, data1, data1_n);
    free(k.data);
    free(a);

    /* A wrong stored CRC, and an unpack size one short. */
    a = make_7z(id, props5, 5, packed, packed_n, data1_n, crc ^ 1, &n);
    tu_save(path, a, n);
    sink c = {0};
    assert_int_equal(extract(path, NULL, &c), FZ7_OK);
    assert_int_equal(c.result, FZ7_E_CRC);
    free(c.data);
    free(a);
    a = make_7z(id, props5, 5, packed, packed_n, data1_n - 1, crc, &n);
    tu_save(path, a, n);
    sink s = {0};
    assert_int_equal(extract(path, NULL, &s), FZ7_OK);
    assert_int_equal(s.result, FZ7_E_DATA);
    free(s.data);
    free(a);
    /* Properties of 4 bytes: the method is unsupported as stored. */
    a = make_7z(id, props5, 4, packed, packed_n, data1_n, crc, &n);
    tu_save(path, a, n);
    sink u = {0};
    assert_int_equal(extract(path, NULL, &u), FZ7_OK);
    assert_int_equal(u.result, FZ7_E_UNSUPPORTED);
    assert_non_null(strstr(u.detail, "Unsupported Method"));
    free(u.data);
    free(a);
}

static void test_7z_reader(void **state)
{
    (void)state;
    int done = 0;
    size_t n;
    if (fz7_zstd_supported() && have_tool("zstd")) {
        sh("zstd -q -f -3 d1 -o d1.zst");
        uint8_t *z = load_scratch("d1.zst", &n);
        check_7z(0x04F71101, z, n, "zstd.7z");
        free(z);
        done++;
    }
    if (fz7_lz4_supported() && have_tool("lz4")) {
        sh("lz4 -q -f -9 d1 d1.lz4");
        uint8_t *z = load_scratch("d1.lz4", &n);
        check_7z(0x04F71104, z, n, "lz4.7z");
        free(z);
        done++;
    }
    if (fz7_brotli_supported() && have_tool("brotli")) {
        sh("brotli -f -q 9 d1 -o d1.br");
        uint8_t *z = load_scratch("d1.br", &n);
        size_t fn;
        uint8_t *f = mt_frame(z, n, data1_n, &fn);
        check_7z(0x04F71102, f, fn, "brotli.7z");
        free(f);
        free(z);
        done++;
    }
    print_message("7z archives checked: %d of 3 methods\n", done);
    if (done == 0) {
        print_message("SKIP: no fork method library with its tool\n");
        skip();
    }
}

/* ---- The shared corpus ---- */

static void test_corpus(void **state)
{
    (void)state;
    NEED(fz7_zstd_supported(), "libzstd", (const char *)NULL);
    const char *shared = getenv("FZ7_SHARED");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/corpus/7z", shared && *shared ? shared : "/work/shared");
    struct stat st;
    if (stat(dir, &st) != 0) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/7z) is missing\n");
        skip();
    }
    /* Both hold scripts/ (a folder), scripts/py7zr, setup.cfg and setup.py
     * (111, 58 and 559 bytes; CRCs as 7zz lists them). */
    static const char *const rows[2][2] = {{"zstd.7z", NULL}, {"encrypted_5.7z", "secret"}};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rows[i][0]);
        sink k = {0};
        assert_int_equal(extract(path, rows[i][1], &k), FZ7_OK);
        if (k.result != FZ7_OK)
            fail_msg("%s: %d %s", rows[i][0], k.result, k.detail);
        assert_int_equal(k.entries, 4);
        assert_int_equal(k.bytes, 111 + 58 + 559);
        /* The three files in archive order, by their listed CRCs. */
        assert_int_equal(fz7_crc32(0, k.data, 111), 0xB36AAEDBu);
        assert_int_equal(fz7_crc32(0, k.data + 111, 58), 0xDCBF8D07u);
        assert_int_equal(fz7_crc32(0, k.data + 169, 559), 0x80FC72BEu);
        assert_non_null(memchr(k.data + 169, '\n', 559));   /* text, as a setup.py is */
        free(k.data);
    }
    snprintf(path, sizeof path, "%s/encrypted_5.7z", dir);
    sink w = {0};
    assert_int_equal(extract(path, "wrong", &w), FZ7_OK);
    assert_int_equal(w.result, FZ7_E_PASSWORD);
    free(w.data);
}

/* ---- RISC-V in xz ---- */

/* RISC-V-like code (fixed seed): JAL ra, AUIPC+JALR pairs, 16-bit filler. */
static size_t make_riscv(uint8_t *p, size_t n)
{
    uint32_t seed = 3;
    size_t o = 0;
    while (o + 8 <= n) {
        unsigned k = lcg(&seed) % 10, rd = 1 + lcg(&seed) % 15;
        if (k < 3) {
            fz7_put32le(p + o, 0x6Fu | (1u << 7) | (lcg(&seed) << 12));
            o += 4;
        } else if (k < 6) {
            fz7_put32le(p + o, 0x17u | (rd << 7) | (lcg(&seed) << 12));
            fz7_put32le(p + o + 4, 0x67u | (rd << 7) | (rd << 15) | ((lcg(&seed) & 0xFFFu) << 20));
            o += 8;
        } else {
            fz7_put32le(p + o, lcg(&seed));
            o += 2;
        }
    }
    return o;
}

static size_t put_vli(uint8_t *p, uint64_t v)
{
    size_t o = 0;
    while (v >= 0x80) {
        p[o++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[o++] = (uint8_t)v;
    return o;
}

/* An .xz file (xz-file-format.txt 2-4) of one block: filters RISC-V
 * (0x0B, props_len 0 or 4 bytes of start offset) and LZMA2 holding
 * filtered[0..n) in uncompressed chunks; CRC32 check of raw[0..n). */
static uint8_t *make_xz(const uint8_t *filtered, const uint8_t *raw, size_t n, size_t props_len,
                        uint32_t start, size_t *out_n)
{
    uint8_t *x = malloc(n + n / 65536 * 3 + 256);
    assert_non_null(x);
    static const uint8_t magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0};
    size_t o = 0;
    memcpy(x, magic, 6);
    x[6] = 0, x[7] = 1;   /* CRC32 */
    fz7_put32le(x + 8, fz7_crc32(0, x + 6, 2));
    o = 12;
    size_t bh = o;
    x[o++] = 0;           /* header size, below */
    x[o++] = 0x01;        /* two filters, no sizes */
    x[o++] = 0x0B;
    x[o++] = (uint8_t)props_len;
    if (props_len == 4) {
        fz7_put32le(x + o, start);
        o += 4;
    }
    x[o++] = 0x21, x[o++] = 1, x[o++] = 0x10;
    while ((o - bh + 4) % 4)
        x[o++] = 0;
    x[bh] = (uint8_t)((o - bh + 4) / 4 - 1);
    fz7_put32le(x + o, fz7_crc32(0, x + bh, o - bh));
    o += 4;
    size_t data_start = o;
    for (size_t at = 0; at < n; at += 65536) {
        size_t k = n - at < 65536 ? n - at : 65536;
        x[o++] = at == 0 ? 0x01 : 0x02;   /* uncompressed chunk (first resets the dictionary) */
        x[o++] = (uint8_t)((k - 1) >> 8), x[o++] = (uint8_t)(k - 1);
        memcpy(x + o, filtered + at, k);
        o += k;
    }
    x[o++] = 0x00;
    uint64_t unpadded = (data_start - bh) + (o - data_start) + 4;
    while (o % 4)
        x[o++] = 0;
    fz7_put32le(x + o, fz7_crc32(0, raw, n));
    o += 4;
    size_t ix = o;
    x[o++] = 0x00;
    o += put_vli(x + o, 1);
    o += put_vli(x + o, unpadded);
    o += put_vli(x + o, n);
    while (o % 4)
        x[o++] = 0;
    fz7_put32le(x + o, fz7_crc32(0, x + ix, o - ix));
    o += 4;
    fz7_put32le(x + o + 4, (uint32_t)((o - ix) / 4 - 1));
    x[o + 8] = 0, x[o + 9] = 1;
    fz7_put32le(x + o, fz7_crc32(0, x + o + 4, 6));
    x[o + 10] = 'Y', x[o + 11] = 'Z';
    *out_n = o + 12;
    return x;
}

static void test_xz_riscv(void **state)
{
    (void)state;
    if (!have_tool("7zz")) {
        print_message("SKIP: 7zz is not installed (it makes the RISC-V filter output)\n");
        skip();
    }
    size_t cap = 200000, arc_n;
    uint8_t *raw = malloc(cap);
    assert_non_null(raw);
    size_t n = make_riscv(raw, cap);
    char path[512];
    snprintf(path, sizeof path, "%s/rv.bin", scratch);
    tu_save(path, raw, n);
    /* 7zz's RISCV filter stored by Copy: the pack stream (at 32) is the
     * filtered code, as long as the input. */
    sh("rm -f rv.7z && 7zz a -m0=RISCV -m1=Copy rv.7z rv.bin > /dev/null");
    uint8_t *arc = load_scratch("rv.7z", &arc_n);
    assert_true(arc_n > 32 + n);
    assert_int_equal(fz7_get64le(arc + 12), n);   /* next header offset: after the one pack stream */
    const uint8_t *filtered = arc + 32;
    assert_true(memcmp(filtered, raw, n) != 0);

    size_t xn;
    uint8_t *x = make_xz(filtered, raw, n, 0, 0, &xn);
    snprintf(path, sizeof path, "%s/rv.xz", scratch);
    tu_save(path, x, xn);
    free(x);
    /* 7zz reads the file built here back to the input... */
    sh("7zz x -so rv.xz 2>/dev/null > rv.7zz && cmp -s rv.7zz rv.bin");
    /* ...and so does fz7, naming the filter. */
    fz7_archive *a = NULL;
    char err[256];
    assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_OK);
    const char *method = fz7_archive_get_info(a)->method;
    if (!method || !strstr(method, "RISCV"))
        fail_msg("method \"%s\" does not name RISCV", method ? method : "(null)");
    sink k = {0};
    fz7_extract_cb cb = {&k, s_begin, s_data, s_end, NULL};
    assert_int_equal(fz7_archive_extract(a, NULL, &cb, err, sizeof err), FZ7_OK);
    fz7_archive_close(a);
    if (k.result != FZ7_OK)
        fail_msg("rv.xz: %d %s", k.result, k.detail);
    assert_int_equal(k.bytes, n);
    assert_memory_equal(k.data, raw, n);
    free(k.data);

    /* An odd start offset is refused as unsupported (RISC-V code is
     * 2-byte aligned); an even one decodes (to other bytes: the filter
     * ran from offset 0). */
    static const struct { uint32_t start; fz7_status want; } offs[] = {
        {1, FZ7_E_UNSUPPORTED}, {0x100000, FZ7_E_CRC}};
    for (size_t i = 0; i < 2; i++) {
        x = make_xz(filtered, raw, n, 4, offs[i].start, &xn);
        tu_save(path, x, xn);
        free(x);
        assert_int_equal(fz7_archive_open(path, NULL, &a, err, sizeof err), FZ7_OK);
        sink b = {0};
        fz7_extract_cb cb2 = {&b, s_begin, s_data, s_end, NULL};
        assert_int_equal(fz7_archive_extract(a, NULL, &cb2, err, sizeof err), FZ7_OK);
        fz7_archive_close(a);
        if (b.result != offs[i].want)
            fail_msg("start offset %u: status %d (%s), want %d", offs[i].start, b.result, b.detail,
                     offs[i].want);
        free(b.data);
    }
    free(arc);
    free(raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_props),
        cmocka_unit_test(test_zstd_raw),
        cmocka_unit_test(test_lz4_raw),
        cmocka_unit_test(test_brotli_raw),
        cmocka_unit_test(test_7z_reader),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_xz_riscv),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
