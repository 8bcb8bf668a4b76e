/* deflate.c - Deflate (RFC 1951) and Deflate64 decoder as a pull stream, for
 * the 7z methods 040108 and 040109.
 *
 * Decoded bytes go to a 128 KiB ring that also serves as the window (64 KiB
 * of history is all Deflate64 needs), and are copied out from there. Huffman
 * codes decode through one table lookup (10 bits for literal/length codes,
 * 8 for distances) plus a second-level lookup for longer codes. */
#include "codec/codec.h"
#include "codec/deflate_tables.h"

#include <stdlib.h>
#include <string.h>

#define RING_SIZE ((size_t)1 << 17)
#define RING_MASK (RING_SIZE - 1)
#define IN_SIZE ((size_t)1 << 16)

#define MAX_CODE_LEN 15
#define LIT_BITS 10
#define DIST_BITS 8
#define CLEN_BITS 7
#define NUM_LIT 288
#define NUM_DIST 32
/* First level plus, at worst, one full second level per symbol. */
#define LIT_TABLE_SIZE ((1u << LIT_BITS) + NUM_LIT * (1u << (MAX_CODE_LEN - LIT_BITS)))
#define DIST_TABLE_SIZE ((1u << DIST_BITS) + NUM_DIST * (1u << (MAX_CODE_LEN - DIST_BITS)))

/* Table entries: a leaf is (symbol << 16) | code length; a link to a
 * second-level table is (offset << 16) | LINK | index bits; 0 is a code
 * that no symbol has (an incomplete code), which is corrupt data. */
#define LINK 0x100u

enum mode { M_HEADER, M_STORED, M_HUFFMAN, M_DONE };

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    bool deflate64;

    /* Input: bytes from src, and a bit buffer (LSB first, RFC 1951 3.1.1).
     * After src ends, zero bytes are appended and counted in pad; reaching
     * them means the stream was cut short. */
    size_t in_pos, in_len;
    bool src_end;
    uint64_t bits;
    unsigned nbits;
    unsigned pad;

    /* Output ring: wpos bytes were decoded in total, rpos handed out. */
    uint64_t wpos, rpos;

    enum mode mode;
    bool last_block;
    uint32_t stored_left;
    uint32_t match_left, match_dist;
    fz7_status err;   /* sticky: reported once the decoded bytes are out */

    uint32_t lit[LIT_TABLE_SIZE];
    uint32_t dist[DIST_TABLE_SIZE];
    uint8_t ring[RING_SIZE];
    uint8_t in[IN_SIZE];
} inflater;

/* ---- Input bits ---- */

/* Refills the bit buffer to at least 57 bits (zero bytes past the end of
 * src, counted in pad). Only src's own errors fail here. */
static fz7_status refill_slow(inflater *z)
{
    while (z->nbits <= 56) {
        if (z->in_pos == z->in_len && !z->src_end) {
            size_t got = 0;
            fz7_status st = z->src->read(z->src, z->in, IN_SIZE, &got);
            if (st != FZ7_OK)
                return st;
            z->in_pos = 0;
            z->in_len = got;
            z->src_end = got == 0;
        }
        uint64_t byte = 0;
        if (z->in_pos < z->in_len)
            byte = z->in[z->in_pos++];
        else if (z->pad < 64)
            z->pad++;
        z->bits |= byte << z->nbits;
        z->nbits += 8;
    }
    return FZ7_OK;
}

