/* 7z_write.c - the .7z writer: pack streams first, right after a 32-byte
 * signature header left blank until the end, then the header describing
 * them (7z_header_write.c), optionally LZMA-encoded behind a
 * kEncodedHeader, then the signature header with the start header CRC.
 * Here: the entries, the folders' coder chains (filter, method, 7zAES),
 * the pending folder of multi-threaded LZMA2, finishing and freeing. */
#include "format/7z/7z_write_impl.h"

#include "check/check.h"
#include "lzma/lzma_presets.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BCJ_BUF_SIZE ((size_t)1 << 16)

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

/* FILETIME: 100 ns units since 1601-01-01. */
static uint64_t filetime_of(int64_t sec, uint32_t nsec)
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

fz7_status fz7_7z_writer_settle(fz7_7z_writer *w)
{
    if (!w->pend_enc)
        return FZ7_OK;
    folder_rec *f = &w->folders[w->pend_folder];
    fz7_status st = fz7_lzma_enc_finish(w->pend_enc);
    f->method_out = fz7_lzma_enc_bytes_out(w->pend_enc);
    if (st == FZ7_OK && w->pend_aes)
        st = fz7_7zaes_writer_finish(w->pend_aes, NULL);
    f->pack_size = w->out.pos - w->pend_start;
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
    e->time[0] = filetime_of(m->ctime, m->ctime_nsec);
    e->has_time[1] = m->has_atime;
    e->time[1] = filetime_of(m->atime, m->atime_nsec);
    e->has_time[2] = m->has_mtime;
    e->time[2] = filetime_of(m->mtime, m->mtime_nsec);
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

/* ---- BCJ2 folders ------------------------------------------------------- */

static fz7_status filter_out(fz7_7z_writer *w, const uint8_t *p, size_t n);

static fz7_status main_sink_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    main_sink *m = (main_sink *)os;
    return filter_out(m->w, p, n);
}

static fz7_status to_filter(fz7_7z_writer *w, const uint8_t *p, size_t n);

static fz7_status filter_in_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    main_sink *m = (main_sink *)os;
    return to_filter(m->w, p, n);
}

static fz7_status side_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    side_stream *s = (side_stream *)os;
    if (s->enc)
        return fz7_lzma_enc_write(s->enc, p, n);
    return s->enc_dst->write(s->enc_dst, p, n);
}

void fz7_7z_writer_bcj2_free(fz7_7z_writer *w)
{
    fz7_bcj2_enc_free(w->bcj2);
    w->bcj2 = NULL;
    for (int k = 0; k < 3; k++) {
        side_stream *s = &w->side[k];
        fz7_lzma_enc_free(s->enc);
        fz7_7zaes_writer_free(s->aes);
        free(s->packed.m.p);
        memset(s, 0, sizeof *s);
    }
}

/* The BCJ2 encoder and its side streams' coders (their options:
 * fz7_lzma_bcj2_side_preset). */
static fz7_status bcj2_begin(fz7_7z_writer *w, const fz7_7z_folder_opts *o, folder_rec *f)
{
    fz7_lzma_enc_opts so;
    fz7_lzma_bcj2_side_preset(&so, o->size_hint);
    fz7_status st = FZ7_OK;
    fz7_ostream *dst[FZ7_BCJ2_STREAMS];
    w->bcj2_main = (main_sink){{main_sink_write}, w};
    dst[FZ7_BCJ2_MAIN] = &w->bcj2_main.os;
    for (int k = 0; st == FZ7_OK && k < 3; k++) {
        side_stream *s = &w->side[k];
        memset(s, 0, sizeof *s);
        s->os.write = side_write;
        s->sink = (mem_sink){{mem_write}, &s->packed};
        s->enc_dst = &s->sink.os;
        if (o->key && (st = fz7_7zaes_writer_new(o->key, &s->sink.os, &s->aes)) == FZ7_OK) {
            f->side_aes_props_len[k] = fz7_7zaes_writer_props(s->aes, f->side_aes_props[k]);
            s->enc_dst = fz7_7zaes_writer_stream(s->aes);
        }
        if (st == FZ7_OK && k < 2 && o->method != FZ7_7Z_NONE && !w->filter_after && !f->bcj2_raw_sides &&
            (st = fz7_lzma_enc_new(&so, s->enc_dst, &s->enc)) == FZ7_OK)
            fz7_lzma_enc_props(s->enc, f->side_props[k]);
        dst[FZ7_BCJ2_CALL + k] = &s->os;
    }
    if (st == FZ7_OK)
        st = fz7_bcj2_enc_new(dst, &w->bcj2);
    if (st != FZ7_OK)
        fz7_7z_writer_bcj2_free(w);
    return st;
}

