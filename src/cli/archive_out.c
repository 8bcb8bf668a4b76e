/* archive_out.c - the parts of writing an archive that `fz7 a` and
 * `fz7 u/d/rn` share: input scanning with 7-Zip's warning block, the size
 * lines, and the temporary file that becomes the archive only by rename. */
#include "cli/archive_out.h"
#include "cli/cli.h"
#include "format/fd_ostream.h"
#include "format/file_io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool fz7_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

int fz7_write_exit_code(fz7_status st)
{
    if (st == FZ7_E_MEM)
        return FZ7_EXIT_MEMORY;
    if (st == FZ7_E_ARG)
        return FZ7_EXIT_USAGE;
    return FZ7_EXIT_FATAL;
}

void fz7_print_write_error(FILE *out, const char *path, fz7_status st, int werr, const char *why)
{
    fflush(out);
    /* the writer's why may be the system's words (libarchive's) */
    if (st == FZ7_E_IO && werr && (!why[0] || strstr(why, strerror(werr))))
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", werr, strerror(werr));
    else
        fprintf(stderr, "\nERROR: %s : %s\n", path,
                why[0] ? why : st == FZ7_E_IO && werr ? strerror(werr) : st == FZ7_E_IO ? "write error" : fz7_status_str(st));
}

/* ---- input scanning ----------------------------------------------------- */

/* 7-Zip's immediate form of a warning, on stderr, and its line kept for
 * the block at the end. */
static void keep_warning(fz7_scan_warnings *sw, char ***lines, size_t *n, const char *path, int err)
{
    (*sw->count)++;
    fflush(stdout);
    fprintf(stderr, "\nWARNING: errno=%d : %s\n", err, strerror(err));
    fz7_print_name(stderr, path);   /* a newline in it as '_', as 7zz */
    fputs("\n\n", stderr);
    char line[PATH_MAX + 128];
    snprintf(line, sizeof line, "%s : errno=%d : %s", path, err, strerror(err));
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = '_';
    char **grown = realloc(*lines, (*n + 1) * sizeof *grown);
    if (!grown)
        return;
    *lines = grown;
    grown[*n] = strdup(line);
    if (grown[*n])
        (*n)++;
}

static void scan_warn(void *ctx, const char *path, int err)
{
    fz7_scan_warnings *sw = ctx;
    keep_warning(sw, &sw->lines, &sw->n, path, err);
}

void fz7_open_warn(fz7_scan_warnings *sw, FILE *out, const char *path, int err)
{
    fflush(out);
    keep_warning(sw, &sw->open_lines, &sw->n_open, path, err);
}

fz7_status fz7_scan_inputs(const struct fz7_options *o, fz7_tree *tree, fz7_scan_warnings *sw)
{
    return fz7_scan_inputs_ordered(o, tree, sw, true);
}

fz7_status fz7_scan_inputs_ordered(const struct fz7_options *o, fz7_tree *tree,
                                   fz7_scan_warnings *sw, bool sort)
{
    fz7_match_rule *ex = NULL;
    if (o->n_excludes) {
        ex = calloc(o->n_excludes, sizeof *ex);
        if (!ex)
            return FZ7_E_MEM;
        for (size_t i = 0; i < o->n_excludes; i++) {
            ex[i].pattern = o->excludes[i].pattern;
            ex[i].recursive = o->excludes[i].recursive;
        }
    }
    fz7_tree_opts to = {0};   /* each name carries its recursion (-r, -r0, -ir!) */
    to.store_symlinks = o->store_symlinks;
    to.full_paths = o->full_paths;
    to.no_wildcards = o->no_wildcards;
    to.exclude = ex;
    to.n_exclude = o->n_excludes;
    to.warn = scan_warn;
    to.warn_ctx = sw;
    fz7_status st = FZ7_OK;
    if (o->n_names == 0) {
        fz7_tree_opts all = to;   /* 7-Zip: everything here, -spd or not */
        all.no_wildcards = false;
        all.recurse = o->recurse == FZ7_ON;
        st = fz7_tree_add(tree, "*", false, &all);
    }
    for (size_t i = 0; i < o->n_names && (st == FZ7_OK || st == FZ7_E_IO); i++)
        st = fz7_tree_add(tree, o->names[i].pattern, o->names[i].recursive, &to);
    free(ex);
    if (st == FZ7_E_IO)
        st = FZ7_OK;   /* reported as a warning already */
    if (st != FZ7_OK)
        return st;
    return sort ? fz7_tree_sort(tree) : FZ7_OK;
}

bool fz7_replacement_unreadable(const struct fz7_options *o, const fz7_tree_item *it)
{
    if (it->kind != FZ7_ITEM_FILE || o->stop_on_open_error || o->from_stdin)
        return false;   /* (-si: the data is standard input's) */
    int fd = fz7_open_input(it->disk_path, o->no_atime);
    if (fd < 0)
        return true;
    close(fd);
    return false;
}

