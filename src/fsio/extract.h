/* extract.h - writing extracted entries to disk safely below one output
 * folder: regular files relative to their folder's descriptor, reached
 * without following symlinks; folders and symlinks through libarchive's
 * archive_write_disk with its secure flags (no "..", no absolute paths, no
 * writing through symlinks).
 *
 * A file's data goes to a temporary name in its final directory and is
 * renamed to the final name only when the caller says the entry decoded
 * and checked OK, so no damaged file ever replaces one (a damaged one is
 * kept only where nothing was: fz7_disk_end_damaged). */
#ifndef FZ7_EXTRACT_H
#define FZ7_EXTRACT_H

#include "fz7_common.h"

#include <stdbool.h>
#include <sys/stat.h>

typedef struct fz7_disk fz7_disk;

typedef enum fz7_disk_kind { FZ7_DISK_FILE, FZ7_DISK_DIR, FZ7_DISK_SYMLINK } fz7_disk_kind;

/* One item to write. */
typedef struct fz7_disk_item {
    const char *path;      /* relative to the output folder, '/'-separated,
                              already made safe by fz7_disk_safe_path() */
    const char *name;      /* the archive's name for messages; NULL = path */
    fz7_disk_kind kind;
    uint32_t perm;         /* permission bits (07777); applied exactly (for a
                              symlink: to the empty file a refused link leaves) */
    bool has_mtime;
    int64_t mtime;         /* seconds since 1970-01-01 UTC */
    uint32_t mtime_nsec;
    bool has_atime;        /* last access, set on files and links as 7-Zip
                              does; else the kernel's time of writing */
    int64_t atime;
    uint32_t atime_nsec;
    bool has_owner;        /* x -snoi: the owner ids to give it (as root;
                              a refused chown leaves the extracting user's) */
    uint32_t uid, gid;
} fz7_disk_item;

/* Makes an archive path safe to write below the output folder, renaming as
 * 7-Zip 26.02 does: empty components (a leading '/' too) are dropped, "."
 * and ".." are dropped where they are not the last component, and a last
 * "." or ".." becomes "_" ("../x" -> "x", "a/.." -> "a/_", ".." -> "_").
 * A folder drops every "." and ".." and may come out as "" (the output
 * folder itself: nothing to create). The new string goes in *out (free()
 * it). FZ7_E_MEM. */
fz7_status fz7_disk_safe_path(const char *archive_path, bool is_dir, char **out);

/* Creates out_dir (and its parents) when missing and makes it the current
 * directory until fz7_disk_close() (NULL or "" = the current directory).
 * FZ7_E_IO with a reason in err when out_dir cannot be created or entered. */
fz7_status fz7_disk_open(const char *out_dir, fz7_disk **out, char *err, size_t errlen);

/* -snld: 7-Zip's switch to allow links with ".."; fz7 already makes every
 * link that stays below the output folder (see fz7_disk_end), so it
 * changes nothing. */
void fz7_disk_allow_dangerous_links(fz7_disk *d, bool allow);

/* x -spf: lets an item path start with '/' (written at that absolute
 * path, as 7-Zip's -spf extracts); ".." parts are still refused. */
void fz7_disk_allow_absolute(fz7_disk *d, bool allow);

/* Looks up path below the output folder without following symlinks: its
 * folder is reached one component at a time with O_NOFOLLOW (and kept
 * open for the write that follows), the name looked up in it; an -spf
 * absolute path by lstat of each parent. 1 exists (*st filled), 0
 * absent, -1 a parent is a symlink or not a directory (the write would be
 * refused). */
int fz7_disk_lookup(fz7_disk *d, const char *path, struct stat *st);

/* A name that does not exist yet for path: "dir/name_1.ext", "_2", ...
 * (7-Zip's rename scheme). *out is malloc'ed. FZ7_E_MEM, FZ7_E_IO. */
fz7_status fz7_disk_free_name(fz7_disk *d, const char *path, char **out);

/* Removes the empty folder path (a file of the archive takes its place):
 * rmdir(), 0 or -1 with errno. */
int fz7_disk_remove_dir(fz7_disk *d, const char *path);

