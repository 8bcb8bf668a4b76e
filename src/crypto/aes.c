/* aes.c - AES-256 key schedule and the portable, constant-time CBC kernels.
 * No table is indexed by secret data: the state is bitsliced (slice k holds
 * bit k of 64 state bytes = 4 blocks) and the S-box is computed as x^254 in
 * GF(2^8) then the affine map (FIPS-197 5.1.1). Correct, not fast. */
#include "crypto/aes.h"

#include <string.h>

/* ---- Bitsliced representation -------------------------------------------
 * Bit position of state byte (row r, column c) of block b (0..3) within a
 * 64-bit slice: r*16 + b*4 + c. A row of all 4 blocks is then one 16-bit
 * segment, so MixColumns reaches row r+1 by rotating the slice right by 16,
 * and ShiftRows rotates the 4-bit column groups of each row segment. */

typedef struct { uint64_t s[8]; } slices;

/* 8x8 bit matrix transpose: bit j of byte i <-> bit i of byte j. */
static uint64_t transpose8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x ^= t ^ (t << 28);
    return x;
}

/* Byte m of every slice covers row m/2 of blocks 2*(m%2) and 2*(m%2)+1:
 * bit q is column q%4 of block 2*(m%2) + q/4. Returns that state byte's
 * offset in the 64 input bytes. */
static unsigned group_offset(unsigned m, unsigned q)
{
    unsigned block = 2 * (m & 1) + (q >> 2), row = m >> 1, col = q & 3;
    return 16 * block + row + 4 * col;
}

/* Packs nblocks (0..4) blocks; missing blocks are zero. Per slice byte m:
 * gather its 8 state bytes, transpose, and byte k is slice k's byte m. */
static void pack(slices *x, const uint8_t *in, unsigned nblocks)
{
    memset(x, 0, sizeof *x);
    for (unsigned m = 0; m < 8; m++) {
        uint64_t v = 0;
        for (unsigned q = 0; q < 8; q++) {
            unsigned off = group_offset(m, q);
            if (off / 16 < nblocks)
                v |= (uint64_t)in[off] << (8 * q);
        }
        v = transpose8(v);
        for (unsigned k = 0; k < 8; k++)
            x->s[k] |= ((v >> (8 * k)) & 0xFF) << (8 * m);
    }
}

static void unpack(uint8_t *out, const slices *x, unsigned nblocks)
{
    for (unsigned m = 0; m < 8; m++) {
        uint64_t v = 0;
        for (unsigned k = 0; k < 8; k++)
            v |= ((x->s[k] >> (8 * m)) & 0xFF) << (8 * k);
        v = transpose8(v);
        for (unsigned q = 0; q < 8; q++) {
            unsigned off = group_offset(m, q);
            if (off / 16 < nblocks)
                out[off] = (uint8_t)(v >> (8 * q));
        }
    }
}

/* ---- GF(2^8) arithmetic on slices (modulus x^8 + x^4 + x^3 + x + 1) ---- */

/* Product of a and b: schoolbook into 15 partial slices, then each slice of
 * degree k >= 8 folded down by x^8 = x^4 + x^3 + x + 1 (highest first). */
static void gf_mul(slices *out, const slices *a, const slices *b)
{
    uint64_t p[15] = {0};
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++)
            p[i + j] ^= a->s[i] & b->s[j];
#pragma GCC unroll 7
    for (int k = 14; k >= 8; k--) {
        p[k - 4] ^= p[k];
        p[k - 5] ^= p[k];
        p[k - 7] ^= p[k];
        p[k - 8] ^= p[k];
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
        out->s[i] = p[i];
}

/* Squaring is linear: sum a_i x^2i with x^8..x^14 reduced in advance. */
static void gf_sqr(slices *out, const slices *x)
{
    const uint64_t *a = x->s;
    uint64_t b0 = a[0] ^ a[4] ^ a[6], b1 = a[4] ^ a[6] ^ a[7], b2 = a[1] ^ a[5];
    uint64_t b3 = a[4] ^ a[5] ^ a[6] ^ a[7], b4 = a[2] ^ a[4] ^ a[7], b5 = a[5] ^ a[6];
    uint64_t b6 = a[3] ^ a[5], b7 = a[6] ^ a[7];
    out->s[0] = b0; out->s[1] = b1; out->s[2] = b2; out->s[3] = b3;
    out->s[4] = b4; out->s[5] = b5; out->s[6] = b6; out->s[7] = b7;
}

