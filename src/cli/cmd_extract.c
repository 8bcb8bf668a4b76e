/* cmd_extract.c - `fz7 x` (full paths), `fz7 e` (no paths: folders too are
 * made from their last name, as 7-Zip does) and `fz7 t`
 * (decode and verify only): drives fz7_archive_extract's callbacks into the
 * safe disk writer (fsio/extract.h), stdout (-so) or nowhere (t).
 *
 * Overwrite questions follow 7-Zip: without -ao/-y the question is printed
 * and one answer line read from stdin; at end of input (no terminal, no
 * answer) extraction stops with "Break signaled" and exit code 255. */
#include "cli/archive_out.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "fsio/extract.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum run_mode { RUN_TEST, RUN_DISK, RUN_STDOUT } run_mode;

/* A file written in this run that a later hard-link entry names: where it
 * went and which inode it is, so the link is made to that file only. */
typedef struct link_src {
    bool needed;             /* some entry is a hard link of this one */
    char *path;              /* below the output folder, once written */
    struct stat st;
} link_src;

typedef struct run {
    const struct fz7_options *o;
    fz7_archive *a;
    FILE *out;
    run_mode mode;
    bool flat;               /* `e` */
    fz7_disk *disk;
    fz7_overwrite overwrite; /* changes with Always / Skip all / rename all */
    mode_t umask_bits;
    bool has_arc_mtime;      /* the archive file's mtime, for entries without one */
    struct timespec arc_mtime;
    /* The entry in progress. */
    const fz7_entry *cur;
    size_t cur_index;
    size_t listed_early;     /* + 1: the entry whose -bb line came before the password prompt */
    bool writing;            /* a disk item is open */
    char *cur_path;          /* its disk path, kept when a hard link needs it */
    link_src *links;         /* per entry, when the archive has hard links; else NULL */
    /* Totals. */
    uint64_t files, folders, size;
    fz7_progress *progress;  /* NULL when off */
    const bool *select;      /* the entries asked for */
    size_t next_index;       /* the entry after the last one begun */
    unsigned long errors, warnings;
    bool quit, broken;       /* (Q)uit, or end of input at a question */
    const char *arc_path;    /* the archive, as its messages name it */
    const char *root;        /* -spe: the root folder not written, or NULL */
    size_t root_len;
    bool root_time_set;      /* -spe: the root folder's mtime, once met */
    struct timespec root_time;
    bool root_mode_set;      /* a "." folder entry's mode, for the output folder */
    uint32_t root_mode;
    fz7_hash_sums *sums;     /* -scrc, or NULL */
    bool asked_eof;          /* no password came at the end of input */
    int reopen_rc;           /* the archive did not open again with it */
    fz7_status fatal;
    char fatal_msg[600];
    int stdout_errno;        /* -so: a write to standard output failed so */
} run;

/* fz7's detail after a line of 7-Zip's (which scripts match whole): on a
 * line of its own, "  (in ARCHIVE: detail)"; arguments archive, ": " or
 * "", detail or "". */
#define FZ7_DETAIL_IN "  (in %s%s%s)"

static void warn(run *r, const char *what, const char *path, const char *detail)
{
    fz7_progress_clear(r->progress);
    fflush(r->out);
    fprintf(stderr, "WARNING: %s : %s%s%s\n" FZ7_DETAIL_IN "\n", what, path, detail ? " : " : "",
            detail ? detail : "", r->arc_path, "", "");
    r->warnings++;
}

static void entry_error(run *r, fz7_status st, const fz7_entry *e, const char *detail)
{
    const char *words = fz7_entry_error_words(st, e->encrypted);
    if (detail && (!detail[0] || strcmp(detail, words) == 0 || strcmp(detail, fz7_status_str(st)) == 0))
        detail = NULL;
    fz7_progress_clear(r->progress);
    fflush(r->out);
    fprintf(stderr, "ERROR: %s : %s\n" FZ7_DETAIL_IN "\n", words, fz7_entry_path(e), r->arc_path,
            detail ? ": " : "", detail ? detail : "");
    r->errors++;
}

/* A path below the output folder as 7-Zip shows it: below the current
 * directory, an absolute one (-spf) as it is (malloc'ed; NULL when out of
 * memory). */
static char *shown_path(const run *r, const char *path)
{
    if (path[0] == '/')
        return strdup(path);   /* -spf: written where it says, not below -o */
    const char *od = r->o->out_dir && r->o->out_dir[0] ? r->o->out_dir : "./"; /* as 7-Zip */
    size_t odl = strlen(od);
    size_t cap = odl + strlen(path) + 2;
    char *p = malloc(cap);
    if (p)
        snprintf(p, cap, "%s%s%s", od, odl && od[odl - 1] != '/' ? "/" : "", path);
    return p;
}

/* True when a relative path's ".." components climb above its start. */
static bool climbs_out(const char *path)
{
    long depth = 0;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n + (end ? 1 : 0);
    }
    return false;
}

/* A tar hard link to a name that is no earlier file: 7-Zip's line (the
 * target as the absolute path it would have linked to, errno ENOENT; or,
 * for a target that climbs out of the folder, 7-Zip's refusal), then
 * fz7's detail. */
static void link_target_missing(run *r, const fz7_entry *e, const char *detail)
{
    const char *target = e->more->hardlink_missing;
    fz7_progress_clear(r->progress);
    fflush(r->out);
    if (climbs_out(target)) {
        fprintf(stderr, "ERROR: Dangerous link path was ignored : %s : %s\n", fz7_entry_path(e), target);
    } else {
        /* 7-Zip joins an absolute target to the output folder too. */
        while (*target == '/')
            target++;
        char *shown = shown_path(r, fz7_entry_path(e));
        const char *top = fz7_disk_root(r->disk);
        fprintf(stderr, "ERROR: Cannot create hard link : errno=%d : %s : %s : %s/%s\n", ENOENT,
                strerror(ENOENT), shown ? shown : fz7_entry_path(e), top ? top : ".", target);
        free(shown);
    }
    fprintf(stderr, FZ7_DETAIL_IN "\n", r->arc_path, detail && detail[0] ? ": " : "", detail ? detail : "");
    r->errors++;
}

