/* ppmd7_model.c - the PPMd var.H model: the sub-allocator (12-byte units,
 * 38 size classes, the free-block gluing pass) and the model update, which
 * must evolve exactly as the other side's did, including when memory runs
 * out and it restarts. All model links are 32-bit offsets into one heap. */
#include "codec/ppmd7_model.h"

#include <stdlib.h>

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
    fz7_ppmd_units_tables(m->index_units, m->units_index);
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


void fz7_ppmd7_update_model(pm_model *m)
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

/* Symbols whose frequency halves to 0 are dropped. */
void fz7_ppmd7_rescale(pm_model *m)
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

pm_see *fz7_ppmd7_make_esc_freq(pm_model *m, unsigned masked, uint32_t *esc_freq)
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

fz7_status fz7_ppmd7_model_new(pm_model *m, unsigned order, uint32_t mem)
{
    uint64_t heap = fz7_ppmd7_heap_bytes(mem);
    if (heap > SIZE_MAX)
        return FZ7_E_MEM;
    /* The heap plus the unit after it that gluing uses as a list head. */
    m->base = fz7_ppmd_heap_alloc((size_t)heap);
    if (!m->base)
        return FZ7_E_MEM;
    m->size = mem;
    m->align = 4 - (mem & 3);
    m->max_order = order;
    tables_init(m);
    restart_model(m);
    m->dummy_see.shift = PERIOD_BITS;
    m->dummy_see.summ = 0;
    m->dummy_see.count = 64;
    return FZ7_OK;
}

void fz7_ppmd7_model_free(pm_model *m)
{
    free(m->base);
    m->base = NULL;
}
