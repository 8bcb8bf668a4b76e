/* cmd_add.c - `fz7 a`: scan the inputs, plan folders as 7-Zip does, and
 * write a .7z, .xz, tar, zip, gzip or bzip2 file into a temporary file beside the archive that is
 * renamed over it only when complete; any failure or signal removes the
 * temporary file and leaves an existing archive untouched. */
#include "cli/archive_out.h"
#include "cli/archive_type.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/repack.h"
#include "cli/settings.h"
#include "cli/update_rules.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"
#include "format/la_write.h"
#include "format/xz/xz_write.h"
#include "fsio/read_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bytes read from an input file per read(): 128 KiB. The encoder copies
 * them into its window, so a larger buffer only adds to the peak memory
 * without saving any copies. */
#define READ_CHUNK ((size_t)128 << 10)

/* ---- input scanning ----------------------------------------------------- */

typedef struct add_run {
    const struct fz7_options *o;
    FILE *out;
    fz7_settings set;
    fz7_la_opts la;          /* tar, zip, gzip, bzip2: their -m switches */
    fz7_tree tree;
    size_t warnings;
    fz7_scan_warnings scan;  /* .count points at warnings */
    uint64_t files_read;
    uint64_t bytes_out;         /* the archive's bytes as its writer counted them (-so) */
    uint8_t *buf;
    bool stdin_mode;         /* -si: the one item is standard input */
    bool stdin_sized;        /* -si from a regular file: its size is known (fstat) */
    const char *password;    /* -p, or asked for */
    fz7_7zaes_key *key;      /* derived once per archive */
    fz7_progress *progress;  /* the line on a terminal (-bsp); NULL = off */
    int sse_errno;           /* -sse: the error that stopped the command */
    bool *replaces;          /* per tree item: an old entry has its name (-bb1 "U") */
    uint8_t rules[FZ7_PAIR_STATES]; /* -u's, for the archive itself (ruled_one_stream) */
} add_run;

/* An input that cannot be opened or read: a warning, or with -sse the end
 * of the command (FZ7_E_IO; nothing is written, as 7-Zip). */
static fz7_status read_warn(add_run *r, const char *path, int err)
{
    fz7_progress_clear(r->progress);
    fz7_open_warn(&r->scan, r->out, path, err);
    if (!r->o->stop_on_open_error)
        return FZ7_OK;
    r->sse_errno = err;
    return FZ7_E_IO;
}

/* -bb1: "+ name" for each file whose data goes in, as 7-Zip lists them. */
static void list_added(add_run *r, const fz7_tree_item *it)
{
    if (r->o->bb < 1 || r->stdin_mode)
        return;
    fz7_progress_clear(r->progress);
    bool u = r->replaces && r->replaces[it - r->tree.items];
    fz7_print_item(r->out, u ? "U" : "+", it->name, it->kind == FZ7_ITEM_DIR ? "/" : "");
}

static fz7_status scan_inputs(add_run *r, dev_t skip_dev, ino_t skip_ino, bool have_skip)
{
    fz7_status st = fz7_scan_inputs(r->o, &r->tree, &r->scan);
    if (st != FZ7_OK)
        return st;
    /* Never add the archive to itself. */
    if (have_skip) {
        size_t w = 0;
        for (size_t i = 0; i < r->tree.count; i++) {
            fz7_tree_item *it = &r->tree.items[i];
            if (it->kind == FZ7_ITEM_FILE && it->dev == (uint64_t)skip_dev &&
                it->ino == (uint64_t)skip_ino) {
                free(it->name);
                free(it->disk_path);
                free(it->link_target);
                continue;
            }
            r->tree.items[w++] = *it;
        }
        r->tree.count = w;
    }
    return FZ7_OK;
}

/* ---- reading one input into a writer ------------------------------------ */

typedef fz7_status (*sink_fn)(void *w, const uint8_t *p, size_t n);

/* Opens an input; -1 with errno on failure. Symlinks stored as links have
 * no file to open (INT_MAX stands for them). */
static int open_input(const add_run *r, const fz7_tree_item *it)
{
    if (r->stdin_mode)
        return STDIN_FILENO;
    if (it->kind == FZ7_ITEM_SYMLINK)
        return INT_MAX;
    return fz7_open_input(it->disk_path, r->o->no_atime);
}

static void close_input(int fd)
{
    if (fd != INT_MAX && fd != STDIN_FILENO && fd >= 0)
        close(fd);
}

/* Pushes the item's data; *read_err gets errno when reading failed midway
 * (the data so far stays, as the file had shrunk). */
static fz7_status pump(add_run *r, const fz7_tree_item *it, int fd, sink_fn sink, void *w,
                       int *read_err)
{
    *read_err = 0;
    fz7_progress_item(r->progress, it->name);
    if (it->kind == FZ7_ITEM_SYMLINK)
        return sink(w, (const uint8_t *)it->link_target, strlen(it->link_target));
    for (;;) {
        ssize_t n = fz7_read_fill(fd, r->buf, READ_CHUNK);
        if (n < 0) {
            *read_err = errno;
            return FZ7_OK;
        }
        if (n == 0)
            return FZ7_OK;
        fz7_progress_add(r->progress, (uint64_t)n);
        fz7_status st = sink(w, r->buf, (size_t)n);
        if (st != FZ7_OK)
            return st;
    }
}

/* ---- .7z ------------------------------------------------------------------ */

static fz7_status sink_7z(void *w, const uint8_t *p, size_t n)
{
    return fz7_7z_writer_write(w, p, n);
}

static void meta_of_item(const add_run *r, const fz7_tree_item *it, fz7_7z_entry_meta *m)
{
    memset(m, 0, sizeof *m);
    m->name = it->name;
    m->attrib = fz7_7z_attrib_from_mode(it->mode);
    m->is_dir = it->kind == FZ7_ITEM_DIR;
    fz7_settings_item_times(&r->set, it, m);
}

/* Keeping the entries of the old archive: a folder whose files all stay
 * is copied, the others become new folders, re-compressed with the new
 * settings (repack.c). */
