/* cli.h - helpers shared by the commands that read archives (l, t, x, e):
 * wildcard selection, terminal questions, opening with a password, and
 * the 7-Zip-style archive block and messages. */
#ifndef FZ7_CLI_H
#define FZ7_CLI_H

#include "cli/commands.h"
#include "cli/options.h"
#include "crypto/aes7z.h"
#include "format/archive.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes, as 7-Zip's. */
enum {
    FZ7_EXIT_OK = 0,
    FZ7_EXIT_WARNING = 1,
    FZ7_EXIT_FATAL = 2,
    FZ7_EXIT_USAGE = 7,
    FZ7_EXIT_MEMORY = 8,
    FZ7_EXIT_BREAK = 255,  /* the user stopped (or gave no answer) */
};

/* open(path, O_RDONLY) for an input to archive; with -ssp (no_atime)
 * without updating its access time where the kernel allows it (O_NOATIME
 * needs the file's owner: others are opened as usual). */
int fz7_open_input(const char *path, bool no_atime);

/* Reads from fd into buf until cap bytes or the end of the input: a pipe
 * gives a few KiB a call, and each write to a coder wakes its threads.
 * Returns the bytes read (fewer than cap only at the end or before an
 * error, which the next call returns), 0 at the end, -1 with errno. */
ssize_t fz7_read_fill(int fd, void *buf, size_t cap);

/* True when path (an archive path) matches pattern by 7-Zip's rules:
 * components are compared one to one ('*' and '?' never cross '/'); a
 * pattern matching the leading components selects everything below them;
 * in a recursive pattern the last component may match at any depth below
 * the ones before it, which match from the top. */
bool fz7_wildcard_match(const char *pattern, const char *path, bool recursive,
                        bool case_sensitive);

/* True when w selects path (an entry's, or a file's for -ai/-ax): as
 * fz7_wildcard_match, by bytes with w-, and with m only a folder for a
 * pattern ending in '/' and only a file for one without. */
bool fz7_wildcard_selects(const fz7_wildcard *w, const char *path, bool is_dir,
                          bool case_sensitive);

/* True when the entry path (is_dir: a folder) is selected by o's names (all
 * when none) and not excluded by o's excludes. */
bool fz7_selected_item(const struct fz7_options *o, const char *path, bool is_dir);

/* fz7_selected_item for an entry that is not a folder. */
bool fz7_selected(const struct fz7_options *o, const char *path);

/* True when one of o's -x! patterns matches the entry at path (is_dir: a
 * folder's), whatever the names: rn renames no excluded entry, as 7zz. */
bool fz7_excluded_item(const struct fz7_options *o, const char *path, bool is_dir);

/* The archives x/e/t/l run on, sorted by path as 7-Zip runs them. */
typedef struct fz7_archive_list {
    char **paths;
    size_t n, cap;
    size_t folders;  /* folders named or matched (their files are in paths) */
    uint64_t bytes;  /* their sizes together */
} fz7_archive_list;

/* With -si: the one archive "" (stdin). Else prints "Scanning the drive
 * for archives:" and finds the archives: the
 * name after the command (a wildcard there matches files of its folder)
 * and the -ai wildcards, less -ax's. Then prints "N files, B bytes" and
 * returns 0, or prints 7-Zip's error (a name that is not there; none found:
 * "Cannot find archive", exit 7; one archive twice) and returns the exit
 * code. Free *l with fz7_archive_list_free. */
int fz7_find_archives(const struct fz7_options *o, FILE *out, fz7_archive_list *l);

void fz7_archive_list_free(fz7_archive_list *l);

/* 7-Zip's sums over the items of x/e/t -scrc (and h): per hasher, the
 * digests of the files' data added up, and the digests of name and data
 * added up over files and folders (cmd_hash.c). */
typedef struct fz7_hash_sums fz7_hash_sums;

/* The hashers -scrc names (CRC32 without a name, '*' all): 0, or exit code
 * 2 after 7-Zip's "E_NOTIMPL" for a name fz7 does not know (8: memory). */
int fz7_hash_sums_new(const struct fz7_options *o, FILE *out, fz7_hash_sums **sums);

/* A file's data in pieces between begin and end (name: its path in the
 * archive, '/'-separated). */
void fz7_hash_sums_file_begin(fz7_hash_sums *h);
void fz7_hash_sums_data(fz7_hash_sums *h, const void *p, size_t n);
void fz7_hash_sums_file_end(fz7_hash_sums *h, const char *name);

/* A folder: in the names sum only. */
void fz7_hash_sums_folder(fz7_hash_sums *h, const char *name);

/* "CRC32  for data:  ..." lines, each hasher's block ending in a blank line. */
void fz7_hash_sums_print(const fz7_hash_sums *h, FILE *out);

/* Frees h (NULL: nothing). */
void fz7_hash_sums_free(fz7_hash_sums *h);

