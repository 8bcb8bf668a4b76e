/* crc_clmul.c - CRC-32 (IEEE) and CRC-64 (ECMA-182, xz) by carry-less
 * multiplication folding: PCLMULQDQ on 128-bit lanes and VPCLMULQDQ on
 * 512-bit registers. One folding core serves both polynomials; only the
 * constants and the final Barrett reduction differ. */
#include "check/check_kernels.h"

#ifdef FZ7_HAVE_X86_KERNELS

#include <immintrin.h>

/* The arithmetic, in the bit-reflected domain both CRCs use.
 *
 * A 128-bit lane loaded little-endian holds message bits with bit j of the
 * lane standing for x^(127-j): byte 0, bit 0 is the highest power. A 64-bit
 * word holds a polynomial with bit j standing for x^(63-j). The carry-less
 * product of two such words, read as a lane, is then A*B*x (one power too
 * high), which every constant below absorbs by using x^(k-1) for x^k.
 *
 * Folding: a lane X = H*x^64 + L (H = low qword) that sits F bits before the
 * end of the data folded so far contributes X*x^F = H*x^(F+64) + L*x^F, which
 * is congruent mod P to clmul(H, x^(F+63) mod P) ^ clmul(L, x^(F-1) mod P):
 * a value of at most 128 bits that is XORed into the lane F bits ahead.
 *
 * Initial value: XORing the inverted CRC into the first n bits of the data is
 * the same as starting the shift register with it, so the folded lane X is
 * congruent to the whole message and the CRC register is X*x^n mod P,
 * computed by one or two more folds and a Barrett reduction (see the
 * reduce_* functions). Bytes after the last whole 16-byte lane are finished
 * by the slicing-by-8 twin, which continues from that register.
 *
 * The constants were computed with this Python (pmod/pdiv: polynomial
 * remainder and quotient over GF(2); refl(v, w): reverse the low w bits):
 *   P32 = 1<<32 | 0x04C11DB7;  P64 = 1<<64 | 0x42F0E1EBA9EA3693
 *   k(e, P) = refl(pmod(1 << e, P), 64)
 *   fold[j-1] = {k(128*j + 63, P), k(128*j - 1, P)} for j = 1..16
 *   crc32: r1 = k(95), r2 = k(63), mu = refl(pdiv(1<<64, P32), 33),
 *          poly = refl(P32, 33)
 *   crc64: r1 = k(127), mu = refl(pdiv(1<<128, P64) >> 1, 64),
 *          poly = refl(P64 >> 1, 64)
 * and the differential tests check every path against the table CRC. */
typedef struct crc_clmul_consts {
    /* fold[j-1] moves a lane forward by j*128 bits: {for H, for L}. */
    uint64_t fold[16][2];
    uint64_t r1, r2;        /* final folds (r2 unused by CRC-64) */
    uint64_t mu, poly;      /* Barrett quotient constant and polynomial */
} crc_clmul_consts;

static const crc_clmul_consts crc32_k = {
    .fold = {
        {0x65673b4600000000, 0x9ba54c6f00000000}, /*  128 bits */
        {0x9570d49500000000, 0x01b5fd1d00000000}, /*  256 bits */
        {0x69ccfc0d00000000, 0x2a28386200000000}, /*  384 bits */
        {0x653d982200000000, 0xcad38e8f00000000}, /*  512 bits */
        {0x5a03a0cf00000000, 0x8e42b13e00000000}, /*  640 bits */
        {0x759fc69d00000000, 0x101a233100000000}, /*  768 bits */
        {0x019866e800000000, 0xc64ac0b800000000}, /*  896 bits */
        {0x7d657a1000000000, 0x7406fa9500000000}, /* 1024 bits */
        {0x72d2649a00000000, 0x6dd804d900000000}, /* 1152 bits */
        {0x199560db00000000, 0x1d5dce4400000000}, /* 1280 bits */
        {0xdeb15a1f00000000, 0xf09a54ac00000000}, /* 1408 bits */
        {0x67f7947600000000, 0xc56d949600000000}, /* 1536 bits */
        {0x733ffa0b00000000, 0x523d48c400000000}, /* 1664 bits */
        {0x8f739cb400000000, 0xd63a56a600000000}, /* 1792 bits */
        {0x27d0443c00000000, 0xc4d49c3900000000}, /* 1920 bits */
        {0x7cc8e1e700000000, 0x03f9f86300000000}, /* 2048 bits */
    },
    .r1 = 0xccaa009e00000000,
    .r2 = 0xb8bc676500000000,
    .mu = 0x1f7011641,
    .poly = 0x1db710641,
};

