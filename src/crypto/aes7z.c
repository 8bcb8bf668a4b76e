/* aes7z.c - the 7zAES coder: property parsing, the SHA-256 key derivation
 * (with a cache, so an archive with many encrypted folders derives once),
 * the decrypting istream and the encrypting writer.
 * Properties and KDF are described in aes7z.h. */
#include "crypto/aes7z.h"
#include "crypto/aes.h"
#include "check/check.h"
#include "check/check_kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define BATCH_BYTES (256u << 10)   /* decrypt/encrypt batch */

/* ---- Properties ---- */

typedef struct aes7z_props {
    unsigned power;
    uint8_t salt[16];
    size_t salt_len;
    uint8_t iv[16];                /* zero-padded */
} aes7z_props;

static fz7_status parse_props(const uint8_t *p, size_t n, aes7z_props *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return FZ7_OK;             /* power 0, no salt, zero IV (as 7-Zip) */
    out->power = p[0] & 0x3F;
    if ((p[0] & 0xC0) == 0) {
        if (n != 1)
            return FZ7_E_FORMAT;
    } else {
        if (n < 2)
            return FZ7_E_FORMAT;
        size_t salt_len = ((p[0] >> 7) & 1) + (p[1] >> 4);
        size_t iv_len = ((p[0] >> 6) & 1) + (p[1] & 0x0F);
        if (n != 2 + salt_len + iv_len)
            return FZ7_E_FORMAT;
        memcpy(out->salt, p + 2, salt_len);
        out->salt_len = salt_len;
        memcpy(out->iv, p + 2 + salt_len, iv_len);
    }
    if (out->power > FZ7_7ZAES_MAX_POWER && out->power != 0x3F)
        return FZ7_E_UNSUPPORTED;
    return FZ7_OK;
}

/* ---- Password ---- */

size_t fz7_7zaes_password_utf16(const char *utf8, uint8_t *out)
{
    const uint8_t *s = (const uint8_t *)utf8;
    size_t o = 0;
    while (*s) {
        uint32_t cp = 0xFFFD;
        unsigned len = 1;
        if (s[0] < 0x80) {
            cp = s[0];
        } else {
            unsigned need = s[0] >= 0xF0 && s[0] <= 0xF4 ? 3 : s[0] >= 0xE0 ? 2 : s[0] >= 0xC2 ? 1 : 0;
            if (s[0] > 0xF4)
                need = 0;
            uint32_t v = s[0] & (0x3F >> need);
            unsigned i = 1;
            for (; i <= need && (s[i] & 0xC0) == 0x80; i++)
                v = v << 6 | (s[i] & 0x3F);
            static const uint32_t min_cp[4] = {0, 0x80, 0x800, 0x10000};
            if (need && i == need + 1 && v >= min_cp[need] && v <= 0x10FFFF &&
                (v < 0xD800 || v > 0xDFFF)) {
                cp = v;
                len = need + 1;
            }
        }
        s += len;
        /* A 4-byte sequence gives 2 units (4 bytes): never more than 2 per
         * input byte. */
        if (cp >= 0x10000) {
            uint32_t c = cp - 0x10000;
            uint16_t hi = (uint16_t)(0xD800 | (c >> 10)), lo = (uint16_t)(0xDC00 | (c & 0x3FF));
            out[o++] = (uint8_t)hi; out[o++] = (uint8_t)(hi >> 8);
            out[o++] = (uint8_t)lo; out[o++] = (uint8_t)(lo >> 8);
        } else {
            out[o++] = (uint8_t)cp; out[o++] = (uint8_t)(cp >> 8);
        }
    }
    return o;
}

/* ---- Key derivation ---- */

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The hashed message is 2^power copies of one unit (salt || password ||
 * counter). K units (K = 64 / gcd(unit, 64)) fill whole 64-byte blocks, so
 * a buffer of K units is hashed straight through the block function, only
 * the K counters being rewritten per batch; no per-unit update calls. */
