/* ppmd7.c - PPMd variant H decoder (Dmitry Shkarin's PPMII, var.H, 2001)
 * with the range coder 7-Zip uses for the 7z method 030401.
 *
 * The model must evolve exactly as the encoder's did, including when its
 * memory runs out and it restarts, so the sub-allocator (12-byte units,
 * 38 size classes, the free-block gluing pass) follows the reference
 * behaviour step by step. All model links are 32-bit offsets into one heap. */
#include "codec/codec.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define MAX_ORDER 64
#define MIN_MEM ((uint32_t)1 << 11)
#define MAX_MEM (0xFFFFFFFFu - 12 * 3)

#define UNIT 12u            /* bytes of one allocation unit (= one context) */
#define NUM_INDEXES 38      /* allocation size classes: 1..4, 6..12, 15..24, 28..128 units */
#define MAX_FREQ 124
#define INT_BITS 7
#define PERIOD_BITS 7
#define BIN_SCALE (1u << (INT_BITS + PERIOD_BITS))
#define RC_TOP (1u << 24)

/* A symbol of a context: its frequency and the context that follows it
 * (or, before that context exists, a position in the text area). */
typedef struct {
    uint8_t symbol, freq;
    uint16_t succ_lo, succ_hi;
} pm_state;

/* A context: with one symbol, that state lives in place of summ_freq and
 * stats (one_state()). */
typedef struct {
    uint16_t num_stats, summ_freq;
    uint32_t stats, suffix;
} pm_ctx;

/* Secondary escape estimation: an adaptive escape frequency. */
typedef struct {
    uint16_t summ;
    uint8_t shift, count;
} pm_see;

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

static const uint16_t init_bin_esc[8] = {0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051};
static const uint8_t exp_escape[16] = {25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2};

/* ---- Offsets and units ---- */

static inline void *at(const pm_model *m, uint32_t off) { return m->base + off; }
static inline uint32_t off_of(const pm_model *m, const void *p) { return (uint32_t)((const uint8_t *)p - m->base); }
static inline pm_ctx *ctx_at(const pm_model *m, uint32_t off) { return (pm_ctx *)at(m, off); }
static inline pm_state *stats_of(const pm_model *m, const pm_ctx *c) { return (pm_state *)at(m, c->stats); }
static inline pm_state *one_state(pm_ctx *c) { return (pm_state *)(void *)&c->summ_freq; }
static inline pm_ctx *suffix_of(const pm_model *m, const pm_ctx *c) { return ctx_at(m, c->suffix); }
static inline uint32_t successor(const pm_state *s) { return s->succ_lo | ((uint32_t)s->succ_hi << 16); }
static inline void set_successor(pm_state *s, uint32_t v)
{
    s->succ_lo = (uint16_t)v;
    s->succ_hi = (uint16_t)(v >> 16);
}

static inline unsigned units_of(const pm_model *m, unsigned index) { return m->index_units[index]; }
static inline unsigned index_of(const pm_model *m, unsigned units) { return m->units_index[units - 1]; }

/* Free lists are singly linked through the first 4 bytes of a block. */
static void free_push(pm_model *m, void *block, unsigned index)
{
    memcpy(block, &m->free_list[index], 4);
    m->free_list[index] = off_of(m, block);
}

static void *free_pop(pm_model *m, unsigned index)
{
    uint8_t *block = at(m, m->free_list[index]);
    memcpy(&m->free_list[index], block, 4);
    return block;
}

/* Gives back the tail of a block of class old_index that is now used as
 * class new_index. */
static void split_block(pm_model *m, void *block, unsigned old_index, unsigned new_index)
{
    unsigned rest = units_of(m, old_index) - units_of(m, new_index);
    uint8_t *tail = (uint8_t *)block + units_of(m, new_index) * UNIT;
    unsigned idx = index_of(m, rest);
    if (units_of(m, idx) != rest) {
        unsigned k = units_of(m, --idx);
        free_push(m, tail + k * UNIT, rest - k - 1);
    }
    free_push(m, tail, idx);
}

/* Merges adjacent free blocks and refills the free lists from them. The
 * unit after the heap (at align + size) serves as list head and as a used
 * sentinel; so does the gap between lo_unit and hi_unit. */
