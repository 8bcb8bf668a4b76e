/* options.h - the parsed command line: one struct every command reads.
 *
 * The grammar is 7-Zip's: `fz7 <command> [<switches>...] <archive> [<names>...]`,
 * switches anywhere after the command, `--` ends switches. */
#ifndef FZ7_OPTIONS_H
#define FZ7_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fz7_command {
    FZ7_CMD_NONE = 0,
    FZ7_CMD_ADD,        /* a */
    FZ7_CMD_EXTRACT,    /* x: full paths */
    FZ7_CMD_EXTRACT_FLAT, /* e: every entry into the output folder itself */
    FZ7_CMD_LIST,       /* l */
    FZ7_CMD_TEST,       /* t */
    FZ7_CMD_BENCH,      /* b */
    FZ7_CMD_UPDATE,     /* u: add new and newer files, keep the rest */
    FZ7_CMD_DELETE,     /* d: delete the selected entries */
    FZ7_CMD_RENAME,     /* rn: names after the archive are old/new pairs */
    FZ7_CMD_VERSION,    /* --version: the version block alone */
    FZ7_CMD_HELP,       /* -h, --help, -?: banner and usage, as 7-Zip */
    FZ7_CMD_HASH,       /* h: hashes of files (-scrc{method}) */
    FZ7_CMD_INFO,       /* i: formats, codecs and hashers */
} fz7_command;

/* What to do when an extracted file already exists (-ao...). */
typedef enum fz7_overwrite {
    FZ7_OVERWRITE_ASK = 0,   /* ask on the terminal (default without -y) */
    FZ7_OVERWRITE_ALL,       /* -aoa, or -y */
    FZ7_OVERWRITE_SKIP,      /* -aos */
    FZ7_OVERWRITE_RENAME_NEW, /* -aou: extract as name_1.ext */
    FZ7_OVERWRITE_RENAME_OLD, /* -aot: rename the existing file to name_1.ext */
} fz7_overwrite;

/* -t{type}: the archive type to create (a) or to require (x/e/l/t).
 * OTHER: a type 7-Zip knows that fz7 does not write (type_name says
 * which); UNKNOWN: a name 7-Zip does not know ("Unsupported archive
 * type", exit 2, once the command runs). */
typedef enum fz7_type {
    FZ7_TYPE_AUTO = 0, FZ7_TYPE_7Z, FZ7_TYPE_XZ, FZ7_TYPE_LZMA, FZ7_TYPE_TAR, FZ7_TYPE_ZIP,
    FZ7_TYPE_GZIP, FZ7_TYPE_BZIP2, FZ7_TYPE_OTHER, FZ7_TYPE_UNKNOWN
} fz7_type;

/* A wildcard of the selection: a name after the archive, -i!, -x!, or a
 * line of an @listfile. recursive: match at any depth (-r, -ir!, -xr!). */
typedef struct fz7_wildcard {
    char *pattern;      /* as given, '/'-separated */
    bool recursive;
    bool literal;       /* w-: '*' and '?' are plain characters */
    uint8_t mark;       /* m: 1, a trailing '/' selects folders only and none
                           files only; m2: 2, either; 0 (m-): the '/' is dropped */
} fz7_wildcard;

/* Tri-state switch value: not given, off, on. */
typedef enum fz7_tristate { FZ7_UNSET = -1, FZ7_OFF = 0, FZ7_ON = 1 } fz7_tristate;

struct fz7_options {
    fz7_command command;
    const char *archive;       /* archive path (argv storage); NULL only for --version and -h */

    /* Selection. names: the file names after the archive plus the lines of
     * @listfiles and every -i! wildcard (for `a`: the files to add);
     * excludes: -x! wildcards and lines of -x@ files. */
    fz7_wildcard *names;
    size_t n_names;
    fz7_wildcard *excludes;
    size_t n_excludes;
    fz7_tristate recurse;      /* -r (on), -r- (off), not given */
    /* Archives (x/e/t/l): archive_names, the -ai wildcards and lines of -ai@
     * files; archive_excludes, -ax's. With -an the name after the command is
     * a file name and archive is NULL. */
    fz7_wildcard *archive_names;
    size_t n_archive_names;
    fz7_wildcard *archive_excludes;
    size_t n_archive_excludes;
    bool no_archive_name;      /* -an */
    bool case_sensitive;       /* -ssc (default on Linux) / -ssc- */

    /* Extraction. */
    const char *out_dir;       /* -o{dir}; NULL = current directory */
    fz7_overwrite overwrite;   /* -ao{a|s|u|t}; -y makes ASK into ALL */
    bool yes;                  /* -y: assume Yes on every query */
    bool eliminate_root;       /* -spe: x into a folder named as the archive's
                                  one root folder drops that folder */

    /* Password: -p{pw} sets password; -p alone sets ask_password;
     * --password-file=FILE reads it from the first line of FILE ("-":
     * stdin), which keeps it out of the process list. The last of -p /
     * --password-file wins. */
    const char *password;      /* UTF-8, argv storage or password_buf; never printed */
    bool ask_password;
    const char *password_file; /* --password-file=FILE, or NULL */
    char *password_buf;        /* the line read for it (wiped and freed by
                                  fz7_options_free) */

    /* Listing and output. */
    bool slt;                  /* -slt: technical listing */
    bool ba;                   /* -ba: no banner or headers (l: entries only) */
    int bb;                    /* -bb[0-3]: log level (0 default; -bb = 1) */
    int bsp;                   /* -bsp{0|1}: progress stream; -1 default */
    bool bt;                   /* -bt: the "Kernel Time = ..." block at the end */
    const char *bso, *bse;     /* -bso{N}/-bse{N}: "0" "1" "2" or ""; NULL when not given */

