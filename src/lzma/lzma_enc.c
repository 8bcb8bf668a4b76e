/* lzma_enc.c - LZMA symbol coding, prices, and the LZMA1/LZMA2 streams.
 *
 * Implements lzma_enc.h. The parsers (lzma_enc_fast.c, lzma_enc_normal.c)
 * queue decisions; this file codes them with the range encoder, keeps the
 * price tables the normal parser reads, and ends the output: one range
 * coded stream for LZMA1; LZMA2's chunks are framed in lzma2_enc.c. */
#include "lzma/lzma_enc_impl.h"
#include "lzma/lzma_presets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define OUT_BUF_SIZE (FZ7_LZMA2_CHUNK_PACKED_MAX + 4 * FZ7_LZMA_SYMBOL_BYTES_MAX)
/* The look-behind the encoder needs besides the dictionary: the parser's
 * look-ahead (the coder trails the match finder by up to that much) and
 * the bytes of an LZMA2 chunk that may have to be stored uncompressed. */
#define KEEP_EXTRA (FZ7_LZMA_LOOKAHEAD + FZ7_LZMA2_CHUNK_PACKED_MAX + 64)
/* Most input bytes write() copies into the window before encoding them. */
#define APPEND_STEP ((size_t)64 << 10)
/* With a match finder thread the coder stops this much earlier than it
 * must (the output does not change: every parse still sees more than the
 * look-ahead), so input reaches the searcher while the coder catches up
 * and the searcher need not wait for it. Less than the window's block
 * beyond the dictionary (1 MiB at least, lz_mf.c). */
#define MT_SLACK ((uint32_t)256 << 10)

/* ---- Options ------------------------------------------------------------ */

fz7_status fz7_lzma_enc_check(const fz7_lzma_enc_opts *o)
{
    if (!o || o->dict_size < FZ7_LZMA_DICT_MIN || o->dict_size > FZ7_LZMA_DICT_ENC_MAX
        || o->lc > FZ7_LZMA_LC_MAX || o->lp > FZ7_LZMA_LP_MAX || o->pb > FZ7_LZMA_PB_MAX
        || (o->mode != FZ7_LZMA_MODE_FAST && o->mode != FZ7_LZMA_MODE_NORMAL)
        || o->nice_len < FZ7_LZMA_NICE_MIN || o->nice_len > FZ7_LZMA_NICE_MAX
        || (unsigned)o->mf > FZ7_LZ_RDX || (o->mf_thread != 0 && o->mf_thread != 1))
        return FZ7_E_ARG;
    return FZ7_OK;
}

/* Parses an unsigned decimal number with an optional size suffix. */
static int parse_number(const char *s, uint64_t *v, int size_suffix, int *had_suffix)
{
    uint64_t n = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s)) {
        n = n * 10 + (uint64_t)(*s++ - '0');
        if (n > ((uint64_t)1 << 40))
            return -1;
    }
    *had_suffix = 0;
    if (*s && size_suffix) {
        int sh = 0;
        switch (tolower((unsigned char)*s)) {
        case 'b': sh = 0; break;
        case 'k': sh = 10; break;
        case 'm': sh = 20; break;
        case 'g': sh = 30; break;
        default: return -1;
        }
        if (n > UINT64_MAX >> sh)
            return -1;
        n <<= sh;
        s++;
        *had_suffix = 1;
    }
    if (*s)
        return -1;
    *v = n;
    return 0;
}

