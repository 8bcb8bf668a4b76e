/* extract.c - the disk side of `x` and `e`. Regular files are written by
 * fz7 itself relative to an open descriptor of their folder: the folder is
 * reached one component at a time with O_NOFOLLOW | O_DIRECTORY from the
 * output folder (missing ones made with mkdirat), and the last folder's
 * descriptor is kept for the next entries in it, so a file costs no walk
 * of its path and no symlink can be swapped in under it. Folders, symlinks
 * and -spf absolute paths go through libarchive's archive_write_disk with
 * SECURE_NODOTDOT | SECURE_SYMLINKS | SECURE_NOABSOLUTEPATHS. fz7 adds the
 * temporary-name-then-rename step, big buffers and 7-Zip's rules for
 * "."/".." names and for symlink targets.
 *
 * Paths are relative to the output folder, which is made the current
 * directory, because libarchive refuses absolute paths in secure mode. */
#include "fsio/extract.h"
#include "format/fd_ostream.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#define DISK_BUF_SIZE ((size_t)1 << 20) /* bytes per archive_write_data call */
#define LINK_MAX_TARGET 4096

struct fz7_disk {
    int options;           /* archive_write_disk's flags as set */
    struct archive *aw;
    int old_cwd;             /* the previous current directory, or -1 */
    unsigned long counter;   /* for temporary names */
    /* The item in progress. */
    bool active;
    fz7_disk_item item;
    char *final_path;
    char *temp_path;         /* files and symlinks */
    bool header_written;     /* a file's temporary entry is open */
    bool linked;             /* the temporary name is a hard link (fz7_disk_link_file) */
    uint8_t *buf;
    size_t fill;
    char link[LINK_MAX_TARGET + 1];
    size_t link_len;
    bool link_too_long;
    bool handlers_set;       /* signal handlers installed by fz7_disk_open */
    /* The descriptor path (regular files below the output folder). */
    int root_fd;             /* the output folder */
    char *dir_path;          /* the folder dir_fd is open on, relative ("" = root) */
    size_t dir_len;
    int dir_fd;              /* root_fd, another open folder, or -1 */
    int file_fd;             /* the file item being written this way, or -1 */
    const char *temp_base;   /* its temporary name inside dir_fd (in temp_path) */
    uint64_t data_bytes;     /* the item's bytes handed to fz7_disk_data */
    size_t made_len;         /* the file's folders made for it: final_path's first
                                made_len bytes name the shallowest (0: none made);
                                removed again if the file is not kept */
    int last_errno;          /* errno of the last failure of this path */
    mode_t umask_bits;
    long pid;
    char *root_full;         /* the output folder's absolute path, once needed */
    /* Folders below the output folder made by fz7 (make_folder), whose
     * permissions and times are set at fz7_disk_close, deepest first:
     * their files change their times, and a read-only folder must still
     * take its files. */
    struct folder_fix *folders;
    size_t nfolders, folders_cap;
};

/* A folder made by make_folder: its item (the path owned) and its place
 * among the folders (the last entry of a name wins, as for files). */
struct folder_fix {
    fz7_disk_item it;
    size_t seq;
};

static const int SECURE_FLAGS = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
                                ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS;

/* Interrupted extraction (Ctrl-C, kill) must not leave a temporary file
 * behind: the one being written is named here for the signal handler,
 * which removes it and exits with 255, as 7-Zip does. */
static char g_active_temp[PATH_MAX];
static volatile sig_atomic_t g_active_set;
static struct sigaction g_old_actions[3];
static const int g_signals[3] = {SIGINT, SIGTERM, SIGHUP};
/* A file size limit (ulimit -f) must give the write EFBIG, an error of that
 * entry, instead of killing us with the temporary file left behind. */
static struct sigaction g_old_xfsz;

static void on_fatal_signal(int sig)
{
    (void)sig;
    if (g_active_set)
        unlink(g_active_temp);
    /* As 7-Zip: its line and exit code 255, not death by the signal. */
    static const char msg[] = "\n\nBreak signaled\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(255);
}

static void set_active_temp(const char *path)
{
    g_active_set = 0;
    if (path && strlen(path) < sizeof g_active_temp) {
        memcpy(g_active_temp, path, strlen(path) + 1);
        g_active_set = 1;
    }
}

