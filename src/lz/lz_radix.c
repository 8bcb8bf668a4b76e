/* lz_radix.c - the radix match table (lz_radix.h).
 *
 * The block's positions are bucketed on their first two bytes (a counting
 * sort, so each bucket lists them in ascending order), and every bucket is
 * split on the next byte, and so on: a list at depth d holds, in order,
 * the positions that share their first d bytes. A position's nearest
 * earlier position with the most common bytes is its predecessor in the
 * deepest list where it has one in reach, so it is set when the position
 * is the first of its part at the next depth. Short lists are finished by
 * comparing each pair directly, which is cheaper than splitting them. */
#include "lz/lz_radix.h"

#include <stdlib.h>
#include <string.h>

/* Lists this long or shorter are finished pair by pair. */
#define SMALL 24u
/* Two-byte buckets of the first level. */
#define TOP_BUCKETS 65536u

typedef struct ctx {
    const uint8_t *data;
    uint32_t len, from, dict, max_len;
    fz7_lz_radix_entry *out;   /* indexed by position - from */
    uint8_t *keys;             /* byte d of a list's entries, at its offset */
    uint32_t cnt[257];         /* zero between uses */
} ctx;

static inline void set_longest(ctx *c, uint32_t p, uint32_t q, uint32_t l)
{
    c->out[p - c->from].longest = (p - q - 1) << 8 | l;
}

/* Bytes a and b (b before a) share from d on, counting up to lim. */
static inline uint32_t lcp_from(const uint8_t *data, uint32_t a, uint32_t b, uint32_t d, uint32_t lim)
{
    const uint8_t *x = data + a, *y = data + b;
    while (d + 8 <= lim) {
        uint64_t u, v;
        memcpy(&u, x + d, 8);
        memcpy(&v, y + d, 8);
        if (u != v)
            return d + (uint32_t)(__builtin_ctzll(u ^ v) >> 3);
        d += 8;
    }
    while (d < lim && x[d] == y[d])
        d++;
    return d;
}

/* A short list at depth d: each position against the ones before it,
 * nearest first, until the reach ends. The near links are set here when
 * the list has not passed their depth yet. */
static void finish_small(ctx *c, const uint32_t *list, uint32_t k, uint32_t d)
{
    const int want_a = d <= FZ7_LZ_RADIX_NEAR_A, want_b = d <= FZ7_LZ_RADIX_NEAR_B;
    for (uint32_t i = 1; i < k; i++) {
        uint32_t p = list[i];
        if (p < c->from)
            continue;
        uint32_t left = c->len - p, lim = left < c->max_len ? left : c->max_len;
        uint32_t best = 0, bq = 0, na = 0, nb = 0;
        for (uint32_t j = i; j-- > 0;) {
            uint32_t q = list[j];
            if (p - q > c->dict)
                break;
            uint32_t l = lcp_from(c->data, p, q, d, lim);
            if (l > best) {
                best = l;
                bq = q;
            }
            if (want_a && !na && l >= FZ7_LZ_RADIX_NEAR_A)
                na = p - q;
            if (want_b && !nb && l >= FZ7_LZ_RADIX_NEAR_B)
                nb = p - q;
            if (best == lim && (!want_a || na) && (!want_b || nb))
                break;
        }
        if (best)
            set_longest(c, p, bq, best);
        if (want_a)
            c->out[p - c->from].near_a = na;
        if (want_b)
            c->out[p - c->from].near_b = nb;
    }
}

/* Every position of a list at a near link's depth links to the one
 * before it. */
static void near_links(ctx *c, const uint32_t *list, uint32_t k, int b)
{
    for (uint32_t i = 1; i < k; i++) {
        uint32_t p = list[i], dist = p - list[i - 1];
        if (p >= c->from && dist <= c->dict) {
            if (b)
                c->out[p - c->from].near_b = dist;
            else
                c->out[p - c->from].near_a = dist;
        }
    }
}

/* list: k ascending positions sharing d bytes; tmp: room for k; off:
 * where they start in the scratch (both lists and the keys). */
static void sort_list(ctx *c, uint32_t *list, uint32_t *tmp, uint32_t k, uint32_t d, uint32_t off)
{
    for (;;) {
        if (k <= SMALL) {
            finish_small(c, list, k, d);
            return;
        }
        if (d == FZ7_LZ_RADIX_NEAR_A || d == FZ7_LZ_RADIX_NEAR_B)
            near_links(c, list, k, d == FZ7_LZ_RADIX_NEAR_B);
        if (d >= c->max_len) {
            for (uint32_t i = 1; i < k; i++) {
                uint32_t p = list[i], q = list[i - 1];
                if (p >= c->from && p - q <= c->dict)
                    set_longest(c, p, q, d);
            }
            return;
        }
        /* Part 0: positions whose data ends before byte d; part 1 + v:
         * byte d is v. Only the parts present are visited. */
        const uint8_t *at = c->data + d;
        const uint32_t ends = c->len - d;
        uint32_t *cnt = c->cnt;
        uint16_t used[257];
        unsigned nu = 0;
        uint8_t *key = c->keys + off;   /* read once, at random; then in order */
        for (uint32_t i = 0; i < k; i++) {
            if (i + 16 < k)
                __builtin_prefetch(at + list[i + 16]);
            uint32_t p = list[i];
            unsigned b = p < ends ? at[p] + 1u : 0u;
            key[i] = (uint8_t)(b - 1);
            if (cnt[b]++ == 0)
                used[nu++] = (uint16_t)b;
        }
        if (nu == 1 && used[0] != 0) {   /* one part: the same list one deeper */
            cnt[used[0]] = 0;
            d++;
            continue;
        }
        uint32_t start[257], fill[257];
        uint32_t s = 0;
        for (unsigned u = 0; u < nu; u++) {
            unsigned b = used[u];
            start[b] = fill[b] = s;
            s += cnt[b];
        }
        for (uint32_t i = 0; i < k; i++) {
            uint32_t p = list[i];
            unsigned b = p < ends ? key[i] + 1u : 0u;
            /* No earlier position in reach in its part: its longest is
             * the one before it here. */
            if (i > 0 && p >= c->from && (b == 0 || fill[b] == start[b] || p - tmp[fill[b] - 1] > c->dict)
                && p - list[i - 1] <= c->dict)
                set_longest(c, p, list[i - 1], d);
            tmp[fill[b]++] = p;
        }
        for (unsigned u = 0; u < nu; u++)
            c->cnt[used[u]] = 0;
        for (unsigned u = 0; u < nu; u++) {
            unsigned b = used[u];
            uint32_t n = fill[b] - start[b];
            if (b != 0 && n >= 2)
                sort_list(c, tmp + start[b], list + start[b], n, d + 1, off + start[b]);
        }
        return;
    }
}