fz7_status fz7_lzma_enc_parse_param(fz7_lzma_enc_opts *opts, const char *param)
{
    char name[8];
    size_t i = 0;
    if (!opts || !param)
        return FZ7_E_ARG;
    while (param[i] && param[i] != '=' && i < sizeof(name) - 1) {
        name[i] = (char)tolower((unsigned char)param[i]);
        i++;
    }
    if (param[i] != '=')
        return FZ7_E_ARG;
    name[i] = 0;
    const char *val = param + i + 1;
    fz7_lzma_enc_opts o = *opts;
    uint64_t v;
    int suffix;
    if (strcmp(name, "mf") == 0) {
        char m[4] = {0};
        for (int k = 0; k < 3 && val[k]; k++)
            m[k] = (char)tolower((unsigned char)val[k]);
        if (strlen(val) != 3)
            return FZ7_E_ARG;
        if (strcmp(m, "hc4") == 0) o.mf = FZ7_LZ_HC4;
        else if (strcmp(m, "hc5") == 0) o.mf = FZ7_LZ_HC5;
        else if (strcmp(m, "hb5") == 0) o.mf = FZ7_LZ_HB5;
        else if (strcmp(m, "bt2") == 0) o.mf = FZ7_LZ_BT2;
        else if (strcmp(m, "bt3") == 0) o.mf = FZ7_LZ_BT3;
        else if (strcmp(m, "bt4") == 0) o.mf = FZ7_LZ_BT4;
        else if (strcmp(m, "rdx") == 0) o.mf = FZ7_LZ_RDX;
        else return FZ7_E_ARG;
    } else {
        if (parse_number(val, &v, strcmp(name, "d") == 0, &suffix) != 0)
            return FZ7_E_ARG;
        if (strcmp(name, "d") == 0) {
            /* 7-Zip: a bare number is a power of two. */
            if (!suffix && v > 63)
                return FZ7_E_ARG;
            if (!suffix)
                v = (uint64_t)1 << v;
            if (v > (uint64_t)FZ7_LZMA_DICT_ENC_MAX + 1)
                return FZ7_E_ARG;
            if (v > FZ7_LZMA_DICT_ENC_MAX)
                v = FZ7_LZMA_DICT_ENC_MAX;   /* 4 GiB: LZMA2's largest, 4 GiB - 1 */
            if (v < FZ7_LZMA_DICT_MIN)   /* 7zz takes a smaller one as the smallest */
                v = FZ7_LZMA_DICT_MIN;
            o.dict_size = (uint32_t)v;
        } else if (strcmp(name, "fb") == 0) {
            /* 7zz reads fb as a signed 32-bit number: 2^31 and up are
             * negative, which means "by the level" (nice_len is left as
             * it is); the rest is kept within the lengths LZMA codes. */
            if (v > UINT32_MAX)
                return FZ7_E_ARG;
            if (v <= INT32_MAX)
                o.nice_len = v < FZ7_LZMA_NICE_MIN ? FZ7_LZMA_NICE_MIN
                             : v > FZ7_LZMA_NICE_MAX ? FZ7_LZMA_NICE_MAX
                                                     : (uint32_t)v;
        } else if (strcmp(name, "lc") == 0) {
            o.lc = (uint32_t)(v > 99 ? 99 : v);
        } else if (strcmp(name, "lp") == 0) {
            o.lp = (uint32_t)(v > 99 ? 99 : v);
        } else if (strcmp(name, "pb") == 0) {
            o.pb = (uint32_t)(v > 99 ? 99 : v);
        } else if (strcmp(name, "mc") == 0) {
            /* Any 32-bit number, as 7zz: a search stops at the window's
             * end whatever is left of a larger depth. */
            if (v > UINT32_MAX)
                return FZ7_E_ARG;
            o.depth = (uint32_t)v;
        } else if (strcmp(name, "a") == 0) {
            if (v > UINT32_MAX)   /* 7zz: 0 the fast parser, any other the normal one */
                return FZ7_E_ARG;
            o.mode = v ? FZ7_LZMA_MODE_NORMAL : FZ7_LZMA_MODE_FAST;
        } else if (strcmp(name, "eos") == 0) {
            if (v > 1)
                return FZ7_E_ARG;
            o.end_marker = (int)v;
        } else {
            return FZ7_E_ARG;
        }
    }
    if (fz7_lzma_enc_check(&o) != FZ7_OK)
        return FZ7_E_ARG;
    *opts = o;
    return FZ7_OK;
}

/* True when o asks for a match finder thread that will run (the one
 * rule: lzma_presets.c). */
static int mf_thread_used(const fz7_lzma_enc_opts *o)
{
    return o->mf_thread && fz7_lzma_mf_thread_pays(o->mf);
}

uint64_t fz7_lzma_enc_memusage(const fz7_lzma_enc_opts *o)
{
    if (fz7_lzma_enc_check(o) != FZ7_OK)
        return 0;
    uint64_t n = sizeof(struct fz7_lzma_enc);
    n += fz7_lz_mf_memusage((int)o->mf, o->dict_size, KEEP_EXTRA);
    n += fz7_lzma_probs_size(o->lc, o->lp);
    n += OUT_BUF_SIZE;
    n += (uint64_t)(FZ7_LZMA_OPTS + 8) * sizeof(fz7_lzma_decision);
    if (o->mode == FZ7_LZMA_MODE_NORMAL)
        n += (uint64_t)FZ7_LZMA_OPTS * sizeof(fz7_lzma_opt);
    if (mf_thread_used(o))
        n += o->mf == FZ7_LZ_RDX ? fz7_lz_mf_rdx_thread_memusage(o->dict_size) : fz7_lz_mf_mt_memusage();
    return n;
}

/* ---- Prices ------------------------------------------------------------- */

/* 16 * log2(2048 / x) rounded up to 1/16 bit, in integers so that every
 * machine gets the same table (and so the same output). */