/* An entry's path could not be written: 7-Zip's form of the message, with
 * the path as it is below the current directory. */
static void disk_error(run *r, const char *what, int err, const char *path)
{
    char *shown = shown_path(r, path);
    fz7_progress_clear(r->progress);
    fflush(r->out);
    fprintf(stderr, "ERROR: %s : errno=%d : %s : %s\n", what, err, strerror(err),
            shown ? shown : path);
    free(shown);
    r->errors++;
}

/* Permission bits to create an entry with: the stored ones less the
 * umask, as 7-Zip does, and never setuid, setgid or sticky (an archive from
 * a stranger must not plant a setuid file, least of all when run as root).
 * A regular file's or folder's Unix mode is taken as it is, 000 too (a
 * chmod 000 file comes back so, as from 7zz and tar); a FIFO's, socket's or
 * device's (written as a file) and a mode without a type (Windows entries,
 * a zip's from Python) get the umask's defaults, as from 7zz. */
static uint32_t perm_of(const run *r, const fz7_entry *e)
{
    uint32_t perm = e->mode & 0777 & ~(uint32_t)r->umask_bits;
    uint32_t type = e->has_attrib && (e->attrib & 0x8000u) ? (e->attrib >> 16) & S_IFMT : 0;
    bool literal = type == S_IFREG || type == S_IFDIR || type == S_IFLNK;
    if (!literal && (type || (e->mode & 0777) == 0)) {
        perm = (e->is_dir ? 0777u : 0666u) & ~(uint32_t)r->umask_bits;
        if (e->has_attrib && (e->attrib & 1) && !e->is_dir)
            perm &= ~0222u;
    }
    if (e->is_dir)
        perm |= 0700; /* we must be able to write into it and enter it */
    if (e->is_symlink) /* used only by the empty file a refused link leaves */
        perm = 0666 & ~(uint32_t)r->umask_bits;
    return perm;
}

/* Applies the overwrite mode to an existing target; returns the path to
 * write (malloc'ed, maybe renamed) or NULL to skip the entry. */
static char *resolve_existing(run *r, const fz7_entry *e, char *path, const struct stat *st)
{
    char err[512];
    for (;;) {
        switch (r->overwrite) {
        case FZ7_OVERWRITE_ALL:
            return path;
        case FZ7_OVERWRITE_SKIP:
            free(path);
            return NULL;
        case FZ7_OVERWRITE_RENAME_NEW: {
            char *n;
            if (fz7_disk_free_name(r->disk, path, &n) != FZ7_OK) {
                warn(r, "No free name for", path, NULL);
                free(path);
                return NULL;
            }
            free(path);
            return n;
        }
        case FZ7_OVERWRITE_RENAME_OLD:
            if (fz7_disk_rename_existing(r->disk, path, NULL, err, sizeof err) != FZ7_OK) {
                warn(r, "Cannot rename the existing file", path, err);
                free(path);
                return NULL;
            }
            return path;
        case FZ7_OVERWRITE_ASK: {
            fz7_progress_clear(r->progress);
            char *shown = shown_path(r, path);
            fz7_answer ans = fz7_ask_overwrite(r->out, shown ? shown : path, (uint64_t)st->st_size,
                                               st->st_mtime, fz7_entry_path(e), e->size,
                                               e->has_mtime || fz7_archive_get_info(r->a)->zero_mtime_1601,
                                               e->has_mtime ? e->mtime : FZ7_FILETIME_ZERO_UNIX);
            free(shown);
            switch (ans) {
            case FZ7_ANSWER_YES: return path;
            case FZ7_ANSWER_NO: free(path); return NULL;
            case FZ7_ANSWER_ALWAYS: r->overwrite = FZ7_OVERWRITE_ALL; break;
            case FZ7_ANSWER_SKIP_ALL: r->overwrite = FZ7_OVERWRITE_SKIP; break;
            case FZ7_ANSWER_RENAME_ALL: r->overwrite = FZ7_OVERWRITE_RENAME_NEW; break;
            case FZ7_ANSWER_QUIT: r->quit = true; free(path); return NULL;
            case FZ7_ANSWER_EOF: r->broken = true; free(path); return NULL;
            }
            break;
        }
        }
    }
}

/* An entry's -bb line: mark ("-" written, "T" tested) and its name as
 * stored, a folder's with a '/' as 7-Zip lists them. */
static void item_line(run *r, char mark, const fz7_entry *e)
{
    const char *name = fz7_entry_path(e);
    size_t n = strlen(name);
    fz7_progress_clear(r->progress);
    char m[2] = {mark, 0};
    fz7_print_item(r->out, m, name, e->is_dir && (n == 0 || name[n - 1] != '/') ? "/" : "");
}

/* The entries before this one that are decoded only because they share
 * its solid block: counted in "Files:" and "Size:" as 7-Zip counts them,
 * and from -bb2 listed as ". name". */
static void list_passed_over(run *r, size_t index, const fz7_entry *e)
{
    for (size_t j = r->next_index; j < index && e->folder >= 0; j++) {
        const fz7_entry *o = fz7_archive_entry(r->a, j);
        if (!r->select[j] && o->folder == e->folder && o->has_stream) {
            r->files++;
            r->size += o->size;
            if (r->o->bb >= 2) {
                fz7_progress_clear(r->progress);
                fz7_print_item(r->out, ".", fz7_entry_path(o), "");
            }
        }
    }
    r->next_index = index + 1;
}