static inline fz7_status refill(inflater *z)
{
    if (z->nbits > 56)
        return FZ7_OK;
    if (z->in_len - z->in_pos >= 8) {
        uint64_t v;
        memcpy(&v, z->in + z->in_pos, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        z->bits |= v << z->nbits;
        unsigned take = (63 - z->nbits) >> 3;
        z->in_pos += take;
        z->nbits += take * 8;
        return FZ7_OK;
    }
    return refill_slow(z);
}

/* The bits consumed so far all came from src (none of the padding). */
static inline bool in_bounds(const inflater *z) { return z->nbits >= 8u * z->pad; }

/* Takes n <= 32 bits; the caller refilled enough. */
static inline uint32_t take_bits(inflater *z, unsigned n)
{
    uint32_t v = (uint32_t)(z->bits & (((uint64_t)1 << n) - 1));
    z->bits >>= n;
    z->nbits -= n;
    return v;
}

/* Reads n <= 32 bits, refilling first. */
static fz7_status get_bits(inflater *z, unsigned n, uint32_t *v)
{
    fz7_status st = refill(z);
    if (st != FZ7_OK)
        return st;
    *v = take_bits(z, n);
    return in_bounds(z) ? FZ7_OK : FZ7_E_TRUNCATED;
}

/* ---- Huffman tables ---- */

static uint32_t reverse_bits(uint32_t code, unsigned len)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < len; i++, code >>= 1)
        r = (r << 1) | (code & 1);
    return r;
}

/* Builds the decoding table of a canonical code (RFC 1951 3.2.2) from code
 * lengths lens[0..n) (0 = unused), first level index_bits wide. An
 * over-subscribed code is corrupt (false); an incomplete one is allowed,
 * its unused codes decode as errors. */
static bool build_table(uint32_t *table, unsigned index_bits, const uint8_t *lens, unsigned n)
{
    unsigned count[MAX_CODE_LEN + 1] = {0};
    uint32_t next[MAX_CODE_LEN + 1], next2[MAX_CODE_LEN + 1];
    uint8_t max_ext[1u << LIT_BITS];
    uint32_t first = 1u << index_bits, mask = first - 1;

    for (unsigned s = 0; s < n; s++)
        count[lens[s]]++;
    count[0] = 0;
    int left = 1;
    uint32_t code = 0;
    for (unsigned len = 1; len <= MAX_CODE_LEN; len++) {
        left = left * 2 - (int)count[len];
        if (left < 0)
            return false;
        code = (code + count[len - 1]) << 1;
        next[len] = next2[len] = code;
    }

    /* Second-level tables: as wide as the longest code behind each prefix. */
    memset(table, 0, first * sizeof *table);
    memset(max_ext, 0, first);
    for (unsigned s = 0; s < n; s++)
        if (lens[s] > index_bits) {
            uint32_t rev = reverse_bits(next2[lens[s]]++, lens[s]);
            uint8_t ext = (uint8_t)(lens[s] - index_bits);
            if (ext > max_ext[rev & mask])
                max_ext[rev & mask] = ext;
        }
    uint32_t cursor = first;
    for (uint32_t p = 0; p < first; p++)
        if (max_ext[p]) {
            table[p] = (cursor << 16) | LINK | max_ext[p];
            memset(table + cursor, 0, ((size_t)1 << max_ext[p]) * sizeof *table);
            cursor += 1u << max_ext[p];
        }

    for (unsigned s = 0; s < n; s++) {
        unsigned len = lens[s];
        if (len == 0)
            continue;
        uint32_t rev = reverse_bits(next[len]++, len), leaf = ((uint32_t)s << 16) | len;
        if (len <= index_bits) {
            for (uint32_t i = rev; i < first; i += 1u << len)
                table[i] = leaf;
        } else {
            uint32_t link = table[rev & mask], ext = link & 0xFF, base = link >> 16;
            for (uint32_t i = rev >> index_bits; i < (1u << ext); i += 1u << (len - index_bits))
                table[base + i] = leaf;
        }
    }
    return true;
}

/* Decodes one symbol; the caller refilled at least 15 bits. Returns the
 * symbol, or -1 for a code no symbol has. */
