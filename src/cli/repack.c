/* repack.c - the old entries of a .7z compressed again into a new one,
 * one new folder per old folder, through the reader's extraction
 * callbacks: what `fz7 a` and `fz7 u/d/rn` do with folders they cannot
 * copy whole (some entries go, or a layout the copier does not take). */
#include "cli/repack.h"

#include <stdio.h>
#include <string.h>

void fz7_repack_meta(const fz7_entry *e, const char *name, fz7_7z_entry_meta *m)
{
    memset(m, 0, sizeof *m);
    m->name = name ? name : e->path;
    m->attrib = e->has_attrib ? e->attrib : fz7_7z_attrib_from_mode(e->mode);
    m->is_dir = e->is_dir;
    m->is_anti = e->is_anti;
    m->has_mtime = e->has_mtime;
    m->mtime = e->mtime;
    m->mtime_nsec = e->mtime_nsec;
    if (e->has_ctime && e->more) {
        m->has_ctime = true;
        m->ctime = e->more->ctime;
        m->ctime_nsec = e->more->ctime_nsec;
    }
    if (e->has_atime && e->more) {
        m->has_atime = true;
        m->atime = e->more->atime;
        m->atime_nsec = e->more->atime_nsec;
    }
}

typedef struct repack_ctx {
    fz7_7z_writer *w;
    const fz7_settings *set;
    const char *const *names;
    fz7_7z_folder_opts fo;   /* for old folders without BCJ, */
    fz7_7z_folder_opts fo_bcj;   /* and with it (the filter in front of a chain too) */
    int64_t cur_folder;
    bool in_folder, in_file;
    fz7_repack_result *res;
} repack_ctx;

static fz7_status repack_begin(void *ctx, size_t index, const fz7_entry *e)
{
    repack_ctx *k = ctx;
    fz7_7z_entry_meta m;
    fz7_repack_meta(e, k->names ? k->names[index] : NULL, &m);
    if (!e->has_stream)
        return fz7_7z_writer_add_empty(k->w, &m);
    fz7_status st = FZ7_OK;
    if (k->in_folder && e->folder != k->cur_folder) {
        st = fz7_7z_writer_end_folder(k->w);
        k->in_folder = false;
    }
    if (st == FZ7_OK && !k->in_folder) {
        st = fz7_7z_writer_begin_folder(k->w, fz7_settings_bcj_again(k->set, e->method) ? &k->fo_bcj : &k->fo);
        k->in_folder = st == FZ7_OK;
        k->cur_folder = e->folder;
        k->res->folders += k->in_folder;
    }
    if (st == FZ7_OK)
        st = fz7_7z_writer_begin_file_sized(k->w, &m, e->size);
    k->in_file = st == FZ7_OK;
    return st;
}

static fz7_status repack_data(void *ctx, const uint8_t *p, size_t n)
{
    repack_ctx *k = ctx;
    return fz7_7z_writer_write(k->w, p, n);
}

static fz7_status repack_end(void *ctx, size_t index, fz7_status result, const char *detail)
{
    repack_ctx *k = ctx;
    if (result != FZ7_OK) {
        /* A damaged or locked entry is never silently dropped. */
        k->res->failed = result;
        k->res->failed_index = index;
        snprintf(k->res->detail, sizeof k->res->detail, "%s", detail ? detail : "");
        return result;
    }
    if (k->in_file) {
        k->in_file = false;
        return fz7_7z_writer_end_file(k->w);
    }
    return FZ7_OK;
}

fz7_status fz7_repack_entries(fz7_archive *old, const bool *select, const char *const *names,
                              const fz7_settings *set, const fz7_7zaes_key *key,
                              uint64_t size_hint, fz7_7z_writer *w, fz7_repack_result *res,
                              char *why, size_t whylen)
{
    memset(res, 0, sizeof *res);
    repack_ctx k = {.w = w, .set = set, .names = names, .cur_folder = -1, .res = res};
    fz7_settings_folder_opts(set, key, size_hint, false, 0, &k.fo);
    fz7_settings_folder_opts(set, key, size_hint, true, 0, &k.fo_bcj);
    fz7_extract_cb cb = {&k, repack_begin, repack_data, repack_end, NULL};
    fz7_status st = fz7_archive_extract(old, select, &cb, why, whylen);
    if (st == FZ7_OK && k.in_folder)
        st = fz7_7z_writer_end_folder(w);
    return st;
}