/* One past the run of data[i]'s value from i, looked at up to stop. */
static uint32_t run_end(const uint8_t *data, uint32_t i, uint32_t stop)
{
    uint32_t j = i + 1;
    while (j < stop && data[j] == data[i])
        j++;
    return j;
}

uint64_t fz7_lz_radix_work_bytes(uint32_t cap)
{
    return (uint64_t)cap * (2 * sizeof(uint32_t) + 1) + (TOP_BUCKETS + 1) * sizeof(uint32_t);
}

int fz7_lz_radix_work_init(fz7_lz_radix_work *w, uint32_t cap)
{
    w->cap = cap;
    w->list = malloc(((size_t)cap + 1) * sizeof(uint32_t));
    w->tmp = malloc(((size_t)cap + 1) * sizeof(uint32_t));
    w->keys = malloc((size_t)cap + 1);
    if (!w->list || !w->tmp || !w->keys) {
        fz7_lz_radix_work_free(w);
        return -1;
    }
    return 0;
}

void fz7_lz_radix_work_free(fz7_lz_radix_work *w)
{
    free(w->list);
    free(w->tmp);
    free(w->keys);
    w->list = w->tmp = NULL;
    w->keys = NULL;
    w->cap = 0;
}

void fz7_lz_radix_build(fz7_lz_radix_work *w, const uint8_t *data, uint32_t len, uint32_t lo, uint32_t from,
                        uint32_t to, uint32_t dict, uint32_t max_len, fz7_lz_radix_entry *out)
{
    memset(out, 0, (size_t)(to - from) * sizeof(*out));
    ctx *c = malloc(sizeof(*c));
    uint32_t *heads = malloc((TOP_BUCKETS + 1) * sizeof(uint32_t));
    if (!c || !heads) {
        free(c);
        free(heads);
        return;   /* no matches from the table: still a valid stream */
    }
    memset(c, 0, sizeof(*c));
    c->data = data;
    c->len = len;
    c->from = from;
    c->dict = dict;
    c->max_len = max_len;
    c->out = out;
    c->keys = w->keys;
    memset(heads, 0, (TOP_BUCKETS + 1) * sizeof(uint32_t));
    /* Inside a run of one byte value with max_len more after it, the
     * longest match is max_len bytes one back, and so are the near ones:
     * those positions are set after the sort, and the ones with more than
     * max_len after them are left out of it (each would take the sort to
     * the depth cut). Every position the sort does answer finds a source
     * at least as near and as long among the run's last max_len + 1. */
    uint32_t n = 0;
    uint32_t *list = w->list;
    const uint32_t last = len - 1 < to ? len - 1 : to;   /* positions with 2 bytes */
    const uint32_t stop = to + max_len + 1 < len ? to + max_len + 1 : len;
    for (uint32_t i = lo; i < last;) {
        uint32_t j = run_end(data, i, stop);
        for (uint32_t p = i; p < j && p < last; p++) {
            if (p > i && j - p > max_len)
                continue;
            list[n++] = p;
            heads[((uint32_t)data[p] << 8 | data[p + 1]) + 1]++;
        }
        i = j;
    }
    for (uint32_t b = 0; b < TOP_BUCKETS; b++)
        heads[b + 1] += heads[b];
    uint32_t *tmp = w->tmp;
    {
        /* Scatter into tmp by the first two bytes, keeping order; heads[b]
         * runs from the bucket's start to its end. */
        uint32_t *fill = heads;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = list[i];
            tmp[fill[(uint32_t)data[p] << 8 | data[p + 1]]++] = p;
        }
    }
    /* heads[b] now holds the end of bucket b, which is the start of b + 1. */
    uint32_t begin = 0;
    for (uint32_t b = 0; b < TOP_BUCKETS; b++) {
        uint32_t end = heads[b];
        if (end - begin >= 2)
            sort_list(c, tmp + begin, list + begin, end - begin, 2, begin);
        begin = end;
    }
    for (uint32_t i = lo; i < last;) {
        uint32_t j = run_end(data, i, stop);
        for (uint32_t p = i + 1 > from ? i + 1 : from; p < j && p < last && j - p >= max_len; p++) {
            out[p - from].longest = max_len;   /* dist 1 */
            out[p - from].near_a = out[p - from].near_b = 1;
        }
        i = j;
    }
    free(heads);
    free(c);
}
