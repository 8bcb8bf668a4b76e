/* sha256.c - SHA-256 (FIPS 180-4): incremental front end and the two
 * compression functions, portable and SHA-NI, kept together so that they
 * share the round constants. */
#include "check/check.h"
#include "check/check_kernels.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

void fz7_sha256_blocks_portable(uint32_t state[8], const uint8_t *p, size_t nblocks)
{
    while (nblocks--) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1;
            d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
        p += 64;
    }
}

#ifdef FZ7_HAVE_X86_KERNELS
#include <immintrin.h>

/* SHA-NI compression (Intel SHA extensions). SHA256RNDS2 runs two rounds on
 * the state split as ABEF and CDGH (A in the top dword) with W[t]+K[t] for
 * the two rounds in the low qword of its third operand; after two rounds
 * the old ABEF becomes the new CDGH. SHA256MSG1/MSG2 compute four schedule
 * words W[t..t+3] (FIPS 180-4 section 6.2.2 step 1) from the previous 16:
 * MSG1 adds sigma0(W[t-15]) to W[t-16], the W[t-7] terms are an ALIGNR of
 * the two newest groups, and MSG2 adds sigma1(W[t-2]). */
__attribute__((target("sha,sse4.1")))
void fz7_sha256_blocks_shani(uint32_t state[8], const uint8_t *p, size_t nblocks)
{
    /* Byte order within each dword: message words are big-endian. */
    const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xB1);      /* B A D C */
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1B); /* H G F E */
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);    /* dwords 0..3: F E B A */
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0); /* dwords 0..3: H G D C */

    while (nblocks--) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m[4];
        for (int i = 0; i < 4; i++)
            m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            /* m[g&3] holds W[4g-16..]; the others hold the three newer groups. */
            if (g >= 4) {
                __m128i w = _mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]);
                w = _mm_add_epi32(w, _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
                m[g & 3] = _mm_sha256msg2_epu32(w, m[(g + 3) & 3]);
            }
            __m128i wk = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)(K + 4 * g)));
            __m128i next = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            cdgh = abef;
            abef = next;
            next = _mm_sha256rnds2_epu32(cdgh, abef, _mm_shuffle_epi32(wk, 0x0E));
            cdgh = abef;
            abef = next;
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
        p += 64;
    }

    __m128i t1 = _mm_shuffle_epi32(abef, 0x1B); /* A B E F */
    __m128i t2 = _mm_shuffle_epi32(cdgh, 0xB1); /* G H C D */
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(t1, t2, 0xF0));     /* A B C D */
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(t2, t1, 8)); /* E F G H */
}
#endif

static const fz7_sha256_kernel sha256_kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_sha256_blocks_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"sha-ni", {FZ7_LEVEL_AVX2, FZ7_CPU_SHA | FZ7_CPU_SSE41}}, fz7_sha256_blocks_shani},
#endif
};

const fz7_sha256_kernel *fz7_sha256_kernels(size_t *n)
{
    *n = sizeof sha256_kernels / sizeof sha256_kernels[0];
    return sha256_kernels;
}

const fz7_sha256_kernel *fz7_sha256_pick(void)
{
    return FZ7_KERNEL_PICK(sha256_kernels);
}

void fz7_sha256_init(fz7_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->state, iv, sizeof iv);
    s->total = 0;
    s->fill = 0;
}

void fz7_sha256_update(fz7_sha256 *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    fz7_sha256_blocks_fn blocks = fz7_sha256_pick()->fn;
    s->total += n;
    if (s->fill) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
        if (s->fill < 64)
            return;
        blocks(s->state, s->buf, 1);
        s->fill = 0;
    }
    if (n >= 64) {
        blocks(s->state, p, n / 64);
        p += n & ~(size_t)63;
        n &= 63;
    }
    if (n) {
        memcpy(s->buf, p, n);
        s->fill = n;
    }
}

void fz7_sha256_final(fz7_sha256 *s, uint8_t digest[32])
{
    uint64_t bits = s->total * 8;
    uint8_t pad[72];
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    for (int i = 0; i < 8; i++)
        pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    fz7_sha256_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->state[i];
    }
}
