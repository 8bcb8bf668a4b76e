/* ppmd7_model.h - the PPMd variant H model (Shkarin's PPMII, var.H) that
 * the decoder (ppmd7.c) and the encoder (ppmd7_enc.c) share: contexts,
 * states, the sub-allocator and the update after each symbol, all in
 * ppmd7_model.c. Both directions walk the model identically, so they stay
 * in step by construction; only the range coder differs. Internal to
 * codec/. */
#ifndef FZ7_PPMD7_MODEL_H
#define FZ7_PPMD7_MODEL_H

#include "codec/ppmd_common.h"
#include "fz7_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_ORDER 64
#define MIN_MEM ((uint32_t)1 << 11)
#define MAX_MEM (0xFFFFFFFFu - 12 * 3)

#define RC_TOP (1u << 24)   /* both range coders renormalise below this */

/* A context: with one symbol, that state lives in place of summ_freq and
 * stats (one_state()). */
typedef struct {
    uint16_t num_stats, summ_freq;
    uint32_t stats, suffix;
} pm_ctx;

/* A free block while free blocks are glued together; stamp overlays
 * pm_ctx.num_stats (never 0 in a used unit). */
typedef struct {
    uint16_t stamp, nu;
    uint32_t next, prev;
} pm_node;

typedef struct {
    uint8_t *base;
    uint32_t size, align;
    uint32_t text, units_start, lo_unit, hi_unit;   /* offsets into base */
    uint32_t glue_count;
    uint32_t free_list[NUM_INDEXES];

    pm_ctx *min_ctx, *max_ctx;
    pm_state *found;
    unsigned order_fall, init_esc, prev_success, max_order, hi_bits_flag;
    /* Signed in the algorithm; kept unsigned so it wraps without UB. Its
     * bit 31 (negative) selects a binary context column. */
    uint32_t run_length, init_rl;

    uint8_t index_units[NUM_INDEXES];   /* units of each size class */
    uint8_t units_index[128];           /* size class holding n + 1 units */
    uint8_t ns_index[256];              /* SEE row by number of symbols */
    uint8_t ns_bin_index[256];          /* binary context column by suffix size */
    uint8_t hb_flag[256];               /* 8 for symbols >= 0x40 */
    pm_see dummy_see;
    pm_see see[25][16];
    uint16_t bin_summ[128][64];
} pm_model;

/* ---- Offsets and units ---- */

static inline void *at(const pm_model *m, uint32_t off) { return m->base + off; }
static inline uint32_t off_of(const pm_model *m, const void *p) { return (uint32_t)((const uint8_t *)p - m->base); }
static inline pm_ctx *ctx_at(const pm_model *m, uint32_t off) { return (pm_ctx *)at(m, off); }
static inline pm_state *stats_of(const pm_model *m, const pm_ctx *c) { return (pm_state *)at(m, c->stats); }
static inline pm_state *one_state(pm_ctx *c) { return (pm_state *)(void *)&c->summ_freq; }
static inline pm_ctx *suffix_of(const pm_model *m, const pm_ctx *c) { return ctx_at(m, c->suffix); }

static inline unsigned units_of(const pm_model *m, unsigned index) { return m->index_units[index]; }
static inline unsigned index_of(const pm_model *m, unsigned units) { return m->units_index[units - 1]; }

/* ---- The model (ppmd7_model.c) ---- */

/* Allocates the heap for mem bytes of model (MIN_MEM..MAX_MEM) and starts
 * the model of the given order (2..MAX_ORDER) empty. FZ7_E_MEM. */
fz7_status fz7_ppmd7_model_new(pm_model *m, unsigned order, uint32_t mem);
void fz7_ppmd7_model_free(pm_model *m);
/* Bytes fz7_ppmd7_model_new allocates for mem bytes of model. */
static inline uint64_t fz7_ppmd7_heap_bytes(uint32_t mem) { return (uint64_t)(4 - (mem & 3)) + mem + UNIT; }
/* Adds the symbol just coded (found) to the contexts that escaped, and
 * moves to the next context; restarts the model when its memory is full. */
