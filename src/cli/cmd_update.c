/* cmd_update.c - `fz7 u`, `fz7 d`, `fz7 rn` (and `fz7 a` with -u) on a
 * .7z: decide per entry by the update rules what stays, goes, is renamed,
 * replaced or becomes an anti-item; copy folders whose entries all stay as
 * they are (no decoding, no password), re-compress the others, and write
 * each result (the archive, each -u...!name) to a temporary file renamed
 * into place. */
#include "cli/archive_out.h"
#include "cli/archive_type.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/repack.h"
#include "cli/settings.h"
#include "cli/update_rules.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"
#include "format/la_write.h"
#include "format/xz/xz_write.h"
#include "lzma/lzma_presets.h"
#include "fsio/read_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes read from an input file per read(): 128 KiB. The encoder copies
 * them into its window, so a larger buffer only adds to the peak memory
 * without saving any copies. */
#define READ_CHUNK ((size_t)128 << 10)

/* What becomes of an old entry. */
typedef enum entry_fate { FATE_KEEP = 0, FATE_DELETE, FATE_REPLACE, FATE_ANTI } entry_fate;

typedef struct update_run {
    const struct fz7_options *o;
    uint8_t *sfx;                 /* -sfx: the module put before the archive (not the extras),
                                     or the old archive's own leading bytes (sfx_kept) */
    size_t sfx_len;
    bool sfx_kept;                /* sfx holds what stood before the old archive */
    char sfx_shown[PATH_MAX];     /* its path as printed */
    fz7_settings set;             /* how new and re-compressed data is compressed */
    FILE *out;
    const char *path;             /* the archive */
    fz7_archive *old;             /* NULL when the archive does not exist yet */
    size_t n_old;
    entry_fate *fate;             /* per old entry */
    char **new_name;              /* rn: per old entry, or NULL = unchanged */
    fz7_tree tree;                /* u: files found on disk ... */
    bool *add;                    /* ... and which of them go in */
    bool *anti_new;               /* ... which become anti-items (-ur3) */
    bool *replaces;               /* ... and which replace an old entry (-bb1 "U") */
    int64_t *pair_of_item;        /* ... the old entry of each (-1 none, -2 the archive) */
    fz7_pair_state *state;        /* per old entry; NULL when the disk is not scanned */
    int sse_errno;                /* -sse: the error that stopped the command */
    const char *password;         /* -p or asked for; NULL = none */
    fz7_7zaes_key *key;
    uint8_t *buf;
    size_t warnings;
    fz7_scan_warnings scan;       /* .count points at warnings */
    uint64_t files_read;
    bool extra;                   /* writing a -u...!name archive (never replaces a file) */
    const uint64_t *vols;         /* -v: volume sizes (n_vols of them), or none */
    size_t n_vols;
    bool la;                      /* a tar or zip (libarchive's writer), not a .7z */
    fz7_la_opts la_opts;          /* its -m switches */
    fz7_la_kind la_kind;
    const char *old_path;         /* the archive read (r->path is the one written) */
    bool entry_failed;            /* an old entry did not decode (why holds 7zz's lines) */
} update_run;

/* ---- deciding each entry's fate ------------------------------------------ */

/* rn: the first pair whose old name is the entry's path, or a leading part
 * of it (a folder renames everything below it); -x! keeps an entry's name. */
static fz7_status plan_rename(update_run *r)
{
    const struct fz7_options *o = r->o;
    for (size_t i = 0; i < r->n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r->old, i);
        const char *p = e->path;
        if (fz7_excluded_item(o, p, e->is_dir))
            continue;
        for (size_t k = 0; k + 1 < o->n_names; k += 2) {
            const char *from = o->names[k].pattern, *to = o->names[k + 1].pattern;
            size_t n = strlen(from);
            bool same = o->case_sensitive ? strncmp(p, from, n) == 0 : strncasecmp(p, from, n) == 0;
            if (n == 0 || !same || (p[n] != 0 && p[n] != '/'))
                continue;
            size_t len = strlen(to) + strlen(p + n) + 1;
            r->new_name[i] = malloc(len);
            if (!r->new_name[i])
                return FZ7_E_MEM;
            snprintf(r->new_name[i], len, "%s%s", to, p + n);
            break;
        }
    }
    return FZ7_OK;
}

static bool g_sort_case_sensitive;
static const fz7_archive *g_sort_arc;

static int cmp_entry_path(const void *x, const void *y)
{
    const char *a = fz7_archive_entry(g_sort_arc, *(const size_t *)x)->path;
    const char *b = fz7_archive_entry(g_sort_arc, *(const size_t *)y)->path;
    return g_sort_case_sensitive ? strcmp(a, b) : strcasecmp(a, b);
}

/* a, u (and d with rules that need it): scan the names on disk (everything here when none are given, as
 * 7-Zip does) and pair each item with the archive's entry of the same
 * name and kind (a file and a folder of one name are two items, as in
 * 7zz); an entry's state says which is newer, by FILETIME ticks: an entry
 * without a time counts as newer than the file (7zz keeps it under u's
 * rules, whatever its size). Entries the names do not select are p. */
