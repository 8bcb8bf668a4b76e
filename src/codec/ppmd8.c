/* ppmd8.c - PPMd variant I (rev. 1) decoder with the carry-less range
 * coder, as zip's method 98 stores it after its 2 property bytes; the model
 * is ppmd8_model.c's. */
#include "codec/codec.h"
#include "codec/ppmd8_model.h"

#include <stdlib.h>
#include <string.h>

/* ---- The carry-less range decoder ---- */

typedef struct {
    fz7_istream base;
    uint64_t left;          /* bytes still to decode */
    uint32_t range, code, low;
    bool started;
    bool end_mark;          /* the end marker was decoded */
    bool finished;          /* ... after out_size bytes, and checked */
    fz7_status err;
    pm8_model m;
    fz7_ppmd_in in;
} ppmd8_istream;

/* Shifts in a byte wherever the encoder wrote one: while low and
 * low + range agree in their top byte, or the range fell below RC_BOT
 * (first cut to what keeps low's top byte, as the encoder cut it). */
static fz7_status rc_normalize(ppmd8_istream *z)
{
    for (;;) {
        if ((z->low ^ (z->low + z->range)) >= PM8_RC_TOP) {
            if (z->range >= PM8_RC_BOT)
                return FZ7_OK;
            z->range = (0u - z->low) & (PM8_RC_BOT - 1);
        }
        uint8_t v;
        fz7_status st = fz7_ppmd_in_byte(&z->in, &v);
        if (st != FZ7_OK)
            return st;
        z->code = (z->code << 8) | v;
        z->range <<= 8;
        z->low <<= 8;
    }
}

/* The total of a frequency table, cut to the range when it is larger
 * (as 7-Zip does since 20.01, so that range / total never becomes 0). */
static inline uint32_t rc_total(const ppmd8_istream *z, uint32_t total)
{
    return total > z->range ? z->range : total;
}

static inline uint32_t rc_threshold(ppmd8_istream *z, uint32_t total)
{
    z->range /= total;
    return z->code / z->range;
}

static inline fz7_status rc_decode(ppmd8_istream *z, uint32_t start, uint32_t size)
{
    start *= z->range;
    z->low += start;
    z->code -= start;
    z->range *= size;
    return rc_normalize(z);
}

/* ---- Decoding one symbol ---- */

/* Decodes one byte into *sym, or the end marker (an escape out of the
 * order-0 context; z->end_mark set). FZ7_E_DATA for a code out of range. */
static fz7_status decode_symbol(ppmd8_istream *z, uint8_t *sym)
{
    pm8_model *m = &z->m;
    int8_t mask[256];
    fz7_status st;
    pm8_ctx *mc = m->min_ctx;

    if (mc->num_stats != 0) {
        pm_state *s = pm8_stats(m, mc);
        uint32_t total = rc_total(z, mc->summ_freq);
        uint32_t count = rc_threshold(z, total), hi = s->freq;
        if (count < hi) {
            if ((st = rc_decode(z, 0, s->freq)))
                return st;
            *sym = s->symbol;
            fz7_ppmd8_took_first(m, s);
            return FZ7_OK;
        }
        m->prev_success = 0;
        for (unsigned i = mc->num_stats; i > 0; i--) {
            if ((hi += (++s)->freq) > count) {
                if ((st = rc_decode(z, hi - s->freq, s->freq)))
                    return st;
                *sym = s->symbol;
                fz7_ppmd8_took_other(m, s);
                return FZ7_OK;
            }
        }
        if (count >= total)
            return FZ7_E_DATA;
        if ((st = rc_decode(z, hi, total - hi)))
            return st;
        memset(mask, -1, sizeof mask);
        pm_state *all = pm8_stats(m, mc);
        for (unsigned i = 0; i <= mc->num_stats; i++)
            mask[all[i].symbol] = 0;
    } else {
        /* Binary context: one symbol, probability from bin_summ. */
        uint16_t *prob = fz7_ppmd8_bin_prob(m);
        uint32_t bound = (z->range >> 14) * *prob;
        if (z->code < bound) {
            z->range = bound;
            if ((st = rc_normalize(z)))
                return st;
            *sym = pm8_one_state(mc)->symbol;
            fz7_ppmd8_bin_took(m, prob);
            return FZ7_OK;
        }
        z->low += bound;
        z->code -= bound;
        z->range = (z->range & ~(BIN_SCALE - 1)) - bound;
        if ((st = rc_normalize(z)))
            return st;
        fz7_ppmd8_bin_escaped(m, prob);
        memset(mask, -1, sizeof mask);
        mask[pm8_one_state(mc)->symbol] = 0;
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
            m->min_ctx = pm8_suffix(m, m->min_ctx);
        } while (m->min_ctx->num_stats == masked);
        mc = m->min_ctx;

        /* The unmasked states in their order; branch-free, as whether a
         * symbol is masked is unpredictable. */
        pm_state *s = pm8_stats(m, mc);
        unsigned n = 0;
        uint32_t hi = 0;
        for (unsigned i = 0; i <= mc->num_stats; i++, s++) {
            unsigned keep = (uint8_t)mask[s->symbol];   /* 0xFF or 0 */
            hi += s->freq & keep;
            cand[n] = s;
            n += keep & 1;
        }
        uint32_t esc;
        pm_see *see = fz7_ppmd8_make_esc_freq(m, masked, &esc);
        uint32_t full = esc + hi, total = rc_total(z, full), count = rc_threshold(z, total);
        if (count < hi) {
            pm_state **c = cand;
            uint32_t acc = 0;
            while ((acc += (*c)->freq) <= count)
                c++;
            s = *c;
            if ((st = rc_decode(z, acc - s->freq, s->freq)))
                return st;
            *sym = s->symbol;
            fz7_ppmd8_took_after_escape(m, s, see);
            return FZ7_OK;
        }
        if (count >= total)
            return FZ7_E_DATA;
        if ((st = rc_decode(z, hi, total - hi)))
            return st;
        see->summ = (uint16_t)(see->summ + full);
        for (unsigned i = 0; i < n; i++)
            mask[cand[i]->symbol] = 0;
    }
}

