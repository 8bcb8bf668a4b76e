/* cmd_update.c - `fz7 u`, `fz7 d` and `fz7 rn` on a .7z: decide per entry
 * what stays, goes, is renamed or replaced; copy folders whose entries all
 * stay as they are (no decoding, no password), re-compress the others, and
 * write the result to a temporary file renamed over the archive. */
#include "cli/archive_out.h"
#include "cli/archive_type.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/repack.h"
#include "cli/settings.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"
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
typedef enum entry_fate { FATE_KEEP = 0, FATE_DELETE, FATE_REPLACE } entry_fate;

typedef struct update_run {
    const struct fz7_options *o;
    fz7_settings set;             /* how new and re-compressed data is compressed */
    FILE *out;
    const char *path;             /* the archive */
    fz7_archive *old;             /* NULL when the archive does not exist yet */
    size_t n_old;
    entry_fate *fate;             /* per old entry */
    char **new_name;              /* rn: per old entry, or NULL = unchanged */
    fz7_tree tree;                /* u: files found on disk ... */
    bool *add;                    /* ... and which of them go in */
    bool *replaces;               /* ... and which replace an old entry (-bb1 "U") */
    int sse_errno;                /* -sse: the error that stopped the command */
    const char *password;         /* -p or asked for; NULL = none */
    fz7_7zaes_key *key;
    uint8_t *buf;
    size_t warnings;
    fz7_scan_warnings scan;       /* .count points at warnings */
    uint64_t files_read;
    uint64_t copied_folders, repacked_folders;
} update_run;

/* ---- deciding each entry's fate ------------------------------------------ */

/* d: entries the names select (a folder's name selects what is under it;
 * -r lets a wildcard match at any depth), minus -x! exclusions; without
 * names every entry, as 7-Zip does. */
static void plan_delete(update_run *r)
{
    const struct fz7_options *o = r->o;
    for (size_t i = 0; i < r->n_old; i++)
        if (fz7_selected(o, fz7_archive_entry(r->old, i)->path))
            r->fate[i] = FATE_DELETE;
}

/* rn: the first pair whose old name is the entry's path, or a leading part
 * of it (a folder renames everything below it). */