static void glue_free_blocks(pm_model *m)
{
    uint32_t head = m->align + m->size, n = head;
    m->glue_count = 255;

    for (unsigned i = 0; i < NUM_INDEXES; i++) {
        uint16_t nu = (uint16_t)units_of(m, i);
        uint32_t next = m->free_list[i];
        m->free_list[i] = 0;
        while (next != 0) {
            pm_node *node = at(m, next);
            node->next = n;
            ((pm_node *)at(m, n))->prev = next;
            n = next;
            memcpy(&next, node, 4);
            node->stamp = 0;
            node->nu = nu;
        }
    }
    pm_node *h = at(m, head);
    h->stamp = 1;
    h->next = n;
    ((pm_node *)at(m, n))->prev = head;
    if (m->lo_unit != m->hi_unit)
        ((pm_node *)at(m, m->lo_unit))->stamp = 1;

    while (n != head) {
        pm_node *node = at(m, n);
        uint32_t nu = node->nu;
        for (;;) {
            pm_node *after = (pm_node *)at(m, n + nu * UNIT);
            nu += after->nu;
            if (after->stamp != 0 || nu >= 0x10000)
                break;
            ((pm_node *)at(m, after->prev))->next = after->next;
            ((pm_node *)at(m, after->next))->prev = after->prev;
            node->nu = (uint16_t)nu;
        }
        n = node->next;
    }

    for (n = h->next; n != head;) {
        pm_node *node = at(m, n);
        uint32_t next = node->next;
        uint8_t *block = (uint8_t *)node;
        unsigned nu = node->nu;
        for (; nu > 128; nu -= 128, block += 128 * UNIT)
            free_push(m, block, NUM_INDEXES - 1);
        unsigned idx = index_of(m, nu);
        if (units_of(m, idx) != nu) {
            unsigned k = units_of(m, --idx);
            free_push(m, block + k * UNIT, nu - k - 1);
        }
        free_push(m, block, idx);
        n = next;
    }
}

static void *alloc_units_rare(pm_model *m, unsigned index)
{
    if (m->glue_count == 0) {
        glue_free_blocks(m);
        if (m->free_list[index] != 0)
            return free_pop(m, index);
    }
    unsigned i = index;
    do {
        if (++i == NUM_INDEXES) {
            uint32_t bytes = units_of(m, index) * UNIT;
            m->glue_count--;
            if (m->units_start - m->text > bytes) {
                m->units_start -= bytes;
                return at(m, m->units_start);
            }
            return NULL;
        }
    } while (m->free_list[i] == 0);
    void *block = free_pop(m, i);
    split_block(m, block, i, index);
    return block;
}

static void *alloc_units(pm_model *m, unsigned index)
{
    if (m->free_list[index] != 0)
        return free_pop(m, index);
    uint32_t bytes = units_of(m, index) * UNIT;
    if (bytes <= m->hi_unit - m->lo_unit) {
        void *block = at(m, m->lo_unit);
        m->lo_unit += bytes;
        return block;
    }
    return alloc_units_rare(m, index);
}

static pm_ctx *alloc_context(pm_model *m)
{
    if (m->hi_unit != m->lo_unit) {
        m->hi_unit -= UNIT;
        return ctx_at(m, m->hi_unit);
    }
    if (m->free_list[0] != 0)
        return free_pop(m, 0);
    return alloc_units_rare(m, 0);
}

/* Moves old_nu units of states to a block of new_nu units when that is a
 * different size class. */
static void *shrink_units(pm_model *m, void *old, unsigned old_nu, unsigned new_nu)
{
    unsigned i0 = index_of(m, old_nu), i1 = index_of(m, new_nu);
    if (i0 == i1)
        return old;
    if (m->free_list[i1] != 0) {
        void *block = free_pop(m, i1);
        memcpy(block, old, new_nu * UNIT);
        free_push(m, old, i0);
        return block;
    }
    split_block(m, old, i0, i1);
    return old;
}

/* ---- Model ---- */

static void tables_init(pm_model *m)
{
    unsigned k = 0;
    for (unsigned i = 0; i < NUM_INDEXES; i++) {
        unsigned step = i >= 12 ? 4 : (i >> 2) + 1;
        while (step--)
            m->units_index[k++] = (uint8_t)i;
        m->index_units[i] = (uint8_t)k;
    }
    m->ns_bin_index[0] = 0;
    m->ns_bin_index[1] = 2;
    memset(m->ns_bin_index + 2, 4, 9);
    memset(m->ns_bin_index + 11, 6, 256 - 11);
    unsigned row = 3, left = 1;
    for (unsigned i = 0; i < 256; i++) {
        if (i < 3) {
            m->ns_index[i] = (uint8_t)i;
            continue;
        }
        m->ns_index[i] = (uint8_t)row;
        if (--left == 0)
            left = ++row - 2;
    }
    memset(m->hb_flag, 0, 0x40);
    memset(m->hb_flag + 0x40, 8, 0x100 - 0x40);
}

