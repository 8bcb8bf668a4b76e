/* test_aes.c - AES-256-CBC against NIST SP 800-38A F.2.5/F.2.6 on every
 * path the CPU has, every fast path against the portable one on random
 * keys, IVs, lengths and alignments, and the 7zAES coder (KDF known
 * answers, a 7zz-made archive, round trips). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu/cpu.h"
#include "crypto/aes.h"
#include "crypto/aes7z.h"
#include "check/check.h"

#include <sys/mman.h>
#include <unistd.h>

typedef void (*cbc_fn)(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);

typedef struct path {
    const char *name;
    cbc_fn fn;
    int dec;           /* 1: decryptor, 0: encryptor */
    int available;
} path;

static path g_paths[8];
static int g_npaths;

static void add_path(const char *name, cbc_fn fn, int dec, int available)
{
    g_paths[g_npaths++] = (path){name, fn, dec, available};
    printf("test_aes: %s path %s %s%s\n", available ? "RUN " : "SKIP", dec ? "dec" : "enc", name,
           available ? "" : " (CPU lacks the features)");
}

/* Every kernel of both tables (crypto/aes.h). */
static int setup_paths(void **state)
{
    (void)state;
    g_npaths = 0;
    for (int dec = 1; dec >= 0; dec--) {
        size_t n;
        const fz7_aes_cbc_kernel *ks = dec ? fz7_aes_cbc_dec_kernels(&n) : fz7_aes_cbc_enc_kernels(&n);
        for (size_t i = 0; i < n && g_npaths < 8; i++)
            add_path(ks[i].info.name, ks[i].fn, dec, fz7_cpu_can_run(ks[i].info.need));
    }
#ifndef FZ7_HAVE_NASM
    printf("test_aes: SKIP path dec vaes512 (built without NASM)\n");
#endif
#ifndef FZ7_HAVE_X86_KERNELS
    printf("test_aes: SKIP x86 paths (not an x86-64 build)\n");
#endif
    return 0;
}

static void unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* NIST SP 800-38A, F.2.5 (CBC-AES256.Encrypt) and F.2.6 (.Decrypt). */
static const char *nist_key = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
static const char *nist_iv = "000102030405060708090a0b0c0d0e0f";
static const char *nist_pt =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *nist_ct =
    "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
    "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b";

static void test_nist_cbc(void **state)
{
    (void)state;
    uint8_t key[32], iv0[16], pt[64], ct[64];
    unhex(nist_key, key);
    unhex(nist_iv, iv0);
    unhex(nist_pt, pt);
    unhex(nist_ct, ct);
    fz7_aes256_key k;
    fz7_aes256_expand(&k, key);
    for (int p = 0; p < g_npaths; p++) {
        if (!g_paths[p].available)
            continue;
        uint8_t buf[64 + 1], iv[16];
        /* whole buffer in one call, then block by block (IV carried) */
        for (int split = 0; split < 2; split++) {
            uint8_t *b = buf + split; /* unaligned on the second pass */
            memcpy(iv, iv0, 16);
            memcpy(b, g_paths[p].dec ? ct : pt, 64);
            const void *rk = g_paths[p].dec ? (const void *)k.dec : (const void *)k.enc;
            if (split)
                for (int i = 0; i < 4; i++)
                    g_paths[p].fn(rk, iv, b + 16 * i, 1);
            else
                g_paths[p].fn(rk, iv, b, 4);
            if (memcmp(b, g_paths[p].dec ? pt : ct, 64) != 0)
                fail_msg("path %s: NIST vector mismatch (split %d)", g_paths[p].name, split);
            assert_memory_equal(iv, ct + 48, 16);
        }
    }
    /* The kernels picked at every level give the same answers. */
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        const fz7_aes_cbc_kernel *dk = fz7_aes_cbc_dec_pick(), *ek = fz7_aes_cbc_enc_pick();
        uint8_t buf[64], iv[16];
        memcpy(buf, ct, 64);
        memcpy(iv, iv0, 16);
        dk->fn(k.dec, iv, buf, 4);
        assert_memory_equal(buf, pt, 64);
        memcpy(iv, iv0, 16);
        ek->fn(k.enc, iv, buf, 4);
        assert_memory_equal(buf, ct, 64);
        printf("test_aes: level %s: dec %s, enc %s\n", fz7_cpu_level_name((fz7_cpu_level)lvl),
               dk->info.name, ek->info.name);
    }
    for (int l = (int)fz7_cpu_max_level() + 1; l <= (int)FZ7_LEVEL_AVX512; l++)
        printf("test_aes: SKIP level %s (CPU/OS lacks it)\n", fz7_cpu_level_name((fz7_cpu_level)l));
    fz7_cpu_set_level(fz7_cpu_max_level());
}