/* x^254 = x^-1 (and 0 -> 0): 4 multiplications, 7 squarings. */
static void gf_inv(slices *x)
{
    slices x2, x3, x12, x15, t;
    gf_sqr(&x2, x);
    gf_mul(&x3, &x2, x);
    gf_sqr(&t, &x3);          /* x^6 */
    gf_sqr(&x12, &t);
    gf_mul(&x15, &x12, &x3);
    gf_sqr(&t, &x15);         /* x^30 */
    gf_sqr(&t, &t);           /* x^60 */
    gf_sqr(&t, &t);           /* x^120 */
    gf_sqr(&t, &t);           /* x^240 */
    gf_mul(&t, &t, &x12);     /* x^252 */
    gf_mul(x, &t, &x2);       /* x^254 */
}

static void sub_bytes(slices *x)
{
    gf_inv(x);
    const uint64_t *b = x->s;
    uint64_t o[8];
    for (int i = 0; i < 8; i++)
        o[i] = b[i] ^ b[(i + 4) & 7] ^ b[(i + 5) & 7] ^ b[(i + 6) & 7] ^ b[(i + 7) & 7];
    /* + 0x63: bits 0, 1, 5, 6 */
    o[0] = ~o[0]; o[1] = ~o[1]; o[5] = ~o[5]; o[6] = ~o[6];
    memcpy(x->s, o, sizeof o);
}

static void inv_sub_bytes(slices *x)
{
    const uint64_t *b = x->s;
    uint64_t o[8];
    /* Inverse affine map: bit i = b(i+2) ^ b(i+5) ^ b(i+7) ^ bit i of 0x05. */
    for (int i = 0; i < 8; i++)
        o[i] = b[(i + 2) & 7] ^ b[(i + 5) & 7] ^ b[(i + 7) & 7];
    o[0] = ~o[0]; o[2] = ~o[2];
    memcpy(x->s, o, sizeof o);
    gf_inv(x);
}

/* Row r is bits 16r..16r+15: four 4-bit groups (one per block) of columns
 * 0..3. ShiftRows gives new column c the old column c + r (mod 4): within
 * each group, a right shift by r for columns 0..3-r, a left shift by 4 - r
 * for the others; the masks keep each row's bits in its own groups. */
#define ROW(r, m) ((uint64_t)(m) << (16 * (r)))

static void shift_rows(slices *x)
{
    for (int k = 0; k < 8; k++) {
        uint64_t v = x->s[k];
        x->s[k] = (v & ROW(0, 0xFFFF)) |
                  ((v >> 1) & ROW(1, 0x7777)) | ((v << 3) & ROW(1, 0x8888)) |
                  ((v >> 2) & ROW(2, 0x3333)) | ((v << 2) & ROW(2, 0xCCCC)) |
                  ((v >> 3) & ROW(3, 0x1111)) | ((v << 1) & ROW(3, 0xEEEE));
    }
}

/* InvShiftRows: new column c takes old column c - r, i.e. shift by 4 - r. */
static void inv_shift_rows(slices *x)
{
    for (int k = 0; k < 8; k++) {
        uint64_t v = x->s[k];
        x->s[k] = (v & ROW(0, 0xFFFF)) |
                  ((v >> 3) & ROW(1, 0x1111)) | ((v << 1) & ROW(1, 0xEEEE)) |
                  ((v >> 2) & ROW(2, 0x3333)) | ((v << 2) & ROW(2, 0xCCCC)) |
                  ((v >> 1) & ROW(3, 0x7777)) | ((v << 3) & ROW(3, 0x8888));
    }
}

static uint64_t ror(uint64_t v, unsigned n) { return (v >> n) | (v << (64 - n)); }

/* Multiplication by x (02) of every byte. */
static void xtime(slices *o, const slices *t)
{
    uint64_t h = t->s[7];
    o->s[7] = t->s[6];
    o->s[6] = t->s[5];
    o->s[5] = t->s[4];
    o->s[4] = t->s[3] ^ h;
    o->s[3] = t->s[2] ^ h;
    o->s[2] = t->s[1];
    o->s[1] = t->s[0] ^ h;
    o->s[0] = h;
}

/* out[r] = 02*a[r] ^ 03*a[r+1] ^ a[r+2] ^ a[r+3] = 02*(a[r]^a[r+1]) ^ a[r+1]
 * ^ a[r+2] ^ a[r+3]; row r+1 is the slice rotated right by 16. */
static void mix_columns(slices *x)
{
    slices t, t2;
    for (int k = 0; k < 8; k++)
        t.s[k] = x->s[k] ^ ror(x->s[k], 16);
    xtime(&t2, &t);
    for (int k = 0; k < 8; k++)
        x->s[k] = t2.s[k] ^ ror(x->s[k], 16) ^ ror(x->s[k], 32) ^ ror(x->s[k], 48);
}

/* InvMixColumns = MixColumns after a[r] ^= 04*(a[r] ^ a[r+2]): the
 * circulant (0e 0b 0d 09) is (02 03 01 01) times (05 00 04 00). */
