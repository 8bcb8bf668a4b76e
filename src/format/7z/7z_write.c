/* 7z_write.c - the .7z writer: pack streams first, right after a 32-byte
 * signature header left blank until the end, then the header describing
 * them (7z_header_write.c), optionally LZMA-encoded behind a
 * kEncodedHeader, then the signature header with the start header CRC.
 * Here: the entries, the folders' coder chains (filter, method, 7zAES),
 * the pending folder of multi-threaded LZMA2, finishing and freeing. */
#include "format/7z/7z_write_impl.h"

#include "check/check.h"
#include "cpu/bytes.h"
#include "lzma/lzma_presets.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint32_t fz7_7z_attrib_from_mode(uint32_t st_mode)
{
    uint32_t a = FZ7_ATTR_UNIX_EXTENSION | ((st_mode & 0xFFFFu) << 16);
    if (S_ISDIR(st_mode))
        a |= FZ7_ATTR_DIRECTORY;
    else
        a |= FZ7_ATTR_ARCHIVE;
    if (!(st_mode & 0222))
        a |= FZ7_ATTR_READONLY;
    return a;
}

uint64_t fz7_filetime_of(int64_t sec, uint32_t nsec)
{
    int64_t t = sec + INT64_C(11644473600);
    if (t < 0)
        return 0;
    return (uint64_t)t * 10000000u + nsec / 100u;
}

void fz7_7z_writer_order_7zip(fz7_7z_writer *w)
{
    w->order_7zip = true;
}

static fz7_status pack_sink_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    pack_sink *k = (pack_sink *)os;
    if (!k->holding)
        return fz7_fd_ostream_write(&k->w->out.os, p, n);
    bb_bytes(&k->held, p, n);
    return k->held.failed ? FZ7_E_MEM : FZ7_OK;
}

/* Fills f's Folder record and sizes from g (pack sizes included). */
static fz7_status record_graph(folder_rec *f, const folder_graph *g);

