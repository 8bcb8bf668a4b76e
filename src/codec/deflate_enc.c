/* deflate_enc.c - Deflate (RFC 1951) and Deflate64 encoder for the 7z
 * methods 040108 and 040109.
 *
 * Matches come from hash chains over a sliding window (3-byte hashes, the
 * chain depth and lazy evaluation set by the level). Symbols are gathered
 * into blocks of up to BLOCK_SYMBOLS; each block is written as whichever
 * of stored, fixed-Huffman or dynamic-Huffman (3.2.4-3.2.7) is smallest.
 * Dynamic codes are length-limited by package-merge, so every code is
 * complete, as strict decoders (zlib's) require. Memory: two windows plus
 * the chains, about 0.5 MiB for Deflate64. */
#include "codec/codec.h"
#include "codec/deflate_tables.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BITS 15
#define NIL 0u                   /* chain entries are window index + 1 */
#define MIN_MATCH 3
#define BLOCK_SYMBOLS 16384
#define NUM_LITLEN 286
#define NUM_DIST_CODES 30        /* Deflate; Deflate64 has 32 */
#define MAX_BITS 15
#define CLEN_MAX_BITS 7
#define STORED_MAX 65535u
#define OUT_SIZE ((size_t)1 << 16)

struct fz7_deflate_enc {
    fz7_ostream *dst;
    bool d64;
    uint32_t wsize;              /* the window: 32 or 64 KiB */
    uint32_t max_len;            /* longest match written: 258, Deflate64 257 */
    uint32_t depth, nice;        /* chain links followed; a match this long ends the search */
    bool lazy;

    uint8_t *win;                /* 2 * wsize bytes */
    uint32_t win_len, pos, ins;  /* bytes held, next to code, next to hash */
    int64_t block_start;         /* the block's first byte in win; < 0 after a slide */
    uint32_t *head, *prev;       /* HASH_BITS heads; prev by pos % wsize */
    uint32_t held_len, held_dist;/* lazy: the match found at pos, not yet taken */
    bool held;

    uint16_t sym[BLOCK_SYMBOLS]; /* a literal byte, or 256 + a match's length */
    uint16_t dist[BLOCK_SYMBOLS];/* a match's distance - 1 */
    uint32_t n_sym;
    uint32_t freq_ll[NUM_LITLEN], freq_d[32];

    uint64_t acc;                /* bits, LSB first (3.1.1) */
    unsigned nbits;
    uint8_t out[OUT_SIZE];
    size_t out_len;
    uint64_t bytes_out;
    fz7_status err;
};

/* ---- Output bits ---- */

static void flush_out(fz7_deflate_enc *e)
{
    if (e->out_len && e->err == FZ7_OK)
        e->err = e->dst->write(e->dst, e->out, e->out_len);
    e->bytes_out += e->out_len;
    e->out_len = 0;
}

static void put_bits(fz7_deflate_enc *e, uint32_t v, unsigned n)
{
    e->acc |= (uint64_t)v << e->nbits;
    e->nbits += n;
    while (e->nbits >= 8) {
        e->out[e->out_len++] = (uint8_t)e->acc;
        e->acc >>= 8;
        e->nbits -= 8;
        if (e->out_len == OUT_SIZE)
            flush_out(e);
    }
}

static void align_byte(fz7_deflate_enc *e)
{
    if (e->nbits)
        put_bits(e, 0, 8 - e->nbits);
}

/* ---- Codes ---- */

static unsigned length_code(uint32_t len)
{
    unsigned c = 0;
    while (c + 1 < 29 && len_base[c + 1] <= len)
        c++;
    return 257 + c;
}

static unsigned dist_code(uint32_t d)
{
    if (d <= 4)
        return d - 1;
    unsigned k = 31 - (unsigned)__builtin_clz(d - 1);
    return 2 * k + (((d - 1) >> (k - 1)) & 1);
}

/* Code lengths of at most limit bits for freq[0..n) by package-merge:
 * optimal among length-limited codes and complete whenever two or more
 * symbols occur. A lone symbol gets 1 bit. */
