/* ppmd8_model.c - the PPMd var.I model: the sub-allocator (12-byte units,
 * 38 size classes; free blocks stamped so that gluing and the text area's
 * growth can find them in memory) and the model update, which must evolve
 * exactly as the other side's did, including what happens when memory runs
 * out: a restart, or cutting the model down to the contexts in use. All
 * model links are 32-bit offsets into one heap. */
#include "codec/ppmd8_model.h"

#include <stdlib.h>

#define EMPTY_STAMP 0xFFFFFFFFu

static inline unsigned units_of(const pm8_model *m, unsigned index) { return m->index_units[index]; }
static inline unsigned index_of(const pm8_model *m, unsigned units) { return m->units_index[units - 1]; }
static inline pm8_node *node_at(const pm8_model *m, uint32_t off) { return (pm8_node *)pm8_at(m, off); }

/* ---- Sub-allocator ---- */

static void node_insert(pm8_model *m, void *block, unsigned index)
{
    pm8_node *n = block;
    n->stamp = EMPTY_STAMP;
    n->next = m->free_list[index];
    n->nu = units_of(m, index);
    m->free_list[index] = pm8_off(m, block);
    m->stamps[index]++;
}

static void *node_remove(pm8_model *m, unsigned index)
{
    pm8_node *n = node_at(m, m->free_list[index]);
    m->free_list[index] = n->next;
    m->stamps[index]--;
    return n;
}

/* Frees nu units (1..128) at block: as the largest class that fits, and a
 * block of 1..3 units for the rest. */
static void free_tail(pm8_model *m, uint8_t *block, unsigned nu)
{
    unsigned idx = index_of(m, nu);
    if (units_of(m, idx) != nu) {
        unsigned k = units_of(m, --idx);
        node_insert(m, block + k * UNIT, nu - k - 1);
    }
    node_insert(m, block, idx);
}

/* Gives back the tail of a block of class old_index that is now used as
 * class new_index. */
static void split_block(pm8_model *m, void *block, unsigned old_index, unsigned new_index)
{
    free_tail(m, (uint8_t *)block + units_of(m, new_index) * UNIT,
              units_of(m, old_index) - units_of(m, new_index));
}

/* Merges each free block with the free blocks that follow it in memory and
 * refills the free lists from the results. A stamp of 0 at lo_unit stops a
 * merge at the unallocated gap; the order-0 context, always in the last
 * unit, stops it at the end. */
static void glue_free_blocks(pm8_model *m)
{
    uint32_t head = 0, *link = &head;
    m->glue_count = 1u << 13;
    memset(m->stamps, 0, sizeof m->stamps);
    if (m->lo_unit != m->hi_unit)
        node_at(m, m->lo_unit)->stamp = 0;

    /* One chain of all blocks, list 0 first; a block merged into one
     * before it in memory keeps nu 0 and is skipped below. */
    for (unsigned i = 0; i < NUM_INDEXES; i++) {
        uint32_t next = m->free_list[i];
        m->free_list[i] = 0;
        while (next != 0) {
            pm8_node *node = node_at(m, next);
            uint32_t nu = node->nu;
            *link = next;
            next = node->next;
            if (nu == 0)
                continue;
            link = &node->next;
            for (pm8_node *after; (after = (pm8_node *)((uint8_t *)node + nu * UNIT))->stamp == EMPTY_STAMP;) {
                nu += after->nu;
                after->nu = 0;
                node->nu = nu;
            }
        }
    }
    *link = 0;

    for (uint32_t n = head; n != 0;) {
        pm8_node *node = node_at(m, n);
        uint8_t *block = (uint8_t *)node;
        uint32_t nu = node->nu;
        n = node->next;
        if (nu == 0)
            continue;
        for (; nu > 128; nu -= 128, block += 128 * UNIT)
            node_insert(m, block, NUM_INDEXES - 1);
        free_tail(m, block, nu);
    }
}

static void *alloc_units_rare(pm8_model *m, unsigned index)
{
    if (m->glue_count == 0) {
        glue_free_blocks(m);
        if (m->free_list[index] != 0)
            return node_remove(m, index);
    }
    unsigned i = index;
    do {
        if (++i == NUM_INDEXES) {
            uint32_t bytes = units_of(m, index) * UNIT;
            m->glue_count--;
            if (m->units_start - m->text > bytes) {
                m->units_start -= bytes;
                return pm8_at(m, m->units_start);
            }
            return NULL;
        }
    } while (m->free_list[i] == 0);
    void *block = node_remove(m, i);
    split_block(m, block, i, index);
    return block;
}