static fz7_status pair_inputs(update_run *r, const struct stat *arc_sb, bool arc_exists)
{
    const struct fz7_options *o = r->o;
    fz7_status st = fz7_scan_inputs(o, &r->tree, &r->scan);
    if (st != FZ7_OK)
        return st;

    size_t n = r->tree.count;
    r->add = calloc(n ? n : 1, sizeof *r->add);
    r->anti_new = calloc(n ? n : 1, sizeof *r->anti_new);
    r->replaces = calloc(n ? n : 1, sizeof *r->replaces);
    r->pair_of_item = malloc((n ? n : 1) * sizeof *r->pair_of_item);
    r->state = malloc((r->n_old ? r->n_old : 1) * sizeof *r->state);
    size_t *by_path = malloc((r->n_old ? r->n_old : 1) * sizeof *by_path);
    if (!r->add || !r->anti_new || !r->replaces || !r->pair_of_item || !r->state || !by_path) {
        free(by_path);
        return FZ7_E_MEM;
    }
    for (size_t i = 0; i < r->n_old; i++) {
        by_path[i] = i;
        r->state[i] = fz7_selected(o, fz7_archive_entry(r->old, i)->path) ? FZ7_PAIR_ARCHIVE_ONLY
                                                                           : FZ7_PAIR_UNMATCHED;
    }
    g_sort_case_sensitive = o->case_sensitive;
    g_sort_arc = r->old;
    if (r->n_old)
        qsort(by_path, r->n_old, sizeof *by_path, cmp_entry_path);

    for (size_t k = 0; k < n; k++) {
        const fz7_tree_item *it = &r->tree.items[k];
        r->pair_of_item[k] = -1;
        /* Never the archive itself. */
        if (arc_exists && it->kind == FZ7_ITEM_FILE && it->dev == (uint64_t)arc_sb->st_dev &&
            it->ino == (uint64_t)arc_sb->st_ino) {
            r->pair_of_item[k] = -2;
            continue;
        }
        size_t lo = 0, hi = r->n_old;
        while (lo < hi) {   /* the first entry of that name */
            size_t mid = lo + (hi - lo) / 2;
            const char *p = fz7_archive_entry(r->old, by_path[mid])->path;
            int c = o->case_sensitive ? strcmp(it->name, p) : strcasecmp(it->name, p);
            if (c <= 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        int64_t found = -1;
        for (; found < 0 && lo < r->n_old; lo++) {
            const fz7_entry *e = fz7_archive_entry(r->old, by_path[lo]);
            int c = o->case_sensitive ? strcmp(it->name, e->path) : strcasecmp(it->name, e->path);
            if (c != 0)
                break;
            bool paired = r->state[by_path[lo]] > FZ7_PAIR_ARCHIVE_ONLY;
            if (!paired && e->is_dir == (it->kind == FZ7_ITEM_DIR))
                found = (int64_t)by_path[lo];
        }
        if (found < 0)
            continue;
        r->pair_of_item[k] = found;
        const fz7_entry *e = fz7_archive_entry(r->old, (size_t)found);
        r->state[found] = fz7_pair_state_of(e, it);
    }
    free(by_path);
    return FZ7_OK;
}

/* The fates for one archive to write, by t's rules: per old entry keep,
 * delete, replace (by its file on disk) or anti-item; per item on disk
 * whether it is read (add), is an anti-item, or replaces an entry. */
static void plan_target(update_run *r, const fz7_update_target *t)
{
    for (size_t i = 0; i < r->n_old; i++) {
        /* Without a scan every selected entry is q (not on disk). */
        fz7_pair_state ps = r->state ? r->state[i]
                            : fz7_selected(r->o, fz7_archive_entry(r->old, i)->path)
                                ? FZ7_PAIR_ARCHIVE_ONLY : FZ7_PAIR_UNMATCHED;
        unsigned a = t->act[ps];
        r->fate[i] = a == FZ7_ACT_COPY ? FATE_KEEP : a == FZ7_ACT_COMPRESS ? FATE_REPLACE
                     : a == FZ7_ACT_ANTI ? FATE_ANTI : FATE_DELETE;
    }
    for (size_t k = 0; r->add && k < r->tree.count; k++) {
        int64_t pair = r->pair_of_item[k];
        unsigned a = pair == -2 ? FZ7_ACT_IGNORE
                     : pair < 0 ? t->act[FZ7_PAIR_DISK_ONLY]
                     : r->fate[pair] == FATE_REPLACE ? FZ7_ACT_COMPRESS : FZ7_ACT_IGNORE;
        r->add[k] = a == FZ7_ACT_COMPRESS;
        r->anti_new[k] = a == FZ7_ACT_ANTI;   /* a pair's anti-item is its entry's */
        r->replaces[k] = pair >= 0 && r->add[k];
        if (r->replaces[k] && fz7_replacement_unreadable(r->o, &r->tree.items[k])) {
            r->fate[pair] = FATE_KEEP;   /* the old copy stays; the write warns of the file */
            r->replaces[k] = false;
        }
    }
}

/* ---- writing --------------------------------------------------------------- */

/* Whether old entry i goes into the new archive as it is. */
static bool stays(const update_run *r, size_t i)
{
    return r->fate[i] == FATE_KEEP;   /* an old anti-item too, as 7zz keeps it */
}

static void meta_of_entry(const update_run *r, size_t i, fz7_7z_entry_meta *m)
{
    fz7_repack_meta(fz7_archive_entry(r->old, i), r->new_name ? r->new_name[i] : NULL, m);
}

/* Adds the entries without data that the new archive holds: kept old ones
 * and new or replaced ones from disk (the writer lists them first, sorted
 * as 7-Zip sorts them: fz7_7z_writer_order_7zip). */
static fz7_status write_empty_entries(update_run *r, fz7_7z_writer *w)
{
    fz7_status st = FZ7_OK;
    for (size_t i = 0; st == FZ7_OK && i < r->n_old; i++) {
        if (stays(r, i) && !fz7_archive_entry(r->old, i)->has_stream) {
            fz7_7z_entry_meta m;
            meta_of_entry(r, i, &m);
            st = fz7_7z_writer_add_empty(w, &m);
        } else if (r->fate[i] == FATE_ANTI) {
            const fz7_entry *e = fz7_archive_entry(r->old, i);
            fz7_7z_entry_meta m = {.name = e->path, .is_dir = e->is_dir, .is_anti = true};
            st = fz7_7z_writer_add_empty(w, &m);
        }
    }
    for (size_t i = 0; st == FZ7_OK && r->anti_new && i < r->tree.count; i++) {
        if (r->anti_new[i]) {
            const fz7_tree_item *it = &r->tree.items[i];
            fz7_7z_entry_meta m = {.name = it->name, .is_dir = it->kind == FZ7_ITEM_DIR,
                                   .is_anti = true};
            st = fz7_7z_writer_add_empty(w, &m);
        }
    }
    for (size_t i = 0; st == FZ7_OK && r->add && i < r->tree.count; i++) {
        const fz7_tree_item *it = &r->tree.items[i];
        if (r->add[i] && (it->kind == FZ7_ITEM_DIR || it->size == 0)) {
            fz7_7z_entry_meta m = {0};
            m.name = it->name;
            m.attrib = fz7_7z_attrib_from_mode(it->mode);
            m.is_dir = it->kind == FZ7_ITEM_DIR;
            fz7_settings_item_times(&r->set, it, &m);
            st = fz7_7z_writer_add_empty(w, &m);   /* not "read": 7zz counts data only */
        }
    }
    return st;
}

/* -bb1: "+" a new file, "U" one that replaces an entry, as 7-Zip lists them. */
static void list_item(const update_run *r, const fz7_tree_item *it, const char *tail)
{
    if (r->o->bb >= 1)
        fz7_print_item(r->out, r->replaces && r->replaces[it - r->tree.items] ? "U" : "+", it->name, tail);
}

/* Opens item it's file. On failure warns and returns -1 with *st FZ7_OK
 * (the item is left out) or, under -sse, FZ7_E_IO. */
static int open_item(update_run *r, const fz7_tree_item *it, fz7_status *st)
{
    *st = FZ7_OK;
    int fd = fz7_open_input(it->disk_path, r->o->no_atime);
    if (fd < 0) {
        fz7_open_warn(&r->scan, r->out, it->disk_path, errno);
        if (r->o->stop_on_open_error) {
            r->sse_errno = errno;
            *st = FZ7_E_IO;
        }
    }
    return fd;
}

/* Reads fd to its end into sink(w, ...), closes it and counts the file
 * read; a read error is warned about and ends the data there. */
static fz7_status pump_item(update_run *r, const fz7_tree_item *it, int fd,
                            fz7_status (*sink)(void *w, const uint8_t *p, size_t n), void *w)
{
    fz7_status st = FZ7_OK;
    while (st == FZ7_OK) {
        ssize_t n = fz7_read_fill(fd, r->buf, READ_CHUNK);
        if (n < 0) {
            fz7_open_warn(&r->scan, r->out, it->disk_path, errno);
            break;
        }
        if (n == 0)
            break;
        st = sink(w, r->buf, (size_t)n);
    }
    close(fd);
    r->files_read++;
    return st;
}

static fz7_status sink_7z(void *w, const uint8_t *p, size_t n)
{
    return fz7_7z_writer_write(w, p, n);
}

/* Pushes one file from disk into the open folder. */
static fz7_status write_item(update_run *r, fz7_7z_writer *w, const fz7_tree_item *it)
{
    list_item(r, it, "");
    int fd = -1;
    fz7_status st;
    if (it->kind != FZ7_ITEM_SYMLINK && (fd = open_item(r, it, &st)) < 0)
        return st;
    fz7_7z_entry_meta m = {0};
    m.name = it->name;
    m.attrib = fz7_7z_attrib_from_mode(it->mode);
    fz7_settings_item_times(&r->set, it, &m);
    st = fz7_7z_writer_begin_file_sized(w, &m, it->size);
    if (st == FZ7_OK && it->kind == FZ7_ITEM_SYMLINK)
        st = fz7_7z_writer_write(w, (const uint8_t *)it->link_target, strlen(it->link_target));
    if (fd >= 0 && st == FZ7_OK) {
        st = pump_item(r, it, fd, sink_7z, w);
    } else {
        if (fd >= 0)
            close(fd);
        r->files_read++;
    }
    if (st == FZ7_OK)
        st = fz7_7z_writer_end_file(w);
    return st;
}

/* An old folder, as 7zz lists it: with -bb3 "= #f" and "= path" for each
 * entry when it is copied whole; with -bb2 "R #f", then "R path" for an
 * entry compressed again and ". path" for one left out, when repacked. */
static void list_folder(const update_run *r, size_t f, const size_t *mem, size_t n, bool copied)
{
    if (r->o->bb < (copied ? 3 : 2))
        return;
    fprintf(r->out, "%c #%zu\n", copied ? '=' : 'R', f);
    for (size_t k = 0; k < n; k++)
        fz7_print_item(r->out, copied ? "=" : stays(r, mem[k]) ? "R" : ".", fz7_archive_entry(r->old, mem[k])->path, "");
}

static fz7_status write_archive(update_run *r, int fd, char *why, size_t whylen)
{
    fz7_7z_writer *w = NULL;
    fz7_status st = fz7_7z_writer_new(fd, &w);
    if (st != FZ7_OK)
        return st;
    fz7_7z_writer_order_7zip(w);
    size_t n_folders = r->old ? (size_t)fz7_archive_get_info(r->old)->num_blocks : 0;
    /* Per old folder: whether every entry stays unchanged (copy it). */
    bool *intact = malloc((n_folders ? n_folders : 1) * sizeof *intact);
    /* members[start[f] .. start[f+1]-1]: the old entries of folder f, in order. */
    size_t *start = calloc(n_folders + 1, sizeof *start);
    size_t *filled = calloc(n_folders ? n_folders : 1, sizeof *filled);
    size_t *members = malloc((r->n_old ? r->n_old : 1) * sizeof *members);
    fz7_7z_entry_meta *metas = malloc((r->n_old ? r->n_old : 1) * sizeof *metas);
    bool *select = calloc(r->n_old ? r->n_old : 1, sizeof *select);
    if (!intact || !start || !filled || !members || !metas || !select)
        st = FZ7_E_MEM;
    for (size_t f = 0; st == FZ7_OK && f < n_folders; f++)
        intact[f] = true;
    /* The dictionary is shrunk to all the archive will hold, as `a` does. */
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < r->n_old; i++)
        if (r->fate[i] == FATE_KEEP) {
            uint64_t sz = fz7_archive_entry(r->old, i)->size;
            total += sz;
            largest = sz > largest ? sz : largest;
        }
    for (size_t i = 0; r->add && i < r->tree.count; i++)
        if (r->add[i] && r->tree.items[i].kind != FZ7_ITEM_DIR) {
            total += r->tree.items[i].size;
            largest = r->tree.items[i].size > largest ? r->tree.items[i].size : largest;
        }
    uint64_t size_hint = fz7_settings_size_hint(&r->set, total, largest);
    for (size_t i = 0; st == FZ7_OK && i < r->n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r->old, i);
        if (!e->has_stream)
            continue;
        if (e->folder < 0 || (size_t)e->folder >= n_folders)
            st = FZ7_E_FORMAT;
        else if (r->fate[i] != FATE_KEEP)
            intact[e->folder] = false;
    }

    /* Entries without data, old and new (the writer lists them first,
     * folders, then files, each by path, as 7-Zip does). */
    if (st == FZ7_OK)
        st = write_empty_entries(r, w);

    /* Old folders in their order: copied whole when every entry stays,
     * else the kept entries decoded and compressed again, one new folder
     * each (7-Zip keeps this order; new data comes after it). */
    for (size_t i = 0; st == FZ7_OK && i < r->n_old; i++)   /* entries by folder */
        if (fz7_archive_entry(r->old, i)->has_stream)
            start[fz7_archive_entry(r->old, i)->folder + 1]++;
    for (size_t f = 0; st == FZ7_OK && f < n_folders; f++)
        start[f + 1] += start[f];
    for (size_t i = 0; st == FZ7_OK && i < r->n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r->old, i);
        if (e->has_stream)
            members[start[e->folder] + filled[e->folder]++] = i;
    }
    for (size_t f = 0; st == FZ7_OK && f < n_folders; f++) {
        size_t n = start[f + 1] - start[f];
        const size_t *mem = members + start[f];
        bool any_kept = false;
        for (size_t k = 0; k < n; k++) {
            any_kept |= stays(r, mem[k]);
            meta_of_entry(r, mem[k], &metas[k]);
        }
        if (!any_kept)
            continue;
        if (intact[f]) {
            st = fz7_7z_writer_copy_folder(w, r->old, f, metas, n);
            if (st == FZ7_OK) {
                list_folder(r, f, mem, n, true);
                continue;
            }
            if (st != FZ7_E_UNSUPPORTED) {   /* I/O: the caller names errno */
                if (st != FZ7_E_IO)
                    snprintf(why, whylen, "cannot copy the old archive's data: %s",
                             fz7_status_str(st));
                break;
            }
            st = FZ7_OK;   /* e.g. a substream without a CRC: compress it again */
        }
        for (size_t k = 0; k < n; k++)
            select[mem[k]] = stays(r, mem[k]);
        list_folder(r, f, mem, n, false);
        fz7_repack_result res;
        st = fz7_repack_entries(r->old, select, (const char *const *)r->new_name, &r->set,
                                r->key, size_hint, w, &res, why, whylen);
        for (size_t k = 0; k < n; k++)
            select[mem[k]] = false;
        if (res.failed != FZ7_OK) {
            st = res.failed;
            const fz7_entry *e = fz7_archive_entry(r->old, res.failed_index);
            const char *words = fz7_entry_error_words(res.failed, e->encrypted);
            bool same = strcmp(words, res.detail) == 0 || !res.detail[0];
            /* 7zz's lines: the words, the item on a line of its own */
            snprintf(why, whylen, "%s : \n%s%s%s", words, e->path, same ? "" : "\n", same ? "" : res.detail);
            r->entry_failed = true;
        }
    }

    /* u: files with data in the folders `a` would make. */
    fz7_tree *t = &r->tree;
    fz7_folder_plan plan = {0};
    if (st == FZ7_OK && r->add)
        st = fz7_settings_plan(&r->set, t, r->add, false, &plan, why, whylen);
    for (size_t f = 0; st == FZ7_OK && f < plan.n_folders; f++) {
        const fz7_plan_folder *pf = &plan.folders[f];
        fz7_7z_folder_opts fo;
        fz7_settings_folder_opts(&r->set, r->key, size_hint, pf->bcj, pf->bytes, &fo);
        st = fz7_7z_writer_begin_folder(w, &fo);
        for (size_t k = pf->first; st == FZ7_OK && k < pf->first + pf->count; k++)
            st = write_item(r, w, &t->items[plan.order[k]]);
        if (st == FZ7_OK)
            st = fz7_7z_writer_end_folder(w);
    }
    fz7_folder_plan_free(&plan);

    if (st == FZ7_OK) {
        bool he = fz7_settings_header_encrypted(r->o, r->old);
        fz7_7z_header_opts ho = {r->set.header_compress, he ? r->key : NULL};
        st = fz7_7z_writer_finish(w, &ho);
    }
    free(intact);
    free(start);
    free(filled);
    free(members);
    free(metas);
    free(select);
    fz7_7z_writer_free(w);
    return st;
}