/* -bb1 and up: "- name" for an entry written, by its name in the archive
 * (not the name on disk) and folders with a '/', as 7-Zip lists them. */
static void list_written(run *r, const fz7_entry *e)
{
    if (r->o->bb < 1 || r->listed_early == r->cur_index + 1)
        return;
    item_line(r, '-', e);
}

/* True when the Size line counts e's decoded bytes: it has no size, or
 * (x, e) a gzip trailer's, which 7-Zip's t takes and x does not. A
 * symbolic link without a size (a xar's) counts nothing, as in 7-Zip. */
static bool counts_decoded(const run *r, const fz7_entry *e)
{
    return (!e->has_size && !e->is_symlink) || (e->size_from_trailer && r->mode != RUN_TEST);
}

static fz7_status on_begin(void *ctx, size_t index, const fz7_entry *e)
{
    run *r = ctx;
    list_passed_over(r, index, e);
    r->cur = e;
    r->cur_index = index;
    r->writing = false;
    bool counted = !(e->link_named && r->mode == RUN_DISK);   /* as 7-Zip's x */
    if (e->is_dir)
        r->folders++;
    else if (counted)
        r->files++;
    if (counted && !counts_decoded(r, e))
        r->size += e->size;   /* else what it decodes to (on_data) */
    fz7_progress_item(r->progress, fz7_entry_path(e));
    if (r->sums && !e->is_anti) {
        /* 7-Zip's t sums folders' names too; x and e only the files. */
        if (!e->is_dir)
            fz7_hash_sums_file_begin(r->sums);
        else if (r->mode == RUN_TEST)
            fz7_hash_sums_folder(r->sums, fz7_entry_path(e));
    }
    if (r->mode == RUN_TEST) {
        if (r->o->bb >= 1 && r->listed_early != index + 1)
            item_line(r, 'T', e);
        return FZ7_OK;
    }
    if (r->mode == RUN_STDOUT) {
        list_written(r, e);   /* (to where -bso sends the log, if anywhere) */
        return FZ7_OK;
    }

    /* `e` keeps the last name as stored ("a/.." is "..", made safe below). */
    const char *stored = fz7_entry_path(e);
    if (r->root) { /* -spe: the root folder is the output folder */
        stored += r->root_len;
        while (*stored == '/')
            stored++;
    }
    char *last = NULL;
    if (r->flat) {
        size_t end = strlen(stored);
        while (end > 0 && stored[end - 1] == '/')
            end--;
        size_t start = end;
        while (start > 0 && stored[start - 1] != '/')
            start--;
        last = strndup(stored + start, end - start);
        if (!last)
            return FZ7_E_MEM;
    }
    char *path;
    fz7_status s = fz7_disk_safe_path(last ? last : stored, e->is_dir, &path);
    free(last);
    if (s != FZ7_OK)
        return s;
    if (r->o->full_paths == 1 && !r->flat && stored[0] == '/' && !e->is_symlink && path[0]) {
        /* x -spf: an absolute name is written where it says, as 7-Zip does
         * (its ".." parts are dropped all the same); -spf2 puts it below
         * the output folder. */
        char *abs = malloc(strlen(path) + 2);
        if (!abs) {
            free(path);
            return FZ7_E_MEM;
        }
        abs[0] = '/';
        strcpy(abs + 1, path);
        free(path);
        path = abs;
    }
    if (e->is_anti) {
        /* An anti-item deletes the file or empty folder of its name, as
         * 7-Zip's x does: below the output folder only, never through a
         * symlink; a folder that is not empty stays. A file is first
         * asked about, skipped or renamed as an existing file is (-ao). */
        list_written(r, e);
        if (r->o->full_paths == 1 && stored[0] == '/') {
            free(path);
            return FZ7_OK;
        }
        struct stat st;
        if (!e->is_dir && fz7_disk_lookup(r->disk, path, &st) > 0) {
            path = resolve_existing(r, e, path, &st);
            if (r->quit || r->broken)
                return FZ7_E_ARG;
            if (!path)
                return FZ7_OK;
        }
        (void)fz7_disk_remove_anti(r->disk, path);
        free(path);
        return FZ7_OK;
    }
    if (!path[0]) { /* "..", "." as a folder: the output folder itself */
        if (r->root && e->is_dir && !stored[0] && e->has_mtime) {
            r->root_time_set = true; /* -spe: its time goes to the output folder */
            r->root_time.tv_sec = (time_t)e->mtime;
            r->root_time.tv_nsec = (long)e->mtime_nsec;
        }
        if (e->is_dir && stored[strspn(stored, "./")] == '\0' && !strstr(stored, "..")) {
            r->root_mode_set = true; /* tar's "./": its mode is the output folder's, as 7-Zip and tar */
            r->root_mode = perm_of(r, e);
        }
        free(path);
        list_written(r, e);
        return FZ7_OK;
    }
    fz7_disk_kind kind = e->is_dir ? FZ7_DISK_DIR : e->is_symlink ? FZ7_DISK_SYMLINK : FZ7_DISK_FILE;
    if (kind == FZ7_DISK_DIR) {
        /* A file where a folder goes is kept, even with -y, and the folder
         * fails as in 7-Zip (its entries then fail too). A symlink holds no
         * data: -y replaces it (7-Zip writes through it, even outside). */
        struct stat st;
        if (fz7_disk_lookup(r->disk, path, &st) > 0 && !S_ISDIR(st.st_mode) &&
            !(S_ISLNK(st.st_mode) && r->overwrite == FZ7_OVERWRITE_ALL)) {
            disk_error(r, "Cannot create folder", EEXIST, path);
            free(path);
            return FZ7_OK;
        }
    } else {
        struct stat st;
        int ex = fz7_disk_lookup(r->disk, path, &st);
        if (ex < 0) { /* a parent is a symlink or a file */
            disk_error(r, "Cannot open output file", ENOTDIR, path);
            free(path);
            return FZ7_OK;
        }
        if (ex > 0) { /* a folder too is asked about, skipped, renamed or replaced */
            path = resolve_existing(r, e, path, &st);
            if (r->quit || r->broken)
                return FZ7_E_ARG;
            if (!path) { /* skipped: from -bb2 listed as ". name", as 7-Zip */
                /* and left out of Files and Size, but for a 7z's files,
                 * which 7-Zip decodes all the same */
                if (!e->is_dir && !(e->link_named && r->mode == RUN_DISK) &&
                    fz7_archive_get_info(r->a)->format != FZ7_FORMAT_7Z) {
                    r->files--;
                    if (!counts_decoded(r, e))
                        r->size -= e->size;
                }
                if (r->o->bb >= 2) {
                    fz7_progress_clear(r->progress);
                    fz7_print_item(r->out, ".", fz7_entry_path(e), "");
                }
                return FZ7_OK;
            }
            if (S_ISDIR(st.st_mode) && fz7_disk_lookup(r->disk, path, &st) > 0 &&
                S_ISDIR(st.st_mode) && fz7_disk_remove_dir(r->disk, path) != 0) {
                disk_error(r, "Cannot delete output folder", errno, path);
                free(path);
                return FZ7_OK;
            }
        }
    }
    fz7_disk_item it = {.path = path, .name = fz7_entry_path(e), .kind = kind, .perm = perm_of(r, e),
                        .has_mtime = e->has_mtime, .mtime = e->mtime, .mtime_nsec = e->mtime_nsec,
                        .has_atime = e->has_atime && e->more};
    if (r->o->store_owner_id)   /* -snoi: the stored owner, as 7zz gives it */
        it.has_owner = fz7_archive_entry_owner(r->a, index, &it.uid, &it.gid);
    if (it.has_atime) {
        it.atime = e->more->atime;
        it.atime_nsec = e->more->atime_nsec;
    }
    if (!e->has_mtime && fz7_archive_get_info(r->a)->zero_mtime_1601) {
        it.has_mtime = true;   /* 7-Zip sets the zero FILETIME it was given */
        it.mtime = FZ7_FILETIME_ZERO_UNIX;
        it.mtime_nsec = 0;
    } else if (!e->has_mtime && r->has_arc_mtime) { /* as 7-Zip: .xz, .lzma, 7z without times */
        it.has_mtime = true;
        it.mtime = (int64_t)r->arc_mtime.tv_sec;
        it.mtime_nsec = (uint32_t)r->arc_mtime.tv_nsec;
    }
    char err[600];
    s = fz7_disk_begin(r->disk, &it, err, sizeof err);
    if (s == FZ7_OK) {
        r->writing = kind != FZ7_DISK_DIR;
        if (kind == FZ7_DISK_FILE && r->links && r->links[index].needed) {
            free(r->cur_path);
            r->cur_path = strdup(path);
        }
        list_written(r, e);
    } else if (s == FZ7_E_ARG) {
        warn(r, "Refused", fz7_entry_path(e), err);
        s = FZ7_OK;
    } else if (s == FZ7_E_IO && fz7_disk_errno(r->disk) > 0) { /* 7-Zip's words */
        disk_error(r, kind == FZ7_DISK_DIR ? "Cannot create folder" : "Cannot open output file",
                   fz7_disk_errno(r->disk), path);
        s = FZ7_OK;
    } else if (s == FZ7_E_IO) {
        fflush(r->out);
        fprintf(stderr, "ERROR: Cannot open output file : %s\n" FZ7_DETAIL_IN "\n", fz7_entry_path(e),
                r->arc_path, ": ", err);
        r->errors++;
        s = FZ7_OK;
    }
    free(path);
    return s;
}