static bool is_dot_name(const char *p, size_t n)
{
    return (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.');
}

fz7_status fz7_disk_safe_path(const char *archive_path, bool is_dir, char **out)
{
    size_t n = strlen(archive_path);
    char *r = malloc(n + 2); /* + "_" when nothing is left */
    *out = r;
    if (!r)
        return FZ7_E_MEM;
    size_t len = 0;
    const char *p = archive_path;
    while (*p) {
        size_t cl = strcspn(p, "/");
        const char *next = p + cl;
        while (*next == '/')
            next++;
        bool last = *next == 0;
        if (cl > 0 && is_dot_name(p, cl)) {
            if (last && !is_dir) {
                if (len)
                    r[len++] = '/';
                r[len++] = '_';
            }
        } else if (cl > 0) {
            if (len)
                r[len++] = '/';
            memcpy(r + len, p, cl);
            len += cl;
        }
        p = next;
    }
    if (len == 0 && !is_dir) /* "", "/", "//" */
        r[len++] = '_';
    r[len] = 0;
    return FZ7_OK;
}

/* mkdir -p, refusing nothing: out_dir is the user's own choice. */
static int make_dirs(const char *dir)
{
    char *copy = strdup(dir);
    if (!copy)
        return -1;
    for (char *p = copy + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
                free(copy);
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    free(copy);
    return 0;
}

fz7_status fz7_disk_open(const char *out_dir, fz7_disk **out, char *err, size_t errlen)
{
    *out = NULL;
    fz7_disk *d = calloc(1, sizeof *d);
    if (!d)
        return FZ7_E_MEM;
    d->old_cwd = -1;
    d->root_fd = d->dir_fd = d->file_fd = -1;
    d->pid = (long)getpid();
    d->umask_bits = umask(0);
    umask(d->umask_bits);
    d->buf = malloc(DISK_BUF_SIZE);
    d->aw = archive_write_disk_new();
    if (!d->buf || !d->aw) {
        fz7_disk_close(d, NULL, 0);
        return FZ7_E_MEM;
    }
    d->options = SECURE_FLAGS;
    archive_write_disk_set_options(d->aw, d->options);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    /* Also a signal that came in ignored (a script's background job):
     * 7zz stops on it then too. */
    for (int i = 0; i < 3; i++)
        sigaction(g_signals[i], &sa, &g_old_actions[i]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, &g_old_xfsz);
    d->handlers_set = true;
    if (out_dir && out_dir[0]) {
        struct stat sb;
        /* a file in the folder's place or on the way to it: 7-Zip's mkdir
         * reports it as EEXIST */
        int e = make_dirs(out_dir) != 0 ? errno : stat(out_dir, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? 0 : EEXIST;
        if (e == ENOTDIR)
            e = EEXIST;
        if (e != 0) {
            snprintf(err, errlen, "Cannot create output directory : errno=%d : %s : %s/", e, strerror(e), out_dir);
            fz7_disk_close(d, NULL, 0);
            return FZ7_E_IO;
        }
        d->old_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d->old_cwd < 0 || chdir(out_dir) != 0) {
            snprintf(err, errlen, "Cannot enter output directory %s: %s", out_dir, strerror(errno));
            fz7_disk_close(d, NULL, 0);
            return FZ7_E_IO;
        }
    }
    d->root_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->root_fd < 0) {
        snprintf(err, errlen, "Cannot open output directory %s: %s", out_dir && out_dir[0] ? out_dir : ".",
                 strerror(errno));
        fz7_disk_close(d, NULL, 0);
        return FZ7_E_IO;
    }
    *out = d;
    return FZ7_OK;
}

void fz7_disk_allow_dangerous_links(fz7_disk *d, bool allow)
{
    (void)d; /* every link that stays below the output folder is made anyway */
    (void)allow;
}

void fz7_disk_allow_absolute(fz7_disk *d, bool allow)
{
    d->options = allow ? SECURE_FLAGS & ~ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS : SECURE_FLAGS;
    archive_write_disk_set_options(d->aw, d->options);
}

/* Drops the kept folder descriptor: called before anything that may
 * remove, rename or replace a folder (folders, links, renames). */
static void forget_dir(fz7_disk *d)
{
    if (d->dir_fd >= 0 && d->dir_fd != d->root_fd)
        close(d->dir_fd);
    d->dir_fd = -1;
    free(d->dir_path);
    d->dir_path = NULL;
    d->dir_len = 0;
}

/* A descriptor of folder dir[0..len) below the output folder, reached
 * component by component without following a symlink (O_NOFOLLOW on each:
 * a link or a file there fails with ENOTDIR). Missing folders are made
 * when create, else the result is -1 with errno ENOENT; *made (when not
 * NULL) gets the length of dir's prefix naming the first folder made, 0
 * if none. The descriptor stays owned by d (kept for the next call with
 * the same folder). */
static int open_dir(fz7_disk *d, const char *dir, size_t len, bool create, size_t *made)
{
    if (made)
        *made = 0;
    if (d->dir_fd >= 0 && d->dir_len == len && memcmp(d->dir_path, dir, len) == 0)
        return d->dir_fd;
    if (d->file_fd >= 0) { /* the open file's folder must stay the kept one */
        errno = EBUSY;
        return -1;
    }
    char *copy = strndup(dir, len);
    if (!copy) {
        errno = ENOMEM;
        return -1;
    }
    int fd = d->root_fd;
    for (char *p = copy; *p;) {
        size_t cl = strcspn(p, "/");
        char c = p[cl];
        p[cl] = 0;
        int nfd = -1;
        if (cl == 0 || is_dot_name(p, cl)) {
            errno = ENOTDIR; /* made safe before: never here */
        } else {
            nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (nfd < 0 && errno == ENOENT && create) {
                int mk = mkdirat(fd, p, 0777);
                if (mk == 0 && made && !*made)
                    *made = (size_t)(p - copy) + cl;
                if (mk == 0 || errno == EEXIST)
                    nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                else
                    errno = ENOENT; /* as 7-Zip reports it: the file's folder is missing */
            }
            if (nfd < 0 && errno == ELOOP)
                errno = ENOTDIR;
        }
        int e = errno;
        if (fd != d->root_fd)
            close(fd);
        if (nfd < 0) {
            free(copy);
            errno = e;
            return -1;
        }
        fd = nfd;
        p[cl] = c;
        p += cl;
        if (c)
            p++;
    }
    forget_dir(d);
    d->dir_path = copy;
    d->dir_len = len;
    d->dir_fd = fd;
    return fd;
}

/* The lookup by lstat of each parent: -spf absolute paths, and kernels
 * without openat2. */
static int lookup_by_lstat(const char *path, struct stat *st)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    struct stat s;
    /* from the second byte: an absolute path's first parent is "/", not "" */
    for (char *p = strchr(copy + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = 0;
        int r = lstat(copy, &s);
        *p = '/';
        if (r != 0) {
            free(copy);
            return errno == ENOENT ? 0 : -1;
        }
        if (!S_ISDIR(s.st_mode)) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    if (lstat(path, st) == 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

/* The folder of path below the current directory, opened by the kernel's
 * own walk refusing symlinks and anything outside (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS): >= 0 a descriptor (O_PATH),
 * -2 a parent is missing, -1 a parent is a symlink, not a folder, or
 * outside, -3 openat2 is not there. */
static int open_parent_beneath(const char *path)
{
#ifdef SYS_openat2
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, dir[0] ? dir : ".", &how, sizeof how);
    int e = errno;
    free(dir);
    if (fd >= 0)
        return fd;
    if (e == ENOSYS || e == EPERM) /* old kernel, or a seccomp filter */
        return -3;
    return e == ENOENT ? -2 : -1;
#else
    (void)path;
    return -3;
#endif
}

int fz7_disk_lookup(fz7_disk *d, const char *path, struct stat *st)
{
    if (path[0] != '/') { /* the folder walk of the write path, kept for the write */
        const char *slash = strrchr(path, '/');
        int dfd = open_dir(d, path, slash ? (size_t)(slash - path) : 0, false, NULL);
        if (dfd < 0)
            return errno == ENOENT ? 0 : -1;
        if (fstatat(dfd, slash ? slash + 1 : path, st, AT_SYMLINK_NOFOLLOW) == 0)
            return 1;
        return errno == ENOENT ? 0 : -1;
    }
    /* only x -spf lets an absolute name through (fz7_disk_allow_absolute):
     * it is outside the output folder on purpose, so the beneath walk
     * would refuse it */
    return lookup_by_lstat(path, st);
}

fz7_status fz7_disk_free_name(fz7_disk *d, const char *path, char **out)
{
    *out = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    size_t stem = (size_t)(dot - path), n = strlen(path);
    char *r = malloc(n + 24);
    if (!r)
        return FZ7_E_MEM;
    for (unsigned long i = 1; i < 1000000; i++) {
        snprintf(r, n + 24, "%.*s_%lu%s", (int)stem, path, i, dot);
        struct stat st;
        int e = fz7_disk_lookup(d, r, &st);
        if (e == 0) {
            *out = r;
            return FZ7_OK;
        }
        if (e < 0)
            break;
    }
    free(r);
    return FZ7_E_IO;
}

int fz7_disk_remove_dir(fz7_disk *d, const char *path)
{
    forget_dir(d);
    return rmdir(path);
}

int fz7_disk_remove_anti(fz7_disk *d, const char *path)
{
    if (!path[0] || path[0] == '/')
        return 0;   /* the output folder itself, or outside it (-spf) */
    const char *slash = strrchr(path, '/');
    int dfd = open_dir(d, path, slash ? (size_t)(slash - path) : 0, false, NULL);
    if (dfd < 0)
        return 0;   /* its folder is missing, a symlink or a file */
    const char *name = slash ? slash + 1 : path;
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    /* a symlink goes itself, never what it points to */
    return unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) == 0;
}

fz7_status fz7_disk_rename_existing(fz7_disk *d, const char *path, char **renamed, char *err,
                                    size_t errlen)
{
    char *to;
    fz7_status s = fz7_disk_free_name(d, path, &to);
    if (s != FZ7_OK) {
        snprintf(err, errlen, "no free name to rename %s", path);
        return s;
    }
    forget_dir(d); /* path may be a folder */
    if (rename(path, to) != 0) {
        snprintf(err, errlen, "Cannot rename %s to %s: %s", path, to, strerror(errno));
        free(to);
        return FZ7_E_IO;
    }
    if (renamed)
        *renamed = to;
    else
        free(to);
    return FZ7_OK;
}

/* "dir/.fz7-<pid>-<n>.tmp" beside path, not existing yet. */
static char *temp_name(fz7_disk *d, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    size_t cap = dl + 64;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    for (int tries = 0; tries < 1000; tries++) {
        snprintf(t, cap, "%.*s.fz7-%ld-%lu.tmp", (int)dl, path, (long)getpid(), ++d->counter);
        struct stat st;
        if (lstat(t, &st) != 0 && errno == ENOENT)
            return t;
    }
    free(t);
    return NULL;
}

static struct archive_entry *make_entry(const fz7_disk_item *it, const char *path, mode_t type)
{
    struct archive_entry *e = archive_entry_new();
    if (!e)
        return NULL;
    archive_entry_set_pathname(e, path);
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, type == AE_IFLNK ? 0777 : (it->perm & 07777));
    if (it->has_mtime)
        archive_entry_set_mtime(e, (time_t)it->mtime, (long)it->mtime_nsec);
    if (it->has_atime)
        archive_entry_set_atime(e, (time_t)it->atime, (long)it->atime_nsec);
    if (it->has_owner) {
        archive_entry_set_uid(e, it->uid);
        archive_entry_set_gid(e, it->gid);
    }
    return e;
}

/* archive_write_header; ARCHIVE_WARN counts as done. */
static fz7_status write_header(fz7_disk *d, struct archive_entry *e, const char *shown, char *err,
                               size_t errlen)
{
    int r = archive_write_header(d->aw, e);
    if (r >= ARCHIVE_WARN)
        return FZ7_OK;
    const char *why = archive_error_string(d->aw);
    snprintf(err, errlen, "%s: %s", shown, why ? why : "Cannot create");
    /* libarchive's secure checks fail with its "misc" error number (-1),
     * not a system errno. */
    return archive_errno(d->aw) <= 0 ? FZ7_E_ARG : FZ7_E_IO;
}

static void clear_item(fz7_disk *d)
{
    if (d->file_fd >= 0) { /* abandoned: never published */
        close(d->file_fd);
        unlinkat(d->dir_fd, d->temp_base, 0);
    }
    set_active_temp(NULL);
    free(d->final_path);
    free(d->temp_path);
    d->final_path = d->temp_path = NULL;
    d->active = false;
    d->header_written = false;
    d->linked = false;
    d->file_fd = -1;
    d->temp_base = NULL;
    d->made_len = 0;
    d->data_bytes = 0;
    d->fill = 0;
    d->link_len = 0;
    d->link_too_long = false;
}

/* A regular file below the output folder: created under a temporary
 * name in its folder's descriptor, O_EXCL | O_NOFOLLOW, with its
 * permission bits (set exactly by fchmod when the umask would cut them). */
static fz7_status begin_file(fz7_disk *d, char *err, size_t errlen)
{
    const char *path = d->final_path;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) : 0;
    /* the walk could go deeper, but no other tool could open the file by
     * its name: refused as 7-Zip refuses it */
    int dfd = strlen(path) >= PATH_MAX ? (errno = ENAMETOOLONG, -1) : open_dir(d, path, dl, true, &d->made_len);
    if (dfd < 0) {
        d->last_errno = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return FZ7_E_IO;
    }
    d->temp_path = malloc(dl + 64);
    if (!d->temp_path)
        return FZ7_E_MEM;
    if (dl) {
        memcpy(d->temp_path, path, dl);
        d->temp_path[dl++] = '/';
    }
    char *base = d->temp_path + dl;
    mode_t perm = (mode_t)(d->item.perm & 07777);
    int fd = -1;
    for (int tries = 0; tries < 1000 && fd < 0; tries++) {
        snprintf(base, 64, ".fz7-%ld-%lu.tmp", d->pid, ++d->counter);
        /* named for the signal handler before it exists: a signal right
         * after the create must not leave it behind */
        set_active_temp(d->temp_path);
        fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, perm);
        if (fd < 0)
            set_active_temp(NULL);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        d->last_errno = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return FZ7_E_IO;
    }
    /* the owner first: a chown may clear mode bits the fchmod sets */
    if (d->item.has_owner && fchown(fd, (uid_t)d->item.uid, (gid_t)d->item.gid) != 0)
        d->item.has_owner = false;   /* not root: the extracting user's, as 7zz leaves it */
    if ((perm & (d->umask_bits | 07000)) && fchmod(fd, perm) != 0) {
        d->last_errno = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlinkat(dfd, base, 0);
        return FZ7_E_IO;
    }
    d->file_fd = fd;
    d->temp_base = base;
    d->header_written = true;
    return FZ7_OK;
}