static fz7_status derive_uncached(const uint8_t *salt, size_t salt_len, const uint8_t *pw,
                                  size_t pw_len, unsigned power, uint8_t key[32])
{
    if (power == 0x3F) {
        size_t n = 0;
        memset(key, 0, 32);
        for (size_t i = 0; i < salt_len && n < 32; i++)
            key[n++] = salt[i];
        for (size_t i = 0; i < pw_len && n < 32; i++)
            key[n++] = pw[i];
        return FZ7_OK;
    }
    const size_t unit = salt_len + pw_len + 8;
    const size_t k = 64 / gcd(unit, 64);
    const uint64_t rounds = (uint64_t)1 << power;
    fz7_sha256 sha;
    fz7_sha256_init(&sha);
    if (rounds < k) {
        uint8_t ctr[8];
        for (uint64_t i = 0; i < rounds; i++) {
            fz7_put64le(ctr, i);
            fz7_sha256_update(&sha, salt, salt_len);
            fz7_sha256_update(&sha, pw, pw_len);
            fz7_sha256_update(&sha, ctr, 8);
        }
    } else {
        uint8_t *buf = malloc(k * unit);
        if (!buf)
            return FZ7_E_MEM;
        for (size_t u = 0; u < k; u++) {
            memcpy(buf + u * unit, salt, salt_len);
            memcpy(buf + u * unit + salt_len, pw, pw_len);
        }
        fz7_sha256_blocks_fn blocks = fz7_sha256_pick()->fn;
        const size_t nblocks = k * unit / 64;
        uint8_t *ctr0 = buf + salt_len + pw_len;
        for (uint64_t i = 0; i < rounds; i += k) {
            for (size_t u = 0; u < k; u++)
                fz7_put64le(ctr0 + u * unit, i + u);
            blocks(sha.state, buf, nblocks);
        }
        sha.total = rounds * unit;     /* rounds is a multiple of k here */
        explicit_bzero(buf, k * unit);
        free(buf);
    }
    fz7_sha256_final(&sha, key);
    explicit_bzero(&sha, sizeof sha);
    return FZ7_OK;
}

/* Derived keys by (salt, password, power); least recently used replaced. */
#define CACHE_SLOTS 4
typedef struct cache_slot {
    int used;
    uint64_t stamp;
    unsigned power;
    uint8_t salt[16];
    size_t salt_len;
    uint8_t *pw;
    size_t pw_len;
    uint8_t key[32];
} cache_slot;

static cache_slot g_cache[CACHE_SLOTS];
static uint64_t g_cache_clock;
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void slot_wipe(cache_slot *c)
{
    if (c->pw) {
        explicit_bzero(c->pw, c->pw_len);
        free(c->pw);
    }
    explicit_bzero(c, sizeof *c);
}

void fz7_7zaes_cache_clear(void)
{
    pthread_mutex_lock(&g_cache_lock);
    for (int i = 0; i < CACHE_SLOTS; i++)
        slot_wipe(&g_cache[i]);
    pthread_mutex_unlock(&g_cache_lock);
}

static cache_slot *cache_find(const uint8_t *salt, size_t salt_len, const uint8_t *pw,
                              size_t pw_len, unsigned power)
{
    for (int i = 0; i < CACHE_SLOTS; i++) {
        cache_slot *c = &g_cache[i];
        if (c->used && c->power == power && c->salt_len == salt_len && c->pw_len == pw_len &&
            memcmp(c->salt, salt, salt_len) == 0 && memcmp(c->pw, pw, pw_len) == 0)
            return c;
    }
    return NULL;
}