int fz7_refuse_duplicate(FILE *out, const fz7_tree *t)
{
    if (!t->dup_name)
        return 0;
    fflush(out);
    fprintf(stderr, "\n\nERROR:\nDuplicate filename on disk:\n%s\n%s\n", t->dup_name, t->dup_name);
    return FZ7_EXIT_FATAL;
}

void fz7_scan_warnings_print(const fz7_scan_warnings *sw, FILE *out)
{
    if (!sw->n)
        return;
    if (fz7_messages_off()) { /* -bso0: on standard error, as 7zz */
        fflush(out);
        out = stderr;
    }
    fprintf(out, "\nScan WARNINGS for files and folders:\n\n");
    for (size_t i = 0; i < sw->n; i++)
        fprintf(out, "%s\n", sw->lines[i]);
    fprintf(out, "----------------\nScan WARNINGS: %zu\n", sw->n);
}

int fz7_sse_stop(const fz7_scan_warnings *sw, FILE *out, int err)
{
    fz7_scan_warnings_print(sw, out);
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", err, strerror(err));
    return FZ7_EXIT_FATAL;
}

void fz7_scan_warnings_free(fz7_scan_warnings *sw)
{
    for (size_t i = 0; i < sw->n; i++)
        free(sw->lines[i]);
    for (size_t i = 0; i < sw->n_open; i++)
        free(sw->open_lines[i]);
    free(sw->lines);
    free(sw->open_lines);
    sw->lines = sw->open_lines = NULL;
    sw->n = sw->n_open = 0;
}

/* ---- messages ------------------------------------------------------------- */

void fz7_print_one_stream_end(FILE *f, uint64_t archive_bytes)
{
    fprintf(f, "\n\nFiles read from disk: 0\nArchive size: ");
    fz7_print_size(f, archive_bytes);
    fprintf(f, "\nEverything is Ok\n");
}

void fz7_print_size(FILE *f, uint64_t v)
{
    fprintf(f, "%llu bytes", (unsigned long long)v);
    if (v == 0)
        return;
    unsigned shift = 10;
    char unit = 'K';
    if (v >= ((uint64_t)10 << 30))
        shift = 30, unit = 'G';
    else if (v >= ((uint64_t)10 << 20))
        shift = 20, unit = 'M';
    fprintf(f, " (%llu %ciB)", (unsigned long long)((v + ((uint64_t)1 << shift) - 1) >> shift),
            unit);
}

void fz7_print_name(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? '_' : *p, f);
}

void fz7_print_item(FILE *f, const char *mark, const char *name, const char *tail)
{
    fputs(mark, f);
    fputc(' ', f);
    fz7_print_name(f, name);
    fputs(tail, f);
    fputc('\n', f);
}

void fz7_print_counts(FILE *f, const char *what, uint64_t dirs, uint64_t files, uint64_t bytes)
{
    fputs(what, f);
    if (dirs)
        fprintf(f, "%llu folder%s, ", (unsigned long long)dirs, dirs == 1 ? "" : "s");
    fprintf(f, "%llu file%s, ", (unsigned long long)files, files == 1 ? "" : "s");
    fz7_print_size(f, bytes);
    fputc('\n', f);
}

void fz7_tree_counts(const fz7_tree *tree, uint64_t *dirs, uint64_t *files, uint64_t *bytes)
{
    *dirs = *files = *bytes = 0;
    for (size_t i = 0; i < tree->count; i++) {
        if (tree->items[i].kind == FZ7_ITEM_DIR) {
            (*dirs)++;
        } else {
            (*files)++;
            *bytes += tree->items[i].size;
        }
    }
}

uint64_t fz7_tree_largest_file(const fz7_tree *tree)
{
    uint64_t most = 0;
    for (size_t i = 0; i < tree->count; i++)
        if (tree->items[i].kind == FZ7_ITEM_FILE && tree->items[i].size > most)
            most = tree->items[i].size;
    return most;
}

void fz7_print_scan_counts(FILE *out, const fz7_tree *tree)
{
    uint64_t dirs, files, bytes, links = 0;
    fz7_tree_counts(tree, &dirs, &files, &bytes);
    for (size_t i = 0; i < tree->count; i++)
        if (tree->items[i].kind == FZ7_ITEM_SYMLINK)
            links += tree->items[i].size;
    fz7_print_counts(out, "", dirs, files, bytes - links);
    fputc('\n', out);
}

int fz7_print_write_end(FILE *out, const fz7_scan_warnings *sw, size_t warnings)
{
    fz7_scan_warnings_print(sw, out);
    if (sw->n_open) {
        fprintf(out, "\nWARNINGS for files:\n\n");
        for (size_t i = 0; i < sw->n_open; i++)
            fprintf(out, "%s\n", sw->open_lines[i]);
        fprintf(out, "----------------\nWARNING: Cannot open %zu file%s\n", sw->n_open,
                sw->n_open == 1 ? "" : "s");
    }
    if (warnings > sw->n + sw->n_open)
        fprintf(out, "\nWARNINGS: %zu\n", warnings - sw->n - sw->n_open);
    if (warnings)
        return FZ7_EXIT_WARNING;
    fprintf(out, "Everything is Ok\n");
    return 0;
}