/* A folder below the output folder: made (with its missing parents) by
 * open_dir, one component at a time relative to open folders, never
 * through a symlink, so a folder swapped for a link while x runs gets
 * nothing made through it (libarchive checks the path, then makes it by
 * name: a race). Its permissions and times wait for fz7_disk_close. */
static fz7_status make_folder(fz7_disk *d, const fz7_disk_item *it, char *err, size_t errlen)
{
    size_t len = strlen(it->path);
    while (len > 0 && it->path[len - 1] == '/')
        len--;
    if (len == 0)
        return FZ7_OK;   /* the output folder itself */
    /* A symlink in the folder's own place is replaced (the caller has
     * decided that it may be: -y), as libarchive did; one on the way to
     * it is refused by open_dir. */
    size_t cut = len;
    while (cut > 0 && it->path[cut - 1] != '/')
        cut--;
    int pfd = open_dir(d, it->path, cut > 0 ? cut - 1 : 0, true, NULL);
    int e = errno;   /* a parent that cannot be made reads ENOENT, as in 7-Zip */
    if (pfd >= 0) {
        char *last = strndup(it->path + cut, len - cut);
        if (!last)
            return FZ7_E_MEM;
        struct stat st;
        if (fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            unlinkat(pfd, last, 0);
        /* The folder's own mkdir gives the errno 7-Zip reports for it. */
        e = mkdirat(pfd, last, 0777) == 0 || errno == EEXIST ? 0 : errno;
        free(last);
        if (e == 0 && open_dir(d, it->path, len, false, NULL) < 0)
            e = errno;
    }
    if (pfd < 0 || e != 0) {
        snprintf(err, errlen, "%s: Cannot create folder: %s", it->path, strerror(e));
        d->last_errno = e;
        forget_dir(d);
        /* a link or a file on the way: a refusal, as libarchive's secure checks give */
        return e == ENOTDIR ? FZ7_E_ARG : FZ7_E_IO;
    }
    forget_dir(d);
    if (d->nfolders == d->folders_cap) {
        size_t cap = d->folders_cap ? 2 * d->folders_cap : 64;
        struct folder_fix *f = realloc(d->folders, cap * sizeof *f);
        if (!f)
            return FZ7_E_MEM;
        d->folders = f;
        d->folders_cap = cap;
    }
    char *path = strndup(it->path, len);
    if (!path)
        return FZ7_E_MEM;
    struct folder_fix *f = &d->folders[d->nfolders];
    f->it = *it;
    f->it.name = NULL;
    f->it.path = path;
    f->seq = d->nfolders++;
    return FZ7_OK;
}

/* Deepest first (a path sorts after its folder's), then the later entry. */
static int deeper_first(const void *a, const void *b)
{
    const struct folder_fix *x = a, *y = b;
    int c = strcmp(y->it.path, x->it.path);
    return c ? c : x->seq < y->seq ? 1 : -1;
}

/* The folders' permissions (exactly, as files get them) and times, each
 * reached again by open_dir; a folder that is gone or became a link is
 * left alone. Returns the first failure's errno, or 0. */
static int finish_folders(fz7_disk *d)
{
    int first = 0;
    if (d->nfolders)
        qsort(d->folders, d->nfolders, sizeof d->folders[0], deeper_first);
    for (size_t i = 0; i < d->nfolders; i++) {
        const fz7_disk_item *f = &d->folders[i].it;
        if (i > 0 && strcmp(f->path, d->folders[i - 1].it.path) == 0)
            continue;   /* the same folder again: its last entry came first */
        int fd = open_dir(d, f->path, strlen(f->path), false, NULL);
        if (fd < 0)
            continue;
        if (f->has_mtime || f->has_atime) {
            struct timespec ts[2] = {
                {f->has_atime ? (time_t)f->atime : 0, f->has_atime ? (long)f->atime_nsec : UTIME_OMIT},
                {f->has_mtime ? (time_t)f->mtime : 0, f->has_mtime ? (long)f->mtime_nsec : UTIME_OMIT}};
            if (futimens(fd, ts) != 0 && !first)
                first = errno;
        }
        if (f->has_owner)   /* refused when not root: left as it is */
            (void)!fchown(fd, (uid_t)f->uid, (gid_t)f->gid);
        if (fchmod(fd, (mode_t)(f->perm & 07777)) != 0 && !first)
            first = errno;
        forget_dir(d);
    }
    for (size_t i = 0; i < d->nfolders; i++)
        free((char *)d->folders[i].it.path);
    free(d->folders);
    d->folders = NULL;
    d->nfolders = d->folders_cap = 0;
    return first;
}

fz7_status fz7_disk_begin(fz7_disk *d, const fz7_disk_item *it, char *err, size_t errlen)
{
    if (d->active)
        clear_item(d);
    d->item = *it;
    d->final_path = strdup(it->path);
    if (!d->final_path)
        return FZ7_E_MEM;
    d->item.path = d->final_path;
    d->active = true;
    d->last_errno = 0;
    if (it->kind == FZ7_DISK_FILE && it->path[0] != '/')
        return begin_file(d, err, errlen);
    forget_dir(d);
    if (it->kind == FZ7_DISK_DIR && it->path[0] != '/')
        return make_folder(d, it, err, errlen);
    if (it->kind == FZ7_DISK_DIR) {
        struct archive_entry *e = make_entry(it, it->path, AE_IFDIR);
        if (!e)
            return FZ7_E_MEM;
        fz7_status s = write_header(d, e, it->path, err, errlen);
        archive_entry_free(e);
        if (s == FZ7_OK && archive_write_finish_entry(d->aw) < ARCHIVE_WARN) {
            snprintf(err, errlen, "%s: %s", it->path, archive_error_string(d->aw));
            s = FZ7_E_IO;
        }
        return s;
    }
    d->temp_path = temp_name(d, it->path);
    if (!d->temp_path) {
        snprintf(err, errlen, "%s: no temporary name", it->path);
        return FZ7_E_IO;
    }
    set_active_temp(d->temp_path);
    if (it->kind == FZ7_DISK_SYMLINK)
        return FZ7_OK; /* created at end(), once the target is known */
    struct archive_entry *e = make_entry(it, d->temp_path, AE_IFREG);
    if (!e)
        return FZ7_E_MEM;
    fz7_status s = write_header(d, e, it->path, err, errlen);
    archive_entry_free(e);
    if (s == FZ7_OK)
        d->header_written = true;
    return s;
}

static fz7_status flush(fz7_disk *d, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    if (n > 0 && d->file_fd >= 0) {
        int e = fz7_write_full(d->file_fd, p, n);
        if (e) {
            snprintf(err, errlen, "%s: write error: %s", d->item.path, strerror(e));
            return FZ7_E_IO;
        }
        return FZ7_OK;
    }
    while (n > 0) {
        la_ssize_t w = archive_write_data(d->aw, p, n);
        if (w <= 0) {
            const char *why = archive_error_string(d->aw);
            snprintf(err, errlen, "%s: write error: %s", d->item.path, why ? why : strerror(errno));
            return FZ7_E_IO;
        }
        p += w;
        n -= (size_t)w;
    }
    return FZ7_OK;
}

fz7_status fz7_disk_data(fz7_disk *d, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    if (!d->active)
        return FZ7_E_ARG;
    if (d->item.kind == FZ7_DISK_DIR)
        return FZ7_OK;
    d->data_bytes += n;
    if (d->item.kind == FZ7_DISK_SYMLINK) {
        if (n > LINK_MAX_TARGET - d->link_len) {
            d->link_too_long = true;
            return FZ7_OK;
        }
        memcpy(d->link + d->link_len, p, n);
        d->link_len += n;
        return FZ7_OK;
    }
    if (d->fill + n <= DISK_BUF_SIZE) {
        memcpy(d->buf + d->fill, p, n);
        d->fill += n;
        if (d->fill < DISK_BUF_SIZE)
            return FZ7_OK;
        d->fill = 0;
        return flush(d, d->buf, DISK_BUF_SIZE, err, errlen);
    }
    fz7_status s = flush(d, d->buf, d->fill, err, errlen);
    d->fill = 0;
    if (s != FZ7_OK)
        return s;
    if (n >= DISK_BUF_SIZE)
        return flush(d, p, n, err, errlen);
    memcpy(d->buf, p, n);
    d->fill = n;
    return FZ7_OK;
}

/* Renames the finished temporary item to its final name. */
static fz7_status publish(fz7_disk *d, char *err, size_t errlen)
{
    if (d->temp_base) { /* in the kept folder: final_path's folder too */
        const char *slash = strrchr(d->final_path, '/');
        if (renameat(d->dir_fd, d->temp_base, d->dir_fd, slash ? slash + 1 : d->final_path) == 0)
            return FZ7_OK;
        snprintf(err, errlen, "%s: Cannot rename into place: %s", d->final_path, strerror(errno));
        unlinkat(d->dir_fd, d->temp_base, 0);
        return FZ7_E_IO;
    }
    if (rename(d->temp_path, d->final_path) == 0)
        return FZ7_OK;
    snprintf(err, errlen, "%s: Cannot rename into place: %s", d->final_path, strerror(errno));
    unlink(d->temp_path);
    return FZ7_E_IO;
}

/* Ends the data of a file written by begin_file: the buffer's rest
 * (when keep), its times, and the descriptor closed. */
static fz7_status finish_file(fz7_disk *d, bool keep, char *err, size_t errlen)
{
    fz7_status s = keep && d->fill ? flush(d, d->buf, d->fill, err, errlen) : FZ7_OK;
    d->fill = 0;
    if (keep && s == FZ7_OK && (d->item.has_mtime || d->item.has_atime)) {
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_OMIT}};
        if (d->item.has_atime)
            ts[0] = (struct timespec){(time_t)d->item.atime, (long)d->item.atime_nsec};
        if (d->item.has_mtime)
            ts[1] = (struct timespec){(time_t)d->item.mtime, (long)d->item.mtime_nsec};
        if (futimens(d->file_fd, ts) != 0) {
            snprintf(err, errlen, "%s: Cannot set the file time: %s", d->final_path, strerror(errno));
            s = FZ7_E_IO;
        }
    }
    if (close(d->file_fd) != 0 && s == FZ7_OK && keep) {
        snprintf(err, errlen, "%s: write error: %s", d->final_path, strerror(errno));
        s = FZ7_E_IO;
    }
    d->file_fd = -1;
    return s;
}