static const crc_clmul_consts crc64_k = {
    .fold = {
        {0xe05dd497ca393ae4, 0xdabe95afc7875f40}, /*  128 bits */
        {0x60095b008a9efa44, 0x3be653a30fe1af51}, /*  256 bits */
        {0xb5ea1af9c013aca4, 0x69a35d91c3730254}, /*  384 bits */
        {0x6ae3efbb9dd441f3, 0x081f6054a7842df4}, /*  512 bits */
        {0x2e30203212cac325, 0x0e31d519421a63a5}, /*  640 bits */
        {0x2fe3fd2920ce82ec, 0xe4ce2cd55fea0037}, /*  768 bits */
        {0x9e735cb59b4724da, 0x947874de595052cb}, /*  896 bits */
        {0x8757d71d4fcc1000, 0xd7d86b2af73de740}, /* 1024 bits */
        {0x5d1adbb9d3f6e8b9, 0x586aa86e22ed6674}, /* 1152 bits */
        {0x98dcdb9596c7a6d4, 0x42c626bf46ee3b25}, /* 1280 bits */
        {0x83ae94b2f9b37107, 0x27e0a7dc07da10ec}, /* 1408 bits */
        {0x47b00921f036ff71, 0xb0382771eb06c453}, /* 1536 bits */
        {0xab4fb9b09dea92b8, 0x35436b39686011be}, /* 1664 bits */
        {0xcb43888867d937cc, 0x8161c4608bf31486}, /* 1792 bits */
        {0x2ecbc6dd0447c685, 0xedeb55d8dba532a0}, /* 1920 bits */
        {0x8260adf2381ad81c, 0xf31fd9271e228b79}, /* 2048 bits */
    },
    .r1 = 0xdabe95afc7875f40,
    .r2 = 0,
    .mu = 0x9c3e466c172963d5,
    .poly = 0x92d8af2baf0e1e85,
};

#define TARGET_CLMUL __attribute__((target("pclmul,sse4.1")))
#define TARGET_VPCLMUL512 \
    __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul,sse4.1")))

/* Crossovers: below 32 bytes the table CRC is as fast as one fold and the
 * reduction; below 512 the xmm path beats the zmm one. From 16 KiB on,
 * hashing the bytes up to a 64-byte boundary with the table first pays for
 * itself (unaligned zmm loads split cache lines); for shorter inputs it
 * costs more than it saves. */
#define CLMUL_MIN_BYTES 32
#define VPCLMUL_MIN_BYTES 512
#define VPCLMUL_ALIGN_MIN_BYTES 16384

/* ---- 128-bit lanes (PCLMULQDQ) ---- */

TARGET_CLMUL static inline __m128i fold_k(const crc_clmul_consts *k, unsigned j)
{
    return _mm_loadu_si128((const __m128i *)k->fold[j - 1]);
}

/* x*x^F mod-P-equivalent, k = fold_k(F/128). */
TARGET_CLMUL static inline __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

TARGET_CLMUL static inline __m128i load128(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)p);
}

/* Folds n bytes (n >= 16, a multiple of 16) into one lane; init is XORed
 * into the first lane. Eight independent lanes hide the multiplier latency. */
TARGET_CLMUL static __m128i fold_lanes_128(const crc_clmul_consts *k, __m128i init,
                                           const uint8_t *p, size_t n)
{
    __m128i x;
    if (n >= 128) {
        __m128i x0 = _mm_xor_si128(load128(p), init), x1 = load128(p + 16);
        __m128i x2 = load128(p + 32), x3 = load128(p + 48), x4 = load128(p + 64);
        __m128i x5 = load128(p + 80), x6 = load128(p + 96), x7 = load128(p + 112);
        const __m128i k8 = fold_k(k, 8);
        p += 128;
        n -= 128;
        for (; n >= 128; p += 128, n -= 128) {
            x0 = _mm_xor_si128(fold128(x0, k8), load128(p));
            x1 = _mm_xor_si128(fold128(x1, k8), load128(p + 16));
            x2 = _mm_xor_si128(fold128(x2, k8), load128(p + 32));
            x3 = _mm_xor_si128(fold128(x3, k8), load128(p + 48));
            x4 = _mm_xor_si128(fold128(x4, k8), load128(p + 64));
            x5 = _mm_xor_si128(fold128(x5, k8), load128(p + 80));
            x6 = _mm_xor_si128(fold128(x6, k8), load128(p + 96));
            x7 = _mm_xor_si128(fold128(x7, k8), load128(p + 112));
        }
        /* Lane i lies (7-i)*128 bits before lane 7. */
        x = _mm_xor_si128(x7, fold128(x0, fold_k(k, 7)));
        x = _mm_xor_si128(x, fold128(x1, fold_k(k, 6)));
        x = _mm_xor_si128(x, fold128(x2, fold_k(k, 5)));
        x = _mm_xor_si128(x, fold128(x3, fold_k(k, 4)));
        x = _mm_xor_si128(x, fold128(x4, fold_k(k, 3)));
        x = _mm_xor_si128(x, fold128(x5, fold_k(k, 2)));
        x = _mm_xor_si128(x, fold128(x6, fold_k(k, 1)));
    } else {
        x = _mm_xor_si128(load128(p), init);
        p += 16;
        n -= 16;
    }
    const __m128i k1 = fold_k(k, 1);
    for (; n >= 16; p += 16, n -= 16)
        x = _mm_xor_si128(fold128(x, k1), load128(p));
    return x;
}

