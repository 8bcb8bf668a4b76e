/* ppmd7.c - PPMd variant H decoder with the range coder 7-Zip uses for the
 * 7z method 030401; the model is ppmd7_model.c's. */
#include "codec/codec.h"
#include "codec/ppmd7_model.h"

#include <stdlib.h>
#include <string.h>

/* ---- The 7z range decoder ---- */

typedef struct {
    fz7_istream base;
    uint64_t left;          /* bytes still to decode */
    uint32_t range, code;
    bool started;
    bool end_mark;          /* the end marker was decoded */
    fz7_status err;
    pm_model m;
    fz7_ppmd_in in;
} ppmd_istream;

static fz7_status rc_normalize(ppmd_istream *z)
{
    while (z->range < RC_TOP) {
        uint8_t v;
        fz7_status st = fz7_ppmd_in_byte(&z->in, &v);
        if (st != FZ7_OK)
            return st;
        z->code = (z->code << 8) | v;
        z->range <<= 8;
    }
    return FZ7_OK;
}

static inline uint32_t rc_threshold(ppmd_istream *z, uint32_t total)
{
    z->range /= total;
    return z->code / z->range;
}

static inline fz7_status rc_decode(ppmd_istream *z, uint32_t start, uint32_t size)
{
    z->code -= start * z->range;
    z->range *= size;
    return rc_normalize(z);
}

/* ---- Decoding one symbol ---- */

/* Decodes one byte into *sym, or the end marker (an escape out of the
 * order-0 context; z->end_mark set). FZ7_E_DATA for a code out of range. */
static fz7_status decode_symbol(ppmd_istream *z, uint8_t *sym)
{
    pm_model *m = &z->m;
    int8_t mask[256];
    fz7_status st;
    pm_ctx *mc = m->min_ctx;

    if (mc->num_stats != 1) {
        pm_state *s = stats_of(m, mc);
        uint32_t count = rc_threshold(z, mc->summ_freq), hi = s->freq;
        if (count < hi) {
            if ((st = rc_decode(z, 0, s->freq)))
                return st;
            *sym = s->symbol;
            fz7_ppmd7_took_first(m, s);
            return FZ7_OK;
        }
        m->prev_success = 0;
        for (unsigned i = mc->num_stats - 1u; i > 0; i--) {
            if ((hi += (++s)->freq) > count) {
                if ((st = rc_decode(z, hi - s->freq, s->freq)))
                    return st;
                *sym = s->symbol;
                fz7_ppmd7_took_other(m, s);
                return FZ7_OK;
            }
        }
        if (count >= mc->summ_freq)
            return FZ7_E_DATA;
        m->hi_bits_flag = m->hb_flag[m->found->symbol];
        if ((st = rc_decode(z, hi, mc->summ_freq - hi)))
            return st;
        memset(mask, -1, sizeof mask);
        pm_state *all = stats_of(m, mc);
        for (unsigned i = 0; i < mc->num_stats; i++)
            mask[all[i].symbol] = 0;
    } else {
        /* Binary context: one symbol, probability from bin_summ. */
        uint16_t *prob = fz7_ppmd7_bin_prob(m);
        uint32_t bound = (z->range >> 14) * *prob;
        if (z->code < bound) {
            z->range = bound;
            if ((st = rc_normalize(z)))
                return st;
            *sym = one_state(mc)->symbol;
            fz7_ppmd7_bin_took(m, prob);
            return FZ7_OK;
        }
        z->code -= bound;
        z->range -= bound;
        if ((st = rc_normalize(z)))
            return st;
        fz7_ppmd7_bin_escaped(m, prob);
        memset(mask, -1, sizeof mask);
        mask[one_state(mc)->symbol] = 0;
    }

    /* Escapes: shorter contexts, excluding the symbols already seen. */
    for (;;) {
        pm_state *cand[256];
        unsigned masked = m->min_ctx->num_stats;
        do {
            m->order_fall++;
            if (!m->min_ctx->suffix) {
                z->end_mark = true;
                return FZ7_OK;
            }
            m->min_ctx = suffix_of(m, m->min_ctx);
        } while (m->min_ctx->num_stats == masked);
        mc = m->min_ctx;

        pm_state *s = stats_of(m, mc);
        unsigned num = mc->num_stats - masked, n = 0;
        uint32_t hi = 0;
        /* Branch-free: whether a symbol is masked is unpredictable. */
        for (unsigned i = 0; i < mc->num_stats && n != num; i++, s++) {
            unsigned keep = (uint8_t)mask[s->symbol];   /* 0xFF or 0 */
            hi += s->freq & keep;
            cand[n] = s;
            n += keep & 1;
        }
        if (n != num)
            return FZ7_E_DATA;
        uint32_t esc;
        pm_see *see = fz7_ppmd7_make_esc_freq(m, masked, &esc);
        uint32_t total = esc + hi, count = rc_threshold(z, total);
        if (count < hi) {
            pm_state **c = cand;
            uint32_t acc = 0;
            while ((acc += (*c)->freq) <= count)
                c++;
            s = *c;
            if ((st = rc_decode(z, acc - s->freq, s->freq)))
                return st;
            *sym = s->symbol;
            fz7_ppmd7_took_after_escape(m, s, see);
            return FZ7_OK;
        }
        if (count >= total)
            return FZ7_E_DATA;
        if ((st = rc_decode(z, hi, total - hi)))
            return st;
        see->summ = (uint16_t)(see->summ + total);
        for (unsigned i = 0; i < n; i++)
            mask[cand[i]->symbol] = 0;
    }
}