/* Symlink targets: a link is made when what it names stays below the
 * output folder, as tar restores a tree's own links (7-Zip 26.02 refuses
 * every ".." without -snld). Components are resolved from the link's
 * folder (from the output folder for an absolute target); empty and "."
 * components do not count. Refused: a ".." that climbs above the output
 * folder, a ".." after a name (that name may be replaced by a link later
 * in the archive, so where ".." lands is not known now), and, checked after
 * those, a target passing through a symlink that exists on disk (only its
 * last component may be one: a chain of links that each stay below the
 * output folder stays below it). The link's own folder is a real one:
 * fz7_disk_begin() refuses to create anything below a symlink. */
typedef enum link_verdict { LINK_OK, LINK_DANGEROUS, LINK_VIA_LINK, LINK_NO_MEMORY } link_verdict;

static link_verdict check_link(const char *link_path, const char *target, char **resolved_out)
{
    *resolved_out = NULL;
    bool absolute = target[0] == '/';
    size_t dir_len = 0;
    if (!absolute) {
        const char *slash = strrchr(link_path, '/');
        dir_len = slash ? (size_t)(slash - link_path) : 0;
    }
    char *res = malloc(dir_len + strlen(target) + 2);
    if (!res)
        return LINK_NO_MEMORY;
    memcpy(res, link_path, dir_len);
    size_t len = dir_len;
    res[len] = 0;
    size_t depth = 0;
    for (size_t i = 0; i < dir_len; i++)
        depth += res[i] == '/';
    depth += dir_len > 0;
    bool seen_name = false, via_link = false, last_is_link = false;
    for (const char *p = target; *p;) {
        size_t cl = strcspn(p, "/");
        if (cl == 2 && p[0] == '.' && p[1] == '.') {
            if (seen_name || depth == 0) {
                free(res);
                return LINK_DANGEROUS;
            }
            char *up = strrchr(res, '/');
            len = up ? (size_t)(up - res) : 0;
            res[len] = 0;
            depth--;
        } else if (cl > 0 && !(cl == 1 && p[0] == '.')) {
            via_link |= last_is_link;
            if (len)
                res[len++] = '/';
            memcpy(res + len, p, cl);
            len += cl;
            res[len] = 0;
            depth++;
            seen_name = true;
            struct stat st;
            last_is_link = lstat(res, &st) == 0 && S_ISLNK(st.st_mode);
        }
        p += cl;
        while (*p == '/')
            p++;
    }
    if (via_link) {
        free(res);
        return LINK_VIA_LINK;
    }
    *resolved_out = res;
    return LINK_OK;
}

