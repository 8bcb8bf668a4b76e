/* test_ppmd8.c - the PPMd var.I rev. 1 codec of zip's method 98: fz7's
 * encoder writes 7zz's streams byte for byte (their sizes and CRC-32s,
 * pinned below, come from 7zz), the decoder gives the data back from
 * them, and refuses truncated, corrupted and garbage streams with an
 * error; zip's property bytes as 7zz writes them. With 7zz on the PATH,
 * streams 7zz makes at test time are decoded and compared as well. */
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
#include "test_util.h"

/* ---- The data ---- */

enum kind { TEXT, BINARY, ZEROS, RANDOM };
static const char *const kind_name[] = {"text", "binary", "zeros", "random"};

/* Records of 16 bytes: a counter, small numbers, a letter, a constant run
 * with random bytes in it now and then (like a table in an executable). */
static void fill_binary(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t ctr = 0;
    for (size_t o = 0; o < n;) {
        uint8_t rec[16];
        ctr += 1 + tu_lcg(&seed) % 3;
        uint32_t v = tu_lcg(&seed);
        rec[0] = (uint8_t)ctr;
        rec[1] = (uint8_t)(ctr >> 8);
        rec[2] = (uint8_t)(ctr >> 16);
        rec[3] = 0;
        rec[4] = (uint8_t)(v % 7);
        rec[5] = 0;
        rec[6] = (uint8_t)(v >> 8);
        rec[7] = (uint8_t)(0x40 + (v >> 16) % 26);
        for (int i = 8; i < 16; i++)
            rec[i] = (uint8_t)(tu_lcg(&seed) % 5 == 0 ? tu_lcg(&seed) : 0x90u + i);
        for (int i = 0; i < 16 && o < n; i++)
            p[o++] = rec[i];
    }
}

/* n bytes of a kind (malloc'd). RANDOM is random bytes for its first half
 * and zeros after: 7zz stores a file that PPMd cannot make smaller. */
static uint8_t *make_data(enum kind k, size_t n, uint32_t seed)
{
    uint8_t *p = calloc(n ? n : 1, 1);
    assert_non_null(p);
    if (k == TEXT)
        tu_fill_text(p, n, seed);
    else if (k == BINARY)
        fill_binary(p, n, seed);
    else if (k == RANDOM)
        for (size_t i = 0; i < n / 2; i++)
            p[i] = (uint8_t)tu_lcg(&seed);
    return p;
}

/* ---- 7zz's streams ---- */

/* The streams of 7zz 26.02 for the data above with 1 MiB of model:
 *   7zz a -tzip -mm=PPMd -mxL -mo=ORDER -mmem=1m a.zip FILE
 * with -mx5 for restore 0 and -mx9 for restore 1 (7zz picks the restore
 * method by level: CUT_OFF from -mx7; -mo and -mmem keep the order and
 * the memory), the stream cut from the local header (it starts at 30 +
 * name length + extra length) and its 2 property bytes left out: packed
 * is its size, crc its CRC-32. FILE is this test's data: run test_ppmd8
 * with FZ7_PPMD8_DUMP=DIR and it writes each input to DIR/KIND_SIZE. */
typedef struct {
    enum kind kind;
    size_t n;
    uint32_t seed;
    unsigned order, restore;
    uint32_t packed, crc;
} vec;

/* Every order and restore method on each kind of data; only the text at
 * order 16 fills the model (once: a RESTART, or a CUT_OFF). */