bool fz7_archive_name(const char *archive, const char *ext, char *path, size_t cap)
{
    const char *base = strrchr(archive, '/');
    base = base ? base + 1 : archive;
    int n = snprintf(path, cap, "%s%s", archive, strchr(base, '.') ? "" : ext);
    return n >= 0 && (size_t)n < cap;
}

/* ---- the temporary file and signals ------------------------------------ */

/* The temporary archive (in -w's folder, else beside the archive) and,
 * while it is copied across file systems, its copy beside the archive. */
static char g_temp_path[PATH_MAX + 32];
static char g_copy_path[PATH_MAX + 32];
static volatile sig_atomic_t g_temp_live, g_copy_live;
/* Each temporary file stays flock()ed by an extra descriptor until it is
 * renamed or removed, so the next run can tell a live one from one that a
 * crash left (the kernel drops the lock with the process). */
static int g_temp_lock = -1, g_copy_lock = -1;

static void unlock_fd(int *lock)
{
    if (*lock >= 0)
        close(*lock);
    *lock = -1;
}

/* Locks the file behind fd through a second descriptor kept in *lock. */
static void lock_fd(int fd, int *lock)
{
    unlock_fd(lock);
    *lock = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (*lock >= 0 && flock(*lock, LOCK_EX | LOCK_NB) != 0)
        unlock_fd(lock);
}

/* Removes the temporary files "<name>.fz7tmpXXXXXX" in dir that an earlier
 * run killed on the way (SIGKILL, power loss) left: only regular files of
 * ours, of exactly that name pattern, that no live process holds locked. */
static void remove_stale_temps(const char *dir, const char *name)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    DIR *dp = fdopendir(dfd);
    if (!dp) {
        close(dfd);
        return;
    }
    size_t nl = strlen(name);
    static const char tag[] = ".fz7tmp";
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        const char *n = de->d_name;
        if (strncmp(n, name, nl) != 0 || strncmp(n + nl, tag, sizeof tag - 1) != 0)
            continue;
        const char *x = n + nl + sizeof tag - 1;
        size_t k = 0;
        while (x[k] && (isalnum((unsigned char)x[k])))
            k++;
        if (k != 6 || x[k])
            continue;
        int fd = openat(dfd, n, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat a, b;
        if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && a.st_uid == geteuid() &&
            flock(fd, LOCK_EX | LOCK_NB) == 0 && fstatat(dfd, n, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            unlinkat(dfd, n, 0);
        close(fd);
    }
    closedir(dp);
}

/* The folder part of a temporary name made by temp_name() ("." when it
 * has none) into buf. */
static void temp_dir_of(const char *temp, char *buf, size_t cap)
{
    const char *slash = strrchr(temp, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else
        snprintf(buf, cap, "%.*s", slash == temp ? 1 : (int)(slash - temp), temp);
}

/* The volumes being cut from the temporary archive (removed on a signal). */
static char **g_vol_paths;
static volatile sig_atomic_t g_vols_live;

static void on_signal(int sig)
{
    (void)sig;
    for (sig_atomic_t i = 0; i < g_vols_live; i++)
        unlink(g_vol_paths[i]);
    if (g_temp_live)
        unlink(g_temp_path);
    if (g_copy_live)
        unlink(g_copy_path);
    /* As 7-Zip: the line it prints and exit code 255 ("stopped by the
     * user" in the man page), not death by the signal. */
    static const char msg[] = "\n\nBreak signaled\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(255);
}

int fz7_refuse_dangling_link(FILE *out, const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode) || stat(path, &sb) == 0)
        return 0;
    fprintf(out, "\nError:\nThe file already exists\n%s\nerrno=%d : %s\n", path, EEXIST, strerror(EEXIST));
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", EEXIST, strerror(EEXIST));
    return FZ7_EXIT_FATAL;
}

void fz7_catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    /* A file size limit (ulimit -f) must give EFBIG, not kill us with the
     * temporary file left behind. */
    signal(SIGXFSZ, SIG_IGN);
}

/* "<dir>/<name of path>.fz7tmpXXXXXX" into buf (cap bytes); dir NULL =
 * path's own folder. False when it does not fit. */
static bool temp_name(char *buf, size_t cap, const char *path, const char *dir)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    int n;
    if (dir) {
        size_t dl = strlen(dir);
        n = snprintf(buf, cap, "%s%s%s.fz7tmpXXXXXX", dir, dl && dir[dl - 1] == '/' ? "" : "/",
                     name);
    } else {
        n = snprintf(buf, cap, "%.*s%s.fz7tmpXXXXXX", slash ? (int)(slash - path + 1) : 0, path,
                     name);
    }
    return n >= 0 && (size_t)n < cap;
}

/* Creates the folders above path that are missing, as 7-Zip does for a
 * new archive ("a dir/sub/new.7z"); a failure shows when the temporary
 * file cannot be made there. */