    /* Archive type. */
    fz7_type type;             /* -t{7z|xz|lzma|tar|zip|gzip|bzip2|...} */
    const char *type_name;     /* 7-Zip's spelling of the -t type, or NULL */
    const char **excluded_types; /* -stx{Type}: names as given, opened as no archive */
    size_t n_excluded_types;
    char name_mode;            /* -sa{a|e|s}: 'a' always add the type's
                                  extension, 'e' the name exactly, 's' (or 0)
                                  add it to a name without one */

    /* Compression (for `a`). methods keeps, in command-line order, every -m
     * switch not given a field of its own, without the leading "-m":
     * "0=LZMA2:d=64m:fb=64", "1=BCJ", "d=32m", "fb=273", "yx=9", "qs",
     * ... The fields below are -1/FZ7_UNSET when the switch was not given. */
    char **methods;
    size_t n_methods;
    int level;                 /* -mx{N} 0..9; -mx alone = 9 */
    int threads;               /* -mmt{N} 1..256 (-mmt0 = 1, as 7-Zip; more
                                  than 256 = 256); -mmt/-mmt=on = 0 (all
                                  cores); -mmt=off/-mmt- = 1; -1 not given */
    bool recurse_wildcards_only;  /* -r0: only names with a wildcard recurse */
    fz7_tristate header_encrypt;  /* -mhe[=on|off] */
    fz7_tristate header_compress; /* -mhc[=on|off] */
    const char *bad_method;    /* the first -mx/-mmt/-mhe/-mhc/-mmemuse whose
                                * value 7zz refuses: a and u refuse it after
                                * "Creating archive:" (fz7_settings_make),
                                * d, rn, x, e, t, l as they open the archive,
                                * the other commands at once */
    const char *solid;         /* -ms[=...]: the text after "-ms" and an
                                  optional '=' ("on", "off", "e", "4g", "10f",
                                  "" for -ms alone = on); NULL not given */
    const char *filters;       /* -mf[=...]: "on", "off", "BCJ", ...; "" for
                                  -mf alone = on; NULL not given */
    uint64_t memuse_bytes;     /* -mmemuse={N}[b|k|m|g]: bytes; 0 not given */
    unsigned memuse_percent;   /* -mmemuse=p{N} or {N}%: percent of RAM */

    /* Files. */
    int full_paths;            /* -spf: 1 paths as given (absolute kept);
                                  -spf2: 2, absolute without the '/'; 0 */
    bool store_symlinks;       /* -snl: store symlinks as links */
    bool store_hardlinks;      /* -snh: store hard links as links (tar) */
    bool store_owner_id;       /* -snoi: a tar's uid/gid from disk; x: restore them */
    bool store_owner_name;     /* -snon: a tar's user and group names from disk */
    bool allow_dangerous_links; /* -snld: extract symlinks climbing with leading ".." */
    bool to_stdout;            /* -so: write data to stdout */
    bool from_stdin;           /* -si[{name}]: read data from stdin */
    const char *stdin_name;    /* -si{name}, or NULL */
    bool delete_after;         /* -sdel: delete files after adding */
    bool stop_on_open_error;   /* -sse: an input that cannot be opened ends a/u (exit 2) */
    bool email;                /* -seml: nothing to send it with (7zz on Linux), but a/u/d/rn
                                  refuse it beside -so */
    bool nt_streams;           /* -sns or -sni: Windows's NTFS streams or security, which
                                  a/u/d/rn refuse (E_NOTIMPL) as 7zz does on Linux */
    bool stamp_newest;         /* -stl: the archive gets the newest added item's mtime */
    bool no_wildcards;         /* -spd: '*' and '?' in names are plain characters */
    bool no_atime;             /* -ssp: inputs read without updating their access time */
    const char *affinity;      /* -stm: the hex mask as given (bit n: CPU n), or NULL */
    const char **hashes;       /* -scrc{method} for h, in order given ("*" all);
                                  n_hashes 0: CRC32 */
    size_t n_hashes;
    const char *work_dir;      /* -w{dir}; "" for -w alone (temp folder) */
    const char *sfx;           /* -sfx{module}; "" for -sfx alone; NULL: none */

    /* Update rules: the text after each -u, in order ("p0q0r2", "-",
     * "q0!new.7z"); read by a/u/d/rn (update_rules.h), which say what is
     * wrong with one as 7-Zip does, once the banner is out. */
    const char **update_rules;
    size_t n_update_rules;
    /* Volume sizes: the text after each -v ("10m", "1000"), in order;
     * archive_out.h reads them (fz7_volume_sizes). */
    const char **volume_sizes;
    size_t n_volume_sizes;
};

/* Parses argv (argv[0] is the program) into *o. On bad usage returns 7
 * and writes 7-Zip's two message lines ("Unknown switch:", "-zz") to
 * err_kind and err_arg; returns 2 when an @listfile cannot be read (message
 * in err_kind/err_arg too); 0 on success. o keeps pointers into argv;
 * free with fz7_options_free(). */
int fz7_options_parse(int argc, char **argv, struct fz7_options *o, char *err_kind,
                      size_t kind_len, char *err_arg, size_t arg_len);

/* Whether a name given without its own r modifier recurses: -r, and -r0
 * for a name with a wildcard ('*' or '?'; none when literal, w-). */
bool fz7_options_name_recursive(const struct fz7_options *o, const char *pattern, bool literal);

/* Frees what fz7_options_parse allocated. */
void fz7_options_free(struct fz7_options *o);

#endif
