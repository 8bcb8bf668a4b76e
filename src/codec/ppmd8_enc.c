/* ppmd8_enc.c - PPMd variant I (rev. 1) encoder for zip's method 98: each
 * byte coded with the model of ppmd8_model.c and the carry-less range
 * coder the decoder in ppmd8.c undoes; at the end the end marker (an
 * escape out of every context, as 7-Zip and Shkarin's encoder write it)
 * and the 4 bytes of low. */
#include "codec/codec.h"
#include "codec/ppmd8_model.h"

#include <stdlib.h>
#include <string.h>

struct fz7_ppmd8_enc {
    uint32_t low, range;
    bool finished;          /* the end marker and flush are out */
    pm8_model m;
    fz7_ppmd_out out;
};

/* Writes the top byte of low while it is settled (low and low + range
 * agree in it), and when the range fell below RC_BOT settles it by cutting
 * the range to what keeps it: no carry ever reaches a written byte. */
static void rc_normalize(fz7_ppmd8_enc *e)
{
    for (;;) {
        if ((e->low ^ (e->low + e->range)) >= PM8_RC_TOP) {
            if (e->range >= PM8_RC_BOT)
                return;
            e->range = (0u - e->low) & (PM8_RC_BOT - 1);
        }
        fz7_ppmd_out_byte(&e->out, (uint8_t)(e->low >> 24));
        e->range <<= 8;
        e->low <<= 8;
    }
}

/* The total of a frequency table, cut to the range when larger (7-Zip's
 * guard since 20.01; the decoder cuts it alike). */
static inline uint32_t rc_total(const fz7_ppmd8_enc *e, uint32_t total)
{
    return total > e->range ? e->range : total;
}

/* The symbol [start, start + size) of total. */
static void rc_encode(fz7_ppmd8_enc *e, uint32_t start, uint32_t size, uint32_t total)
{
    e->range /= total;
    e->low += start * e->range;
    e->range *= size;
    rc_normalize(e);
}

/* A binary context's bit (prob: 14 bits for its symbol): the symbol takes
 * the part of the range below the bound, an escape the rest of the range
 * rounded down to whole 1/2^14ths. */
static void rc_encode_bin(fz7_ppmd8_enc *e, uint32_t prob, int escape)
{
    uint32_t bound = (e->range >> 14) * prob;
    if (escape) {
        e->low += bound;
        e->range = (e->range & ~(BIN_SCALE - 1)) - bound;
    } else {
        e->range = bound;
    }
    rc_normalize(e);
}

/* Codes sym (0..255), or the end marker (-1): in min_ctx if it is there,
 * else escapes to shorter contexts, each time excluding the symbols
 * already offered. The order-0 context holds all 256 bytes, so only the
 * end marker escapes from it. */
static void encode_symbol(fz7_ppmd8_enc *e, int sym)
{
    pm8_model *m = &e->m;
    int8_t mask[256];
    pm8_ctx *mc = m->min_ctx;

    if (mc->num_stats != 0) {
        pm_state *s = pm8_stats(m, mc);
        uint32_t total = rc_total(e, mc->summ_freq);
        if (s->symbol == sym) {
            rc_encode(e, 0, s->freq, total);
            fz7_ppmd8_took_first(m, s);
            return;
        }
        m->prev_success = 0;
        uint32_t hi = s->freq;
        for (unsigned i = mc->num_stats; i > 0; i--) {
            if ((++s)->symbol == sym) {
                rc_encode(e, hi, s->freq, total);
                fz7_ppmd8_took_other(m, s);
                return;
            }
            hi += s->freq;
        }
        rc_encode(e, hi, total - hi, total);
        memset(mask, -1, sizeof mask);
        pm_state *all = pm8_stats(m, mc);
        for (unsigned i = 0; i <= mc->num_stats; i++)
            mask[all[i].symbol] = 0;
    } else {
        uint16_t *prob = fz7_ppmd8_bin_prob(m);
        pm_state *s = pm8_one_state(mc);
        if (s->symbol == sym) {
            rc_encode_bin(e, *prob, 0);
            fz7_ppmd8_bin_took(m, prob);
            return;
        }
        rc_encode_bin(e, *prob, 1);
        fz7_ppmd8_bin_escaped(m, prob);
        memset(mask, -1, sizeof mask);
        mask[s->symbol] = 0;
    }

    for (;;) {
        unsigned masked = m->min_ctx->num_stats;
        do {
            m->order_fall++;
            if (!m->min_ctx->suffix)
                return;   /* the end marker */
            m->min_ctx = pm8_suffix(m, m->min_ctx);
        } while (m->min_ctx->num_stats == masked);
        mc = m->min_ctx;

        uint32_t esc;
        pm_see *see = fz7_ppmd8_make_esc_freq(m, masked, &esc);
        /* The unmasked states in their order, as the decoder lists them:
         * hi their total, low the total before sym's (sym is never
         * masked: it would have been found where it was). */
        pm_state *s = pm8_stats(m, mc), *found = NULL;
        uint32_t hi = 0, low = 0;
        for (unsigned i = 0; i <= mc->num_stats; i++, s++) {
            if (s->symbol == sym) {
                found = s;
                low = hi;
            }
            hi += s->freq & (uint8_t)mask[s->symbol];
        }
        uint32_t total = rc_total(e, esc + hi);
        if (found) {
            rc_encode(e, low, found->freq, total);
            fz7_ppmd8_took_after_escape(m, found, see);
            return;
        }
        see->summ = (uint16_t)(see->summ + esc + hi);
        rc_encode(e, hi, total - hi, total);
        s = pm8_stats(m, mc);
        for (unsigned i = 0; i <= mc->num_stats; i++)
            mask[s[i].symbol] = 0;
    }
}

fz7_status fz7_ppmd8_enc_new(unsigned order, uint32_t mem, unsigned restore, fz7_ostream *dst, fz7_ppmd8_enc **out)
{
    *out = NULL;
    if (!fz7_ppmd8_params_ok(order, mem, restore))
        return FZ7_E_ARG;
    fz7_ppmd8_enc *e = calloc(1, sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    fz7_status st = fz7_ppmd8_model_new(&e->m, order, mem, restore);
    if (st != FZ7_OK) {
        free(e);
        return st;
    }
    e->out.dst = dst;
    e->range = 0xFFFFFFFFu;
    *out = e;
    return FZ7_OK;
}

void fz7_ppmd8_zip_props(unsigned order, uint32_t mem, unsigned restore, uint8_t props[2])
{
    unsigned v = (order - 1) | ((mem >> 20) - 1) << 4 | restore << 12;
    props[0] = (uint8_t)v;
    props[1] = (uint8_t)(v >> 8);
}

fz7_status fz7_ppmd8_enc_write(fz7_ppmd8_enc *e, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && e->out.err == FZ7_OK; i++)
        encode_symbol(e, p[i]);
    return e->out.err;
}

fz7_status fz7_ppmd8_enc_finish(fz7_ppmd8_enc *e)
{
    if (!e->finished) {
        encode_symbol(e, -1);
        for (int i = 0; i < 4; i++, e->low <<= 8)
            fz7_ppmd_out_byte(&e->out, (uint8_t)(e->low >> 24));
        e->finished = true;
    }
    return fz7_ppmd_out_flush(&e->out);
}

uint64_t fz7_ppmd8_enc_bytes_out(const fz7_ppmd8_enc *e)
{
    return e->out.bytes_out + e->out.len;
}

void fz7_ppmd8_enc_free(fz7_ppmd8_enc *e)
{
    if (!e)
        return;
    fz7_ppmd8_model_free(&e->m);
    free(e);
}