/* Finishes the BCJ2 encoder and the side streams' coders; the main
 * stream's coders are finished by the caller. */
static fz7_status bcj2_end(fz7_7z_writer *w, folder_rec *f)
{
    fz7_status st = fz7_bcj2_enc_finish(w->bcj2);
    for (unsigned k = 0; k < FZ7_BCJ2_STREAMS; k++)
        f->bcj2_sizes[k] = fz7_bcj2_enc_bytes_out(w->bcj2, k);
    for (int k = 0; st == FZ7_OK && k < 3; k++) {
        side_stream *s = &w->side[k];
        if (s->enc) {
            st = fz7_lzma_enc_finish(s->enc);
            f->side_method_out[k] = fz7_lzma_enc_bytes_out(s->enc);
        }
        if (st == FZ7_OK && s->aes)
            st = fz7_7zaes_writer_finish(s->aes, NULL);
        if (st == FZ7_OK && s->packed.failed)
            st = FZ7_E_MEM;
        f->side_pack[k] = s->packed.m.n;
    }
    return st;
}

/* Appends the side streams' pack streams after the main one. */
static fz7_status bcj2_write_sides(fz7_7z_writer *w, const folder_rec *f)
{
    fz7_status st = FZ7_OK;
    for (int i = 0; st == FZ7_OK && i < 3; i++) {
        const bytebuf *b = &w->side[bcj2_side_order(f, i)].packed;
        if (b->m.n)
            st = fz7_fd_ostream_write(&w->out.os, b->m.p, b->m.n);
    }
    return st;
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

fz7_status fz7_7z_writer_begin_folder(fz7_7z_writer *w, const fz7_7z_folder_opts *o)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder)
        return FZ7_E_ARG;
    if (!fz7_7z_writer_reserve_folder(w))
        return FZ7_E_MEM;
    folder_rec *f = &w->folders[w->n_folders];
    memset(f, 0, sizeof *f);
    fz7_bcj_arch arch = FZ7_BCJ_ARM64;
    if (o->delta_distance > 256 || (o->delta_distance && o->bcj_x86) ||
        (o->method == FZ7_7Z_NONE && !o->bcj_x86 && !o->delta_distance && !o->branch_id) ||
        (o->branch_id && (o->bcj_x86 || o->delta_distance || !fz7_7z_branch_arch(o->branch_id, &arch))))
        return FZ7_E_ARG;
    f->branch_id = o->branch_id;
    f->method = o->method;
    w->filter_after = o->filter_after && o->method != FZ7_7Z_NONE &&
                      (o->bcj_x86 || o->delta_distance || o->branch_id);
    f->filter_first = w->filter_after;
    f->bcj2_raw_sides = o->bcj2_raw_sides && o->bcj_x86 && o->bcj2 && o->method != FZ7_7Z_NONE && !w->filter_after;
    f->bcj = o->bcj_x86;
    f->has_delta = o->delta_distance != 0;
    f->delta = (uint8_t)(o->delta_distance ? o->delta_distance - 1 : 0);
    f->aes = o->key != NULL;
    fz7_status st = FZ7_OK;
    /* A folder on a pool of another size cannot overlap the pending one. */
    bool pooled = o->method == FZ7_7Z_LZMA2 && (o->threads > 1 || o->mt_block_size);
    if (pooled && w->pool && fz7_lzma2_pool_threads(w->pool) != o->threads) {
        if ((st = fz7_7z_writer_settle(w)) != FZ7_OK)
            return st;
        fz7_lzma2_pool_free(w->pool);
        w->pool = NULL;
    }
    if (pooled && !w->pool && (st = fz7_lzma2_pool_new(o->threads, &w->pool)) != FZ7_OK)
        return st;
    w->folder_mem = 0;
    if (pooled) {
        w->folder_mem = fz7_lzma2_mt_memusage(&o->lzma, o->threads, o->mt_block_size);
    }
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
    w->method_dst = &sink->os;
    if (o->key) {
        st = fz7_7zaes_writer_new(o->key, &sink->os, &w->aes);
        if (st != FZ7_OK)
            return st;
        f->aes_props_len = fz7_7zaes_writer_props(w->aes, f->aes_props);
        w->method_dst = fz7_7zaes_writer_stream(w->aes);
    }
    if (w->filter_after) {
        w->filter_dst = w->method_dst;
        w->filter_in = (main_sink){{filter_in_write}, w};
        w->method_dst = &w->filter_in.os;
    }
    if (o->method == FZ7_7Z_BZIP2 || o->method == FZ7_7Z_PPMD || o->method == FZ7_7Z_DEFLATE ||
        o->method == FZ7_7Z_DEFLATE64) {
        if (o->method == FZ7_7Z_BZIP2) {
            st = fz7_bzip2_enc_new(o->bzip2_block, w->method_dst, &w->bz);
        } else if (o->method != FZ7_7Z_PPMD) {
            st = fz7_deflate_enc_new_opts(&o->deflate, o->method == FZ7_7Z_DEFLATE64, w->method_dst, &w->defl);
        } else {
            st = fz7_ppmd7_enc_new(o->ppmd_order, o->ppmd_mem, w->method_dst, &w->ppmd);
            fz7_ppmd7_enc_props(o->ppmd_order, o->ppmd_mem, f->props);
            f->props_len = 5;
        }
        if (st != FZ7_OK) {
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
    } else if (o->method != FZ7_7Z_COPY && o->method != FZ7_7Z_NONE) {
        fz7_lzma_enc_opts lo = o->lzma;
        /* BCJ2's main stream is x86 code without branch operands: lc=4
         * mostly compresses it better than LZMA's default lc=3 lp=0.
         * Other lc/lp values are the caller's and stay, and so do the
         * defaults of a chain the caller spelled out (bcj2_raw_sides). */
        if (o->bcj_x86 && o->bcj2 && !w->filter_after && !f->bcj2_raw_sides && lo.lc == 3 && lo.lp == 0)
            lo.lc = 4;
        /* The dictionary follows the whole archive's bytes (the caller
         * fitted it), but this folder's encoder sees only folder_bytes: told so, its
         * match finder offers huge pages only for the part of its tables it
         * will fill, which lowers peak memory. */
        if (o->folder_bytes && (!lo.size_hint || o->folder_bytes < lo.size_hint))
            lo.size_hint = o->folder_bytes;
        if (o->method == FZ7_7Z_LZMA)
            st = fz7_lzma_enc_new(&lo, w->method_dst, &w->enc);
        else if (pooled)
            st = fz7_lzma2_enc_new_pooled(&lo, w->pool, o->mt_block_size, w->method_dst, &w->enc);
        else
            st = fz7_lzma2_enc_new(&lo, w->method_dst, &w->enc);
        if (st != FZ7_OK) {
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
        if (o->method == FZ7_7Z_LZMA) {
            fz7_lzma_enc_props(w->enc, f->props);
            f->props_len = 5;
        } else {
            f->props[0] = fz7_lzma2_enc_dict_prop(w->enc);
            f->props_len = 1;
        }
    }
    w->folder_bytes = o->folder_bytes;
    w->folder_in = 0;
    if (o->bcj_x86 && o->bcj2) {
        f->bcj2 = true;
        if ((st = bcj2_begin(w, o, f)) != FZ7_OK) {
            fz7_lzma_enc_free(w->enc);
            w->enc = NULL;
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
    }
    w->bcj = o->bcj_x86 && !o->bcj2;
    f->bcj = w->bcj;
    w->delta = o->delta_distance != 0;
    w->bcj_fill = 0;
    if (w->delta)
        fz7_delta_init(&w->delta_state, o->delta_distance);
    w->risc = o->branch_id != 0;
    if (w->risc)
        w->risc_state = (fz7_bcj_risc_state){arch, 0};
    if (w->bcj || w->delta || w->risc) {
        if (!w->bcj_buf && !(w->bcj_buf = malloc(BCJ_BUF_SIZE))) {
            fz7_lzma_enc_free(w->enc);
            w->enc = NULL;
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return FZ7_E_MEM;
        }
        if (w->bcj)
            fz7_bcj_x86_init(&w->bcj_state, 0);
    }
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
    if (w->bcj2 && !w->filter_after) {
        /* Without its size, an entry is taken to fill the folder's rest. */
        if (!size && w->folder_bytes > w->folder_in)
            size = w->folder_bytes - w->folder_in;
        if ((st = fz7_bcj2_enc_file(w->bcj2, size)) != FZ7_OK)
            return w->failed = st;
    }
    w->in_file = true;
    return FZ7_OK;
}

/* Bytes after the filter go to the method's encoder (or straight out). */
static fz7_status to_method(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->enc)
        return fz7_lzma_enc_write(w->enc, p, n);
    if (w->bz)
        return fz7_bzip2_enc_write(w->bz, p, n);
    if (w->ppmd)
        return fz7_ppmd7_enc_write(w->ppmd, p, n);
    if (w->defl)
        return fz7_deflate_enc_write(w->defl, p, n);
    return w->method_dst->write(w->method_dst, p, n);
}

/* Where the filter's output goes: the method, or after it the 7zAES or
 * the pack stream. */
static fz7_status filter_out(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->filter_after)
        return w->filter_dst->write(w->filter_dst, p, n);
    return to_method(w, p, n);
}

