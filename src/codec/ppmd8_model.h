/* ppmd8_model.h - the PPMd variant I (rev. 1) model (Shkarin's PPMII,
 * var.I, as zip's method 98 uses it) that the decoder (ppmd8.c) and the
 * encoder (ppmd8_enc.c) share: contexts, states, the sub-allocator, the
 * update after each symbol and the two restore methods for a full memory,
 * all in ppmd8_model.c. Both directions walk the model identically; only
 * the range coder differs. Internal to codec/. */
#ifndef FZ7_PPMD8_MODEL_H
#define FZ7_PPMD8_MODEL_H

#include "codec/codec.h"
#include "codec/ppmd_common.h"
#include "fz7_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The carry-less range coder (Subbotin's): it renormalises while the top
 * byte of low is not yet settled, or the range fell below RC_BOT. */
#define PM8_RC_TOP (1u << 24)
#define PM8_RC_BOT (1u << 15)

/* Context flags, part of the SEE and binary context indexes. */
#define PM8_FLAG_RESCALED 0x04u     /* the frequencies were halved */
#define PM8_FLAG_HIGH 0x08u         /* a symbol >= 0x40 is in the context */
#define PM8_FLAG_PREV_HIGH 0x10u    /* the symbol before the context's was >= 0x40 */

/* A context. num_stats is its number of symbols minus one (255 for the
 * order-0 context); with one symbol, that state lives in place of
 * summ_freq and stats (pm8_one_state()). */
typedef struct {
    uint8_t num_stats, flags;
    uint16_t summ_freq;
    uint32_t stats, suffix;
} pm8_ctx;

/* A free block: stamp (over a context's first 4 bytes, which are never all
 * 0xFF in a used unit) marks it free, nu is its size in units. */
typedef struct {
    uint32_t stamp, next, nu;
} pm8_node;

typedef struct {
    uint8_t *base;
    uint32_t size, align;
    uint32_t text, units_start, lo_unit, hi_unit;   /* offsets into base */
    uint32_t glue_count;
    uint32_t free_list[NUM_INDEXES];
    uint32_t stamps[NUM_INDEXES];       /* blocks in each free list */

    pm8_ctx *min_ctx, *max_ctx;
    pm_state *found;
    unsigned order_fall, init_esc, prev_success, max_order, restore;
    /* Signed in the algorithm; kept unsigned so it wraps without UB. Its
     * bit 31 (negative) selects a binary context column. */
    uint32_t run_length, init_rl;

    uint8_t index_units[NUM_INDEXES];   /* units of each size class */
    uint8_t units_index[128];           /* size class holding n + 1 units */
    uint8_t ns_index[260];              /* SEE row and binary row by symbols */
    uint8_t ns_bin_index[256];          /* binary context column by suffix size */
    pm_see dummy_see;
    pm_see see[24][32];
    uint16_t bin_summ[25][64];
} pm8_model;

/* ---- Offsets and units ---- */

static inline void *pm8_at(const pm8_model *m, uint32_t off) { return m->base + off; }
static inline uint32_t pm8_off(const pm8_model *m, const void *p) { return (uint32_t)((const uint8_t *)p - m->base); }
static inline pm8_ctx *pm8_ctx_at(const pm8_model *m, uint32_t off) { return (pm8_ctx *)pm8_at(m, off); }
static inline pm_state *pm8_stats(const pm8_model *m, const pm8_ctx *c) { return (pm_state *)pm8_at(m, c->stats); }
static inline pm_state *pm8_one_state(pm8_ctx *c) { return (pm_state *)(void *)&c->summ_freq; }
static inline pm8_ctx *pm8_suffix(const pm8_model *m, const pm8_ctx *c) { return pm8_ctx_at(m, c->suffix); }
static inline unsigned pm8_high(unsigned symbol) { return symbol >= 0x40 ? PM8_FLAG_HIGH : 0; }

/* ---- The model (ppmd8_model.c) ---- */

/* Whether order, mem and restore are within the limits in codec.h. */
static inline bool fz7_ppmd8_params_ok(unsigned order, uint32_t mem, unsigned restore)
{
    return order >= FZ7_PPMD8_ORDER_MIN && order <= FZ7_PPMD8_ORDER_MAX && mem >= FZ7_PPMD8_MEM_MIN &&
           mem <= FZ7_PPMD8_MEM_MAX && restore <= FZ7_PPMD8_CUT_OFF;
}