/* FIPS-197 C.3: AES-256 of one block, checks the key schedule on its own. */
static void test_fips197_c3(void **state)
{
    (void)state;
    uint8_t key[32], pt[16], ct[16], buf[16], iv[16] = {0};
    unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", key);
    unhex("00112233445566778899aabbccddeeff", pt);
    unhex("8ea2b7ca516745bfeafc49904b496089", ct);
    fz7_aes256_key k;
    fz7_aes256_expand(&k, key);
    memcpy(buf, pt, 16);
    fz7_aes_cbc_enc_portable(k.enc, iv, buf, 1);
    assert_memory_equal(buf, ct, 16);
    memset(iv, 0, 16);
    fz7_aes_cbc_dec_portable(k.dec, iv, buf, 1);
    assert_memory_equal(buf, pt, 16);
    fz7_aes256_wipe(&k);
    static const uint8_t zero[sizeof k] = {0};
    assert_memory_equal(&k, zero, sizeof k);
}

static uint64_t g_rng;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rnd() >> 24);
}

/* Every path against portable: random key, IV and data, lengths 1..200
 * blocks and some longer ones that are not multiples of 32 blocks, at
 * several buffer offsets; the data is also split into two calls. */
static void test_differential(void **state)
{
    (void)state;
    static const size_t extra[] = {255, 257, 511, 513, 1000, 4099, 8191};
    const size_t nlen = 200 + sizeof extra / sizeof extra[0];
    const size_t maxb = 8191;
    uint8_t *ref = malloc(16 * maxb), *in = malloc(16 * maxb), *work = malloc(16 * maxb + 64);
    assert_non_null(ref);
    assert_non_null(in);
    assert_non_null(work);
    const uint64_t seed = 0x5eed0fa5e5ull;
    g_rng = seed;
    for (size_t li = 0; li < nlen; li++) {
        size_t n = li < 200 ? li + 1 : extra[li - 200];
        unsigned align = (unsigned)(li % 5) * 7 % 33; /* 0, 7, 14, 21, 28 */
        uint8_t key[32], iv0[16];
        fill(key, 32);
        fill(iv0, 16);
        fill(in, 16 * n);
        fz7_aes256_key k;
        fz7_aes256_expand(&k, key);
        for (int dec = 0; dec < 2; dec++) {
            const void *rk = dec ? (const void *)k.dec : (const void *)k.enc;
            uint8_t ivr[16];
            memcpy(ivr, iv0, 16);
            memcpy(ref, in, 16 * n);
            (dec ? fz7_aes_cbc_dec_portable : fz7_aes_cbc_enc_portable)(rk, ivr, ref, n);
            for (int p = 0; p < g_npaths; p++) {
                if (!g_paths[p].available || g_paths[p].dec != dec ||
                    g_paths[p].fn == fz7_aes_cbc_dec_portable || g_paths[p].fn == fz7_aes_cbc_enc_portable)
                    continue;
                uint8_t *b = work + align, iv[16];
                size_t cut = (size_t)(rnd() % n); /* first call: cut blocks */
                memcpy(b, in, 16 * n);
                memcpy(iv, iv0, 16);
                g_paths[p].fn(rk, iv, b, cut);
                g_paths[p].fn(rk, iv, b + 16 * cut, n - cut);
                if (memcmp(b, ref, 16 * n) != 0 || memcmp(iv, ivr, 16) != 0)
                    fail_msg("path %s differs from portable: seed %llx, case %zu, %zu blocks, "
                             "offset %u, cut %zu", g_paths[p].name, (unsigned long long)seed, li, n,
                             align, cut);
            }
        }
        /* Decrypting the portable encryption gives the input back. */
        uint8_t iv[16];
        memcpy(iv, iv0, 16);
        memcpy(ref, in, 16 * n);
        fz7_aes_cbc_enc_portable(k.enc, iv, ref, n);
        memcpy(iv, iv0, 16);
        fz7_aes_cbc_dec_pick()->fn(k.dec, iv, ref, n);
        assert_memory_equal(ref, in, 16 * n);
    }
    free(ref);
    free(in);
    free(work);
}