/* ---- The stream ---- */

/* decode_symbol, where any byte wanted past the end of src is a data
 * error, whatever the zeros read in its place decoded to: a zip entry's
 * bytes are all of its stream, and 7-Zip's decoder says so (S_FALSE). */
static fz7_status decode_step(ppmd8_istream *z, uint8_t *sym)
{
    fz7_status st = decode_symbol(z, sym);
    if (z->in.overrun && st == FZ7_OK)
        return FZ7_E_DATA;
    return st;
}

static fz7_status ppmd8_fill(ppmd8_istream *z, uint8_t *buf, size_t cap, size_t *got)
{
    fz7_status st;
    if (!z->started) {
        uint8_t v;
        z->range = 0xFFFFFFFFu;
        for (int i = 0; i < 4; i++) {
            if ((st = fz7_ppmd_in_byte(&z->in, &v)))
                return st;
            z->code = (z->code << 8) | v;
        }
        if (z->in.overrun)
            return FZ7_E_DATA;
        if (z->code == 0xFFFFFFFFu)
            return FZ7_E_DATA;
        z->started = true;
    }
    while (*got < cap && z->left > 0) {
        if ((st = decode_step(z, &buf[*got])))
            return st;
        if (z->end_mark)   /* the size says there is more: 7zz's "Unexpected end of data" when the
                              stream ended right, else its data error */
            return z->code == 0 ? FZ7_E_TRUNCATED : FZ7_E_DATA;
        (*got)++;
        z->left--;
    }
    /* Zip's encoders end the stream with the end marker, and its last
     * bytes leave the code at 0; 7-Zip checks both. */
    if (z->left == 0 && !z->finished) {
        uint8_t extra;
        if ((st = decode_step(z, &extra)))
            return st;
        if (!z->end_mark || z->code != 0)
            return FZ7_E_DATA;
        z->finished = true;
    }
    return FZ7_OK;
}

static fz7_status ppmd8_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    ppmd8_istream *z = (ppmd8_istream *)s;
    *got = 0;
    if (z->err != FZ7_OK)
        return z->err;
    if (z->finished || (cap == 0 && z->left > 0))
        return FZ7_OK;
    fz7_status st = ppmd8_fill(z, buf, cap, got);
    if (st != FZ7_OK) {
        z->err = st;
        if (*got == 0)
            return st;
    }
    return FZ7_OK;
}

static void ppmd8_destroy(fz7_istream *s)
{
    ppmd8_istream *z = (ppmd8_istream *)s;
    fz7_ppmd8_model_free(&z->m);
    free(z);
}

size_t fz7_ppmd8_istream_unread(const fz7_istream *s)
{
    const ppmd8_istream *z = (const ppmd8_istream *)s;
    return z->in.len - z->in.pos;
}

fz7_status fz7_ppmd8_zip_props_parse(const uint8_t props[2], unsigned *order, uint32_t *mem, unsigned *restore)
{
    unsigned v = props[0] | (unsigned)props[1] << 8;
    *order = (v & 0xF) + 1;
    *mem = (((v >> 4) & 0xFF) + 1) << 20;
    *restore = v >> 12;
    if (*order < FZ7_PPMD8_ORDER_MIN || *restore > 2)
        return FZ7_E_DATA;
    return *restore == 2 ? FZ7_E_UNSUPPORTED : FZ7_OK;
}

fz7_status fz7_ppmd8_istream_new(fz7_istream *src, unsigned order, uint32_t mem, unsigned restore,
                                 uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    if (!fz7_ppmd8_params_ok(order, mem, restore))
        return FZ7_E_UNSUPPORTED;
    if (mem_limit == 0)
        mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    if (fz7_ppmd8_heap_bytes(mem) + sizeof(ppmd8_istream) > mem_limit)
        return FZ7_E_MEMLIMIT;
    ppmd8_istream *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    fz7_status st = fz7_ppmd8_model_new(&z->m, order, mem, restore);
    if (st != FZ7_OK) {
        free(z);
        return st;
    }
    z->base.read = ppmd8_read;
    z->base.destroy = ppmd8_destroy;
    z->in.src = src;
    z->left = out_size;
    *out = &z->base;
    return FZ7_OK;
}