fz7_status fz7_7z_writer_settle(fz7_7z_writer *w)
{
    if (!w->pend_enc)
        return FZ7_OK;
    folder_graph *g = &w->pend_graph;
    fz7_status st = fz7_lzma_enc_finish(w->pend_enc);
    if (w->pend_aes)
        g->c[w->pend_aes_at].in = fz7_lzma_enc_bytes_out(w->pend_enc);
    if (st == FZ7_OK && w->pend_aes)
        st = fz7_7zaes_writer_finish(w->pend_aes, NULL);
    g->pack_size[0] = w->out.pos - w->pend_start;
    if (st == FZ7_OK)
        st = record_graph(&w->folders[w->pend_folder], g);
    fz7_lzma_enc_free(w->pend_enc);
    w->pend_enc = NULL;
    fz7_7zaes_writer_free(w->pend_aes);
    w->pend_aes = NULL;
    pack_sink *k = &w->sinks[w->cur_sink];
    if (k->holding) {
        k->holding = false;
        w->folder_start = w->out.pos;
        if (st == FZ7_OK && k->held.failed)
            st = FZ7_E_MEM;
        if (st == FZ7_OK && k->held.m.n)
            st = fz7_fd_ostream_write(&w->out.os, k->held.m.p, k->held.m.n);
    }
    free(k->held.m.p);
    k->held = (bytebuf){0};
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

fz7_status fz7_7z_writer_new(int fd, fz7_7z_writer **out)
{
    *out = NULL;
    fz7_7z_writer *w = calloc(1, sizeof *w);
    if (!w)
        return FZ7_E_MEM;
    if (fz7_fd_ostream_init(&w->out, fd) != FZ7_OK) {
        free(w);
        return FZ7_E_MEM;
    }
    /* Room for the signature header, filled in by finish(). */
    uint8_t zero[SIGNATURE_HEADER_SIZE] = {0};
    fz7_status st = fz7_fd_ostream_write(&w->out.os, zero, sizeof zero);
    if (st != FZ7_OK) {
        fz7_7z_writer_free(w);
        return st;
    }
    *out = w;
    return FZ7_OK;
}

uint64_t fz7_7z_writer_size(const fz7_7z_writer *w)
{
    return w->out.pos;
}

fz7_status fz7_7z_writer_push_entry(fz7_7z_writer *w, const fz7_7z_entry_meta *m, bool has_stream)
{
    if (w->n_entries == w->cap_entries) {
        size_t nc = w->cap_entries ? w->cap_entries * 2 : 64;
        entry_rec *e = realloc(w->entries, nc * sizeof *e);
        if (!e)
            return FZ7_E_MEM;
        w->entries = e;
        w->cap_entries = nc;
    }
    entry_rec *e = &w->entries[w->n_entries];
    memset(e, 0, sizeof *e);
    e->name = strdup(m->name);
    if (!e->name)
        return FZ7_E_MEM;
    e->attrib = m->attrib;
    e->has_attrib = !m->no_attrib;
    e->is_dir = m->is_dir;
    e->has_time[0] = m->has_ctime;
    e->time[0] = fz7_filetime_of(m->ctime, m->ctime_nsec);
    e->has_time[1] = m->has_atime;
    e->time[1] = fz7_filetime_of(m->atime, m->atime_nsec);
    e->has_time[2] = m->has_mtime;
    e->time[2] = fz7_filetime_of(m->mtime, m->mtime_nsec);
    e->has_stream = has_stream;
    e->is_anti = m->is_anti && !has_stream;
    if (e->is_anti) /* nothing but the name and the folder flag */
        e->has_attrib = e->has_time[0] = e->has_time[1] = e->has_time[2] = false;
    w->n_entries++;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_add_empty(fz7_7z_writer *w, const fz7_7z_entry_meta *m)
{
    if (w->failed)
        return w->failed;
    if (w->in_file)
        return FZ7_E_ARG;
    return fz7_7z_writer_push_entry(w, m, false);
}

/* Room for one more folder record in w->folders; false when out of memory. */
bool fz7_7z_writer_reserve_folder(fz7_7z_writer *w)
{
    if (w->n_folders < w->cap_folders)
        return true;
    size_t nc = w->cap_folders ? w->cap_folders * 2 : 16;
    folder_rec *f = realloc(w->folders, nc * sizeof *f);
    if (!f)
        return false;
    w->folders = f;
    w->cap_folders = nc;
    return true;
}

/* ---- a folder's coders --------------------------------------------------- */

/* Method IDs (Methods.txt) of the coders the writer makes. */
#define ID_COPY 0x00u
#define ID_DELTA 0x03u
#define ID_LZMA2 0x21u
#define ID_LZMA 0x030101u
#define ID_PPMD 0x030401u
#define ID_BCJ 0x03030103u
#define ID_BCJ2 0x0303011Bu
#define ID_DEFLATE 0x040108u
#define ID_DEFLATE64 0x040109u
#define ID_BZIP2 0x040202u
#define ID_AES 0x06F10701u

static uint32_t method_id(fz7_7z_method m)
{
    static const uint32_t ids[] = {
        [FZ7_7Z_COPY] = ID_COPY, [FZ7_7Z_LZMA] = ID_LZMA, [FZ7_7Z_LZMA2] = ID_LZMA2,
        [FZ7_7Z_BZIP2] = ID_BZIP2, [FZ7_7Z_PPMD] = ID_PPMD, [FZ7_7Z_DEFLATE] = ID_DEFLATE,
        [FZ7_7Z_DEFLATE64] = ID_DEFLATE64,
    };
    return ids[m];
}

static fz7_status stage_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    stage *s = (stage *)os;
    *s->in += n;
    switch (s->kind) {
    case ST_METHOD:
        if (s->enc)
            return fz7_lzma_enc_write(s->enc, p, n);
        if (s->bz)
            return fz7_bzip2_enc_write(s->bz, p, n);
        if (s->ppmd)
            return fz7_ppmd7_enc_write(s->ppmd, p, n);
        if (s->defl)
            return fz7_deflate_enc_write(s->defl, p, n);
        return s->dst->write(s->dst, p, n);   /* Copy */
    case ST_AES: {
        fz7_ostream *e = fz7_7zaes_writer_stream(s->aes);
        return e->write(e, p, n);
    }
    case ST_BCJ2:
        return fz7_bcj2_enc_write(s->bcj2, p, n);
    case ST_FILTER:
        return s->filt.base.write(&s->filt.base, p, n);
    }
    return FZ7_E_ARG;
}

/* Ends a stage's coder: what it still holds goes to its outputs. A
 * branch filter's last few bytes pass through unconverted. */
static fz7_status stage_finish(stage *s)
{
    switch (s->kind) {
    case ST_METHOD:
        return s->enc    ? fz7_lzma_enc_finish(s->enc)
             : s->bz     ? fz7_bzip2_enc_finish(s->bz)
             : s->ppmd   ? fz7_ppmd7_enc_finish(s->ppmd)
             : s->defl   ? fz7_deflate_enc_finish(s->defl)
                         : FZ7_OK;
    case ST_AES:
        return fz7_7zaes_writer_finish(s->aes, NULL);
    case ST_BCJ2:
        return fz7_bcj2_enc_finish(s->bcj2);
    case ST_FILTER:
        return fz7_filter_ostream_finish(&s->filt);
    }
    return FZ7_E_ARG;
}

static void stage_free(stage *s)
{
    fz7_lzma_enc_free(s->enc);
    fz7_bzip2_enc_free(s->bz);
    fz7_ppmd7_enc_free(s->ppmd);
    fz7_deflate_enc_free(s->defl);
    fz7_7zaes_writer_free(s->aes);
    fz7_bcj2_enc_free(s->bcj2);
    fz7_filter_ostream_free(&s->filt);
    memset(s, 0, sizeof *s);
}

/* Frees the open folder's coders and its in-memory pack streams. */
static void free_stages(fz7_7z_writer *w)
{
    for (unsigned k = 0; k < w->n_stages; k++)
        stage_free(&w->stages[k]);
    w->n_stages = 0;
    for (unsigned k = 0; k < GRAPH_CODERS_MAX; k++) {
        free(w->packs[k].b.m.p);
        w->packs[k].b = (bytebuf){0};
    }
}

/* The chain a folder's options describe: chain itself, or the one the
 * single-method fields stand for. *lzma_sides: chain[0] is a BCJ2 whose
 * call and jump streams go through LZMA. FZ7_E_ARG for options that make
 * no chain. */
static fz7_status chain_of(const fz7_7z_folder_opts *o, fz7_7z_coder_opts *c, unsigned *n,
                           bool *lzma_sides)
{
    *lzma_sides = false;
    if (o->n_bonds && !o->chain_len)
        return FZ7_E_ARG;   /* bonds join the coders of a chain */
    if (o->chain_len) {
        if (o->chain_len > FZ7_7Z_CHAIN_MAX)
            return FZ7_E_ARG;
        memcpy(c, o->chain, o->chain_len * sizeof *c);
        *n = o->chain_len;
        *lzma_sides = o->bcj2_lzma_sides && c[0].kind == FZ7_7Z_CODER_BCJ2 && *n > 1;
        return FZ7_OK;
    }
    fz7_7z_coder_opts m = {.kind = FZ7_7Z_CODER_METHOD, .method = o->method, .lzma = o->lzma,
                           .bzip2_block = o->bzip2_block, .deflate = o->deflate,
                           .ppmd_order = o->ppmd_order, .ppmd_mem = o->ppmd_mem};
    fz7_7z_coder_opts f = {.kind = FZ7_7Z_CODER_BCJ};
    bool filter = true;
    if (o->bcj_x86 && o->bcj2)
        f.kind = FZ7_7Z_CODER_BCJ2;
    else if (o->delta_distance)
        f = (fz7_7z_coder_opts){.kind = FZ7_7Z_CODER_DELTA, .delta_distance = o->delta_distance};
    else if (o->branch_id)
        f = (fz7_7z_coder_opts){.kind = FZ7_7Z_CODER_BRANCH, .branch_id = o->branch_id,
                                .branch_start = o->branch_start};
    else
        filter = o->bcj_x86;
    if ((o->bcj_x86 && (o->delta_distance || o->branch_id)) || (o->delta_distance && o->branch_id))
        return FZ7_E_ARG;
    *n = 0;
    if (o->method == FZ7_7Z_NONE) {
        if (!filter)
            return FZ7_E_ARG;
        c[(*n)++] = f;
    } else if (!filter) {
        c[(*n)++] = m;
    } else if (o->filter_after) {
        c[(*n)++] = m;
        c[(*n)++] = f;
    } else {
        c[(*n)++] = f;
        c[(*n)++] = m;
        *lzma_sides = f.kind == FZ7_7Z_CODER_BCJ2 && !o->bcj2_raw_sides;
    }
    return FZ7_OK;
}

/* The index of coder k's first out stream in g. */
static unsigned graph_first_out(const folder_graph *g, unsigned k)
{
    unsigned first = 0;
    for (unsigned j = 0; j < k; j++)
        first += g->c[j].n_out;
    return first;
}

/* Adds a coder to the open folder's graph; its out streams start at the
 * returned index. */
static unsigned graph_add(folder_graph *g, uint32_t id, unsigned n_out)
{
    unsigned first = graph_first_out(g, g->n);
    g->c[g->n] = (graph_coder){.id = id, .n_out = (uint8_t)n_out};
    g->n++;
    return first;
}

static void graph_bond(folder_graph *g, unsigned out, unsigned coder)
{
    g->bond[g->n_bonds].out = (uint8_t)out;
    g->bond[g->n_bonds].coder = (uint8_t)coder;
    g->n_bonds++;
}

/* Makes stage k's coder: a method or filter of the chain, with dst[] its
 * outputs. */
static fz7_status stage_new(fz7_7z_writer *w, unsigned k, const fz7_7z_coder_opts *c,
                            const fz7_7z_folder_opts *o, bool pooled, fz7_ostream **dst)
{
    stage *s = &w->stages[k];
    graph_coder *g = &w->graph.c[k];
    s->os.write = stage_write;
    s->in = &g->in;
    s->dst = dst[0];
    fz7_bcj_arch arch = FZ7_BCJ_ARM64;
    fz7_filter_enc f;
    switch (c->kind) {
    case FZ7_7Z_CODER_BCJ2:
        s->kind = ST_BCJ2;
        return fz7_bcj2_enc_new(dst, &s->bcj2);
    case FZ7_7Z_CODER_DELTA:
        if (fz7_filter_enc_init(&f, FZ7_FILTER_ENC_DELTA, arch, c->delta_distance) != FZ7_OK)
            return FZ7_E_ARG;
        g->props[0] = (uint8_t)(c->delta_distance - 1);
        g->props_len = 1;
        break;
    case FZ7_7Z_CODER_BRANCH:
        if (!fz7_7z_branch_arch(c->branch_id, &arch) ||
            fz7_filter_enc_init(&f, FZ7_FILTER_ENC_BRANCH, arch, c->branch_start) != FZ7_OK)
            return FZ7_E_ARG;
        if (c->branch_start) {   /* the start offset, as 7-Zip writes it */
            fz7_put32le(g->props, c->branch_start);
            g->props_len = 4;
        }
        break;
    case FZ7_7Z_CODER_BCJ:
        fz7_filter_enc_init(&f, FZ7_FILTER_ENC_X86, arch, 0);
        break;
    case FZ7_7Z_CODER_METHOD: {
        s->kind = ST_METHOD;
        fz7_lzma_enc_opts lo = c->lzma;
        /* The dictionary follows the whole archive's bytes (the caller
         * fitted it), but this folder's encoder sees only folder_bytes: told so, its
         * match finder offers huge pages only for the part of its tables it
         * will fill, which lowers peak memory. */
        if (o->folder_bytes && (!lo.size_hint || o->folder_bytes < lo.size_hint))
            lo.size_hint = o->folder_bytes;
        switch (c->method) {
        case FZ7_7Z_LZMA:
            if (fz7_lzma_enc_new(&lo, s->dst, &s->enc) != FZ7_OK)
                return FZ7_E_MEM;
            fz7_lzma_enc_props(s->enc, g->props);
            g->props_len = 5;
            return FZ7_OK;
        case FZ7_7Z_LZMA2: {
            fz7_status st = pooled ? fz7_lzma2_enc_new_pooled(&lo, w->pool, o->mt_block_size, s->dst, &s->enc)
                                   : fz7_lzma2_enc_new(&lo, s->dst, &s->enc);
            if (st != FZ7_OK)
                return st;
            g->props[0] = fz7_lzma2_enc_dict_prop(s->enc);
            g->props_len = 1;
            return FZ7_OK;
        }
        case FZ7_7Z_BZIP2:
            return fz7_bzip2_enc_new(c->bzip2_block, s->dst, &s->bz);
        case FZ7_7Z_DEFLATE:
        case FZ7_7Z_DEFLATE64:
            return fz7_deflate_enc_new_opts(&c->deflate, c->method == FZ7_7Z_DEFLATE64, s->dst, &s->defl);
        case FZ7_7Z_PPMD:
            fz7_ppmd7_enc_props(c->ppmd_order, c->ppmd_mem, g->props);
            g->props_len = 5;
            return fz7_ppmd7_enc_new(c->ppmd_order, c->ppmd_mem, s->dst, &s->ppmd);
        case FZ7_7Z_COPY:
            return FZ7_OK;
        case FZ7_7Z_NONE:
            break;
        }
        return FZ7_E_ARG;
    }
    default:
        return FZ7_E_ARG;
    }
    s->kind = ST_FILTER;
    return fz7_filter_ostream_init(&s->filt, &f, s->dst);
}

/* Out streams of a chain coder. */
static unsigned coder_streams(const fz7_7z_coder_opts *c)
{
    return c->kind == FZ7_7Z_CODER_BCJ2 ? FZ7_BCJ2_STREAMS : 1;
}

fz7_status fz7_7z_bonds_check(const fz7_7z_coder_opts *chain, unsigned n, const fz7_7z_bond *bonds,
                              unsigned n_bonds)
{
    bool bound[FZ7_7Z_CHAIN_MAX][FZ7_BCJ2_STREAMS] = {{false}};
    int feeder[FZ7_7Z_CHAIN_MAX];
    if (n == 0 || n > FZ7_7Z_CHAIN_MAX)
        return FZ7_E_ARG;
    for (unsigned k = 0; k < n; k++)
        feeder[k] = -1;
    for (unsigned b = 0; b < n_bonds; b++) {
        const fz7_7z_bond *d = &bonds[b];
        if (d->from >= n || d->to >= n || d->stream >= coder_streams(&chain[d->from]) ||
            bound[d->from][d->stream] || feeder[d->to] >= 0)
            return FZ7_E_ARG;
        bound[d->from][d->stream] = true;
        feeder[d->to] = d->from;
    }
    unsigned unfed = 0;
    for (unsigned k = 0; k < n; k++)
        unfed += feeder[k] < 0;
    if (unfed != 1)
        return FZ7_E_ARG;
    /* Each coder's feeders lead back to that one unless they loop. */
    for (unsigned k = 0; k < n; k++) {
        unsigned c = k, steps = 0;
        while (feeder[c] >= 0 && steps++ < n)
            c = (unsigned)feeder[c];
        if (feeder[c] >= 0)
            return FZ7_E_ARG;
    }
    return FZ7_OK;
}

/* The coder out stream `out` feeds, or -1 when it is a pack stream. */
static int bonded_to(const folder_graph *g, unsigned out)
{
    for (unsigned b = 0; b < g->n_bonds; b++)
        if (g->bond[b].out == out)
            return g->bond[b].coder;
    return -1;
}

/* The first of coders from..g->n - 1 that no bond feeds (from when none). */
static unsigned first_unfed(const folder_graph *g, unsigned from)
{
    for (unsigned k = from; k < g->n; k++) {
        bool fed = false;
        for (unsigned b = 0; b < g->n_bonds; b++)
            fed |= g->bond[b].coder == k;
        if (!fed)
            return k;
    }
    return from;
}

/* A folder's plan, as 7-Zip makes it from a chain: its graph, the coder
 * that reads the entries, the chain coder that writes the first pack
 * stream, and the order in which its coders end (each after the coders
 * that write to it). */
typedef struct folder_plan {
    unsigned entry, last;
    uint8_t flow[GRAPH_CODERS_MAX];
} folder_plan;

/* Plans g for chain c[0..n): its coders (a BCJ2 in front with LZMA sides:
 * its LZMA coders for call and jump after them); the bonds, o's when it
 * has them, else one coder after the other, and then those of a filter in
 * front (BCJ2's main, call, jump) when it comes after them; the pack
 * streams (see fz7_7z_folder_opts); with a password a 7zAES after each
 * pack stream, in the same order. */
static void plan_graph(folder_graph *g, folder_plan *plan, const fz7_7z_coder_opts *c, unsigned n,
                       const fz7_7z_folder_opts *o, bool lzma_sides)
{
    memset(g, 0, sizeof *g);
    unsigned first_out[FZ7_7Z_CHAIN_MAX];
    for (unsigned k = 0; k < n; k++) {
        uint32_t id = c[k].kind == FZ7_7Z_CODER_BCJ2     ? ID_BCJ2
                    : c[k].kind == FZ7_7Z_CODER_BCJ      ? ID_BCJ
                    : c[k].kind == FZ7_7Z_CODER_DELTA    ? ID_DELTA
                    : c[k].kind == FZ7_7Z_CODER_BRANCH   ? c[k].branch_id
                                                         : method_id(c[k].method);
        first_out[k] = graph_add(g, id, coder_streams(&c[k]));
    }
    /* The front filter's bonds come last with LZMA sides or -mb. */
    unsigned late_front = lzma_sides || (o->n_bonds && o->front);
    if (o->n_bonds)
        for (unsigned b = 0; b < o->n_bonds; b++)
            graph_bond(g, first_out[o->bonds[b].from] + o->bonds[b].stream, o->bonds[b].to);
    else
        for (unsigned k = late_front; k + 1 < n; k++)
            graph_bond(g, first_out[k], k + 1);
    if (late_front)   /* into the coder the others leave unfed */
        graph_bond(g, first_out[0] + FZ7_BCJ2_MAIN, first_unfed(g, 1));
    if (lzma_sides) {
        graph_bond(g, first_out[0] + FZ7_BCJ2_CALL, g->n);
        graph_add(g, ID_LZMA, 1);
        graph_bond(g, first_out[0] + FZ7_BCJ2_JUMP, g->n);
        graph_add(g, ID_LZMA, 1);
    }
    unsigned n_out = graph_first_out(g, g->n);
    /* The coder that reads the entries: the one no bond feeds. */
    plan->entry = first_unfed(g, 0);
    /* The first pack stream: first out streams followed from there. */
    plan->last = plan->entry;
    for (int to; (to = bonded_to(g, graph_first_out(g, plan->last))) >= 0;)
        plan->last = (unsigned)to;
    unsigned first_pack = graph_first_out(g, plan->last);
    g->pack[g->n_packs++] = (uint8_t)first_pack;
    for (unsigned out = 0; out < n_out; out++)
        if (out != first_pack && bonded_to(g, out) < 0)
            g->pack[g->n_packs++] = (uint8_t)out;
    for (unsigned p = 0; o->key && p < g->n_packs; p++) {
        graph_bond(g, g->pack[p], g->n);
        g->pack[p] = (uint8_t)graph_add(g, ID_AES, 1);
    }
    /* The order coders end in: breadth first from the entry coder. */
    unsigned done = 0, len = 0;
    plan->flow[len++] = (uint8_t)plan->entry;
    while (done < len) {
        unsigned k = plan->flow[done++];
        for (unsigned s = 0; s < g->c[k].n_out; s++) {
            int to = bonded_to(g, graph_first_out(g, k) + s);
            if (to >= 0 && len < GRAPH_CODERS_MAX)
                plan->flow[len++] = (uint8_t)to;
        }
    }
}

fz7_status fz7_7z_writer_begin_folder(fz7_7z_writer *w, const fz7_7z_folder_opts *o)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder)
        return FZ7_E_ARG;
    if (!fz7_7z_writer_reserve_folder(w))
        return FZ7_E_MEM;
    fz7_7z_coder_opts chain[FZ7_7Z_CHAIN_MAX];
    unsigned n;
    bool lzma_sides;
    fz7_status st = chain_of(o, chain, &n, &lzma_sides);
    if (st != FZ7_OK)
        return st;
    for (unsigned k = 0; k < n; k++)
        if (chain[k].kind == FZ7_7Z_CODER_METHOD && chain[k].method == FZ7_7Z_NONE)
            return FZ7_E_ARG;
    if (o->n_bonds) {   /* the bonds among the coders after the front filter */
        fz7_7z_bond b[FZ7_7Z_CHAIN_MAX];
        unsigned front = o->front || lzma_sides;
        if (o->n_bonds > FZ7_7Z_CHAIN_MAX || n <= front)
            return FZ7_E_ARG;
        for (unsigned i = 0; i < o->n_bonds; i++) {
            if (o->bonds[i].from < front || o->bonds[i].to < front)
                return FZ7_E_ARG;
            b[i] = (fz7_7z_bond){(uint8_t)(o->bonds[i].from - front), o->bonds[i].stream,
                                 (uint8_t)(o->bonds[i].to - front)};
        }
        if ((st = fz7_7z_bonds_check(chain + front, n - front, b, o->n_bonds)) != FZ7_OK)
            return st;
    }
    folder_graph *g = &w->graph;
    folder_plan plan;
    plan_graph(g, &plan, chain, n, o, lzma_sides);
    if (g->n > GRAPH_CODERS_MAX)
        return FZ7_E_ARG;
    /* BCJ2's main stream is x86 code without branch operands: lc=4
     * mostly compresses it better than LZMA's default lc=3 lp=0 in the
     * coder it feeds. Other lc/lp values are the caller's and stay, and so
     * do the defaults of a chain that keeps BCJ2's other streams raw. */
    int main_to = lzma_sides ? bonded_to(g, FZ7_BCJ2_MAIN) : -1;
    fz7_7z_coder_opts *fed = main_to >= 0 ? &chain[main_to] : NULL;
    if (fed && fed->kind == FZ7_7Z_CODER_METHOD && (fed->method == FZ7_7Z_LZMA || fed->method == FZ7_7Z_LZMA2) &&
        fed->lzma.lc == 3 && fed->lzma.lp == 0)
        fed->lzma.lc = 4;
    /* The first LZMA2 of the chain runs on the writer's pool of threads
     * (of one thread when blocks were asked for: c=). */
    unsigned pooled_at = n;
    for (unsigned k = 0; k < n && pooled_at == n && (o->threads > 1 || o->mt_block_size); k++)
        if (chain[k].kind == FZ7_7Z_CODER_METHOD && chain[k].method == FZ7_7Z_LZMA2)
            pooled_at = k;
    bool pooled = pooled_at < n;
    /* A folder on a pool of another size cannot overlap the pending one. */
    if (pooled && w->pool && fz7_lzma2_pool_threads(w->pool) != o->threads) {
        if ((st = fz7_7z_writer_settle(w)) != FZ7_OK)
            return st;
        fz7_lzma2_pool_free(w->pool);
        w->pool = NULL;
    }
    if (pooled && !w->pool && (st = fz7_lzma2_pool_new(o->threads, &w->pool)) != FZ7_OK)
        return st;
    w->folder_mem = pooled ? fz7_lzma2_mt_memusage(&chain[pooled_at].lzma, o->threads, o->mt_block_size) : 0;
    /* Both folders' coders must fit in the limit together, else the
     * pending folder ends first. */
    if (w->pend_enc && (!pooled || !w->folder_mem || o->mt_mem_limit < w->folder_mem
                        || o->mt_mem_limit - w->folder_mem < w->pend_mem)) {
        if ((st = fz7_7z_writer_settle(w)) != FZ7_OK)
            return st;
    }
    w->cur_sink = w->pend_enc ? !w->cur_sink : w->cur_sink;
    pack_sink *sink = &w->sinks[w->cur_sink];
    *sink = (pack_sink){.os = {pack_sink_write}, .w = w, .holding = w->pend_enc != NULL};

    /* Every out stream's reader: the coder a bond names, or a pack stream
     * (the first to the archive, the others to memory). */
    fz7_ostream *dst_of[GRAPH_CODERS_MAX * FZ7_BCJ2_STREAMS];
    for (unsigned b = 0; b < g->n_bonds; b++)
        dst_of[g->bond[b].out] = &w->stages[g->bond[b].coder].os;
    for (unsigned p = 0; p < g->n_packs; p++) {
        w->packs[p].sink = (mem_sink){{mem_write}, &w->packs[p].b};
        dst_of[g->pack[p]] = p ? &w->packs[p].sink.os : &sink->os;
    }
    w->entry = plan.entry;
    w->last = plan.last;
    memcpy(w->flow, plan.flow, sizeof w->flow);
    w->pooled = pooled ? pooled_at : g->n;
    w->pooled_aes = g->n;
    w->n_stages = g->n;
    unsigned first_out[GRAPH_CODERS_MAX];
    for (unsigned k = 0, sum = 0; k < g->n; k++) {
        first_out[k] = sum;
        sum += g->c[k].n_out;
    }
    fz7_lzma_enc_opts side;
    fz7_lzma_bcj2_side_preset(&side, o->size_hint);
    /* Last to first, so that a coder's reader exists when it is made. */
    for (unsigned k = g->n; st == FZ7_OK && k-- > 0;) {
        fz7_ostream **dst = dst_of + first_out[k];
        if (k == pooled_at && k == plan.last && o->key) {
            /* A pending folder's coder outlives the stages: it writes to
             * its 7zAES itself (whose input is counted when it ends). */
            stage *aes = (stage *)dst[0];
            w->pooled_aes = (unsigned)(aes - w->stages);
            dst[0] = fz7_7zaes_writer_stream(aes->aes);
        }
        if (k < n) {
            st = stage_new(w, k, &chain[k], o, k == pooled_at, dst);
            continue;
        }
        stage *s = &w->stages[k];
        s->os.write = stage_write;
        s->in = &g->c[k].in;
        s->dst = dst[0];
        if (g->c[k].id == ID_AES) {
            s->kind = ST_AES;
            if ((st = fz7_7zaes_writer_new(o->key, s->dst, &s->aes)) == FZ7_OK)
                g->c[k].props_len = (uint8_t)fz7_7zaes_writer_props(s->aes, g->c[k].props);
        } else {   /* BCJ2's call or jump stream */
            s->kind = ST_METHOD;
            if ((st = fz7_lzma_enc_new(&side, s->dst, &s->enc)) == FZ7_OK) {
                fz7_lzma_enc_props(s->enc, g->c[k].props);
                g->c[k].props_len = 5;
            }
        }
    }
    if (st != FZ7_OK) {
        free_stages(w);
        return st;
    }
    folder_rec *f = &w->folders[w->n_folders];
    memset(f, 0, sizeof *f);
    w->folder_bytes = o->folder_bytes;
    w->folder_in = 0;
    w->folder_start = w->out.pos;
    w->in_folder = true;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_begin_file(fz7_7z_writer *w, const fz7_7z_entry_meta *m)
{
    return fz7_7z_writer_begin_file_sized(w, m, 0);
}

