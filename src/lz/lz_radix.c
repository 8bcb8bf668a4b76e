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
#include "cpu/bytes.h"
#include "lz/match_len.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

const uint32_t fz7_lz_radix_near_depth[FZ7_LZ_RADIX_NEARS] = FZ7_LZ_RADIX_NEAR_DEPTHS;
#define NEARS FZ7_LZ_RADIX_NEARS
#define NEAR_DEPTH(i) fz7_lz_radix_near_depth[i]

/* Lists this long or shorter are finished pair by pair. */
#define SMALL 16u
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
            return d + fz7_first_diff8(u ^ v);
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
    uint32_t first = 0;   /* the near links this list has not passed */
    while (first < NEARS && NEAR_DEPTH(first) < d)
        first++;
    for (uint32_t i = 1; i < k; i++) {
        uint32_t p = list[i];
        if (p < c->from)
            continue;
        uint32_t left = c->len - p, lim = left < c->max_len ? left : c->max_len;
        uint32_t best = 0, bq = 0, near[NEARS] = {0}, todo = first;
        for (uint32_t j = i; j-- > 0;) {
            uint32_t q = list[j];
            if (p - q > c->dict)
                break;
            uint32_t l = lcp_from(c->data, p, q, d, lim);
            if (l > best) {
                best = l;
                bq = q;
            }
            for (uint32_t t = todo; t < NEARS && l >= NEAR_DEPTH(t); t++)
                if (!near[t])
                    near[t] = p - q;
            while (todo < NEARS && near[todo])
                todo++;
            if (best == lim && todo == NEARS)
                break;
        }
        if (best)
            set_longest(c, p, bq, best);
        for (uint32_t t = 0; t < NEARS; t++)   /* a fixed count: stores, not a memcpy call */
            if (t >= first)
                c->out[p - c->from].near[t] = near[t];
    }
}

/* Every position of a list at a near link's depth links to the one
 * before it. */
static void near_links(ctx *c, const uint32_t *list, uint32_t k, uint32_t t)
{
    for (uint32_t i = 1; i < k; i++) {
        uint32_t p = list[i], dist = p - list[i - 1];
        if (p >= c->from && dist <= c->dict)
            c->out[p - c->from].near[t] = dist;
    }
}

/* list: k ascending positions sharing d bytes; tmp: room for k; off:
 * where they start in the scratch (both lists and the keys). */