/* An anti-item's removal: what is at path below the output folder goes,
 * a file or symlink by unlink (the link, never its target), a folder by
 * rmdir (only when empty). The folder is reached as fz7_disk_lookup does,
 * without following symlinks; an absolute (-spf) path or "" is left
 * alone. 1 removed, 0 not (absent, not empty, a parent is a symlink). */
int fz7_disk_remove_anti(fz7_disk *d, const char *path);

/* Renames the existing path to a free name (for -aot). The new name is put
 * in *renamed (malloc'ed) when renamed is not NULL. FZ7_E_IO with reason. */
fz7_status fz7_disk_rename_existing(fz7_disk *d, const char *path, char **renamed, char *err,
                                    size_t errlen);

/* Starts an item. Directories are created at once (their mode and mtime
 * are set by fz7_disk_close(), after their contents); files and symlinks
 * go to a temporary name. FZ7_E_ARG (refused: unsafe path) or FZ7_E_IO with
 * a reason in err; FZ7_E_MEM. */
fz7_status fz7_disk_begin(fz7_disk *d, const fz7_disk_item *it, char *err, size_t errlen);

/* The item's data, in order: file bytes, or a symlink's target (at most
 * 4096 bytes). Buffered in 1 MiB chunks. FZ7_E_IO / FZ7_E_DATA with reason. */
fz7_status fz7_disk_data(fz7_disk *d, const uint8_t *p, size_t n, char *err, size_t errlen);

/* Ends the item: keep == true renames it to its final name (replacing an
 * existing file or symlink), false removes the temporary file.
 * A symlink is checked first: its target must stay below the output
 * folder (the output folder itself is allowed), using ".." only before its
 * first name, and must not pass through a symlink already on disk (its
 * last component may be one). 7-Zip 26.02 refuses every ".." and a target
 * naming the output folder unless -snld; tar's rule is followed here. A
 * refused link is not created, an empty file with item.perm takes its
 * name (as with 7-Zip): FZ7_E_ARG with err = "Dangerous link path
 * was ignored : NAME : TARGET" (or "Dangerous link via another link was
 * ignored : ..."). An absolute target that passes is rewritten to the same
 * path below the output folder ("/etc/x" -> "<output folder>/etc/x").
 * Otherwise FZ7_E_IO / FZ7_E_DATA with a reason in err. */
fz7_status fz7_disk_end(fz7_disk *d, bool keep, char *err, size_t errlen);

/* Ends a file item whose data failed its CRC or could not all be decoded,
 * keeping what was written so a person can salvage it (7-Zip keeps such a
 * file too): under its final name when nothing is there, else beside what
 * is there as "NAME.damaged" (or "NAME_1.damaged", ...), so a file already
 * on disk is never replaced by a damaged one; *kept_as (malloc'ed) then
 * names it, else it is NULL. A file of which no byte was decoded (one
 * after the damage in a solid block) is not kept, as 7-Zip makes none;
 * other items end as with keep == false.
 * FZ7_E_IO with a reason in err, FZ7_E_MEM. */
fz7_status fz7_disk_end_damaged(fz7_disk *d, char **kept_as, char *err, size_t errlen);

/* Makes the file item in progress (begun, no data written yet) a hard
 * link to target, a regular file written earlier in this run below the
 * output folder: target is looked up as fz7_disk_lookup does (no
 * symlinks, nothing outside) and must still be the file st names (same
 * st_dev and st_ino), so the link never reaches anything else. The link
 * takes the final name at fz7_disk_end(keep). FZ7_OK when linked; else
 * the item is untouched (its data can still be written as a copy) and
 * FZ7_E_IO or FZ7_E_ARG comes back with a reason in err. */
fz7_status fz7_disk_link_file(fz7_disk *d, const char *target, const struct stat *st, char *err,
                              size_t errlen);

/* The output folder's absolute path (owned by d), or NULL when it cannot
 * be had (out of memory, getcwd failing). */
const char *fz7_disk_root(fz7_disk *d);

/* The system errno behind the last failed fz7_disk_begin (libarchive's
 * archive_errno), or 0 when the failure was not a system error. */
int fz7_disk_errno(const fz7_disk *d);

/* Sets directory modes and mtimes (deepest first), goes back to the
 * previous current directory and frees d. NULL is allowed. FZ7_E_IO with a
 * reason when a directory's attributes could not be set. */
fz7_status fz7_disk_close(fz7_disk *d, char *err, size_t errlen);

#endif