static const vec matrix[] = {
    {TEXT, 300000, 5, 2, 0, 24918, 0x96d82594u},
    {TEXT, 300000, 5, 2, 1, 24918, 0x96d82594u},
    {TEXT, 300000, 5, 4, 0, 23017, 0x54968116u},
    {TEXT, 300000, 5, 4, 1, 23017, 0x54968116u},
    {TEXT, 300000, 5, 8, 0, 22251, 0xeb803eafu},
    {TEXT, 300000, 5, 8, 1, 22251, 0xeb803eafu},
    {TEXT, 300000, 5, 12, 0, 19343, 0xba39b63eu},
    {TEXT, 300000, 5, 12, 1, 19343, 0xba39b63eu},
    {TEXT, 300000, 5, 16, 0, 14112, 0x4d7ea29au},
    {TEXT, 300000, 5, 16, 1, 13619, 0x71fe3ad1u},
    {BINARY, 65536, 7, 2, 0, 30236, 0x8b79bdedu},
    {BINARY, 65536, 7, 2, 1, 30236, 0x8b79bdedu},
    {BINARY, 65536, 7, 4, 0, 30268, 0xab0b3bbbu},
    {BINARY, 65536, 7, 4, 1, 30268, 0xab0b3bbbu},
    {BINARY, 65536, 7, 8, 0, 30382, 0xed3275b1u},
    {BINARY, 65536, 7, 8, 1, 30382, 0xed3275b1u},
    {BINARY, 65536, 7, 12, 0, 30382, 0xa5cbb74au},
    {BINARY, 65536, 7, 12, 1, 30382, 0xa5cbb74au},
    {BINARY, 65536, 7, 16, 0, 30381, 0x13b4342fu},
    {BINARY, 65536, 7, 16, 1, 30381, 0x13b4342fu},
    {ZEROS, 100000, 0, 2, 0, 44, 0x943d0da0u},
    {ZEROS, 100000, 0, 2, 1, 44, 0x943d0da0u},
    {ZEROS, 100000, 0, 4, 0, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 4, 1, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 8, 0, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 8, 1, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 12, 0, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 12, 1, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 16, 0, 43, 0x29e51f2fu},
    {ZEROS, 100000, 0, 16, 1, 43, 0x29e51f2fu},
    {RANDOM, 65536, 3, 2, 0, 33560, 0x8b078c9fu},
    {RANDOM, 65536, 3, 2, 1, 33560, 0x8b078c9fu},
    {RANDOM, 65536, 3, 4, 0, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 4, 1, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 8, 0, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 8, 1, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 12, 0, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 12, 1, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 16, 0, 33557, 0x89758bf2u},
    {RANDOM, 65536, 3, 16, 1, 33557, 0x89758bf2u},
};

/* Inputs that fill the 1 MiB model many times. In this order: 6
 * RESTARTs; 8 CUT_OFFs and 2 RESTARTs (CUT_OFF restarts when less than
 * half the memory holds contexts); 5 and 5; and for the random bytes,
 * whose text takes most of the memory, 7 RESTARTs. */
static const vec fills[] = {
    {BINARY, 480000, 11, 8, 0, 223287, 0xe03d7ea7u},
    {BINARY, 480000, 11, 8, 1, 218256, 0x7f6fef5au},
    {BINARY, 480000, 11, 16, 1, 221342, 0x08624627u},
    {RANDOM, 600000, 13, 4, 1, 306182, 0x5915ce46u},
};

/* The stream of no data at all, whatever the order and memory: the end
 * marker (the escape, 1 of 257, from the order-0 context) and the flush. */
#define EMPTY_PACKED 5
static const uint8_t empty_stream[EMPTY_PACKED] = {0xFF, 0x00, 0xFF, 0x00, 0x00};

/* 7zz's own stream, as it wrote it for 1000 bytes of text (tu_fill_text,
 * seed 1) with 7zz a -tzip -mm=PPMd -mx9 (property bytes 0x0b 0x10:
 * order 12, 1 MiB as the file is small, CUT_OFF). */
static const uint8_t small_7zz[] = {
    0x37, 0x44, 0x70, 0x09, 0x28, 0x50, 0x2e, 0xc9, 0x84, 0xe2, 0x2d, 0x0d,
    0x0d, 0x92, 0x3a, 0x12, 0x30, 0xd8, 0x49, 0x1f, 0xcc, 0x5a, 0x14, 0xf3,
    0x51, 0x3e, 0x0e, 0x93, 0xa6, 0x95, 0x5b, 0x53, 0xcf, 0xc2, 0x78, 0x4b,
    0xaa, 0x08, 0xb6, 0x14, 0xae, 0x18, 0x9a, 0xff, 0xf5, 0x85, 0x7b, 0x32,
    0x67, 0xc8, 0x34, 0xd2, 0x76, 0x40, 0x1f, 0xd0, 0x38, 0xc6, 0x40, 0x6b,
    0xdd, 0x2b, 0x8c, 0x8f, 0xcb, 0xa5, 0x33, 0xcf, 0x07, 0xcf, 0x86, 0x2b,
    0x2b, 0x15, 0x02, 0x32, 0xad, 0xc1, 0xc9, 0xbf, 0x46, 0xb7, 0xef, 0x0e,
    0x8c, 0x83, 0xd0, 0x21, 0x4c, 0xa3, 0x04, 0x3c, 0xb4, 0xb3, 0x9b, 0x2f,
    0x86, 0x96, 0x81, 0xda, 0x42, 0xf1, 0xb2, 0xe9, 0x56, 0x56, 0xb6, 0x88,
    0xce, 0x55, 0x58, 0x6e, 0x4a, 0x6f, 0x99, 0x4b, 0xb3, 0x8a, 0x27, 0x63,
    0x43, 0xbc, 0x10, 0xa8, 0x27, 0xfc, 0xf7, 0x5c, 0x25, 0x2c, 0xac, 0x8e,
    0xdd, 0x3f, 0x61, 0xef, 0xb5, 0xbf, 0x73, 0xe1, 0xb7, 0xf3, 0xa4, 0x00,
    0x21, 0x45, 0x00, 0x00, 0x00,
};