static uint32_t price_of_prob(uint32_t x)
{
    uint32_t e = 0;
    while ((x >> (e + 1)) != 0)
        e++;
    uint64_t m = ((uint64_t)x << 16) >> e; /* x / 2^e in [1, 2) as 16.16 */
    uint32_t frac = 0;
    for (int k = 0; k < 4; k++) {
        m = (m * m) >> 16;
        frac <<= 1;
        if (m >= ((uint64_t)1 << 17)) {
            m >>= 1;
            frac |= 1;
        }
    }
    return (FZ7_LZMA_PROB_BITS << FZ7_PRICE_SHIFT) - ((e << FZ7_PRICE_SHIFT) + frac);
}

static void init_price_table(struct fz7_lzma_enc *e)
{
    e->price_table[0] = price_of_prob(8);
    for (uint32_t i = 1; i < (FZ7_LZMA_PROB_ONE >> FZ7_PRICE_SHIFT); i++)
        e->price_table[i] = price_of_prob((i << FZ7_PRICE_SHIFT) + (1u << (FZ7_PRICE_SHIFT - 1)));
    fz7_lzma_bit_prices_init(e);
}

void fz7_lzma_bit_prices_init(struct fz7_lzma_enc *e)
{
    /* p = 0 never occurs (probabilities stay in 31..2017): its bit-1 price,
     * past the table's end, is left at the largest. */
    e->bit_prices[0][0] = (uint8_t)e->price_table[0];
    e->bit_prices[1][0] = (uint8_t)e->price_table[0];
    for (uint32_t p = 1; p < FZ7_LZMA_PROB_ONE; p++) {
        e->bit_prices[0][p] = (uint8_t)e->price_table[p >> FZ7_PRICE_SHIFT];
        e->bit_prices[1][p] = (uint8_t)e->price_table[(FZ7_LZMA_PROB_ONE - p) >> FZ7_PRICE_SHIFT];
    }
}

static uint32_t tree_reverse_price(const struct fz7_lzma_enc *e, const fz7_lzma_prob *probs, unsigned count, uint32_t value)
{
    uint32_t price = 0, m = 1;
    while (count-- > 0) {
        unsigned bit = value & 1;
        value >>= 1;
        price += fz7_price_bit(e, probs[m], bit);
        m = (m << 1) | bit;
    }
    return price;
}

/* Prices of all 2^count leaves of a bit tree, each plus base: every node's
 * price once, parents before children (the same sums as one walk per
 * leaf). leaves: 2^count entries; count at most 8. */
static void tree_leaf_prices(const struct fz7_lzma_enc *e, const fz7_lzma_prob *probs, unsigned count,
                             uint32_t base, uint32_t *leaves)
{
    uint32_t node[1u << 8];
    uint32_t n = 1u << count;
    node[1] = base;
    for (uint32_t m = 1; m < n / 2; m++) {
        node[2 * m] = node[m] + fz7_price_bit(e, probs[m], 0);
        node[2 * m + 1] = node[m] + fz7_price_bit(e, probs[m], 1);
    }
    for (uint32_t m = n / 2; m < n; m++) {
        leaves[2 * m - n] = node[m] + fz7_price_bit(e, probs[m], 0);
        leaves[2 * m + 1 - n] = node[m] + fz7_price_bit(e, probs[m], 1);
    }
}

/* Length prices for every pos state: prices[ps][len - 2]. Only lengths up
 * to nice_len are filled: the normal parser takes a longer match or rep
 * without pricing it, and never reads further (its look-ups stop at
 * nice_len - 2; one more is kept). */
static void fill_len_prices(struct fz7_lzma_enc *e, const fz7_lzma_len_probs *lp, uint32_t prices[][FZ7_LZMA_LEN_SYMBOLS])
{
    uint32_t c0 = fz7_price_bit(e, lp->choice, 0);
    uint32_t c1 = fz7_price_bit(e, lp->choice, 1);
    uint32_t c10 = c1 + fz7_price_bit(e, lp->choice2, 0);
    uint32_t c11 = c1 + fz7_price_bit(e, lp->choice2, 1);
    const uint32_t below_high = FZ7_LZMA_LEN_LOW_SYMBOLS + FZ7_LZMA_LEN_MID_SYMBOLS;
    uint32_t used = e->opts.nice_len < FZ7_LZMA_LEN_SYMBOLS ? e->opts.nice_len : FZ7_LZMA_LEN_SYMBOLS;
    uint32_t high_used = used > below_high ? used - below_high : 0;
    uint32_t high[FZ7_LZMA_LEN_HIGH_SYMBOLS];
    if (high_used > 0)
        tree_leaf_prices(e, lp->high, FZ7_LZMA_LEN_HIGH_BITS, c11, high);
    for (uint32_t ps = 0; ps <= e->pos_mask; ps++) {
        uint32_t *p = prices[ps];
        tree_leaf_prices(e, lp->low[ps], FZ7_LZMA_LEN_LOW_BITS, c0, p);
        tree_leaf_prices(e, lp->mid[ps], FZ7_LZMA_LEN_MID_BITS, c10, p + FZ7_LZMA_LEN_LOW_SYMBOLS);
        memcpy(p + below_high, high, high_used * sizeof(high[0]));
    }
}