fz7_status fz7_7zaes_derive_key(const uint8_t *salt, size_t salt_len,
                                const uint8_t *password_utf16, size_t pw_len,
                                unsigned power, uint8_t key[32])
{
    if (salt_len > 16 || (pw_len && !password_utf16))
        return FZ7_E_ARG;
    if (power > FZ7_7ZAES_MAX_POWER && power != 0x3F)
        return FZ7_E_UNSUPPORTED;
    static const uint8_t empty[1];
    if (!salt)
        salt = empty;           /* memcpy/memcmp need pointers even for 0 bytes */
    if (!password_utf16)
        password_utf16 = empty;
    pthread_mutex_lock(&g_cache_lock);
    cache_slot *c = cache_find(salt, salt_len, password_utf16, pw_len, power);
    if (c) {
        c->stamp = ++g_cache_clock;
        memcpy(key, c->key, 32);
        pthread_mutex_unlock(&g_cache_lock);
        return FZ7_OK;
    }
    pthread_mutex_unlock(&g_cache_lock);

    /* Derive outside the lock: it may take a second. */
    fz7_status st = derive_uncached(salt, salt_len, password_utf16, pw_len, power, key);
    if (st != FZ7_OK)
        return st;
    uint8_t *pw_copy = malloc(pw_len ? pw_len : 1);
    if (!pw_copy)
        return FZ7_OK;             /* the key is right; it is just not cached */
    memcpy(pw_copy, password_utf16, pw_len);
    pthread_mutex_lock(&g_cache_lock);
    if (cache_find(salt, salt_len, password_utf16, pw_len, power)) {
        explicit_bzero(pw_copy, pw_len);
        free(pw_copy);
    } else {
        cache_slot *victim = &g_cache[0];
        for (int i = 0; i < CACHE_SLOTS; i++) {
            if (!g_cache[i].used) {
                victim = &g_cache[i];
                break;
            }
            if (g_cache[i].stamp < victim->stamp)
                victim = &g_cache[i];
        }
        slot_wipe(victim);
        victim->used = 1;
        victim->stamp = ++g_cache_clock;
        victim->power = power;
        memcpy(victim->salt, salt, salt_len);
        victim->salt_len = salt_len;
        victim->pw = pw_copy;
        victim->pw_len = pw_len;
        memcpy(victim->key, key, 32);
    }
    pthread_mutex_unlock(&g_cache_lock);
    return FZ7_OK;
}

/* Password (UTF-8) -> key for the given properties. */
static fz7_status key_for(const char *password, const aes7z_props *pr, fz7_aes256_key *k)
{
    size_t n = strnlen(password, FZ7_7ZAES_PASSWORD_MAX + 1);
    if (n > FZ7_7ZAES_PASSWORD_MAX)
        return FZ7_E_ARG;
    uint8_t pw[2 * FZ7_7ZAES_PASSWORD_MAX], key[32];
    size_t pw_len = fz7_7zaes_password_utf16(password, pw);
    fz7_status st = fz7_7zaes_derive_key(pr->salt, pr->salt_len, pw, pw_len, pr->power, key);
    if (st == FZ7_OK)
        fz7_aes256_expand(k, key);
    explicit_bzero(pw, sizeof pw);
    explicit_bzero(key, sizeof key);
    return st;
}

/* ---- Decrypting istream ---- */

typedef struct aes7z_reader {
    fz7_istream base;
    fz7_istream *src;
    fz7_aes256_key key;
    fz7_aes_cbc_fn decrypt;        /* picked when the reader is made */
    uint8_t iv[16];
    uint8_t *buf;                  /* BATCH_BYTES */
    size_t pos, end;               /* plaintext ready in buf[pos, end) */
    size_t carry;                  /* ciphertext bytes of an incomplete block at buf[end..] */
    int src_eof;
} aes7z_reader;

/* Reads from src into dst until cap bytes or the end of src. */
static fz7_status fill_from(aes7z_reader *r, uint8_t *dst, size_t cap, size_t *got)
{
    size_t n = 0;
    while (n < cap && !r->src_eof) {
        size_t g = 0;
        fz7_status st = r->src->read(r->src, dst + n, cap - n, &g);
        if (st != FZ7_OK)
            return st;
        if (g == 0)
            r->src_eof = 1;
        n += g;
    }
    *got = n;
    return FZ7_OK;
}

/* Decrypts whole blocks of [p, p + n) in place; returns the whole bytes. */
static size_t decrypt_blocks(aes7z_reader *r, uint8_t *p, size_t n)
{
    size_t whole = n & ~(size_t)15;
    if (whole)
        r->decrypt(r->key.dec, r->iv, p, whole / 16);
    return whole;
}