static fz7_status keep_old_entries(add_run *r, fz7_7z_writer *w, fz7_archive *old,
                                   const bool *keep, uint64_t size_hint, char *why,
                                   size_t whylen)
{
    size_t n = fz7_archive_count(old);
    int64_t n_folders = 0;
    for (size_t i = 0; i < n; i++)
        if (fz7_archive_entry(old, i)->folder + 1 > n_folders)
            n_folders = fz7_archive_entry(old, i)->folder + 1;
    bool *redo = calloc(n ? n : 1, sizeof *redo);          /* decode and compress again */
    size_t *in_folder = calloc((size_t)n_folders + 1, sizeof *in_folder);
    size_t *kept = calloc((size_t)n_folders + 1, sizeof *kept);
    fz7_7z_entry_meta *metas = calloc(n ? n : 1, sizeof *metas);
    fz7_status st = redo && in_folder && kept && metas ? FZ7_OK : FZ7_E_MEM;
    for (size_t i = 0; st == FZ7_OK && i < n; i++) {
        const fz7_entry *e = fz7_archive_entry(old, i);
        if (e->has_stream && e->folder >= 0) {
            in_folder[e->folder]++;
            kept[e->folder] += keep[i];
        }
    }
    bool any_redo = false;
    for (int64_t f = 0; st == FZ7_OK && f < n_folders; f++) {
        size_t m = 0;
        if (kept[f] && kept[f] == in_folder[f]) {
            for (size_t i = 0; i < n; i++) {
                const fz7_entry *e = fz7_archive_entry(old, i);
                if (e->has_stream && e->folder == f)
                    fz7_repack_meta(e, NULL, &metas[m++]);
            }
            st = fz7_7z_writer_copy_folder(w, old, (uint64_t)f, metas, m);
            if (st == FZ7_OK)
                continue;
            if (st != FZ7_E_UNSUPPORTED)
                break;
            st = FZ7_OK;   /* a layout the copier does not take: compress again */
        }
        for (size_t i = 0; i < n; i++) {
            const fz7_entry *e = fz7_archive_entry(old, i);
            if (keep[i] && e->has_stream && e->folder == f)
                redo[i] = any_redo = true;
        }
    }
    /* Entries without data go through the extraction callbacks too. */
    for (size_t i = 0; st == FZ7_OK && i < n; i++)
        if (keep[i] && !fz7_archive_entry(old, i)->has_stream)
            redo[i] = any_redo = true;
    if (st == FZ7_OK && any_redo) {
        fz7_repack_result res;   /* a damaged entry fails the command */
        st = fz7_repack_entries(old, redo, NULL, &r->set, r->key, size_hint, w, &res, why,
                                whylen);
    }
    if (st != FZ7_OK && !why[0])
        snprintf(why, whylen, "cannot copy the old archive's entries: %s", fz7_status_str(st));
    free(redo);
    free(in_folder);
    free(kept);
    free(metas);
    return st;
}

static fz7_status write_7z(add_run *r, int fd, fz7_archive *old, const bool *keep, char *why,
                           size_t whylen)
{
    fz7_7z_writer *w = NULL;
    fz7_status st = fz7_7z_writer_new(fd, &w);
    if (st != FZ7_OK)
        return st;
    fz7_7z_writer_order_7zip(w);
    /* 7-Zip shrinks the dictionary to the whole input, the same for every
     * folder (so the coder properties match 7zz's). */
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < r->tree.count; i++)
        if (r->tree.items[i].kind != FZ7_ITEM_DIR) {
            total += r->tree.items[i].size;
            largest = r->tree.items[i].size > largest ? r->tree.items[i].size : largest;
        }
    if (old)
        for (size_t i = 0; i < fz7_archive_count(old); i++)
            if (keep[i]) {
                uint64_t sz = fz7_archive_entry(old, i)->size;
                total += sz;
                largest = sz > largest ? sz : largest;
            }
    uint64_t size_hint = r->stdin_mode && !r->stdin_sized ? 0 : fz7_settings_size_hint(&r->set, total, largest);

    /* Old entries first: a folder whose files are all kept is copied as it
     * is (pack bytes unchanged, as 7-Zip updates); the kept files of the
     * other folders are decoded and compressed again. */
    if (old)
        st = keep_old_entries(r, w, old, keep, size_hint, why, whylen);

    /* Entries without data: folders and empty files, in path order. */
    fz7_tree *t = &r->tree;
    for (size_t i = 0; st == FZ7_OK && i < t->count; i++) {
        fz7_tree_item *it = &t->items[i];
        if (it->kind == FZ7_ITEM_DIR || (it->size == 0 && !r->stdin_mode)) {
            if (it->kind == FZ7_ITEM_FILE) {
                int in = open_input(r, it);   /* an unreadable empty file is still unreadable */
                if (in < 0) {
                    st = read_warn(r, it->disk_path, errno);
                    continue;
                }
                close_input(in);
            }
            fz7_7z_entry_meta m;
            meta_of_item(r, it, &m);
            st = fz7_7z_writer_add_empty(w, &m);
        }
    }

    /* Entries with data, in the folders 7-Zip would make. */
    fz7_folder_plan plan = {0};
    if (st == FZ7_OK)
        st = fz7_settings_plan(&r->set, t, NULL, r->stdin_mode, &plan, why, whylen);
    for (size_t f = 0; st == FZ7_OK && f < plan.n_folders; f++) {
        const fz7_plan_folder *pf = &plan.folders[f];
        fz7_7z_folder_opts fo;
        fz7_settings_folder_opts(&r->set, r->key, size_hint, pf->bcj, pf->bytes, &fo);
        st = fz7_7z_writer_begin_folder(w, &fo);
        for (size_t k = pf->first; st == FZ7_OK && k < pf->first + pf->count; k++) {
            fz7_tree_item *it = &t->items[plan.order[k]];
            list_added(r, it);
            int in = open_input(r, it);
            if (in < 0) {
                st = read_warn(r, it->disk_path, errno);
                continue;
            }
            fz7_7z_entry_meta m;
            meta_of_item(r, it, &m);
            st = fz7_7z_writer_begin_file_sized(w, &m, it->size);
            int rerr = 0;
            if (st == FZ7_OK)
                st = pump(r, it, in, sink_7z, w, &rerr);
            close_input(in);
            if (rerr && st == FZ7_OK)
                st = read_warn(r, it->disk_path, rerr);
            if (st == FZ7_OK)
                st = fz7_7z_writer_end_file(w);
            r->files_read++;
        }
        if (st == FZ7_OK)
            st = fz7_7z_writer_end_folder(w);
    }
    fz7_folder_plan_free(&plan);
    if (st == FZ7_OK) {
        fz7_7z_header_opts ho = {r->set.header_compress,
                                 fz7_settings_header_encrypted(r->o, old) ? r->key : NULL};
        st = fz7_7z_writer_finish(w, &ho);
    }
    fz7_7z_writer_free(w);
    return st;
}

/* ---- .xz ------------------------------------------------------------------ */

static fz7_status sink_xz(void *w, const uint8_t *p, size_t n)
{
    return fz7_xz_writer_write(w, p, n);
}

/* The one file a single-stream format (xz, gzip, bzip2) holds; NULL with
 * why set when the inputs are not exactly one file (7-Zip: E_INVALIDARG,
 * exit 2). */