static void fill_dist_prices(struct fz7_lzma_enc *e)
{
    const fz7_lzma_probs *p = e->probs;
    /* The footer bits of distances below FULL_DISTANCES do not depend on
     * the length's dist state: price them once. */
    uint32_t special[FZ7_LZMA_FULL_DISTANCES];
    for (uint32_t d = FZ7_LZMA_DIST_MODEL_START; d < FZ7_LZMA_FULL_DISTANCES; d++) {
        uint32_t slot = fz7_lzma_dist_slot(d);
        uint32_t footer = (slot >> 1) - 1;
        uint32_t base = (2 | (slot & 1)) << footer;
        special[d] = tree_reverse_price(e, p->dist_special + base - slot - 1, footer, d - base);
    }
    for (uint32_t ds = 0; ds < FZ7_LZMA_DIST_STATES; ds++) {
        uint32_t *slot_prices = e->slot_prices[ds];
        tree_leaf_prices(e, p->dist_slot[ds], FZ7_LZMA_DIST_SLOT_BITS, 0, slot_prices);
        for (uint32_t slot = FZ7_LZMA_DIST_MODEL_END; slot < FZ7_LZMA_DIST_SLOTS; slot++)
            slot_prices[slot] += ((slot >> 1) - 1 - FZ7_LZMA_ALIGN_BITS) << FZ7_PRICE_SHIFT;
        uint32_t *dist_prices = e->dist_prices[ds];
        for (uint32_t d = 0; d < FZ7_LZMA_DIST_MODEL_START; d++)
            dist_prices[d] = slot_prices[d];
        for (uint32_t d = FZ7_LZMA_DIST_MODEL_START; d < FZ7_LZMA_FULL_DISTANCES; d++)
            dist_prices[d] = slot_prices[fz7_lzma_dist_slot(d)] + special[d];
    }
    e->dist_count = 0;
}

static void fill_align_prices(struct fz7_lzma_enc *e)
{
    for (uint32_t i = 0; i < FZ7_LZMA_ALIGN_SIZE; i++)
        e->align_prices[i] = tree_reverse_price(e, e->probs->dist_align, FZ7_LZMA_ALIGN_BITS, i);
    e->align_count = 0;
}

static void fill_all_len_prices(struct fz7_lzma_enc *e)
{
    fill_len_prices(e, &e->probs->match_len, e->match_len_prices);
    fill_len_prices(e, &e->probs->rep_len, e->rep_len_prices);
    e->len_count = 0;
}

/* Refreshes the tables that enough coded symbols have made stale. */
static void refresh_prices(struct fz7_lzma_enc *e)
{
    if (e->len_count >= 64)
        fill_all_len_prices(e);
    if (e->dist_count >= 128)
        fill_dist_prices(e);
    if (e->align_count >= FZ7_LZMA_ALIGN_SIZE)
        fill_align_prices(e);
}

static void refresh_all_prices(struct fz7_lzma_enc *e)
{
    fill_all_len_prices(e);
    fill_dist_prices(e);
    fill_align_prices(e);
}

/* ---- Symbol coding ------------------------------------------------------ */

void fz7_lzma_enc_reset_model(struct fz7_lzma_enc *e)
{
    fz7_lzma_probs_init(e->probs, e->opts.lc, e->opts.lp);
    e->state = 0;
    memset(e->reps, 0, sizeof(e->reps));
    if (e->opts.mode == FZ7_LZMA_MODE_NORMAL)
        refresh_all_prices(e);
}

/* The coders below keep low and range in a fz7_rc_live (range_enc.h) and
 * store them back once per symbol. */

FZ7_RC_INLINE void code_len(fz7_rc_live *rc, fz7_lzma_len_probs *lp, uint32_t len, uint32_t ps)
{
    uint32_t l = len - FZ7_LZMA_MATCH_LEN_MIN;
    if (l < FZ7_LZMA_LEN_LOW_SYMBOLS) {
        fz7_rcl_bit(rc, &lp->choice, 0);
        fz7_rcl_tree(rc, lp->low[ps], FZ7_LZMA_LEN_LOW_BITS, l);
    } else {
        fz7_rcl_bit(rc, &lp->choice, 1);
        l -= FZ7_LZMA_LEN_LOW_SYMBOLS;
        if (l < FZ7_LZMA_LEN_MID_SYMBOLS) {
            fz7_rcl_bit(rc, &lp->choice2, 0);
            fz7_rcl_tree(rc, lp->mid[ps], FZ7_LZMA_LEN_MID_BITS, l);
        } else {
            fz7_rcl_bit(rc, &lp->choice2, 1);
            fz7_rcl_tree(rc, lp->high, FZ7_LZMA_LEN_HIGH_BITS, l - FZ7_LZMA_LEN_MID_SYMBOLS);
        }
    }
}