void fz7_ppmd7_update_model(pm_model *m);
/* Halves the frequencies of min_ctx, the found state first. */
void fz7_ppmd7_rescale(pm_model *m);
/* The SEE estimator for an escape from min_ctx with `masked` symbols
 * already excluded; *esc_freq receives its escape frequency. */
pm_see *fz7_ppmd7_make_esc_freq(pm_model *m, unsigned masked, uint32_t *esc_freq);

/* Moves to the found state's successor context, or grows the model. */
static inline void fz7_ppmd7_next_context(pm_model *m)
{
    uint32_t c = successor(m->found);
    if (m->order_fall == 0 && c > m->text)
        m->min_ctx = m->max_ctx = ctx_at(m, c);
    else
        fz7_ppmd7_update_model(m);
}

/* ---- One symbol's model steps, the same in both directions ---- */

/* s, the first (most probable) state of a context of several, was coded. */
static inline void fz7_ppmd7_took_first(pm_model *m, pm_state *s)
{
    pm_ctx *mc = m->min_ctx;
    m->found = s;
    m->prev_success = 2u * s->freq > mc->summ_freq;
    m->run_length += m->prev_success;
    mc->summ_freq += 4;
    if ((s->freq += 4) > MAX_FREQ)
        fz7_ppmd7_rescale(m);
    fz7_ppmd7_next_context(m);
}

/* s, a later state of a context of several, was coded without escaping. */
static inline void fz7_ppmd7_took_other(pm_model *m, pm_state *s)
{
    m->found = s;
    s->freq += 4;
    m->min_ctx->summ_freq += 4;
    if (s[0].freq > s[-1].freq) {
        fz7_ppmd_swap(&s[0], &s[-1]);
        m->found = --s;
        if (s->freq > MAX_FREQ)
            fz7_ppmd7_rescale(m);
    }
    fz7_ppmd7_next_context(m);
}

/* s was coded in min_ctx after escapes (see: the estimator used). */
static inline void fz7_ppmd7_took_after_escape(pm_model *m, pm_state *s, pm_see *see)
{
    fz7_ppmd_see_update(see);
    m->found = s;
    m->min_ctx->summ_freq += 4;
    if ((s->freq += 4) > MAX_FREQ)
        fz7_ppmd7_rescale(m);
    m->run_length = m->init_rl;
    fz7_ppmd7_update_model(m);
}

/* The probability (of the state, 14 bits) of a binary context: min_ctx has
 * one state. Sets hi_bits_flag from the symbol before, as coding it does. */
static inline uint16_t *fz7_ppmd7_bin_prob(pm_model *m)
{
    pm_ctx *mc = m->min_ctx;
    pm_state *s = one_state(mc);
    m->hi_bits_flag = m->hb_flag[m->found->symbol];
    return &m->bin_summ[s->freq - 1u][m->prev_success + m->ns_bin_index[suffix_of(m, mc)->num_stats - 1u] +
                                     m->hi_bits_flag + 2 * m->hb_flag[s->symbol] +
                                     ((m->run_length >> 26) & 0x20)];
}

/* The binary context's state was coded (prob from fz7_ppmd7_bin_prob). */
static inline void fz7_ppmd7_bin_took(pm_model *m, uint16_t *prob)
{
    pm_state *s = one_state(m->min_ctx);
    *prob = fz7_ppmd_prob_hit(*prob);
    m->found = s;
    s->freq = (uint8_t)(s->freq + (s->freq < 128));
    m->prev_success = 1;
    m->run_length++;
    fz7_ppmd7_next_context(m);
}

/* The binary context escaped. */
static inline void fz7_ppmd7_bin_escaped(pm_model *m, uint16_t *prob)
{
    *prob = fz7_ppmd_prob_miss(*prob);
    m->init_esc = exp_escape[*prob >> 10];
    m->prev_success = 0;
}

#endif
