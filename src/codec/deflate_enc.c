/* deflate_enc.c - Deflate (RFC 1951) and Deflate64 encoder for the 7z
 * methods 040108 and 040109 and for gzip.
 *
 * The first parse takes its matches from hash chains over a sliding window
 * (3-byte hashes; chain depth, nice length and lazy evaluation set by the
 * level, mc= and fb=). Symbols are gathered into blocks of up to
 * BLOCK_SYMBOLS; each block is written as whichever of stored,
 * fixed-Huffman or dynamic-Huffman (3.2.4-3.2.7) is smallest. The
 * shortest-path levels (a=1, -mx5 up) parse each block again, pass= times
 * while that makes it smaller, by shortest path over its bytes with the bit
 * costs of a code (first the code of the block before, then the one the
 * parse before got), over matches a bt4 binary tree (lz/lz_mf.h) finds
 * once per block; the first parse is then only a cheap seed, and the
 * smallest parse is written, its symbols split in halves where a code per
 * half is smaller. Dynamic codes are length-limited by package-merge, so
 * every code is complete, as strict decoders (zlib's) require. Memory: two
 * windows plus the chains, about 0.5 MiB for Deflate64; the shortest path
 * adds the tree and a block's bytes, matches and tables (OPT_BLOCK_BYTES
 * at most). */
#include "codec/codec.h"
#include "codec/deflate_tables.h"
#include "lz/lz_mf.h"
#include "lz/match_len.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BITS 16
#define NIL 0u                   /* chain entries are window index + 1 */
#define MIN_MATCH 3
#define MAX_MATCH 258            /* the longest match either variant writes */
#define BLOCK_SYMBOLS 16384
#define NUM_LITLEN 286
#define NUM_DIST_CODES 30        /* Deflate; Deflate64 has 32 */
#define MAX_BITS 15
#define CLEN_MAX_BITS 7
#define STORED_MAX 65535u
#define OUT_SIZE ((size_t)1 << 16)
/* With shortest paths, a block also ends after this many bytes: its
 * matches are held for the re-parses. */
#define OPT_BLOCK_BYTES ((uint32_t)1 << 17)
/* Matches kept per position for the re-parses (the longest ones): every
 * shorter length is still reachable through them. */
#define MATCHES_KEPT 8u
/* The first parse before shortest paths: a seed for the costs, so cheap. */
#define SEED_DEPTH 4u
#define SEED_NICE 16u
/* With shortest paths, halving a block's symbols is tried this many levels
 * deep, down to halves of SPLIT_MIN symbols (each try plans two codes: too
 * dear for the faster levels). */
#define SPLIT_DEPTH 3
#define SPLIT_MIN 1024u
/* Bits a shortest path prices a symbol the code leaves out (code_cost). */
#define ABSENT_COST 6u
/* 7zz's largest pass=. */
#define MAX_PASSES 15u
/* The input buffer in windows: a slide rescans every hash head, so it
 * moves the buffer down once per (WIN_WINDOWS - 1) windows of input, not
 * once per window. */
#define WIN_WINDOWS 32u

/* One parse of a block: its symbols and their counts. */
typedef struct parse {
    uint16_t *sym;               /* a literal byte, or 256 + a match's length */
    uint16_t *dist;              /* a match's distance - 1 */
    uint32_t n;
    uint32_t freq_ll[NUM_LITLEN], freq_d[32];
} parse;

/* Literal/length codes for all 288 symbols: the fixed code's 286 and 287
 * take two of its 8-bit codes, which moves every 9-bit code after them. */
typedef struct {
    uint8_t ll_len[288], d_len[32];
    uint16_t ll_code[288], d_code[32];
} codes;

/* The block again (pass >= 2): its bytes after up to a window of the
 * bytes before it, the shortest-path tables, two parses (the best so far
 * and the one being made) and the block's matches, all grown to the
 * block's length. */
typedef struct reparse_buf {
    uint8_t *bytes;
    uint32_t hist, len, cap;     /* bytes before the block; bytes held; room */
    uint32_t *cost;              /* bits to reach each position */
    uint16_t *step_len, *step_dist;  /* how: 1 = literal, else a match */
    uint16_t *sym[2], *dist[2];
    parse tries[2];              /* the parses in sym[k], dist[k] */
    uint32_t tab_cap;            /* room in the tables, in block bytes */
    fz7_lz_mf mf;                /* bt4 over the whole stream, dictionary wsize */
    uint64_t block_at, tree_end; /* stream offsets: the block's first byte; one past the
                                    last byte the tree has */
    uint32_t *mstart;            /* position i's matches: mpack[mstart[i], mstart[i + 1]) */
    uint32_t *mpack;             /* len << 16 | (dist - 1), lengths increasing */
    codes last;                  /* the code of the block written last, */
    bool have_last;              /* the first re-parse's costs when there is one */
} reparse_buf;