static inline int decode_sym(inflater *z, const uint32_t *table, unsigned index_bits)
{
    uint32_t e = table[z->bits & ((1u << index_bits) - 1)];
    if (e & LINK)
        e = table[(e >> 16) + ((z->bits >> index_bits) & ((1u << (e & 0xFF)) - 1))];
    unsigned len = e & 0xFF;
    if (len == 0)
        return -1;
    z->bits >>= len;
    z->nbits -= len;
    return (int)(e >> 16);
}

/* ---- Block headers ---- */

static void fixed_tables(inflater *z)
{
    uint8_t lens[NUM_LIT];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    build_table(z->lit, LIT_BITS, lens, NUM_LIT);
    memset(lens, 5, NUM_DIST);
    build_table(z->dist, DIST_BITS, lens, NUM_DIST);
}

/* RFC 1951 3.2.7: the code lengths of a dynamic block, themselves Huffman
 * coded with run-length codes 16 (repeat), 17 and 18 (zeros). */
static fz7_status dynamic_tables(inflater *z)
{
    uint32_t hlit, hdist, hclen, v;
    uint8_t clens[NUM_CLEN] = {0}, lens[NUM_LIT + NUM_DIST];
    uint32_t ctable[1u << CLEN_BITS];
    fz7_status st;
    if ((st = get_bits(z, 5, &hlit)) || (st = get_bits(z, 5, &hdist)) || (st = get_bits(z, 4, &hclen)))
        return st;
    unsigned nlit = hlit + 257, ndist = hdist + 1, total = nlit + ndist;
    for (unsigned i = 0; i < hclen + 4; i++) {
        if ((st = get_bits(z, 3, &v)))
            return st;
        clens[clen_order[i]] = (uint8_t)v;
    }
    if (!build_table(ctable, CLEN_BITS, clens, NUM_CLEN))
        return FZ7_E_DATA;
    for (unsigned i = 0; i < total;) {
        if ((st = refill(z)))
            return st;
        int sym = decode_sym(z, ctable, CLEN_BITS);
        if (sym < 0)
            return FZ7_E_DATA;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        uint8_t fill = 0;
        unsigned run;
        if (sym == 16) {
            if (i == 0)
                return FZ7_E_DATA;
            fill = lens[i - 1];
            run = 3 + take_bits(z, 2);
        } else if (sym == 17) {
            run = 3 + take_bits(z, 3);
        } else {
            run = 11 + take_bits(z, 7);
        }
        if (run > total - i)
            return FZ7_E_DATA;
        memset(lens + i, fill, run);
        i += run;
    }
    if (!in_bounds(z))
        return FZ7_E_TRUNCATED;
    if (lens[256] == 0)
        return FZ7_E_DATA;   /* no end-of-block code */
    /* Symbols beyond nlit / ndist are unused. */
    uint8_t dl[NUM_DIST] = {0};
    memcpy(dl, lens + nlit, ndist);
    memset(lens + nlit, 0, NUM_LIT - nlit);
    if (!build_table(z->lit, LIT_BITS, lens, NUM_LIT) || !build_table(z->dist, DIST_BITS, dl, NUM_DIST))
        return FZ7_E_DATA;
    return FZ7_OK;
}

static fz7_status block_header(inflater *z)
{
    uint32_t v;
    fz7_status st;
    if (z->last_block) {
        z->mode = M_DONE;
        return FZ7_OK;
    }
    if ((st = get_bits(z, 3, &v)))
        return st;
    z->last_block = v & 1;
    switch (v >> 1) {
    case 0: {
        /* Stored: skip to a byte boundary, then LEN and its complement. */
        uint32_t len, nlen;
        take_bits(z, z->nbits & 7);
        if ((st = get_bits(z, 16, &len)) || (st = get_bits(z, 16, &nlen)))
            return st;
        if ((len ^ nlen) != 0xFFFF)
            return FZ7_E_DATA;
        z->stored_left = len;
        z->mode = M_STORED;
        return FZ7_OK;
    }
    case 1:
        fixed_tables(z);
        break;
    case 2:
        if ((st = dynamic_tables(z)))
            return st;
        break;
    default:
        return FZ7_E_DATA;
    }
    z->mode = M_HUFFMAN;
    return FZ7_OK;
}