static void *alloc_units(pm8_model *m, unsigned index)
{
    if (m->free_list[index] != 0)
        return node_remove(m, index);
    uint32_t bytes = units_of(m, index) * UNIT;
    if (m->hi_unit - m->lo_unit >= bytes) {
        void *block = pm8_at(m, m->lo_unit);
        m->lo_unit += bytes;
        return block;
    }
    return alloc_units_rare(m, index);
}

static pm8_ctx *alloc_context(pm8_model *m)
{
    if (m->hi_unit != m->lo_unit) {
        m->hi_unit -= UNIT;
        return pm8_ctx_at(m, m->hi_unit);
    }
    if (m->free_list[0] != 0)
        return node_remove(m, 0);
    return alloc_units_rare(m, 0);
}

/* Moves old_nu units of states to a block of new_nu units when that is a
 * different size class. */
static void *shrink_units(pm8_model *m, void *old, unsigned old_nu, unsigned new_nu)
{
    unsigned i0 = index_of(m, old_nu), i1 = index_of(m, new_nu);
    if (i0 == i1)
        return old;
    if (m->free_list[i1] != 0) {
        void *block = node_remove(m, i1);
        memcpy(block, old, new_nu * UNIT);
        node_insert(m, old, i0);
        return block;
    }
    split_block(m, old, i0, i1);
    return old;
}

static void free_units(pm8_model *m, void *block, unsigned nu)
{
    node_insert(m, block, index_of(m, nu));
}

/* Frees one unit; the lowest unit goes back to the text area instead. */
static void special_free_unit(pm8_model *m, void *unit)
{
    if (pm8_off(m, unit) != m->units_start)
        node_insert(m, unit, 0);
    else
        m->units_start += UNIT;
}

/* Gives the free blocks at the bottom of the units area to the text area:
 * they are unstamped, counted by class, then taken out of their lists. */
static void expand_text_area(pm8_model *m)
{
    uint32_t count[NUM_INDEXES] = {0};
    if (m->lo_unit != m->hi_unit)
        node_at(m, m->lo_unit)->stamp = 0;
    pm8_node *node = node_at(m, m->units_start);
    while (node->stamp == EMPTY_STAMP) {
        uint32_t nu = node->nu;
        node->stamp = 0;
        count[index_of(m, nu)]++;
        node = (pm8_node *)((uint8_t *)node + nu * UNIT);
    }
    m->units_start = pm8_off(m, node);

    for (unsigned i = 0; i < NUM_INDEXES; i++) {
        uint32_t left = count[i];
        if (left == 0)
            continue;
        m->stamps[i] -= left;
        uint32_t *link = &m->free_list[i];
        for (uint32_t n = *link;;) {
            pm8_node *nd = node_at(m, n);
            n = nd->next;
            if (nd->stamp != 0) {
                link = &nd->next;
                continue;
            }
            *link = n;
            if (--left == 0)
                break;
        }
    }
}

/* Bytes in use by contexts and states. */
static uint32_t used_memory(const pm8_model *m)
{
    uint32_t units = 0;
    for (unsigned i = 0; i < NUM_INDEXES; i++)
        units += m->stamps[i] * units_of(m, i);
    return m->size - (m->hi_unit - m->lo_unit) - (m->units_start - m->text) - units * UNIT;
}

/* ---- Model ---- */

static void tables_init(pm8_model *m)
{
    fz7_ppmd_units_tables(m->index_units, m->units_index);
    m->ns_bin_index[0] = 0;
    m->ns_bin_index[1] = 2;
    memset(m->ns_bin_index + 2, 4, 9);
    memset(m->ns_bin_index + 11, 6, 256 - 11);
    unsigned row = 5, left = 1;
    for (unsigned i = 0; i < 260; i++) {
        if (i < 5) {
            m->ns_index[i] = (uint8_t)i;
            continue;
        }
        m->ns_index[i] = (uint8_t)row;
        if (--left == 0)
            left = ++row - 4;
    }
}

/* Empties the model: order-0 context with all 256 symbols at frequency 1,
 * escape estimators at their initial values. */