/* ---- tar and zip ---------------------------------------------------------- */

static fz7_status sink_la(void *w, const uint8_t *p, size_t n)
{
    return fz7_la_writer_write(w, p, n);
}

/* The items from disk that go in, in name order, and the next to write;
 * per old entry the kept hard link that takes its data when it goes
 * (SIZE_MAX: none). With -snh (tar): per item the first name of its
 * hard-linked file (fz7_tree_hardlink_firsts), and per such first name
 * the item written with the data (SIZE_MAX: none yet). */
typedef struct la_merge {
    update_run *r;
    size_t *order;
    size_t n, next;
    size_t *heir;
    size_t *link_first, *holder;
} la_merge;

/* Writes item k from disk into the tar or zip: with -snh a later name of
 * a file already written is a tar hard link to it, as 7-Zip writes it. */
static fz7_status write_la_item(la_merge *m, fz7_la_writer *w, size_t k)
{
    update_run *r = m->r;
    const fz7_tree_item *it = &r->tree.items[k];
    if (fz7_la_lists_item(r->la_kind, it))
        list_item(r, it, it->kind == FZ7_ITEM_DIR ? "/" : "");
    fz7_la_entry e = fz7_la_entry_of_item(it, r->o);
    size_t group = m->link_first ? m->link_first[k] : k;
    if (m->holder && m->holder[group] != SIZE_MAX) {
        e.mode = S_IFREG | (it->mode & 07777);
        e.size = 0;
        e.hardlink = r->tree.items[m->holder[group]].name;
        r->files_read++;   /* as 7zz counts a link's name */
        return fz7_la_writer_begin(w, &e);
    }
    if (it->kind != FZ7_ITEM_FILE) {
        /* 7zz's tar writer counts every item, its zip writer links too */
        r->files_read += r->la_kind == FZ7_LA_TAR || (r->la_kind == FZ7_LA_ZIP && it->kind == FZ7_ITEM_SYMLINK);
        return fz7_la_writer_begin(w, &e);
    }
    fz7_status st;
    int fd = open_item(r, it, &st);
    if (fd < 0)
        return st;
    /* The size goes into the header first: the size now, in case it
     * changed since the scan (a file that shrinks while it is read is
     * padded with zeros by libarchive). */
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        e.size = (uint64_t)sb.st_size;
        e.data_fd = fd;
    }
    st = fz7_la_writer_begin(w, &e);
    if (st != FZ7_OK) {
        close(fd);
        return st;
    }
    size_t warned = r->warnings;
    st = pump_item(r, it, fd, sink_la, w);
    if (st == FZ7_OK && m->holder && it->nlink > 1 && r->warnings == warned)
        m->holder[group] = k;   /* read whole: later names link to it */
    return st;
}