static void make_parent_dirs(const char *path)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof buf)
        return;
    memcpy(buf, path, len + 1);
    char *last = strrchr(buf, '/');
    if (!last || last == buf)
        return;
    *last = 0;
    struct stat sb;
    if (stat(buf, &sb) == 0)
        return;
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return;
            *p = c;
            if (!c)
                return;
        }
    }
}

int fz7_temp_create(const char *path, const char *work_dir, FILE *out, int *fd)
{
    make_parent_dirs(path);
    /* -w alone: the system's temporary folder, as 7-Zip. */
    const char *dir = work_dir;
    if (dir && !dir[0]) {
        dir = getenv("TMPDIR");
        if (!dir || !dir[0])
            dir = "/tmp";
    }
    if (!temp_name(g_temp_path, sizeof g_temp_path, path, dir)) {
        fprintf(stderr, "\nERROR: archive name too long\n");
        return FZ7_EXIT_USAGE;
    }
    char tdir[sizeof g_temp_path];
    const char *slash = strrchr(path, '/');
    temp_dir_of(g_temp_path, tdir, sizeof tdir);
    remove_stale_temps(tdir, slash ? slash + 1 : path);
    if (dir) { /* -w: the copy goes beside the archive */
        char adir[sizeof g_temp_path];
        if (temp_name(adir, sizeof adir, path, NULL)) {
            temp_dir_of(adir, tdir, sizeof tdir);
            remove_stale_temps(tdir, slash ? slash + 1 : path);
        }
    }
    *fd = mkstemp(g_temp_path);
    if (*fd < 0) {
        /* 7-Zip's block for a work folder (or the archive's folder) that
         * cannot take the file, naming the file fz7 tried. */
        int err = errno;
        fprintf(out, "\nError:\ncannot open file\n%s\nerrno=%d : %s\n", g_temp_path, err,
                strerror(err));
        fflush(out);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", err, strerror(err));
        return FZ7_EXIT_FATAL;
    }
    g_temp_live = 1;
    lock_fd(*fd, &g_temp_lock);
    return 0;
}

int fz7_volume_sizes(const struct fz7_options *o, uint64_t **sizes, size_t *n)
{
    *n = 0;
    *sizes = calloc(o->n_volume_sizes ? o->n_volume_sizes : 1, sizeof **sizes);
    if (!*sizes)
        return 8;
    for (size_t i = 0; i < o->n_volume_sizes; i++) {
        const char *v = o->volume_sizes[i];
        char *end;
        errno = 0;
        unsigned long long x = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
        unsigned shift = 0;
        bool ok = isdigit((unsigned char)v[0]) && errno == 0;
        if (ok && *end) {
            const char *units = "bkmgt", *u = strchr(units, tolower((unsigned char)*end));
            ok = u && end[1] == 0;
            shift = ok ? 10u * (unsigned)(u - units) : 0;
        }
        if (!ok || (shift && x > (UINT64_MAX >> shift))) {
            fflush(stdout);
            fprintf(stderr, "\n\nCommand Line Error:\nIncorrect volume size:\n%s\n", v);
            free(*sizes);
            *sizes = NULL;
            return 7;
        }
        (*sizes)[(*n)++] = (uint64_t)x << shift;
    }
    if (*n && (*sizes)[*n - 1] == 0) {
        fflush(stdout);
        fprintf(stderr, "\n\nCommand Line Error:\nzero size last volume is not allowed\n");
        free(*sizes);
        *sizes = NULL;
        *n = 0;
        return 7;
    }
    return 0;
}

void fz7_volume_name(const char *path, size_t k, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.%03zu", path, k + 1);
}

int fz7_print_open_refused(FILE *out, const char *path, const char *why)
{
    fflush(out);
    fprintf(stderr, "ERROR: %s\nCannot open the file as archive\n\n\n\nSystem ERROR:\n"
                    "E_INVALIDARG : One or more arguments are invalid\n  (in %s: %s)\n", path, path, why);
    return FZ7_EXIT_FATAL;
}