static fz7_status on_data(void *ctx, const uint8_t *p, size_t n)
{
    run *r = ctx;
    fz7_progress_add(r->progress, n);
    if (r->cur && counts_decoded(r, r->cur))
        r->size += n;
    if (r->sums && r->cur && !r->cur->is_dir)
        fz7_hash_sums_data(r->sums, p, n);
    if (r->mode == RUN_STDOUT) {
        if (r->cur && !r->cur->is_dir && fwrite(p, 1, n, stdout) != n) {
            r->stdout_errno = errno ? errno : EIO;
            snprintf(r->fatal_msg, sizeof r->fatal_msg, "Cannot write to stdout");
            r->fatal = FZ7_E_IO;
            return FZ7_E_IO;
        }
        return FZ7_OK;
    }
    if (!r->writing)
        return FZ7_OK;
    char err[600];
    fz7_status s = fz7_disk_data(r->disk, p, n, err, sizeof err);
    if (s != FZ7_OK) {
        snprintf(r->fatal_msg, sizeof r->fatal_msg, "%s", err);
        r->fatal = s;
    }
    return s;
}

/* A hard link (tar) is made as a link to the file written for target in
 * this run, when that file is still there; else its data come as a copy. */
static bool on_hardlink(void *ctx, size_t index, size_t target)
{
    (void)index;
    run *r = ctx;
    /* Tested, a hard link has no bytes of its own (7-Zip's t -scrc sums
     * give it none); to stdout it gives its file's bytes (7-Zip writes
     * nothing for it: `e -so` of a file stored as a link would be empty). */
    if (r->mode == RUN_TEST)
        return true;
    if (!r->writing || !r->links || !r->links[target].path)
        return false;
    char err[600];
    return fz7_disk_link_file(r->disk, r->links[target].path, &r->links[target].st, err,
                              sizeof err) == FZ7_OK;
}