/* A literal, plain after a literal state, else matched against the byte at
 * rep0 until the first bit that differs (lzma-file-format.txt). offs is
 * 0x100 while matching and 0 after, so both kinds share one branch-free
 * loop: probs[offs + match bit * offs + sym] is probs[((1 + mb) << 8) + sym]
 * while matching and probs[sym] after. */
static void code_literal(struct fz7_lzma_enc *e, const uint8_t *cur)
{
    fz7_rc_live rc = fz7_rc_open(&e->rc);
    uint32_t state = e->state;
    uint64_t pos = e->pos;
    fz7_lzma_probs *pr = e->probs;
    fz7_rcl_bit(&rc, &pr->is_match[state][(uint32_t)pos & e->pos_mask], 0);
    uint8_t prev = pos > 0 ? cur[-1] : 0;
    fz7_lzma_prob *probs = pr->literal + fz7_lzma_literal_offset(pos, prev, e->opts.lc, e->opts.lp);
    if (fz7_lzma_state_is_literal(state)) {
        /* Plain: the 8-bit tree alone, without the match-byte masks (most
         * literals of the fast levels). */
        fz7_rcl_tree(&rc, probs, 8, cur[0]);
        fz7_rc_close(&rc);
        e->state = fz7_lzma_state_after_literal(state);
        return;
    }
    uint32_t offs = 0x100;
    uint32_t mb = cur[-(ptrdiff_t)e->reps[0] - 1];
    /* c >> 8 is the tree node: 1, then the bits coded so far. */
    uint32_t c = (uint32_t)cur[0] | 0x100;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        mb <<= 1;
        fz7_rcl_bit(&rc, &probs[offs + (mb & offs) + (c >> 8)], (c >> 7) & 1);
        c <<= 1;
        offs &= ~(mb ^ c);  /* bit 8 of c is the bit just coded */
    }
    fz7_rc_close(&rc);
    e->state = fz7_lzma_state_after_literal(state);
}

static void code_match(struct fz7_lzma_enc *e, uint32_t dist0, uint32_t len)
{
    fz7_rc_live rc = fz7_rc_open(&e->rc);
    fz7_lzma_probs *p = e->probs;
    uint32_t ps = (uint32_t)e->pos & e->pos_mask;
    uint32_t state = e->state;
    fz7_rcl_bit(&rc, &p->is_match[state][ps], 1);
    fz7_rcl_bit(&rc, &p->is_rep[state], 0);
    code_len(&rc, &p->match_len, len, ps);
    uint32_t slot = fz7_lzma_dist_slot(dist0);
    fz7_rcl_tree(&rc, p->dist_slot[fz7_lzma_dist_state(len)], FZ7_LZMA_DIST_SLOT_BITS, slot);
    if (slot >= FZ7_LZMA_DIST_MODEL_START) {
        uint32_t footer = (slot >> 1) - 1;
        uint32_t base = (2 | (slot & 1)) << footer;
        uint32_t reduced = dist0 - base;
        if (slot < FZ7_LZMA_DIST_MODEL_END) {
            fz7_rcl_tree_reverse(&rc, p->dist_special + base - slot - 1, footer, reduced);
        } else {
            fz7_rcl_direct(&rc, reduced >> FZ7_LZMA_ALIGN_BITS, footer - FZ7_LZMA_ALIGN_BITS);
            fz7_rcl_tree_reverse(&rc, p->dist_align, FZ7_LZMA_ALIGN_BITS, reduced & (FZ7_LZMA_ALIGN_SIZE - 1));
            e->align_count++;
        }
    }
    fz7_rc_close(&rc);
    e->reps[3] = e->reps[2];
    e->reps[2] = e->reps[1];
    e->reps[1] = e->reps[0];
    e->reps[0] = dist0;
    e->state = fz7_lzma_state_after_match(state);
    e->len_count++;
    e->dist_count++;
}