/* Empties the model: order-0 context with all 256 symbols at frequency 1,
 * escape estimators at their initial values. */
static void restart_model(pm_model *m)
{
    memset(m->free_list, 0, sizeof m->free_list);
    m->text = m->align;
    m->hi_unit = m->text + m->size;
    m->lo_unit = m->units_start = m->hi_unit - m->size / 8 / UNIT * 7 * UNIT;
    m->glue_count = 0;

    m->order_fall = m->max_order;
    m->run_length = m->init_rl = 0u - (m->max_order < 12 ? m->max_order : 12) - 1;
    m->prev_success = 0;

    m->hi_unit -= UNIT;
    pm_ctx *root = ctx_at(m, m->hi_unit);
    m->min_ctx = m->max_ctx = root;
    root->suffix = 0;
    root->num_stats = 256;
    root->summ_freq = 256 + 1;
    pm_state *s = at(m, m->lo_unit);
    root->stats = m->lo_unit;
    m->found = s;
    m->lo_unit += 256 / 2 * UNIT;
    for (unsigned i = 0; i < 256; i++) {
        s[i].symbol = (uint8_t)i;
        s[i].freq = 1;
        set_successor(&s[i], 0);
    }

    for (unsigned i = 0; i < 128; i++)
        for (unsigned k = 0; k < 8; k++) {
            uint16_t v = (uint16_t)(BIN_SCALE - init_bin_esc[k] / (i + 2));
            for (unsigned j = 0; j < 64; j += 8)
                m->bin_summ[i][k + j] = v;
        }
    for (unsigned i = 0; i < 25; i++)
        for (unsigned k = 0; k < 16; k++) {
            m->see[i][k].shift = PERIOD_BITS - 4;
            m->see[i][k].summ = (uint16_t)((5 * i + 10) << m->see[i][k].shift);
            m->see[i][k].count = 4;
        }
}

/* Creates the chain of one-symbol contexts for the symbol just coded, from
 * the deepest suffix that already has one up to min_ctx; skip: the found
 * state itself already points where it should. NULL when memory ran out. */
static pm_ctx *create_successors(pm_model *m, bool skip)
{
    pm_ctx *c = m->min_ctx;
    uint32_t up_branch = successor(m->found);
    pm_state *chain[MAX_ORDER];
    unsigned n = 0;
    if (!skip)
        chain[n++] = m->found;
    while (c->suffix) {
        c = suffix_of(m, c);
        pm_state *s;
        if (c->num_stats != 1) {
            for (s = stats_of(m, c); s->symbol != m->found->symbol; s++)
                ;
        } else {
            s = one_state(c);
        }
        uint32_t succ = successor(s);
        if (succ != up_branch) {
            c = ctx_at(m, succ);
            if (n == 0)
                return c;
            break;
        }
        chain[n++] = s;
    }

    pm_state up;
    up.symbol = *(const uint8_t *)at(m, up_branch);
    set_successor(&up, up_branch + 1);
    if (c->num_stats == 1) {
        up.freq = one_state(c)->freq;
    } else {
        pm_state *s;
        for (s = stats_of(m, c); s->symbol != up.symbol; s++)
            ;
        uint32_t cf = s->freq - 1u, s0 = c->summ_freq - c->num_stats - cf;
        up.freq = (uint8_t)(1 + (2 * cf <= s0 ? (5 * cf > s0) : s0 ? (2 * cf + 3 * s0 - 1) / (2 * s0) : 0));
    }

    while (n != 0) {
        pm_ctx *child = alloc_context(m);
        if (!child)
            return NULL;
        child->num_stats = 1;
        *one_state(child) = up;
        child->suffix = off_of(m, c);
        set_successor(chain[--n], off_of(m, child));
        c = child;
    }
    return c;
}

static void swap_states(pm_state *a, pm_state *b)
{
    pm_state t = *a;
    *a = *b;
    *b = t;
}

/* Adds the symbol just coded to the contexts between max_ctx and min_ctx
 * (the ones that escaped), and moves to the next context. */