static const fz7_tree_item *the_one_file(const add_run *r, const char *fmt, char *why,
                                         size_t whylen)
{
    if (r->tree.count == 1 && r->tree.items[0].kind != FZ7_ITEM_DIR)
        return &r->tree.items[0];
    snprintf(why, whylen, "E_INVALIDARG : %s archive holds exactly one file (%zu items were given)",
             fmt, r->tree.count);
    return NULL;
}

static fz7_status write_xz(add_run *r, int fd, char *why, size_t whylen)
{
    const fz7_tree_item *it = the_one_file(r, "an xz", why, whylen);
    if (!it)
        return FZ7_E_FORMAT;
    list_added(r, it);
    int in = open_input(r, it);
    if (in < 0) {
        read_warn(r, it->disk_path, errno);
        snprintf(why, whylen, "cannot read %s", it->disk_path);
        return FZ7_E_IO;
    }
    fz7_xz_opts xo = {0};
    xo.lzma = r->set.lzma;
    xo.check = r->set.check;
    xo.bcj_x86 = r->set.bcj == 1;
    xo.branch = r->set.branch_id != 0;
    xo.branch_arch = fz7_settings_branch_arch(r->set.branch_id);
    xo.delta_distance = r->set.delta;
    xo.empty_block = true;   /* 7zz's xz */
    /* An empty file known to be empty gets the smallest dictionary in its
     * empty block, as 7zz writes it (0 would mean "size unknown"). */
    xo.size_hint = r->stdin_mode && !r->stdin_sized ? 0 : it->size ? it->size : 1;
    /* Several threads: independent xz blocks compressed side by side, as
     * xz -T makes them (readers can then decode them in parallel too). */
    fz7_lzma_plan plan = fz7_settings_pick_mt(&r->set, xo.size_hint);
    xo.threads = plan.threads;
    xo.mt_block_size = plan.block_size;
    xo.lzma.mf_thread = plan.mf_thread;
    if (xo.mt_block_size)   /* the plan's blocks, or c='s on one thread */
        xo.block_size = xo.mt_block_size;
    fz7_xz_writer *w = NULL;
    fz7_status st = fz7_xz_writer_new(fd, &xo, &w);
    int rerr = 0;
    if (st == FZ7_OK)
        st = pump(r, it, in, sink_xz, w, &rerr);
    close_input(in);
    if (rerr) {
        read_warn(r, it->disk_path, rerr);
        st = FZ7_E_IO;   /* one file: a short copy of it is no archive */
    }
    if (st == FZ7_OK)
        st = fz7_xz_writer_finish(w);
    r->files_read++;
    r->bytes_out = fz7_xz_writer_size(w);
    fz7_xz_writer_free(w);
    return st;
}

/* ---- tar, zip, gzip, bzip2 (libarchive's writers) ----------------------- */

static fz7_status sink_la(void *w, const uint8_t *p, size_t n)
{
    return fz7_la_writer_write(w, p, n);
}

/* An old entry `a` keeps: no new item has its name. */
static fz7_status la_keep_old(void *ctx, fz7_la_writer *w, size_t index, const char *path,
                              const char *hardlink, fz7_la_copy_as *as)
{
    (void)w, (void)index, (void)hardlink;
    const add_run *r = ctx;
    as->name = path;
    for (size_t k = 0; k < r->tree.count; k++)
        if (strcmp(r->tree.items[k].name, path) == 0)
            as->name = NULL;
    return FZ7_OK;
}

static fz7_status write_la(add_run *r, int fd, fz7_la_kind kind, const char *old_path, char *why,
                           size_t whylen)
{
    size_t first = 0, end = r->tree.count;
    if (kind == FZ7_LA_GZIP || kind == FZ7_LA_BZIP2) {
        const fz7_tree_item *one = the_one_file(r, kind == FZ7_LA_GZIP ? "a gzip" : "a bzip2",
                                                why, whylen);
        if (!one)
            return FZ7_E_FORMAT;
    }
    fz7_la_writer *w = NULL;
    r->la.zip_largest = fz7_tree_largest_file(&r->tree);
    fz7_status st = fz7_la_writer_new(fd, kind, &r->la, &w, why, whylen);
    if (st != FZ7_OK)
        return st;
    if (old_path) {
        uint64_t d, f, b;
        st = fz7_la_writer_copy(w, old_path, la_keep_old, r, &d, &f, &b);
        if (st != FZ7_OK)
            snprintf(why, whylen, "%s : %s", old_path, fz7_la_writer_error(w));
    }
    /* -snh: later names of a hard-linked file become tar hard links, as
     * 7-Zip writes them (tar only: 7z has no such entry). */
    size_t *link_first = NULL;
    /* holder[f]: the name of inode group f (its first name's index) whose
     * data was stored; a name that could not be read holds nothing, so the
     * next name of the group is stored with the data instead. */
    size_t *holder = NULL;
    if (st == FZ7_OK && r->o->store_hardlinks && kind == FZ7_LA_TAR) {
        st = fz7_tree_hardlink_firsts(&r->tree, &link_first);
        if (st == FZ7_OK && link_first) {
            holder = malloc(r->tree.count * sizeof *holder);
            if (!holder)
                st = FZ7_E_MEM;
            for (size_t i = 0; holder && i < r->tree.count; i++)
                holder[i] = SIZE_MAX;
        }
    }
    for (size_t i = first; i < end && st == FZ7_OK; i++) {
        const fz7_tree_item *it = &r->tree.items[i];
        fz7_la_entry e = fz7_la_entry_of_item(it, r->o);
        if (kind == FZ7_LA_GZIP && r->stdin_mode && !(r->o->stdin_name && r->o->stdin_name[0]))
            e.name = "";   /* -si without a name: a gzip header without one, as 7zz writes it */
        size_t group = link_first ? link_first[i] : i;
        if (group != i && holder[group] != SIZE_MAX) {
            e.mode = S_IFREG | (it->mode & 07777);
            e.size = 0;
            e.hardlink = r->tree.items[holder[group]].name;
            st = fz7_la_writer_begin(w, &e);
            if (st == FZ7_OK)
                list_added(r, it);
            r->files_read++;   /* as 7zz lists and counts a link's name */
            continue;
        }
        if (it->kind != FZ7_ITEM_FILE) {
            st = fz7_la_writer_begin(w, &e);
            if (st == FZ7_OK && fz7_la_lists_item(kind, it))
                list_added(r, it);
            /* 7zz's tar writer counts every item, its zip writer links too */
            r->files_read += kind == FZ7_LA_TAR || (kind == FZ7_LA_ZIP && it->kind == FZ7_ITEM_SYMLINK);
            continue;
        }
        int in = open_input(r, it);
        if (in < 0) {
            read_warn(r, it->disk_path, errno);
            continue;
        }
        /* A file's size goes into its header first (tar): the size read
         * now, in case it changed since the scan. */
        struct stat sb;
        if ((!r->stdin_mode || r->stdin_sized) && fstat(in, &sb) == 0 && S_ISREG(sb.st_mode)) {
            e.size = (uint64_t)sb.st_size;
            if (!r->stdin_mode)   /* (zip reads it again with pread: not stdin, maybe not at 0) */
                e.data_fd = in;
        }
        if (r->stdin_mode) {
            e.mode = it->mode;   /* as 7-Zip stores it: what fstat says, a pipe's type bits too */
            e.size_unknown = !r->stdin_sized;
        }
        st = fz7_la_writer_begin(w, &e);
        int rerr = 0;
        if (st == FZ7_OK) {
            list_added(r, it);
            st = pump(r, it, in, sink_la, w, &rerr);
        }
        close_input(in);
        r->files_read++;
        if (rerr)
            read_warn(r, it->disk_path, rerr);
        else if (holder && it->nlink > 1)
            holder[group] = i;
    }
    if (st == FZ7_OK)
        st = fz7_la_writer_finish(w);
    if (st == FZ7_OK)
        r->bytes_out = fz7_la_writer_bytes(w);
    if (st != FZ7_OK && !why[0])
        snprintf(why, whylen, "%s", fz7_la_writer_error(w));
    fz7_la_writer_free(w);
    free(link_first);
    free(holder);
    return st;
}