static int cmp_item_name(const void *x, const void *y, void *tree)
{
    const fz7_tree *t = tree;
    return strcmp(t->items[*(const size_t *)x].name, t->items[*(const size_t *)y].name);
}

/* Writes the items from disk whose names sort before name (all: NULL). */
static fz7_status la_items_before(la_merge *m, fz7_la_writer *w, const char *name)
{
    fz7_status st = FZ7_OK;
    while (st == FZ7_OK && m->next < m->n &&
           (!name || strcmp(m->r->tree.items[m->order[m->next]].name, name) < 0))
        st = write_la_item(m, w, m->order[m->next++]);
    return st;
}

/* The name old entry i is written under. */
static const char *la_name(const update_run *r, size_t i)
{
    return r->new_name[i] ? r->new_name[i] : fz7_archive_entry(r->old, i)->path;
}

/* An old entry: the new items before it, then it as its fate says. A
 * file that goes (d, or replaced by u) while a hard link to it stays is
 * written under the first such link's name, that link dropped and the
 * others pointed at it: no kept name loses its data, as with rm in a
 * tree (tar, hard links only). */
static fz7_status la_update_entry(void *ctx, fz7_la_writer *w, size_t index, const char *path,
                                  const char *hardlink, fz7_la_copy_as *as)
{
    la_merge *m = ctx;
    update_run *r = m->r;
    if (index >= r->n_old || strcmp(fz7_archive_entry(r->old, index)->path, path) != 0)
        return FZ7_E_FORMAT;   /* not the archive that was listed: changed meanwhile */
    const fz7_entry *e = fz7_archive_entry(r->old, index);
    const char *name = NULL;
    if (!stays(r, index)) {
        if (m->heir[index] != SIZE_MAX)
            name = la_name(r, m->heir[index]);
    } else if (e->is_hardlink && e->more && hardlink) {
        size_t i = e->more->hardlink_index, h = i < r->n_old ? m->heir[i] : SIZE_MAX;
        if (h != index)
            name = la_name(r, index);
        if (h != SIZE_MAX)
            as->link = la_name(r, h);
        else if (i < r->n_old && r->new_name[i])
            as->link = r->new_name[i];
    } else {
        name = la_name(r, index);
    }
    fz7_status st = la_items_before(m, w, name ? name : path);
    as->name = st == FZ7_OK ? name : NULL;
    if (st == FZ7_OK && name && r->o->bb >= 3 && r->la_kind == FZ7_LA_ZIP) {
        /* 7zz's "= path" for a zip's entry copied (by its old name); a tar's it does not list */
        size_t n = strlen(path);
        fz7_print_item(r->out, "=", path, e->is_dir && (n == 0 || path[n - 1] != '/') ? "/" : "");
    }
    return st;
}

/* The new tar or zip: the old entries that stay (renamed by rn), in their
 * order, with the items from disk merged in by name. 7zz writes the whole
 * list sorted by name; an archive that was sorted (as 7zz and fz7 write
 * them) comes out the same, one in another order keeps it. */
static fz7_status write_la_archive(update_run *r, int fd, char *why, size_t whylen)
{
    for (size_t i = 0; i < r->n_old; i++) {
        if (r->fate[i] == FATE_ANTI) {   /* tar and zip have no anti-items */
            snprintf(why, whylen, "E_NOTIMPL : Not implemented");
            return FZ7_E_UNSUPPORTED;
        }
    }
    la_merge m = {.r = r};
    m.order = malloc((r->tree.count ? r->tree.count : 1) * sizeof *m.order);
    m.heir = malloc((r->n_old ? r->n_old : 1) * sizeof *m.heir);
    if (!m.order || !m.heir) {
        free(m.order);
        free(m.heir);
        return FZ7_E_MEM;
    }
    for (size_t i = 0; i < r->n_old; i++)
        m.heir[i] = SIZE_MAX;
    for (size_t j = 0; j < r->n_old; j++) {
        const fz7_entry *e = fz7_archive_entry(r->old, j);
        size_t i = e->is_hardlink && e->more ? e->more->hardlink_index : SIZE_MAX;
        if (i < j && stays(r, j) && !stays(r, i) && m.heir[i] == SIZE_MAX)
            m.heir[i] = j;
    }
    for (size_t k = 0; r->add && k < r->tree.count; k++) {
        if (r->anti_new[k]) {
            free(m.order);
            free(m.heir);
            snprintf(why, whylen, "E_NOTIMPL : Not implemented");
            return FZ7_E_UNSUPPORTED;
        }
        if (r->add[k])
            m.order[m.n++] = k;
    }
    qsort_r(m.order, m.n, sizeof *m.order, cmp_item_name, &r->tree);
    fz7_status st = FZ7_OK;
    if (r->o->store_hardlinks && r->la_kind == FZ7_LA_TAR) {   /* -snh: tar has hard links */
        st = fz7_tree_hardlink_firsts(&r->tree, &m.link_first);
        if (st == FZ7_OK && m.link_first && !(m.holder = malloc(r->tree.count * sizeof *m.holder)))
            st = FZ7_E_MEM;
        for (size_t i = 0; m.holder && i < r->tree.count; i++)
            m.holder[i] = SIZE_MAX;
    }
    fz7_la_writer *w = NULL;
    /* A zip's new entries: the cipher -mem= names, else as below. */
    fz7_la_opts lo = r->la_opts;
    lo.password = r->password;
    lo.zip_largest = fz7_tree_largest_file(&r->tree);
    /* -p without -mem: AES-256 when the zip has AES entries already, as
     * 7zz picks it, else ZipCrypto */
    bool aes = false;
    for (size_t i = 0; i < r->n_old && !aes; i++)
        aes = fz7_archive_entry(r->old, i)->zip_aes;
    lo.crypt = !r->password ? FZ7_LA_CRYPT_NONE
               : lo.crypt   ? lo.crypt
               : aes        ? FZ7_LA_CRYPT_AES256
                            : FZ7_LA_CRYPT_ZIPCRYPTO;
    if (st == FZ7_OK)
        st = fz7_la_writer_new(fd, r->la_kind, &lo, &w, why, whylen);
    if (st == FZ7_OK && r->old) {
        uint64_t d, f, b;
        st = fz7_la_writer_copy(w, r->old_path, la_update_entry, &m, &d, &f, &b);
        if (st == FZ7_E_FORMAT && !fz7_la_writer_error(w)[0])
            snprintf(why, whylen, "the archive changed while it was read");
    }
    if (st == FZ7_OK)
        st = la_items_before(&m, w, NULL);
    if (st == FZ7_OK)
        st = fz7_la_writer_finish(w);
    if (st != FZ7_OK && !why[0] && w)
        snprintf(why, whylen, "%s", fz7_la_writer_error(w));
    fz7_la_writer_free(w);
    free(m.order);
    free(m.heir);
    free(m.link_first);
    free(m.holder);
    return st;
}

