/* lzma_enc_normal.c - the normal parser (7-Zip a=1, -mx5..9): optimal
 * parsing by price over the positions ahead.
 *
 * Node i of opt[] is the cheapest known way to code the next i bytes. From
 * each node it tries a literal, a short rep, rep0-rep3 of every length, a
 * literal followed by rep0, and every match length the match finder saw,
 * until the look-ahead is exhausted or a match reaches nice_len; then the
 * cheapest path is queued as decisions. */
#include "lzma/lzma_enc_impl.h"

#define BACK_LITERAL UINT32_MAX

static inline void set_opt(fz7_lzma_opt *o, uint32_t price, uint32_t prev, uint32_t back, uint32_t lit_first)
{
    o->price = price;
    o->pos_prev = prev;
    o->back = back;
    o->lit_first = lit_first;
    o->has_prev2 = 0;
}

/* State and reps after a match or rep of 2+ bytes coded as back. */
static inline uint32_t apply_back(uint32_t st, uint32_t r[4], uint32_t back)
{
    if (back < 4) {
        uint32_t d = r[back];
        for (uint32_t i = back; i > 0; i--)
            r[i] = r[i - 1];
        r[0] = d;
        return fz7_lzma_state_after_rep(st);
    }
    r[3] = r[2];
    r[2] = r[1];
    r[1] = r[0];
    r[0] = back - 4;
    return fz7_lzma_state_after_match(st);
}

/* Derives state and reps of node cur from the node it is reached from. */
static void node_state(fz7_lzma_opt *opt, uint32_t cur)
{
    fz7_lzma_opt *o = &opt[cur];
    const fz7_lzma_opt *p = &opt[o->has_prev2 ? o->pos_prev2 : o->pos_prev];
    uint32_t st = p->state;
    uint32_t r[4] = {p->reps[0], p->reps[1], p->reps[2], p->reps[3]};
    if (o->has_prev2)
        st = apply_back(st, r, o->back2);
    if (o->lit_first) {
        st = fz7_lzma_state_after_rep(fz7_lzma_state_after_literal(st));
    } else if (o->back == BACK_LITERAL) {
        st = fz7_lzma_state_after_literal(st);
    } else if (o->back < 4) {
        if (o->back == 0 && cur - o->pos_prev == 1) {
            st = fz7_lzma_state_after_short_rep(st);
        } else {
            uint32_t d = r[o->back];
            for (uint32_t i = o->back; i > 0; i--)
                r[i] = r[i - 1];
            r[0] = d;
            st = fz7_lzma_state_after_rep(st);
        }
    } else {
        r[3] = r[2];
        r[2] = r[1];
        r[1] = r[0];
        r[0] = o->back - 4;
        st = fz7_lzma_state_after_match(st);
    }
    o->state = st;
    o->reps[0] = r[0];
    o->reps[1] = r[1];
    o->reps[2] = r[2];
    o->reps[3] = r[3];
}

/* The decisions that reach node *i, last first, in len[]/back[] (1 to 3 of
 * them: a literal then rep0 may follow an earlier match); *i becomes the
 * node they start from. Returns how many. */
static inline uint32_t node_decisions(const fz7_lzma_opt *opt, uint32_t *i, uint32_t len[3], uint32_t back[3])
{
    const fz7_lzma_opt *o = &opt[*i];
    uint32_t n = 0, l = *i - o->pos_prev;
    if (!o->lit_first) {
        len[0] = l;
        back[0] = o->back;
        *i = o->pos_prev;
        return 1;
    }
    len[n] = l - 1;
    back[n++] = 0;
    len[n] = 1;
    back[n++] = BACK_LITERAL;
    *i = o->pos_prev;
    if (o->has_prev2) {
        len[n] = (uint32_t)(o->pos_prev - o->pos_prev2);
        back[n++] = o->back2;
        *i = o->pos_prev2;
    }
    return n;
}

/* Queues the path ending at node end as decisions with absolute distances.
 * The path is read from its end, so it is first counted, then written
 * backwards into the queue's free slots (back codes in .dist), then
 * turned into distances front to back: no path array on the stack (it was
 * 49 KiB, and every call below it ran under those pages). */