static void update_model(pm_model *m)
{
    pm_state *fs = m->found;
    uint32_t f_succ = successor(fs), succ;

    if (fs->freq < MAX_FREQ / 4 && m->min_ctx->suffix != 0) {
        pm_ctx *c = suffix_of(m, m->min_ctx);
        if (c->num_stats == 1) {
            pm_state *s = one_state(c);
            if (s->freq < 32)
                s->freq++;
        } else {
            pm_state *s = stats_of(m, c);
            if (s->symbol != fs->symbol) {
                do
                    s++;
                while (s->symbol != fs->symbol);
                if (s[0].freq >= s[-1].freq) {
                    swap_states(&s[0], &s[-1]);
                    s--;
                }
            }
            if (s->freq < MAX_FREQ - 9) {
                s->freq += 2;
                c->summ_freq += 2;
            }
        }
    }

    if (m->order_fall == 0) {
        m->min_ctx = m->max_ctx = create_successors(m, true);
        if (!m->min_ctx) {
            restart_model(m);
            return;
        }
        set_successor(m->found, off_of(m, m->min_ctx));
        return;
    }

    m->base[m->text++] = fs->symbol;
    succ = m->text;
    if (m->text >= m->units_start) {
        restart_model(m);
        return;
    }

    if (f_succ) {
        if (f_succ <= succ) {
            pm_ctx *cs = create_successors(m, false);
            if (!cs) {
                restart_model(m);
                return;
            }
            f_succ = off_of(m, cs);
        }
        if (--m->order_fall == 0) {
            succ = f_succ;
            m->text -= m->max_ctx != m->min_ctx;
        }
    } else {
        set_successor(fs, succ);
        f_succ = off_of(m, m->min_ctx);
    }

    unsigned ns = m->min_ctx->num_stats;
    uint32_t s0 = m->min_ctx->summ_freq - ns - (fs->freq - 1u);

    for (pm_ctx *c = m->max_ctx; c != m->min_ctx; c = suffix_of(m, c)) {
        unsigned ns1 = c->num_stats;
        uint32_t cf, sf;
        if (ns1 != 1) {
            if ((ns1 & 1) == 0) {
                /* The states fill their units: grow by one unit. */
                unsigned old_nu = ns1 >> 1, i = index_of(m, old_nu);
                if (i != index_of(m, old_nu + 1)) {
                    void *block = alloc_units(m, i + 1);
                    if (!block) {
                        restart_model(m);
                        return;
                    }
                    void *old = stats_of(m, c);
                    memcpy(block, old, old_nu * UNIT);
                    free_push(m, old, i);
                    c->stats = off_of(m, block);
                }
            }
            c->summ_freq = (uint16_t)(c->summ_freq + (2 * ns1 < ns) +
                                      2 * ((4 * ns1 <= ns) & (c->summ_freq <= 8 * ns1)));
        } else {
            pm_state *s = alloc_units(m, 0);
            if (!s) {
                restart_model(m);
                return;
            }
            *s = *one_state(c);
            c->stats = off_of(m, s);
            if (s->freq < MAX_FREQ / 4 - 1)
                s->freq <<= 1;
            else
                s->freq = MAX_FREQ - 4;
            c->summ_freq = (uint16_t)(s->freq + m->init_esc + (ns > 3));
        }
        cf = 2 * (uint32_t)fs->freq * (c->summ_freq + 6u);
        sf = s0 + c->summ_freq;
        if (cf < 6 * sf) {
            cf = 1 + (cf > sf) + (cf >= 4 * sf);
            c->summ_freq += 3;
        } else {
            cf = 4 + (cf >= 9 * sf) + (cf >= 12 * sf) + (cf >= 15 * sf);
            c->summ_freq = (uint16_t)(c->summ_freq + cf);
        }
        pm_state *s = stats_of(m, c) + ns1;
        set_successor(s, succ);
        s->symbol = fs->symbol;
        s->freq = (uint8_t)cf;
        c->num_stats = (uint16_t)(ns1 + 1);
    }
    m->max_ctx = m->min_ctx = ctx_at(m, f_succ);
}

/* Halves the frequencies of min_ctx (the found state first), dropping
 * symbols that reach 0. */