static fz7_status plan_rename(update_run *r)
{
    const struct fz7_options *o = r->o;
    for (size_t i = 0; i < r->n_old; i++) {
        const char *p = fz7_archive_entry(r->old, i)->path;
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

/* FILETIME precision (100 ns), the precision a .7z keeps. */
static int64_t ticks_of(int64_t sec, uint32_t nsec)
{
    return sec * 10000000 + (int64_t)(nsec / 100u);
}

/* u: scan the names on disk (everything here when none are given, as
 * 7-Zip does); a file not in the archive is added; one in it replaces the
 * entry when it is newer, or has the same time and another size (7-Zip's
 * default -u rules: p1q1r2x1y2z1w2); an entry without a time stays, and a
 * folder is replaced by the same rules, as 7zz 26 does. Entries not on
 * disk stay. */
static fz7_status plan_update(update_run *r, const struct stat *arc_sb, bool arc_exists)
{
    const struct fz7_options *o = r->o;
    fz7_status st = fz7_scan_inputs(o, &r->tree, &r->scan);
    if (st != FZ7_OK)
        return st;

    size_t n = r->tree.count;
    r->add = calloc(n ? n : 1, sizeof *r->add);
    r->replaces = calloc(n ? n : 1, sizeof *r->replaces);
    size_t *by_path = malloc((r->n_old ? r->n_old : 1) * sizeof *by_path);
    if (!r->add || !r->replaces || !by_path) {
        free(by_path);
        return FZ7_E_MEM;
    }
    for (size_t i = 0; i < r->n_old; i++)
        by_path[i] = i;
    g_sort_case_sensitive = o->case_sensitive;
    g_sort_arc = r->old;
    if (r->n_old)
        qsort(by_path, r->n_old, sizeof *by_path, cmp_entry_path);

    for (size_t k = 0; k < n; k++) {
        const fz7_tree_item *it = &r->tree.items[k];
        /* Never the archive itself. */
        if (arc_exists && it->kind == FZ7_ITEM_FILE && it->dev == (uint64_t)arc_sb->st_dev &&
            it->ino == (uint64_t)arc_sb->st_ino)
            continue;
        size_t lo = 0, hi = r->n_old;
        int64_t found = -1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const char *p = fz7_archive_entry(r->old, by_path[mid])->path;
            int c = o->case_sensitive ? strcmp(it->name, p) : strcasecmp(it->name, p);
            if (c == 0) {
                found = (int64_t)by_path[mid];
                break;
            }
            if (c < 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (found < 0) {
            r->add[k] = true;
            continue;
        }
        const fz7_entry *e = fz7_archive_entry(r->old, (size_t)found);
        bool replace;   /* a folder too, when newer on disk, as 7-Zip does */
        if (e->is_dir != (it->kind == FZ7_ITEM_DIR)) {
            replace = true;
        } else if (!e->has_mtime) {
            replace = false;   /* 7zz keeps an entry without a time, whatever its size */
        } else {
            int64_t disk = ticks_of(it->mtime, it->mtime_nsec);
            int64_t arc = ticks_of(e->mtime, e->mtime_nsec);
            replace = disk > arc || (disk == arc && it->size != e->size);
        }
        if (replace) {
            r->add[k] = true;
            r->fate[found] = FATE_REPLACE;
            if (r->replaces)
                r->replaces[k] = true;
        }
    }
    free(by_path);
    return FZ7_OK;
}

/* ---- writing --------------------------------------------------------------- */

/* Whether old entry i goes into the new archive as it is. */
static bool stays(const update_run *r, size_t i)
{
    return r->fate[i] == FATE_KEEP && !fz7_archive_entry(r->old, i)->is_anti;
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
            st = fz7_7z_writer_add_empty(w, &m);
            r->files_read += !m.is_dir;
        }
    }
    return st;
}

/* Pushes one file from disk into the open folder. */
static fz7_status write_item(update_run *r, fz7_7z_writer *w, const fz7_tree_item *it)
{
    int fd = -1;
    if (r->o->bb >= 1) /* as 7-Zip: "+" a new file, "U" one that replaces an entry */
        fprintf(r->out, "%c %s\n", r->replaces && r->replaces[it - r->tree.items] ? 'U' : '+',
                it->name);
    if (it->kind != FZ7_ITEM_SYMLINK) {
        fd = fz7_open_input(it->disk_path, r->o->no_atime);
        if (fd < 0) {
            fz7_open_warn(&r->scan, r->out, it->disk_path, errno);
            if (!r->o->stop_on_open_error)
                return FZ7_OK;
            r->sse_errno = errno;
            return FZ7_E_IO;
        }
    }
    fz7_7z_entry_meta m = {0};
    m.name = it->name;
    m.attrib = fz7_7z_attrib_from_mode(it->mode);
    fz7_settings_item_times(&r->set, it, &m);
    fz7_status st = fz7_7z_writer_begin_file_sized(w, &m, it->size);
    if (st == FZ7_OK && it->kind == FZ7_ITEM_SYMLINK)
        st = fz7_7z_writer_write(w, (const uint8_t *)it->link_target, strlen(it->link_target));
    while (st == FZ7_OK && fd >= 0) {
        ssize_t n = read(fd, r->buf, READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fz7_open_warn(&r->scan, r->out, it->disk_path, errno);
            break;
        }
        if (n == 0)
            break;
        st = fz7_7z_writer_write(w, r->buf, (size_t)n);
    }
    if (fd >= 0)
        close(fd);
    if (st == FZ7_OK)
        st = fz7_7z_writer_end_file(w);
    r->files_read++;
    return st;
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
    uint64_t size_hint = 0;
    for (size_t i = 0; i < r->n_old; i++)
        if (r->fate[i] == FATE_KEEP && !fz7_archive_entry(r->old, i)->is_anti)
            size_hint += fz7_archive_entry(r->old, i)->size;
    for (size_t i = 0; r->add && i < r->tree.count; i++)
        if (r->add[i] && r->tree.items[i].kind != FZ7_ITEM_DIR)
            size_hint += r->tree.items[i].size;
    if (size_hint == 0)
        size_hint = 1;
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
                r->copied_folders++;
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
        fz7_repack_result res;
        st = fz7_repack_entries(r->old, select, (const char *const *)r->new_name, &r->set,
                                r->key, size_hint, w, &res, why, whylen);
        for (size_t k = 0; k < n; k++)
            select[mem[k]] = false;
        r->repacked_folders += res.folders;
        if (res.failed != FZ7_OK) {
            st = res.failed;
            const fz7_entry *e = fz7_archive_entry(r->old, res.failed_index);
            const char *words = fz7_entry_error_words(res.failed, e->encrypted);
            bool same = strcmp(words, res.detail) == 0 || !res.detail[0];
            snprintf(why, whylen, "%s : %s%s%s", e->path, words, same ? "" : " : ",
                     same ? "" : res.detail);
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
        /* Headers stay encrypted when they were (and -mhe asks for it). */
        bool he = r->o->header_encrypt == FZ7_ON ||
                  (r->o->header_encrypt != FZ7_OFF && r->old &&
                   fz7_archive_get_info(r->old)->header_encrypted);
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
    fz7_status st = write_archive(r, fd, why, sizeof why);
    int werr = errno;
    uint64_t size = 0;
    if (st == FZ7_OK)
        st = fz7_temp_commit(fd, path, exists ? old_sb : NULL, &size, &werr);
    else
        fz7_temp_drop(fd);
    if (r->sse_errno) { /* -sse: 7-Zip's end, the archive left as it was */
        fflush(r->out);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", r->sse_errno, strerror(r->sse_errno));
        return FZ7_EXIT_FATAL;
    }
    if (st != FZ7_OK) {
        fflush(r->out);
        fprintf(stderr, "\nERROR: %s : %s\n", path,
                why[0] ? why : st == FZ7_E_IO && werr ? strerror(werr) : fz7_status_str(st));
        return fz7_write_exit_code(st);
    }
    fprintf(r->out, "\nFiles read from disk: %llu\nArchive size: ",
            (unsigned long long)r->files_read);
    fz7_print_size(r->out, size);
    fputc('\n', r->out);
    if (r->o->bb >= 3) /* fz7's own detail, below 7-Zip's -bb1 lines */
        fprintf(r->out, "Folders copied as they were: %llu, compressed again: %llu\n",
                (unsigned long long)r->copied_folders, (unsigned long long)r->repacked_folders);
    return 0;
}

int fz7_cmd_update(const struct fz7_options *o)
{
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);
    if (!o->archive) {
        fprintf(stderr, "\nCommand Line Error:\nCannot find archive name\n");
        return FZ7_EXIT_USAGE;
    }
    if (fz7_archive_is_volume_name(o->archive)) {
        /* A volume set is not rewritten in place (7zz refuses the same). */
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    const char *canon = NULL;
    fz7_type type = o->type != FZ7_TYPE_AUTO ? o->type : fz7_type_of_archive_name(o->archive, &canon);
    if (type != FZ7_TYPE_AUTO && type != FZ7_TYPE_7Z) {
        /* 7-Zip cannot update a one-file stream either; fz7's u/d/rn write
         * 7z only (tar and zip take new files through `a`). */
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    if (o->from_stdin || o->to_stdout) {
        fprintf(stderr, "\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    /* The archive name: 7-Zip adds ".7z" when the name has no extension. */
    char path[PATH_MAX];
    if (!fz7_archive_name(o->archive, o->name_mode == 'e' ? "" : ".7z", path, sizeof path)) {
        fprintf(stderr, "\nERROR: archive name too long\n");
        return FZ7_EXIT_USAGE;
    }


    update_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.out = out;
    r.scan.count = &r.warnings;
    r.path = path;
    r.password = o->password;
    char *asked = NULL;
    int rc = 0;
    char why[512] = "";
    fz7_status st = fz7_settings_make(o, false, &r.set, why, sizeof why);
    if (st != FZ7_OK)
        return fz7_settings_fail(st, why);

    struct stat old_sb;
    bool exists = stat(path, &old_sb) == 0;
    if (exists) {
        fprintf(out, "Open archive: %s\n", path);
        char err[512] = "";
        fz7_open_opts oo = {0};
        st = fz7_open_asking(path, &oo, out, &r.password, &asked, &r.old, err, sizeof err);
        if (st == FZ7_E_NEED_PASSWORD && !r.password) {
            rc = fz7_break_signaled();
            goto done;
        }
        if (st == FZ7_OK && fz7_archive_get_info(r.old)->format != FZ7_FORMAT_7Z) {
            st = FZ7_E_FORMAT;
            snprintf(err, sizeof err, "Cannot open the file as [7z] archive");
        }
        if (st != FZ7_OK) {
            fflush(out);
            fprintf(stderr, "ERROR: %s\n%s\nOpen ERROR: %s\n", path, path,
                    err[0] ? err : fz7_status_str(st));
            rc = FZ7_EXIT_FATAL;
            goto done;
        }
        fz7_print_archive_block(out, path, r.old);
        fputc('\n', out);
        r.n_old = fz7_archive_count(r.old);
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
    if (o->command == FZ7_CMD_DELETE) {
        plan_delete(&r);
    } else if (o->command == FZ7_CMD_RENAME) {
        st = plan_rename(&r);
    } else {
        fprintf(out, "Scanning the drive:\n");
        st = plan_update(&r, &old_sb, exists);
        if (st == FZ7_OK) {
            uint64_t dirs, files, bytes;
            fz7_tree_counts(&r.tree, &dirs, &files, &bytes);
            fz7_print_counts(out, "", dirs, files, bytes);
            fputc('\n', out);
        }
    }
    if (st != FZ7_OK) {
        fprintf(stderr, "\nERROR: %s\n", fz7_status_str(st));
        rc = fz7_write_exit_code(st);
        goto done;
    }

    /* Kept entries of an encrypted folder that loses some entries are
     * decoded again: ask for the password then, as 7-Zip does. */
    for (size_t i = 0; !r.password && i < r.n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r.old, i);
        if (e->encrypted && e->has_stream && r.fate[i] != FATE_KEEP) {
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
            break;
        }
    }

    /* The lines 7-Zip prints before writing. */
    uint64_t del[3] = {0}, keep[3] = {0}, add[3] = {0};   /* folders, files, bytes */
    for (size_t i = 0; i < r.n_old; i++) {
        const fz7_entry *e = fz7_archive_entry(r.old, i);
        uint64_t *c = r.fate[i] == FATE_DELETE ? del : r.fate[i] == FATE_KEEP ? keep : NULL;
        if (!c)
            continue;
        if (e->is_dir)
            c[0]++;
        else
            c[1]++, c[2] += e->size;
    }
    for (size_t i = 0; r.add && i < r.tree.count; i++) {
        if (!r.add[i])
            continue;
        if (r.tree.items[i].kind == FZ7_ITEM_DIR)
            add[0]++;
        else
            add[1]++, add[2] += r.tree.items[i].size;
    }
    fprintf(out, "%s archive: %s\n\n", exists ? "Updating" : "Creating", path);
    if (del[0] || del[1])
        fz7_print_counts(out, "\nDelete data from archive: ", del[0], del[1], del[2]);
    if (keep[0] || keep[1])
        fz7_print_counts(out, "Keep old data in archive: ", keep[0], keep[1], keep[2]);
    fz7_print_counts(out, "Add new data to archive: ", add[0], add[1], add[2]);
    fputc('\n', out);
    fflush(out);

    rc = commit_archive(&r, exists, &old_sb);
    if (rc == 0)
        rc = fz7_print_write_end(out, &r.scan, r.warnings);

done:
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
    free(r.replaces);
    if (r.old)
        fz7_archive_close(r.old);
    fz7_tree_free(&r.tree);
    return rc;
}
