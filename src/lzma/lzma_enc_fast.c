/* lzma_enc_fast.c - the fast parser (7-Zip a=0, -mx1..4): greedy with one
 * step of lazy evaluation.
 *
 * It takes the longest match unless a rep is nearly as long (reps are
 * cheap) or the next position starts a clearly better match, in which case
 * it codes a literal and decides again one byte later. No prices. */
#include "lzma/lzma_enc_impl.h"

#include <string.h>

/* True when dist0 'big' is more than 2^shift times 'small' (a distance
 * costs about 2 bits per doubling). */
static inline int farther_by(uint32_t small, uint32_t big, unsigned shift)
{
    return (big >> shift) > small;
}

/* One byte more of length does not pay for a distance 8 times farther
 * (the longest match against the one a byte shorter, and the next
 * position's match against this one). The next position's match, at most
 * a byte shorter, wins when this one is 128 times farther. 8 times for
 * the first two rules gives smaller archives than 128 for all three. */
#define LONGER_FARTHER_SHIFT 3u
#define LAZY_NEARER_SHIFT 7u

/* A 2-byte match farther than this (dist0) is coded as a literal instead:
 * its distance costs more than the two literals it replaces. */
#define SHORT_MATCH2_DIST 16u

/* True when the 2 bytes at a equal those at b (one 16-bit compare). */
static inline int same2(const uint8_t *a, const uint8_t *b)
{
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    return x == y;
}

/* Longest rep at p (coder position pos); sets *rep. 0 if none reaches 2.
 * Inline: out of line it cost a call and the reloads of reps per
 * position. */
__attribute__((always_inline)) static inline uint32_t best_rep(const struct fz7_lzma_enc *e, const uint8_t *p,
                                                               uint64_t pos, uint32_t avail, uint32_t *rep)
{
    uint32_t best = 0;
    for (uint32_t i = 0; i < 4; i++) {
        uint64_t d = (uint64_t)e->reps[i] + 1;
        if (d > pos || !same2(p, p - d))
            continue;
        uint32_t len = 2 + fz7_lzma_match_len(e, p + 2, p + 2 - d, avail - 2);
        if (len > best) {
            best = len;
            *rep = i;
        }
    }
    return best;
}

/* fz7_lzma_enc_next_matches and fz7_lzma_enc_skip, through hb5's hook
 * (lz_mf.h) when it searches on this thread (direct = 1; the fast levels'
 * own finder): the same bookkeeping, one dispatch less per position. */
__attribute__((always_inline)) static inline uint32_t next_matches(struct fz7_lzma_enc *e, int direct)
{
    if (!direct)
        return fz7_lzma_enc_next_matches(e);
    e->match_count = fz7_lz_mf_find_hb5(&e->mf, e->matches);
    e->ahead++;
    return e->match_count;
}

__attribute__((always_inline)) static inline void skip(struct fz7_lzma_enc *e, uint32_t n, int direct)
{
    if (!direct) {
        fz7_lzma_enc_skip(e, n);
        return;
    }
    fz7_lz_mf_skip_hb5(&e->mf, n);
    e->ahead += n;
}

__attribute__((always_inline)) static inline void parse_fast(struct fz7_lzma_enc *e, int direct)
{
    uint32_t count;
    if (e->have_matches) {
        count = e->match_count;
        e->have_matches = 0;
    } else {
        count = next_matches(e, direct);
    }
    const uint8_t *cur = e->mf.buf + e->mf.pos - 1;
    uint32_t avail = e->mf.end - (e->mf.pos - 1);
    if (avail > FZ7_LZMA_MATCH_LEN_MAX)
        avail = FZ7_LZMA_MATCH_LEN_MAX;
    if (avail < 2) {
        fz7_lzma_enc_push(e, 1, 0);
        return;
    }
    uint32_t nice = e->opts.nice_len;
    uint32_t rep = 0;
    uint32_t rep_len = best_rep(e, cur, e->pos, avail, &rep);
    if (rep_len >= nice) {
        fz7_lzma_enc_push(e, rep_len, e->reps[rep] + 1);
        skip(e, rep_len - 1, direct);
        return;
    }
    uint32_t main_len = 0, main_dist = 0;
    if (count > 0) {
        main_len = e->matches[count - 1].len;
        main_dist = e->matches[count - 1].dist;
        if (main_len >= nice) {
            if (main_len < avail)
                main_len += fz7_lzma_match_len(e, cur + main_len, cur + main_len - main_dist, avail - main_len);
            fz7_lzma_enc_push(e, main_len, main_dist);
            skip(e, main_len - 1, direct);
            return;
        }
        while (count > 1 && main_len == e->matches[count - 2].len + 1
               && farther_by(e->matches[count - 2].dist - 1, main_dist - 1, LONGER_FARTHER_SHIFT)) {
            count--;
            main_len = e->matches[count - 1].len;
            main_dist = e->matches[count - 1].dist;
        }
        if (main_len == 2 && main_dist - 1 >= SHORT_MATCH2_DIST)
            main_len = 1;
    }
    if (rep_len >= 2
        && (rep_len + 1 >= main_len || (rep_len + 2 >= main_len && main_dist - 1 >= (1u << 9))
            || (rep_len + 3 >= main_len && main_dist - 1 >= (1u << 15)))) {
        fz7_lzma_enc_push(e, rep_len, e->reps[rep] + 1);
        skip(e, rep_len - 1, direct);
        return;
    }
    if (main_len < 2 || avail <= 2) {
        fz7_lzma_enc_push(e, 1, 0);
        return;
    }

    /* One step of lazy evaluation: search the next position now (its
     * matches are kept for the next call if we code a literal). */
    uint32_t next_count = next_matches(e, direct);
    e->have_matches = 1;
    if (next_count > 0) {
        uint32_t next_len = e->matches[next_count - 1].len;
        uint32_t next_dist0 = e->matches[next_count - 1].dist - 1;
        uint32_t main_dist0 = main_dist - 1;
        if ((next_len >= main_len && next_dist0 < main_dist0)
            || (next_len == main_len + 1 && !farther_by(main_dist0, next_dist0, LONGER_FARTHER_SHIFT))
            || next_len > main_len + 1
            || (next_len + 1 >= main_len && main_len >= 3 && farther_by(next_dist0, main_dist0, LAZY_NEARER_SHIFT))) {
            fz7_lzma_enc_push(e, 1, 0);
            return;
        }
    }
    const uint8_t *next = cur + 1;
    uint32_t limit = main_len - 1 < 2 ? 2 : main_len - 1;
    for (uint32_t i = 0; i < 4; i++) {
        uint64_t d = (uint64_t)e->reps[i] + 1;
        if (d > e->pos + 1 || !same2(next, next - d))
            continue;
        if (2 + fz7_lzma_match_len(e, next + 2, next + 2 - d, limit - 2) >= limit) {
            fz7_lzma_enc_push(e, 1, 0);
            return;
        }
    }
    e->have_matches = 0;
    fz7_lzma_enc_push(e, main_len, main_dist);
    skip(e, main_len - 2, direct);
}

void fz7_lzma_parse_fast(struct fz7_lzma_enc *e)
{
    if (!e->mf_mt && e->mf.kind == FZ7_LZ_HB5)
        parse_fast(e, 1);
    else
        parse_fast(e, 0);
}