static void rescale(pm_model *m)
{
    pm_ctx *mc = m->min_ctx;
    pm_state *stats = stats_of(m, mc), *s = m->found;
    {
        pm_state t = *s;
        for (; s != stats; s--)
            s[0] = s[-1];
        *s = t;
    }
    unsigned esc = mc->summ_freq - s->freq;
    s->freq += 4;
    unsigned adder = m->order_fall != 0;
    s->freq = (uint8_t)((s->freq + adder) >> 1);
    unsigned sum = s->freq;
    unsigned i = mc->num_stats - 1u;
    do {
        esc -= (++s)->freq;
        s->freq = (uint8_t)((s->freq + adder) >> 1);
        sum += s->freq;
        if (s[0].freq > s[-1].freq) {
            /* Keep the list sorted by frequency, highest first. */
            pm_state *d = s, t = *d;
            do
                d[0] = d[-1];
            while (--d != stats && t.freq > d[-1].freq);
            *d = t;
        }
    } while (--i);

    if (s->freq == 0) {
        unsigned num_stats = mc->num_stats;
        do
            i++;
        while ((--s)->freq == 0);
        esc += i;
        mc->num_stats = (uint16_t)(mc->num_stats - i);
        if (mc->num_stats == 1) {
            pm_state t = *stats;
            do {
                t.freq = (uint8_t)(t.freq - (t.freq >> 1));
                esc >>= 1;
            } while (esc > 1);
            free_push(m, stats, index_of(m, (num_stats + 1) >> 1));
            *(m->found = one_state(mc)) = t;
            return;
        }
        unsigned n0 = (num_stats + 1) >> 1, n1 = (mc->num_stats + 1u) >> 1;
        if (n0 != n1)
            mc->stats = off_of(m, shrink_units(m, stats, n0, n1));
    }
    mc->summ_freq = (uint16_t)(sum + esc - (esc >> 1));
    m->found = stats_of(m, mc);
}

/* The SEE estimator for an escape from min_ctx with `masked` symbols
 * already excluded; *esc_freq receives its escape frequency. */
static pm_see *make_esc_freq(pm_model *m, unsigned masked, uint32_t *esc_freq)
{
    pm_ctx *mc = m->min_ctx;
    unsigned non_masked = mc->num_stats - masked;
    if (mc->num_stats == 256) {
        *esc_freq = 1;
        return &m->dummy_see;
    }
    pm_see *see = m->see[m->ns_index[non_masked - 1]] +
                  (non_masked < (unsigned)suffix_of(m, mc)->num_stats - mc->num_stats) +
                  2 * (mc->summ_freq < 11 * mc->num_stats) + 4 * (masked > non_masked) + m->hi_bits_flag;
    unsigned r = see->summ >> see->shift;
    see->summ = (uint16_t)(see->summ - r);
    *esc_freq = r + (r == 0);
    return see;
}

static void see_update(pm_see *see)
{
    if (see->shift < PERIOD_BITS && --see->count == 0) {
        see->summ = (uint16_t)(see->summ << 1);
        see->count = (uint8_t)(3 << see->shift++);
    }
}

/* Moves to the found state's successor context, or grows the model. */
static void next_context(pm_model *m)
{
    uint32_t c = successor(m->found);
    if (m->order_fall == 0 && c > m->text)
        m->min_ctx = m->max_ctx = ctx_at(m, c);
    else
        update_model(m);
}

/* ---- The 7z range decoder ---- */

#define IN_SIZE ((size_t)1 << 16)

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    uint64_t left;          /* bytes still to decode */
    uint32_t range, code;
    bool started;
    bool overrun;           /* read past the end of src */
    bool end_mark;          /* the end marker was decoded */
    fz7_status err;
    size_t in_pos, in_len;
    pm_model m;
    uint8_t in[IN_SIZE];
} ppmd_istream;

static fz7_status in_byte(ppmd_istream *z, uint8_t *v)
{
    if (z->in_pos == z->in_len) {
        size_t got = 0;
        fz7_status st = z->overrun ? FZ7_OK : z->src->read(z->src, z->in, IN_SIZE, &got);
        if (st != FZ7_OK)
            return st;
        z->in_pos = 0;
        z->in_len = got;
        if (got == 0) {
            z->overrun = true;
            *v = 0;
            return FZ7_OK;
        }
    }
    *v = z->in[z->in_pos++];
    return FZ7_OK;
}