static void restart_model(pm8_model *m)
{
    memset(m->free_list, 0, sizeof m->free_list);
    memset(m->stamps, 0, sizeof m->stamps);
    m->text = m->align;
    m->hi_unit = m->text + m->size;
    m->lo_unit = m->units_start = m->hi_unit - m->size / 8 / UNIT * 7 * UNIT;
    m->glue_count = 0;

    m->order_fall = m->max_order;
    m->run_length = m->init_rl = 0u - (m->max_order < 12 ? m->max_order : 12) - 1;
    m->prev_success = 0;

    m->hi_unit -= UNIT;
    pm8_ctx *root = pm8_ctx_at(m, m->hi_unit);
    pm_state *s = pm8_at(m, m->lo_unit);
    m->min_ctx = m->max_ctx = root;
    m->found = s;
    root->num_stats = 255;
    root->flags = 0;
    root->summ_freq = 256 + 1;
    root->stats = m->lo_unit;
    root->suffix = 0;
    m->lo_unit += 256 / 2 * UNIT;
    for (unsigned i = 0; i < 256; i++) {
        s[i].symbol = (uint8_t)i;
        s[i].freq = 1;
        set_successor(&s[i], 0);
    }

    /* Each row starts from the escape estimate of its smallest size
     * (number of symbols, or binary frequency) + 1. */
    for (unsigned row = 0, n = 0; row < 25; row++) {
        while (m->ns_index[n] == row)
            n++;
        for (unsigned k = 0; k < 8; k++) {
            uint16_t v = (uint16_t)(BIN_SCALE - init_bin_esc[k] / (n + 1));
            for (unsigned j = 0; j < 64; j += 8)
                m->bin_summ[row][k + j] = v;
        }
    }
    for (unsigned row = 0, n = 0; row < 24; row++) {
        while (m->ns_index[n + 3] == row + 3)
            n++;
        for (unsigned k = 0; k < 32; k++) {
            m->see[row][k].shift = PERIOD_BITS - 4;
            m->see[row][k].summ = (uint16_t)((2 * n + 5) << (PERIOD_BITS - 4));
            m->see[row][k].count = 7;
        }
    }
    m->dummy_see.shift = PERIOD_BITS;
    m->dummy_see.summ = 0;
    m->dummy_see.count = 64;
}

/* Makes c a binary context of its first state (stats), the frequency cut
 * to a binary context's scale, and frees the states' block of nu units
 * (special: a single unit, which special_free_unit may give back to the
 * text area, as restore_model does). */
static void to_binary(pm8_model *m, pm8_ctx *c, pm_state *stats, unsigned nu, bool special)
{
    pm_state *one = pm8_one_state(c);
    c->flags = (uint8_t)((c->flags & PM8_FLAG_PREV_HIGH) + pm8_high(stats->symbol));
    one->symbol = stats->symbol;
    one->freq = (uint8_t)((stats->freq + 11u) >> 3);
    one->succ_lo = stats->succ_lo;
    one->succ_hi = stats->succ_hi;
    if (special)
        special_free_unit(m, stats);
    else
        free_units(m, stats, nu);
}

/* After symbols were dropped from c (it held old_nu units of states):
 * moves its states to fewer units if they fit, divides the frequencies by
 * 2^scale (rounding up), and sets the escape frequency and flags anew. */
static void refresh(pm8_model *m, pm8_ctx *c, unsigned old_nu, unsigned scale)
{
    unsigned i = c->num_stats;
    pm_state *s = shrink_units(m, pm8_stats(m, c), old_nu, (i + 2) >> 1);
    c->stats = pm8_off(m, s);
    /* A sum this large would let the range coder's total pass its range
     * (the fix of PPMd var.I rev. 2, which 7-Zip applies always). */
    scale |= c->summ_freq >= 1u << 15;

    unsigned high = pm8_high(s->symbol);
    unsigned esc = c->summ_freq - s->freq;
    unsigned sum = (s->freq + scale) >> scale;
    s->freq = (uint8_t)sum;
    do {
        unsigned freq = (++s)->freq;
        esc -= freq;
        freq = (freq + scale) >> scale;
        sum += freq;
        s->freq = (uint8_t)freq;
        high |= pm8_high(s->symbol);
    } while (--i);
    c->summ_freq = (uint16_t)(sum + ((esc + scale) >> scale));
    c->flags = (uint8_t)((c->flags & (PM8_FLAG_PREV_HIGH + PM8_FLAG_RESCALED * scale)) + high);
}