static fz7_status on_end(void *ctx, size_t index, fz7_status result, const char *detail)
{
    run *r = ctx;
    const fz7_entry *e = r->cur;
    if (!e)
        return FZ7_OK;
    if (r->sums && !e->is_dir && !e->is_anti)
        fz7_hash_sums_file_end(r->sums, fz7_entry_path(e));
    bool link_missing = e->more && e->more->hardlink_missing;
    if (result != FZ7_OK && link_missing && r->mode != RUN_DISK) {
        /* 7-Zip tests such an entry, or writes it to stdout, as good (it
         * has no data) and fails it on extraction, with its own words. */
        result = FZ7_OK;
    } else if (result != FZ7_OK && link_missing) {
        link_target_missing(r, e, detail);
    } else if (result != FZ7_OK) {
        entry_error(r, result, e, detail);
    }
    /* Decoded bytes that failed their check are kept for salvage (7-Zip
     * keeps them too), never over a file that is already there. Not after
     * a wrong password (7-Zip keeps those): nothing to salvage, and the
     * file would stand in the way of the retry. An encrypted entry's CRC
     * mismatch is most likely that (a stored one has no other check). */
    bool damaged = (result == FZ7_E_CRC && !e->encrypted) || result == FZ7_E_DATA ||
                   result == FZ7_E_TRUNCATED || result == FZ7_E_TAIL;
    if (r->writing && damaged && !e->is_symlink && r->fatal == FZ7_OK) {
        char err[600], *kept_as = NULL;
        fz7_status s = fz7_disk_end_damaged(r->disk, &kept_as, err, sizeof err);
        r->writing = false;
        fz7_progress_clear(r->progress);
        fflush(r->out);
        if (s != FZ7_OK)
            fprintf(stderr, "ERROR: Cannot write output file : %s\n" FZ7_DETAIL_IN "\n", fz7_entry_path(e),
                    r->arc_path, ": ", err);
        else if (kept_as)
            fprintf(stderr, "ERROR: %s : the damaged data were kept as %s beside the existing file\n" FZ7_DETAIL_IN "\n",
                    fz7_entry_path(e), kept_as, r->arc_path, "", "");
        free(kept_as);
    }
    if (r->writing) {
        char err[600];
        fz7_status s = fz7_disk_end(r->disk, result == FZ7_OK, err, sizeof err);
        r->writing = false;
        if (s == FZ7_OK && result == FZ7_OK && r->cur_path &&
            fz7_disk_lookup(r->disk, r->cur_path, &r->links[index].st) == 1) {
            free(r->links[index].path);
            r->links[index].path = r->cur_path;
            r->cur_path = NULL;
        }
        if (s == FZ7_E_ARG) { /* a dangerous symlink, not created */
            fz7_progress_clear(r->progress);
            fflush(r->out);
            fprintf(stderr, "ERROR: %s\n", err);
            r->errors++;
        } else if (s != FZ7_OK && result == FZ7_OK) {
            fflush(r->out);
            fprintf(stderr, "ERROR: Cannot write output file : %s\n" FZ7_DETAIL_IN "\n", fz7_entry_path(e),
                    r->arc_path, ": ", err);
            r->errors++;
        }
    }
    free(r->cur_path);
    r->cur_path = NULL;
    r->cur = NULL;
    return FZ7_OK;
}

/* What x, e and t add up over the archives of one command line, for the
 * summary after the last. */
typedef struct totals {
    uint64_t files, folders, size, compressed;
    unsigned long archives, ok, cant_open, with_errors, with_warnings, open_warnings, sub_errors;
    unsigned long open_errors;   /* opened, but cut short (fz7_archive_info.open_error) */
    unsigned long failed;    /* did not open for a read or memory failure */
    unsigned long com_errors; /* ended by a reader's COM error (E_FAIL): 7zz's
                                 summary then ends with an empty line */
    char *password;          /* the one asked for, used for the archives after */
    fz7_hash_sums *sums;     /* -scrc; NULL without it */
} totals;

/* -spe: the archive's one root folder when it is named as the output
 * folder (every entry lies in it), else NULL. */