/* The lines 7-Zip prints before writing an archive: what is deleted
 * (the archive itself only), kept and added, and the anti-items. */
static void print_plan(update_run *r, bool updating, bool itself)
{
    FILE *out = r->out;
    uint64_t del[3] = {0}, keep[3] = {0}, add[3] = {0};   /* folders, files, bytes */
    uint64_t anti[2] = {0};                               /* folders, files */
    for (size_t i = 0; i < r->n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r->old, i);
        if (r->fate[i] == FATE_ANTI) {
            anti[!e->is_dir]++;
            continue;
        }
        uint64_t *c = r->fate[i] == FATE_DELETE ? del : r->fate[i] == FATE_KEEP ? keep : NULL;
        if (!c)
            continue;
        if (e->is_dir)
            c[0]++;
        else
            c[1]++, c[2] += e->size;
    }
    for (size_t i = 0; r->add && i < r->tree.count; i++) {
        bool dir = r->tree.items[i].kind == FZ7_ITEM_DIR;
        if (r->anti_new[i])
            anti[!dir]++;
        if (!r->add[i])
            continue;
        if (dir)
            add[0]++;
        else
            add[1]++, add[2] += r->tree.items[i].size;
    }
    fprintf(out, "%s archive: %s\n\n", updating ? "Updating" : "Creating", r->path);
    if (itself && (del[0] || del[1]))
        fz7_print_counts(out, "\nDelete data from archive: ", del[0], del[1], del[2]);
    if (keep[0] || keep[1])
        fz7_print_counts(out, "Keep old data in archive: ", keep[0], keep[1], keep[2]);
    fz7_print_counts(out, "Add new data to archive: ", add[0], add[1], add[2]);
    if (anti[0] || anti[1]) {
        if (anti[0])
            fprintf(out, "%llu anti-folder%s%s", (unsigned long long)anti[0],
                    anti[0] == 1 ? "" : "s", anti[1] ? ", " : "");
        if (anti[1])
            fprintf(out, "%llu anti-file%s", (unsigned long long)anti[1], anti[1] == 1 ? "" : "s");
        fputc('\n', out);
    }
    fputc('\n', out);
    fflush(out);
}

/* Writes the new archive beside path and renames it over path; on any
 * failure the temporary file is removed and path left as it was. */
static int commit_archive(update_run *r, bool exists, const struct stat *old_sb)
{
    const char *path = r->path;
    int fd = -1;
    int rc = fz7_temp_create(path, r->o->work_dir, r->out, &fd);
    if (rc)
        return rc;
    char why[512] = "";
    errno = 0;
    fz7_status st = r->la ? write_la_archive(r, fd, why, sizeof why) : write_archive(r, fd, why, sizeof why);
    int werr = errno;
    uint64_t size = 0;
    size_t n_volumes = 0;
    bool cutting = st == FZ7_OK && r->n_vols;
    if (st == FZ7_OK && r->sfx && !r->extra)
        st = fz7_temp_prepend(fd, r->sfx, r->sfx_len, &werr);
    if (cutting)
        st = fz7_temp_commit_volumes(fd, path, r->vols, r->n_vols, &size, &n_volumes, &werr);
    else if (st == FZ7_OK && r->extra)
        st = fz7_temp_commit_new(fd, path, &size, &werr);
    else if (st == FZ7_OK)
        st = fz7_temp_commit(fd, path, exists ? old_sb : NULL, &size, &werr);
    else
        fz7_temp_drop(fd);
    if (st == FZ7_E_IO && r->extra && werr == EEXIST) {
        /* An extra archive named twice (or made meanwhile): 7zz's words. */
        fprintf(r->out, "\nError:\ncannot open file\n%s\nerrno=%d : %s\n", path, EEXIST,
                strerror(EEXIST));
        fflush(r->out);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", EEXIST, strerror(EEXIST));
        return FZ7_EXIT_FATAL;
    }
    if (st != FZ7_OK && cutting) {   /* a volume that exists, a full disk: as 7zz */
        fflush(r->out);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", werr, strerror(werr));
        return FZ7_EXIT_FATAL;
    }
    if (r->sse_errno) /* -sse: 7-Zip's end, the archive left as it was */
        return fz7_sse_stop(&r->scan, r->out, r->sse_errno);
    if (st != FZ7_OK && r->entry_failed) {   /* a kept entry that does not decode: 7zz's E_FAIL */
        fflush(r->out);
        fprintf(stderr, "ERROR: %s\n\n\n\nSystem ERROR:\nE_FAIL : Unspecified error\n", why);
        return FZ7_EXIT_FATAL;
    }
    if (st != FZ7_OK) {
        fz7_print_write_error(r->out, path, st, werr, why);
        return fz7_write_exit_code(st);
    }
    if (r->sfx && !r->extra && !r->sfx_kept) {
        fprintf(r->out, "Write SFX: %s : ", r->sfx_shown);
        fz7_print_size(r->out, r->sfx_len);
        fputc('\n', r->out);
    }
    fprintf(r->out, "\nFiles read from disk: %llu\nArchive size: ",
            (unsigned long long)r->files_read);
    fz7_print_size(r->out, size);
    fputc('\n', r->out);
    if (r->n_vols)
        fprintf(r->out, "Volumes: %zu\n", n_volumes);
    return 0;
}

static int update_targets(const struct fz7_options *o, FILE *out, const fz7_update_targets *ts,
                          const uint64_t *vols, size_t n_vols);

/* The new name rn gives path (an exact pair; -x! keeps it), or NULL. */
static const char *renamed_to(const struct fz7_options *o, const char *path)
{
    if (fz7_excluded_item(o, path, false))
        return NULL;
    for (size_t k = 0; k + 1 < o->n_names; k += 2) {
        const char *from = o->names[k].pattern;
        if (from[0] && (o->case_sensitive ? strcmp(path, from) : strcasecmp(path, from)) == 0)
            return o->names[k + 1].pattern;
    }
    return NULL;
}