int fz7_print_update_open_error(FILE *out, const char *path, const char *type, const char *err,
                                fz7_status st)
{
    fflush(out);
    if (st == FZ7_E_NEED_PASSWORD || st == FZ7_E_PASSWORD)   /* as 7zz words it for u, d, rn */
        fprintf(stderr, "ERROR: %s\nCannot open encrypted archive. Wrong password?\n\n%s\n\n"
                        "System ERROR:\nerrno=%d : %s\n",
                path, strstr(err, "(Headers Error)") ? "ERRORS:\nHeaders Error\n" : "", EPERM,
                strerror(EPERM));
    else if (strcmp(err, "Cannot open the file as archive") == 0 && !type)
        fprintf(stderr, "ERROR: %s\nCannot open the file as archive\n\n\n\nSystem ERROR:\nerrno=%d : %s\n", path,
                EPERM, strerror(EPERM));
    else if (type && st != FZ7_E_MEM && st != FZ7_E_IO && st != FZ7_E_MEMLIMIT && st != FZ7_E_UNSUPPORTED) {
        /* 7zz's block with its reason; the reader's own words after it
         * (not the generic "not this format") */
        bool generic = strcmp(err, "Cannot open the file as archive") == 0;
        const char *why = st == FZ7_E_TRUNCATED ? "Unexpected end of archive"
                          : st == FZ7_E_FORMAT || generic ? "Is not archive" : "Headers Error";
        fprintf(stderr, "ERROR: %s\n%s\nOpen ERROR: Cannot open the file as [%s] archive\n\n\nERRORS:\n%s\n",
                path, path, type, why);
        if (err[0] && !generic && strcmp(err, why) != 0)
            fprintf(stderr, "%s\n", err);
        fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", EPERM, strerror(EPERM));
    } else
        fprintf(stderr, "ERROR: %s\n%s\nOpen ERROR: %s\n", path, path,
                err[0] ? err : fz7_status_str(st));
    return FZ7_EXIT_FATAL;
}

int fz7_refuse_volume_set(FILE *out, const char *path)
{
    char vol1[PATH_MAX + 16];
    struct stat sb;
    fz7_volume_name(path, 0, vol1, sizeof vol1);
    if (stat(vol1, &sb) != 0)
        return 0;
    fprintf(out, "\nError:\nUpdating for multivolume archives is not implemented\n%s\n", vol1);
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
    return FZ7_EXIT_FATAL;
}

int fz7_print_exists(FILE *out, const char *path)
{
    fprintf(out, "\nError:\nThe file already exists\n%s\nerrno=%d : %s\n", path, EEXIST,
            strerror(EEXIST));
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", EEXIST, strerror(EEXIST));
    return FZ7_EXIT_FATAL;
}

/* Makes the names just made in path's folder durable. */
static void fsync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + 1) : 1, slash ? path : ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

/* Copies len bytes at offset off of fd into the new file name. 0 or errno. */
static int write_volume(int fd, uint64_t off, uint64_t len, const char *name, uint8_t *buf,
                        size_t cap)
{
    int to = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (to < 0)
        return errno;
    g_vols_live++;
    int err = 0;
    while (!err && len) {
        size_t want = len < cap ? (size_t)len : cap;
        ssize_t n = pread(fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : EIO;
            break;
        }
        err = fz7_write_full(to, buf, (size_t)n);
        off += (uint64_t)n;
        len -= (uint64_t)n;
    }
    if (!err && fsync(to) != 0)
        err = errno;
    if (close(to) != 0 && !err)
        err = errno;
    return err;
}

fz7_status fz7_temp_commit_volumes(int fd, const char *path, const uint64_t *sizes,
                                   size_t n_sizes, uint64_t *size, size_t *n_volumes, int *err)
{
    *size = 0;
    *n_volumes = 0;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || fsync(fd) != 0) {
        *err = errno;
        fz7_temp_drop(fd);
        return FZ7_E_IO;
    }
    uint64_t total = (uint64_t)sb.st_size;
    /* How many volumes: whole ones of their size, the last one the rest
     * (an empty archive is still one volume). */
    size_t n = 0;
    for (uint64_t at = 0; n == 0 || at < total; n++) {
        uint64_t v = sizes[n < n_sizes ? n : n_sizes - 1];
        at = total - at <= v ? total : at + v;
        if (n >= ((size_t)1 << 24)) { /* a bound on the names made: 16 Mi volumes */
            *err = EFBIG;
            fz7_temp_drop(fd);
            return FZ7_E_IO;
        }
    }
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = malloc(cap);
    char **names = calloc(n, sizeof *names);
    bool ok = buf && names;
    for (size_t k = 0; ok && k < n; k++) {
        names[k] = malloc(PATH_MAX + 16);
        ok = names[k] != NULL;
        if (ok)
            fz7_volume_name(path, k, names[k], PATH_MAX + 16);
    }
    int e = ok ? 0 : ENOMEM;
    g_vol_paths = names;
    uint64_t at = 0;
    for (size_t k = 0; !e && k < n; k++) {
        uint64_t v = sizes[k < n_sizes ? k : n_sizes - 1];
        uint64_t len = total - at < v || k == n - 1 ? total - at : v;
        e = write_volume(fd, at, len, names[k], buf, cap);
        if (e == EEXIST)
            break;   /* not ours: left alone */
        at += len;
    }
    if (e) {
        /* Only the volumes this run made (an existing one failed EEXIST
         * before it was counted). */
        for (sig_atomic_t i = g_vols_live; i-- > 0;)
            unlink(names[i]);
    }
    g_vols_live = 0;
    g_vol_paths = NULL;
    for (size_t k = 0; names && k < n; k++)
        free(names[k]);
    free(names);
    free(buf);
    fz7_temp_drop(fd);   /* the single archive: the volumes hold it now */
    if (e) {
        *err = e;
        return FZ7_E_IO;
    }
    fsync_parent(path);
    *size = total;
    *n_volumes = n;
    return FZ7_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files sw's open warnings name (their lines are "path : errno=N :
 * text", the last " : errno=" ends the path), sorted for bsearch: a backup
 * may hold thousands of unreadable files. NULL when there are none or
 * memory ran out (*failed then). */