static void sort_list(ctx *c, uint32_t *list, uint32_t *tmp, uint32_t k, uint32_t d, uint32_t off)
{
    for (;;) {
        if (list[k - 1] < c->from)
            return;   /* only sources left: nothing of the block to answer */
        if (k <= SMALL) {
            finish_small(c, list, k, d);
            return;
        }
        for (uint32_t t = 0; t < NEARS; t++)
            if (d == NEAR_DEPTH(t))
                near_links(c, list, k, t);
        if (d >= c->max_len) {
            for (uint32_t i = 1; i < k; i++) {
                uint32_t p = list[i], q = list[i - 1];
                if (p >= c->from && p - q <= c->dict)
                    set_longest(c, p, q, d);
            }
            return;
        }
        /* Bytes every position of the list shares from d on (repeated
         * data: a copied stretch, a period) are skipped at once, not a
         * level each: one compare per position, and the first position
         * that differs at d stops it. */
        uint32_t common = c->max_len - d;
        for (uint32_t i = 1; i < k && common > 0; i++) {
            uint32_t p = list[i], left = c->len - p;
            uint32_t lim = d + common < left ? d + common : left;
            common = lim > d ? lcp_from(c->data, p, list[0], d, lim) - d : 0;
        }
        if (common > 0) {
            /* The same list at the depths skipped: near links there. */
            for (uint32_t t = 0; t < NEARS; t++)
                if (d < NEAR_DEPTH(t) && d + common > NEAR_DEPTH(t))
                    near_links(c, list, k, t);
            d += common;
            continue;
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

/* How many of the n bytes at p equal v (8 at a time). */
static uint32_t equal_run(const uint8_t *p, uint8_t v, uint32_t n)
{
    const uint64_t all = v * 0x0101010101010101ull;
    uint32_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        if (w != all)
            return k + fz7_first_diff8(w ^ all);
    }
    while (k < n && p[k] == v)
        k++;
    return k;
}

/* One past the run of data[i]'s value from i, looked at up to stop. */
static uint32_t run_end(const uint8_t *data, uint32_t i, uint32_t stop)
{
    uint32_t j = i + 1;
    if (j >= stop || data[j] != data[i])
        return j;   /* most runs: one byte */
    return j + equal_run(data + j, data[i], stop - j);
}

/* The first position from i below last where a run of two or more
 * equal bytes starts, or last (every position below last has its next
 * byte before stop): 8 positions a test, since most runs are one byte. */
static uint32_t run_start(const uint8_t *data, uint32_t i, uint32_t last, uint32_t stop)
{
    const uint64_t ones = 0x0101010101010101ull;
    for (; i < last && i + 9 <= stop; i += 8) {
        uint64_t z = fz7_get64le(data + i) ^ fz7_get64le(data + i + 1);
        uint64_t zero = (z - ones) & ~z & (ones << 7);   /* exact at the lowest zero byte */
        if (zero) {
            uint32_t j = i + (uint32_t)__builtin_ctzll(zero) / 8;
            return j < last ? j : last;
        }
    }
    for (; i < last; i++)
        if (data[i + 1] == data[i])
            return i;
    return last;
}

/* The first position from p below end that skip does not leave out. */
static inline uint32_t next_kept(const uint8_t *skip, uint32_t lo, uint32_t p, uint32_t end)
{
    if (p >= end || !skip[p - lo])
        return p;
    return p + equal_run(skip + (p - lo), 1, end - p);
}

/* A stretch [a, b) whose every byte equals the one d before it (d >= 2):
 * a copied block, or data with a period. */
typedef struct repeat {
    uint32_t a, b, d;
} repeat;

typedef struct repeat_list {
    repeat *r;
    size_t n, cap;
} repeat_list;

#define REPEAT_HASH_BITS 16
/* Positions hashed: one in REPEAT_STEP (a stretch is found a few bytes
 * late, at a multiple of its period at worst; the sort does the rest). */
#define REPEAT_STEP 4u

/* Repeats longer than max_len + 1 whose positions would each take the sort
 * to the depth cut: the nearest earlier position with the same next 8
 * bytes (a small hash of every REPEAT_STEP-th position outside them), or
 * the last stretch's distance, that shares
 * max_len + 1 names d. Positions with max_len to go are set to max_len
 * bytes at d after the sort (the nearest match of that length is taken
 * to be d back: a nearer one would be a shorter period); those with more
 * than max_len + 2d to go are left out of the sort (skip), whose
 * positions find an equal source in the last max_len + 2d. Stretches
 * end at stop, like the runs. Without memory for the list or the hash,
 * nothing is found (the sort then does it all). */
static void find_repeats(const uint8_t *data, uint32_t len, uint32_t lo, uint32_t to, uint32_t stop, uint32_t dict,
                         uint32_t max_len, uint8_t *skip, repeat_list *out)
{
    uint32_t *hash = calloc((size_t)1 << REPEAT_HASH_BITS, sizeof(uint32_t));
    if (!hash)
        return;
    uint32_t last_d = 0;   /* the last stretch's period: tried first */
    for (uint32_t p = lo; p < to && p + max_len + 1 < len;) {
        if (skip[p - lo]) {
            p = next_kept(skip, lo, p, to);
            continue;
        }
        if ((p - lo) % REPEAT_STEP != 0) {
            p++;
            continue;
        }
        /* Little-endian, as every hash that decides output. */
        uint32_t h = (uint32_t)((fz7_get64le(data + p) * 0x9E3779B97F4A7C15ull) >> (64 - REPEAT_HASH_BITS));
        uint32_t q = hash[h];
        hash[h] = p + 1;
        uint32_t d = 0;
        if (last_d && last_d <= p - lo && data[p + max_len] == data[p + max_len - last_d]
            && lcp_from(data, p, p - last_d, 0, max_len + 1) == max_len + 1)
            d = last_d;
        else if (q != 0 && p + 1 - q >= 2 && p + 1 - q <= dict && data[p + max_len] == data[q - 1 + max_len]
                 && lcp_from(data, p, q - 1, 0, max_len + 1) == max_len + 1)
            d = p + 1 - q;
        if (d < 2 || d > dict) {
            p += REPEAT_STEP;
            continue;
        }
        last_d = d;
        uint32_t b = p + max_len + 1;
        if (b < stop)
            b += lcp_from(data, b, b - d, 0, stop - b);
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 64;
            repeat *r = realloc(out->r, cap * sizeof(*r));
            if (!r)
                break;
            out->r = r;
            out->cap = cap;
        }
        out->r[out->n++] = (repeat){p, b, d};
        uint32_t tail = max_len + 2 * d;   /* kept in the sort */
        if (b > tail) {
            uint32_t e = b - tail < to ? b - tail : to;
            if (e > p)
                memset(skip + (p - lo), 1, e - p);
        }
        /* No later position of the stretch starts one (fewer than
         * max_len + 1 to go): the search goes on after it. */
        p = b - max_len;
    }
    free(hash);
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

/* Parts of the first level's buckets that threads take one at a time:
 * enough that two threads end within about a part of each other. */
#define PARTS 64u

struct fz7_lz_radix_job {
    ctx base;                  /* what every sorting thread's ctx starts from */
    uint32_t *list, *tmp;      /* the work's lists: the buckets are in tmp */
    uint32_t heads[TOP_BUCKETS + 1];   /* end of each bucket in tmp */
    uint32_t part[PARTS + 1];  /* first bucket of each part */
    _Atomic uint32_t next_part, parts_done;
    uint32_t lo, to, last, stop;
    repeat_list reps;
};

fz7_lz_radix_job *fz7_lz_radix_begin(fz7_lz_radix_work *w, const uint8_t *data, uint32_t len, uint32_t lo,
                                     uint32_t from, uint32_t to, uint32_t dict, uint32_t max_len,
                                     fz7_lz_radix_entry *out)
{
    fz7_lz_radix_job *j = calloc(1, sizeof(*j));
    if (!j) {
        memset(out, 0, (size_t)(to - from) * sizeof(*out));
        return NULL;   /* no matches from the table: still a valid stream */
    }
    ctx *c = &j->base;
    c->data = data;
    c->len = len;
    c->from = from;
    c->dict = dict;
    c->max_len = max_len;
    c->out = out;
    c->keys = w->keys;
    uint32_t *heads = j->heads;   /* counts at b + 1 first, then ends */
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
    j->lo = lo;
    j->to = to;
    j->last = last;
    j->stop = stop;
    uint8_t *skip = w->keys;   /* 1: left out of the sort (the keys come later) */
    memset(skip, 0, to - lo);
    for (uint32_t i = run_start(data, lo, last, stop); i < last;) {
        uint32_t e = run_end(data, i, stop);
        uint32_t end = e > max_len ? e - max_len : 0;   /* one past the last with more than max_len to go */
        end = end < last ? end : last;
        if (end > i + 1)
            memset(skip + (i + 1 - lo), 1, end - (i + 1));
        i = run_start(data, e, last, stop);
    }
    find_repeats(data, len, lo, to, stop, dict, max_len, skip, &j->reps);
    /* Entries start empty where the sort may set them; those it leaves
     * out are all set after it, and the last position has no 2 bytes. */
    static const fz7_lz_radix_entry none;
    for (uint32_t p = next_kept(skip, lo, lo, last); p < last; p = next_kept(skip, lo, p + 1, last)) {
        list[n++] = p;
        heads[((uint32_t)data[p] << 8 | data[p + 1]) + 1]++;
        if (p >= from)
            out[p - from] = none;
    }
    for (uint32_t p = last > from ? last : from; p < to; p++)
        out[p - from] = none;
    for (uint32_t b = 0; b < TOP_BUCKETS; b++)
        heads[b + 1] += heads[b];
    uint32_t *tmp = w->tmp;
    /* Scatter into tmp by the first two bytes, keeping order; heads[b]
     * runs from the bucket's start to its end. */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = list[i];
        tmp[heads[(uint32_t)data[p] << 8 | data[p + 1]]++] = p;
    }
    /* Parts of about n / PARTS positions each. */
    uint32_t part = 1;
    for (uint32_t b = 0; b < TOP_BUCKETS && part < PARTS; b++)
        if (heads[b] >= (uint64_t)n * part / PARTS)
            j->part[part++] = b + 1;
    while (part <= PARTS)
        j->part[part++] = TOP_BUCKETS;
    j->list = list;
    j->tmp = tmp;
    return j;
}

void fz7_lz_radix_sort(fz7_lz_radix_job *j)
{
    ctx c = j->base;   /* this thread's counts (zero) */
    for (;;) {
        uint32_t i = atomic_fetch_add_explicit(&j->next_part, 1, memory_order_relaxed);
        if (i >= PARTS)
            return;
        for (uint32_t b = j->part[i]; b < j->part[i + 1]; b++) {
            uint32_t begin = b ? j->heads[b - 1] : 0, end = j->heads[b];
            if (end - begin >= 2)
                sort_list(&c, j->tmp + begin, j->list + begin, end - begin, 2, begin);
        }
        atomic_fetch_add_explicit(&j->parts_done, 1, memory_order_release);
    }
}

int fz7_lz_radix_sorted(fz7_lz_radix_job *j)
{
    return atomic_load_explicit(&j->parts_done, memory_order_acquire) == PARTS;
}

void fz7_lz_radix_end(fz7_lz_radix_job *j)
{
    const ctx *c = &j->base;
    const uint8_t *data = c->data;
    const uint32_t from = c->from, max_len = c->max_len, last = j->last, stop = j->stop;
    fz7_lz_radix_entry *out = c->out;
    for (uint32_t i = run_start(data, j->lo, last, stop); i < last;) {
        uint32_t e = run_end(data, i, stop);
        for (uint32_t p = i + 1 > from ? i + 1 : from; p < e && p < last && e - p >= max_len; p++) {
            out[p - from].longest = max_len;   /* dist 1 */
            for (uint32_t t = 0; t < NEARS; t++)
                out[p - from].near[t] = 1;
        }
        i = run_start(data, e, last, stop);
    }
    for (size_t r = 0; r < j->reps.n; r++) {
        const repeat *x = &j->reps.r[r];
        for (uint32_t p = x->a > from ? x->a : from; p + max_len <= x->b && p < j->to; p++) {
            out[p - from].longest = (x->d - 1) << 8 | max_len;
            for (uint32_t t = 0; t < NEARS; t++)
                out[p - from].near[t] = x->d;
        }
    }
    free(j->reps.r);
    free(j);
}

void fz7_lz_radix_build(fz7_lz_radix_work *w, const uint8_t *data, uint32_t len, uint32_t lo, uint32_t from,
                        uint32_t to, uint32_t dict, uint32_t max_len, fz7_lz_radix_entry *out)
{
    fz7_lz_radix_job *j = fz7_lz_radix_begin(w, data, len, lo, from, to, dict, max_len, out);
    if (j) {
        fz7_lz_radix_sort(j);
        fz7_lz_radix_end(j);
    }
}