/* The text to store in a symlink that passed check_link: an absolute
 * target moves below the output folder (as 7-Zip does), a relative one
 * keeps its text with runs of '/' made single. NULL when out of memory or
 * the output folder's path is unknown. */
const char *fz7_disk_root(fz7_disk *d)
{
    /* The disk works inside the output folder (fz7_disk_open). */
    if (!d->root_full)
        d->root_full = getcwd(NULL, 0);
    return d->root_full;
}

static char *link_text(fz7_disk *d, const char *target, const char *resolved)
{
    if (target[0] == '/') {
        if (!fz7_disk_root(d))
            return NULL;
        size_t rl = strlen(d->root_full);
        char *t = malloc(rl + strlen(resolved) + 2);
        if (t)
            sprintf(t, "%s%s%s", d->root_full, rl && d->root_full[rl - 1] == '/' ? "" : "/",
                    resolved);
        return t;
    }
    char *t = malloc(strlen(target) + 1);
    if (!t)
        return NULL;
    size_t n = 0;
    for (const char *p = target; *p; p++)
        if (!(*p == '/' && n && t[n - 1] == '/'))
            t[n++] = *p;
    t[n] = 0;
    return t;
}

/* A refused link leaves an empty regular file under its name, as 7-Zip
 * (which writes every link as a file first) does: later entries that go
 * through that name then fail the same way. Best effort. */
