/* zip_crypt.c - ZipCrypto and WinZip AES (see zip_crypt.h). */
#include "format/zip_crypt.h"
#include "check/check.h"

#include <nettle/pbkdf2.h>
#include <string.h>

#define WZAES_ROUNDS 1000u

/* ZipCrypto's key updates step CRC-32 without its inversions. */
static inline void zc_update(fz7_zipcrypto *z, uint8_t p)
{
    const uint32_t *crc = z->crc;
    uint32_t *k = z->keys;
    k[0] = crc[(k[0] ^ p) & 0xff] ^ (k[0] >> 8);
    k[1] = (k[1] + (k[0] & 0xff)) * 134775813u + 1;
    k[2] = crc[(k[2] ^ (k[1] >> 24)) & 0xff] ^ (k[2] >> 8);
}

static inline uint8_t zc_stream(const fz7_zipcrypto *z)
{
    uint32_t t = (z->keys[2] | 2) & 0xffff;
    return (uint8_t)((t * (t ^ 1)) >> 8);
}

void fz7_zipcrypto_init(fz7_zipcrypto *z, const char *password)
{
    z->crc = fz7_crc32_byte_table();
    z->keys[0] = 305419896u;
    z->keys[1] = 591751049u;
    z->keys[2] = 878082192u;
    for (const char *s = password ? password : ""; *s; s++)
        zc_update(z, (uint8_t)*s);
}

void fz7_zipcrypto_encrypt(fz7_zipcrypto *z, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i] ^ zc_stream(z);
        zc_update(z, p[i]);
        p[i] = c;
    }
}

void fz7_zipcrypto_decrypt(fz7_zipcrypto *z, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] ^= zc_stream(z);
        zc_update(z, p[i]);
    }
}

fz7_status fz7_wzaes_init(fz7_wzaes *a, unsigned strength, const char *password, const uint8_t *salt,
                          uint8_t pv[2])
{
    static const struct nettle_cipher *const ciphers[] = {NULL, &nettle_aes128, &nettle_aes192, &nettle_aes256};
    if (strength < 1 || strength > 3)
        return FZ7_E_ARG;
    size_t klen = 8u + 8u * strength;
    uint8_t dk[2 * 32 + 2];
    const char *pw = password ? password : "";
    pbkdf2_hmac_sha1(strlen(pw), (const uint8_t *)pw, WZAES_ROUNDS, fz7_wzaes_salt_len(strength), salt,
                     2 * klen + 2, dk);
    a->cipher = ciphers[strength];
    a->cipher->set_encrypt_key(&a->ctx, dk);
    hmac_sha1_set_key(&a->mac, klen, dk + klen);
    memcpy(pv, dk + 2 * klen, 2);
    memset(dk, 0, sizeof dk);
    memset(a->ctr, 0, sizeof a->ctr);
    a->ks_pos = sizeof a->ks;
    return FZ7_OK;
}

void fz7_wzaes_restart(fz7_wzaes *a)
{
    /* the MAC's keyed start state stays in outer/inner: digest resets it */
    uint8_t drop[SHA1_DIGEST_SIZE];
    hmac_sha1_digest(&a->mac, sizeof drop, drop);
    memset(a->ctr, 0, sizeof a->ctr);
    a->ks_pos = sizeof a->ks;
}

static void ctr_xor(fz7_wzaes *a, uint8_t *p, size_t n)
{
    while (n) {
        if (a->ks_pos == sizeof a->ks) {
            uint8_t blocks[sizeof a->ks];
            for (size_t b = 0; b < FZ7_WZAES_BLOCKS; b++) {
                for (int i = 0; i < 16 && ++a->ctr[i] == 0; i++)
                    ;
                memcpy(blocks + 16 * b, a->ctr, 16);
            }
            a->cipher->encrypt(&a->ctx, sizeof blocks, a->ks, blocks);
            a->ks_pos = 0;
        }
        size_t k = sizeof a->ks - a->ks_pos;
        if (k > n)
            k = n;
        for (size_t i = 0; i < k; i++)
            p[i] ^= a->ks[a->ks_pos + i];
        a->ks_pos += k;
        p += k;
        n -= k;
    }
}

void fz7_wzaes_encrypt(fz7_wzaes *a, uint8_t *p, size_t n)
{
    ctr_xor(a, p, n);
    hmac_sha1_update(&a->mac, n, p);
}

void fz7_wzaes_decrypt(fz7_wzaes *a, uint8_t *p, size_t n)
{
    hmac_sha1_update(&a->mac, n, p);
    ctr_xor(a, p, n);
}

void fz7_wzaes_mac(fz7_wzaes *a, uint8_t out[FZ7_WZAES_MAC])
{
    uint8_t d[SHA1_DIGEST_SIZE];
    hmac_sha1_digest(&a->mac, sizeof d, d);
    memcpy(out, d, FZ7_WZAES_MAC);
}

void fz7_wzaes_wipe(fz7_wzaes *a)
{
    memset(a, 0, sizeof *a);
}