/* Converts a prefix of bcj_buf with the folder's branch filter (x86 or
 * another CPU's); returns its length. */
static size_t branch_encode(fz7_7z_writer *w)
{
    if (w->risc)
        return fz7_bcj_risc_code(&w->risc_state, w->bcj_buf, w->bcj_fill, true);
    return fz7_bcj_x86_encode(&w->bcj_state, w->bcj_buf, w->bcj_fill);
}

static fz7_status to_filter(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->delta) {
        /* Delta converts every byte at once: copy, convert, pass on. */
        while (n) {
            size_t take = n < BCJ_BUF_SIZE ? n : BCJ_BUF_SIZE;
            memcpy(w->bcj_buf, p, take);
            fz7_delta_encode(&w->delta_state, w->bcj_buf, take);
            fz7_status st = filter_out(w, w->bcj_buf, take);
            if (st != FZ7_OK)
                return st;
            p += take;
            n -= take;
        }
        return FZ7_OK;
    }
    if (w->bcj2)
        return fz7_bcj2_enc_write(w->bcj2, p, n);
    if (!w->bcj && !w->risc)
        return filter_out(w, p, n);
    while (n) {
        size_t take = BCJ_BUF_SIZE - w->bcj_fill;
        if (take > n)
            take = n;
        memcpy(w->bcj_buf + w->bcj_fill, p, take);
        w->bcj_fill += take;
        p += take;
        n -= take;
        if (w->bcj_fill < BCJ_BUF_SIZE)
            break;
        size_t done = branch_encode(w);
        fz7_status st = filter_out(w, w->bcj_buf, done);
        if (st != FZ7_OK)
            return st;
        memmove(w->bcj_buf, w->bcj_buf + done, w->bcj_fill - done);
        w->bcj_fill -= done;
    }
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
    fz7_status st = w->filter_after ? to_method(w, p, n) : to_filter(w, p, n);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

