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
#include "cpu/dispatch.h"
#include "cpu/kernels.h"
#include "crypto/aes.h"

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
    if (!available)
        printf("test_aes: SKIP path %s (CPU lacks the features)\n", name);
}

static int setup_paths(void **state)
{
    (void)state;
    const fz7_cpu_features *f = fz7_cpu_features_get();
    (void)f;
    g_npaths = 0;
    add_path("dec portable", fz7_aes_cbc_dec_portable, 1, 1);
    add_path("enc portable", fz7_aes_cbc_enc_portable, 0, 1);
#ifdef FZ7_HAVE_X86_KERNELS
    add_path("dec aesni", fz7_aes_cbc_dec_aesni, 1, f->aesni && f->sse41);
    add_path("enc aesni", fz7_aes_cbc_enc_aesni, 0, f->aesni && f->sse41);
    add_path("dec vaes256", fz7_aes_cbc_dec_vaes256, 1, f->aesni && f->vaes && f->avx2);
#ifdef FZ7_HAVE_NASM
    add_path("dec vaes512", fz7_aes_cbc_dec_vaes512, 1, f->aesni && f->vaes && f->avx512f);
#else
    printf("test_aes: SKIP path dec vaes512 (built without NASM)\n");
#endif
#else
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
    /* The dispatch table on every level gives the same answers. */
    for (int lvl = 0; lvl <= (int)fz7_cpu_max_level(); lvl++) {
        fz7_cpu_set_level((fz7_cpu_level)lvl);
        const fz7_dispatch *d = fz7_dispatch_get();
        uint8_t buf[64], iv[16];
        memcpy(buf, ct, 64);
        memcpy(iv, iv0, 16);
        d->aes_cbc_dec(k.dec, iv, buf, 4);
        assert_memory_equal(buf, pt, 64);
        memcpy(iv, iv0, 16);
        d->aes_cbc_enc(k.enc, iv, buf, 4);
        assert_memory_equal(buf, ct, 64);
        printf("test_aes: level %s: dec %s, enc %s\n", fz7_cpu_level_name((fz7_cpu_level)lvl),
               d->aes_cbc_dec_path, d->aes_cbc_enc_path);
    }
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
        fz7_dispatch_get()->aes_cbc_dec(k.dec, iv, ref, n);
        assert_memory_equal(ref, in, 16 * n);
    }
    free(ref);
    free(in);
    free(work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips197_c3),
        cmocka_unit_test(test_nist_cbc),
        cmocka_unit_test(test_differential),
    };
    return cmocka_run_group_tests(tests, setup_paths, NULL);
}