/* Buffers that touch an inaccessible page on either side: a kernel that
 * reads or writes outside its blocks (an unmasked tail, a chaining load
 * before the first block) faults here. */
static void test_guard_pages(void **state)
{
    (void)state;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map, page, PROT_NONE), 0);
    assert_int_equal(mprotect(map + 2 * page, page, PROT_NONE), 0);
    uint8_t *data = map + page, *in = malloc(page), *ref = malloc(page);
    assert_non_null(in);
    assert_non_null(ref);
    g_rng = 0x6a4d;
    uint8_t key[32], iv0[16];
    fill(key, 32);
    fill(iv0, 16);
    fz7_aes256_key k;
    fz7_aes256_expand(&k, key);
    for (size_t n = 1; n <= page / 16; n += n < 72 ? 1 : 61) {
        fill(in, 16 * n);
        for (int dec = 0; dec < 2; dec++) {
            const void *rk = dec ? (const void *)k.dec : (const void *)k.enc;
            uint8_t ivr[16];
            memcpy(ivr, iv0, 16);
            memcpy(ref, in, 16 * n);
            (dec ? fz7_aes_cbc_dec_portable : fz7_aes_cbc_enc_portable)(rk, ivr, ref, n);
            for (int p = 0; p < g_npaths; p++) {
                if (!g_paths[p].available || g_paths[p].dec != dec)
                    continue;
                for (int at_end = 0; at_end < 2; at_end++) {
                    uint8_t *b = at_end ? data + page - 16 * n : data, iv[16];
                    memcpy(b, in, 16 * n);
                    memcpy(iv, iv0, 16);
                    g_paths[p].fn(rk, iv, b, n);
                    if (memcmp(b, ref, 16 * n) != 0)
                        fail_msg("path %s: %zu blocks at the %s of a page", g_paths[p].name, n,
                                 at_end ? "end" : "start");
                }
            }
        }
    }
    munmap(map, 3 * page);
    free(in);
    free(ref);
}

/* ---- 7zAES ---- */

static void derive_hex(const uint8_t *salt, size_t salt_len, const char *pw, unsigned power,
                       char out[65])
{
    uint8_t u[64], key[32];
    size_t n = fz7_7zaes_password_utf16(pw, u);
    assert_int_equal(fz7_7zaes_derive_key(salt, salt_len, u, n, power, key), FZ7_OK);
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", key[i]);
}

/* Expected keys computed independently with python3 hashlib (SHA-256 over
 * the repeated salt || UTF-16LE password || 8-byte LE counter). */