static void queue_path(struct fz7_lzma_enc *e, uint32_t end)
{
    const uint32_t ring = FZ7_LZMA_OPTS + 8;
    const fz7_lzma_opt *opt = e->opt;
    uint32_t len[3], back[3], n = 0;
    for (uint32_t i = end; i > 0;)
        n += node_decisions(opt, &i, len, back);
    uint32_t first = e->queue_head + e->queue_len;
    if (first >= ring)
        first -= ring;
    uint32_t k = n;
    for (uint32_t i = end; i > 0;) {
        uint32_t m = node_decisions(opt, &i, len, back);
        for (uint32_t j = 0; j < m; j++) {
            uint32_t slot = first + --k;
            if (slot >= ring)
                slot -= ring;
            e->queue[slot].len = len[j];
            e->queue[slot].dist = back[j];
        }
    }
    uint32_t r[4] = {e->reps[0], e->reps[1], e->reps[2], e->reps[3]};
    for (uint32_t j = 0, slot = first; j < n; j++, slot = slot + 1 == ring ? 0 : slot + 1) {
        fz7_lzma_decision *d = &e->queue[slot];
        uint32_t b = d->dist;
        if (b == BACK_LITERAL) {
            d->dist = 0;
        } else if (b < 4) {
            uint32_t dist0 = r[b];
            if (d->len > 1) {
                for (uint32_t i = b; i > 0; i--)
                    r[i] = r[i - 1];
                r[0] = dist0;
            }
            d->dist = dist0 + 1;
        } else {
            r[3] = r[2];
            r[2] = r[1];
            r[1] = r[0];
            r[0] = b - 4;
            d->dist = b - 4 + 1;
        }
    }
    e->queue_len += n;
}

/* The two bytes at a equal those at b (one 16-bit compare). */
static inline int same2(const uint8_t *a, const uint8_t *b)
{
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    return x == y;
}

/* After a match or rep of len bytes at distance d from node c (price
 * price_x, state st_x afterwards), tries a literal and then rep0 at the
 * same distance: a 3-symbol step to a node further ahead. The caller has
 * checked try_x_worth (most calls end there, so that test is inlined). */
static void try_x_lit_rep0(struct fz7_lzma_enc *e, uint32_t *len_end, uint32_t c, const uint8_t *p, uint64_t pos,
                           uint32_t len, uint64_t d, uint32_t back, uint32_t price_x, uint32_t st_x,
                           uint32_t avail_full)
{
    uint32_t lim = avail_full - len - 1;
    if (lim > e->opts.nice_len)
        lim = e->opts.nice_len;
    const uint8_t *q = p + len + 1;
    uint32_t len2 = 2 + fz7_lzma_match_len(e, q + 2, q + 2 - d, lim - 2);
    uint64_t pos_a = pos + len;
    uint32_t ps_a = (uint32_t)pos_a & e->pos_mask;
    uint32_t st_b = fz7_lzma_state_after_literal(st_x);
    uint32_t ps_b = (uint32_t)(pos_a + 1) & e->pos_mask;
    uint32_t price = price_x + fz7_price_bit(e, e->probs->is_match[st_x][ps_a], 0)
                   + fz7_lzma_rep_price(e, 0, st_b, ps_b) + e->rep_len_prices[ps_b][len2 - 2];
    uint32_t off = c + len + 1 + len2;
    fz7_lzma_opt *opt = e->opt;
    while (*len_end < off)
        opt[++*len_end].price = FZ7_PRICE_INFINITY;
    /* The literal's price only adds: without it the step must already
     * beat the node, else it cannot (the literal walk is the dear part). */
    if (price >= opt[off].price)
        return;
    price += fz7_lzma_literal_price(e, pos_a, st_x, p[len - 1], p[len], p[(ptrdiff_t)len - (ptrdiff_t)d]);
    if (price < opt[off].price) {
        set_opt(&opt[off], price, c + len, 0, 1);
        opt[off].has_prev2 = 1;
        opt[off].pos_prev2 = c;
        opt[off].back2 = back;
    }
}