static fz7_status reader_read(fz7_istream *s, uint8_t *out, size_t cap, size_t *got)
{
    aes7z_reader *r = (aes7z_reader *)s;
    *got = 0;
    if (cap == 0)
        return FZ7_OK;
    if (r->pos == r->end) {
        uint8_t carry[16];
        size_t nc = r->carry;
        memcpy(carry, r->buf + r->end, nc);
        r->pos = r->end = r->carry = 0;
        if (cap >= BATCH_BYTES) {
            /* Large reads: decrypt in the caller's buffer, no copy. */
            size_t want = cap & ~(size_t)15, n;
            memcpy(out, carry, nc);
            fz7_status st = fill_from(r, out + nc, want - nc, &n);
            if (st != FZ7_OK)
                return st;
            n += nc;
            size_t whole = decrypt_blocks(r, out, n);
            memcpy(r->buf, out + whole, n - whole);
            r->carry = n - whole;
            if (whole == 0 && r->carry)
                return FZ7_E_DATA; /* src ended inside a block */
            *got = whole;
            return FZ7_OK;
        }
        size_t n;
        memcpy(r->buf, carry, nc);
        fz7_status st = fill_from(r, r->buf + nc, BATCH_BYTES - nc, &n);
        if (st != FZ7_OK)
            return st;
        n += nc;
        r->end = decrypt_blocks(r, r->buf, n);
        r->carry = n - r->end;
        if (r->end == 0)
            return r->carry ? FZ7_E_DATA : FZ7_OK;
    }
    size_t take = r->end - r->pos < cap ? r->end - r->pos : cap;
    memcpy(out, r->buf + r->pos, take);
    r->pos += take;
    *got = take;
    return FZ7_OK;
}

static void reader_free(aes7z_reader *r)
{
    if (r->buf) {
        explicit_bzero(r->buf, BATCH_BYTES);
        free(r->buf);
    }
    explicit_bzero(r, sizeof *r);
    free(r);
}

static void reader_destroy(fz7_istream *s)
{
    reader_free((aes7z_reader *)s);
}

fz7_status fz7_7zaes_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 const char *password, fz7_istream **out)
{
    *out = NULL;
    aes7z_props pr;
    fz7_status st = parse_props(props, props_len, &pr);
    if (st != FZ7_OK)
        return st;
    if (!password)
        return FZ7_E_NEED_PASSWORD;
    aes7z_reader *r = calloc(1, sizeof *r);
    if (!r)
        return FZ7_E_MEM;
    r->base.read = reader_read;
    r->base.destroy = reader_destroy;
    r->src = src;
    r->decrypt = fz7_aes_cbc_dec_pick()->fn;
    memcpy(r->iv, pr.iv, 16);
    r->buf = malloc(BATCH_BYTES);
    st = r->buf ? key_for(password, &pr, &r->key) : FZ7_E_MEM;
    explicit_bzero(&pr, sizeof pr);
    if (st != FZ7_OK) {
        reader_free(r);
        return st;
    }
    *out = &r->base;
    return FZ7_OK;
}

/* ---- Encryption ---- */

struct fz7_7zaes_key {
    fz7_aes256_key key;
    uint8_t salt[16];
};

struct fz7_7zaes_writer {
    fz7_ostream base;              /* the plaintext sink */
    const fz7_7zaes_key *key;
    fz7_aes_cbc_fn encrypt;        /* picked when the writer is made */
    fz7_ostream *dst;
    uint8_t iv0[16];               /* for the properties */
    uint8_t iv[16];                /* the running chain */
    uint8_t *buf;                  /* BATCH_BYTES of plaintext being gathered */
    size_t fill;
    uint64_t written;              /* ciphertext bytes pushed */
    fz7_status error;
};

fz7_status fz7_random_bytes(uint8_t *p, size_t n)
{
    while (n) {
        ssize_t g = getrandom(p, n, 0);
        if (g <= 0)
            return FZ7_E_IO;
        p += g;
        n -= (size_t)g;
    }
    return FZ7_OK;
}