/* ---- The stream ---- */

static fz7_status ppmd_fill(ppmd_istream *z, uint8_t *buf, size_t cap, size_t *got)
{
    fz7_status st;
    if (!z->started) {
        /* 7z's flavour: a zero byte, then 4 bytes of code. */
        uint8_t v;
        if ((st = fz7_ppmd_in_byte(&z->in, &v)))
            return st;
        if (v != 0 || z->in.overrun)
            return z->in.overrun ? FZ7_E_TRUNCATED : FZ7_E_DATA;
        z->range = 0xFFFFFFFFu;
        z->code = 0;
        for (int i = 0; i < 4; i++) {
            if ((st = fz7_ppmd_in_byte(&z->in, &v)))
                return st;
            z->code = (z->code << 8) | v;
        }
        if (z->code == 0xFFFFFFFFu)
            return FZ7_E_DATA;
        z->started = true;
    }
    while (*got < cap && z->left > 0) {
        if ((st = decode_symbol(z, &buf[*got])))
            return st;
        if (z->in.overrun)
            return FZ7_E_TRUNCATED;
        if (z->end_mark)
            return FZ7_E_DATA;   /* the size says there is more */
        (*got)++;
        z->left--;
    }
    /* A complete stream leaves the range decoder's code at 0. 7-Zip never
     * writes an end marker in 7z, other encoders may: after one, the code
     * is 0 too. */
    if (z->left == 0 && z->code != 0) {
        uint8_t extra;
        if ((st = decode_symbol(z, &extra)))
            return st;
        if (!z->end_mark || z->code != 0 || z->in.overrun)
            return FZ7_E_DATA;
    }
    return FZ7_OK;
}

static fz7_status ppmd_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    ppmd_istream *z = (ppmd_istream *)s;
    *got = 0;
    if (z->err != FZ7_OK)
        return z->err;
    if (cap == 0 || z->left == 0)
        return FZ7_OK;
    fz7_status st = ppmd_fill(z, buf, cap, got);
    if (st != FZ7_OK) {
        z->err = st;
        if (*got == 0)
            return st;
    }
    return FZ7_OK;
}

static void ppmd_destroy(fz7_istream *s)
{
    ppmd_istream *z = (ppmd_istream *)s;
    fz7_ppmd7_model_free(&z->m);
    free(z);
}

size_t fz7_ppmd7_istream_unread(const fz7_istream *s)
{
    const ppmd_istream *z = (const ppmd_istream *)s;
    return z->in.len - z->in.pos;
}

fz7_status fz7_ppmd7_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    if (props_len != 5)
        return FZ7_E_UNSUPPORTED;
    unsigned order = props[0];
    uint32_t mem = fz7_get32le(props + 1);
    if (order < 2 || order > MAX_ORDER || mem < MIN_MEM || mem > MAX_MEM)
        return FZ7_E_UNSUPPORTED;
    if (mem_limit == 0)
        mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    if (fz7_ppmd7_heap_bytes(mem) + sizeof(ppmd_istream) > mem_limit)
        return FZ7_E_MEMLIMIT;
    ppmd_istream *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    fz7_status st = fz7_ppmd7_model_new(&z->m, order, mem);
    if (st != FZ7_OK) {
        free(z);
        return st;
    }
    z->base.read = ppmd_read;
    z->base.destroy = ppmd_destroy;
    z->in.src = src;
    z->left = out_size;
    *out = &z->base;
    return FZ7_OK;
}