/* Allocates the heap for mem bytes of model and starts the model of the
 * given order and restore method (fz7_ppmd8_params_ok) empty. FZ7_E_MEM. */
fz7_status fz7_ppmd8_model_new(pm8_model *m, unsigned order, uint32_t mem, unsigned restore);
void fz7_ppmd8_model_free(pm8_model *m);
/* Bytes fz7_ppmd8_model_new allocates for mem bytes of model. */
static inline uint64_t fz7_ppmd8_heap_bytes(uint32_t mem) { return (uint64_t)((4 - mem) & 3) + mem; }
/* Adds the symbol just coded (found) to the contexts that escaped, and
 * moves to the next context; restores the model when its memory is full. */
void fz7_ppmd8_update_model(pm8_model *m);
/* Halves the frequencies of min_ctx, the found state first. */
void fz7_ppmd8_rescale(pm8_model *m);
/* The SEE estimator for an escape from min_ctx, the context escaped from
 * before having masked + 1 symbols; *esc_freq receives its escape
 * frequency. */
pm_see *fz7_ppmd8_make_esc_freq(pm8_model *m, unsigned masked, uint32_t *esc_freq);

/* Moves to the found state's successor context, or grows the model. */
static inline void fz7_ppmd8_next_context(pm8_model *m)
{
    uint32_t c = successor(m->found);
    if (m->order_fall == 0 && c >= m->units_start)
        m->min_ctx = m->max_ctx = pm8_ctx_at(m, c);
    else
        fz7_ppmd8_update_model(m);
}

/* ---- One symbol's model steps, the same in both directions ---- */

/* s, the first (most probable) state of a context of several, was coded. */
static inline void fz7_ppmd8_took_first(pm8_model *m, pm_state *s)
{
    pm8_ctx *mc = m->min_ctx;
    m->found = s;
    m->prev_success = 2u * s->freq >= mc->summ_freq;
    m->run_length += m->prev_success;
    mc->summ_freq += 4;
    if ((s->freq += 4) > MAX_FREQ)
        fz7_ppmd8_rescale(m);
    fz7_ppmd8_next_context(m);
}

/* s, a later state of a context of several, was coded without escaping. */
static inline void fz7_ppmd8_took_other(pm8_model *m, pm_state *s)
{
    m->found = s;
    s->freq += 4;
    m->min_ctx->summ_freq += 4;
    if (s[0].freq > s[-1].freq) {
        fz7_ppmd_swap(&s[0], &s[-1]);
        m->found = --s;
        if (s->freq > MAX_FREQ)
            fz7_ppmd8_rescale(m);
    }
    fz7_ppmd8_next_context(m);
}

/* s was coded in min_ctx after escapes (see: the estimator used). */
static inline void fz7_ppmd8_took_after_escape(pm8_model *m, pm_state *s, pm_see *see)
{
    fz7_ppmd_see_update(see);
    m->found = s;
    m->min_ctx->summ_freq += 4;
    if ((s->freq += 4) > MAX_FREQ)
        fz7_ppmd8_rescale(m);
    m->run_length = m->init_rl;
    fz7_ppmd8_update_model(m);
}

/* The probability (of the state, 14 bits) of a binary context: min_ctx has
 * one state. */
static inline uint16_t *fz7_ppmd8_bin_prob(pm8_model *m)
{
    pm8_ctx *mc = m->min_ctx;
    return &m->bin_summ[m->ns_index[pm8_one_state(mc)->freq - 1u]]
                       [m->prev_success + m->ns_bin_index[pm8_suffix(m, mc)->num_stats] + mc->flags +
                        ((m->run_length >> 26) & 0x20)];
}

/* The binary context's state was coded (prob from fz7_ppmd8_bin_prob). */
static inline void fz7_ppmd8_bin_took(pm8_model *m, uint16_t *prob)
{
    pm_state *s = pm8_one_state(m->min_ctx);
    *prob = fz7_ppmd_prob_hit(*prob);
    m->found = s;
    s->freq = (uint8_t)(s->freq + (s->freq < 196));
    m->prev_success = 1;
    m->run_length++;
    fz7_ppmd8_next_context(m);
}

/* The binary context escaped. */
static inline void fz7_ppmd8_bin_escaped(pm8_model *m, uint16_t *prob)
{
    *prob = fz7_ppmd_prob_miss(*prob);
    m->init_esc = exp_escape[*prob >> 10];
    m->prev_success = 0;
}

#endif
