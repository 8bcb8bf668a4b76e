/* archive_out.h - what `fz7 a` and `fz7 u/d/rn` share when they write an
 * archive: scanning the inputs on disk, the 7-Zip size and count lines,
 * and the temporary file (beside the archive, or in -w's folder) that
 * becomes the archive only when complete (removed on any failure or
 * signal). */
#ifndef FZ7_CLI_ARCHIVE_OUT_H
#define FZ7_CLI_ARCHIVE_OUT_H

#include "cli/options.h"
#include "format/archive.h"
#include "format/la_write.h"
#include "fsio/read_tree.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* True when s ends with suffix, compared without case (".7z", ".xz"). */
bool fz7_ends_with(const char *s, const char *suffix);

/* The exit code for a failed write: 8 out of memory, 7 a bad argument,
 * 2 anything else. */
int fz7_write_exit_code(fz7_status st);

/* The error line of a/u/d/rn whose archive could not be written (st, with
 * why from the writer, "" if none, and werr the errno of the failed write,
 * 0 if none), on stderr after out is flushed: a write the system refused
 * (a full disk, a file size limit) as 7zz's "System ERROR:" and errno
 * lines, anything else as "ERROR: path : why". */
void fz7_print_write_error(FILE *out, const char *path, fz7_status st, int werr, const char *why);

/* Warnings met while scanning the inputs, kept to be printed after the
 * archive is written, as 7-Zip prints them. */
typedef struct fz7_scan_warnings {
    size_t *count;   /* the command's warning counter: raised once per warning */
    char **lines;    /* "path : errno=N : text", n of them (malloc'ed) */
    size_t n;
    char **open_lines; /* the same for files that could not be opened when read */
    size_t n_open;
} fz7_scan_warnings;

/* A file that cannot be opened (or read) while the archive is written:
 * 7-Zip's "WARNING: errno=N : text" and path on stderr now, and a line of
 * the "WARNINGS for files:" block at the end. */
void fz7_open_warn(fz7_scan_warnings *sw, FILE *out, const char *path, int err);

/* Adds o's names (everything here, "*", when none are given, as 7-Zip
 * does) to tree with o's -r, -snl and -x! switches, then sorts it. A file
 * or folder that cannot be read is a warning in sw, not an error. Returns
 * FZ7_OK, or FZ7_E_MEM (tree keeps what was found). */
fz7_status fz7_scan_inputs(const struct fz7_options *o, fz7_tree *tree, fz7_scan_warnings *sw);

/* The same, sorted only when sort; unsorted, the items come in the order
 * the folders were read (`h` lists them so, as 7-Zip does). */
fz7_status fz7_scan_inputs_ordered(const struct fz7_options *o, fz7_tree *tree,
                                   fz7_scan_warnings *sw, bool sort);

/* Prints sw's "Scan WARNINGS for files and folders:" block on out, as
 * 7-Zip does (nothing when there are none). */
void fz7_scan_warnings_print(const fz7_scan_warnings *sw, FILE *out);

/* -sse's end of a/u, as 7zz's: sw's Scan WARNINGS block on out, then
 * "System ERROR:" and the errno err of the file that could not be opened
 * on stderr. Returns the exit code, 2. */
int fz7_sse_stop(const fz7_scan_warnings *sw, FILE *out, int err);

/* Frees sw's lines. */
void fz7_scan_warnings_free(fz7_scan_warnings *sw);

/* "119 bytes (1 KiB)" as 7-Zip prints sizes (KiB, MiB from 10 MiB, GiB
 * from 10 GiB, rounded up). */
void fz7_print_size(FILE *f, uint64_t bytes);

/* 7zz's last lines when a one-file stream (xz, gzip, bzip2) was updated
 * without reading a file: none read, the archive's size, Everything is Ok. */
void fz7_print_one_stream_end(FILE *f, uint64_t archive_bytes);

/* An item's name on a line of a listing, as 7-Zip prints it: a newline or
 * carriage return in it as '_', so one item stays one line. */
void fz7_print_name(FILE *f, const char *name);

/* A -bb line: mark, a space, name as fz7_print_name prints it, then tail
 * (such as "/" after a folder) and the line's end. */
void fz7_print_item(FILE *f, const char *mark, const char *name, const char *tail);

/* Whether 7zz's -bb1 lists item it written into a tar or zip: every
 * file, and of the items without data a tar's folders and a zip's links. */
bool fz7_la_lists_item(fz7_la_kind kind, const fz7_tree_item *it);

/* what, then "2 folders, 3 files, 119 bytes (1 KiB)\n" (folders only when
 * there are some). */
void fz7_print_counts(FILE *f, const char *what, uint64_t dirs, uint64_t files, uint64_t bytes);

/* What a scanned tree holds: its folders, its other items and their
 * bytes, for the counts lines. */
void fz7_tree_counts(const fz7_tree *tree, uint64_t *dirs, uint64_t *files, uint64_t *bytes);