fz7_status fz7_7zaes_key_new(const char *password, fz7_7zaes_key **out)
{
    *out = NULL;
    if (!password)
        return FZ7_E_ARG;
    fz7_7zaes_key *k = calloc(1, sizeof *k);
    if (!k)
        return FZ7_E_MEM;
    aes7z_props pr;
    memset(&pr, 0, sizeof pr);
    pr.power = FZ7_7ZAES_ENC_POWER;
    pr.salt_len = 16;
    fz7_status st = fz7_random_bytes(pr.salt, 16);
    if (st == FZ7_OK)
        st = key_for(password, &pr, &k->key);
    memcpy(k->salt, pr.salt, 16);
    if (st != FZ7_OK) {
        fz7_7zaes_key_free(k);
        return st;
    }
    *out = k;
    return FZ7_OK;
}

void fz7_7zaes_key_free(fz7_7zaes_key *key)
{
    if (!key)
        return;
    explicit_bzero(key, sizeof *key);
    free(key);
}

static fz7_status flush_batch(fz7_7zaes_writer *w)
{
    w->encrypt(w->key->key.enc, w->iv, w->buf, w->fill / 16);
    fz7_status st = w->dst->write(w->dst, w->buf, w->fill);
    w->written += w->fill;
    w->fill = 0;
    return st;
}

static fz7_status writer_write(fz7_ostream *s, const uint8_t *p, size_t n)
{
    fz7_7zaes_writer *w = (fz7_7zaes_writer *)s;
    while (n && w->error == FZ7_OK) {
        size_t take = BATCH_BYTES - w->fill < n ? BATCH_BYTES - w->fill : n;
        memcpy(w->buf + w->fill, p, take);
        w->fill += take;
        p += take;
        n -= take;
        if (w->fill == BATCH_BYTES)
            w->error = flush_batch(w);
    }
    return w->error;
}

fz7_status fz7_7zaes_writer_new(const fz7_7zaes_key *key, fz7_ostream *dst,
                                fz7_7zaes_writer **out)
{
    *out = NULL;
    fz7_7zaes_writer *w = calloc(1, sizeof *w);
    if (!w)
        return FZ7_E_MEM;
    w->base.write = writer_write;
    w->key = key;
    w->encrypt = fz7_aes_cbc_enc_pick()->fn;
    w->dst = dst;
    w->buf = malloc(BATCH_BYTES);
    fz7_status st = w->buf ? fz7_random_bytes(w->iv0, 16) : FZ7_E_MEM;
    if (st != FZ7_OK) {
        fz7_7zaes_writer_free(w);
        return st;
    }
    memcpy(w->iv, w->iv0, 16);
    *out = w;
    return FZ7_OK;
}

fz7_ostream *fz7_7zaes_writer_stream(fz7_7zaes_writer *w)
{
    return &w->base;
}

size_t fz7_7zaes_writer_props(const fz7_7zaes_writer *w, uint8_t props[FZ7_7ZAES_PROPS_MAX])
{
    props[0] = 0xC0 | FZ7_7ZAES_ENC_POWER;  /* salt and IV present */
    props[1] = 0xFF;                         /* 1 + 15 salt, 1 + 15 IV bytes */
    memcpy(props + 2, w->key->salt, 16);
    memcpy(props + 18, w->iv0, 16);
    return FZ7_7ZAES_PROPS_MAX;
}

fz7_status fz7_7zaes_writer_finish(fz7_7zaes_writer *w, uint64_t *pack_size)
{
    if (w->error == FZ7_OK && w->fill) {
        size_t pad = (16 - (w->fill & 15)) & 15;
        memset(w->buf + w->fill, 0, pad);
        w->fill += pad;
        w->error = flush_batch(w);
    }
    if (pack_size)
        *pack_size = w->written;
    return w->error;
}

void fz7_7zaes_writer_free(fz7_7zaes_writer *w)
{
    if (!w)
        return;
    if (w->buf) {
        explicit_bzero(w->buf, BATCH_BYTES);
        free(w->buf);
    }
    explicit_bzero(w, sizeof *w);
    free(w);
}