static char **unread_paths(const fz7_scan_warnings *sw, bool *failed)
{
    *failed = false;
    char **v = sw->n_open ? calloc(sw->n_open, sizeof *v) : NULL;
    if (!v) {
        *failed = sw->n_open != 0;
        return NULL;
    }
    for (size_t k = 0; k < sw->n_open; k++) {
        const char *line = sw->open_lines[k], *end = NULL;
        for (const char *p = strstr(line, " : errno="); p; p = strstr(p + 1, " : errno="))
            end = p;
        if (!(v[k] = strndup(line, end ? (size_t)(end - line) : strlen(line)))) {
            for (size_t j = 0; j < k; j++)
                free(v[j]);
            free(v);
            *failed = true;
            return NULL;
        }
    }
    qsort(v, sw->n_open, sizeof *v, cmp_str);
    return v;
}

/* Whether the file the scan found at it->disk_path was changed, replaced
 * or given another link since (its size, times, inode or status change
 * time differ): removing it then could lose what the archive does not
 * hold (an editor's save, a log's new lines). */
/* True when sb (of it's path now) is not what the scan saw. */
static bool differs(const struct stat *sb, const fz7_tree_item *it)
{
    return (uint64_t)sb->st_dev != it->dev || (uint64_t)sb->st_ino != it->ino ||
           (uint32_t)sb->st_mode != it->mode ||
           (it->kind != FZ7_ITEM_SYMLINK && (uint64_t)sb->st_size != it->size) ||
           (int64_t)sb->st_mtim.tv_sec != it->mtime || (uint32_t)sb->st_mtim.tv_nsec != it->mtime_nsec ||
           (int64_t)sb->st_ctim.tv_sec != it->ctime || (uint32_t)sb->st_ctim.tv_nsec != it->ctime_nsec;
}

static bool changed_since_scan(const fz7_tree_item *it)
{
    struct stat sb;
    return lstat(it->disk_path, &sb) != 0 || differs(&sb, it);
}

/* A file read through a symbolic link (no -snl) whose target is still
 * what went in: the link goes, as 7zz removes it (a link to a folder
 * stays, as in 7zz). */
static bool followed_link_unchanged(const fz7_tree_item *it)
{
    struct stat lsb, sb;
    return it->kind != FZ7_ITEM_DIR && it->kind != FZ7_ITEM_SYMLINK && lstat(it->disk_path, &lsb) == 0 &&
           S_ISLNK(lsb.st_mode) && stat(it->disk_path, &sb) == 0 && !differs(&sb, it);
}

static bool still_folder(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

void fz7_delete_inputs(const fz7_tree *tree, const bool *keep, const fz7_scan_warnings *sw, FILE *list)
{
    bool failed;
    char **unread = unread_paths(sw, &failed);
    if (failed)   /* which files went in is not known: none is removed */
        return;
    if (list)
        fprintf(list, ": Removing files after including to archive\n");
    /* links read through first (while what they point at is there to
     * compare), then files in the scan's order (7zz's: of two names of a
     * file the first goes, and the second, its status changed, stays),
     * then folders from the deepest */
    for (int pass = 0; pass < 3; pass++)
        for (size_t k = 0; k < tree->count; k++) {
            bool dirs = pass == 2;
            const fz7_tree_item *it = &tree->items[dirs ? tree->count - 1 - k : k];
            size_t i = (size_t)(it - tree->items);
            const char *path = it->disk_path;
            if ((it->kind == FZ7_ITEM_DIR) != dirs || (keep && keep[i]) ||
                (!dirs && unread && bsearch(&path, unread, sw->n_open, sizeof *unread, cmp_str)))
                continue;
            if (pass == 0 ? !followed_link_unchanged(it) : pass == 1 ? changed_since_scan(it) : !still_folder(path))
                continue;   /* what is there now is not what went in: kept, as 7zz keeps it */
            if (list)
                fz7_print_item(list, "Removing", it->disk_path, "");
            if (dirs)
                rmdir(it->disk_path);
            else
                unlink(it->disk_path);
        }
    if (list)
        fputc('\n', list);
    for (size_t k = 0; unread && k < sw->n_open; k++)
        free(unread[k]);
    free(unread);
}

void fz7_newest_take(fz7_newest *n, int64_t sec, uint32_t nsec)
{
    if (!n->any || sec > n->sec || (sec == n->sec && nsec > n->nsec)) {
        n->any = true;
        n->sec = sec;
        n->nsec = nsec;
    }
}

void fz7_newest_stamp(const fz7_newest *n, const char *path)
{
    if (!n->any)
        return;
    struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)n->sec, (long)n->nsec}};
    utimensat(AT_FDCWD, path, ts, 0);
}