/* CRC-32 register = X*x^32 mod P. X*x^32 = H*x^96 + L*x^32: fold H with
 * x^95 mod P to get Y (96 bits, in bits 32..127), fold Y's top 32 bits with
 * x^63 mod P to get Z (64 bits in the high qword), then Barrett:
 * q = floor(Zh*mu / x^32), CRC = Zl ^ low32(q*P), mu = floor(x^64 / P). */
TARGET_CLMUL static uint32_t reduce_crc32(__m128i x)
{
    const __m128i r = _mm_set_epi64x((long long)crc32_k.r2, (long long)crc32_k.r1);
    const __m128i b = _mm_set_epi64x((long long)crc32_k.poly, (long long)crc32_k.mu);
    /* L*x^32: the high qword moved down by 4 bytes, into bits 32..95. */
    __m128i y = _mm_xor_si128(_mm_clmulepi64_si128(x, r, 0x00),
                              _mm_slli_si128(_mm_srli_si128(x, 8), 4));
    __m128i z = _mm_xor_si128(_mm_clmulepi64_si128(y, r, 0x10), y); /* high qword is Z */
    z = _mm_srli_si128(z, 8);                                        /* Z in the low qword */
    __m128i q = _mm_clmulepi64_si128(_mm_and_si128(z, _mm_set_epi64x(0, 0xffffffff)), b, 0x00);
    q = _mm_and_si128(q, _mm_set_epi64x(0, 0xffffffff));
    __m128i t = _mm_xor_si128(z, _mm_clmulepi64_si128(q, b, 0x10));
    return (uint32_t)_mm_extract_epi32(t, 1);
}

/* CRC-64 register = X*x^64 mod P. Y = clmul(H, x^127 mod P) ^ L (128 bits),
 * then Barrett with the 65-bit mu = floor(x^128 / P) and P stored without
 * their x^0 terms: q = low qword of clmul(Yh, mu'), which is exact because
 * the dropped Yh*x^0 term lies below x^128; low64(q*P) = high qword of
 * clmul(q, P') ^ q, P's x^0 term being 1. */
TARGET_CLMUL static uint64_t reduce_crc64(__m128i x)
{
    const __m128i r = _mm_set_epi64x(0, (long long)crc64_k.r1);
    const __m128i b = _mm_set_epi64x((long long)crc64_k.poly, (long long)crc64_k.mu);
    __m128i y = _mm_xor_si128(_mm_clmulepi64_si128(x, r, 0x00), _mm_srli_si128(x, 8));
    __m128i q = _mm_clmulepi64_si128(y, b, 0x00);
    __m128i t = _mm_xor_si128(_mm_xor_si128(y, _mm_clmulepi64_si128(q, b, 0x10)),
                              _mm_slli_si128(q, 8));
    return (uint64_t)_mm_extract_epi64(t, 1);
}

TARGET_CLMUL uint32_t fz7_crc32_pclmul(uint32_t crc, const uint8_t *p, size_t n)
{
    if (n < CLMUL_MIN_BYTES)
        return fz7_crc32_portable(crc, p, n);
    size_t bulk = n & ~(size_t)15;
    __m128i x = fold_lanes_128(&crc32_k, _mm_cvtsi32_si128((int)~crc), p, bulk);
    return fz7_crc32_portable(~reduce_crc32(x), p + bulk, n - bulk);
}

TARGET_CLMUL uint64_t fz7_crc64_pclmul(uint64_t crc, const uint8_t *p, size_t n)
{
    if (n < CLMUL_MIN_BYTES)
        return fz7_crc64_portable(crc, p, n);
    size_t bulk = n & ~(size_t)15;
    __m128i x = fold_lanes_128(&crc64_k, _mm_cvtsi64_si128((long long)~crc), p, bulk);
    return fz7_crc64_portable(~reduce_crc64(x), p + bulk, n - bulk);
}