/* ---- Decoding into the ring ---- */

/* Copies a match of n bytes from dist back; the ring has room. */
static void copy_match(inflater *z, uint32_t dist, uint32_t n)
{
    uint8_t *ring = z->ring;
    size_t w = (size_t)z->wpos & RING_MASK, r = (size_t)(z->wpos - dist) & RING_MASK;
    z->wpos += n;
    if (w + n <= RING_SIZE && r + n <= RING_SIZE) {
        if (dist >= n) {
            memcpy(ring + w, ring + r, n);
        } else {
            for (uint32_t i = 0; i < n; i++)
                ring[w + i] = ring[r + i];
        }
        return;
    }
    while (n--) {
        ring[w] = ring[r];
        w = (w + 1) & RING_MASK;
        r = (r + 1) & RING_MASK;
    }
}

/* Copies stored bytes: first whole bytes left in the bit buffer, then
 * straight from the input buffer. */
static fz7_status stored_bytes(inflater *z, size_t room)
{
    while (z->stored_left > 0 && room > 0) {
        size_t w = (size_t)z->wpos & RING_MASK;
        if (z->nbits >= 8) {
            z->ring[w] = (uint8_t)take_bits(z, 8);
            if (!in_bounds(z))
                return FZ7_E_TRUNCATED;
            z->wpos++;
            z->stored_left--;
            room--;
            continue;
        }
        /* The fast refill leaves copies of the next input bytes above
         * nbits; they go stale once bytes are taken from in[] directly. */
        z->bits = 0;
        if (z->in_pos == z->in_len) {
            if (z->src_end)
                return FZ7_E_TRUNCATED;
            size_t got = 0;
            fz7_status st = z->src->read(z->src, z->in, IN_SIZE, &got);
            if (st != FZ7_OK)
                return st;
            z->in_pos = 0;
            z->in_len = got;
            z->src_end = got == 0;
            continue;
        }
        size_t n = z->in_len - z->in_pos;
        if (n > z->stored_left)
            n = z->stored_left;
        if (n > room)
            n = room;
        if (n > RING_SIZE - w)
            n = RING_SIZE - w;
        memcpy(z->ring + w, z->in + z->in_pos, n);
        z->in_pos += n;
        z->wpos += n;
        z->stored_left -= (uint32_t)n;
        room -= n;
    }
    if (z->stored_left == 0)
        z->mode = M_HEADER;
    return FZ7_OK;
}

/* Huffman-coded symbols until the block ends or the ring has no room. */
static fz7_status huffman_symbols(inflater *z, size_t room)
{
    uint32_t max_dist = z->deflate64 ? 65536 : 32768;
    while (room > 0) {
        if (z->match_left > 0) {
            uint32_t n = z->match_left < room ? z->match_left : (uint32_t)room;
            copy_match(z, z->match_dist, n);
            z->match_left -= n;
            room -= n;
            continue;
        }
        fz7_status st = refill(z);
        if (st != FZ7_OK)
            return st;
        int sym = decode_sym(z, z->lit, LIT_BITS);
        if (sym < 256) {
            if (sym < 0)
                return FZ7_E_DATA;
            z->ring[z->wpos++ & RING_MASK] = (uint8_t)sym;
            room--;
            if (z->pad && !in_bounds(z))
                return FZ7_E_TRUNCATED;
            continue;
        }
        if (sym == 256) {
            z->mode = M_HEADER;
            return in_bounds(z) ? FZ7_OK : FZ7_E_TRUNCATED;
        }
        if (sym > 285)
            return FZ7_E_DATA;
        uint32_t len;
        if (sym == 285 && z->deflate64)
            len = 3 + take_bits(z, 16);
        else
            len = len_base[sym - 257] + take_bits(z, len_extra[sym - 257]);
        if ((st = refill(z)))
            return st;
        int dsym = decode_sym(z, z->dist, DIST_BITS);
        if (dsym < 0 || (dsym >= 30 && !z->deflate64))
            return FZ7_E_DATA;
        uint32_t dist = dist_base[dsym] + take_bits(z, dist_extra[dsym]);
        if (!in_bounds(z))
            return FZ7_E_TRUNCATED;
        if (dist > max_dist || dist > z->wpos)
            return FZ7_E_DATA;
        z->match_left = len;
        z->match_dist = dist;
    }
    return FZ7_OK;
}