void fz7_temp_drop(int fd)
{
    if (fd >= 0)
        close(fd);
    if (g_temp_live) {
        unlink(g_temp_path);
        g_temp_live = 0;
    }
    if (g_copy_live) {
        unlink(g_copy_path);
        g_copy_live = 0;
    }
    unlock_fd(&g_temp_lock);
    unlock_fd(&g_copy_lock);
}

/* Copies all of from into to (both open file descriptors). 0 or errno. */
static int copy_fd(int from, int to)
{
    static uint8_t buf[1 << 16];
    for (;;) {
        ssize_t n = read(from, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0;
        int err = fz7_write_full(to, buf, (size_t)n);
        if (err)
            return err;
    }
}

/* Renames from over to; with noreplace (a new archive that must not take
 * the place of a file that appeared meanwhile) it fails with EEXIST
 * instead: renameat2's RENAME_NOREPLACE, or link and unlink where the file
 * system has no such rename. 0 or -1 with errno. */
static int rename_to(const char *from, const char *to, bool noreplace)
{
    if (!noreplace)
        return rename(from, to);
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(from, to) != 0)
        return -1;
    unlink(from);
    return 0;
}

/* The temporary archive is on another file system than path (-w): copy it
 * to a second temporary file beside path, complete that one (mode, fsync)
 * and rename it over path; the first is removed. 0 or errno. */
static int commit_by_copy(const char *path, mode_t mode, bool noreplace)
{
    if (!temp_name(g_copy_path, sizeof g_copy_path, path, NULL))
        return ENAMETOOLONG;
    int to = mkstemp(g_copy_path);
    if (to < 0)
        return errno;
    g_copy_live = 1;
    lock_fd(to, &g_copy_lock);
    int from = open(g_temp_path, O_RDONLY | O_CLOEXEC);
    int err = from < 0 ? errno : copy_fd(from, to);
    if (from >= 0)
        close(from);
    if (!err && (fchmod(to, mode) != 0 || fsync(to) != 0))
        err = errno;
    if (close(to) != 0 && !err)
        err = errno;
    if (!err && rename_to(g_copy_path, path, noreplace) != 0)
        err = errno;
    if (err)
        return err;
    g_copy_live = 0;
    unlock_fd(&g_copy_lock);
    unlink(g_temp_path);
    g_temp_live = 0;
    unlock_fd(&g_temp_lock);
    return 0;
}

static fz7_status temp_commit(int fd, const char *path, const struct stat *old_sb,
                              bool noreplace, uint64_t *size, int *err);

fz7_status fz7_temp_commit(int fd, const char *path, const struct stat *old_sb, uint64_t *size,
                           int *err)
{
    return temp_commit(fd, path, old_sb, false, size, err);
}

fz7_status fz7_temp_commit_new(int fd, const char *path, uint64_t *size, int *err)
{
    return temp_commit(fd, path, NULL, true, size, err);
}

static fz7_status temp_commit(int fd, const char *path, const struct stat *old_sb,
                              bool noreplace, uint64_t *size, int *err)
{
    *size = 0;
    struct stat sb;
    if (fstat(fd, &sb) == 0)
        *size = (uint64_t)sb.st_size;
    mode_t um = umask(0);
    umask(um);
    mode_t mode = old_sb ? (old_sb->st_mode & 07777) : (0666 & ~um);
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
        *err = errno;
        fz7_temp_drop(fd);
        return FZ7_E_IO;
    }
    if (close(fd) != 0) {
        *err = errno;
        fz7_temp_drop(-1);
        return FZ7_E_IO;
    }
    if (rename_to(g_temp_path, path, noreplace) != 0) {
        *err = errno == EXDEV ? commit_by_copy(path, mode, noreplace) : errno;
        if (*err) {
            fz7_temp_drop(-1);
            return FZ7_E_IO;
        }
    }
    g_temp_live = 0;
    unlock_fd(&g_temp_lock);
    /* Make the rename itself durable. */
    fsync_parent(path);
    return FZ7_OK;
}

/* A module is a few hundred KiB; more is not one. */
#define SFX_MAX ((size_t)64 << 20)