static void test_7zaes_kdf(void **state)
{
    (void)state;
    static const uint8_t salt5[5] = {1, 2, 3, 4, 5};
    uint8_t salt16[16];
    memset(salt16, 0xaa, 16);
    char h[65];
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        fz7_7zaes_cache_clear();
        derive_hex(NULL, 0, "secret", 19, h);   /* batch path, unit 20 bytes */
        assert_string_equal(h, "6511f1507a3c2a982ae6def4f65818ed6cf242651aca19d15cebc6a67ae2891d");
        /* "p\u00e4ss\U0001F600": 2-byte UTF-8 and a surrogate pair; unit 25 bytes */
        derive_hex(salt5, 5, "p\xc3\xa4ss\xf0\x9f\x98\x80", 3, h); /* fewer rounds than a batch */
        assert_string_equal(h, "384003ecda279e9f8dc7715499e71a4c3ae60fe9ed39de4ab155c3da7320ba1c");
        derive_hex(salt5, 5, "p\xc3\xa4ss\xf0\x9f\x98\x80", 10, h);
        assert_string_equal(h, "6f82d3ca36450a5ab3290fe8ba18be85ca7a7f24f1e608578623e6244c73517d");
        derive_hex(salt16, 16, "0123456789abcdefghij", 0x3F, h); /* no hashing, truncated */
        assert_string_equal(h, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa30003100320033003400350036003700");
        derive_hex(NULL, 0, "", 4, h);
        assert_string_equal(h, "f23d672bb9b341f9afa8498423b75deb80e726145969391d4b9392464c2298ee");
        /* A cached key is the same key. */
        derive_hex(NULL, 0, "secret", 19, h);
        assert_string_equal(h, "6511f1507a3c2a982ae6def4f65818ed6cf242651aca19d15cebc6a67ae2891d");
    }
    fz7_cpu_set_level(fz7_cpu_max_level());
    fz7_7zaes_cache_clear();
}

static void test_7zaes_props(void **state)
{
    (void)state;
    uint8_t ct[21] = {0};
    fz7_istream *mem = fz7_istream_from_memory(ct, 16), *s = (fz7_istream *)1;
    /* power 25 is refused rather than run for minutes */
    static const uint8_t p25[2] = {0x59, 0x0f};
    uint8_t p25full[18] = {0x59, 0x0f};
    assert_int_equal(fz7_7zaes_istream_new(mem, p25full, 18, "x", &s), FZ7_E_UNSUPPORTED);
    assert_null(s);
    /* sizes that disagree with byte 1 */
    assert_int_equal(fz7_7zaes_istream_new(mem, p25, 2, "x", &s), FZ7_E_FORMAT);
    static const uint8_t p_short[1] = {0x53};
    assert_int_equal(fz7_7zaes_istream_new(mem, p_short, 1, "x", &s), FZ7_E_FORMAT);
    static const uint8_t p_bad_len[4] = {0x13, 0x00, 0x00, 0x00};
    assert_int_equal(fz7_7zaes_istream_new(mem, p_bad_len, 4, "x", &s), FZ7_E_FORMAT);
    uint8_t p19[18] = {0x53, 0x0f};
    assert_int_equal(fz7_7zaes_istream_new(mem, p19, 18, NULL, &s), FZ7_E_NEED_PASSWORD);
    /* ciphertext that ends inside a block */
    static const uint8_t p_fast[1] = {0x02};
    fz7_istream *mem5 = fz7_istream_from_memory(ct, 21);
    assert_int_equal(fz7_7zaes_istream_new(mem5, p_fast, 1, "x", &s), FZ7_OK);
    uint8_t out[64];
    size_t got;
    assert_int_equal(s->read(s, out, sizeof out, &got), FZ7_OK);
    assert_int_equal(got, 16);
    assert_int_equal(s->read(s, out, sizeof out, &got), FZ7_E_DATA);
    fz7_istream_free(s);
    fz7_istream_free(mem5);

    /* Every byte 1 and length with power 0x3F (no hashing): accepted
     * exactly when the length is 2 + salt size + IV size, where bit 7 adds
     * one salt byte, bit 6 one IV byte. Powers 25..62 are refused. */
    uint8_t pr[40] = {0};
    for (unsigned flags = 0; flags < 4; flags++) {
        pr[0] = (uint8_t)(flags << 6 | 0x3F);
        for (unsigned b1 = 0; b1 < 256; b1++) {
            pr[1] = (uint8_t)b1;
            size_t expect = flags ? 2 + (flags >> 1) + (b1 >> 4) + (flags & 1) + (b1 & 15) : 1;
            for (size_t len = 1; len < sizeof pr; len++) {
                fz7_status st = fz7_7zaes_istream_new(mem, pr, len, "pw", &s);
                if (st != (len == expect ? FZ7_OK : FZ7_E_FORMAT))
                    fail_msg("props %02x %02x, %zu bytes: status %d", pr[0], b1, len, (int)st);
                fz7_istream_free(s);
            }
        }
    }
    for (unsigned power = 25; power < 63; power++) {
        pr[0] = (uint8_t)(0x40 | power);
        pr[1] = 0x0F;
        assert_int_equal(fz7_7zaes_istream_new(mem, pr, 18, "pw", &s), FZ7_E_UNSUPPORTED);
        assert_null(s);
    }
    fz7_istream_free(mem);
}