static void limited_lengths(const uint32_t *freq, unsigned n, unsigned limit, uint8_t *len)
{
    unsigned order[NUM_LITLEN], m = 0;
    memset(len, 0, n);
    for (unsigned i = 0; i < n; i++)
        if (freq[i])
            order[m++] = i;
    if (m == 0)
        return;
    if (m == 1) {
        len[order[0]] = 1;
        return;
    }
    /* Leaves by weight (insertion sort: at most 286). */
    for (unsigned i = 1; i < m; i++) {
        unsigned v = order[i], j = i;
        while (j > 0 && freq[order[j - 1]] > freq[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    /* Level lists, deepest first: leaves merged with the pairs of the
     * level below; is_leaf marks which items are leaves. */
    static const unsigned cap = 2 * NUM_LITLEN;
    uint64_t w[MAX_BITS][2 * NUM_LITLEN];
    bool is_leaf[MAX_BITS][2 * NUM_LITLEN];
    unsigned size[MAX_BITS];
    for (unsigned i = 0; i < m; i++) {
        w[limit - 1][i] = freq[order[i]];
        is_leaf[limit - 1][i] = true;
    }
    size[limit - 1] = m;
    for (unsigned l = limit - 1; l-- > 0;) {
        unsigned pairs = size[l + 1] / 2, a = 0, b = 0, k = 0;
        while ((a < m || b < pairs) && k < cap) {
            uint64_t pw = b < pairs ? w[l + 1][2 * b] + w[l + 1][2 * b + 1] : UINT64_MAX;
            if (a < m && freq[order[a]] <= pw) {
                w[l][k] = freq[order[a++]];
                is_leaf[l][k++] = true;
            } else {
                w[l][k] = pw;
                is_leaf[l][k++] = false;
                b++;
            }
        }
        size[l] = k;
    }
    /* The first 2m - 2 items of the top list; each leaf among a level's
     * chosen items adds a bit to that leaf; its packages choose twice as
     * many items a level down. */
    unsigned take = 2 * m - 2;
    for (unsigned l = 0; l < limit && take; l++) {
        unsigned leaves = 0;
        for (unsigned k = 0; k < take; k++)
            leaves += is_leaf[l][k];
        for (unsigned i = 0; i < leaves; i++)
            len[order[i]]++;
        take = 2 * (take - leaves);
    }
}

/* Canonical codes (3.2.2), bit-reversed for LSB-first output. */
static void make_codes(const uint8_t *len, unsigned n, uint16_t *code)
{
    unsigned count[MAX_BITS + 1] = {0}, next[MAX_BITS + 2];
    for (unsigned i = 0; i < n; i++)
        count[len[i]]++;
    count[0] = 0;
    next[1] = 0;
    for (unsigned b = 1; b <= MAX_BITS; b++)
        next[b + 1] = (next[b] + count[b]) << 1;
    for (unsigned i = 0; i < n; i++) {
        if (!len[i])
            continue;
        unsigned c = next[len[i]]++, r = 0;
        for (unsigned b = 0; b < len[i]; b++)
            r |= ((c >> b) & 1u) << (len[i] - 1 - b);
        code[i] = (uint16_t)r;
    }
}

/* The code lengths of a dynamic header, run-length coded (3.2.7): each
 * item a code 0..18 and its extra bits' value. */
typedef struct {
    uint8_t sym[NUM_LITLEN + 32], extra[NUM_LITLEN + 32];
    unsigned n;
} len_runs;

static void run_code(const uint8_t *lens, unsigned n, len_runs *r)
{
    r->n = 0;
    for (unsigned i = 0; i < n;) {
        unsigned run = 1;
        while (i + run < n && lens[i + run] == lens[i])
            run++;
        unsigned v = lens[i];
        i += run;
        if (v == 0) {
            while (run >= 11) {
                unsigned k = run > 138 ? 138 : run;
                r->sym[r->n] = 18, r->extra[r->n++] = (uint8_t)(k - 11);
                run -= k;
            }
            if (run >= 3) {
                r->sym[r->n] = 17, r->extra[r->n++] = (uint8_t)(run - 3);
                run = 0;
            }
        } else {
            r->sym[r->n] = (uint8_t)v, r->extra[r->n++] = 0;
            run--;
            while (run >= 3) {
                unsigned k = run > 6 ? 6 : run;
                r->sym[r->n] = 16, r->extra[r->n++] = (uint8_t)(k - 3);
                run -= k;
            }
        }
        while (run--)
            r->sym[r->n] = (uint8_t)v, r->extra[r->n++] = 0;
    }
}

static const uint8_t run_extra_bits[19] = {[16] = 2, [17] = 3, [18] = 7};

/* ---- Blocks ---- */

/* Literal/length codes for all 288 symbols: the fixed code's 286 and 287
 * take two of its 8-bit codes, which moves every 9-bit code after them. */
typedef struct {
    uint8_t ll_len[288], d_len[32];
    uint16_t ll_code[288], d_code[32];
} codes;

static void fixed_codes(codes *c)
{
    for (unsigned i = 0; i < 288; i++)
        c->ll_len[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    memset(c->d_len, 5, sizeof c->d_len);
    make_codes(c->ll_len, 288, c->ll_code);
    make_codes(c->d_len, 32, c->d_code);
}

/* Bits of the block's symbols under the code c (extra bits included). */
static uint64_t data_bits(const fz7_deflate_enc *e, const codes *c, unsigned nd)
{
    uint64_t bits = 0;
    for (unsigned i = 0; i < NUM_LITLEN; i++)
        bits += (uint64_t)e->freq_ll[i] * (c->ll_len[i] + (i >= 257 ? len_extra[i - 257] : 0));
    for (unsigned i = 0; i < nd; i++)
        bits += (uint64_t)e->freq_d[i] * (c->d_len[i] + dist_extra[i]);
    return bits;
}

static void write_symbols(fz7_deflate_enc *e, const codes *c)
{
    for (uint32_t i = 0; i < e->n_sym; i++) {
        unsigned s = e->sym[i];
        if (s < 256) {
            put_bits(e, c->ll_code[s], c->ll_len[s]);
            continue;
        }
        uint32_t len = s - 256, d = e->dist[i] + 1u;
        unsigned lc = length_code(len);
        put_bits(e, c->ll_code[lc], c->ll_len[lc]);
        if (len_extra[lc - 257])
            put_bits(e, len - len_base[lc - 257], len_extra[lc - 257]);
        unsigned dc = dist_code(d);
        put_bits(e, c->d_code[dc], c->d_len[dc]);
        if (dist_extra[dc])
            put_bits(e, d - dist_base[dc], dist_extra[dc]);
    }
    put_bits(e, c->ll_code[256], c->ll_len[256]);
}

/* Writes the gathered symbols as one block (bytes win[block_start, pos)
 * when still held), in its smallest form. */
static void end_block(fz7_deflate_enc *e, bool last)
{
    unsigned nd = e->d64 ? 32 : NUM_DIST_CODES;
    e->freq_ll[256] = 1;
    /* Dynamic: at least two distance codes, so that the code is complete. */
    codes dyn;
    uint32_t dfreq[32];
    memcpy(dfreq, e->freq_d, sizeof dfreq);
    unsigned dused = 0;
    for (unsigned i = 0; i < nd; i++)
        dused += dfreq[i] != 0;
    for (unsigned i = 0; dused < 2 && i < 2; i++)
        if (!dfreq[i])
            dfreq[i] = 1, dused++;
    uint32_t llfreq[NUM_LITLEN];
    memcpy(llfreq, e->freq_ll, sizeof llfreq);
    if (e->n_sym == 0)
        llfreq[0] = 1;   /* EOB alone would be a 1-bit incomplete code */
    limited_lengths(llfreq, NUM_LITLEN, MAX_BITS, dyn.ll_len);
    dyn.ll_len[286] = dyn.ll_len[287] = 0;
    limited_lengths(dfreq, nd, MAX_BITS, dyn.d_len);
    memset(dyn.d_len + nd, 0, 32 - nd);
    unsigned hlit = NUM_LITLEN, hdist = nd;
    while (hlit > 257 && !dyn.ll_len[hlit - 1])
        hlit--;
    while (hdist > 1 && !dyn.d_len[hdist - 1])
        hdist--;
    uint8_t all[NUM_LITLEN + 32];
    memcpy(all, dyn.ll_len, hlit);
    memcpy(all + hlit, dyn.d_len, hdist);
    len_runs runs;
    run_code(all, hlit + hdist, &runs);
    uint32_t cfreq[NUM_CLEN] = {0};
    for (unsigned i = 0; i < runs.n; i++)
        cfreq[runs.sym[i]]++;
    uint8_t clen[NUM_CLEN];
    uint16_t ccode[NUM_CLEN];
    limited_lengths(cfreq, NUM_CLEN, CLEN_MAX_BITS, clen);
    unsigned hclen = NUM_CLEN;
    while (hclen > 4 && !clen[clen_order[hclen - 1]])
        hclen--;
    uint64_t dyn_bits = 3 + 14 + 3 * hclen;
    for (unsigned i = 0; i < runs.n; i++)
        dyn_bits += clen[runs.sym[i]] + run_extra_bits[runs.sym[i]];
    make_codes(dyn.ll_len, NUM_LITLEN, dyn.ll_code);
    make_codes(dyn.d_len, 32, dyn.d_code);
    dyn_bits += data_bits(e, &dyn, nd);

    codes fix;
    fixed_codes(&fix);
    uint64_t fix_bits = 3 + data_bits(e, &fix, nd);

    uint64_t span = e->block_start >= 0 ? e->pos - (uint64_t)e->block_start : 0;
    uint64_t stored_bits = UINT64_MAX;
    if (e->block_start >= 0)
        stored_bits = 8 * span + (span / STORED_MAX + 1) * 40 + 7;

    if (stored_bits <= fix_bits && stored_bits <= dyn_bits) {
        const uint8_t *p = e->win + e->block_start;
        do {
            uint32_t k = span > STORED_MAX ? STORED_MAX : (uint32_t)span;
            span -= k;
            put_bits(e, (last && span == 0) ? 1 : 0, 3);
            align_byte(e);
            put_bits(e, k, 16);
            put_bits(e, k ^ 0xFFFFu, 16);
            for (uint32_t i = 0; i < k; i++)
                put_bits(e, p[i], 8);
            p += k;
        } while (span);
    } else if (fix_bits <= dyn_bits) {
        put_bits(e, last ? 3 : 2, 3);
        write_symbols(e, &fix);
    } else {
        put_bits(e, last ? 5 : 4, 3);
        put_bits(e, hlit - 257, 5);
        put_bits(e, hdist - 1, 5);
        put_bits(e, hclen - 4, 4);
        for (unsigned i = 0; i < hclen; i++)
            put_bits(e, clen[clen_order[i]], 3);
        make_codes(clen, NUM_CLEN, ccode);
        for (unsigned i = 0; i < runs.n; i++) {
            unsigned s = runs.sym[i];
            put_bits(e, ccode[s], clen[s]);
            if (run_extra_bits[s])
                put_bits(e, runs.extra[i], run_extra_bits[s]);
        }
        write_symbols(e, &dyn);
    }
    e->n_sym = 0;
    memset(e->freq_ll, 0, sizeof e->freq_ll);
    memset(e->freq_d, 0, sizeof e->freq_d);
    e->block_start = e->pos;
}

static void add_literal(fz7_deflate_enc *e, uint8_t b)
{
    e->sym[e->n_sym] = b;
    e->dist[e->n_sym++] = 0;
    e->freq_ll[b]++;
}

static void add_match(fz7_deflate_enc *e, uint32_t len, uint32_t d)
{
    e->sym[e->n_sym] = (uint16_t)(256 + len);
    e->dist[e->n_sym++] = (uint16_t)(d - 1);
    e->freq_ll[length_code(len)]++;
    e->freq_d[dist_code(d)]++;
}

/* ---- Matching ---- */

static inline uint32_t hash3(const uint8_t *p)
{
    return ((uint32_t)p[0] << 10 ^ (uint32_t)p[1] << 5 ^ p[2]) & ((1u << HASH_BITS) - 1);
}

/* Hashes every position below upto that has 3 bytes. */
static void insert_to(fz7_deflate_enc *e, uint32_t upto)
{
    for (; e->ins < upto && e->ins + MIN_MATCH <= e->win_len; e->ins++) {
        uint32_t h = hash3(e->win + e->ins);
        e->prev[e->ins & (e->wsize - 1)] = e->head[h];
        e->head[h] = e->ins + 1;
    }
}

/* The longest match at p (its hash not yet inserted) within the window. */
static uint32_t find_match(fz7_deflate_enc *e, uint32_t p, uint32_t *dist)
{
    insert_to(e, p);
    uint32_t avail = e->win_len - p, best = 0;
    if (avail < MIN_MATCH)
        return 0;
    uint32_t lim = avail < e->max_len ? avail : e->max_len;
    const uint8_t *cur = e->win + p;
    uint32_t c = e->head[hash3(cur)];
    for (uint32_t chain = e->depth; c != NIL && chain; chain--) {
        uint32_t at = c - 1;
        if (p - at > e->wsize)
            break;
        const uint8_t *q = e->win + at;
        if (q[best] == cur[best] && q[0] == cur[0]) {
            uint32_t l = 0;
            while (l < lim && q[l] == cur[l])
                l++;
            if (l > best) {
                best = l;
                *dist = p - at;
                if (l >= e->nice || l == lim)
                    break;
            }
        }
        uint32_t nx = e->prev[at & (e->wsize - 1)];
        if (nx >= c)
            break;   /* an entry the window has moved past */
        c = nx;
    }
    return best >= MIN_MATCH ? best : 0;
}

/* Moves the upper window down when pos nears the end of the buffer. */
static void slide(fz7_deflate_enc *e)
{
    uint32_t w = e->wsize;
    memmove(e->win, e->win + w, e->win_len - w);
    e->win_len -= w;
    e->pos -= w;
    e->ins -= w;
    e->block_start -= w;
    for (uint32_t i = 0; i < (1u << HASH_BITS); i++)
        e->head[i] = e->head[i] > w ? e->head[i] - w : NIL;
    for (uint32_t i = 0; i < w; i++)
        e->prev[i] = e->prev[i] > w ? e->prev[i] - w : NIL;
}

/* Codes positions while max_len bytes of lookahead remain (all of them
 * when flushing). */
static void compress(fz7_deflate_enc *e, bool flushing)
{
    uint32_t need = flushing ? 1 : e->max_len;
    while (e->pos + need <= e->win_len) {
        if (e->n_sym >= BLOCK_SYMBOLS - 1)
            end_block(e, false);
        uint32_t dist = 0, len;
        if (e->held) {
            len = e->held_len, dist = e->held_dist;
            e->held = false;
        } else {
            len = find_match(e, e->pos, &dist);
        }
        if (len && e->lazy && len < e->nice && e->pos + 1 + need <= e->win_len) {
            uint32_t d2 = 0, l2 = find_match(e, e->pos + 1, &d2);
            if (l2 > len) {
                add_literal(e, e->win[e->pos++]);
                e->held = true, e->held_len = l2, e->held_dist = d2;
                continue;
            }
        }
        if (len) {
            add_match(e, len, dist);
            e->pos += len;
        } else {
            add_literal(e, e->win[e->pos++]);
        }
    }
}

/* ---- The stream ---- */

fz7_status fz7_deflate_enc_new(int level, bool deflate64, fz7_ostream *dst, fz7_deflate_enc **out)
{
    *out = NULL;
    if (level < 1 || level > 9)
        return FZ7_E_ARG;
    fz7_deflate_enc *e = calloc(1, sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    e->dst = dst;
    e->d64 = deflate64;
    e->wsize = deflate64 ? 65536 : 32768;
    e->max_len = deflate64 ? 257 : 258;
    /* Chain depth, match length that ends a search, lazy evaluation. */
    static const struct { uint16_t depth, nice; bool lazy; } by_level[10] = {
        {0, 0, false}, {4, 16, false}, {8, 32, false}, {16, 32, true}, {32, 64, true},
        {64, 128, true}, {128, 192, true}, {256, 258, true}, {1024, 258, true}, {4096, 258, true}};
    e->depth = by_level[level].depth;
    e->nice = by_level[level].nice;
    e->lazy = by_level[level].lazy;
    e->win = malloc(2 * (size_t)e->wsize);
    e->head = calloc((size_t)1 << HASH_BITS, sizeof *e->head);
    e->prev = calloc(e->wsize, sizeof *e->prev);
    if (!e->win || !e->head || !e->prev) {
        fz7_deflate_enc_free(e);
        return FZ7_E_MEM;
    }
    *out = e;
    return FZ7_OK;
}

fz7_status fz7_deflate_enc_write(fz7_deflate_enc *e, const uint8_t *p, size_t n)
{
    while (n && e->err == FZ7_OK) {
        if (e->win_len == 2 * e->wsize) {
            compress(e, false);
            slide(e);
        }
        size_t k = 2 * e->wsize - e->win_len;
        if (k > n)
            k = n;
        memcpy(e->win + e->win_len, p, k);
        e->win_len += (uint32_t)k;
        p += k;
        n -= k;
    }
    return e->err;
}

fz7_status fz7_deflate_enc_finish(fz7_deflate_enc *e)
{
    compress(e, true);
    end_block(e, true);
    align_byte(e);
    flush_out(e);
    return e->err;
}

uint64_t fz7_deflate_enc_bytes_out(const fz7_deflate_enc *e)
{
    return e->bytes_out + e->out_len;
}

void fz7_deflate_enc_free(fz7_deflate_enc *e)
{
    if (!e)
        return;
    free(e->win);
    free(e->head);
    free(e->prev);
    free(e);
}
