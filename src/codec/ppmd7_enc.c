/* ppmd7_enc.c - PPMd variant H encoder for the 7z method 030401: each byte
 * coded with the model of ppmd7_model.c and the range coder the decoder in
 * ppmd7.c undoes (a carry-propagating encoder; its first byte is always 0,
 * and the flush writes 5 more bytes, as the 7z decoder expects). No end
 * marker: 7z records the unpacked size. */
#include "codec/codec.h"
#include "codec/ppmd7_model.h"

#include <stdlib.h>
#include <string.h>

struct fz7_ppmd7_enc {
    uint64_t low;           /* 33 bits: bit 32 is a carry into cache */
    uint32_t range;
    uint8_t cache;
    uint64_t cache_size;    /* cache plus the 0xFF bytes waiting behind it */
    pm_model m;
    fz7_ppmd_out out;
};

/* Writes the top byte of low once no carry can reach it any more. */
static void shift_low(fz7_ppmd7_enc *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32), v = e->cache;
        do {
            fz7_ppmd_out_byte(&e->out, (uint8_t)(v + carry));
            v = 0xFF;
        } while (--e->cache_size != 0);
        e->cache = (uint8_t)((uint32_t)e->low >> 24);
    }
    e->cache_size++;
    e->low = (uint32_t)e->low << 8;
}

static void rc_normalize(fz7_ppmd7_enc *e)
{
    while (e->range < RC_TOP) {
        e->range <<= 8;
        shift_low(e);
    }
}

/* The symbol [start, start + size) of total. */
static void rc_encode(fz7_ppmd7_enc *e, uint32_t start, uint32_t size, uint32_t total)
{
    e->range /= total;
    e->low += (uint64_t)start * e->range;
    e->range *= size;
    rc_normalize(e);
}

/* A binary context's bit (prob: 14 bits for its symbol): the symbol takes
 * the part of the range below the bound, an escape the rest. */
static void rc_encode_bin(fz7_ppmd7_enc *e, uint32_t prob, int escape)
{
    uint32_t bound = (e->range >> 14) * prob;
    e->low += escape ? bound : 0;
    e->range = escape ? e->range - bound : bound;
    rc_normalize(e);
}

/* Codes the byte sym: in min_ctx if it is there, else escapes to shorter
 * contexts, each time excluding the symbols already offered. The order-0
 * context holds all 256 symbols, so the walk always ends in a find. */
static void encode_symbol(fz7_ppmd7_enc *e, uint8_t sym)
{
    pm_model *m = &e->m;
    int8_t mask[256];
    pm_ctx *mc = m->min_ctx;

    if (mc->num_stats != 1) {
        pm_state *s = stats_of(m, mc);
        if (s->symbol == sym) {
            rc_encode(e, 0, s->freq, mc->summ_freq);
            fz7_ppmd7_took_first(m, s);
            return;
        }
        m->prev_success = 0;
        uint32_t hi = s->freq;
        for (unsigned i = mc->num_stats - 1u; i > 0; i--) {
            if ((++s)->symbol == sym) {
                rc_encode(e, hi, s->freq, mc->summ_freq);
                fz7_ppmd7_took_other(m, s);
                return;
            }
            hi += s->freq;
        }
        m->hi_bits_flag = m->hb_flag[m->found->symbol];
        rc_encode(e, hi, mc->summ_freq - hi, mc->summ_freq);
        memset(mask, -1, sizeof mask);
        pm_state *all = stats_of(m, mc);
        for (unsigned i = 0; i < mc->num_stats; i++)
            mask[all[i].symbol] = 0;
    } else {
        uint16_t *prob = fz7_ppmd7_bin_prob(m);
        pm_state *s = one_state(mc);
        if (s->symbol == sym) {
            rc_encode_bin(e, *prob, 0);
            fz7_ppmd7_bin_took(m, prob);
            return;
        }
        rc_encode_bin(e, *prob, 1);
        fz7_ppmd7_bin_escaped(m, prob);
        memset(mask, -1, sizeof mask);
        mask[s->symbol] = 0;
    }

    for (;;) {
        unsigned masked = m->min_ctx->num_stats;
        do {
            m->order_fall++;
            m->min_ctx = suffix_of(m, m->min_ctx);
        } while (m->min_ctx->num_stats == masked);
        mc = m->min_ctx;

        /* The unmasked states in their order, as the decoder lists them:
         * hi their total, low the total before sym's. sym is never masked
         * (it would have been found where it was), and the sum is
         * branch-free: whether a state is masked is unpredictable. */
        pm_state *s = stats_of(m, mc), *found = NULL;
        uint32_t hi = 0, low = 0;
        for (unsigned i = 0; i < mc->num_stats; i++, s++) {
            if (s->symbol == sym) {
                found = s;
                low = hi;
            }
            hi += s->freq & (uint8_t)mask[s->symbol];
        }
        uint32_t esc;
        pm_see *see = fz7_ppmd7_make_esc_freq(m, masked, &esc);
        uint32_t total = esc + hi;
        if (found) {
            rc_encode(e, low, found->freq, total);
            fz7_ppmd7_took_after_escape(m, found, see);
            return;
        }
        rc_encode(e, hi, esc, total);
        see->summ = (uint16_t)(see->summ + total);
        s = stats_of(m, mc);
        for (unsigned i = 0; i < mc->num_stats; i++)
            mask[s[i].symbol] = 0;
    }
}

fz7_status fz7_ppmd7_enc_new(unsigned order, uint32_t mem, fz7_ostream *dst, fz7_ppmd7_enc **out)
{
    *out = NULL;
    if (order < FZ7_PPMD7_ENC_ORDER_MIN || order > FZ7_PPMD7_ENC_ORDER_MAX || mem < FZ7_PPMD7_ENC_MEM_MIN ||
        mem > FZ7_PPMD7_ENC_MEM_MAX)
        return FZ7_E_ARG;
    fz7_ppmd7_enc *e = calloc(1, sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    fz7_status st = fz7_ppmd7_model_new(&e->m, order, mem);
    if (st != FZ7_OK) {
        free(e);
        return st;
    }
    e->out.dst = dst;
    e->range = 0xFFFFFFFFu;
    e->cache_size = 1;
    *out = e;
    return FZ7_OK;
}

void fz7_ppmd7_enc_props(unsigned order, uint32_t mem, uint8_t props[5])
{
    props[0] = (uint8_t)order;
    fz7_put32le(props + 1, mem);
}

fz7_status fz7_ppmd7_enc_write(fz7_ppmd7_enc *e, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && e->out.err == FZ7_OK; i++)
        encode_symbol(e, p[i]);
    return e->out.err;
}

fz7_status fz7_ppmd7_enc_finish(fz7_ppmd7_enc *e)
{
    for (int i = 0; i < 5; i++)
        shift_low(e);
    return fz7_ppmd_out_flush(&e->out);
}

uint64_t fz7_ppmd7_enc_bytes_out(const fz7_ppmd7_enc *e)
{
    return e->out.bytes_out + e->out.len;
}

void fz7_ppmd7_enc_free(fz7_ppmd7_enc *e)
{
    if (!e)
        return;
    fz7_ppmd7_model_free(&e->m);
    free(e);
}