/* ---- Helpers ---- */

/* src[0..n) through the encoder in uneven pieces (the coder's state
 * carries across writes); the stream (malloc'd) in *out, *out_n bytes. */
static void encode(unsigned order, uint32_t mem, unsigned restore, const uint8_t *src, size_t n, uint8_t **out,
                   size_t *out_n)
{
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_ppmd8_enc *e = NULL;
    assert_int_equal(fz7_ppmd8_enc_new(order, mem, restore, &mb.base, &e), FZ7_OK);
    for (size_t at = 0, piece = 1; at < n; at += piece, piece = piece * 3 + 7) {
        size_t k = n - at < piece ? n - at : piece;
        assert_int_equal(fz7_ppmd8_enc_write(e, src + at, k), FZ7_OK);
    }
    assert_int_equal(fz7_ppmd8_enc_finish(e), FZ7_OK);
    assert_int_equal(fz7_ppmd8_enc_bytes_out(e), mb.n);
    fz7_ppmd8_enc_free(e);
    *out = mb.p;
    *out_n = mb.n;
}

/* Decodes out_size bytes from src[0..n) reading at most `piece` bytes a
 * call; returns the status that stopped it, the bytes before it in *out
 * (malloc'd) and *out_n, and the decoder's unread bytes in *unread. */
static fz7_status decode(unsigned order, uint32_t mem, unsigned restore, const uint8_t *src, size_t n,
                         uint64_t out_size, size_t piece, uint8_t **out, size_t *out_n, size_t *unread)
{
    fz7_istream *in = fz7_istream_from_memory(src, n), *d = NULL;
    assert_non_null(in);
    assert_int_equal(fz7_ppmd8_istream_new(in, order, mem, restore, out_size, 0, &d), FZ7_OK);
    size_t cap = (size_t)out_size + piece, len = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    fz7_status st;
    for (;;) {
        size_t got = 0;
        st = d->read(d, buf + len, piece, &got);
        if (st != FZ7_OK || got == 0)
            break;
        assert_true(got <= piece);
        len += got;
        assert_true(len <= out_size);
    }
    if (unread)
        *unread = fz7_ppmd8_istream_unread(d);
    fz7_istream_free(d);
    fz7_istream_free(in);
    *out = buf;
    *out_n = len;
    return st;
}

/* One vector: fz7's stream is 7zz's (size and CRC), and decodes back. */
static void check_vec(const vec *v, size_t piece)
{
    uint8_t *data = make_data(v->kind, v->n, v->seed), *stream, *back;
    size_t n, back_n, unread;
    encode(v->order, 1u << 20, v->restore, data, v->n, &stream, &n);
    uint32_t crc = fz7_crc32(0, stream, n);
    if (n != v->packed || crc != v->crc)
        fail_msg("%s %zu o%u r%u: %zu bytes, CRC %08x; 7zz: %u bytes, CRC %08x", kind_name[v->kind], v->n,
                 v->order, v->restore, n, crc, v->packed, v->crc);
    assert_int_equal(decode(v->order, 1u << 20, v->restore, stream, n, v->n, piece, &back, &back_n, &unread),
                     FZ7_OK);
    assert_int_equal(back_n, v->n);
    assert_int_equal(unread, 0);
    if (memcmp(back, data, v->n) != 0)
        fail_msg("%s %zu o%u r%u: decoded data differs", kind_name[v->kind], v->n, v->order, v->restore);
    free(back);
    free(stream);
    free(data);
}

/* With FZ7_PPMD8_DUMP=DIR: writes the inputs of the vectors to DIR, for
 * 7zz (see above). */
