/* read_tree.h - the list of files `fz7 a` stores: command-line names and
 * wildcards walked with libarchive's archive_read_disk, filtered by 7-Zip's
 * -i!/-x! rules, named as 7-Zip names them inside an archive. */
#ifndef FZ7_READ_TREE_H
#define FZ7_READ_TREE_H

#include "fz7_common.h"

#include <stdbool.h>

/* FZ7_ITEM_SPECIAL: a FIFO, socket or device. It is stored as 7-Zip stores
 * one, an entry without data whose mode keeps the file type, and never
 * opened (opening a FIFO waits for a writer). */
typedef enum fz7_item_kind { FZ7_ITEM_FILE, FZ7_ITEM_DIR, FZ7_ITEM_SYMLINK, FZ7_ITEM_SPECIAL } fz7_item_kind;

/* One input found on disk. */
typedef struct fz7_tree_item {
    char *name;         /* archive path: UTF-8, '/'-separated, relative, no "." or ".."
                           (with full_paths 1: the path as given) */
    char *disk_path;    /* path to open on disk */
    char *link_target;  /* FZ7_ITEM_SYMLINK only: the link's text */
    fz7_item_kind kind;
    uint32_t mode;      /* st_mode with its S_IFMT bits */
    uint64_t size;      /* bytes of data (a symlink: length of its target) */
    int64_t mtime;      /* seconds since 1970-01-01 UTC */
    uint32_t mtime_nsec;
    int64_t ctime, atime;             /* st_ctime and st_atime (before the file
                                         is read), the same way; -mtc, -mta */
    uint32_t ctime_nsec, atime_nsec;
    uint64_t dev, ino;  /* st_dev/st_ino, to recognise the archive being written
                           and the names of one hard-linked file */
    uint64_t nlink;     /* st_nlink: more than 1 for a file with other hard links */
    uint32_t uid, gid;  /* st_uid, st_gid: a tar's owner with -snoi/-snon */
    uint64_t rdev;      /* FZ7_ITEM_SPECIAL: st_rdev, a device's number (tar keeps it) */
} fz7_tree_item;

/* A growing list of items; zero-initialise before use. */
typedef struct fz7_tree {
    fz7_tree_item *items;
    size_t count, cap;
    char *dup_name;     /* fz7_tree_sort: a name that two different files
                           (not one reached twice, not two folders) stood
                           for, or NULL */
} fz7_tree;

/* A 7-Zip wildcard rule (-i!, -x!, or a wildcard file name). */
typedef struct fz7_match_rule {
    const char *pattern;  /* '/'-separated; '*' and '?' never match '/' */
    bool recursive;       /* the last part matches at any depth (-r, -ir!, -xr!) */
} fz7_match_rule;

/* Called for an input that cannot be read: disk path and errno. */
typedef void (*fz7_tree_warn_fn)(void *ctx, const char *path, int errnum);

typedef struct fz7_tree_opts {
    bool recurse;               /* -r: wildcard names match in subfolders too */
    bool store_symlinks;        /* -snl: keep links as links; else follow them as 7-Zip does */
    int full_paths;             /* 0 7-Zip's default names; 1 (-spf) the path as
                                   given; 2 (-spf2) an absolute path without '/' */
    bool no_wildcards;          /* -spd: '*' and '?' are plain characters of names */
    const fz7_match_rule *exclude; size_t n_exclude;  /* -x! rules */
    fz7_tree_warn_fn warn;      /* may be NULL */
    void *warn_ctx;
} fz7_tree_opts;

/* Adds the items one command-line name stands for: a file, a folder with
 * everything below it, or a wildcard (e.g. "src/x*.c" or "*.txt") matched against the
 * folder's entries (and in its subfolders when recursive). Names are stored
 * as 7-Zip stores them: a relative path as given, but an absolute path or
 * one with a "." or ".." part reduced to its last part. Unreadable entries go to
 * o->warn and are skipped; the return is still FZ7_OK then.
 * Errors: FZ7_E_MEM; FZ7_E_IO when `arg` itself does not exist (after the
 * warning). */
fz7_status fz7_tree_add(fz7_tree *t, const char *arg, bool recursive_wildcard,
                        const fz7_tree_opts *o);

/* Sorts by archive path (component by component) and drops repeated names,
 * keeping one of them: the same file or folder reached by two arguments,
 * and folders (their contents merge). Two different files of one name
 * both stay and set t->dup_name: 7-Zip's "Duplicate filename on disk",
 * which the caller refuses (keeping one would lose the other). FZ7_E_MEM. */
fz7_status fz7_tree_sort(fz7_tree *t);

/* True when path (archive form) matches rule w: the rule's parts match the
 * path's leading parts (so a folder's contents match too), or for a
 * recursive rule, its last part matches any later part of the path. */
bool fz7_match_rule_test(const fz7_match_rule *w, const char *path);

/* True when s holds '*' or '?'. */
bool fz7_has_wildcard(const char *s);

/* Maps a command-line path to the name 7-Zip stores for it (see
 * fz7_tree_add). Returns a malloc'd string ("" when nothing is left, e.g.
 * "."), NULL on allocation failure. */
char *fz7_archive_name_of(const char *arg);

/* The same with 7-Zip's -spf (full_paths 1: the path as given, less a
 * trailing '/') or -spf2 (2: an absolute path without "." or ".." parts
 * loses only its leading '/'; others as full_paths 0). */
char *fz7_archive_name_full(const char *arg, int full_paths);

/* For -snh: out[i] is the index of the first regular file in t (in list
 * order) with the same st_dev/st_ino as item i when i is a later name of
 * a hard-linked file (st_nlink > 1), else i. *out is malloc'ed (t->count
 * entries; NULL when t is empty). FZ7_E_MEM. */
fz7_status fz7_tree_hardlink_firsts(const fz7_tree *t, size_t **out);

/* Keeps item k alone (the others freed): t then lists one item. */
void fz7_tree_keep_only(fz7_tree *t, size_t k);

void fz7_tree_free(fz7_tree *t);

#endif