static void code_rep(struct fz7_lzma_enc *e, uint32_t rep, uint32_t len)
{
    fz7_rc_live rc = fz7_rc_open(&e->rc);
    fz7_lzma_probs *p = e->probs;
    uint32_t ps = (uint32_t)e->pos & e->pos_mask;
    uint32_t s = e->state;
    fz7_rcl_bit(&rc, &p->is_match[s][ps], 1);
    fz7_rcl_bit(&rc, &p->is_rep[s], 1);
    if (rep == 0) {
        fz7_rcl_bit(&rc, &p->is_rep0[s], 0);
        fz7_rcl_bit(&rc, &p->is_rep0_long[s][ps], len != 1);
    } else {
        uint32_t dist0 = e->reps[rep];
        fz7_rcl_bit(&rc, &p->is_rep0[s], 1);
        if (rep == 1) {
            fz7_rcl_bit(&rc, &p->is_rep1[s], 0);
        } else {
            fz7_rcl_bit(&rc, &p->is_rep1[s], 1);
            fz7_rcl_bit(&rc, &p->is_rep2[s], rep - 2);
            if (rep == 3)
                e->reps[3] = e->reps[2];
            e->reps[2] = e->reps[1];
        }
        e->reps[1] = e->reps[0];
        e->reps[0] = dist0;
    }
    if (len == 1) {
        e->state = fz7_lzma_state_after_short_rep(s);
    } else {
        code_len(&rc, &p->rep_len, len, ps);
        e->len_count++;
        e->state = fz7_lzma_state_after_rep(s);
    }
    fz7_rc_close(&rc);
}

/* Codes one decision as the cheapest symbol valid in the current state
 * (inline: its caller runs once per decision). */
FZ7_RC_INLINE void code_decision(struct fz7_lzma_enc *e, fz7_lzma_decision d)
{
    const uint8_t *cur = e->mf.buf + (e->mf.pos - e->ahead);
    if (d.dist == 0) {
        code_literal(e, cur);
    } else {
        uint32_t dist0 = d.dist - 1;
        if (d.len == 1) {
            if (dist0 == e->reps[0])
                code_rep(e, 0, 1);
            else
                code_literal(e, cur);
        } else {
            uint32_t r = 0;
            while (r < 4 && e->reps[r] != dist0)
                r++;
            if (r < 4)
                code_rep(e, r, d.len);
            else
                code_match(e, dist0, d.len);
        }
    }
    e->pos += d.len;
    e->ahead -= d.len;
}

/* ---- Helpers for the parsers ------------------------------------------- */

size_t fz7_lzma_enc_mf_append(struct fz7_lzma_enc *e, const uint8_t *data, size_t n)
{
    return e->mf_mt ? fz7_lz_mf_mt_append(e->mf_mt, data, n) : fz7_lz_mf_append(&e->mf, data, n);
}

/* ---- Output ------------------------------------------------------------- */

/* Passes n bytes on: the bytes at p to dst, or with ref a reference to
 * them (input position pos) to ref_dst. */
static void pass_on(struct fz7_lzma_enc *e, const uint8_t *p, uint64_t pos, size_t n, bool ref)
{
    if (e->error || n == 0)
        return;
    fz7_status st = ref ? e->ref_dst->ref(e->ref_dst, pos, n) : e->dst->write(e->dst, p, n);
    if (st != FZ7_OK)
        e->error = st;
    e->bytes_out += n;
}

void fz7_lzma_enc_emit(struct fz7_lzma_enc *e, const uint8_t *p, size_t n)
{
    pass_on(e, p, 0, n, false);
}

void fz7_lzma_enc_emit_input(struct fz7_lzma_enc *e, const uint8_t *p, uint64_t pos, size_t n)
{
    pass_on(e, p, pos, n, e->ref_dst != NULL);
}

/* LZMA1: passes the range coder's settled bytes on when the buffer could
 * not take another symbol. A carry can still reach the last byte that is
 * not 0xFF and the 0xFF bytes after it: those stay, moved to the front
 * (the buffer grows if such a run fills it). */
static void drain_lzma1(struct fz7_lzma_enc *e)
{
    size_t n = e->rc.out_pos;
    if (n + FZ7_LZMA_SYMBOL_BYTES_MAX <= e->out_cap)
        return;
    size_t keep = n - 1;
    while (keep > 0 && e->out[keep] == 0xFF)
        keep--;
    fz7_lzma_enc_emit(e, e->out, keep);
    memmove(e->out, e->out + keep, n - keep);
    e->rc.out_pos = n - keep;
    if (e->rc.out_pos + FZ7_LZMA_SYMBOL_BYTES_MAX > e->out_cap) {
        size_t cap = e->rc.out_pos * 2 + FZ7_LZMA_SYMBOL_BYTES_MAX;
        uint8_t *p = realloc(e->out, cap);
        if (!p) {
            e->error = FZ7_E_MEM;
            return;
        }
        e->out = e->rc.out = p;
        e->out_cap = cap;
    }
}

static void code_next(struct fz7_lzma_enc *e)
{
    fz7_lzma_decision d = e->queue[e->queue_head];
    if (++e->queue_head == FZ7_LZMA_OPTS + 8)
        e->queue_head = 0;
    e->queue_len--;
    if (e->frame) {
        if (e->pos - e->chunk_start + d.len > FZ7_LZMA2_CHUNK_UNPACKED_MAX
            || fz7_rc_pending(&e->rc) + FZ7_LZMA_SYMBOL_BYTES_MAX > FZ7_LZMA2_CHUNK_PACKED_MAX)
            e->frame->close_chunk(e);
        code_decision(e, d);
    } else {
        code_decision(e, d);
        drain_lzma1(e);
    }
}