/* Bytes of the tree's largest regular file (0: none). */
uint64_t fz7_tree_largest_file(const fz7_tree *tree);

/* The scan's line ("N folders, N files, N bytes"), as 7zz counts it: a
 * stored symbolic link (-snl) a file of no bytes there, though its target's
 * bytes are added ("Add new data to archive"). */
void fz7_print_scan_counts(FILE *out, const fz7_tree *tree);

/* The end of a write that succeeded: sw's scan warnings, its "WARNINGS
 * for files:" block and "WARNING: Cannot open N files", "WARNINGS: N" for
 * other warnings; returns the exit code 1 with any of them, else prints
 * "Everything is Ok" and returns 0. */
int fz7_print_write_end(FILE *out, const fz7_scan_warnings *sw, size_t warnings);

/* The archive's file name: archive, with ext (".7z", ".xz") added when its
 * last path part has no '.', as 7-Zip does. False when that does not fit
 * in cap bytes. */
bool fz7_archive_name(const char *archive, const char *ext, char *path, size_t cap);

/* Creates the folders above path that are missing (as 7-Zip does), then
 * the temporary file "<dir>/<name>.fz7tmpXXXXXX" for the archive
 * path: dir is work_dir (-w{dir}; "" = $TMPDIR or /tmp, as 7-Zip's -w
 * alone), or path's own folder when work_dir is NULL. It is held flock()ed
 * while it lives; temporary files of that pattern for the same archive
 * name that no process holds (left by a crash) are removed first; the
 * handlers of fz7_catch_signals remove it. Returns 0 with *fd set, or an exit code after
 * printing the error (name too long: 7; cannot create: 2, with 7-Zip's
 * "cannot open file" block on out and its System ERROR line). One temporary
 * file at a time per process. */
int fz7_temp_create(const char *path, const char *work_dir, FILE *out, int *fd);

/* For a new archive at path: when path is a symbolic link to nothing,
 * 7zz's block ("The file already exists", errno=17) on out and its System
 * ERROR on stderr, returning 2 (7zz opens a new archive's name with
 * O_EXCL, and replacing the link would lose where it pointed); else 0. */
int fz7_refuse_dangling_link(FILE *out, const char *path);

/* Every command, as 7zz: SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the
 * temporary archive and the volumes being cut (if any), print "Break
 * signaled" and exit 255 — also when the signal came in ignored (a
 * script's background job), as 7zz stops then too. SIGXFSZ is ignored, so
 * that ulimit -f gives EFBIG. Called once, at the start. */
void fz7_catch_signals(void);

/* Completes the temporary file fd: gives it old_sb's permissions (or
 * 0666 minus the umask when old_sb is NULL), fsyncs, closes and renames it
 * over path, then fsyncs the folder. When it lies on another file system
 * (-w) it is first copied to a temporary file beside path, which is
 * completed and renamed so; 7-Zip copies into path itself, which a
 * failure would leave broken. *size gets the archive size in bytes. On
 * failure returns FZ7_E_IO with *err = errno, the temporary files are
 * removed and path is left as it was. */
fz7_status fz7_temp_commit(int fd, const char *path, const struct stat *old_sb, uint64_t *size,
                           int *err);

/* -sdel once the archive is complete (scan warnings or not, as 7-Zip):
 * removes the files of tree, then its folders deepest first (a folder that
 * is not empty stays); items whose keep[i] is true (keep may be NULL) and
 * files that could not be read (sw's open warnings) are left alone; out of
 * memory for that list, nothing is removed. With
 * list (-bb1), 7-Zip's lines: a heading, then "Removing NAME" for each. */
void fz7_delete_inputs(const fz7_tree *tree, const bool *keep, const fz7_scan_warnings *sw, FILE *list);

/* -stl: the newest of the times offered to fz7_newest_take (zeroed first);
 * fz7_newest_stamp gives it to path as its modification time (nothing
 * when no time was offered). */
typedef struct fz7_newest {
    bool any;
    int64_t sec;
    uint32_t nsec;
} fz7_newest;
void fz7_newest_take(fz7_newest *n, int64_t sec, uint32_t nsec);
void fz7_newest_stamp(const fz7_newest *n, const char *path);

/* -v{Size}[b|k|m|g|t] (a bare number is bytes): o's volume sizes, in
 * order; the last one repeats. *n 0 without -v. Returns 0; 7 after
 * printing 7-Zip's "Command Line Error" ("Incorrect volume size:", "zero
 * size last volume is not allowed"); 8 out of memory. Free *sizes. */
int fz7_volume_sizes(const struct fz7_options *o, uint64_t **sizes, size_t *n);

/* The name of volume k (0-based) of the archive path: "path.001", ... */
void fz7_volume_name(const char *path, size_t k, char *buf, size_t cap);

/* a/u/d/rn: the archive to update cannot be opened (err: the reader's
 * reason, or ""). As 7zz 26.02 on stderr: "ERROR: path", path, "Open ERROR:
 * Cannot open the file as [type] archive", an "ERRORS:" block with 7zz's
 * reason (Is not archive, Unexpected end of archive, Headers Error) and the
 * reader's own on a line after, "System ERROR:"; with type NULL (neither
 * -t nor the name asked for one) 7zz's shorter lines. Returns 2. */