/* Prunes the tree under ctx (of the given order) after a full memory:
 * successors into the text area (whose contents are gone) and those past
 * the maximal order become null; states without a successor leave every
 * context but the order-0 one, and contexts left without one go. A
 * context's states near the bottom of the units area move up into a free
 * block, so that the text area can grow. Returns ctx, or 0 when it went. */
static uint32_t cut_off(pm8_model *m, pm8_ctx *ctx, unsigned order)
{
    int ns = ctx->num_stats;
    if (ns == 0) {
        pm_state *s = pm8_one_state(ctx);
        uint32_t succ = successor(s);
        if (succ >= m->units_start) {
            succ = order < m->max_order ? cut_off(m, pm8_ctx_at(m, succ), order + 1) : 0;
            set_successor(s, succ);
            if (succ || order <= 9)
                return pm8_off(m, ctx);
        }
        special_free_unit(m, ctx);
        return 0;
    }

    unsigned nu = ((unsigned)ns + 2) >> 1, idx = index_of(m, nu);
    pm_state *stats = pm8_stats(m, ctx);
    if (ctx->stats - m->units_start <= (1u << 14) && ctx->stats <= m->free_list[idx]) {
        pm_state *up = node_remove(m, idx);
        ctx->stats = pm8_off(m, up);
        memcpy(up, stats, nu * UNIT);
        if (pm8_off(m, stats) != m->units_start)
            node_insert(m, stats, idx);
        else
            m->units_start += units_of(m, idx) * UNIT;
        stats = up;
    }

    /* From the last state down: a dropped state takes the place of the
     * last one kept (the order-0 context keeps them all, moved last). */
    for (int k = ns; k >= 0; k--) {
        pm_state *s = &stats[k];
        uint32_t succ = successor(s);
        if (succ < m->units_start) {
            pm_state *last = &stats[ns--];
            if (order) {
                if (s != last)
                    *s = *last;
            } else {
                fz7_ppmd_swap(s, last);
                set_successor(last, 0);
            }
        } else {
            set_successor(s, order < m->max_order ? cut_off(m, pm8_ctx_at(m, succ), order + 1) : 0);
        }
    }

    if (ns != ctx->num_stats && order) {
        if (ns < 0) {
            free_units(m, stats, nu);
            special_free_unit(m, ctx);
            return 0;
        }
        ctx->num_stats = (uint8_t)ns;
        if (ns == 0)
            to_binary(m, ctx, stats, nu, false);
        else
            refresh(m, ctx, nu, ctx->summ_freq > 16u * (unsigned)ns);
    }
    return pm8_off(m, ctx);
}

/* Memory ran out while the symbol just coded was added to the contexts
 * from max_ctx down to err (excluded) and not yet to those from err down
 * to min_ctx: takes it out of the first, raises the escapes of the others,
 * then restarts the model or (CUT_OFF, with at least half the memory in
 * use) prunes it to at most 3/4 of its memory. */
static void restore_model(pm8_model *m, pm8_ctx *err)
{
    pm8_ctx *c;
    m->text = m->align;
    for (c = m->max_ctx; c != err; c = pm8_suffix(m, c)) {
        if (--c->num_stats == 0)
            to_binary(m, c, pm8_stats(m, c), 1, true);
        else
            refresh(m, c, (c->num_stats + 3u) >> 1, 0);
    }
    for (; c != m->min_ctx; c = pm8_suffix(m, c)) {
        if (c->num_stats == 0) {
            pm_state *one = pm8_one_state(c);
            one->freq = (uint8_t)((one->freq + 1u) >> 1);
        } else if ((c->summ_freq = (uint16_t)(c->summ_freq + 4)) > 128 + 4u * c->num_stats) {
            refresh(m, c, (c->num_stats + 2u) >> 1, 1);
        }
    }

    bool restart = m->restore == FZ7_PPMD8_RESTART || used_memory(m) < (m->size >> 1);
    if (!restart) {
        while (m->max_ctx->suffix)
            m->max_ctx = pm8_suffix(m, m->max_ctx);
        do {
            uint32_t used = used_memory(m), start = m->units_start;
            cut_off(m, m->max_ctx, 0);
            expand_text_area(m);
            /* A pass that freed nothing and moved no text leaves the model
             * as it was: the next would too, for ever (a model too small
             * for its order-0 context, or a crafted stream). Restart. */
            restart = used_memory(m) >= used && m->units_start == start;
        } while (!restart && used_memory(m) > 3 * (m->size >> 2));
        m->glue_count = 0;
        m->order_fall = m->max_order;
    }
    if (restart)
        restart_model(m);
    m->min_ctx = m->max_ctx;
}