/* Opens dir/name (dir NULL: name as it is) into shown; -1 with errno. */
static int sfx_open(const char *dir, const char *name, char *shown, size_t cap)
{
    int n = dir ? snprintf(shown, cap, "%s/%s", dir, name) : snprintf(shown, cap, "%s", name);
    if (n < 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(shown, O_RDONLY | O_CLOEXEC);
}

int fz7_sfx_load(const char *name, FILE *out, uint8_t **stub, size_t *len, char *shown, size_t cap)
{
    *stub = NULL;
    *len = 0;
    if (!name[0])
        name = "7zCon.sfx";
    int fd = -1, err = ENOENT;
    if (!strchr(name, '/')) {
        char self[PATH_MAX];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k > 0) {
            self[k] = 0;
            char *slash = strrchr(self, '/');
            if (slash) {
                *slash = 0;
                fd = sfx_open(self[0] ? self : "/", name, shown, cap);
            }
        }
        if (fd < 0)
            fd = sfx_open(".", name, shown, cap);
    } else {
        fd = sfx_open(NULL, name, shown, cap);
    }
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size <= SFX_MAX) {
        *len = (size_t)sb.st_size;
        *stub = malloc(*len ? *len : 1);
        size_t got = 0;
        while (*stub && got < *len) {
            ssize_t r = read(fd, *stub + got, *len - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (*stub && got == *len) {
            close(fd);
            return 0;
        }
        err = *stub ? EIO : ENOMEM;
        free(*stub);
        *stub = NULL;
    } else if (fd >= 0) {
        err = S_ISREG(sb.st_mode) ? EFBIG : EISDIR;
    } else {
        err = errno;
    }
    if (fd >= 0)
        close(fd);
    fprintf(out, "\nError:\ncannot find specified SFX module\n%s\nerrno=%d : %s\n", name, err, strerror(err));
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", err, strerror(err));
    return FZ7_EXIT_FATAL;
}

int fz7_lead_load(const char *path, const fz7_archive *old, uint8_t **lead, size_t *lead_len)
{
    uint64_t len = fz7_archive_get_info(old)->offset;
    *lead_len = 0;
    if (!len)
        return 0;
    *lead = len <= SFX_MAX ? malloc((size_t)len) : NULL;
    int fd = *lead ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    errno = 0;
    if (fd >= 0 && fz7_pread_full(fd, *lead, (size_t)len, 0) == FZ7_OK) {
        close(fd);
        *lead_len = (size_t)len;
        return 0;
    }
    int err = *lead ? (errno ? errno : EIO) : ENOMEM;
    if (fd >= 0)
        close(fd);
    free(*lead);
    *lead = NULL;
    fprintf(stderr, "\nERROR: %s : cannot read the %llu bytes before the archive: %s\n", path,
            (unsigned long long)len, strerror(err));
    return err == ENOMEM ? FZ7_EXIT_MEMORY : FZ7_EXIT_FATAL;
}

fz7_status fz7_temp_prepend(int fd, const uint8_t *stub, size_t len, int *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        *err = errno;
        return FZ7_E_IO;
    }
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        *err = ENOMEM;
        return FZ7_E_MEM;
    }
    fz7_status st = FZ7_OK;
    for (uint64_t end = (uint64_t)sb.st_size; end > 0 && st == FZ7_OK;) {
        size_t k = end < cap ? (size_t)end : cap;
        end -= k;
        if (pread(fd, buf, k, (off_t)end) != (ssize_t)k || pwrite(fd, buf, k, (off_t)(end + len)) != (ssize_t)k)
            st = FZ7_E_IO;
    }
    if (st == FZ7_OK && len && pwrite(fd, stub, len, 0) != (ssize_t)len)
        st = FZ7_E_IO;
    if (st == FZ7_OK && lseek(fd, 0, SEEK_END) < 0)
        st = FZ7_E_IO;
    if (st != FZ7_OK)
        *err = errno ? errno : EIO;
    free(buf);
    return st;
}

int fz7_not_implemented(const char *path, const char *why)
{
    fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
    if (why)
        fprintf(stderr, "  (in %s: %s)\n", path, why);
    return FZ7_EXIT_FATAL;
}

int fz7_invalid_arg(const char *path, const char *why)
{
    fprintf(stderr, "\n\nSystem ERROR:\nE_INVALIDARG : One or more arguments are invalid\n");
    if (why)
        fprintf(stderr, "  (in %s: %s)\n", path, why);
    return FZ7_EXIT_FATAL;
}

fz7_la_entry fz7_la_entry_of_item(const fz7_tree_item *it)
{
    fz7_la_entry e = {.name = it->name, .mode = S_IFREG | (it->mode & 07777), .size = it->size,
                      .mtime = it->mtime, .mtime_nsec = it->mtime_nsec,
                      .link_target = it->link_target, .ctime = it->ctime, .atime = it->atime,
                      .ctime_nsec = it->ctime_nsec, .atime_nsec = it->atime_nsec, .data_fd = -1};
    if (it->kind == FZ7_ITEM_DIR)
        e.mode = S_IFDIR | (it->mode & 07777), e.size = 0;
    else if (it->kind == FZ7_ITEM_SYMLINK)
        e.mode = S_IFLNK | (it->mode & 07777), e.size = 0;
    else if (it->kind == FZ7_ITEM_SPECIAL)
        e.mode = it->mode, e.size = 0, e.rdev = it->rdev;
    return e;
}

bool fz7_la_lists_item(fz7_la_kind kind, const fz7_tree_item *it)
{
    return it->kind == FZ7_ITEM_FILE || (kind == FZ7_LA_ZIP && it->kind == FZ7_ITEM_SYMLINK)
           || (kind == FZ7_LA_TAR && it->kind == FZ7_ITEM_DIR);
}