int fz7_print_update_open_error(FILE *out, const char *path, const char *type, const char *err,
                                fz7_status st);

/* a/u: a -m switch refused as the archive path is opened (7zz reads them
 * there): 7zz's "Cannot open the file as archive" and E_INVALIDARG block
 * on stderr, why on a line of fz7's own. Returns 2. */
int fz7_print_open_refused(FILE *out, const char *path, const char *why);

/* With -v: when path.001 exists, 7-Zip's "Updating for multivolume archives
 * is not implemented" on out and E_NOTIMPL on stderr, and exit code 2;
 * else 0 (a volume set is never rewritten). */
int fz7_refuse_volume_set(FILE *out, const char *path);

/* 7-Zip's stop for an archive it will not overwrite: on out, after the
 * scan, "Error: The file already exists" with path and errno; on stderr
 * "System ERROR:". Returns exit code 2. */
int fz7_print_exists(FILE *out, const char *path);

/* fz7_temp_commit for a volume set: the complete temporary archive is cut
 * into path.001, path.002, ... of sizes[k] bytes (the last size repeats;
 * the last volume holds the rest), each a new file (an existing one is
 * EEXIST) fsynced before the temporary file is removed, so the volumes
 * joined are the archive byte for byte. On failure or a signal the
 * volumes made so far are removed too. *size gets the archive size,
 * *n_volumes the count. FZ7_E_IO with *err = errno on failure. */
fz7_status fz7_temp_commit_volumes(int fd, const char *path, const uint64_t *sizes,
                                   size_t n_sizes, uint64_t *size, size_t *n_volumes, int *err);

/* fz7_temp_commit for an archive that must be new (-u...!name): path is
 * never replaced; a file that appeared there meanwhile (or an earlier
 * archive of this run of the same name) fails it with *err = EEXIST. */
fz7_status fz7_temp_commit_new(int fd, const char *path, uint64_t *size, int *err);

/* Closes fd (when >= 0) and removes the temporary file. */
void fz7_temp_drop(int fd);

/* -sfx{name}: loads the self-extractor module put before a 7z archive.
 * name ("" for 7zCon.sfx) is looked for beside the fz7 binary, then, when
 * it has no '/', in the current folder ("./name"). 0 with *stub (malloc'd,
 * *len bytes, at most 64 MiB) and shown (the path as 7-Zip prints it); on
 * failure prints 7-Zip's "cannot find specified SFX module" error (out,
 * then stderr) and returns FZ7_EXIT_FATAL. */
int fz7_sfx_load(const char *name, FILE *out, uint8_t **stub, size_t *len, char *shown, size_t cap);

/* The bytes that stand before the archive old in path (a self-extractor's
 * stub, or anything else: 7zz keeps them when it rewrites the archive;
 * the 7z reader looks at most 16 MiB in), into *lead (malloc'd) and their
 * count into *lead_len (0 and *lead untouched when there are none). 0, or
 * the exit code after printing the error on stderr. */
int fz7_lead_load(const char *path, const fz7_archive *old, uint8_t **lead, size_t *lead_len);

/* Puts len bytes of stub before the archive in the temporary file fd,
 * moving its bytes up in place (from the end, so nothing is overwritten
 * before it is copied); the offset is left at the end. FZ7_E_IO with *err
 * = errno. */
fz7_status fz7_temp_prepend(int fd, const uint8_t *stub, size_t len, int *err);


/* 7-Zip's "System ERROR: E_INVALIDARG" block on stderr, then
 * "  (in PATH: WHY)" when why is not NULL; returns FZ7_EXIT_FATAL. */
int fz7_invalid_arg(const char *path, const char *why);

/* The same with 7-Zip's "E_NOTIMPL : Not implemented". */
int fz7_not_implemented(const char *path, const char *why);

/* The tar or zip header of item it: its kind's S_IFMT bits, its size (0
 * for a folder or a symbolic link, whose target is link_target), mtime;
 * the owner's ids with o's -snoi, names with -snon (the names live until
 * the next call). */
fz7_la_entry fz7_la_entry_of_item(const fz7_tree_item *it, const struct fz7_options *o);

/* The scan named two different files alike (t->dup_name): 7zz's
 * "Duplicate filename on disk" after the Creating/Updating line, nothing
 * written. FZ7_EXIT_FATAL then, else 0. */
int fz7_refuse_duplicate(FILE *out, const fz7_tree *t);

/* Whether the file on disk that is to replace an archive entry cannot be
 * opened (chmod 000 since last night): then a and u keep the old entry,
 * the last copy there is, and warn about the file as 7zz does (7zz drops
 * the entry). False for other kinds and with -sse (the command stops). */
bool fz7_replacement_unreadable(const struct fz7_options *o, const fz7_tree_item *it);

#endif