typedef struct mem_sink {
    fz7_ostream base;
    uint8_t *p;
    size_t n, cap;
} mem_sink;

static fz7_status sink_write(fz7_ostream *o, const uint8_t *p, size_t n)
{
    mem_sink *m = (mem_sink *)o;
    if (m->n + n > m->cap)
        return FZ7_E_IO;
    memcpy(m->p + m->n, p, n);
    m->n += n;
    return FZ7_OK;
}

/* A source that hands out at most 5 bytes per read. */
typedef struct trickle {
    fz7_istream base;
    const uint8_t *p;
    size_t n;
} trickle;

static fz7_status trickle_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    trickle *t = (trickle *)s;
    size_t k = t->n < 5 ? t->n : 5;
    k = k < cap ? k : cap;
    memcpy(buf, t->p, k);
    t->p += k;
    t->n -= k;
    *got = k;
    return FZ7_OK;
}

static void trickle_destroy(fz7_istream *s) { (void)s; }

/* Reads all of s with reads of cap bytes. */
static size_t drain(fz7_istream *s, uint8_t *out, size_t max, size_t cap)
{
    size_t n = 0, got;
    do {
        size_t want = cap < max - n ? cap : max - n;
        assert_int_equal(s->read(s, out + n, want ? want : 1, &got), FZ7_OK);
        n += got;
    } while (got);
    return n;
}