/* One stream's file written again in place of the old one (sb: its
 * stat, NULL when there was none): an empty .xz (empty: no block, no
 * check, 7zz's bytes) or the gzip renamed to `to`; then 7zz's last lines.
 * Returns the exit code. */
static int one_stream_rewrite(const struct fz7_options *o, FILE *out, const struct stat *sb, bool empty,
                              const char *to)
{
    int fd, rc = fz7_temp_create(o->archive, o->work_dir, out, &fd);
    if (rc)
        return rc;
    fz7_status st;
    if (empty) {
        fz7_xz_opts xo = {.check = FZ7_XZ_CHECK_NONE, .size_hint = 1};
        fz7_xz_writer *w = NULL;
        (void)fz7_lzma_enc_preset(&xo.lzma, 1);
        st = fz7_xz_writer_new(fd, &xo, &w);
        if (st == FZ7_OK)
            st = fz7_xz_writer_finish(w);
        fz7_xz_writer_free(w);
    } else {
        int in = open(o->archive, O_RDONLY | O_CLOEXEC);
        st = in < 0 ? FZ7_E_IO : fz7_gzip_copy_renamed(in, (uint64_t)sb->st_size, fd, to);
        if (in >= 0)
            close(in);
    }
    int cerr = 0;
    uint64_t arc_size = 0;
    if (st == FZ7_OK)
        st = fz7_temp_commit(fd, o->archive, sb, &arc_size, &cerr);
    else
        fz7_temp_drop(fd);
    if (st != FZ7_OK) {
        fflush(out);
        fprintf(stderr, "\nERROR: %s : %s\n", o->archive, cerr ? strerror(cerr) : fz7_status_str(st));
        return FZ7_EXIT_FATAL;
    }
    fz7_print_one_stream_end(out, arc_size);
    return 0;
}

/* d and rn on a file of one stream (xz, gzip, bzip2), as 7zz 26.02 does
 * them: what names nothing keeps the file (exit 0); rn of a gzip's entry
 * writes its new stored name, and the other formats store none, so they
 * stay as they are; d of the entry leaves an .xz without blocks and is
 * refused for gzip and bzip2 (E_INVALIDARG, exit 2). -1: not such a case
 * (the caller refuses it). */
static int one_stream_update(const struct fz7_options *o, FILE *out, fz7_type type)
{
    struct stat sb;
    bool rn = o->command == FZ7_CMD_RENAME;
    bool missing = stat(o->archive, &sb) != 0;
    if ((!rn && o->command != FZ7_CMD_DELETE) ||
        (type != FZ7_TYPE_XZ && type != FZ7_TYPE_GZIP && type != FZ7_TYPE_BZIP2) || (missing && rn))
        return -1;
    if (missing) {
        /* d of a file that is not there: 7zz creates it empty, which only
         * an xz file can be (a stream without blocks) */
        fprintf(out, "Creating archive: %s\n\n", o->archive);
        fz7_print_counts(out, "Add new data to archive: ", 0, 0, 0);
        if (type != FZ7_TYPE_XZ) {
            fputc('\n', out);
            fflush(out);
            return fz7_invalid_arg(NULL, NULL);
        }
        return one_stream_rewrite(o, out, NULL, true, NULL);
    }
    fz7_open_opts oo = {0};
    char err[256] = "";
    fz7_archive *a = NULL;
    if (fz7_archive_open(o->archive, &oo, &a, err, sizeof err) != FZ7_OK ||
        !fz7_type_matches(type, NULL, fz7_archive_get_info(a))) {
        /* not a file of that type: 7zz's lines as it opens it */
        fz7_archive_close(a);
        fprintf(out, "Open archive: %s\n", o->archive);
        return fz7_print_update_open_error(out, o->archive, fz7_type_display(type, NULL),
                                           "Cannot open the file as archive", FZ7_E_FORMAT);
    }
    const fz7_entry *e = fz7_archive_count(a) == 1 ? fz7_archive_entry(a, 0) : NULL;
    if (!e) {
        fz7_archive_close(a);
        return -1;
    }
    const char *to = rn ? renamed_to(o, e->path) : NULL;
    bool drop = !rn && fz7_selected(o, e->path);
    uint64_t size = e->has_size ? e->size : 0;
    fprintf(out, "Open archive: %s\n", o->archive);
    fz7_print_archive_block(out, o->archive, a, NULL);
    fz7_archive_close(a);
    fprintf(out, "\nUpdating archive: %s\n\n", o->archive);
    if (drop)
        fz7_print_counts(out, "\nDelete data from archive: ", 0, 1, size);
    else
        fz7_print_counts(out, "Keep old data in archive: ", 0, 1, size);
    fz7_print_counts(out, "Add new data to archive: ", 0, 0, 0);
    if (drop && type != FZ7_TYPE_XZ) {
        fputc('\n', out);
        fflush(out);
        return fz7_invalid_arg(NULL, NULL);
    }
    if (drop || (to && type == FZ7_TYPE_GZIP))
        return one_stream_rewrite(o, out, &sb, drop, to);
    fz7_print_one_stream_end(out, (uint64_t)sb.st_size);
    return 0;
}

/* -stl: the archive just written gets the mtime of its newest entry, kept
 * or read from disk, as 7zz gives it. */
static void stamp_newest(const update_run *r)
{
    fz7_newest nw = {0};
    for (size_t i = 0; i < r->n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r->old, i);
        if (r->fate[i] == FATE_KEEP && e->has_mtime)
            fz7_newest_take(&nw, e->mtime, e->mtime_nsec);
    }
    for (size_t k = 0; r->add && k < r->tree.count; k++)
        if (r->add[k])
            fz7_newest_take(&nw, r->tree.items[k].mtime, r->tree.items[k].mtime_nsec);
    fz7_newest_stamp(&nw, r->path);
}

int fz7_cmd_update(const struct fz7_options *o)
{
    if ((o->command == FZ7_CMD_UPDATE || o->command == FZ7_CMD_ADD) && o->archive) {
        /* u on a file of one stream is a: it replaces the one entry by a
         * file of its name and refuses others, as 7zz does; with -u rules
         * for the file itself, a keeps or writes it when they leave one. */
        const char *canon = NULL;
        fz7_type t = fz7_type_to_write(o, &canon);
        if (t == FZ7_TYPE_XZ || t == FZ7_TYPE_GZIP || t == FZ7_TYPE_BZIP2) {
            if (!fz7_has_update_rules(o))
                return fz7_cmd_add(o);
            bool itself = true;   /* no -u- and no -u...!name */
            for (size_t i = 0; i < o->n_update_rules; i++)
                itself &= strcmp(o->update_rules[i], "-") != 0 && !strchr(o->update_rules[i], '!');
            if (itself)
                return fz7_cmd_add_ruled(o);
        }
    }
    /* u -si: a's way with one item from standard input, u's rules for it
     * (cmd_add.c) */
    if (o->command == FZ7_CMD_UPDATE && o->from_stdin && !o->to_stdout && !fz7_has_update_rules(o))
        return fz7_cmd_add(o);
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);
    if (!o->archive) {
        fprintf(stderr, "\nCommand Line Error:\nCannot find archive name\n");
        return FZ7_EXIT_USAGE;
    }
    /* The archives to write and their rules (-u), checked as 7zz checks them. */
    fz7_update_targets ts = {0};
    int prc = fz7_update_targets_parse(o, &ts);
    if (prc) {
        fz7_update_targets_free(&ts);
        return prc;
    }
    /* -sdel removes what was read, so 7zz takes it only with rules that
     * read every file on disk (r, x, y, z and w all 2). */
    for (size_t k = 0; o->delete_after && o->command != FZ7_CMD_RENAME && k < ts.n; k++) {
        for (unsigned st = FZ7_PAIR_DISK_ONLY; st < FZ7_PAIR_STATES; st++) {
            if (ts.t[k].act[st] != FZ7_ACT_COMPRESS) {
                fflush(out);
                fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
                fz7_update_targets_free(&ts);
                return FZ7_EXIT_FATAL;
            }
        }
    }
    uint64_t *vols = NULL;
    size_t n_vols = 0;
    int rc = fz7_volume_sizes(o, &vols, &n_vols);
    struct stat arc_sb;
    if (rc == 0 && o->command == FZ7_CMD_RENAME && (n_vols || stat(o->archive, &arc_sb) != 0)) {
        /* rn writes no volumes and makes no archive; 7zz 26.02 ends so (d
         * on a missing archive writes an empty one, as 7zz does). */
        fflush(out);
        fprintf(stderr, "\n\nERROR:\ncan't find archive\n");
        rc = FZ7_EXIT_FATAL;
    } else if (rc == 0) {
        rc = update_targets(o, out, &ts, vols, n_vols);
    }
    free(vols);
    fz7_update_targets_free(&ts);
    return rc;
}