/* Creates the chain of one-symbol contexts for the found symbol, from the
 * deepest suffix of c that already has one up to c; on the way it counts
 * the symbol once more in each suffix passed. skip: the found state itself
 * already points where it should; s1: the found symbol's state in c's
 * suffix, already counted. NULL when memory ran out. */
static pm8_ctx *create_successors(pm8_model *m, bool skip, pm_state *s1, pm8_ctx *c)
{
    uint32_t up_branch = successor(m->found);
    uint8_t sym = m->found->symbol;
    pm_state *chain[FZ7_PPMD8_ORDER_MAX + 1];
    unsigned n = 0;
    if (!skip)
        chain[n++] = m->found;
    while (c->suffix) {
        pm_state *s;
        c = pm8_suffix(m, c);
        if (s1) {
            s = s1;
            s1 = NULL;
        } else if (c->num_stats != 0) {
            for (s = pm8_stats(m, c); s->symbol != sym; s++)
                ;
            if (s->freq < MAX_FREQ - 9) {
                s->freq++;
                c->summ_freq++;
            }
        } else {
            s = pm8_one_state(c);
            s->freq = (uint8_t)(s->freq + (pm8_suffix(m, c)->num_stats == 0 && s->freq < 24));
        }
        uint32_t succ = successor(s);
        if (succ != up_branch) {
            c = pm8_ctx_at(m, succ);
            if (n == 0)
                return c;
            break;
        }
        if (n == FZ7_PPMD8_ORDER_MAX + 1)
            return NULL;   /* deeper than the order: not in a sound model */
        chain[n++] = s;
    }

    /* The new contexts predict the symbol that followed in the text, at a
     * frequency from its share in c. */
    uint8_t new_sym = *(const uint8_t *)pm8_at(m, up_branch);
    uint8_t new_freq, flags = (uint8_t)(2 * pm8_high(sym) + pm8_high(new_sym));
    if (c->num_stats == 0) {
        new_freq = pm8_one_state(c)->freq;
    } else {
        pm_state *s;
        for (s = pm8_stats(m, c); s->symbol != new_sym; s++)
            ;
        uint32_t cf = s->freq - 1u, s0 = c->summ_freq - c->num_stats - cf;
        new_freq = (uint8_t)(1 + (2 * cf <= s0 ? (5 * cf > s0) : (cf + 2 * s0 - 3) / (s0 + (s0 == 0))));
    }
    up_branch++;

    do {
        pm8_ctx *child = alloc_context(m);
        if (!child)
            return NULL;
        child->flags = flags;
        child->num_stats = 0;
        pm_state *one = pm8_one_state(child);
        one->symbol = new_sym;
        one->freq = new_freq;
        set_successor(one, up_branch);
        child->suffix = pm8_off(m, c);
        set_successor(chain[--n], pm8_off(m, child));
        c = child;
    } while (n != 0);
    return c;
}

/* The found state has no successor yet: points it, and the states of the
 * symbol in the suffixes that have none either, at the text, counting the
 * symbol in each; then returns the successor of the first suffix state
 * that has one (created when it points into the text), or the order-0
 * context, or NULL when memory ran out. s1 as for create_successors. */
static pm8_ctx *reduce_order(pm8_model *m, pm_state *s1, pm8_ctx *c)
{
    pm_state *s = NULL;
    pm8_ctx *c1 = c;
    uint32_t up_branch = m->text;
    uint8_t sym = m->found->symbol;

    set_successor(m->found, up_branch);
    m->order_fall++;
    for (;;) {
        if (s1) {
            c = pm8_suffix(m, c);
            s = s1;
            s1 = NULL;
        } else {
            if (!c->suffix)
                return c;
            c = pm8_suffix(m, c);
            if (c->num_stats) {
                for (s = pm8_stats(m, c); s->symbol != sym; s++)
                    ;
                if (s->freq < MAX_FREQ - 9) {
                    s->freq += 2;
                    c->summ_freq += 2;
                }
            } else {
                s = pm8_one_state(c);
                s->freq = (uint8_t)(s->freq + (s->freq < 32));
            }
        }
        if (successor(s))
            break;
        set_successor(s, up_branch);
        m->order_fall++;
    }

    if (successor(s) <= up_branch) {
        pm_state *found = m->found;
        m->found = s;
        pm8_ctx *cs = create_successors(m, false, NULL, c);
        set_successor(s, cs ? pm8_off(m, cs) : 0);
        m->found = found;
    }
    uint32_t succ = successor(s);
    if (m->order_fall == 1 && c1 == m->max_ctx) {
        set_successor(m->found, succ);
        m->text--;
    }
    return succ ? pm8_ctx_at(m, succ) : NULL;
}