struct fz7_deflate_enc {
    fz7_ostream *dst;
    bool d64;
    uint32_t wsize;              /* the window: 32 or 64 KiB */
    uint32_t max_len;            /* longest match written: 258, Deflate64 257 */
    uint32_t depth, nice;        /* chain links (tree cycles in a shortest-path parse) per
                                    search; a match this long ends it */
    uint32_t seed_depth, seed_nice;  /* the first parse's (a seed before shortest paths) */
    bool lazy;
    uint32_t passes;             /* parses per block: 1, or the seed and pass= shortest paths */
    reparse_buf rp;              /* passes >= 2 only */

    uint8_t *win;                /* WIN_WINDOWS * wsize bytes */
    uint32_t win_len, pos, ins;  /* bytes held, next to code, next to hash */
    int64_t block_start;         /* the block's first byte in win; < 0 after a slide */
    uint32_t *head, *prev;       /* HASH_BITS heads; prev by pos % wsize */
    fz7_match_len_fn match_len;  /* the CPU's kernel (the same lengths on every path) */
    uint32_t held_len, held_dist;/* lazy: the match found at pos, not yet taken */
    bool held;

    parse first;                 /* the block as the match search parsed it */
    uint16_t sym_buf[BLOCK_SYMBOLS], dist_buf[BLOCK_SYMBOLS];

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

static void fixed_codes(codes *c)
{
    for (unsigned i = 0; i < 288; i++)
        c->ll_len[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    memset(c->d_len, 5, sizeof c->d_len);
    make_codes(c->ll_len, 288, c->ll_code);
    make_codes(c->d_len, 32, c->d_code);
}

/* Bits of the parse's symbols under the code c (extra bits included). */
static uint64_t data_bits(const parse *b, const codes *c, unsigned nd)
{
    uint64_t bits = 0;
    for (unsigned i = 0; i < NUM_LITLEN; i++)
        bits += (uint64_t)b->freq_ll[i] * (c->ll_len[i] + (i >= 257 ? len_extra[i - 257] : 0));
    for (unsigned i = 0; i < nd; i++)
        bits += (uint64_t)b->freq_d[i] * (c->d_len[i] + dist_extra[i]);
    return bits;
}

static void write_symbols(fz7_deflate_enc *e, const parse *b, const codes *c)
{
    for (uint32_t i = 0; i < b->n; i++) {
        unsigned s = b->sym[i];
        if (s < 256) {
            put_bits(e, c->ll_code[s], c->ll_len[s]);
            continue;
        }
        uint32_t len = s - 256, d = b->dist[i] + 1u;
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

/* A parse's block in each form, and which is smallest. */
typedef enum { BLOCK_STORED, BLOCK_FIXED, BLOCK_DYNAMIC } block_kind;
typedef struct {
    codes dyn, fix;
    len_runs runs;
    uint8_t clen[NUM_CLEN];
    unsigned hlit, hdist, hclen;
    block_kind kind;
    uint64_t bits;               /* of the smallest form */
} block_plan;

/* Plans b in each form; stored_ok: the block's bytes are
 * win[block_start, pos), so it may be written stored. */
static void plan_block(const fz7_deflate_enc *e, parse *b, block_plan *pl, bool stored_ok)
{
    unsigned nd = e->d64 ? 32 : NUM_DIST_CODES;
    b->freq_ll[256] = 1;
    /* Dynamic: at least two distance codes, so that the code is complete. */
    codes *dyn = &pl->dyn;
    uint32_t dfreq[32];
    memcpy(dfreq, b->freq_d, sizeof dfreq);
    unsigned dused = 0;
    for (unsigned i = 0; i < nd; i++)
        dused += dfreq[i] != 0;
    for (unsigned i = 0; dused < 2 && i < 2; i++)
        if (!dfreq[i])
            dfreq[i] = 1, dused++;
    uint32_t llfreq[NUM_LITLEN];
    memcpy(llfreq, b->freq_ll, sizeof llfreq);
    if (b->n == 0)
        llfreq[0] = 1;   /* EOB alone would be a 1-bit incomplete code */
    limited_lengths(llfreq, NUM_LITLEN, MAX_BITS, dyn->ll_len);
    dyn->ll_len[286] = dyn->ll_len[287] = 0;
    limited_lengths(dfreq, nd, MAX_BITS, dyn->d_len);
    memset(dyn->d_len + nd, 0, 32 - nd);
    pl->hlit = NUM_LITLEN, pl->hdist = nd;
    while (pl->hlit > 257 && !dyn->ll_len[pl->hlit - 1])
        pl->hlit--;
    while (pl->hdist > 1 && !dyn->d_len[pl->hdist - 1])
        pl->hdist--;
    uint8_t all[NUM_LITLEN + 32];
    memcpy(all, dyn->ll_len, pl->hlit);
    memcpy(all + pl->hlit, dyn->d_len, pl->hdist);
    run_code(all, pl->hlit + pl->hdist, &pl->runs);
    uint32_t cfreq[NUM_CLEN] = {0};
    for (unsigned i = 0; i < pl->runs.n; i++)
        cfreq[pl->runs.sym[i]]++;
    limited_lengths(cfreq, NUM_CLEN, CLEN_MAX_BITS, pl->clen);
    pl->hclen = NUM_CLEN;
    while (pl->hclen > 4 && !pl->clen[clen_order[pl->hclen - 1]])
        pl->hclen--;
    uint64_t dyn_bits = 3 + 14 + 3 * pl->hclen;
    for (unsigned i = 0; i < pl->runs.n; i++)
        dyn_bits += pl->clen[pl->runs.sym[i]] + run_extra_bits[pl->runs.sym[i]];
    make_codes(dyn->ll_len, NUM_LITLEN, dyn->ll_code);
    make_codes(dyn->d_len, 32, dyn->d_code);
    dyn_bits += data_bits(b, dyn, nd);

    fixed_codes(&pl->fix);
    uint64_t fix_bits = 3 + data_bits(b, &pl->fix, nd);

    uint64_t span = e->block_start >= 0 ? e->pos - (uint64_t)e->block_start : 0;
    uint64_t stored_bits = UINT64_MAX;
    if (stored_ok && e->block_start >= 0)
        stored_bits = 8 * span + (span / STORED_MAX + 1) * 40 + 7;

    if (stored_bits <= fix_bits && stored_bits <= dyn_bits)
        pl->kind = BLOCK_STORED, pl->bits = stored_bits;
    else if (fix_bits <= dyn_bits)
        pl->kind = BLOCK_FIXED, pl->bits = fix_bits;
    else
        pl->kind = BLOCK_DYNAMIC, pl->bits = dyn_bits;
}

static void write_block(fz7_deflate_enc *e, const parse *b, const block_plan *pl, bool last)
{
    if (pl->kind == BLOCK_STORED) {
        uint64_t span = e->pos - (uint64_t)e->block_start;
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
    } else if (pl->kind == BLOCK_FIXED) {
        put_bits(e, last ? 3 : 2, 3);
        write_symbols(e, b, &pl->fix);
    } else {
        put_bits(e, last ? 5 : 4, 3);
        put_bits(e, pl->hlit - 257, 5);
        put_bits(e, pl->hdist - 1, 5);
        put_bits(e, pl->hclen - 4, 4);
        for (unsigned i = 0; i < pl->hclen; i++)
            put_bits(e, pl->clen[clen_order[i]], 3);
        uint16_t ccode[NUM_CLEN];
        make_codes(pl->clen, NUM_CLEN, ccode);
        for (unsigned i = 0; i < pl->runs.n; i++) {
            unsigned s = pl->runs.sym[i];
            put_bits(e, ccode[s], pl->clen[s]);
            if (run_extra_bits[s])
                put_bits(e, pl->runs.extra[i], run_extra_bits[s]);
        }
        write_symbols(e, b, &pl->dyn);
    }
}

static const parse *reparse_block(fz7_deflate_enc *e, block_plan *pl);

/* Counts the symbols of p into its freq_ll and freq_d. */
static void count_symbols(parse *p)
{
    memset(p->freq_ll, 0, sizeof p->freq_ll);
    memset(p->freq_d, 0, sizeof p->freq_d);
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->sym[i] < 256) {
            p->freq_ll[p->sym[i]]++;
        } else {
            p->freq_ll[length_code(p->sym[i] - 256u)]++;
            p->freq_d[dist_code(p->dist[i] + 1u)]++;
        }
    }
}

/* Symbols [from, from + n) of b as a parse of their own, counted. */
static void sub_parse(const parse *b, uint32_t from, uint32_t n, parse *out)
{
    out->sym = b->sym + from;
    out->dist = b->dist + from;
    out->n = n;
    count_symbols(out);
}

/* Writes b, planned as pl, as one block or, when that is smaller, as the
 * two halves of its symbols, each split again up to depth - 1 times
 * (data whose statistics change gets a code for each part). Halves are
 * never stored blocks: their bytes are not at hand. */
static void write_split(fz7_deflate_enc *e, const parse *b, const block_plan *pl, bool last, int depth)
{
    if (depth > 0 && pl->kind != BLOCK_STORED && b->n >= 2 * SPLIT_MIN) {
        parse h[2];
        block_plan hp[2];
        uint32_t half = b->n / 2;
        sub_parse(b, 0, half, &h[0]);
        sub_parse(b, half, b->n - half, &h[1]);
        plan_block(e, &h[0], &hp[0], false);
        plan_block(e, &h[1], &hp[1], false);
        if (hp[0].bits + hp[1].bits < pl->bits) {
            write_split(e, &h[0], &hp[0], false, depth - 1);
            write_split(e, &h[1], &hp[1], last, depth - 1);
            return;
        }
    }
    write_block(e, b, pl, last);
}

/* Writes the gathered symbols as one block (bytes win[block_start, pos)
 * when still held), in its smallest form and, with passes, its smallest
 * parse. */
static void end_block(fz7_deflate_enc *e, bool last)
{
    block_plan pl;
    plan_block(e, &e->first, &pl, true);
    const parse *b = &e->first;
    if (e->passes > 1 && e->first.n && e->err == FZ7_OK)
        b = reparse_block(e, &pl);
    write_split(e, b, &pl, last, e->passes > 1 ? SPLIT_DEPTH : 0);
    e->first.n = 0;
    memset(e->first.freq_ll, 0, sizeof e->first.freq_ll);
    memset(e->first.freq_d, 0, sizeof e->first.freq_d);
    e->block_start = e->pos;
    /* The next block's re-parse may match into the last window of this one. */
    reparse_buf *r = &e->rp;
    if (r->len > e->wsize) {
        memmove(r->bytes, r->bytes + r->len - e->wsize, e->wsize);
        r->len = e->wsize;
    }
    r->hist = r->len;
}

/* Keeps the block's bytes for the re-parse (pass >= 2). */
static void keep_bytes(fz7_deflate_enc *e, const uint8_t *p, uint32_t n)
{
    reparse_buf *r = &e->rp;
    if (e->passes < 2 || e->err != FZ7_OK)
        return;
    if (r->len + n > r->cap) {
        uint32_t cap = r->cap ? r->cap : 2 * e->wsize;
        while (cap < r->len + n)
            cap *= 2;
        uint8_t *nb = realloc(r->bytes, cap);
        if (!nb) {
            e->err = FZ7_E_MEM;
            return;
        }
        r->bytes = nb;
        r->cap = cap;
    }
    memcpy(r->bytes + r->len, p, n);
    r->len += n;
}

static void add_literal(fz7_deflate_enc *e, uint8_t b)
{
    parse *f = &e->first;
    keep_bytes(e, &b, 1);
    f->sym[f->n] = b;
    f->dist[f->n++] = 0;
    f->freq_ll[b]++;
}

static void add_match(fz7_deflate_enc *e, uint32_t len, uint32_t d)
{
    parse *f = &e->first;
    keep_bytes(e, e->win + e->pos, len);
    f->sym[f->n] = (uint16_t)(256 + len);
    f->dist[f->n++] = (uint16_t)(d - 1);
    f->freq_ll[length_code(len)]++;
    f->freq_d[dist_code(d)]++;
}

/* ---- Matching ---- */

static inline uint32_t hash3(const uint8_t *p)
{
    return (((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16) * 0x9E3779B1u) >> (32 - HASH_BITS);
}

/* Hashes every position below upto that has 3 bytes. */
static void insert_to(fz7_deflate_enc *e, uint32_t upto)
{
    /* Locals: the stores into the tables would otherwise make every field
     * be loaded again each position. */
    uint32_t i = e->ins, end = e->win_len < MIN_MATCH ? 0 : e->win_len - MIN_MATCH + 1;
    if (end > upto)
        end = upto;
    const uint8_t *win = e->win;
    uint32_t *head = e->head, *prev = e->prev, mask = e->wsize - 1;
    for (; i < end; i++) {
        uint32_t h = hash3(win + i);
        prev[i & mask] = head[h];
        head[h] = i + 1;
    }
    if (i > e->ins)
        e->ins = i;
}

/* Walks the hash chain from c (a position + 1) for the longest match at
 * buf + p, up to lim bytes, at most depth links and wsize back; stops at
 * nice bytes. Returns the longest length (0 when none), its distance in
 * *dist. */
static uint32_t walk_chain(fz7_match_len_fn match_len, const uint8_t *buf, const uint32_t *prev, uint32_t wsize,
                           uint32_t c, uint32_t p, uint32_t lim, uint32_t depth, uint32_t nice, uint32_t *dist)
{
    const uint8_t *cur = buf + p;
    uint32_t best = 0;
    for (uint32_t chain = depth; c != NIL && chain; chain--) {
        uint32_t at = c - 1;
        if (p - at > wsize)
            break;
        const uint8_t *q = buf + at;
        if (q[best] == cur[best] && q[0] == cur[0]) {
            uint32_t l = fz7_match_len_step(match_len, cur, q, lim);
            if (l > best) {
                best = l;
                *dist = p - at;
                if (l >= nice || l == lim)
                    break;
            }
        }
        uint32_t nx = prev[at & (wsize - 1)];
        if (nx >= c)
            break;   /* an entry the window has moved past */
        c = nx;
    }
    return best;
}

/* The longest match at p (its hash not yet inserted) within the window. */
static uint32_t find_match(fz7_deflate_enc *e, uint32_t p, uint32_t *dist)
{
    insert_to(e, p);
    uint32_t avail = e->win_len - p;
    if (avail < MIN_MATCH)
        return 0;
    uint32_t lim = avail < e->max_len ? avail : e->max_len;
    uint32_t best = walk_chain(e->match_len, e->win, e->prev, e->wsize, e->head[hash3(e->win + p)], p, lim, e->seed_depth,
                               e->seed_nice, dist);
    return best >= MIN_MATCH ? best : 0;
}

/* Moves the buffer down when pos nears its end, keeping the window before
 * pos: by whole windows, so that prev's slots (pos % wsize) stay. */
static void slide(fz7_deflate_enc *e)
{
    uint32_t w = (e->pos - e->wsize) & ~(e->wsize - 1);
    memmove(e->win, e->win + w, e->win_len - w);
    e->win_len -= w;
    e->pos -= w;
    e->ins -= w;
    e->block_start -= w;
    for (uint32_t i = 0; i < (1u << HASH_BITS); i++)
        e->head[i] = e->head[i] > w ? e->head[i] - w : NIL;
    for (uint32_t i = 0; i < e->wsize; i++)
        e->prev[i] = e->prev[i] > w ? e->prev[i] - w : NIL;
}

/* Codes positions while max_len bytes of lookahead remain (all of them
 * when flushing). */
static void compress(fz7_deflate_enc *e, bool flushing)
{
    uint32_t need = flushing ? 1 : e->max_len;
    while (e->pos + need <= e->win_len) {
        if (e->first.n >= BLOCK_SYMBOLS - 1 || (e->passes > 1 && e->rp.len - e->rp.hist >= OPT_BLOCK_BYTES))
            end_block(e, false);
        uint32_t dist = 0, len;
        if (e->held) {
            len = e->held_len, dist = e->held_dist;
            e->held = false;
        } else {
            len = find_match(e, e->pos, &dist);
        }
        if (len && e->lazy && len < e->seed_nice && e->pos + 1 + need <= e->win_len) {
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

/* ---- Parsing again (pass >= 2) ---- */

/* Room in the shortest-path tables and the match lists for a block of n
 * bytes. */
static bool grow_tables(reparse_buf *r, uint32_t n)
{
    if (n <= r->tab_cap)
        return true;
    size_t m = (size_t)n + 1;
    uint32_t *cost = realloc(r->cost, m * sizeof *r->cost);
    if (!cost)
        return false;
    r->cost = cost;
    uint32_t *ms = realloc(r->mstart, m * sizeof *r->mstart);
    if (!ms)
        return false;
    r->mstart = ms;
    uint32_t *mp = realloc(r->mpack, (size_t)n * MATCHES_KEPT * sizeof *r->mpack);
    if (!mp)
        return false;
    r->mpack = mp;
    uint16_t **t16[6] = {&r->step_len, &r->step_dist, &r->sym[0], &r->sym[1], &r->dist[0], &r->dist[1]};
    bool ok = true;
    for (int i = 0; i < 6 && ok; i++) {
        uint16_t *q = realloc(*t16[i], m * sizeof **t16[i]);
        if (q)
            *t16[i] = q;
        ok = q != NULL;
    }
    if (ok)
        r->tab_cap = n;
    return ok;
}

/* Appends to the tree what follows its last byte: the rest of the block
 * src[0, n) and then the bytes after it still in the window, so that every
 * position it records has its real next bytes (a binary tree whose
 * positions were compared against a cut-off end returns matches that are
 * not there once more bytes come). */
static void feed_tree(fz7_deflate_enc *e, const uint8_t *src, uint32_t n)
{
    reparse_buf *r = &e->rp;
    const uint8_t *after = e->win + e->pos;
    uint64_t block_end = r->block_at + n, known = block_end + (e->win_len - e->pos);
    while (r->tree_end < known) {
        const uint8_t *p = r->tree_end < block_end ? src + (r->tree_end - r->block_at) : after + (r->tree_end - block_end);
        uint64_t k = (r->tree_end < block_end ? block_end : known) - r->tree_end;
        size_t got = fz7_lz_mf_append(&r->mf, p, (size_t)k);
        if (!got)
            break;
        r->tree_end += got;
    }
}

/* Feeds the block rp.bytes[hist, len) through the binary tree and keeps
 * each position's matches: the nearest of each length found, the
 * MATCHES_KEPT longest, none shorter than MIN_MATCH. Inside a match of
 * nice bytes or more nothing is searched (the re-parse takes it whole). */
static void collect_matches(fz7_deflate_enc *e)
{
    reparse_buf *r = &e->rp;
    const uint8_t *src = r->bytes + r->hist;
    uint32_t n = r->len - r->hist, inside = 0, m = 0;
    fz7_lz_match found[FZ7_LZ_MATCHES_MAX];
    for (uint32_t i = 0; i < n; i++) {
        if (fz7_lz_mf_avail(&r->mf) <= e->max_len)
            feed_tree(e, src, n);
        r->mstart[i] = m;
        if (inside) {
            fz7_lz_mf_skip(&r->mf, 1);
            inside--;
            continue;
        }
        uint32_t cnt = fz7_lz_mf_find(&r->mf, found), longest = 0;
        for (uint32_t k = cnt > MATCHES_KEPT ? cnt - MATCHES_KEPT : 0; k < cnt; k++) {
            /* the tree may extend a match of nice bytes past nice_len */
            uint32_t len = found[k].len < e->max_len ? found[k].len : e->max_len;
            if (len > n - i)   /* the tree sees past the block; the parse stops at its end */
                len = n - i;
            if (len >= MIN_MATCH && len > longest) {
                r->mpack[m++] = len << 16 | (found[k].dist - 1);
                longest = len;
            }
        }
        if (longest >= e->nice)
            inside = longest - 1;
    }
    r->mstart[n] = m;
    r->block_at += n;
}

/* The bits a symbol costs under a code. One the code leaves out costs
 * ABSENT_COST: priced as the longest code, it kept each parse to the
 * lengths and distances the one before used (numbered lines of text lost a
 * third that way). */
static inline uint32_t code_cost(uint8_t len)
{
    return len ? len : ABSENT_COST;
}

/* Parses the block rp.bytes[hist, len) by shortest path over its matches
 * (collect_matches): every literal, length and distance costs its bits
 * under c; a match of nice bytes or more is taken whole. The symbols go
 * to r->sym[slot], r->dist[slot]. */
static void shortest_parse(fz7_deflate_enc *e, const codes *c, int slot, parse *out)
{
    reparse_buf *r = &e->rp;
    const uint8_t *bytes = r->bytes;
    uint32_t n = r->len - r->hist;
    uint32_t lit[256], len_cost[MAX_MATCH + 1], dist_cost[32];
    for (unsigned i = 0; i < 256; i++)
        lit[i] = code_cost(c->ll_len[i]);
    for (uint32_t l = MIN_MATCH; l <= e->max_len; l++) {
        unsigned lc = length_code(l);
        len_cost[l] = code_cost(c->ll_len[lc]) + len_extra[lc - 257];
    }
    for (unsigned i = 0; i < 32; i++)
        dist_cost[i] = code_cost(c->d_len[i]) + dist_extra[i];
    for (uint32_t i = 1; i <= n; i++)
        r->cost[i] = UINT32_MAX;
    r->cost[0] = 0;
    uint32_t skip_to = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i < skip_to)
            continue;
        uint32_t p = r->hist + i;
        uint32_t base = r->cost[i];
        if (base + lit[bytes[p]] < r->cost[i + 1]) {
            r->cost[i + 1] = base + lit[bytes[p]];
            r->step_len[i + 1] = 1;
        }
        uint32_t from = MIN_MATCH, best = 0;
        for (uint32_t k = r->mstart[i]; k < r->mstart[i + 1]; k++) {
            uint32_t len = r->mpack[k] >> 16, d = (r->mpack[k] & 0xffffu) + 1;
            uint32_t dc = base + dist_cost[dist_code(d)];
            for (uint32_t l = from; l <= len; l++) {
                if (dc + len_cost[l] < r->cost[i + l]) {
                    r->cost[i + l] = dc + len_cost[l];
                    r->step_len[i + l] = (uint16_t)l;
                    r->step_dist[i + l] = (uint16_t)(d - 1);
                }
            }
            from = len + 1;
            best = len;
        }
        if (best >= e->nice)
            skip_to = i + best;
    }
    /* The path back from the block's end, written from the arrays' end. */
    uint32_t k = n;
    for (uint32_t i = n; i > 0;) {
        uint32_t l = r->step_len[i];
        k--;
        if (l == 1) {
            r->sym[slot][k] = bytes[r->hist + i - 1];
            r->dist[slot][k] = 0;
        } else {
            r->sym[slot][k] = (uint16_t)(256 + l);
            r->dist[slot][k] = r->step_dist[i];
        }
        i -= l;
    }
    out->sym = r->sym[slot] + k;
    out->dist = r->dist[slot] + k;
    out->n = n - k;
    count_symbols(out);
}

/* Parses the block again by shortest path while that makes it smaller, up
 * to passes - 1 times: first with the costs of the code of the block
 * before (the seed's when there is none), then of the parse before; *pl
 * becomes the plan of the smallest parse, which is returned. */
static const parse *reparse_block(fz7_deflate_enc *e, block_plan *pl)
{
    reparse_buf *r = &e->rp;
    if (!grow_tables(r, r->len - r->hist)) {
        /* No room: the first parse, still a valid block; the tree has
         * missed these bytes, so no block is parsed again after it. */
        e->passes = 1;
        return &e->first;
    }
    collect_matches(e);
    block_plan next;
    const parse *best = &e->first;
    int slot = 0;
    /* The last block's code first: a seed's code keeps a parse near the
     * seed. When that parse is no smaller, the seed's own costs get the
     * try instead. */
    bool from_last = r->have_last;
    for (uint32_t pass = 2; pass <= e->passes; pass++) {
        const codes *c = from_last ? &r->last : pl->kind == BLOCK_FIXED ? &pl->fix : &pl->dyn;
        shortest_parse(e, c, slot, &r->tries[slot]);
        plan_block(e, &r->tries[slot], &next, true);
        if (next.bits >= pl->bits && from_last) {
            from_last = false;
            pass--;
            continue;
        }
        from_last = false;
        if (next.bits >= pl->bits)
            break;
        *pl = next;
        best = &r->tries[slot];
        slot ^= 1;
    }
    r->last = pl->kind == BLOCK_FIXED ? pl->fix : pl->dyn;
    r->have_last = pl->kind != BLOCK_STORED;
    return best;
}

/* ---- The stream ---- */

void fz7_deflate_enc_opts_level(int level, fz7_deflate_enc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->level = level;
}

fz7_status fz7_deflate_enc_new(int level, bool deflate64, fz7_ostream *dst, fz7_deflate_enc **out)
{
    fz7_deflate_enc_opts o;
    fz7_deflate_enc_opts_level(level, &o);
    return fz7_deflate_enc_new_opts(&o, deflate64, dst, out);
}

fz7_status fz7_deflate_enc_new_opts(const fz7_deflate_enc_opts *o, bool deflate64, fz7_ostream *dst,
                                    fz7_deflate_enc **out)
{
    *out = NULL;
    int level = o->level;
    if (level < 1 || level > 9)
        return FZ7_E_ARG;
    fz7_deflate_enc *e = calloc(1, sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    e->dst = dst;
    e->d64 = deflate64;
    e->wsize = deflate64 ? 65536 : 32768;
    e->match_len = fz7_match_len_pick()->fn;
    e->max_len = deflate64 ? 257 : MAX_MATCH;
    /* Links or cycles per search, the match length that ends one, the
     * parse, and the shortest-path parses of each block. */
    static const struct { uint16_t depth, nice; bool optimal; uint8_t passes; } by_level[10] = {
        {0, 0, false, 0},   {4, 16, false, 0},  {8, 32, false, 0},  {8, 16, false, 0},  {16, 32, false, 0},
        {8, 258, true, 1},  {16, 258, true, 1}, {32, 258, true, 2}, {64, 258, true, 3}, {128, 258, true, 5}};
    e->depth = o->depth ? o->depth : by_level[level].depth;
    e->nice = o->nice_len ? o->nice_len : by_level[level].nice;
    /* 7zz takes any fb= and keeps it within the lengths a match can have. */
    if (e->nice < MIN_MATCH)
        e->nice = MIN_MATCH;
    if (e->nice > e->max_len)
        e->nice = e->max_len;
    bool optimal = o->parse == FZ7_DEFLATE_PARSE_BY_LEVEL ? by_level[level].optimal
                                                          : o->parse == FZ7_DEFLATE_PARSE_OPTIMAL;
    e->lazy = level >= 3 || optimal;   /* the seed of a shortest-path parse is lazy too */
    /* passes: parses per block, the first (hash chains) a seed for the costs */
    uint32_t sp = o->passes ? o->passes : by_level[level].passes ? by_level[level].passes : 1;
    if (sp > MAX_PASSES)
        sp = MAX_PASSES;
    e->passes = optimal ? 1 + sp : 1;
    e->seed_depth = optimal && e->depth > SEED_DEPTH ? SEED_DEPTH : e->depth;
    e->seed_nice = optimal && e->nice > SEED_NICE ? SEED_NICE : e->nice;
    e->first.sym = e->sym_buf;
    e->first.dist = e->dist_buf;
    e->win = malloc(WIN_WINDOWS * (size_t)e->wsize);
    e->head = calloc((size_t)1 << HASH_BITS, sizeof *e->head);
    e->prev = calloc(e->wsize, sizeof *e->prev);
    bool ok = e->win && e->head && e->prev;
    if (ok && e->passes > 1)
        ok = fz7_lz_mf_init(&e->rp.mf, FZ7_LZ_BT4, e->wsize, 0, e->nice, e->depth, 0, 0) == 0;
    if (!ok) {
        fz7_deflate_enc_free(e);
        return FZ7_E_MEM;
    }
    *out = e;
    return FZ7_OK;
}

void fz7_deflate_enc_restart(fz7_deflate_enc *e)
{
    /* Every head the stream set is a position below ins (a slide drops
     * the older ones): cleared, they are a new encoder's, and no walk
     * spends links on the last stream's positions. */
    for (uint32_t p = 0; p < e->ins; p++)
        e->head[hash3(e->win + p)] = NIL;
    e->win_len = e->pos = e->ins = 0;
    e->block_start = 0;
    e->held = false;
    e->held_len = e->held_dist = 0;
    e->first.n = 0;
    memset(e->first.freq_ll, 0, sizeof e->first.freq_ll);
    memset(e->first.freq_d, 0, sizeof e->first.freq_d);
    e->acc = 0;
    e->nbits = 0;
    e->out_len = 0;
    e->bytes_out = 0;
    e->err = FZ7_OK;
    reparse_buf *r = &e->rp;
    r->hist = r->len = 0;
    r->block_at = r->tree_end = 0;
    r->have_last = false;
    if (e->passes > 1)
        fz7_lz_mf_reset(&r->mf);
}

fz7_status fz7_deflate_enc_write(fz7_deflate_enc *e, const uint8_t *p, size_t n)
{
    while (n && e->err == FZ7_OK) {
        if (e->win_len == WIN_WINDOWS * e->wsize) {
            compress(e, false);
            slide(e);
        }
        size_t k = WIN_WINDOWS * e->wsize - e->win_len;
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
    reparse_buf *r = &e->rp;
    free(r->bytes);
    free(r->cost);
    free(r->step_len);
    free(r->step_dist);
    for (int k = 0; k < 2; k++) {
        free(r->sym[k]);
        free(r->dist[k]);
    }
    free(r->mstart);
    free(r->mpack);
    fz7_lz_mf_free(&r->mf);
    free(e);
}