/* fz7_cmd_update once the archives to write (and -v's sizes) are known. */
static int update_targets(const struct fz7_options *o, FILE *out, const fz7_update_targets *ts0,
                          const uint64_t *vols, size_t n_vols)
{
    fz7_update_targets ts = *ts0;
    if (fz7_archive_is_volume_name(o->archive)) {
        /* A volume set is not rewritten in place (7zz refuses the same). */
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    const char *canon = NULL;
    fz7_type type = fz7_type_to_write(o, &canon);
    bool la = type == FZ7_TYPE_TAR || type == FZ7_TYPE_ZIP;
    if (type == FZ7_TYPE_LZMA || type == FZ7_TYPE_OTHER) {   /* as in cmd_add.c */
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    if (type != FZ7_TYPE_AUTO && type != FZ7_TYPE_7Z && !la) {
        /* a name without an extension gets the type's, as below (7zz:
         * d -txz x works on x.xz) */
        char named[PATH_MAX];
        struct fz7_options one = *o;
        if (fz7_archive_name(o->archive, o->name_mode == 'e' ? "" : fz7_type_extension(type), named, sizeof named))
            one.archive = named;
        int rc = one_stream_update(&one, out, type);
        if (rc >= 0)
            return rc;
        /* 7-Zip cannot update a one-file stream either. */
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    if (la && type != FZ7_TYPE_ZIP && (o->password || o->ask_password)) {
        fprintf(stderr, "\nERROR: %s archives cannot be encrypted by fz7\n", fz7_type_display(type, NULL));
        return FZ7_EXIT_USAGE;
    }
    if (la && o->sfx)   /* a module runs 7z archives only */
        return fz7_invalid_arg(NULL, NULL);
    if (o->from_stdin || o->to_stdout) {
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    /* The archive name: 7-Zip adds ".7z" when the name has no extension. */
    char path[PATH_MAX];
    if (!fz7_archive_name(o->archive, o->name_mode == 'e' ? "" : fz7_type_extension(type), path,
                          sizeof path)) {
        fprintf(stderr, "\nERROR: archive name too long\n");
        return FZ7_EXIT_USAGE;
    }
    /* The extra archives' names get ".7z" the same way. */
    char **ts_paths = calloc(ts.n ? ts.n : 1, sizeof *ts_paths);
    if (!ts_paths)
        return FZ7_EXIT_MEMORY;
    for (size_t k = 0; k < ts.n; k++) {
        if (!ts.t[k].path)
            continue;
        ts_paths[k] = malloc(PATH_MAX);
        if (!ts_paths[k] || !fz7_archive_name(ts.t[k].path, ".7z", ts_paths[k], PATH_MAX)) {
            bool mem = !ts_paths[k];
            for (size_t j = 0; j <= k; j++)
                free(ts_paths[j]);
            free(ts_paths);
            if (mem)
                return FZ7_EXIT_MEMORY;
            fprintf(stderr, "\nERROR: archive name too long\n");
            return FZ7_EXIT_USAGE;
        }
    }

    update_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.out = out;
    r.scan.count = &r.warnings;
    r.path = path;
    r.password = o->password;
    r.vols = vols;
    r.n_vols = n_vols;
    r.la = la;
    r.la_kind = type == FZ7_TYPE_ZIP ? FZ7_LA_ZIP : FZ7_LA_TAR;
    r.old_path = path;
    char *asked = NULL;
    int rc = 0;
    char why[512] = "";
    if (o->sfx && n_vols) {   /* as in cmd_add.c */
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        rc = FZ7_EXIT_FATAL;
        goto done;
    }
    if (o->sfx && (rc = fz7_sfx_load(o->sfx, out, &r.sfx, &r.sfx_len, r.sfx_shown, sizeof r.sfx_shown)) != 0)
        goto done;
    fz7_status st = la ? fz7_la_settings_make(o, r.la_kind, &r.la_opts, &r.set.refuse_late, why, sizeof why)
                       : fz7_settings_make(o, false, &r.set, why, sizeof why);
    /* 7zz refuses an unknown -m name as it opens the archive, and a
     * coder's refusal (a method or value) once the plan is printed. */
    bool refused = st == FZ7_E_ARG || st == FZ7_E_UNSUPPORTED;
    bool notimpl = la && st == FZ7_E_UNSUPPORTED;   /* a zip method 7zz does not know */
    bool writes_itself = false;   /* -u- leaves the archive itself alone */
    for (size_t k = 0; k < ts.n; k++)
        writes_itself |= !ts.t[k].path;
    if (!o->to_stdout && writes_itself && (rc = fz7_refuse_read_only(out, path)) != 0)
        goto done;
    struct stat pre_sb;
    /* With no archive there is none to open: 7zz then refuses after
     * "Creating archive:", as a does. */
    bool refuse_at_creating = refused && !r.set.refuse_late && stat(path, &pre_sb) != 0;
    if (st != FZ7_OK && !refused) {
        rc = fz7_settings_fail(st, why);
        goto done;
    }
    if (refused && !r.set.refuse_late && !refuse_at_creating) {
        fprintf(out, "Open archive: %s\n", path);
        rc = fz7_print_open_refused(out, path, why);
        goto done;
    }

    struct stat old_sb;
    bool exists = stat(path, &old_sb) == 0;
    if (r.n_vols && (rc = fz7_refuse_volume_set(out, path)) != 0)
        goto done;
    /* -v writes new volumes only: an existing archive is not opened, and
     * the command stops once the disk is scanned, as 7zz does. */
    bool refuse_existing = exists && r.n_vols;
    if (refuse_existing)
        exists = false;
    if (exists) {
        fprintf(out, "Open archive: %s\n", path);
        char err[512] = "";
        fz7_open_opts oo = {0};
        st = fz7_open_asking(path, &oo, out, &r.password, &asked, &r.old, err, sizeof err);
        if (st == FZ7_E_NEED_PASSWORD && !r.password) {
            rc = fz7_break_signaled();
            goto done;
        }
        /* The format the name (or -t) asks for: an archive of another is
         * refused, as 7zz refuses it. */
        const char *want = la ? fz7_type_display(type, NULL) : type == FZ7_TYPE_AUTO ? NULL : "7z";
        if (st == FZ7_OK && !fz7_type_matches(la ? type : FZ7_TYPE_7Z, NULL, fz7_archive_get_info(r.old))) {
            st = FZ7_E_FORMAT;
            snprintf(err, sizeof err, "Cannot open the file as archive");
        }
        if (st != FZ7_OK) {
            rc = fz7_print_update_open_error(out, path, want, err, st);
            goto done;
        }
        if ((rc = fz7_refuse_rewrite(out, path, r.old)) != 0)
            goto done;
        fz7_print_archive_block(out, path, r.old, NULL);
        fputc('\n', out);
        r.n_old = fz7_archive_count(r.old);
        /* What stands before a 7z or zip archive (a self-extractor's
         * stub, or whatever else) stays before it, as 7zz keeps it; -sfx
         * replaces it. (The reader looks at most 16 MiB in for a 7z.) */
        if (!o->sfx && !n_vols) {
            if ((rc = fz7_lead_load(path, r.old, &r.sfx, &r.sfx_len)) != 0)
                goto done;
            r.sfx_kept = r.sfx_len > 0;
        }
        if (!la)
            fz7_settings_times_from(&r.set, r.old);
    }

    /* Kept data that must be decoded needs the password; new data is
     * encrypted with it too (-p), as 7-Zip does. */
    rc = fz7_password_key(r.password, &r.key);
    if (rc)
        goto done;

    r.fate = calloc(r.n_old ? r.n_old : 1, sizeof *r.fate);
    r.new_name = calloc(r.n_old ? r.n_old : 1, sizeof *r.new_name);
    r.buf = malloc(READ_CHUNK);
    if (!r.fate || !r.new_name || !r.buf) {
        rc = FZ7_EXIT_MEMORY;
        goto done;
    }
    if (ts.n == 0) {   /* -u- alone: nothing to write, nothing scanned (as 7zz) */
        fprintf(out, "Everything is Ok\n");
        goto done;
    }
    bool scan = false;
    for (size_t k = 0; k < ts.n; k++)
        scan |= fz7_update_target_needs_scan(&ts.t[k]);
    if (o->command == FZ7_CMD_RENAME) {
        st = plan_rename(&r);
    } else if (scan) {
        fprintf(out, "Scanning the drive:\n");
        st = pair_inputs(&r, &old_sb, exists);
        if (st == FZ7_OK)
            fz7_print_scan_counts(out, &r.tree);
    }
    if (st != FZ7_OK) {
        fprintf(stderr, "\nERROR: %s\n", fz7_status_str(st));
        rc = fz7_write_exit_code(st);
        goto done;
    }
    if (refuse_existing) {
        rc = fz7_print_exists(out, path);
        goto done;
    }

    /* The extra archives are new files: one that exists already stops the
     * command before anything is written, as in 7zz. */
    for (size_t k = 0; k < ts.n; k++) {
        struct stat sb;
        if (ts.t[k].path && lstat(ts_paths[k], &sb) == 0) {
            rc = fz7_print_exists(out, ts_paths[k]);
            goto done;
        }
    }

    /* Kept entries of an encrypted folder that loses some entries are
     * decoded again: ask for the password then, as 7-Zip does. A tar or
     * zip's entries are copied as they are: no password (7zz asks none). */
    bool need_password = false;
    for (size_t k = 0; !r.password && !r.la && k < ts.n && !need_password; k++) {
        if (o->command != FZ7_CMD_RENAME)
            plan_target(&r, &ts.t[k]);
        for (size_t i = 0; i < r.n_old && !need_password; i++) {
            const fz7_entry *e = fz7_archive_entry(r.old, i);
            need_password = e->encrypted && e->has_stream && r.fate[i] != FATE_KEEP;
        }
    }
    if (need_password) {
        asked = fz7_ask_password(out);
        r.password = asked;
        if ((rc = fz7_password_key(asked, &r.key)) != 0)
            goto done;
        if (asked) {
            /* The reader keeps the password it was opened with. */
            fz7_archive *again = NULL;
            fz7_open_opts oo = {0};
            oo.password = asked;
            char err[512] = "";
            st = fz7_archive_open(path, &oo, &again, err, sizeof err);
            if (st != FZ7_OK || fz7_archive_count(again) != r.n_old) {
                if (again)
                    fz7_archive_close(again);
                fprintf(stderr, "ERROR: %s : %s\n", path, err[0] ? err : fz7_status_str(st));
                rc = FZ7_EXIT_FATAL;
                goto done;
            }
            fz7_archive_close(r.old);
            r.old = again;
        }
    }

    if (!exists && !o->to_stdout && (rc = fz7_refuse_dangling_link(out, path)) != 0)
        goto done;
    /* Each archive in turn: the archive itself first, then each -u...!name. */
    for (size_t k = 0; k < ts.n && rc == 0; k++) {
        const fz7_update_target *t = &ts.t[k];
        if (o->command != FZ7_CMD_RENAME)
            plan_target(&r, t);
        r.path = t->path ? ts_paths[k] : path;
        r.extra = t->path != NULL;
        r.files_read = 0;
        if (refuse_at_creating || o->nt_streams || r.tree.dup_name)
            fprintf(out, "%s archive: %s\n\n",
                    (o->nt_streams || r.tree.dup_name) && !t->path && exists ? "Updating" : "Creating", r.path);
        else
            print_plan(&r, !t->path && exists, !t->path);
        if ((rc = fz7_refuse_duplicate(out, &r.tree)) != 0)
            goto done;
        if (o->nt_streams) {   /* as in cmd_add.c */
            fflush(out);
            rc = fz7_not_implemented(r.path, "-sns and -sni are Windows's (NTFS streams, NT security)");
            goto done;
        }
        if (refused) {
            fflush(out);
            rc = notimpl ? fz7_not_implemented(r.path, why) : fz7_invalid_arg(r.path, why);
            goto done;
        }
        if (!r.password && o->ask_password) {
            /* -p alone and no password met yet: asked once, before the
             * first archive is written, as 7zz does (new data is
             * encrypted with it). */
            if ((rc = fz7_ask_new_password_or_fail(out, &asked)) != 0)
                goto done;
            r.password = asked;
            if ((rc = fz7_password_key(asked, &r.key)) != 0)
                goto done;
        }
        rc = commit_archive(&r, !t->path && exists, &old_sb);
        if (rc == 0 && o->stamp_newest)
            stamp_newest(&r);
    }
    if (rc == 0 && o->delete_after) {
        fputc('\n', out);   /* 7-Zip's line for its deleting stage */
        /* -sdel: every file read (the rules read all); never the archive. */
        bool *skip = r.pair_of_item ? calloc(r.tree.count ? r.tree.count : 1, sizeof *skip) : NULL;
        if (skip) {
            for (size_t k = 0; k < r.tree.count; k++)
                skip[k] = r.pair_of_item[k] == -2;
            fz7_delete_inputs(&r.tree, skip, &r.scan, o->bb >= 1 ? out : NULL);
            free(skip);
        }
    }
    if (rc == 0)
        rc = fz7_print_write_end(out, &r.scan, r.warnings);

done:
    free(r.sfx);
    for (size_t k = 0; k < ts.n; k++)
        free(ts_paths[k]);
    free(ts_paths);
    fz7_7zaes_key_free(r.key);
    fz7_7zaes_cache_clear();
    if (asked) {
        explicit_bzero(asked, strlen(asked));
        free(asked);
    }
    free(r.buf);
    fz7_scan_warnings_free(&r.scan);
    for (size_t i = 0; r.new_name && i < r.n_old; i++)
        free(r.new_name[i]);
    free(r.new_name);
    free(r.fate);
    free(r.add);
    free(r.anti_new);
    free(r.replaces);
    free(r.pair_of_item);
    free(r.state);
    if (r.old)
        fz7_archive_close(r.old);
    fz7_tree_free(&r.tree);
    return rc;
}