/* Parses and codes while enough input is buffered (all of it when
 * finishing). */
static void run(struct fz7_lzma_enc *e, int finishing)
{
    /* The coder tests pieces itself on one thread; the finder's thread
     * tests them where it stands (fz7_lzma2_store_test), so its streams
     * store other pieces than a one-thread stream. An encoder whose
     * thread did not start does not store: its output is that of the
     * thread without the test. rdx's thread only builds tables: its coder
     * tests as on one thread. */
    const int store = e->frame && (!e->opts.mf_thread || e->opts.mf == FZ7_LZ_RDX);
    const int store_mt = e->frame && e->mf_mt;
    /* With store pieces: a whole piece past the coder before a test, so
     * that the test sees the same bytes however the input arrives. */
    const uint32_t want = FZ7_LZMA_LOOKAHEAD + (e->mf_mt ? MT_SLACK : 0)
                          + (store || store_mt ? FZ7_LZMA2_STORE_PIECE : 0);
    if (finishing)
        fz7_lz_mf_input_end(&e->mf);
    while (!e->error) {
        if (e->queue_len == 0) {
            uint32_t coder_idx = e->mf.pos - e->ahead;
            if (coder_idx == e->mf.end)
                break;
            if (!finishing && (fz7_lz_mf_avail(&e->mf) < want
                               || fz7_lz_mf_avail(&e->mf) < fz7_lz_mf_wanted(&e->mf, FZ7_LZMA_LOOKAHEAD)))
                break;
            if (store && e->pos >= e->store_next && e->frame->store_piece(e))
                continue;
            if (store_mt && e->frame->store_mt_pass(e))
                continue;
            if (e->opts.mode == FZ7_LZMA_MODE_NORMAL) {
                refresh_prices(e);
                fz7_lzma_parse_normal(e);
            } else {
                fz7_lzma_parse_fast(e);
            }
        }
        code_next(e);
    }
}

/* ---- Public stream API -------------------------------------------------- */

/* The state every new stream starts from (enc_new, fz7_lzma_enc_reset):
 * prices, the model, an empty range coder, and a first chunk that resets
 * the dictionary, the properties and the state. */
static void start_stream(struct fz7_lzma_enc *e)
{
    init_price_table(e);
    fz7_lzma_enc_reset_model(e);
    e->rc.out = e->out;
    fz7_rc_reset(&e->rc);
    e->need_dict_reset = e->need_props = e->need_state_reset = 1;
}

fz7_status fz7_lzma_enc_new_framed(const fz7_lzma_enc_opts *opts, fz7_ostream *dst,
                                   const fz7_lzma_frame *frame, fz7_lzma_enc **out)
{
    if (!out)
        return FZ7_E_ARG;
    *out = NULL;
    if (!dst || fz7_lzma_enc_check(opts) != FZ7_OK)
        return FZ7_E_ARG;
    struct fz7_lzma_enc *e = calloc(1, sizeof(*e));
    if (!e)
        return FZ7_E_MEM;
    e->opts = *opts;
    e->frame = frame;
    e->dst = dst;
    e->pos_mask = (1u << opts->pb) - 1;
    e->out_cap = OUT_BUF_SIZE;
    e->out = malloc(e->out_cap);
    e->probs = malloc(fz7_lzma_probs_size(opts->lc, opts->lp));
    e->queue = malloc((FZ7_LZMA_OPTS + 8) * sizeof(fz7_lzma_decision));
    if (opts->mode == FZ7_LZMA_MODE_NORMAL)
        e->opt = malloc(FZ7_LZMA_OPTS * sizeof(fz7_lzma_opt));
    if (!e->out || !e->probs || !e->queue || (opts->mode == FZ7_LZMA_MODE_NORMAL && !e->opt)
        || fz7_lz_mf_init(&e->mf, (int)opts->mf, opts->dict_size, KEEP_EXTRA, opts->nice_len,
                          fz7_lzma_mf_depth(opts), fz7_lzma_hb5_ways(fz7_lzma_mf_depth(opts)),
                          opts->size_hint) != 0) {
        fz7_lzma_enc_free(e);
        return FZ7_E_MEM;
    }
    /* No thread (allocation or pthread_create failed): the same bytes on
     * one thread. */
    if (mf_thread_used(opts) && opts->mf == FZ7_LZ_RDX)
        (void)fz7_lz_mf_rdx_thread(&e->mf);   /* else each table is built here: the same tables */
    else if (mf_thread_used(opts)
        && fz7_lz_mf_mt_start(&e->mf, frame ? frame->piece_test : NULL, FZ7_LZMA2_STORE_PIECE,
                              FZ7_LZMA2_STORE_RETEST_MT, &e->mf_mt) != 0)
        e->mf_mt = NULL;
    start_stream(e);
    *out = e;
    return FZ7_OK;
}