/* -si: one item read from standard input, named by -si{name} or, as
 * 7-Zip names it, after the archive without its extension. */
/* True when the one file of tree is named name, as a gzip header names
 * it (the base name). */
static bool same_base_name(const fz7_tree *tree, const char *name)
{
    for (size_t k = 0; k < tree->count; k++) {
        if (tree->items[k].kind != FZ7_ITEM_FILE)
            continue;
        const char *base = strrchr(tree->items[k].name, '/');
        return strcmp(base ? base + 1 : tree->items[k].name, name) == 0;
    }
    return false;
}

/* a or u with -u rules on an existing file of one stream, whose entry is
 * old: the rules pair it with the items on disk as for any archive, and
 * since the file holds one file, it is written only when one is left (as
 * 7zz plans it). The entry kept: the file stays as it is (0, after 7zz's
 * lines). One file added: r's tree is cut to it, *replacing set and
 * *dropped when the entry goes (-1: the caller writes it). Any other
 * count: 7zz's lines and E_INVALIDARG (2). */
static int ruled_one_stream(add_run *r, const fz7_entry *old, const char *path, bool *replacing, bool *dropped)
{
    const struct fz7_options *o = r->o;
    const uint8_t *act = r->rules;
    size_t pair = SIZE_MAX;
    for (size_t k = 0; k < r->tree.count && pair == SIZE_MAX; k++) {
        const fz7_tree_item *it = &r->tree.items[k];
        if (it->kind != FZ7_ITEM_DIR && (o->case_sensitive ? strcmp : strcasecmp)(it->name, old->path) == 0)
            pair = k;
    }
    fz7_pair_state es = pair != SIZE_MAX ? fz7_pair_state_of(old, &r->tree.items[pair])
                        : fz7_selected(o, old->path) ? FZ7_PAIR_ARCHIVE_ONLY : FZ7_PAIR_UNMATCHED;
    bool kept = act[es] == FZ7_ACT_COPY, replaced = pair != SIZE_MAX && act[es] == FZ7_ACT_COMPRESS;
    uint64_t dirs = 0, files = 0, bytes = 0;
    size_t pick = SIZE_MAX;
    for (size_t k = 0; k < r->tree.count; k++) {
        const fz7_tree_item *it = &r->tree.items[k];
        if (k == pair ? !replaced : act[FZ7_PAIR_DISK_ONLY] != FZ7_ACT_COMPRESS)
            continue;
        if (it->kind == FZ7_ITEM_DIR)
            dirs++;
        else
            files++, bytes += it->size;
        pick = k;
    }
    uint64_t size = old->has_size ? old->size : 0;
    FILE *out = r->out;
    if (!kept && dirs == 0 && files == 1) {
        fz7_tree_keep_only(&r->tree, pick);
        *replacing = true;
        *dropped = !replaced;
        return -1;
    }
    fprintf(out, "Updating archive: %s\n\n", path);
    if (!kept && !replaced)
        fz7_print_counts(out, "\nDelete data from archive: ", 0, 1, size);
    if (kept)
        fz7_print_counts(out, "Keep old data in archive: ", 0, 1, size);
    fz7_print_counts(out, "Add new data to archive: ", dirs, files, bytes);
    if (kept && dirs == 0 && files == 0) {
        struct stat sb;
        fz7_print_one_stream_end(out, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
        return 0;
    }
    fputc('\n', out);
    fflush(out);
    return fz7_invalid_arg(path, "the update rules leave other than one file, and this format holds one");
}

static fz7_status stdin_item(add_run *r, const char *archive_base, bool xz)
{
    (void)xz;
    const char *name = r->o->stdin_name;
    char *own = NULL;
    if (!name || !*name) {
        own = strdup(archive_base);
        if (!own)
            return FZ7_E_MEM;
        char *dot = strrchr(own, '.');
        if (dot && dot != own)
            *dot = 0;
        name = own;
    }
    fz7_tree_item it;
    memset(&it, 0, sizeof it);
    it.name = own ? own : strdup(name);
    it.disk_path = strdup("stdin");
    it.kind = FZ7_ITEM_FILE;
    /* 7-Zip stores what fstat says of standard input: a redirected file's
     * mode and times, a pipe's or /dev/null's (type bits included). */
    struct stat sb;
    if (fstat(STDIN_FILENO, &sb) == 0) {
        it.mode = (uint32_t)sb.st_mode;
        if (S_ISREG(sb.st_mode)) {   /* 7-Zip takes a redirected file's size as known */
            it.size = (uint64_t)sb.st_size;
            r->stdin_sized = true;
        }
        it.mtime = (int64_t)sb.st_mtim.tv_sec, it.mtime_nsec = (uint32_t)sb.st_mtim.tv_nsec;
        it.ctime = (int64_t)sb.st_ctim.tv_sec, it.ctime_nsec = (uint32_t)sb.st_ctim.tv_nsec;
        it.atime = (int64_t)sb.st_atim.tv_sec, it.atime_nsec = (uint32_t)sb.st_atim.tv_nsec;
    } else {
        mode_t um = umask(0);
        umask(um);
        it.mode = S_IFREG | (0666 & ~um);
        it.mtime = (int64_t)time(NULL);
        it.ctime = it.atime = it.mtime;
    }
    r->tree.items = malloc(sizeof it);
    if (!it.name || !it.disk_path || !r->tree.items) {
        free(it.name);
        free(it.disk_path);
        return FZ7_E_MEM;
    }
    r->tree.items[0] = it;
    r->tree.count = r->tree.cap = 1;
    r->stdin_mode = true;
    return FZ7_OK;
}

/* ---- the command ------------------------------------------------------------ */

static int exit_code_of(fz7_status st)
{
    return st == FZ7_E_UNSUPPORTED ? FZ7_EXIT_USAGE : fz7_write_exit_code(st);
}

/* An item's name and index, sorted by name (strcmp) for bsearch. */
typedef struct named_item {
    const char *name;
    size_t k;
} named_item;

static int cmp_named_item(const void *a, const void *b)
{
    return strcmp(((const named_item *)a)->name, ((const named_item *)b)->name);
}

static int add_archive(const struct fz7_options *o, FILE *out, const uint64_t *vols,
                       size_t n_vols);

/* True when `a` adds to a tar or zip that exists: the update path writes
 * it (its entries merged by name as 7zz orders them, a hard link's data
 * kept when its file is replaced, -snh's links among the new files),
 * except from -si or with -v. */
static bool adds_to_tar_or_zip(const struct fz7_options *o)
{
    const char *canon = NULL;
    fz7_type type = fz7_type_to_write(o, &canon);
    if ((type != FZ7_TYPE_TAR && type != FZ7_TYPE_ZIP) || o->from_stdin || o->to_stdout ||
        o->n_volume_sizes)
        return false;
    char path[PATH_MAX];
    struct stat sb;
    return fz7_archive_name(o->archive, o->name_mode == 'e' ? "" : fz7_type_extension(type), path,
                            sizeof path) && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int fz7_cmd_add(const struct fz7_options *o)
{
    /* -so -an: no archive name is needed (the type is -t's), as in 7zz */
    struct fz7_options piped;
    if (!o->archive && o->no_archive_name && o->to_stdout) {
        if (o->type == FZ7_TYPE_AUTO) {
            fz7_print_banner(fz7_msg_stream(o));
            fprintf(stderr, "\n\nERROR:\ntype of archive is not specified\n");
            return FZ7_EXIT_FATAL;
        }
        piped = *o;
        piped.archive = "";
        o = &piped;
    }
    /* With -u the rules decide per item, and -u-/-u!name choose the
     * archives: the update path does all of it (7zz's `a` is its `u` with
     * the rules p1q1r2x2y2z2w2). */
    if (fz7_has_update_rules(o) || (o->archive && adds_to_tar_or_zip(o)))
        return fz7_cmd_update(o);
    return fz7_cmd_add_ruled(o);
}

int fz7_cmd_add_ruled(const struct fz7_options *o)
{
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);
    /* -v: the archive is cut into volumes once complete. */
    uint64_t *vols = NULL;
    size_t n_vols = 0;
    int rc = fz7_volume_sizes(o, &vols, &n_vols);
    if (rc == 0)
        rc = add_archive(o, out, vols, n_vols);
    free(vols);
    return rc;
}

/* -sfx with -v, as 7zz does it: the module alone under the archive's name,
 * the volumes (written already) holding the plain 7z archive. Returns 0,
 * or the exit code once the error is printed; a failure removes the
 * n_volumes volumes too, so no half of the pair stays. */
static int write_sfx_beside(const char *path, const char *work_dir, FILE *out,
                            const uint8_t *sfx, size_t sfx_len, size_t n_volumes)
{
    int fd = -1, werr = 0;
    uint64_t size = 0;
    int rc = fz7_temp_create(path, work_dir, out, &fd);
    if (rc == 0) {
        fz7_status st = fz7_temp_prepend(fd, sfx, sfx_len, &werr);
        if (st == FZ7_OK)
            st = fz7_temp_commit_new(fd, path, &size, &werr);   /* never over a file */
        else
            fz7_temp_drop(fd);
        if (st != FZ7_OK) {
            fflush(out);
            fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", werr, strerror(werr));
            rc = FZ7_EXIT_FATAL;
        }
    }
    if (rc) {
        char name[PATH_MAX + 16];
        for (size_t k = 0; k < n_volumes; k++) {
            fz7_volume_name(path, k, name, sizeof name);
            unlink(name);
        }
    }
    return rc;
}

/* fz7_cmd_add once the banner is out; vols[n_vols]: -v's sizes. */
static int add_archive(const struct fz7_options *o, FILE *out, const uint64_t *vols,
                       size_t n_vols)
{
    if (!o->archive) {
        fprintf(stderr, "\nCommand Line Error:\nCannot find archive name\n");
        return FZ7_EXIT_USAGE;
    }

    /* The format: -t, else the name's extension as 7-Zip reads it (a
     * .tar.gz is a gzip file of one file, as 7-Zip writes it); a name
     * without an extension gets the format's. */
    struct stat vol_sb;
    if (fz7_archive_is_volume_name(o->archive) && stat(o->archive, &vol_sb) == 0) {
        /* Adding to a volume set would rewrite .001 alone (7zz refuses). */
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    const char *canon = NULL;
    fz7_type type = fz7_type_to_write(o, &canon);
    if (type == FZ7_TYPE_LZMA || type == FZ7_TYPE_OTHER) {
        /* Formats 7-Zip (lzma, cab, iso, ...) or fz7 (wim) cannot create. */
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    bool xz = type == FZ7_TYPE_XZ;
    bool la = type == FZ7_TYPE_TAR || type == FZ7_TYPE_ZIP || type == FZ7_TYPE_GZIP ||
              type == FZ7_TYPE_BZIP2;
    fz7_la_kind la_kind = type == FZ7_TYPE_TAR ? FZ7_LA_TAR : type == FZ7_TYPE_ZIP ? FZ7_LA_ZIP
                          : type == FZ7_TYPE_GZIP ? FZ7_LA_GZIP : FZ7_LA_BZIP2;
    bool one_stream = xz || (la && (la_kind == FZ7_LA_GZIP || la_kind == FZ7_LA_BZIP2));
    const char *base = strrchr(o->archive, '/');   /* -si names the entry after it */
    base = base ? base + 1 : o->archive;
    char path[PATH_MAX];
    /* -sae, -saa; -sfx: no extension added (7-Zip adds .exe on Windows only) */
    const char *ext = o->name_mode == 'e' || o->sfx ? "" : fz7_type_extension(type);
    if (!fz7_archive_name(o->archive, ext, path, sizeof path)) {
        fprintf(stderr, "\nERROR: archive name too long\n");
        return FZ7_EXIT_USAGE;
    }


    add_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.out = out;
    r.scan.count = &r.warnings;
    if (fz7_has_update_rules(o)) {   /* checked as 7zz checks them, before the archive is opened */
        fz7_update_targets ts = {0};
        int prc = fz7_update_targets_parse(o, &ts);
        if (prc == 0 && ts.n)
            memcpy(r.rules, ts.t[0].act, sizeof r.rules);
        fz7_update_targets_free(&ts);
        if (prc)
            return prc;
    }
    char why[512] = "";
    fz7_status st = la ? fz7_la_settings_make(o, la_kind, &r.la, &r.set.refuse_late, why, sizeof why)
                       : fz7_settings_make(o, xz, &r.set, why, sizeof why);
    /* 7-Zip refuses a method or parameter it cannot use once it starts
     * the archive, after "Creating archive:"; the scan before it does not
     * use the settings. */
    bool refused = st == FZ7_E_ARG || st == FZ7_E_UNSUPPORTED;
    bool notimpl = la && st == FZ7_E_UNSUPPORTED;   /* a zip method 7zz does not know */
    if (st != FZ7_OK && !refused)
        return fz7_settings_fail(st, why);

    if (o->to_stdout && n_vols) {   /* 7zz cannot cut a stream into volumes either */
        fprintf(stderr, "\n\nSystem ERROR:\nE_FAIL : Unspecified error\n");
        return FZ7_EXIT_FATAL;
    }
    if (n_vols) {
        int vrc = fz7_refuse_volume_set(out, path);
        if (vrc)
            return vrc;
    }

    if (o->to_stdout && !xz && !la) {
        /* 7-Zip cannot stream a .7z either: its header points backwards. */
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }

    /* From here on every exit goes through done:. */
    fz7_archive *old = NULL;
    bool *keep = NULL;
    int rc = 0;
    uint8_t *sfx = NULL;   /* -sfx: the module's bytes, or the old archive's leading ones */
    size_t sfx_len = 0;
    bool sfx_kept = false; /* sfx holds what stood before the old archive */
    char sfx_shown[PATH_MAX] = "";
    if (o->sfx && (rc = fz7_sfx_load(o->sfx, out, &sfx, &sfx_len, sfx_shown, sizeof sfx_shown)) != 0)
        goto done;

    /* -p: one key for every folder (and the header with -mhe); -p alone
     * asks once the archive is opened, as 7-Zip does. */
    char *asked = NULL;
    r.password = o->password;
    if ((r.password || o->ask_password) && (xz || (la && la_kind != FZ7_LA_ZIP))) {
        fprintf(stderr, "\nERROR: %s archives cannot be encrypted by fz7\n",
                xz ? "xz" : fz7_type_display(type, NULL));
        rc = FZ7_EXIT_USAGE;
        goto done;
    }

    if (!o->to_stdout && (rc = fz7_refuse_read_only(out, path)) != 0)
        goto done;
    struct stat old_sb;
    bool exists = stat(path, &old_sb) == 0;
    /* With -v an existing archive is not updated: 7zz stops after the scan. */
    bool refuse_existing = exists && n_vols;
    if (refuse_existing)
        exists = false;

    /* An existing .7z is opened first, as 7-Zip does (its block comes
     * before the scan). */
    if (exists && !one_stream) {
        fz7_open_opts oo = {0};
        char err[256] = "";
        fprintf(out, "Open archive: %s\n", path);
        if (refused && !r.set.refuse_late) {   /* 7zz refuses it as it opens the archive */
            rc = fz7_print_open_refused(out, path, why);
            goto done;
        }
        st = fz7_open_asking(path, &oo, out, &r.password, &asked, &old, err, sizeof err);
        if (st == FZ7_E_NEED_PASSWORD && !r.password) {
            rc = fz7_break_signaled();
            goto done;
        }
        if (st != FZ7_OK && !la) {
            rc = fz7_print_update_open_error(out, path, type == FZ7_TYPE_AUTO ? NULL : "7z", err, st);
            goto done;
        }
        if (st != FZ7_OK) {
            fflush(out);
            fprintf(stderr, "ERROR: %s\n%s : %s\n", path, path,
                    err[0] ? err : fz7_status_str(st));
            rc = FZ7_EXIT_FATAL;
            goto done;
        }
        if (!fz7_type_matches(la ? type : FZ7_TYPE_7Z, NULL, fz7_archive_get_info(old))) {
            rc = fz7_print_update_open_error(out, path, la ? fz7_type_display(type, NULL)
                                             : type == FZ7_TYPE_AUTO ? NULL : "7z",
                                             "Cannot open the file as archive", FZ7_E_FORMAT);
            goto done;
        }
        if ((rc = fz7_refuse_rewrite(out, path, old)) != 0)
            goto done;
        fz7_print_archive_block(out, path, old, NULL);
        fputc('\n', out);
        if (!la)
            fz7_settings_times_from(&r.set, old);
    }

    /* An existing gzip, xz or bzip2 file is replaced when its one entry is
     * the file added again (7zz: a nightly `a x.gz f` runs every night);
     * its block comes before the scan, as 7zz prints it. */
    char *gz_name = NULL;
    fz7_entry gz_entry;   /* its times and size, for -u's states */
    memset(&gz_entry, 0, sizeof gz_entry);
    if (exists && one_stream && !o->to_stdout && !o->from_stdin) {
        fz7_open_opts oo = {0};
        char err[256] = "";
        bool opened = fz7_archive_open(path, &oo, &old, err, sizeof err) == FZ7_OK &&
                      fz7_type_matches(type, NULL, fz7_archive_get_info(old));
        if (opened && fz7_archive_count(old) == 1) {
            fprintf(out, "Open archive: %s\n", path);
            fz7_print_archive_block(out, path, old, NULL);
            fputc('\n', out);
            gz_entry = *fz7_archive_entry(old, 0);
            gz_name = strdup(gz_entry.path);
            gz_entry.path = gz_name;
        }
        fz7_archive_close(old);
        old = NULL;
        if (!opened) {   /* not one of its type: 7zz stops here, before the scan */
            fprintf(out, "Open archive: %s\n", path);
            rc = fz7_print_update_open_error(out, path, fz7_type_display(type, NULL),
                                             "Cannot open the file as archive", FZ7_E_FORMAT);
            goto done;
        }
    }

    /* Scan. */
    if (o->from_stdin) {
        st = stdin_item(&r, base, one_stream);
    } else {
        fprintf(out, "Scanning the drive:\n");
        st = scan_inputs(&r, exists ? old_sb.st_dev : 0, exists ? old_sb.st_ino : 0, exists);
    }
    if (st != FZ7_OK) {
        fprintf(stderr, "\nERROR: %s\n", fz7_status_str(st));
        rc = exit_code_of(st);
        goto done;
    }
    uint64_t n_dirs, n_files, n_bytes;
    fz7_tree_counts(&r.tree, &n_dirs, &n_files, &n_bytes);
    if (!o->from_stdin)
        fz7_print_scan_counts(out, &r.tree);
    /* u -si: u's rules for the one item (x1, z1): the archive's entry of
     * its name stays when it is newer or the same, as in 7zz */
    for (size_t i = 0; o->command == FZ7_CMD_UPDATE && old && r.tree.count && i < fz7_archive_count(old); i++) {
        const fz7_entry *e = fz7_archive_entry(old, i);
        fz7_pair_state ps = strcmp(e->path, r.tree.items[0].name) || e->is_dir ? FZ7_PAIR_DISK_ONLY
                            : fz7_pair_state_of(e, &r.tree.items[0]);
        if (ps == FZ7_PAIR_ARCHIVE_NEWER || ps == FZ7_PAIR_SAME) {
            fz7_tree_free(&r.tree);
            n_files = n_bytes = 0;
        }
    }
    if (refuse_existing) {
        rc = fz7_print_exists(out, path);
        goto done;
    }

    /* Another file is not added: a file of one stream holds one, and a
     * file of another kind is not ours to overwrite (7zz refuses both;
     * xz(1) without -f too). */
    bool replacing = gz_name && n_files == 1 && n_dirs == 0 && same_base_name(&r.tree, gz_name);
    bool dropped = false;   /* -u's rules dropped the old entry: 7zz's line for it */
    if (gz_name && fz7_has_update_rules(o)) {
        rc = ruled_one_stream(&r, &gz_entry, path, &replacing, &dropped);
        free(gz_name);
        if (rc >= 0)
            goto done;
        rc = 0;
        fz7_tree_counts(&r.tree, &n_dirs, &n_files, &n_bytes);
    } else {
        free(gz_name);
    }
    if (exists && one_stream && !o->to_stdout && !replacing) {
        fz7_open_opts oo = {0};
        char err[256] = "";
        st = fz7_archive_open(path, &oo, &old, err, sizeof err);
        bool same = st == FZ7_OK && fz7_type_matches(type, NULL, fz7_archive_get_info(old));
        const char *tn = fz7_type_display(type, NULL);
        fflush(out);
        if (same) {   /* 7zz's lines, then why on a line of its own */
            const fz7_entry *e = fz7_archive_count(old) == 1 ? fz7_archive_entry(old, 0) : NULL;
            fprintf(out, "Updating archive: %s\n\n", path);
            fz7_print_counts(out, "Keep old data in archive: ", 0, e ? 1 : 0, e && e->has_size ? e->size : 0);
            fz7_print_counts(out, "Add new data to archive: ", n_dirs, n_files, n_bytes);
            if (e && n_files == 0 && n_dirs == 0) {
                /* nothing new (all excluded): the file stays as it is, as 7zz ends */
                struct stat sb;
                fz7_print_one_stream_end(out, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0);
                goto done;
            }
            fputc('\n', out);
            fflush(out);
            char why[128];
            snprintf(why, sizeof why, "%s %s archive holds one file and cannot take another; remove it or "
                     "choose another name", xz ? "an" : "a", tn);
            rc = fz7_invalid_arg(path, why);
        } else {
            fprintf(stderr, "ERROR: %s : Cannot open the file as [%s] archive; it is not replaced\n",
                    path, tn);
            rc = FZ7_EXIT_FATAL;
        }
        goto done;
    }

    /* An existing .7z: keep the entries not replaced by new ones, and what
     * stands before it (as in cmd_update.c; -sfx replaces that). */
    if (exists && !one_stream) {
        if (!o->sfx && !n_vols) {
            if ((rc = fz7_lead_load(path, old, &sfx, &sfx_len)) != 0)
                goto done;
            sfx_kept = sfx_len > 0;
        }
        size_t n = fz7_archive_count(old);
        keep = calloc(n ? n : 1, sizeof *keep);
        r.replaces = calloc(r.tree.count ? r.tree.count : 1, sizeof *r.replaces);
        if (!keep || !r.replaces) {
            rc = FZ7_EXIT_MEMORY;
            goto done;
        }
        /* the items by name, so that each old entry finds its file in
         * log time (a nightly a of 100,000 files into last night's) */
        named_item *by_name = malloc((r.tree.count ? r.tree.count : 1) * sizeof *by_name);
        if (!by_name) {
            rc = FZ7_EXIT_MEMORY;
            goto done;
        }
        for (size_t k = 0; k < r.tree.count; k++)
            by_name[k] = (named_item){r.tree.items[k].name, k};
        qsort(by_name, r.tree.count, sizeof *by_name, cmp_named_item);
        uint64_t kept_files = 0, kept_dirs = 0, kept_bytes = 0;
        for (size_t i = 0; i < n; i++) {
            const fz7_entry *e = fz7_archive_entry(old, i);
            keep[i] = !e->is_anti;
            named_item key = {e->path, 0};
            const named_item *hit = keep[i] && r.tree.count
                                        ? bsearch(&key, by_name, r.tree.count, sizeof *by_name, cmp_named_item)
                                        : NULL;
            if (hit && !fz7_replacement_unreadable(o, &r.tree.items[hit->k]))
                keep[i] = false, r.replaces[hit->k] = true;
            if (keep[i]) {
                if (e->is_dir)
                    kept_dirs++;
                else
                    kept_files++, kept_bytes += e->size;
            }
        }
        free(by_name);
        fprintf(out, "Updating archive: %s\n\n", path);
        if ((rc = fz7_refuse_duplicate(out, &r.tree)) != 0)
            goto done;
        if (kept_dirs || kept_files)   /* as 7zz: no line when nothing is kept */
            fz7_print_counts(out, "Keep old data in archive: ", kept_dirs, kept_files, kept_bytes);
    } else {
        if (!o->to_stdout && !replacing && (rc = fz7_refuse_dangling_link(out, path)) != 0)
            goto done;
        fprintf(out, "%s archive: %s\n\n", replacing ? "Updating" : "Creating", o->to_stdout ? "stdout" : path);
        if (dropped)
            fz7_print_counts(out, "\nDelete data from archive: ", 0, 1, gz_entry.has_size ? gz_entry.size : 0);
    }
    if ((rc = fz7_refuse_duplicate(out, &r.tree)) != 0)
        goto done;
    if (o->nt_streams) {   /* -sns, -sni: 7zz's writer refuses them on Linux */
        fflush(out);
        rc = fz7_not_implemented(path, "-sns and -sni are Windows's (NTFS streams, NT security)");
        goto done;
    }
    if ((sfx && (xz || la)) || (refused && !r.set.refuse_late)) {   /* a module runs 7z archives only */
        fflush(out);
        rc = fz7_invalid_arg(path, refused ? why : NULL);
        goto done;
    }
    if (o->from_stdin && !r.stdin_sized && r.tree.count)   /* the size is not known before the read: 7-Zip's line has none */
        fputs("Add new data to archive: 1 file\n", out);
    else
        fz7_print_counts(out, "Add new data to archive: ", n_dirs, n_files, n_bytes);
    fputc('\n', out);
    fflush(out);
    if (la && la_kind == FZ7_LA_TAR && o->from_stdin && !r.stdin_sized) {
        fflush(out);   /* 7zz's refusal: a tar header holds the size, before the data */
        rc = fz7_invalid_arg(path, "a tar entry's size goes before its data: -si from a pipe has none");
        goto done;
    }
    if (refused) {   /* the coder's refusal, as 7zz's coder refuses as it starts */
        rc = notimpl ? fz7_not_implemented(path, why) : fz7_invalid_arg(path, why);
        goto done;
    }
    if (xz && r.set.check_refused) {   /* 7zz's xz encoder refuses it as it starts */
        rc = fz7_invalid_arg(path, "-mcrc takes 0, 4, 8 or 32: the check's size in bytes");
        goto done;
    }

    if (!r.password && o->ask_password) {
        if ((rc = fz7_ask_new_password_or_fail(out, &asked)) != 0)
            goto done;
        r.password = asked;
    }
    rc = fz7_password_key(r.password, &r.key);
    if (rc)
        goto done;
    /* A zip's entries: ZipCrypto unless -mem= names AES (as 7zz). */
    r.la.password = r.password;
    r.la.crypt = !r.password ? FZ7_LA_CRYPT_NONE : r.la.crypt ? r.la.crypt : FZ7_LA_CRYPT_ZIPCRYPTO;

    r.buf = malloc(READ_CHUNK);
    if (!r.buf) {
        rc = FZ7_EXIT_MEMORY;
        goto done;
    }
    /* The progress line counts the input read (its size unknown with -si). */
    r.progress = fz7_progress_start(o, o->from_stdin ? 0 : n_bytes);
    if (o->to_stdout) {
        /* -so: straight to stdout; .xz only, as 7-Zip (a .7z needs seeking). */
        if (!xz && !la) {
            fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
            rc = FZ7_EXIT_FATAL;
            goto done;
        }
        st = la ? write_la(&r, STDOUT_FILENO, la_kind, NULL, why, sizeof why)
                : write_xz(&r, STDOUT_FILENO, why, sizeof why);
        fz7_progress_end(r.progress);
        r.progress = NULL;
        if (st != FZ7_OK) {
            fprintf(stderr, "\nERROR: %s\n", why[0] ? why : fz7_status_str(st));
            rc = exit_code_of(st);
            goto done;
        }
        fprintf(out, "\nFiles read from disk: %llu\nArchive size: ", (unsigned long long)r.files_read);
        fz7_print_size(out, r.bytes_out);
        fputc('\n', out);
        rc = r.warnings ? FZ7_EXIT_WARNING : 0;
        if (!rc)
            fprintf(out, "Everything is Ok\n");
        goto done;
    }

    /* Write into a temporary file beside the archive. */
    int fd = -1;
    rc = fz7_temp_create(path, o->work_dir, out, &fd);
    if (rc)
        goto done;
    errno = 0;
    st = xz ? write_xz(&r, fd, why, sizeof why)
         : la ? write_la(&r, fd, la_kind, old ? path : NULL, why, sizeof why)
              : write_7z(&r, fd, old, keep, why, sizeof why);
    int werr = errno;
    fz7_progress_end(r.progress);
    r.progress = NULL;
    uint64_t size = 0;
    size_t n_volumes = 0;
    bool cutting = st == FZ7_OK && n_vols;
    if (st == FZ7_OK && sfx && !cutting)
        st = fz7_temp_prepend(fd, sfx, sfx_len, &werr);
    if (cutting)
        st = fz7_temp_commit_volumes(fd, path, vols, n_vols, &size, &n_volumes, &werr);
    else if (st == FZ7_OK)
        st = fz7_temp_commit(fd, path, exists ? &old_sb : NULL, &size, &werr);
    else
        fz7_temp_drop(fd);
    if (st == FZ7_OK && cutting && sfx && !r.sse_errno &&
        (rc = write_sfx_beside(path, o->work_dir, out, sfx, sfx_len, n_volumes)) != 0)
        goto done;
    if (r.sse_errno) { /* -sse: 7-Zip's end, nothing written */
        rc = fz7_sse_stop(&r.scan, out, r.sse_errno);
        goto done;
    }
    if (st != FZ7_OK && cutting) {   /* a volume that exists, a full disk: as 7zz */
        fflush(out);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", werr, strerror(werr));
        rc = FZ7_EXIT_FATAL;
        goto done;
    }
    if (st != FZ7_OK && !strncmp(why, "E_INVALIDARG : ", 15)) {
        /* 7zz's words for inputs the format cannot hold; fz7's why after */
        fflush(out);
        rc = fz7_invalid_arg(path, why + 15);
        goto done;
    }
    if (st != FZ7_OK) {
        fz7_print_write_error(out, path, st, werr, why);
        rc = exit_code_of(st);
        goto done;
    }

    if (sfx && !sfx_kept) {
        fprintf(out, "Write SFX: %s : ", sfx_shown);
        fz7_print_size(out, sfx_len);
        fputc('\n', out);
    }
    fprintf(out, "\nFiles read from disk: %llu\nArchive size: ", (unsigned long long)r.files_read);
    fz7_print_size(out, size);
    fputc('\n', out);
    if (n_vols)
        fprintf(out, "Volumes: %zu\n", n_volumes);
    if (o->delete_after) {
        fputc('\n', out);   /* 7-Zip's line for its deleting stage */
        fz7_delete_inputs(&r.tree, NULL, &r.scan, o->bb >= 1 ? out : NULL);   /* files, then folders */
    }
    rc = fz7_print_write_end(out, &r.scan, r.warnings);
    if (o->stamp_newest && !n_vols) {
        /* -stl: the archive's mtime is its newest entry's, kept ones
         * included, as 7-Zip gives it. */
        fz7_newest nw = {0};
        for (size_t i = 0; i < r.tree.count; i++)
            fz7_newest_take(&nw, r.tree.items[i].mtime, r.tree.items[i].mtime_nsec);
        for (size_t i = 0; old && keep && i < fz7_archive_count(old); i++) {
            const fz7_entry *e = fz7_archive_entry(old, i);
            if (keep[i] && e->has_mtime)
                fz7_newest_take(&nw, e->mtime, e->mtime_nsec);
        }
        fz7_newest_stamp(&nw, path);
    }

done:
    free(sfx);
    fz7_progress_end(r.progress);
    fz7_7zaes_key_free(r.key);
    fz7_7zaes_cache_clear();
    if (asked) {
        explicit_bzero(asked, strlen(asked));
        free(asked);
    }
    free(r.buf);
    fz7_scan_warnings_free(&r.scan);
    free(keep);
    free(r.replaces);
    if (old)
        fz7_archive_close(old);
    fz7_tree_free(&r.tree);
    return rc;
}
