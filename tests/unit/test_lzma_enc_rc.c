/* test_lzma_enc_rc.c - the encoder's fast range coder and price helpers
 * against plain reference versions written out here (the obvious if/else
 * per bit, one byte-wise shift per normalisation, one tree walk per price):
 * byte-exact streams (the bytes that may still take a carry too), equal
 * pending counts, equal probabilities and prices,
 * on random bits, trees, direct bits and literals from fixed seeds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lzma/lzma_enc_impl.h"

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng_state >> 33);
}

/* ---- reference range encoder -------------------------------------------- */

typedef struct ref_rc {
    uint64_t low;
    uint32_t range;
    uint8_t cache;
    uint64_t cache_size;
    uint8_t *out;
    size_t out_pos;
} ref_rc;

/* Carries that settled a run of 0xFF bytes as 0x00 bytes. */
static unsigned ref_carried_runs;

static void ref_shift_low(ref_rc *rc)
{
    if ((uint32_t)rc->low < 0xFF000000u || (rc->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(rc->low >> 32);
        ref_carried_runs += carry && rc->cache_size > 1;
        uint8_t b = rc->cache;
        do {
            rc->out[rc->out_pos++] = (uint8_t)(b + carry);
            b = 0xFF;
        } while (--rc->cache_size != 0);
        rc->cache = (uint8_t)(rc->low >> 24);
    }
    rc->cache_size++;
    rc->low = (rc->low & 0x00FFFFFFu) << 8;
}

static void ref_bit(ref_rc *rc, fz7_lzma_prob *p, unsigned bit)
{
    uint32_t bound = (rc->range >> 11) * *p;
    if (bit == 0) {
        rc->range = bound;
        *p = (fz7_lzma_prob)(*p + ((2048u - *p) >> 5));
    } else {
        rc->low += bound;
        rc->range -= bound;
        *p = (fz7_lzma_prob)(*p - (*p >> 5));
    }
    while (rc->range < (1u << 24)) {
        rc->range <<= 8;
        ref_shift_low(rc);
    }
}

static void ref_direct(ref_rc *rc, uint32_t value, unsigned count)
{
    while (count-- > 0) {
        rc->range >>= 1;
        if ((value >> count) & 1)
            rc->low += rc->range;
        while (rc->range < (1u << 24)) {
            rc->range <<= 8;
            ref_shift_low(rc);
        }
    }
}

/* Random sequences of bits (extreme and middle probabilities), trees,
 * reverse trees and direct bits; the fast coder, by the one-call API and
 * by one fz7_rc_live per group, must equal the reference at every step. */
static void test_range_coder_matches_reference(void **state)
{
    (void)state;
    enum { BUF = 1 << 16 };
    uint8_t *a = malloc(BUF), *b = malloc(BUF);
    assert_non_null(a);
    assert_non_null(b);
    ref_carried_runs = 0;
    for (unsigned trial = 0; trial < 400; trial++) {
        rng_state = 0x5EED0000u + trial;
        fz7_lzma_prob pa[256], pb[256];
        for (unsigned i = 0; i < 256; i++) {
            unsigned kind = rnd() % 4;
            pa[i] = pb[i] = (fz7_lzma_prob)(kind == 0 ? 31 : kind == 1 ? 2017 : 31 + rnd() % 1987);
        }
        fz7_range_enc rc;
        rc.out = a;
        fz7_rc_reset(&rc);
        ref_rc ref = {0, 0xFFFFFFFFu, 0, 1, b, 0};
        for (unsigned step = 0; step < 600; step++) {
            unsigned op = rnd() % 5;
            if (op == 0) {
                unsigned i = rnd() % 256, bit = (trial & 1) ? rnd() % 2 : (rnd() % 8 != 0);
                fz7_rc_bit(&rc, &pa[i], bit);
                ref_bit(&ref, &pb[i], bit);
            } else if (op == 1) {
                unsigned count = 1 + rnd() % 8;
                uint32_t v = rnd() & ((1u << count) - 1);
                fz7_rc_live l = fz7_rc_open(&rc);
                fz7_rcl_tree(&l, pa, count, v);
                fz7_rc_close(&l);
                for (unsigned m = 1, k = count; k-- > 0;) {
                    unsigned bit = (v >> k) & 1;
                    ref_bit(&ref, &pb[m], bit);
                    m = (m << 1) | bit;
                }
            } else if (op == 2) {
                unsigned count = 1 + rnd() % 6;
                uint32_t v = rnd() & ((1u << count) - 1);
                fz7_rc_tree_reverse(&rc, pa + 64, count, v);
                for (unsigned m = 1, k = 0; k < count; k++) {
                    unsigned bit = (v >> k) & 1;
                    ref_bit(&ref, &pb[64 + m], bit);
                    m = (m << 1) | bit;
                }
            } else if (op == 3) {
                unsigned count = 1 + rnd() % 26;
                uint32_t v = (trial % 3 == 0) ? (1u << count) - 1 : rnd() & ((1u << count) - 1);
                fz7_rc_live l = fz7_rc_open(&rc);
                fz7_rcl_direct(&l, v, count);
                fz7_rc_close(&l);
                ref_direct(&ref, v, count);
            } else {
                /* A run of 1s at the lowest probability: long 0xFF runs
                 * behind the cache and carries into them. */
                unsigned i = 200 + rnd() % 8, n = rnd() % 40;
                fz7_rc_live l = fz7_rc_open(&rc);
                for (unsigned k = 0; k < n; k++)
                    fz7_rcl_bit(&l, &pa[i], 1);
                fz7_rc_close(&l);
                for (unsigned k = 0; k < n; k++)
                    ref_bit(&ref, &pb[i], 1);
            }
            /* The fast coder writes the cache and its 0xFF run at once
             * (carries patch them): same bytes settled so far, then the
             * reference's cache byte and cache_size - 1 bytes of 0xFF. */
            int same = rc.low == ref.low && rc.range == ref.range
                    && rc.out_pos == ref.out_pos + ref.cache_size
                    && fz7_rc_pending(&rc) == ref.out_pos + ref.cache_size + 4
                    && memcmp(a, b, ref.out_pos) == 0 && a[ref.out_pos] == ref.cache
                    && memcmp(pa, pb, sizeof(pa)) == 0;
            for (size_t k = ref.out_pos + 1; same && k < rc.out_pos; k++)
                same = a[k] == 0xFF;
            if (!same) {
                print_message("trial %u step %u op %u: coder state differs\n", trial, step, op);
                fail();
            }
            assert_true(rc.out_pos + 64 < BUF);
        }
        fz7_rc_flush(&rc);
        for (int i = 0; i < 5; i++)
            ref_shift_low(&ref);
        assert_int_equal(rc.out_pos, ref.out_pos);
        assert_memory_equal(a, b, rc.out_pos);
    }
    /* The fixed seeds must reach the carry path through 0xFF runs. */
    assert_true(ref_carried_runs > 0);
    free(a);
    free(b);
}

/* ---- prices -------------------------------------------------------------- */

static uint32_t ref_price_bit(const uint32_t *table, fz7_lzma_prob p, unsigned bit)
{
    return table[(bit ? 2048u - p : p) >> 4];
}

static uint32_t ref_literal_price(const uint32_t *table, const fz7_lzma_prob *probs, int matched, uint8_t cur,
                                  uint8_t match_byte)
{
    uint32_t price = 0, sym = 1;
    for (int i = 7; i >= 0; i--) {
        unsigned bit = (cur >> i) & 1;
        if (matched) {
            unsigned mb = (match_byte >> i) & 1;
            price += ref_price_bit(table, probs[((1 + mb) << 8) + sym], bit);
            matched = mb == bit;
        } else {
            price += ref_price_bit(table, probs[sym], bit);
        }
        sym = (sym << 1) | bit;
    }
    return price;
}

/* fz7_price_bit over every probability and both bits, and
 * fz7_lzma_literal_price (plain and matched, every state) against the
 * walks above, with a table of distinct values so a wrong index shows. */
static void test_prices_match_reference(void **state)
{
    (void)state;
    struct fz7_lzma_enc *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    e->opts.lc = 3;
    e->opts.lp = 0;
    e->probs = malloc(fz7_lzma_probs_size(3, 0));
    assert_non_null(e->probs);
    for (uint32_t i = 0; i < (FZ7_LZMA_PROB_ONE >> FZ7_PRICE_SHIFT); i++)
        e->price_table[i] = i * 2 + 1;   /* distinct, below 256 (bit_prices are bytes) */
    fz7_lzma_bit_prices_init(e);
    for (uint32_t p = 1; p < FZ7_LZMA_PROB_ONE; p++) {
        assert_int_equal(fz7_price_bit(e, (fz7_lzma_prob)p, 0), ref_price_bit(e->price_table, (fz7_lzma_prob)p, 0));
        assert_int_equal(fz7_price_bit(e, (fz7_lzma_prob)p, 1), ref_price_bit(e->price_table, (fz7_lzma_prob)p, 1));
    }
    rng_state = 0xC0FFEE;
    size_t n = fz7_lzma_probs_size(3, 0) / sizeof(fz7_lzma_prob);
    fz7_lzma_prob *all = (fz7_lzma_prob *)e->probs;
    for (size_t i = 0; i < n; i++)
        all[i] = (fz7_lzma_prob)(31 + rnd() % 1987);
    for (unsigned k = 0; k < 200000; k++) {
        uint64_t pos = rnd();
        uint32_t st = rnd() % FZ7_LZMA_NUM_STATES;
        uint8_t prev = (uint8_t)rnd(), cur = (uint8_t)rnd();
        /* Often equal in a prefix, so matched walks go deep. */
        uint8_t mb = (uint8_t)((k & 1) ? cur ^ (0x80u >> (rnd() % 9)) : rnd());
        const fz7_lzma_prob *probs = e->probs->literal + fz7_lzma_literal_offset(pos, prev, 3, 0);
        uint32_t want = ref_literal_price(e->price_table, probs, !fz7_lzma_state_is_literal(st), cur, mb);
        uint32_t got = fz7_lzma_literal_price(e, pos, st, prev, cur, mb);
        if (got != want) {
            print_message("literal %02x match %02x state %u: %u, want %u\n", cur, mb, st, got, want);
            fail();
        }
    }
    free(e->probs);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_coder_matches_reference),
        cmocka_unit_test(test_prices_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