static void test_7zaes_round_trip(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 15, 16, 17, 1000, 262144, 600001};
    const size_t max = 600016;
    uint8_t *plain = malloc(max), *out = malloc(max + 16);
    mem_sink sink = {{sink_write}, malloc(max), 0, max};
    assert_non_null(plain);
    assert_non_null(out);
    assert_non_null(sink.p);
    g_rng = 0x7a35;
    fill(plain, max);
    fz7_7zaes_key *key;
    assert_int_equal(fz7_7zaes_key_new("correct horse", &key), FZ7_OK);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        fz7_7zaes_writer *w;
        sink.n = 0;
        assert_int_equal(fz7_7zaes_writer_new(key, &sink.base, &w), FZ7_OK);
        fz7_ostream *o = fz7_7zaes_writer_stream(w);
        size_t half = n / 3;                       /* two writes */
        assert_int_equal(o->write(o, plain, half), FZ7_OK);
        assert_int_equal(o->write(o, plain + half, n - half), FZ7_OK);
        uint64_t pack;
        assert_int_equal(fz7_7zaes_writer_finish(w, &pack), FZ7_OK);
        assert_int_equal(pack, (n + 15) & ~(size_t)15);
        assert_int_equal(sink.n, pack);
        uint8_t props[FZ7_7ZAES_PROPS_MAX];
        assert_int_equal(fz7_7zaes_writer_props(w, props), 34);
        assert_int_equal(props[0], 0xC0 | 19);
        assert_int_equal(props[1], 0xFF);
        fz7_7zaes_writer_free(w);
        if (n >= 16)                               /* it is not the plaintext */
            assert_true(memcmp(sink.p, plain, 16) != 0);
        /* small reads (buffered path) and big reads (in the caller's buffer) */
        static const size_t caps[] = {7, 4096, 1u << 20};
        for (size_t c = 0; c < 3; c++) {
            fz7_istream *mem = fz7_istream_from_memory(sink.p, sink.n), *s;
            assert_int_equal(fz7_7zaes_istream_new(mem, props, 34, "correct horse", &s), FZ7_OK);
            size_t got = drain(s, out, max + 16, caps[c]);
            assert_int_equal(got, pack);
            assert_memory_equal(out, plain, n);
            for (size_t j = n; j < got; j++)
                assert_int_equal(out[j], 0);
            fz7_istream_free(s);
            fz7_istream_free(mem);
        }
        /* a source that returns 5 bytes at a time */
        for (size_t c = 0; c < 3; c++) {
            trickle t = {{trickle_read, trickle_destroy}, sink.p, sink.n};
            fz7_istream *s;
            assert_int_equal(fz7_7zaes_istream_new(&t.base, props, 34, "correct horse", &s), FZ7_OK);
            assert_int_equal(drain(s, out, max + 16, caps[c]), pack);
            assert_memory_equal(out, plain, n);
            fz7_istream_free(s);
        }
        /* a wrong password does not give the plaintext back */
        if (n >= 16) {
            fz7_istream *mem = fz7_istream_from_memory(sink.p, sink.n), *s;
            assert_int_equal(fz7_7zaes_istream_new(mem, props, 34, "wrong horse", &s), FZ7_OK);
            drain(s, out, max + 16, 4096);
            assert_true(memcmp(out, plain, 16) != 0);
            fz7_istream_free(s);
            fz7_istream_free(mem);
        }
    }
    fz7_7zaes_key_free(key);
    fz7_7zaes_cache_clear();
    free(plain);
    free(out);
    free(sink.p);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 64);
    if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return p;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* 7zz makes a one-file archive (Copy + 7zAES, plain header): its pack
 * stream starts at byte 32 and runs to the next header; the coder's
 * properties follow the method id 06F10701 in the header. Decrypting it
 * gives the file. Then the properties and pack stream are replaced by our
 * encryptor's (salt + IV, 34 bytes), the start header's CRCs fixed, and
 * 7zz must extract the file from that archive. */