/* try_x_lit_rep0 can add a node: room for literal + 2-byte rep0, the
 * byte after the match differs (else the match would be longer), and the
 * two after it repeat at distance d. */
static inline int try_x_worth(const uint8_t *p, uint32_t len, uint64_t d, uint32_t avail_full)
{
    if (len + 3 > avail_full || p[len] == p[(ptrdiff_t)len - (ptrdiff_t)d])
        return 0;
    return same2(p + len + 1, p + len + 1 - d);
}

static inline void grow_end(fz7_lzma_opt *opt, uint32_t *len_end, uint32_t to)
{
    while (*len_end < to)
        opt[++*len_end].price = FZ7_PRICE_INFINITY;
}

void fz7_lzma_parse_normal(struct fz7_lzma_enc *e)
{
    fz7_lzma_opt *opt = e->opt;
    const fz7_lz_match *m = e->matches;
    uint32_t count;
    if (e->have_matches) {
        count = e->match_count;
        e->have_matches = 0;
    } else {
        count = fz7_lzma_enc_next_matches(e);
    }
    const uint32_t idx0 = e->mf.pos - 1;
    const uint8_t *cur = e->mf.buf + idx0;
    const uint32_t nice = e->opts.nice_len;
    uint32_t avail = e->mf.end - idx0;
    if (avail > FZ7_LZMA_MATCH_LEN_MAX)
        avail = FZ7_LZMA_MATCH_LEN_MAX;
    if (avail < 2) {
        fz7_lzma_enc_push(e, 1, 0);
        return;
    }

    uint32_t rep_lens[4], rep_max = 0;
    for (uint32_t i = 0; i < 4; i++) {
        uint64_t d = (uint64_t)e->reps[i] + 1;
        rep_lens[i] = 0;
        if (d > e->pos || cur[0] != cur[-(ptrdiff_t)d] || cur[1] != cur[1 - (ptrdiff_t)d])
            continue;
        rep_lens[i] = 2 + fz7_lzma_match_len(e, cur + 2, cur + 2 - d, avail - 2);
        if (rep_lens[i] > rep_lens[rep_max])
            rep_max = i;
    }
    if (rep_lens[rep_max] >= nice) {
        fz7_lzma_enc_push(e, rep_lens[rep_max], e->reps[rep_max] + 1);
        fz7_lzma_enc_skip(e, rep_lens[rep_max] - 1);
        return;
    }
    uint32_t main_len = count ? m[count - 1].len : 0;
    if (main_len >= nice) {
        uint32_t dist = m[count - 1].dist;
        if (main_len < avail)
            main_len += fz7_lzma_match_len(e, cur + main_len, cur + main_len - dist, avail - main_len);
        fz7_lzma_enc_push(e, main_len, dist);
        fz7_lzma_enc_skip(e, main_len - 1);
        return;
    }
    const fz7_lzma_probs *pr = e->probs;
    uint32_t state = e->state;
    uint32_t ps = (uint32_t)e->pos & e->pos_mask;
    int rep0_ok = (uint64_t)e->reps[0] + 1 <= e->pos;
    uint8_t cur_byte = cur[0];
    uint8_t match_byte = rep0_ok ? cur[-(ptrdiff_t)e->reps[0] - 1] : (uint8_t)~cur_byte;
    if (main_len < 2 && cur_byte != match_byte && rep_lens[rep_max] < 2) {
        fz7_lzma_enc_push(e, 1, 0);
        return;
    }

    opt[0].state = state;
    for (uint32_t i = 0; i < 4; i++)
        opt[0].reps[i] = e->reps[i];
    opt[0].price = 0;
    uint8_t prev_byte = e->pos ? cur[-1] : 0;
    set_opt(&opt[1], fz7_price_bit(e, pr->is_match[state][ps], 0)
                     + fz7_lzma_literal_price(e, e->pos, state, prev_byte, cur_byte, match_byte),
            0, BACK_LITERAL, 0);
    if (match_byte == cur_byte) {
        uint32_t p = fz7_lzma_short_rep_price(e, state, ps);
        if (p < opt[1].price)
            set_opt(&opt[1], p, 0, 0, 0);
    }
    uint32_t len_end = main_len > rep_lens[rep_max] ? main_len : rep_lens[rep_max];
    if (len_end < 2) {
        if (opt[1].back == 0)
            fz7_lzma_enc_push(e, 1, e->reps[0] + 1);
        else
            fz7_lzma_enc_push(e, 1, 0);
        return;
    }
    for (uint32_t i = 2; i <= len_end; i++)
        opt[i].price = FZ7_PRICE_INFINITY;
    for (uint32_t r = 0; r < 4; r++) {
        if (rep_lens[r] < 2)
            continue;
        uint32_t base = fz7_lzma_rep_price(e, r, state, ps);
        for (uint32_t l = rep_lens[r]; l >= 2; l--) {
            uint32_t p = base + e->rep_len_prices[ps][l - 2];
            if (p < opt[l].price)
                set_opt(&opt[l], p, 0, r, 0);
        }
    }
    if (main_len >= 2) {
        uint32_t base = fz7_price_bit(e, pr->is_match[state][ps], 1) + fz7_price_bit(e, pr->is_rep[state], 0);
        uint32_t l = rep_lens[0] >= 2 ? rep_lens[0] + 1 : 2;
        uint32_t j = 0;
        while (j < count && m[j].len < l)
            j++;
        for (; l <= main_len; l++) {
            uint32_t dist0 = m[j].dist - 1;
            uint32_t p = base + e->match_len_prices[ps][l - 2] + fz7_lzma_match_dist_price(e, dist0, l);
            if (p < opt[l].price)
                set_opt(&opt[l], p, 0, dist0 + 4, 0);
            if (l == m[j].len)
                j++;
        }
    }

    uint32_t c = 0;
    for (;;) {
        c++;
        if (c == len_end)
            break;
        uint32_t n = fz7_lzma_enc_next_matches(e);
        uint32_t new_len = n ? m[n - 1].len : 0;
        if (new_len >= nice) {
            e->have_matches = 1;
            break;
        }
        node_state(opt, c);
        const fz7_lzma_opt *o = &opt[c];
        const uint32_t st = o->state;
        const uint32_t cur_price = o->price;
        const uint8_t *p = cur + c;
        const uint64_t pos = e->pos + c;
        const uint32_t cps = (uint32_t)pos & e->pos_mask;
        const uint64_t d0 = (uint64_t)o->reps[0] + 1;
        const int r0_ok = d0 <= pos;
        const uint8_t cb = p[0];
        const uint8_t mb = r0_ok ? p[-(ptrdiff_t)d0] : (uint8_t)~cb;

        /* The literal's walk only when it can matter: when the literal
         * might beat node c + 1 (its price only adds to lit_price), or
         * below for a literal then rep0. */
        uint32_t lit_price = cur_price + fz7_price_bit(e, pr->is_match[st][cps], 0);
        int lit_priced = 0;
        int next_is_lit = 0;
        if (lit_price < opt[c + 1].price) {
            lit_price += fz7_lzma_literal_price(e, pos, st, p[-1], cb, mb);
            lit_priced = 1;
            if (lit_price < opt[c + 1].price) {
                set_opt(&opt[c + 1], lit_price, c, BACK_LITERAL, 0);
                next_is_lit = 1;
            }
        }
        uint32_t match_price = cur_price + fz7_price_bit(e, pr->is_match[st][cps], 1);
        if (mb == cb && !(opt[c + 1].pos_prev == c && opt[c + 1].back == 0 && !opt[c + 1].lit_first)) {
            uint32_t sp = cur_price + fz7_lzma_short_rep_price(e, st, cps);
            if (sp <= opt[c + 1].price) {
                set_opt(&opt[c + 1], sp, c, 0, 0);
                next_is_lit = 0;
            }
        }
        uint32_t avail_full = e->mf.end - (idx0 + c);
        if (avail_full > FZ7_LZMA_MATCH_LEN_MAX)
            avail_full = FZ7_LZMA_MATCH_LEN_MAX;
        if (avail_full > FZ7_LZMA_OPTS - 1 - c)
            avail_full = FZ7_LZMA_OPTS - 1 - c;
        if (avail_full < 2)
            continue;
        uint32_t av = avail_full < nice ? avail_full : nice;

        /* A literal, then rep0 from the next byte. */
        if (!next_is_lit && mb != cb && r0_ok) {
            uint32_t t = avail_full - 1 < nice ? avail_full - 1 : nice;
            uint32_t len = fz7_lzma_match_len(e, p + 1, p + 1 - d0, t);
            if (len >= 2) {
                uint32_t st2 = fz7_lzma_state_after_literal(st);
                uint32_t ps2 = (uint32_t)(pos + 1) & e->pos_mask;
                uint32_t price = lit_price + fz7_lzma_rep_price(e, 0, st2, ps2) + e->rep_len_prices[ps2][len - 2];
                uint32_t off = c + 1 + len;
                grow_end(opt, &len_end, off);
                if (!lit_priced && price < opt[off].price)
                    price += fz7_lzma_literal_price(e, pos, st, p[-1], cb, mb);
                if (price < opt[off].price)
                    set_opt(&opt[off], price, c, 0, 1);
            }
        }

        uint32_t start_len = 2;
        for (uint32_t r = 0; r < 4; r++) {
            uint64_t d = (uint64_t)o->reps[r] + 1;
            if (d > pos || !same2(p, p - d))
                continue;
            uint32_t len = 2 + fz7_lzma_match_len(e, p + 2, p + 2 - d, av - 2);
            grow_end(opt, &len_end, c + len);
            uint32_t base = cur_price + fz7_lzma_rep_price(e, r, st, cps);
            for (uint32_t l = len; l >= 2; l--) {
                uint32_t price = base + e->rep_len_prices[cps][l - 2];
                if (price < opt[c + l].price)
                    set_opt(&opt[c + l], price, c, r, 0);
            }
            if (r == 0)
                start_len = len + 1;
            if (try_x_worth(p, len, d, avail_full))
                try_x_lit_rep0(e, &len_end, c, p, pos, len, d, r, base + e->rep_len_prices[cps][len - 2],
                           fz7_lzma_state_after_rep(st), avail_full);
        }

        if (new_len > av)
            new_len = av;
        if (new_len >= start_len) {
            uint32_t base = match_price + fz7_price_bit(e, pr->is_rep[st], 0);
            grow_end(opt, &len_end, c + new_len);
            const uint32_t *len_prices = e->match_len_prices[cps];
            uint32_t j = 0;
            while (m[j].len < start_len)
                j++;
            /* One run of lengths per match (those above the previous
             * match's length); from length 5 on the distance price no
             * longer depends on the length, so it is looked up once. */
            for (uint32_t l = start_len; l <= new_len; j++) {
                uint32_t dist0 = m[j].dist - 1;
                uint32_t run_end = m[j].len < new_len ? m[j].len : new_len;
                uint32_t price = 0;
                for (; l <= run_end && l < FZ7_LZMA_DIST_STATES + 2; l++) {
                    price = base + len_prices[l - 2] + fz7_lzma_match_dist_price(e, dist0, l);
                    if (price < opt[c + l].price)
                        set_opt(&opt[c + l], price, c, dist0 + 4, 0);
                }
                if (l <= run_end) {
                    uint32_t run_base = base + fz7_lzma_match_dist_price(e, dist0, l);
                    for (; l <= run_end; l++) {
                        price = run_base + len_prices[l - 2];
                        if (price < opt[c + l].price)
                            set_opt(&opt[c + l], price, c, dist0 + 4, 0);
                    }
                }
                if (run_end == m[j].len && try_x_worth(p, run_end, (uint64_t)dist0 + 1, avail_full))
                    try_x_lit_rep0(e, &len_end, c, p, pos, run_end, (uint64_t)dist0 + 1, dist0 + 4, price,
                                   fz7_lzma_state_after_match(st), avail_full);
            }
        }
    }
    queue_path(e, c);
}