/* Decodes until the ring holds at least half its size of undelivered
 * bytes or the stream ends. */
static fz7_status produce(inflater *z)
{
    for (;;) {
        size_t pending = (size_t)(z->wpos - z->rpos);
        if (pending >= RING_SIZE / 2)
            return FZ7_OK;
        /* Undelivered bytes must not be overwritten; the history a match
         * reads (64 KiB at most) always is intact, the ring being twice
         * as large. */
        size_t room = RING_SIZE - pending;
        fz7_status st;
        switch (z->mode) {
        case M_HEADER: st = block_header(z); break;
        case M_STORED: st = stored_bytes(z, room); break;
        case M_HUFFMAN: st = huffman_symbols(z, room); break;
        default: return FZ7_OK;
        }
        if (st != FZ7_OK)
            return st;
    }
}

static fz7_status inflater_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    inflater *z = (inflater *)s;
    *got = 0;
    while (*got < cap) {
        size_t pending = (size_t)(z->wpos - z->rpos);
        if (pending == 0) {
            if (z->err != FZ7_OK)
                return *got ? FZ7_OK : z->err;
            if (z->mode == M_DONE)
                break;
            z->err = produce(z);
            continue;
        }
        size_t r = (size_t)z->rpos & RING_MASK, n = cap - *got;
        if (n > pending)
            n = pending;
        if (n > RING_SIZE - r)
            n = RING_SIZE - r;
        memcpy(buf + *got, z->ring + r, n);
        z->rpos += n;
        *got += n;
    }
    return FZ7_OK;
}

static void inflater_destroy(fz7_istream *s) { free(s); }

size_t fz7_deflate_istream_tail(fz7_istream *s, uint8_t *out, size_t cap)
{
    inflater *z = (inflater *)s;
    if (z->mode != M_DONE || z->wpos != z->rpos || !in_bounds(z))
        return 0;
    /* The final block ends inside a byte: its other bits are padding. */
    unsigned whole = z->nbits / 8 - z->pad;
    uint64_t bits = z->bits >> (z->nbits % 8);
    size_t n = 0;
    for (unsigned k = 0; k < whole && n < cap; k++, bits >>= 8)
        out[n++] = (uint8_t)bits;
    size_t rest = z->in_len - z->in_pos;
    if (rest > cap - n)
        rest = cap - n;
    memcpy(out + n, z->in + z->in_pos, rest);
    return n + rest;
}

/* The state of a new stream read from src (the tables and the ring need
 * no clearing: each block builds its tables, and matches reach only bytes
 * written). */
static void inflater_start(inflater *z, fz7_istream *src, bool deflate64)
{
    memset(z, 0, offsetof(inflater, lit));
    z->base.read = inflater_read;
    z->base.destroy = inflater_destroy;
    z->src = src;
    z->deflate64 = deflate64;
    z->mode = M_HEADER;
}

fz7_status fz7_deflate_istream_new(fz7_istream *src, bool deflate64, fz7_istream **out)
{
    *out = NULL;
    inflater *z = malloc(sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    inflater_start(z, src, deflate64);
    *out = &z->base;
    return FZ7_OK;
}

void fz7_deflate_istream_restart(fz7_istream *s)
{
    inflater *z = (inflater *)s;
    inflater_start(z, z->src, z->deflate64);
}