/* False when a -stx names a type 7-Zip does not know. */
bool fz7_excluded_types_known(const struct fz7_options *o);

/* Asks for a password on the terminal with echo off, or reads the first
 * line of stdin when it is not a terminal (as 7-Zip, whose prompt then
 * goes to out). Returns a malloc'ed string, or NULL at end of input. */
char *fz7_ask_password(FILE *out);

/* A new password (a -p): typed twice on a terminal; one line of stdin
 * otherwise, as 7-Zip reads it. NULL at end of input or when the two
 * differ (*differ set). */
char *fz7_ask_new_password(FILE *out, bool *differ);
/* fz7_ask_new_password for a and u: 0 with *asked set (free it), else
 * the exit code after the message ("the two passwords differ", exit 2;
 * no answer: fz7_break_signaled()). */
int fz7_ask_new_password_or_fail(FILE *out, char **asked);

/* No answer at the end of input: 7-Zip's "Break signaled", exit 255. */
int fz7_break_signaled(void);

/* Opens path with *password (may be NULL); when the headers are encrypted
 * and no password was given, asks once (fz7_ask_password) and opens again.
 * *asked gets the typed password (free it; NULL when none was asked or at
 * end of input) and *password then points at it. Returns the open status. */
fz7_status fz7_open_asking(const char *path, const fz7_open_opts *opts, FILE *out,
                           const char **password, char **asked, fz7_archive **a, char *err,
                           size_t errlen);

/* The 7zAES key for a password (none for NULL or ""): 0, or the exit code
 * after printing why the key could not be made. */
int fz7_password_key(const char *password, fz7_7zaes_key **key);

/* The answers of the overwrite question. */
typedef enum fz7_answer {
    FZ7_ANSWER_YES, FZ7_ANSWER_NO, FZ7_ANSWER_ALWAYS, FZ7_ANSWER_SKIP_ALL,
    FZ7_ANSWER_RENAME_ALL, FZ7_ANSWER_QUIT, FZ7_ANSWER_EOF
} fz7_answer;

/* "N bytes" as 7-Zip sizes a file for people: with " (K KiB)" (rounded
 * up) below 10 MiB, " (M MiB)" from there, nothing more for 0. */
void fz7_print_bytes(FILE *out, uint64_t n);

/* Prints 7-Zip's "(Y)es / (N)o / (A)lways / (S)kip all / A(u)to rename all
 * / (Q)uit?" and reads one answer line from stdin (asked again on an
 * unknown answer). FZ7_ANSWER_EOF at end of input. */
fz7_answer fz7_ask_overwrite(FILE *out, const char *disk_path, uint64_t disk_size,
                             int64_t disk_mtime, const char *entry_path, uint64_t entry_size,
                             bool entry_has_mtime, int64_t entry_mtime);

/* Where status text goes: stdout, or nowhere (/dev/null) when data goes
 * to stdout, as 7-Zip. */
FILE *fz7_msg_stream(const struct fz7_options *o);

/* Where `l` writes its listing: standard output as it was before -bso
 * moved it (7zz's -bso moves only the banner and the archive scan), set
 * by fz7_keep_list_stream; stdout until then. */
FILE *fz7_list_stream(void);
void fz7_keep_list_stream(FILE *f);

/* -bso0: standard messages go nowhere (set once, by main). Some blocks
 * then go to standard error instead, as 7zz sends them (the scan
 * warnings). */
void fz7_set_messages_off(void);
bool fz7_messages_off(void);

/* "\nfz7 0.1.0 (x86_64) : ..." banner as 7-Zip opens every command;
 * nothing with -ba (fz7_set_bare), as 7-Zip. */
void fz7_print_banner(FILE *out);

/* -stm: restricts the process (and the threads it starts later) to the
 * CPUs of hex_mask (bit n: CPU n), and has the banner say so, as 7zz does
 * ("Set process affinity mask: ", with the error when no CPU of the mask
 * exists; the process then runs where it was allowed to). */
void fz7_set_affinity(const char *hex_mask);

/* -ba: the banner and the "Scanning the drive" lines are left out. */
void fz7_set_bare(bool bare);

/* Prints "<verb> archive: <path>" and opens path for reading (o->from_stdin:
 * stdin): uses o->password, asks for one when the headers are encrypted
 * (and, when need_data is true, when a selected entry is encrypted). An
 * archive of a -stx type is one that does not open. On failure prints the
 * error lines and returns the exit code (> 0) with *out NULL; *cant_open
 * tells a file that is no archive of a known type, or a damaged or locked
 * one, from a read or memory failure. password_out keeps a prompted
 * password (free it). */
int fz7_open_for_read(const struct fz7_options *o, const char *path, FILE *out, const char *verb,
                      bool need_data, fz7_archive **out_arc, char **password_out, bool *cant_open);

/* Opens path again with password (one asked for once the entries before
 * the first encrypted one are out): 0, or the exit code after the error. */
