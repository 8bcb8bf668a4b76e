/* ppmd_common.h - what the PPMd variant H codec (ppmd7*) and the variant
 * I codec (ppmd8*) share to the letter: the state and SEE records, the
 * binary contexts' probability steps, the sub-allocator's size classes,
 * the model heap, and the byte buffers between the range coders and their
 * streams. Internal to codec/. */
#ifndef FZ7_PPMD_COMMON_H
#define FZ7_PPMD_COMMON_H

#include "fz7_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNIT 12u            /* bytes of one allocation unit (= one context) */
#define NUM_INDEXES 38      /* allocation size classes: 1..4, 6..12, 15..24, 28..128 units */
#define MAX_FREQ 124
#define INT_BITS 7
#define PERIOD_BITS 7
#define BIN_SCALE (1u << (INT_BITS + PERIOD_BITS))

/* A symbol of a context: its frequency and the context that follows it
 * (or, before that context exists, a position in the text area). */
typedef struct {
    uint8_t symbol, freq;
    uint16_t succ_lo, succ_hi;
} pm_state;

/* Secondary escape estimation: an adaptive escape frequency. */
typedef struct {
    uint16_t summ;
    uint8_t shift, count;
} pm_see;

/* The binary contexts' initial escape estimate, by probability. */
static const uint8_t exp_escape[16] = {25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2};
/* The binary contexts' initial escape probabilities, by column. */
static const uint16_t init_bin_esc[8] = {0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051};

static inline uint32_t successor(const pm_state *s) { return s->succ_lo | ((uint32_t)s->succ_hi << 16); }
static inline void set_successor(pm_state *s, uint32_t v)
{
    s->succ_lo = (uint16_t)v;
    s->succ_hi = (uint16_t)(v >> 16);
}

static inline void fz7_ppmd_swap(pm_state *a, pm_state *b)
{
    pm_state t = *a;
    *a = *b;
    *b = t;
}

/* After a symbol was coded with see's estimate: it adapts more slowly as
 * it is used. */
static inline void fz7_ppmd_see_update(pm_see *see)
{
    if (see->shift < PERIOD_BITS && --see->count == 0) {
        see->summ = (uint16_t)(see->summ << 1);
        see->count = (uint8_t)(3 << see->shift++);
    }
}

/* A binary context's probability (14 bits) of its symbol, after the
 * symbol (hit) or an escape (miss). */
static inline uint16_t fz7_ppmd_prob_hit(uint16_t p)
{
    return (uint16_t)(p + (1u << INT_BITS) - ((p + (1u << (PERIOD_BITS - 2))) >> PERIOD_BITS));
}
static inline uint16_t fz7_ppmd_prob_miss(uint16_t p)
{
    return (uint16_t)(p - ((p + (1u << (PERIOD_BITS - 2))) >> PERIOD_BITS));
}

/* The size classes: index_units[i] units in class i, units_index[n - 1]
 * the smallest class that holds n units (n = 1..128). */
void fz7_ppmd_units_tables(uint8_t index_units[NUM_INDEXES], uint8_t units_index[128]);

/* n bytes for a model's heap (free() it); NULL when out of memory. */
void *fz7_ppmd_heap_alloc(size_t n);

/* ---- Byte buffers of the range coders ---- */

#define FZ7_PPMD_BUF_SIZE ((size_t)1 << 16)

/* The range decoder's input: src read in 64 KiB pieces. Past the end of
 * src it reads zeros and sets overrun (the caller decides: truncated). */
typedef struct {
    fz7_istream *src;
    size_t pos, len;
    bool overrun;
    uint8_t buf[FZ7_PPMD_BUF_SIZE];
} fz7_ppmd_in;

/* The next byte when the buffer is empty; src's errors. */
fz7_status fz7_ppmd_in_refill(fz7_ppmd_in *in, uint8_t *v);

static inline fz7_status fz7_ppmd_in_byte(fz7_ppmd_in *in, uint8_t *v)
{
    if (in->pos == in->len)
        return fz7_ppmd_in_refill(in, v);
    *v = in->buf[in->pos++];
    return FZ7_OK;
}

/* The range encoder's output: pushed to dst in 64 KiB writes; err keeps
 * dst's first error (bytes_out counts on regardless). */
typedef struct {
    fz7_ostream *dst;
    uint64_t bytes_out;     /* pushed to dst so far */
    fz7_status err;
    size_t len;
    uint8_t buf[FZ7_PPMD_BUF_SIZE];
} fz7_ppmd_out;

/* Pushes the full buffer to dst. */
void fz7_ppmd_out_push(fz7_ppmd_out *out);

static inline void fz7_ppmd_out_byte(fz7_ppmd_out *out, uint8_t v)
{
    out->buf[out->len++] = v;
    if (out->len == FZ7_PPMD_BUF_SIZE)
        fz7_ppmd_out_push(out);
}

/* Pushes what the buffer holds (at the end); returns err. */
fz7_status fz7_ppmd_out_flush(fz7_ppmd_out *out);

#endif