static void inv_mix_columns(slices *x)
{
    slices t, t2;
    for (int k = 0; k < 8; k++)
        t.s[k] = x->s[k] ^ ror(x->s[k], 32);
    xtime(&t2, &t);
    xtime(&t, &t2);
    for (int k = 0; k < 8; k++)
        x->s[k] ^= t.s[k];
    mix_columns(x);
}

static void add_round_key(slices *x, const slices *rk)
{
    for (int k = 0; k < 8; k++)
        x->s[k] ^= rk->s[k];
}

/* Round keys packed for all 4 block positions. */
static void pack_round_keys(slices rks[15], const uint8_t *rk)
{
    uint8_t rep[64];
    for (int i = 0; i < 15; i++) {
        for (int b = 0; b < 4; b++)
            memcpy(rep + 16 * b, rk + 16 * i, 16);
        pack(&rks[i], rep, 4);
    }
    explicit_bzero(rep, sizeof rep);
}

static void encrypt_slices(slices *x, const slices rks[15])
{
    add_round_key(x, &rks[0]);
    for (int r = 1; r < FZ7_AES256_ROUNDS; r++) {
        sub_bytes(x);
        shift_rows(x);
        mix_columns(x);
        add_round_key(x, &rks[r]);
    }
    sub_bytes(x);
    shift_rows(x);
    add_round_key(x, &rks[14]);
}

/* Equivalent inverse cipher (FIPS-197 5.3.5) with the dec schedule: the
 * order AESDEC uses, so every path shares one schedule. */
static void decrypt_slices(slices *x, const slices rks[15])
{
    add_round_key(x, &rks[0]);
    for (int r = 1; r < FZ7_AES256_ROUNDS; r++) {
        inv_sub_bytes(x);
        inv_shift_rows(x);
        inv_mix_columns(x);
        add_round_key(x, &rks[r]);
    }
    inv_sub_bytes(x);
    inv_shift_rows(x);
    add_round_key(x, &rks[14]);
}

void fz7_aes_cbc_dec_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    slices rks[15], x;
    uint8_t prev[16], cipher[64];
    pack_round_keys(rks, rk);
    memcpy(prev, iv, 16);
    while (nblocks) {
        unsigned n = nblocks < 4 ? (unsigned)nblocks : 4;
        memcpy(cipher, buf, 16 * n);
        pack(&x, cipher, n);
        decrypt_slices(&x, rks);
        unpack(buf, &x, n);
        for (unsigned b = 0; b < n; b++) {
            const uint8_t *chain = b == 0 ? prev : cipher + 16 * (b - 1);
            for (int i = 0; i < 16; i++)
                buf[16 * b + i] ^= chain[i];
        }
        memcpy(prev, cipher + 16 * (n - 1), 16);
        buf += 16 * n;
        nblocks -= n;
    }
    memcpy(iv, prev, 16);
    explicit_bzero(rks, sizeof rks);
    explicit_bzero(&x, sizeof x);
}

void fz7_aes_cbc_enc_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    slices rks[15], x;
    uint8_t chain[16];
    pack_round_keys(rks, rk);
    memcpy(chain, iv, 16);
    for (; nblocks; nblocks--, buf += 16) {
        for (int i = 0; i < 16; i++)
            chain[i] ^= buf[i];
        pack(&x, chain, 1);
        encrypt_slices(&x, rks);
        unpack(chain, &x, 1);
        memcpy(buf, chain, 16);
    }
    memcpy(iv, chain, 16);
    explicit_bzero(rks, sizeof rks);
    explicit_bzero(&x, sizeof x);
}

/* ---- Key schedule (FIPS-197 5.2, Nk = 8) ---- */

/* S-box of n (<= 64) bytes in place, through the bitsliced S-box. */
static void sub_bytes_n(uint8_t *v, unsigned n)
{
    slices x;
    memset(&x, 0, sizeof x);
    for (unsigned j = 0; j < n; j++)
        for (unsigned k = 0; k < 8; k++)
            x.s[k] |= (uint64_t)((v[j] >> k) & 1) << j;
    sub_bytes(&x);
    for (unsigned j = 0; j < n; j++) {
        unsigned b = 0;
        for (unsigned k = 0; k < 8; k++)
            b |= (unsigned)((x.s[k] >> j) & 1) << k;
        v[j] = (uint8_t)b;
    }
    explicit_bzero(&x, sizeof x);
}

static uint8_t mul2(uint8_t a) { return (uint8_t)((a << 1) ^ (0x1b & -(a >> 7))); }