int fz7_reopen_with_password(const struct fz7_options *o, const char *path, FILE *out,
                             const char *password, fz7_archive **a);

/* After an archive: a password asked for (*asked, may be NULL) becomes
 * *kept when none is kept yet, for the archives after it (as 7-Zip asks
 * once); otherwise it is wiped and freed. kept NULL: only wipe *asked. */
void fz7_keep_password(char **kept, char **asked);

/* l: the "System ERROR" of an archive refused with a COM error (E_NOTIMPL,
 * E_INVALIDARG), which 7zz prints after its "Errors: 1" line; nothing
 * when there was none. */
void fz7_flush_system_error(FILE *out);

/* The summary after the one archive of a command did not open ("Can't
 * open as archive: 1" and zero counts; l: "Errors: 1"). */
void fz7_print_cant_open_summary(const struct fz7_options *o, FILE *out);

/* An entry's path for listing, selection and extraction: e->path, or for
 * an entry stored without a name, the archive's base name without its
 * extension (as 7-Zip names it). Valid after fz7_open_for_read(). */
const char *fz7_entry_path(const fz7_entry *e);

/* 7-Zip's warning for bytes after the end of an archive (tail_size). */
#define FZ7_TAIL_WARNING "There are data after the end of archive"

/* The archive-level warning 7-Zip prints in "WARNINGS:" (a tail, a
 * salvaged header), or NULL; it counts as one warning, exit code 0. */
const char *fz7_archive_warning(const fz7_archive *a);
/* fz7_archive_warning, and in *name (may be NULL) the path of the member
 * the warned archive was opened as, when 7-Zip names it before its
 * WARNINGS (an archive two levels in: a VHD's disk's FAT), else NULL. */
const char *fz7_archive_warning_in(const fz7_archive *a, const char **name);
/* The open error (info.open_error) of a or of an archive a was opened
 * inside (a VHD cut short around its disk's FAT), innermost first, or
 * NULL; *name (may be NULL) as fz7_archive_opened_as of the archive that
 * has it. */
const char *fz7_archive_open_error_in(const fz7_archive *a, const char **name);
/* The path of the member of the archive around a that a was opened as,
 * or NULL when a is the file's own. */
const char *fz7_archive_opened_as(const fz7_archive *a);

/* path names an existing file without a write bit (chmod a-w, 7-Zip's
 * read-only attribute) or a folder: a, u, d and rn leave it as it is,
 * with 7zz's "The file is read-only" (as root too) or "There is a folder
 * with the name of archive". FZ7_EXIT_FATAL then, else 0. */
int fz7_refuse_read_only(FILE *out, const char *path);

/* a, about to be updated (a, u, d, rn), is one fz7 cannot rewrite as it
 * is: bytes after its end, or a zip split across files. 7zz's open block
 * (with its warnings) and its refusal ("There is some data block after the
 * end of the archive"; "Updating for multivolume archives is not
 * implemented"), E_NOTIMPL, so the archive and what follows it stay as
 * they are. FZ7_EXIT_FATAL then, else 0 (nothing printed). */
int fz7_refuse_rewrite(FILE *out, const char *path, const fz7_archive *a);

/* For path naming a first volume ("x.7z.001") that a was opened from:
 * true, *first = that volume's bytes, *total = the bytes of all volumes.
 * False for an archive of one file. */
bool fz7_volume_set_sizes(const char *path, const fz7_archive *a, uint64_t *first,
                          uint64_t *total);

/* The "--\nPath = ...\nType = ..." block of 7-Zip (with its "WARNINGS:"
 * line and "Tail Size = " when the archive has a tail; "Open WARNING:"
 * when expected, the type its name asked for, is not NULL); for a volume
 * set (path "x.7z.001") the "Type = Split" block with its volume count and
 * total size comes first. */
void fz7_print_archive_block(FILE *out, const char *path, const fz7_archive *a, const char *expected);

/* The type path's extension names (7-Zip's word: "gzip", "7z") when a,
 * opened without -t, is of another type; else NULL. 7-Zip opens such a
 * file and warns (exit code 0). */
const char *fz7_unexpected_type(const struct fz7_options *o, const char *path, const fz7_archive *a);

/* The Type line's word for a (7-Zip's name of its format). */
const char *fz7_archive_type_name(const fz7_archive *a);

/* "YYYY-MM-DD HH:MM:SS" in local time into buf (at least 20 bytes). */
void fz7_format_time(char *buf, size_t cap, int64_t t);

/* A format's time line ("Modified = ", fz7_prop): the time with as many
 * fraction digits as the format keeps, blank when it has none. */
void fz7_print_time_prop(FILE *out, const fz7_prop *p);

/* The 7-Zip words for an entry's error ("CRC Failed", "Data Error",
 * "Unsupported Method", "Data Error in encrypted file. Wrong password?"). */
const char *fz7_entry_error_words(fz7_status st, bool encrypted);

#endif