static int setup(void **state)
{
    (void)state;
    const char *dir = getenv("FZ7_PPMD8_DUMP");
    if (!dir || !*dir)
        return 0;
    const vec *all[2] = {matrix, fills};
    size_t counts[2] = {sizeof matrix / sizeof *matrix, sizeof fills / sizeof *fills};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < counts[t]; i++) {
            const vec *v = &all[t][i];
            char path[4096];
            snprintf(path, sizeof path, "%s/%s_%zu", dir, kind_name[v->kind], v->n);
            uint8_t *data = make_data(v->kind, v->n, v->seed);
            tu_save(path, data, v->n);
            free(data);
        }
    return 0;
}

/* ---- Tests ---- */

static void test_matrix(void **state)
{
    (void)state;
    static const size_t pieces[] = {1 << 16, 1, 4093, 100000};
    for (size_t i = 0; i < sizeof matrix / sizeof *matrix; i++)
        check_vec(&matrix[i], pieces[i % 4]);
}

static void test_fills(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fills / sizeof *fills; i++)
        check_vec(&fills[i], 1 << 16);
}

/* Zip's property bytes: the ones 7zz writes (for a file of 20 MB) at
 * -mx1/3/5/7/9, at -mx5 -mo=16 and at -mx7 -mmem=1m, fz7's writing of
 * them, and the values 7zz refuses. */