static const char *root_to_drop(const struct fz7_options *o, fz7_archive *a, size_t *len)
{
    if (!o->eliminate_root || o->command != FZ7_CMD_EXTRACT || o->to_stdout || !o->out_dir)
        return NULL;
    const char *od = o->out_dir;
    size_t end = strlen(od);
    while (end > 1 && od[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && od[start - 1] != '/')
        start--;
    *len = end - start;
    size_t n = fz7_archive_count(a);
    if (*len == 0 || n == 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *p = fz7_entry_path(fz7_archive_entry(a, i));
        if (strncmp(p, od + start, *len) || (p[*len] && p[*len] != '/'))
            return NULL;
    }
    return od + start;
}

/* The -o folder for archive path when -o holds '*': each '*' becomes the
 * archive's file name without its extension, as 7zz names it (a.7z: a,
 * v.7z.001: v, a.tgz: a.tar, a name without one: itself and '~', so that
 * the folder is not the archive). malloc'ed; NULL when out of memory. */
static char *out_dir_for(const char *out_dir, const char *path)
{
    static const char *const inner_tar[] = {"tgz", "tpz", "apk", "tbz", "tbz2", "txz", "tzst", "taz", "tlz"};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    /* a volume's number (.001) first: the set is named without it */
    const char *dot = memrchr(base, '.', len);
    if (dot && dot > base && base + len - dot >= 4 && strspn(dot + 1, "0123456789") == (size_t)(base + len - dot - 1))
        len = (size_t)(dot - base);
    dot = memrchr(base, '.', len);
    const char *tail = "~";
    if (dot && dot > base) {
        size_t ext_len = len - (size_t)(dot + 1 - base);
        tail = "";
        for (size_t i = 0; i < sizeof inner_tar / sizeof inner_tar[0]; i++)
            if (strlen(inner_tar[i]) == ext_len && !strncasecmp(dot + 1, inner_tar[i], ext_len))
                tail = ".tar";
        len = (size_t)(dot - base);
    }
    size_t stars = 0;
    for (const char *c = out_dir; *c; c++)
        stars += *c == '*';
    size_t cap = strlen(out_dir) + stars * (len + strlen(tail)) + 1;
    char *dir = malloc(cap), *w = dir;
    if (!dir)
        return NULL;
    for (const char *c = out_dir; *c; c++) {
        if (*c != '*') {
            *w++ = *c;
            continue;
        }
        memcpy(w, base, len);
        w += len;
        w = stpcpy(w, tail);
    }
    *w = 0;
    return dir;
}

static int extract_into(const struct fz7_options *o, const char *path, totals *t);

/* One archive: its block, its entries, its own result lines; the counts go
 * to *t. Returns the archive's exit code (255: stop here). */
static int extract_one(const struct fz7_options *o, const char *path, totals *t)
{
    if (!o->out_dir || !strchr(o->out_dir, '*'))
        return extract_into(o, path, t);
    struct fz7_options own = *o;
    char *dir = out_dir_for(o->out_dir, path);
    if (!dir)
        return FZ7_EXIT_MEMORY;
    own.out_dir = dir;
    int rc = extract_into(&own, path, t);
    free(dir);
    return rc;
}

/* extract_one with -o's '*' replaced. */
static int extract_into(const struct fz7_options *o, const char *path, totals *t)
{
    run r = {.o = o, .overwrite = o->overwrite, .sums = t->sums};
    r.mode = o->command == FZ7_CMD_TEST ? RUN_TEST : o->to_stdout ? RUN_STDOUT : RUN_DISK;
    r.flat = o->command == FZ7_CMD_EXTRACT_FLAT && !o->full_paths;   /* e -spf: paths, as 7zz */
    r.out = fz7_msg_stream(o);
    r.arc_path = o->from_stdin ? "stdin" : path;   /* for fz7's detail lines */
    r.umask_bits = umask(0);
    umask(r.umask_bits);
    struct stat arc_st;
    if (!o->from_stdin && stat(path, &arc_st) == 0) {
        r.has_arc_mtime = true;
        r.arc_mtime = arc_st.st_mtim;
    }
    t->archives++;

    fz7_archive *a;
    char *password;
    bool cant_open;
    int rc = fz7_open_for_read(o, path, r.out, o->command == FZ7_CMD_TEST ? "Testing" : "Extracting",
                               false, &a, &password, &cant_open);
    if (rc) {
        if (cant_open)
            t->cant_open++;
        else if (rc != FZ7_EXIT_BREAK)
            t->failed++;
        return rc;
    }
    r.a = a;
    bool piped = fz7_archive_get_info(a)->piped;
    const char *warned_in;   /* an archive opened inside another: 7-Zip names it */
    const char *arc_warning = fz7_archive_warning_in(a, &warned_in);
    bool tail = arc_warning != NULL;
    const char *expected = fz7_unexpected_type(o, path, a);
    if (expected) /* opened all the same, as 7-Zip does; exit code 0 */
        fprintf(r.out, "WARNING:\n%s\nCannot open the file as [%s] archive\n"
                       "The file is open as [%s] archive\n\n", path, expected, fz7_archive_type_name(a));
    /* an open error first, then a tail's warning (an lzh's bad header
     * with bytes after it), in 7-Zip 26's order */
    const char *inner;   /* (the member a level that is cut short was opened as) */
    const char *open_error = fz7_archive_open_error_in(a, &inner);
    if (open_error) { /* cut short: what is there is extracted, exit code 2 */
        fflush(r.out);
        uint64_t first, all;   /* a volume set: 7-Zip names the archive in it */
        const char *vol = fz7_volume_set_sizes(path, a, &first, &all) ? strrchr(path, '.') : NULL;
        const char *detail = fz7_archive_get_info(a)->open_detail;
        if (inner)
            fprintf(stderr, "\n%s\nERRORS:\n%s\n%s%s\n", inner, open_error, detail ? detail : "", detail ? "\n" : "");
        else
            fprintf(stderr, "\n%.*s%sERRORS:\n%s\n%s%s\n", vol ? (int)(vol - path) : 0, path, vol ? "\n" : "",
                    open_error, detail ? detail : "", detail ? "\n" : "");
    }
    if (tail) /* 7-Zip 26 says it before the block and in it; exit code 0 */
        fprintf(r.out, "\n%s%sWARNINGS:\n%s\n\n", warned_in ? warned_in : "", warned_in ? "\n" : "", arc_warning);
    fz7_print_archive_block(r.out, piped ? "" : path, a, expected);
    fputc('\n', r.out);

    size_t n = fz7_archive_count(a);
    bool *select = calloc(n ? n : 1, sizeof *select);
    if (!select) {
        fz7_archive_close(a);
        fz7_keep_password(NULL, &password);
        fprintf(stderr, "ERROR: Can't allocate required memory\n");
        return FZ7_EXIT_MEMORY;
    }
    r.root = root_to_drop(o, a, &r.root_len);
    uint64_t total = 0;
    size_t n_selected = 0;
    for (size_t i = 0; i < n; i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        select[i] = fz7_selected_item(o, fz7_entry_path(e), e->is_dir);
        if (select[i]) {
            total += e->size;
            n_selected++;
        }
    }
    if (n_selected == 0) /* nothing asked for is there (or an empty archive) */
        fprintf(r.out, "\nNo files to process\n");
    r.progress = fz7_progress_start(o, total);
    r.select = select;

    /* As 7-Zip, a password is asked for when the first encrypted entry is
     * reached: what comes before it (folders, empty files) is out by then. */
    size_t locked = n;
    if (!o->password && !password)
        for (size_t i = 0; i < n && locked == n; i++)
            if (select[i] && fz7_archive_entry(a, i)->encrypted)
                locked = i;
    /* By its full name: the disk writer works in the -o folder. */
    char *real_path = locked < n ? realpath(path, NULL) : NULL;
    char err[600] = "";
    fz7_status s = FZ7_OK;
    /* As 7-Zip: no -o folder for nothing; t and -so make the folder too. */
    bool test_out = (r.mode == RUN_TEST || r.mode == RUN_STDOUT) && o->out_dir && o->out_dir[0];
    if ((r.mode == RUN_DISK || test_out) && n_selected > 0)
        s = fz7_disk_open(o->out_dir, &r.disk, err, sizeof err);
    if (r.mode != RUN_DISK && r.disk) {
        s = fz7_disk_close(r.disk, err, sizeof err);
        r.disk = NULL;
    }
    bool no_out_dir = s != FZ7_OK;
    if (r.disk) {
        fz7_disk_allow_dangerous_links(r.disk, o->allow_dangerous_links);
        fz7_disk_allow_absolute(r.disk, o->full_paths == 1);
    }
    if (s == FZ7_OK && n_selected > 0) {
        fz7_extract_cb cb = {.ctx = &r, .begin = on_begin, .data = on_data, .end = on_end,
                             .hardlink = on_hardlink};
        for (size_t i = 0; i < n && s == FZ7_OK; i++) {
            const fz7_entry *e = fz7_archive_entry(a, i);
            if (select[i] && e->is_hardlink && e->more->hardlink_index < n) {
                if (!r.links && !(r.links = calloc(n, sizeof *r.links)))
                    s = FZ7_E_MEM;
                else
                    r.links[e->more->hardlink_index].needed = true;
            }
        }
        bool *later = NULL;
        if (locked < n) {
            later = calloc(n, sizeof *later);
            if (!later)
                s = FZ7_E_MEM;
            for (size_t i = locked; later && i < n; i++) {
                later[i] = select[i];
                select[i] = false;
            }
        }
        if (s == FZ7_OK)
            s = fz7_archive_extract(a, select, &cb, err, sizeof err);
        if (s == FZ7_OK && later && !r.broken && !r.quit) {
            fz7_progress_clear(r.progress);
            const fz7_entry *first = fz7_archive_entry(a, locked);
            if (first->folder < 0 && o->bb >= 1) {
                /* An entry encrypted on its own (zip): 7zz lists it, then
                 * asks as it opens its data; a 7z folder's key is asked
                 * for before its first entry. */
                item_line(&r, r.mode == RUN_TEST ? 'T' : '-', first);
                r.listed_early = locked + 1;
            }
            password = fz7_ask_password(r.out);
            if (!password) {
                r.broken = true;
                r.asked_eof = true;
            } else {
                fz7_archive *b;
                rc = fz7_reopen_with_password(o, real_path ? real_path : path, r.out, password, &b);
                if (rc) {
                    s = FZ7_E_ARG;
                    r.reopen_rc = rc;
                } else {
                    fz7_archive_close(a);
                    a = r.a = b;
                    memcpy(select, later, n * sizeof *select);
                    s = fz7_archive_extract(a, select, &cb, err, sizeof err);
                }
            }
        }
        free(later);
        if (r.writing) { /* stopped inside an entry: drop its temporary file */
            char e2[64];
            fz7_disk_end(r.disk, false, e2, sizeof e2);
        }
    }
    free(real_path);
    for (size_t i = 0; r.links && i < n; i++)
        free(r.links[i].path);
    free(r.links);
    free(r.cur_path);
    char cerr[600] = "";
    if (r.disk && fz7_disk_close(r.disk, cerr, sizeof cerr) != FZ7_OK) {
        fflush(r.out);
        fprintf(stderr, "WARNING: %s : %s\n", path, cerr);
        r.warnings++;
    }
    if (r.root_mode_set && r.mode == RUN_DISK)
        (void)chmod(o->out_dir && o->out_dir[0] ? o->out_dir : ".", (mode_t)r.root_mode);
    if (r.root_time_set && o->out_dir) {
        /* -spe: the output folder stands for the root folder, as in 7-Zip. */
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, r.root_time};
        utimensat(AT_FDCWD, o->out_dir, ts, 0);
    }
    fz7_progress_end(r.progress);
    r.progress = NULL;
    /* (what is still buffered fails only here: a small file to a full
     * disk or a closed descriptor) */
    if (r.mode == RUN_STDOUT && fflush(stdout) != 0 && !r.stdout_errno)
        r.stdout_errno = errno ? errno : EIO;
    if (piped) /* sizes of a piped archive are known only now */
        r.size = n ? fz7_archive_entry(a, 0)->size : 0;
    /* "Compressed:" counts the whole file, a stub and a tail too (as 7-Zip). */
    /* a .deb: the whole file counts */
    const fz7_archive_info *whole = fz7_archive_get_info(fz7_archive_outermost(a));
    uint64_t phy_size = whole->offset + whole->phy_size + whole->tail_size;
    free(select);
    fz7_archive_close(a);
    fz7_keep_password(&t->password, &password);

    fflush(r.out);
    if (r.asked_eof || r.broken) { /* no answer at the end of input */
        fputc('\n', r.out);
        fflush(r.out);
        return fz7_break_signaled();
    }
    if (r.quit)   /* (Q)uit: the answer's newline is out, then 7zz's lines */
        return fz7_break_signaled();
    if (r.reopen_rc) {
        t->with_errors++;
        return r.reopen_rc;
    }
    const char *errno_at = strstr(err, "errno=");
    if (s != FZ7_OK && no_out_dir && errno_at) {
        /* The output folder could not be made: 7-Zip's "System ERROR". */
        int en = atoi(errno_at + 6);
        fprintf(stderr, "\nERROR:\n%s\n\n\nSystem ERROR:\nerrno=%d : %s\n", err, en, strerror(en));
        fputc('\n', r.out);
        return -FZ7_EXIT_FATAL; /* the end: no summary */
    }
    if (r.stdout_errno) {   /* 7zz's words, and no summary */
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", r.stdout_errno, strerror(r.stdout_errno));
        return -FZ7_EXIT_FATAL;
    }
    if (s != FZ7_OK) {
        const char *why = r.fatal != FZ7_OK ? r.fatal_msg : err[0] ? err : fz7_status_str(s);
        if (!strncmp(why, "E_FAIL : ", 9)) {   /* a COM error of the reader's: 7zz names no */
            fprintf(stderr, "\nERROR: %s\n", why);   /* file, and still counts the tail */
            t->open_warnings += tail;
            t->com_errors++;
        } else
            fprintf(stderr, "ERROR: %s : %s\n", path, why);
        t->with_errors++;
        return s == FZ7_E_MEM ? FZ7_EXIT_MEMORY : FZ7_EXIT_FATAL;
    }
    t->files += r.files;
    t->folders += r.folders;
    t->size += r.size;
    t->compressed += phy_size;
    t->open_errors += open_error != NULL;
    if (r.errors) {
        fprintf(r.out, "\nSub items Errors: %lu\n", r.errors);
        t->sub_errors += r.errors;
        t->with_errors++;
        t->open_warnings += tail;   /* 7-Zip still counts the tail's warning */
        return FZ7_EXIT_FATAL;
    }
    if (open_error) {
        fputc('\n', r.out);
        t->with_errors++;
        t->open_warnings += tail;
        return FZ7_EXIT_FATAL;
    }
    if (r.warnings) {
        fprintf(r.out, "\nWarnings: %lu\n", r.warnings + tail);
        t->ok++;
        return FZ7_EXIT_WARNING;
    }
    fprintf(r.out, "Everything is Ok\n");
    if (tail || expected) { /* 7-Zip: not an OK archive, but exit code 0 */
        t->with_warnings++;
        t->open_warnings += tail;
    } else {
        t->ok++;
    }
    return FZ7_EXIT_OK;
}