/* ---- 512-bit registers (VPCLMULQDQ), four 128-bit lanes each ---- */

TARGET_VPCLMUL512 static inline __m512i fold_k512(const crc_clmul_consts *k, unsigned j)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)k->fold[j - 1]));
}

/* fold(x) ^ d in every lane; 0x96 is the three-way XOR truth table. */
TARGET_VPCLMUL512 static inline __m512i fold512_xor(__m512i x, __m512i k, __m512i d)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96);
}

/* Folds n bytes (n >= 256, a multiple of 16) into one 128-bit lane: four
 * registers (16 lanes, 256 bytes) in flight, then one register, then lanes. */
TARGET_VPCLMUL512 static __m128i fold_lanes_512(const crc_clmul_consts *k, __m128i init,
                                                const uint8_t *p, size_t n)
{
    __m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(init));
    __m512i z1 = _mm512_loadu_si512(p + 64);
    __m512i z2 = _mm512_loadu_si512(p + 128);
    __m512i z3 = _mm512_loadu_si512(p + 192);
    p += 256;
    n -= 256;
    const __m512i k16 = fold_k512(k, 16);
    for (; n >= 256; p += 256, n -= 256) {
        z0 = fold512_xor(z0, k16, _mm512_loadu_si512(p));
        z1 = fold512_xor(z1, k16, _mm512_loadu_si512(p + 64));
        z2 = fold512_xor(z2, k16, _mm512_loadu_si512(p + 128));
        z3 = fold512_xor(z3, k16, _mm512_loadu_si512(p + 192));
    }
    /* Register i lies (3-i)*512 bits before register 3. */
    __m512i z = fold512_xor(z0, fold_k512(k, 12), z3);
    z = fold512_xor(z1, fold_k512(k, 8), z);
    z = fold512_xor(z2, fold_k512(k, 4), z);
    const __m512i k4 = fold_k512(k, 4);
    for (; n >= 64; p += 64, n -= 64)
        z = fold512_xor(z, k4, _mm512_loadu_si512(p));
    /* Lane i of z lies (3-i)*128 bits before lane 3. */
    __m128i x = _mm512_extracti32x4_epi32(z, 3);
    x = _mm_xor_si128(x, fold128(_mm512_castsi512_si128(z), fold_k(k, 3)));
    x = _mm_xor_si128(x, fold128(_mm512_extracti32x4_epi32(z, 1), fold_k(k, 2)));
    x = _mm_xor_si128(x, fold128(_mm512_extracti32x4_epi32(z, 2), fold_k(k, 1)));
    const __m128i k1 = fold_k(k, 1);
    for (; n >= 16; p += 16, n -= 16)
        x = _mm_xor_si128(fold128(x, k1), load128(p));
    return x;
}

/* Bytes to the next 64-byte boundary, so that the zmm loads do not split
 * cache lines; they go through the table CRC first. */
static size_t head_to_align64(const uint8_t *p, size_t n)
{
    return n >= VPCLMUL_ALIGN_MIN_BYTES ? (size_t)(-(uintptr_t)p & 63) : 0;
}

TARGET_VPCLMUL512 uint32_t fz7_crc32_vpclmul512(uint32_t crc, const uint8_t *p, size_t n)
{
    if (n < VPCLMUL_MIN_BYTES)
        return fz7_crc32_pclmul(crc, p, n);
    size_t head = head_to_align64(p, n);
    crc = fz7_crc32_portable(crc, p, head);
    p += head;
    n -= head;
    size_t bulk = n & ~(size_t)15;
    __m128i x = fold_lanes_512(&crc32_k, _mm_cvtsi32_si128((int)~crc), p, bulk);
    return fz7_crc32_portable(~reduce_crc32(x), p + bulk, n - bulk);
}

TARGET_VPCLMUL512 uint64_t fz7_crc64_vpclmul512(uint64_t crc, const uint8_t *p, size_t n)
{
    if (n < VPCLMUL_MIN_BYTES)
        return fz7_crc64_pclmul(crc, p, n);
    size_t head = head_to_align64(p, n);
    crc = fz7_crc64_portable(crc, p, head);
    p += head;
    n -= head;
    size_t bulk = n & ~(size_t)15;
    __m128i x = fold_lanes_512(&crc64_k, _mm_cvtsi64_si128((long long)~crc), p, bulk);
    return fz7_crc64_portable(~reduce_crc64(x), p + bulk, n - bulk);
}

#endif /* FZ7_HAVE_X86_KERNELS */