fz7_status fz7_lzma_enc_new(const fz7_lzma_enc_opts *opts, fz7_ostream *dst, fz7_lzma_enc **out)
{
    return fz7_lzma_enc_new_framed(opts, dst, NULL, out);
}

fz7_status fz7_lzma_enc_write(fz7_lzma_enc *e, const uint8_t *data, size_t n)
{
    if (!e || (n && !data))
        return FZ7_E_ARG;
    if (e->finished)
        return e->error ? e->error : FZ7_E_ARG;
    if (e->driver) {
        if (!e->error)
            e->error = e->driver->write(e, data, n);
        return e->error;
    }
    /* A borrowed window takes only the bytes that follow in its buffer. */
    if (e->mf.own_buf && n && (data != e->mf.buf + e->mf.end || n > e->mf.buf_size - e->mf.end))
        return e->error = FZ7_E_ARG;
    while (n > 0 && !e->error) {
        /* In steps of APPEND_STEP: the window then holds little more than
         * the dictionary and the look-ahead (lz_mf.c gives the rest back),
         * whatever size of pieces the caller writes. */
        size_t got = fz7_lzma_enc_mf_append(e, data, n < APPEND_STEP ? n : APPEND_STEP);
        data += got;
        n -= got;
        e->bytes_in += got;
        run(e, 0);
    }
    return e->error;
}

fz7_status fz7_lzma_enc_finish(fz7_lzma_enc *e)
{
    if (!e)
        return FZ7_E_ARG;
    if (e->finished)
        return e->error ? e->error : FZ7_E_ARG;
    e->finished = 1;
    if (e->driver) {
        if (!e->error)
            e->error = e->driver->finish(e);
        return e->error;
    }
    if (e->mf_mt)
        fz7_lz_mf_mt_finish(e->mf_mt);
    run(e, 1);
    if (e->error)
        return e->error;
    if (e->frame) {
        e->frame->end_stream(e);
    } else {
        if (e->opts.end_marker)
            code_match(e, FZ7_LZMA_END_MARKER_DIST, FZ7_LZMA_MATCH_LEN_MIN);
        fz7_rc_flush(&e->rc);
        fz7_lzma_enc_emit(e, e->out, e->rc.out_pos);
        e->rc.out_pos = 0;
    }
    return e->error;
}

void fz7_lzma_enc_free(fz7_lzma_enc *e)
{
    if (!e)
        return;
    if (e->driver)
        e->driver->free(e);
    fz7_lz_mf_mt_stop(e->mf_mt);
    fz7_lz_mf_free(&e->mf);
    free(e->out);
    free(e->probs);
    free(e->queue);
    free(e->opt);
    free(e);
}

void fz7_lzma_enc_props(const fz7_lzma_enc *e, uint8_t props[5])
{
    props[0] = fz7_lzma_props_encode(e->opts.lc, e->opts.lp, e->opts.pb);
    fz7_put32le(props + 1, e->opts.dict_size);
}

uint64_t fz7_lzma_enc_bytes_in(const fz7_lzma_enc *e) { return e->bytes_in; }
uint64_t fz7_lzma_enc_bytes_out(const fz7_lzma_enc *e) { return e->bytes_out; }

/* ---- Reuse -------------------------------------------------------------- */

/* The state is zeroed as calloc gave it to enc_new and set up as enc_new
 * does; the buffers, the probabilities' memory and the match finder (its
 * tables kept, emptied by fz7_lz_mf_reset) stay. So a field added to the
 * struct starts at 0 here as it does there. */
fz7_status fz7_lzma_enc_reset(fz7_lzma_enc *e, fz7_ostream *dst)
{
    if (!e || !dst || e->driver || e->mf_mt)
        return FZ7_E_ARG;
    fz7_lzma_enc_opts opts = e->opts;
    const fz7_lzma_frame *frame = e->frame;
    fz7_lz_mf mf = e->mf;
    uint8_t *out = e->out;
    size_t out_cap = e->out_cap;
    fz7_lzma_probs *probs = e->probs;
    fz7_lzma_decision *queue = e->queue;
    fz7_lzma_opt *opt = e->opt;
    memset(e, 0, sizeof(*e));
    e->opts = opts;
    e->frame = frame;
    e->dst = dst;
    e->mf = mf;
    fz7_lz_mf_reset(&e->mf);
    e->out = out;
    e->out_cap = out_cap;
    e->probs = probs;
    e->queue = queue;
    e->opt = opt;
    e->pos_mask = (1u << opts.pb) - 1;
    start_stream(e);
    return FZ7_OK;
}