static void leave_empty_file(fz7_disk *d)
{
    char ignored[256];
    struct archive_entry *e = make_entry(&d->item, d->temp_path, AE_IFREG);
    if (!e)
        return;
    fz7_status s = write_header(d, e, d->final_path, ignored, sizeof ignored);
    archive_entry_free(e);
    if (s == FZ7_OK && archive_write_finish_entry(d->aw) >= ARCHIVE_WARN)
        publish(d, ignored, sizeof ignored);
    else
        unlink(d->temp_path);
}

/* Checks d->link, then creates the symlink under its temporary name and
 * renames it into place. */
static fz7_status write_link(fz7_disk *d, char *err, size_t errlen)
{
    d->link[d->link_len] = 0;
    const char *name = d->item.name ? d->item.name : d->final_path;
    const char *shown = d->link;
    while (*shown == '/')
        shown++;
    if (!*shown) /* "/" alone: 7-Zip creates nothing and says nothing */
        return FZ7_OK;
    char *resolved;
    link_verdict v = check_link(d->final_path, d->link, &resolved);
    if (v == LINK_NO_MEMORY)
        return FZ7_E_MEM;
    if (v != LINK_OK) {
        leave_empty_file(d);
        snprintf(err, errlen, "%s : %s : %s",
                 v == LINK_DANGEROUS ? "Dangerous link path was ignored"
                                     : "Dangerous link via another link was ignored",
                 name, shown);
        return FZ7_E_ARG;
    }
    char *text = link_text(d, d->link, resolved);
    free(resolved);
    if (!text) {
        snprintf(err, errlen, "%s: Cannot find the output folder's path: %s", d->final_path,
                 strerror(errno));
        return FZ7_E_IO;
    }
    struct archive_entry *e = make_entry(&d->item, d->temp_path, AE_IFLNK);
    if (!e) {
        free(text);
        return FZ7_E_MEM;
    }
    archive_entry_set_symlink(e, text);
    free(text);
    if (d->item.has_owner)   /* (lchown: the link's own owner) */
        archive_write_disk_set_options(d->aw, d->options | ARCHIVE_EXTRACT_OWNER);
    fz7_status s = write_header(d, e, d->final_path, err, errlen);
    if (d->item.has_owner)
        archive_write_disk_set_options(d->aw, d->options);
    archive_entry_free(e);
    if (s == FZ7_OK && archive_write_finish_entry(d->aw) < ARCHIVE_WARN) {
        snprintf(err, errlen, "%s: %s", d->final_path, archive_error_string(d->aw));
        s = FZ7_E_IO;
    }
    if (s == FZ7_OK)
        return publish(d, err, errlen);
    unlink(d->temp_path);
    return s;
}