/* InvMixColumns of one round key (byte form, no secret-indexed tables). */
static void inv_mix_key(uint8_t out[16], const uint8_t in[16])
{
    for (int c = 0; c < 4; c++) {
        const uint8_t *a = in + 4 * c;
        for (int r = 0; r < 4; r++) {
            uint8_t a0 = a[r], a1 = a[(r + 1) & 3], a2 = a[(r + 2) & 3], a3 = a[(r + 3) & 3];
            /* 0e*a0 ^ 0b*a1 ^ 0d*a2 ^ 09*a3 */
            uint8_t x2_0 = mul2(a0), x4_0 = mul2(x2_0), x8_0 = mul2(x4_0);
            uint8_t x2_1 = mul2(a1), x8_1 = mul2(mul2(x2_1));
            uint8_t x4_2 = mul2(mul2(a2)), x8_2 = mul2(x4_2);
            uint8_t x8_3 = mul2(mul2(mul2(a3)));
            out[4 * c + r] = (uint8_t)((x8_0 ^ x4_0 ^ x2_0) ^ (x8_1 ^ x2_1 ^ a1) ^
                                       (x8_2 ^ x4_2 ^ a2) ^ (x8_3 ^ a3));
        }
    }
}

void fz7_aes256_expand(fz7_aes256_key *k, const uint8_t key[FZ7_AES256_KEY_BYTES])
{
    uint8_t w[60][4];
    uint8_t rcon = 1;
    memcpy(w, key, 32);
    for (int i = 8; i < 60; i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % 8 == 0) {
            uint8_t r0 = t[0];
            t[0] = t[1]; t[1] = t[2]; t[2] = t[3]; t[3] = r0;
            sub_bytes_n(t, 4);
            t[0] ^= rcon;
            rcon = mul2(rcon);
        } else if (i % 8 == 4) {
            sub_bytes_n(t, 4);
        }
        for (int j = 0; j < 4; j++)
            w[i][j] = w[i - 8][j] ^ t[j];
        explicit_bzero(t, sizeof t);
    }
    memcpy(k->enc, w, 240);
    memcpy(k->dec[0], k->enc[14], 16);
    for (int i = 1; i < 14; i++)
        inv_mix_key(k->dec[i], k->enc[14 - i]);
    memcpy(k->dec[14], k->enc[0], 16);
    explicit_bzero(w, sizeof w);
}

void fz7_aes256_wipe(fz7_aes256_key *k)
{
    explicit_bzero(k, sizeof *k);
}

/* ---- The kernel tables ----
 * AES-NI needs SSE4.1 too; VAES on ymm also AVX2; VAES on zmm waits for the
 * avx512 level. CBC encryption is one serial chain: only AES-NI helps. */
static const fz7_aes_cbc_kernel dec_kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_aes_cbc_dec_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"aesni", {FZ7_LEVEL_AVX2, FZ7_CPU_AESNI | FZ7_CPU_SSE41}}, fz7_aes_cbc_dec_aesni},
    {{"vaes256", {FZ7_LEVEL_AVX2, FZ7_CPU_AESNI | FZ7_CPU_SSE41 | FZ7_CPU_VAES | FZ7_CPU_AVX2}},
     fz7_aes_cbc_dec_vaes256},
#ifdef FZ7_HAVE_NASM
    {{"vaes512", {FZ7_LEVEL_AVX512, FZ7_CPU_AESNI | FZ7_CPU_SSE41 | FZ7_CPU_VAES | FZ7_CPU_AVX512F}},
     fz7_aes_cbc_dec_vaes512},
#endif
#endif
};

static const fz7_aes_cbc_kernel enc_kernels[] = {
    {{"portable", {FZ7_LEVEL_PORTABLE, 0}}, fz7_aes_cbc_enc_portable},
#ifdef FZ7_HAVE_X86_KERNELS
    {{"aesni", {FZ7_LEVEL_AVX2, FZ7_CPU_AESNI | FZ7_CPU_SSE41}}, fz7_aes_cbc_enc_aesni},
#endif
};

const fz7_aes_cbc_kernel *fz7_aes_cbc_dec_kernels(size_t *n)
{
    *n = sizeof dec_kernels / sizeof dec_kernels[0];
    return dec_kernels;
}

const fz7_aes_cbc_kernel *fz7_aes_cbc_enc_kernels(size_t *n)
{
    *n = sizeof enc_kernels / sizeof enc_kernels[0];
    return enc_kernels;
}

const fz7_aes_cbc_kernel *fz7_aes_cbc_dec_pick(void)
{
    return FZ7_KERNEL_PICK(dec_kernels);
}

const fz7_aes_cbc_kernel *fz7_aes_cbc_enc_pick(void)
{
    return FZ7_KERNEL_PICK(enc_kernels);
}