/* 7-Zip's summary after the last archive: the archive counts when there
 * were several, then errors, or the item counts and the -scrc sums. */
static void print_summary(FILE *out, const totals *t, bool several)
{
    fputc('\n', out);
    if (several)
        fprintf(out, "Archives: %lu\nOK archives: %lu\n", t->archives, t->ok);
    if (t->cant_open)
        fprintf(out, "Can't open as archive: %lu\n", t->cant_open);
    if (t->with_errors)
        fprintf(out, "Archives with Errors: %lu\n", t->with_errors);
    if (t->open_warnings && t->open_errors)   /* (before them, as 7zz) */
        fprintf(out, "\nWarnings: %lu\n", t->open_warnings);
    if (t->open_errors)   /* (an empty line after it when no item failed, as 7zz) */
        fprintf(out, "\nOpen Errors: %lu\n%s", t->open_errors, t->sub_errors ? "" : "\n");
    if (t->with_warnings)
        fprintf(out, "Archives with Warnings: %lu\n", t->with_warnings);
    if (t->open_warnings && !t->open_errors)   /* the tail warnings; 7-Zip counts no type warning here */
        fprintf(out, "\nWarnings: %lu\n", t->open_warnings);
    if (t->sub_errors)
        fprintf(out, "\nSub items Errors: %lu\n", t->sub_errors);
    if (t->with_errors) {
        if (t->com_errors)
            fputc('\n', out);
        return;
    }
    if (t->folders)
        fprintf(out, "Folders: %llu\n", (unsigned long long)t->folders);
    if (t->folders || t->files != 1) /* 7-Zip leaves out "Files: 1" alone */
        fprintf(out, "Files: %llu\n", (unsigned long long)t->files);
    fprintf(out, "Size:       %llu\nCompressed: %llu\n", (unsigned long long)t->size,
            (unsigned long long)t->compressed);
    if (t->sums) {
        fputc('\n', out);
        fz7_hash_sums_print(t->sums, out);
    }
}