void fz7_ppmd8_update_model(pm8_model *m)
{
    pm_state *fs = m->found, *s = NULL;
    uint32_t min_succ = successor(fs), max_succ;
    unsigned f_freq = fs->freq;
    uint8_t f_sym = fs->symbol;

    /* The symbol gains in the next shorter context too. */
    if (fs->freq < MAX_FREQ / 4 && m->min_ctx->suffix != 0) {
        pm8_ctx *c = pm8_suffix(m, m->min_ctx);
        if (c->num_stats == 0) {
            s = pm8_one_state(c);
            if (s->freq < 32)
                s->freq++;
        } else {
            s = pm8_stats(m, c);
            if (s->symbol != f_sym) {
                do
                    s++;
                while (s->symbol != f_sym);
                if (s[0].freq >= s[-1].freq) {
                    fz7_ppmd_swap(&s[0], &s[-1]);
                    s--;
                }
            }
            if (s->freq < MAX_FREQ - 9) {
                s->freq += 2;
                c->summ_freq += 2;
            }
        }
    }

    pm8_ctx *c = m->max_ctx;
    if (m->order_fall == 0 && min_succ) {
        pm8_ctx *cs = create_successors(m, true, s, m->min_ctx);
        if (!cs) {
            set_successor(m->found, 0);
            restore_model(m, c);
            return;
        }
        set_successor(m->found, pm8_off(m, cs));
        m->min_ctx = m->max_ctx = cs;
        return;
    }

    m->base[m->text++] = f_sym;
    max_succ = m->text;
    if (m->text >= m->units_start) {
        restore_model(m, c);
        return;
    }
    if (!min_succ || min_succ < m->units_start) {
        pm8_ctx *cs = min_succ ? create_successors(m, false, s, m->min_ctx) : reduce_order(m, s, m->min_ctx);
        if (!cs) {
            restore_model(m, c);
            return;
        }
        min_succ = pm8_off(m, cs);
    }
    if (--m->order_fall == 0) {
        max_succ = min_succ;
        m->text -= m->max_ctx != m->min_ctx;
    }

    /* Add the symbol to each context that escaped, with a frequency from
     * its share in min_ctx. */
    unsigned flag = pm8_high(f_sym), ns = m->min_ctx->num_stats;
    uint32_t s0 = m->min_ctx->summ_freq - ns - f_freq;
    for (; c != m->min_ctx; c = pm8_suffix(m, c)) {
        unsigned ns1 = c->num_stats;
        uint32_t sum;
        if (ns1 != 0) {
            if ((ns1 & 1) != 0) {
                /* The states fill their units: grow by one unit. */
                unsigned old_nu = (ns1 + 1) >> 1, i = index_of(m, old_nu);
                if (i != index_of(m, old_nu + 1)) {
                    void *block = alloc_units(m, i + 1);
                    if (!block) {
                        restore_model(m, c);
                        return;
                    }
                    void *old = pm8_stats(m, c);
                    memcpy(block, old, old_nu * UNIT);
                    node_insert(m, old, i);
                    c->stats = pm8_off(m, block);
                }
            }
            sum = c->summ_freq + (3 * ns1 + 1 < ns);
        } else {
            pm_state *st = alloc_units(m, 0);
            if (!st) {
                restore_model(m, c);
                return;
            }
            *st = *pm8_one_state(c);
            c->stats = pm8_off(m, st);
            st->freq = (uint8_t)(st->freq < MAX_FREQ / 4 - 1 ? st->freq * 2 : MAX_FREQ - 4);
            sum = st->freq + m->init_esc + (ns > 2);
        }

        pm_state *ns_state = pm8_stats(m, c) + ns1 + 1;
        uint32_t cf = 2 * (sum + 6) * f_freq, sf = s0 + sum;
        ns_state->symbol = f_sym;
        c->num_stats = (uint8_t)(ns1 + 1);
        set_successor(ns_state, max_succ);
        c->flags |= (uint8_t)flag;
        if (cf < 6 * sf) {
            cf = 1 + (cf > sf) + (cf >= 4 * sf);
            sum += 4;
        } else {
            cf = 4 + (cf > 9 * sf) + (cf > 12 * sf) + (cf > 15 * sf);
            sum += cf;
        }
        c->summ_freq = (uint16_t)sum;
        ns_state->freq = (uint8_t)cf;
    }
    m->max_ctx = m->min_ctx = pm8_ctx_at(m, min_succ);
}