static void test_7zaes_with_7zz(void **state)
{
    (void)state;
    if (system("command -v 7zz >/dev/null 2>&1") != 0) {
        printf("test_aes: SKIP 7zz interop (7zz not installed)\n");
        skip();
    }
    char dir[] = "/tmp/fz7_test_aes_XXXXXX", cmd[512], path[300];
    assert_non_null(mkdtemp(dir));
    static const char text[] = "7zAES known-answer file: fz7 must decrypt what 7zz encrypted.\n"
                               "A second line makes it longer than four AES blocks.\n";
    const size_t tlen = sizeof text - 1;
    snprintf(path, sizeof path, "%s/f.txt", dir);
    assert_int_equal(write_file(path, (const uint8_t *)text, tlen), 0);
    snprintf(cmd, sizeof cmd, "cd %s && 7zz a -m0=Copy -mhe=off -mhc=off -psecret t.7z f.txt >/dev/null", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t.7z", dir);
    size_t n;
    uint8_t *a = read_file(path, &n);
    assert_non_null(a);
    uint64_t next_off = fz7_get64le(a + 12), next_size = fz7_get64le(a + 20);
    assert_true(32 + next_off + next_size == n);
    uint8_t *hdr = a + 32 + next_off;
    size_t props_at = 0;
    for (size_t i = 0; i + 6 < next_size; i++)
        if (hdr[i] == 0x24 && hdr[i + 1] == 0x06 && hdr[i + 2] == 0xF1 && hdr[i + 3] == 0x07 &&
            hdr[i + 4] == 0x01)
            props_at = i + 5;
    assert_true(props_at != 0);
    size_t props_len = hdr[props_at];
    assert_int_equal(props_len, 18);              /* 53 0f + 16-byte IV */
    assert_int_equal(hdr[props_at + 1], 0x53);
    assert_int_equal(hdr[props_at + 2], 0x0f);
    assert_int_equal(next_off, (tlen + 15) & ~(size_t)15);

    fz7_istream *mem = fz7_istream_from_memory(a + 32, next_off), *s;
    assert_int_equal(fz7_7zaes_istream_new(mem, hdr + props_at + 1, props_len, "secret", &s), FZ7_OK);
    uint8_t out[256];
    assert_int_equal(drain(s, out, sizeof out, sizeof out), next_off);
    assert_memory_equal(out, text, tlen);
    fz7_istream_free(s);
    fz7_istream_free(mem);

    /* Our encryptor's output in 7zz's archive. */
    fz7_7zaes_key *key;
    fz7_7zaes_writer *w;
    mem_sink sink = {{sink_write}, malloc(256), 0, 256};
    assert_int_equal(fz7_7zaes_key_new("secret", &key), FZ7_OK);
    assert_int_equal(fz7_7zaes_writer_new(key, &sink.base, &w), FZ7_OK);
    fz7_ostream *o = fz7_7zaes_writer_stream(w);
    assert_int_equal(o->write(o, (const uint8_t *)text, tlen), FZ7_OK);
    uint64_t pack;
    assert_int_equal(fz7_7zaes_writer_finish(w, &pack), FZ7_OK);
    assert_int_equal(pack, next_off);
    uint8_t props[FZ7_7ZAES_PROPS_MAX];
    size_t np = fz7_7zaes_writer_props(w, props);
    uint8_t *b = malloc(n + 64);
    assert_non_null(b);
    memcpy(b, a, 32);
    memcpy(b + 32, sink.p, pack);
    uint8_t *nh = b + 32 + pack;
    memcpy(nh, hdr, props_at);
    nh[props_at] = (uint8_t)np;
    memcpy(nh + props_at + 1, props, np);
    size_t rest = next_size - (props_at + 1 + props_len);
    memcpy(nh + props_at + 1 + np, hdr + props_at + 1 + props_len, rest);
    uint64_t nh_size = props_at + 1 + np + rest;
    fz7_put64le(b + 20, nh_size);
    fz7_put32le(b + 28, fz7_crc32(0, nh, nh_size));
    fz7_put32le(b + 8, fz7_crc32(0, b + 12, 20));
    snprintf(path, sizeof path, "%s/ours.7z", dir);
    assert_int_equal(write_file(path, b, 32 + pack + nh_size), 0);
    snprintf(cmd, sizeof cmd, "cd %s && rm f.txt && 7zz x -psecret ours.7z >/dev/null && cmp -s f.txt ours.ref", dir);
    snprintf(path, sizeof path, "%s/ours.ref", dir);
    assert_int_equal(write_file(path, (const uint8_t *)text, tlen), 0);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cd %s && 7zz t -pwrong ours.7z >/dev/null 2>&1", dir);
    assert_int_not_equal(system(cmd), 0);

    fz7_7zaes_writer_free(w);
    fz7_7zaes_key_free(key);
    fz7_7zaes_cache_clear();
    free(sink.p);
    free(a);
    free(b);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips197_c3),
        cmocka_unit_test(test_nist_cbc),
        cmocka_unit_test(test_differential),
        cmocka_unit_test(test_guard_pages),
        cmocka_unit_test(test_7zaes_kdf),
        cmocka_unit_test(test_7zaes_props),
        cmocka_unit_test(test_7zaes_round_trip),
        cmocka_unit_test(test_7zaes_with_7zz),
    };
    return cmocka_run_group_tests(tests, setup_paths, NULL);
}