fz7_status fz7_7z_writer_begin_file_sized(fz7_7z_writer *w, const fz7_7z_entry_meta *m,
                                          uint64_t size)
{
    if (w->failed)
        return w->failed;
    if (!w->in_folder || w->in_file)
        return FZ7_E_ARG;
    fz7_status st = fz7_7z_writer_push_entry(w, m, true);
    if (st != FZ7_OK)
        return st;
    stage *entry = &w->stages[w->entry];
    if (entry->kind == ST_BCJ2) {
        /* Without its size, an entry is taken to fill the folder's rest. */
        if (!size && w->folder_bytes > w->folder_in)
            size = w->folder_bytes - w->folder_in;
        if ((st = fz7_bcj2_enc_file(entry->bcj2, size)) != FZ7_OK)
            return w->failed = st;
    }
    w->in_file = true;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_write(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->failed)
        return w->failed;
    if (!w->in_file)
        return FZ7_E_ARG;
    entry_rec *e = &w->entries[w->n_entries - 1];
    e->crc = fz7_crc32(e->crc, p, n);
    e->size += n;
    w->folder_in += n;
    /* The pending folder's pack stream goes out as soon as it is whole. */
    if (w->pend_enc && fz7_lzma2_mt_blocks_done(w->pend_enc) && fz7_7z_writer_settle(w) != FZ7_OK)
        return w->failed;
    stage *entry = &w->stages[w->entry];
    fz7_status st = entry->os.write(&entry->os, p, n);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

fz7_status fz7_7z_writer_end_file(fz7_7z_writer *w)
{
    if (w->failed)
        return w->failed;
    if (!w->in_file)
        return FZ7_E_ARG;
    w->in_file = false;
    entry_rec *e = &w->entries[w->n_entries - 1];
    if (e->size == 0) {
        e->has_stream = false;   /* it was empty when read: an empty file */
        return FZ7_OK;
    }
    folder_rec *f = &w->folders[w->n_folders];
    f->unpack_size += e->size;
    f->num_substreams++;
    return FZ7_OK;
}

static fz7_status record_graph(folder_rec *f, const folder_graph *g)
{
    bytebuf folder = {0}, sizes = {0};
    fz7_7z_graph_put(g, &folder, &sizes);
    uint64_t *packs = g->n_packs > 1 ? malloc(g->n_packs * sizeof *packs) : NULL;
    if (folder.failed || sizes.failed || (g->n_packs > 1 && !packs)) {
        free(folder.m.p);
        free(sizes.m.p);
        free(packs);
        return FZ7_E_MEM;
    }
    f->pack_size = 0;
    for (unsigned p = 0; p < g->n_packs; p++) {
        f->pack_size += g->pack_size[p];
        if (packs)
            packs[p] = g->pack_size[p];
    }
    f->raw_folder = folder.m.p;
    f->raw_folder_len = folder.m.n;
    f->raw_sizes = sizes.m.p;
    f->raw_sizes_len = sizes.m.n;
    f->raw_pack_sizes = packs;
    f->raw_n_packs = packs ? g->n_packs : 0;
    return FZ7_OK;
}

/* Finishes the open folder's stage k. The 7zAES the multi-threaded LZMA2
 * writes to itself counts its input from the LZMA2's output, which has
 * ended before it. */
static fz7_status end_stage(fz7_7z_writer *w, unsigned k)
{
    if (k == w->pooled_aes)
        w->graph.c[k].in = fz7_lzma_enc_bytes_out(w->stages[w->pooled].enc);
    return stage_finish(&w->stages[k]);
}

fz7_status fz7_7z_writer_end_folder(fz7_7z_writer *w)
{
    if (w->failed)
        return w->failed;
    if (!w->in_folder || w->in_file)
        return FZ7_E_ARG;
    folder_rec *f = &w->folders[w->n_folders];
    fz7_status st = fz7_7z_writer_settle(w);
    if (st != FZ7_OK)
        return st;
    w->in_folder = false;
    if (f->unpack_size == 0) {
        /* Nothing went in: drop the coders' few bytes and the folder. */
        free_stages(w);
        st = fz7_fd_ostream_flush(&w->out);
        if (st == FZ7_OK && (ftruncate(w->out.fd, (off_t)w->folder_start) != 0 ||
                             lseek(w->out.fd, (off_t)w->folder_start, SEEK_SET) < 0))
            st = FZ7_E_IO;
        w->out.pos = w->folder_start;
        if (st != FZ7_OK)
            w->failed = st;
        return st;
    }
    folder_graph *g = &w->graph;
    /* Coders end in the order data flows through them: each one's last
     * bytes reach the next before that one ends. A multi-threaded LZMA2
     * that writes the folder's only pack stream becomes the pending
     * folder instead: the next folder's blocks start while its last ones
     * are coded. fz7_7z_writer_settle() ends it. */
    bool pend = w->pooled == w->last && g->n_packs == 1 && w->folder_mem;
    unsigned at = 0;   /* in w->flow */
    for (; st == FZ7_OK && at < w->n_stages && !(pend && w->flow[at] == w->pooled); at++)
        st = end_stage(w, w->flow[at]);
    unsigned stop = w->pooled;
    if (st == FZ7_OK && pend && fz7_lzma2_mt_end_input(w->stages[stop].enc) == FZ7_OK) {
        stage *aes = w->pooled_aes < w->n_stages ? &w->stages[w->pooled_aes] : NULL;
        w->pend_enc = w->stages[stop].enc;
        w->stages[stop].enc = NULL;
        w->pend_aes = aes ? aes->aes : NULL;
        if (aes)
            aes->aes = NULL;
        w->pend_graph = *g;
        w->pend_aes_at = w->pooled_aes;
        w->pend_folder = w->n_folders;
        w->pend_start = w->folder_start;
        w->pend_mem = w->folder_mem;
        free_stages(w);
        w->n_folders++;
        return FZ7_OK;
    }
    for (; st == FZ7_OK && at < w->n_stages; at++)
        st = end_stage(w, w->flow[at]);
    g->pack_size[0] = w->out.pos - w->folder_start;
    for (unsigned p = 1; st == FZ7_OK && p < g->n_packs; p++) {
        const bytebuf *b = &w->packs[p].b;
        g->pack_size[p] = b->m.n;
        if (b->failed)
            st = FZ7_E_MEM;
        else if (b->m.n)
            st = fz7_fd_ostream_write(&w->out.os, b->m.p, b->m.n);
    }
    free_stages(w);
    if (st == FZ7_OK)
        st = record_graph(f, g);
    if (st != FZ7_OK) {
        w->failed = st;
        return st;
    }
    w->n_folders++;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_finish(fz7_7z_writer *w, const fz7_7z_header_opts *h)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder)
        return FZ7_E_ARG;
    fz7_status st = fz7_7z_writer_settle(w);
    if (st != FZ7_OK)
        return st;
    bytebuf header = {0};
    if (w->n_entries) {
        st = fz7_7z_header_build(w, &header);
        /* 7-Zip leaves the header of a lone entry plain, whatever LZMA
         * would make of it (the encoded header's own block costs 30 bytes
         * or more); an encrypted header is always encoded. */
        bool encode = h && (h->key || (h->compress && w->n_entries > 1));
        if (st == FZ7_OK && encode)
            st = fz7_7z_header_encode(w, &header, h->key);
    }
    uint64_t header_offset = w->out.pos - SIGNATURE_HEADER_SIZE;
    if (st == FZ7_OK && header.m.n)
        st = fz7_fd_ostream_write(&w->out.os, header.m.p, header.m.n);
    if (st == FZ7_OK)
        st = fz7_fd_ostream_flush(&w->out);
    if (st == FZ7_OK) {
        /* SignatureHeader: signature, version 0.4, StartHeaderCRC, then the
         * StartHeader it covers. */
        uint8_t sig[SIGNATURE_HEADER_SIZE] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4};
        if (header.m.n) {
            fz7_put64le(sig + 12, header_offset);
            fz7_put64le(sig + 20, header.m.n);
            fz7_put32le(sig + 28, fz7_crc32(0, header.m.p, header.m.n));
        }
        fz7_put32le(sig + 8, fz7_crc32(0, sig + 12, 20));
        ssize_t r = pwrite(w->out.fd, sig, sizeof sig, 0);
        if (r != (ssize_t)sizeof sig)
            st = FZ7_E_IO;
    }
    free(header.m.p);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

void fz7_7z_writer_free(fz7_7z_writer *w)
{
    if (!w)
        return;
    free_stages(w);
    fz7_lzma_enc_free(w->pend_enc);
    fz7_7zaes_writer_free(w->pend_aes);
    fz7_lzma2_pool_free(w->pool);
    for (int k = 0; k < 2; k++)
        free(w->sinks[k].held.m.p);
    for (size_t i = 0; i < w->n_entries; i++)
        free(w->entries[i].name);
    free(w->entries);
    for (size_t i = 0; i < w->n_folders; i++) {
        free(w->folders[i].raw_folder);
        free(w->folders[i].raw_sizes);
        free(w->folders[i].raw_pack_sizes);
    }
    free(w->folders);
    fz7_fd_ostream_free(&w->out);
    free(w);
}