static fz7_status rc_normalize(ppmd_istream *z)
{
    while (z->range < RC_TOP) {
        uint8_t v;
        fz7_status st = in_byte(z, &v);
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
            m->found = s;
            *sym = s->symbol;
            /* The most probable symbol. */
            m->prev_success = 2u * s->freq > mc->summ_freq;
            m->run_length += m->prev_success;
            mc->summ_freq += 4;
            if ((s->freq += 4) > MAX_FREQ)
                rescale(m);
            next_context(m);
            return FZ7_OK;
        }
        m->prev_success = 0;
        for (unsigned i = mc->num_stats - 1u; i > 0; i--) {
            if ((hi += (++s)->freq) > count) {
                if ((st = rc_decode(z, hi - s->freq, s->freq)))
                    return st;
                m->found = s;
                *sym = s->symbol;
                s->freq += 4;
                mc->summ_freq += 4;
                if (s[0].freq > s[-1].freq) {
                    swap_states(&s[0], &s[-1]);
                    m->found = --s;
                    if (s->freq > MAX_FREQ)
                        rescale(m);
                }
                next_context(m);
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
        pm_state *s = one_state(mc);
        m->hi_bits_flag = m->hb_flag[m->found->symbol];
        uint16_t *prob = &m->bin_summ[s->freq - 1u]
                                     [m->prev_success + m->ns_bin_index[suffix_of(m, mc)->num_stats - 1u] +
                                      m->hi_bits_flag + 2 * m->hb_flag[s->symbol] +
                                      ((m->run_length >> 26) & 0x20)];
        uint32_t bound = (z->range >> 14) * *prob;
        unsigned mean = (*prob + (1u << (PERIOD_BITS - 2))) >> PERIOD_BITS;
        if (z->code < bound) {
            z->range = bound;
            if ((st = rc_normalize(z)))
                return st;
            *prob = (uint16_t)(*prob + (1u << INT_BITS) - mean);
            m->found = s;
            *sym = s->symbol;
            s->freq = (uint8_t)(s->freq + (s->freq < 128));
            m->prev_success = 1;
            m->run_length++;
            next_context(m);
            return FZ7_OK;
        }
        z->code -= bound;
        z->range -= bound;
        if ((st = rc_normalize(z)))
            return st;
        *prob = (uint16_t)(*prob - mean);
        m->init_esc = exp_escape[*prob >> 10];
        memset(mask, -1, sizeof mask);
        mask[s->symbol] = 0;
        m->prev_success = 0;
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
        pm_see *see = make_esc_freq(m, masked, &esc);
        uint32_t total = esc + hi, count = rc_threshold(z, total);
        if (count < hi) {
            pm_state **c = cand;
            uint32_t acc = 0;
            while ((acc += (*c)->freq) <= count)
                c++;
            s = *c;
            if ((st = rc_decode(z, acc - s->freq, s->freq)))
                return st;
            see_update(see);
            m->found = s;
            *sym = s->symbol;
            mc->summ_freq += 4;
            if ((s->freq += 4) > MAX_FREQ)
                rescale(m);
            m->run_length = m->init_rl;
            update_model(m);
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
        if ((st = in_byte(z, &v)))
            return st;
        if (v != 0 || z->overrun)
            return z->overrun ? FZ7_E_TRUNCATED : FZ7_E_DATA;
        z->range = 0xFFFFFFFFu;
        z->code = 0;
        for (int i = 0; i < 4; i++) {
            if ((st = in_byte(z, &v)))
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
        if (z->overrun)
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
        if (!z->end_mark || z->code != 0 || z->overrun)
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

/* The model is read at random places: on Linux a large heap goes on 2 MiB
 * pages when the kernel allows (far fewer TLB misses). */
static void *heap_alloc(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (n >= huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, (n + huge - 1) & ~(huge - 1)) != 0)
            return NULL;
        madvise(p, (n + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(n);
}

static void ppmd_destroy(fz7_istream *s)
{
    ppmd_istream *z = (ppmd_istream *)s;
    free(z->m.base);
    free(z);
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
    uint32_t align = 4 - (mem & 3);
    /* The heap plus the unit after it that gluing uses as a list head. */
    uint64_t heap = (uint64_t)align + mem + UNIT;
    if (mem_limit == 0)
        mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    if (heap + sizeof(ppmd_istream) > mem_limit)
        return FZ7_E_MEMLIMIT;
    if (heap > SIZE_MAX)
        return FZ7_E_MEM;
    ppmd_istream *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    z->m.base = heap_alloc((size_t)heap);
    if (!z->m.base) {
        free(z);
        return FZ7_E_MEM;
    }
    z->base.read = ppmd_read;
    z->base.destroy = ppmd_destroy;
    z->src = src;
    z->left = out_size;
    z->m.size = mem;
    z->m.align = align;
    z->m.max_order = order;
    tables_init(&z->m);
    restart_model(&z->m);
    z->m.dummy_see.shift = PERIOD_BITS;
    z->m.dummy_see.summ = 0;
    z->m.dummy_see.count = 64;
    *out = &z->base;
    return FZ7_OK;
}