fz7_status fz7_disk_link_file(fz7_disk *d, const char *target, const struct stat *st, char *err,
                              size_t errlen)
{
    if (!d->active || d->item.kind != FZ7_DISK_FILE || !d->header_written || d->fill) {
        snprintf(err, errlen, "%s: not a new file", d->active ? d->final_path : target);
        return FZ7_E_ARG;
    }
    /* The source's folder opened beneath the output folder (not through
     * the kept folder descriptor: that is the item's), the name linked
     * without following a symlink, and the new name checked to be the
     * expected inode: a swap between the check and linkat is caught. */
    int dfd = target[0] == '/' ? -3 : open_parent_beneath(target);
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    struct stat ts;
    int found = dfd >= 0 ? fstatat(dfd, base, &ts, AT_SYMLINK_NOFOLLOW) == 0
                : dfd == -3 ? lookup_by_lstat(target, &ts) == 1 : 0;
    if (!found || !S_ISREG(ts.st_mode) || ts.st_dev != st->st_dev || ts.st_ino != st->st_ino) {
        if (dfd >= 0)
            close(dfd);
        snprintf(err, errlen, "%s: the file to link to is no longer there", target);
        return FZ7_E_ARG;
    }
    char *link_temp = temp_name(d, d->final_path);
    if (!link_temp) {
        if (dfd >= 0)
            close(dfd);
        snprintf(err, errlen, "%s: no temporary name", d->final_path);
        return FZ7_E_IO;
    }
    int r = dfd >= 0 ? linkat(dfd, base, AT_FDCWD, link_temp, 0)
            : dfd == -3 ? linkat(AT_FDCWD, target, AT_FDCWD, link_temp, 0) : -1;
    int e = dfd >= 0 || dfd == -3 ? errno : ENOENT;
    if (dfd >= 0)
        close(dfd);
    if (r == 0 && (lstat(link_temp, &ts) != 0 || ts.st_dev != st->st_dev || ts.st_ino != st->st_ino)) {
        unlink(link_temp);
        r = -1;
        e = ESTALE;
    }
    if (r != 0) {
        snprintf(err, errlen, "%s: Cannot create hard link to %s: %s", d->final_path, target,
                 strerror(e));
        free(link_temp);
        return FZ7_E_IO;
    }
    if (d->file_fd >= 0) {
        close(d->file_fd);
        d->file_fd = -1;
        unlinkat(d->dir_fd, d->temp_base, 0);
        d->temp_base = NULL;
    } else {
        archive_write_finish_entry(d->aw);
        unlink(d->temp_path);
    }
    free(d->temp_path);
    d->temp_path = link_temp;
    set_active_temp(link_temp);
    d->header_written = false;
    d->linked = true;
    return FZ7_OK;
}

/* Removes the folders begin_file made for a file that was not kept
 * (a wrong password, a Data Error): deepest first, each only if empty, as
 * 7zz leaves no folder behind such a file. */
static void remove_made_dirs(fz7_disk *d)
{
    const char *slash = d->made_len ? strrchr(d->final_path, '/') : NULL;
    char *p = slash ? strndup(d->final_path, (size_t)(slash - d->final_path)) : NULL;
    d->made_len = slash && p ? d->made_len : 0;
    if (!d->made_len) {
        free(p);
        return;
    }
    forget_dir(d);
    for (char *s; unlinkat(d->root_fd, p, AT_REMOVEDIR) == 0 && (s = strrchr(p, '/')) && (size_t)(s - p) >= d->made_len;)
        *s = 0;
    free(p);
    d->made_len = 0;
}