/* The bytes left in the branch filter's buffer at the folder's end: its
 * last few bytes pass through unconverted. */
static fz7_status flush_filter(fz7_7z_writer *w)
{
    if (!(w->bcj || w->risc) || !w->bcj_fill)
        return FZ7_OK;
    (void)branch_encode(w);
    size_t n = w->bcj_fill;
    w->bcj_fill = 0;
    return filter_out(w, w->bcj_buf, n);
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
    if (f->unpack_size == 0) {
        /* Nothing went in: drop the coders' few bytes and the folder. */
        fz7_lzma_enc_free(w->enc);
        w->enc = NULL;
        fz7_bzip2_enc_free(w->bz);
        w->bz = NULL;
        fz7_ppmd7_enc_free(w->ppmd);
        w->ppmd = NULL;
        fz7_deflate_enc_free(w->defl);
        w->defl = NULL;
        fz7_7zaes_writer_free(w->aes);
        w->aes = NULL;
        fz7_7z_writer_bcj2_free(w);
        st = fz7_fd_ostream_flush(&w->out);
        if (st == FZ7_OK && (ftruncate(w->out.fd, (off_t)w->folder_start) != 0 ||
                             lseek(w->out.fd, (off_t)w->folder_start, SEEK_SET) < 0))
            st = FZ7_E_IO;
        w->out.pos = w->folder_start;
        w->in_folder = false;
        if (st != FZ7_OK)
            w->failed = st;
        return st;
    }
    if (!w->filter_after)
        st = flush_filter(w);
    if (w->bcj2 && !w->filter_after)
        st = bcj2_end(w, f);
    uint64_t method_in = w->bcj2 && !w->filter_after ? f->bcj2_sizes[FZ7_BCJ2_MAIN] : f->unpack_size;
    /* A multi-threaded folder (not BCJ2: its side streams follow the main
     * one) becomes the pending folder: the next folder's blocks start while
     * its last ones are coded. fz7_7z_writer_settle() ends it. */
    if (st == FZ7_OK && w->enc && !w->bcj2 && !w->filter_after && w->pool && w->folder_mem
        && fz7_lzma2_mt_end_input(w->enc) == FZ7_OK) {
        w->pend_enc = w->enc;
        w->pend_aes = w->aes;
        w->pend_folder = w->n_folders;
        w->pend_start = w->folder_start;
        w->pend_mem = w->folder_mem;
        w->enc = NULL;
        w->aes = NULL;
        w->in_folder = false;
        w->n_folders++;
        return FZ7_OK;
    }
    if (st == FZ7_OK && w->enc)
        st = fz7_lzma_enc_finish(w->enc);
    if (st == FZ7_OK && w->bz)
        st = fz7_bzip2_enc_finish(w->bz);
    if (st == FZ7_OK && w->ppmd)
        st = fz7_ppmd7_enc_finish(w->ppmd);
    if (st == FZ7_OK && w->defl)
        st = fz7_deflate_enc_finish(w->defl);
    f->method_out = w->enc    ? fz7_lzma_enc_bytes_out(w->enc)
                  : w->bz   ? fz7_bzip2_enc_bytes_out(w->bz)
                  : w->ppmd ? fz7_ppmd7_enc_bytes_out(w->ppmd)
                  : w->defl ? fz7_deflate_enc_bytes_out(w->defl)
                            : method_in;
    fz7_bzip2_enc_free(w->bz);
    w->bz = NULL;
    fz7_ppmd7_enc_free(w->ppmd);
    w->ppmd = NULL;
    fz7_deflate_enc_free(w->defl);
    w->defl = NULL;
    if (st == FZ7_OK && w->filter_after)
        st = w->bcj2 ? bcj2_end(w, f) : flush_filter(w);
    if (st == FZ7_OK && w->aes)
        st = fz7_7zaes_writer_finish(w->aes, NULL);
    uint64_t main_end = w->out.pos;
    if (st == FZ7_OK && w->bcj2)
        st = bcj2_write_sides(w, f);
    fz7_7z_writer_bcj2_free(w);
    fz7_lzma_enc_free(w->enc);
    w->enc = NULL;
    fz7_7zaes_writer_free(w->aes);
    w->aes = NULL;
    w->in_folder = false;
    if (st != FZ7_OK) {
        w->failed = st;
        return st;
    }
    f->pack_size = main_end - w->folder_start;
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
    fz7_lzma_enc_free(w->enc);
    fz7_bzip2_enc_free(w->bz);
    fz7_ppmd7_enc_free(w->ppmd);
    fz7_deflate_enc_free(w->defl);
    fz7_7zaes_writer_free(w->aes);
    fz7_lzma_enc_free(w->pend_enc);
    fz7_7zaes_writer_free(w->pend_aes);
    fz7_lzma2_pool_free(w->pool);
    for (int k = 0; k < 2; k++)
        free(w->sinks[k].held.m.p);
    fz7_7z_writer_bcj2_free(w);
    for (size_t i = 0; i < w->n_entries; i++)
        free(w->entries[i].name);
    free(w->entries);
    for (size_t i = 0; i < w->n_folders; i++) {
        free(w->folders[i].raw_folder);
        free(w->folders[i].raw_sizes);
        free(w->folders[i].raw_pack_sizes);
    }
    free(w->folders);
    free(w->bcj_buf);
    fz7_fd_ostream_free(&w->out);
    free(w);
}