/* Symbols whose frequency halves to 0 are dropped. */
void fz7_ppmd8_rescale(pm8_model *m)
{
    pm8_ctx *mc = m->min_ctx;
    pm_state *stats = pm8_stats(m, mc), *s = m->found;
    {
        pm_state t = *s;
        for (; s != stats; s--)
            s[0] = s[-1];
        *s = t;
    }
    unsigned esc = mc->summ_freq - s->freq;
    unsigned adder = m->order_fall != 0;
    unsigned sum = (s->freq + 4 + adder) >> 1;
    s->freq = (uint8_t)sum;
    unsigned i = mc->num_stats;
    do {
        unsigned freq = (++s)->freq;
        esc -= freq;
        freq = (freq + adder) >> 1;
        sum += freq;
        s->freq = (uint8_t)freq;
        if (freq > s[-1].freq) {
            /* Keep the list sorted by frequency, highest first. */
            pm_state *d = s, t = *d;
            do
                d[0] = d[-1];
            while (--d != stats && freq > d[-1].freq);
            *d = t;
        }
    } while (--i);

    if (s->freq == 0) {
        do
            i++;
        while ((--s)->freq == 0);
        esc += i;
        unsigned old_ns = mc->num_stats, new_ns = old_ns - i;
        unsigned n0 = (old_ns + 2) >> 1;
        mc->num_stats = (uint8_t)new_ns;
        if (new_ns == 0) {
            unsigned freq = (2u * stats->freq + esc - 1) / (esc + (esc == 0));
            if (freq > MAX_FREQ / 3)
                freq = MAX_FREQ / 3;
            mc->flags = (uint8_t)((mc->flags & PM8_FLAG_PREV_HIGH) + pm8_high(stats->symbol));
            pm_state *one = pm8_one_state(mc);
            *one = *stats;
            one->freq = (uint8_t)freq;
            m->found = one;
            node_insert(m, stats, index_of(m, n0));
            return;
        }
        unsigned n1 = (new_ns + 2) >> 1;
        if (n0 != n1)
            mc->stats = pm8_off(m, shrink_units(m, stats, n0, n1));
    }
    mc->summ_freq = (uint16_t)(sum + esc - (esc >> 1));
    mc->flags |= PM8_FLAG_RESCALED;
    m->found = pm8_stats(m, mc);
}

pm_see *fz7_ppmd8_make_esc_freq(pm8_model *m, unsigned masked, uint32_t *esc_freq)
{
    pm8_ctx *mc = m->min_ctx;
    unsigned ns = mc->num_stats;
    if (ns == 255) {
        *esc_freq = 1;
        return &m->dummy_see;
    }
    pm_see *see = m->see[m->ns_index[ns + 2] - 3] + (mc->summ_freq > 11 * (ns + 1)) +
                  2 * (2 * ns < (unsigned)pm8_suffix(m, mc)->num_stats + masked) + mc->flags;
    unsigned r = see->summ >> see->shift;
    see->summ = (uint16_t)(see->summ - r);
    *esc_freq = r + (r == 0);
    return see;
}

fz7_status fz7_ppmd8_model_new(pm8_model *m, unsigned order, uint32_t mem, unsigned restore)
{
    uint64_t heap = fz7_ppmd8_heap_bytes(mem);
    if (heap > SIZE_MAX)
        return FZ7_E_MEM;
    m->base = fz7_ppmd_heap_alloc((size_t)heap);
    if (!m->base)
        return FZ7_E_MEM;
    m->size = mem;
    m->align = (4 - mem) & 3;
    m->max_order = order;
    m->restore = restore;
    m->init_esc = 0;
    tables_init(m);
    restart_model(m);
    return FZ7_OK;
}

void fz7_ppmd8_model_free(pm8_model *m)
{
    free(m->base);
    m->base = NULL;
}