int fz7_cmd_extract(const struct fz7_options *o)
{
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);
    fz7_archive_list list;
    int rc = fz7_find_archives(o, out, &list);
    if (rc)
        return rc;
    totals t = {0};
    if (o->n_hashes && (rc = fz7_hash_sums_new(o, out, &t.sums)) != 0) {
        fz7_archive_list_free(&list);
        return rc;
    }
    bool stopped = false, no_summary = false;
    for (size_t i = 0; i < list.n && !stopped; i++) {
        struct fz7_options each = *o; /* as 7-Zip: a password typed once serves the rest */
        if (!each.password && t.password)
            each.password = t.password;
        int r = extract_one(&each, list.paths[i], &t);
        if (r < 0) { /* an output folder that cannot be made ends it all */
            no_summary = true;
            r = -r;
        }
        stopped = r == FZ7_EXIT_BREAK || no_summary;
        if (r > rc && rc != FZ7_EXIT_BREAK)
            rc = r;
    }
    bool several = list.n > 1;
    fz7_archive_list_free(&list);
    fflush(out);
    if (stopped && !no_summary && several)
        fprintf(out, "Archives: %lu\nOK archives: %lu\n", t.archives, t.ok);
    /* A single archive that failed on a read or memory error has no summary. */
    else if (!stopped && !(!several && t.failed))
        print_summary(out, &t, several);
    fz7_hash_sums_free(t.sums);
    fz7_keep_password(NULL, &t.password);
    return rc;
}