fz7_status fz7_disk_end(fz7_disk *d, bool keep, char *err, size_t errlen)
{
    if (!d->active)
        return FZ7_OK;
    fz7_status s = FZ7_OK;
    if (d->item.kind == FZ7_DISK_FILE && d->linked) {
        if (keep)
            s = publish(d, err, errlen);
        /* rename() leaves both names when they are one file already */
        unlink(d->temp_path);
    } else if (d->item.kind == FZ7_DISK_FILE && d->file_fd >= 0) {
        s = finish_file(d, keep, err, errlen);
        if (keep && s == FZ7_OK)
            s = publish(d, err, errlen);
        if (!keep || s != FZ7_OK) {
            unlinkat(d->dir_fd, d->temp_base, 0);
            remove_made_dirs(d);
        }
    } else if (d->item.kind == FZ7_DISK_FILE && d->header_written) {
        if (keep && d->fill)
            s = flush(d, d->buf, d->fill, err, errlen);
        d->fill = 0;
        if (archive_write_finish_entry(d->aw) < ARCHIVE_WARN && s == FZ7_OK) {
            snprintf(err, errlen, "%s: %s", d->final_path, archive_error_string(d->aw));
            s = FZ7_E_IO;
        }
        if (keep && s == FZ7_OK)
            s = publish(d, err, errlen);
        else
            unlink(d->temp_path);
    } else if (d->item.kind == FZ7_DISK_SYMLINK && keep) {
        if (d->link_too_long || d->link_len == 0) {
            snprintf(err, errlen, "%s: symbolic link target %s", d->final_path,
                     d->link_len ? "too long" : "empty");
            s = FZ7_E_DATA;
        } else {
            forget_dir(d);
            s = write_link(d, err, errlen);
        }
    }
    clear_item(d);
    return s;
}

fz7_status fz7_disk_end_damaged(fz7_disk *d, char **kept_as, char *err, size_t errlen)
{
    *kept_as = NULL;
    if (!d->active || d->item.kind != FZ7_DISK_FILE || !d->header_written || d->linked || !d->data_bytes)
        return fz7_disk_end(d, false, err, errlen);
    fz7_status s = FZ7_OK;
    if (d->file_fd >= 0) {
        s = finish_file(d, true, err, errlen);
    } else {
        s = d->fill ? flush(d, d->buf, d->fill, err, errlen) : FZ7_OK;
        d->fill = 0;
        if (archive_write_finish_entry(d->aw) < ARCHIVE_WARN && s == FZ7_OK) {
            snprintf(err, errlen, "%s: %s", d->final_path, archive_error_string(d->aw));
            s = FZ7_E_IO;
        }
    }
    struct stat st;
    if (s == FZ7_OK && fz7_disk_lookup(d, d->final_path, &st) == 1) {
        size_t n = strlen(d->final_path);
        char *beside = malloc(n + sizeof ".damaged");
        if (!beside) {
            s = FZ7_E_MEM;
        } else {
            memcpy(beside, d->final_path, n);
            memcpy(beside + n, ".damaged", sizeof ".damaged");
            if (lstat(beside, &st) == 0 || errno != ENOENT) {
                char *other = NULL;
                s = fz7_disk_free_name(d, beside, &other);
                free(beside);
                beside = other;
                if (s != FZ7_OK)
                    snprintf(err, errlen, "%s: no free name for the damaged data", d->final_path);
            }
        }
        if (s == FZ7_OK) {
            free(d->final_path);
            d->final_path = beside;
            *kept_as = strdup(beside);
            if (!*kept_as)
                s = FZ7_E_MEM;
        }
    }
    if (s == FZ7_OK)
        s = publish(d, err, errlen);
    else if (d->temp_base)
        unlinkat(d->dir_fd, d->temp_base, 0);
    else
        unlink(d->temp_path);
    if (s != FZ7_OK) {
        free(*kept_as);
        *kept_as = NULL;
    }
    clear_item(d);
    return s;
}

int fz7_disk_errno(const fz7_disk *d)
{
    if (d->last_errno)
        return d->last_errno;
    int e = archive_errno(d->aw);
    return e > 0 ? e : 0;
}

fz7_status fz7_disk_close(fz7_disk *d, char *err, size_t errlen)
{
    if (!d)
        return FZ7_OK;
    fz7_status s = FZ7_OK;
    if (d->active && d->file_fd >= 0) {
        close(d->file_fd);
        unlinkat(d->dir_fd, d->temp_base, 0);
    } else if (d->active && d->temp_path && d->header_written) {
        archive_write_finish_entry(d->aw);
        unlink(d->temp_path);
    } else if (d->active && d->temp_path && d->linked) {
        unlink(d->temp_path);
    }
    clear_item(d);
    forget_dir(d);
    if (d->root_fd >= 0) {
        int e = finish_folders(d);
        if (e && errlen) {
            snprintf(err, errlen, "setting folder attributes: %s", strerror(e));
            s = FZ7_E_IO;
        }
        close(d->root_fd);
    }
    if (d->aw) {
        if (archive_write_close(d->aw) != ARCHIVE_OK && errlen) {
            const char *why = archive_error_string(d->aw);
            snprintf(err, errlen, "setting folder attributes: %s", why ? why : "failed");
            s = FZ7_E_IO;
        }
        archive_write_free(d->aw);
    }
    if (d->old_cwd >= 0) {
        if (fchdir(d->old_cwd) != 0 && s == FZ7_OK) {
            snprintf(err, errlen, "Cannot return to the previous folder: %s", strerror(errno));
            s = FZ7_E_IO;
        }
        close(d->old_cwd);
    }
    if (d->handlers_set) {
        for (int i = 0; i < 3; i++)
            sigaction(g_signals[i], &g_old_actions[i], NULL);
        sigaction(SIGXFSZ, &g_old_xfsz, NULL);
    }
    free(d->root_full);
    free(d->buf);
    free(d);
    return s;
}