static void test_props(void **state)
{
    (void)state;
    static const struct {
        uint8_t b[2];
        unsigned order;
        uint32_t mib;
        unsigned restore;
    } seen[] = {
        {{0x03, 0x00}, 4, 1, 0},   {{0x35, 0x00}, 6, 4, 0},    {{0xf7, 0x00}, 8, 16, 0},
        {{0xf9, 0x13}, 10, 64, 1}, {{0xfb, 0x1f}, 12, 256, 1}, {{0xff, 0x00}, 16, 16, 0},
        {{0x09, 0x10}, 10, 1, 1},
    };
    for (size_t i = 0; i < sizeof seen / sizeof *seen; i++) {
        unsigned order, restore;
        uint32_t mem;
        uint8_t b[2];
        assert_int_equal(fz7_ppmd8_zip_props_parse(seen[i].b, &order, &mem, &restore), FZ7_OK);
        assert_int_equal(order, seen[i].order);
        assert_int_equal(mem, seen[i].mib << 20);
        assert_int_equal(restore, seen[i].restore);
        fz7_ppmd8_zip_props(order, mem, restore, b);
        assert_memory_equal(b, seen[i].b, 2);
    }
    unsigned order, restore;
    uint32_t mem;
    static const uint8_t order1[2] = {0x00, 0x00}, freeze[2] = {0x07, 0x20}, restore3[2] = {0x07, 0x30};
    assert_int_equal(fz7_ppmd8_zip_props_parse(order1, &order, &mem, &restore), FZ7_E_DATA);
    assert_int_equal(fz7_ppmd8_zip_props_parse(freeze, &order, &mem, &restore), FZ7_E_UNSUPPORTED);
    assert_int_equal(restore, 2);
    assert_int_equal(fz7_ppmd8_zip_props_parse(restore3, &order, &mem, &restore), FZ7_E_DATA);

    /* The limits of the decoder and the encoder. */
    static const uint8_t none[1] = {0};
    fz7_istream *in = fz7_istream_from_memory(none, 0), *d = NULL;
    assert_non_null(in);
    assert_int_equal(fz7_ppmd8_istream_new(in, 1, 1u << 20, 0, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd8_istream_new(in, 17, 1u << 20, 0, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd8_istream_new(in, 8, (1u << 11) - 1, 0, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd8_istream_new(in, 8, (256u << 20) + 1, 0, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd8_istream_new(in, 8, 1u << 20, 2, 10, 0, &d), FZ7_E_UNSUPPORTED);
    assert_int_equal(fz7_ppmd8_istream_new(in, 8, 16u << 20, 0, 10, 8u << 20, &d), FZ7_E_MEMLIMIT);
    assert_null(d);
    fz7_istream_free(in);
    fz7_membuf mb;
    fz7_membuf_init(&mb);
    fz7_ppmd8_enc *e = NULL;
    assert_int_equal(fz7_ppmd8_enc_new(1, 1u << 20, 0, &mb.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_ppmd8_enc_new(17, 1u << 20, 0, &mb.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_ppmd8_enc_new(8, (256u << 20) + 1, 0, &mb.base, &e), FZ7_E_ARG);
    assert_int_equal(fz7_ppmd8_enc_new(8, 1u << 20, 2, &mb.base, &e), FZ7_E_ARG);
    assert_null(e);
}

/* 7zz's small stream decodes to the text, and fz7 writes it alike. */
static void test_7zz_small(void **state)
{
    (void)state;
    uint8_t *text = make_data(TEXT, 1000, 1), *back, *mine;
    size_t back_n, mine_n, unread;
    assert_int_equal(decode(12, 1u << 20, 1, small_7zz, sizeof small_7zz, 1000, 7, &back, &back_n, &unread), FZ7_OK);
    assert_int_equal(back_n, 1000);
    assert_int_equal(unread, 0);
    assert_memory_equal(back, text, 1000);
    encode(12, 1u << 20, 1, text, 1000, &mine, &mine_n);
    assert_int_equal(mine_n, sizeof small_7zz);
    assert_memory_equal(mine, small_7zz, mine_n);
    free(mine);
    free(back);
    free(text);
}

/* Nothing to code: the end marker and the flush alone, which decode to
 * nothing; the end marker is checked even then. */
static void test_empty(void **state)
{
    (void)state;
    uint8_t *stream, *back;
    size_t n, back_n;
    encode(6, 1u << 20, 0, NULL, 0, &stream, &n);
    assert_int_equal(n, EMPTY_PACKED);
    assert_memory_equal(stream, empty_stream, n);
    assert_int_equal(decode(6, 1u << 20, 0, stream, n, 0, 16, &back, &back_n, NULL), FZ7_OK);
    assert_int_equal(back_n, 0);
    free(back);
    /* Decoding a byte from it meets the end marker first. */
    assert_int_equal(decode(6, 1u << 20, 0, stream, n, 1, 16, &back, &back_n, NULL), FZ7_E_TRUNCATED);
    free(back);
    free(stream);
}

/* Bad streams: every truncation of a stream (a data error, as 7zz says
 * of a zip entry), sizes that do not match the end marker (one too large:
 * truncated, 7zz's "Unexpected end of data"), a code of 0xFFFFFFFF at the start, bytes after
 * the end (left unread, for the container to judge), single changed bytes
 * and random garbage (an error or other data, never a crash). */
static void test_bad_streams(void **state)
{
    (void)state;
    size_t text_n = 3000, n, back_n, unread;
    uint8_t *text = make_data(TEXT, text_n, 21), *stream, *back;
    encode(8, 1u << 20, 1, text, text_n, &stream, &n);
    for (size_t cut = 0; cut < n; cut++) {
        fz7_status st = decode(8, 1u << 20, 1, stream, cut, text_n, 1 << 16, &back, &back_n, NULL);
        if (st != FZ7_E_DATA)
            fail_msg("stream cut to %zu of %zu bytes: status %d, not a data error", cut, n, (int)st);
        free(back);
    }
    assert_int_equal(decode(8, 1u << 20, 1, stream, n, text_n - 1, 1 << 16, &back, &back_n, NULL), FZ7_E_DATA);
    assert_int_equal(back_n, text_n - 1);
    free(back);
    assert_int_equal(decode(8, 1u << 20, 1, stream, n, text_n + 1, 1 << 16, &back, &back_n, NULL), FZ7_E_TRUNCATED);
    assert_int_equal(back_n, text_n);
    free(back);

    uint8_t *longer = malloc(n + 3);
    assert_non_null(longer);
    memcpy(longer, stream, n);
    memcpy(longer + n, "XYZ", 3);
    assert_int_equal(decode(8, 1u << 20, 1, longer, n + 3, text_n, 1 << 16, &back, &back_n, &unread), FZ7_OK);
    assert_int_equal(unread, 3);
    assert_memory_equal(back, text, text_n);
    free(back);
    memset(longer, 0xFF, 4);
    assert_int_equal(decode(8, 1u << 20, 1, longer, n + 3, text_n, 1 << 16, &back, &back_n, NULL), FZ7_E_DATA);
    free(back);

    uint32_t seed = 77;
    for (int round = 0; round < 200; round++) {
        memcpy(longer, stream, n);
        size_t at = tu_lcg(&seed) % n;
        longer[at] = (uint8_t)(longer[at] ^ (1 + tu_lcg(&seed) % 255));
        fz7_status st = decode(8, 1u << 20, 1, longer, n, text_n, 1 + tu_lcg(&seed) % 5000, &back, &back_n, NULL);
        if (st == FZ7_OK && memcmp(back, text, text_n) == 0)
            fail_msg("byte %zu of %zu changed, and the same data decoded without an error", at, n);
        assert_true(st == FZ7_OK || st == FZ7_E_DATA || st == FZ7_E_TRUNCATED);
        free(back);
    }
    free(longer);

    uint8_t garbage[4096];
    for (int round = 0; round < 100; round++) {
        size_t len = tu_lcg(&seed) % sizeof garbage;
        for (size_t i = 0; i < len; i++)
            garbage[i] = (uint8_t)tu_lcg(&seed);
        unsigned order = 2 + round % 15, restore = round & 1;
        fz7_status st = decode(order, 1u << 20, restore, garbage, len, 100000, 1 << 16, &back, &back_n, NULL);
        if (st != FZ7_E_DATA && st != FZ7_E_TRUNCATED)
            fail_msg("garbage round %d (%zu bytes, o%u r%u): status %d", round, len, order, restore, (int)st);
        free(back);
    }
    free(stream);
    free(text);
}

/* ---- Streams 7zz makes now ---- */

static char scratch[256];

/* The entry's stream of the one-file zip at path: its property bytes and
 * the range-coded stream after them (malloc'd, *n bytes). */
static uint8_t *zip_stream(const char *path, uint8_t props[2], size_t *n)
{
    size_t len;
    uint8_t *zip = tu_load_existing(path, &len), *out;
    assert_true(len > 30 && memcmp(zip, "PK\3\4", 4) == 0);
    assert_int_equal(fz7_get16le(zip + 8), 98);
    size_t csize = fz7_get32le(zip + 18), off = 30u + fz7_get16le(zip + 26) + fz7_get16le(zip + 28);
    assert_true(csize >= 2 && off + csize <= len);
    memcpy(props, zip + off, 2);
    *n = csize - 2;
    out = malloc(*n);
    assert_non_null(out);
    memcpy(out, zip + off + 2, *n);
    free(zip);
    return out;
}

/* Files made here, packed by 7zz at -mx5 and -mx9 (with the memory 7zz
 * picks by their size, and with -mmem=1m) and read back by fz7's decoder;
 * fz7's encoder with the same properties writes the same stream. */
static void test_7zz_live(void **state)
{
    (void)state;
    if (system("7zz > /dev/null 2>&1") != 0) {
        printf("test_7zz_live: SKIP (no 7zz)\n");
        return;
    }
    snprintf(scratch, sizeof scratch, "/tmp/fz7_test_ppmd8_XXXXXX");
    assert_non_null(mkdtemp(scratch));
    static const struct {
        enum kind kind;
        size_t n;
        const char *opts;
    } runs[] = {
        {TEXT, 200000, "-mx5"}, {BINARY, 300000, "-mx9 -mmem=1m"}, {BINARY, 150000, "-mx7 -mo=16"},
        {ZEROS, 70000, "-mx1"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        char file[512], zip[512], cmd[1600];
        uint8_t *data = make_data(runs[i].kind, runs[i].n, 40 + (uint32_t)i), props[2], *stream, *mine, *back;
        snprintf(file, sizeof file, "%s/f%zu", scratch, i);
        snprintf(zip, sizeof zip, "%s/f%zu.zip", scratch, i);
        tu_save(file, data, runs[i].n);
        snprintf(cmd, sizeof cmd, "7zz a -tzip -mm=PPMd %s '%s' '%s' > /dev/null", runs[i].opts, zip, file);
        assert_int_equal(system(cmd), 0);
        size_t n, mine_n, back_n, unread;
        stream = zip_stream(zip, props, &n);
        unsigned order, restore;
        uint32_t mem;
        assert_int_equal(fz7_ppmd8_zip_props_parse(props, &order, &mem, &restore), FZ7_OK);
        assert_int_equal(decode(order, mem, restore, stream, n, runs[i].n, 1 << 16, &back, &back_n, &unread),
                         FZ7_OK);
        assert_int_equal(back_n, runs[i].n);
        assert_int_equal(unread, 0);
        assert_memory_equal(back, data, runs[i].n);
        encode(order, mem, restore, data, runs[i].n, &mine, &mine_n);
        if (mine_n != n || memcmp(mine, stream, n) != 0)
            fail_msg("7zz %s (o%u, %u MiB, restore %u): fz7's stream differs", runs[i].opts, order, mem >> 20,
                     restore);
        free(mine);
        free(back);
        free(stream);
        free(data);
        unlink(file);
        unlink(zip);
    }
    rmdir(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),      cmocka_unit_test(test_fills),    cmocka_unit_test(test_7zz_small),
        cmocka_unit_test(test_props),       cmocka_unit_test(test_empty),    cmocka_unit_test(test_bad_streams),
        cmocka_unit_test(test_7zz_live),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
