/* settings.h - the compression settings of `a`, `u` and `d` in one place:
 * method, level and LZMA parameters, filters, threads, solid blocks and
 * header options read from the -m switches, and the folders new files go
 * into, so every command that compresses does it exactly as `a` does. */
#ifndef FZ7_SETTINGS_H
#define FZ7_SETTINGS_H

#include "cli/options.h"
#include "format/7z/7z_write.h"
#include "format/la_write.h"
#include "format/xz/xz_write.h"
#include "lzma/lzma_presets.h"
#include "fsio/read_tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The times FilesInfo can hold, in 7-Zip's order (kCTime, kATime, kMTime). */
enum { FZ7_TIME_C = 0, FZ7_TIME_A = 1, FZ7_TIME_M = 2, FZ7_TIME_KINDS = 3 };

struct fz7_archive;

/* What the switches ask for. Filled by fz7_settings_make(). */
typedef struct fz7_settings {
    bool xz;                  /* for an .xz archive: LZMA2 only, BCJ only when asked */
    fz7_7z_method method;     /* -m0=LZMA2|LZMA|PPMd|BZip2|Copy; Copy at -mx0 */
    fz7_lzma_enc_opts lzma;   /* the -mx preset, then -md, -mfb, -mmf, -mlc, ...
                                 and the parameters after -m0=LZMA2: */
    int level;                /* -mx, 0..9; 5 when not given */
    unsigned ppmd_order;      /* PPMd's o= (2..32), 0: by the level */
    uint32_t ppmd_mem;        /* PPMd's mem= in bytes, 0: by the level */
    int coder_level;          /* x= of -m0=METHOD:x= (0..9), -1: -mx */
    uint32_t coder_threads;   /* mt= of -m0=METHOD:mt= (0 read as 1), over
                                 -mmt as in 7zz; 0: not given */
    uint64_t lzma2_block;     /* LZMA2's block size in bytes (c=, -mc=, as
                                 7zz's): blocks cut on any thread count;
                                 0: the plan's */
    bool c_param;             /* -mc given (refused but for LZMA2) */
    bool ppmd_param;          /* o= or mem= given (refused for LZMA) */
    bool lzma_param;          /* an LZMA parameter given (refused for PPMd) */
    bool lzma_param_other;    /* one other than -md (refused for BZip2) */
    uint64_t d_bytes;         /* -md in bytes (BZip2's block size), 0: none */
    bool eos_param;           /* -meos given (LZMA's; refused for LZMA2) */
    bool d_lzma_bad;          /* -md a size LZMA cannot take (refused for LZMA) */
    int bzip2_block;          /* BZip2's d= as a block size (1..9), 0: by the level */
    fz7_deflate_enc_opts deflate; /* Deflate's fb=, mc=, pass= (-mfb, -mmc,
                                 -mpass too); 0: by the level */
    bool fb_mc_param;         /* -mfb or -mmc given: LZMA's, or Deflate's */
    bool fb_mc_bad;           /* one of them a value LZMA cannot take */
    bool pass_param;          /* pass= given (Deflate's only) */
    bool refuse_late;         /* the refusal is the coder's (a method or a
                                 known parameter's value): 7zz prints it after
                                 "Add new data to archive", not before */
    int bcj;                  /* x86 BCJ: -1 for x86 executables only (the
                                 default), 0 never (-mf=off, Delta, Copy, xz),
                                 1 every file (-mf=BCJ, -m1=BCJ) */
    bool bcj2;                /* the x86 filter is BCJ2 rather than BCJ:
                                 -mf=BCJ2, -m1=BCJ2, and by default from
                                 -mx8 as 7zz 26 does */
    unsigned delta;           /* Delta distance in bytes (-mf=Delta:N), 0 none */
    uint32_t branch_id;       /* a branch filter for other CPUs (-m0=ARM64,
                                 -mf=PPC, ...): its 7z method ID; 0 none */
    uint32_t branch_start;    /* its start offset (-m0=ARM64:4096), or 0 */
    bool bcj2_chain;          /* BCJ2 named in the chain (-m0=BCJ2), not
                                 by -mf or the level */
    bool filter_after;        /* the chain names the filter after the
                                 compressor (-m0=LZMA2 -m1=BCJ): it runs
                                 over the compressor's output, as in 7zz */
    /* A chain fz7's single-method fields cannot say (two methods or
     * filters, a gap, -mf= with a filter in the chain): chain_len > 0,
     * its coders in 7zz's order (-m0 first, gaps filled with LZMA2 at the
     * level's settings, the switches without a number for -m0 alone).
     * chain_front: the filter -mf= or the automatic one puts in front of
     * it when the folder's plan says bcj (bcj2_lzma_sides for BCJ2). */
    fz7_7z_coder_opts chain[FZ7_7Z_CHAIN_MAX];
    unsigned chain_len;
    fz7_7z_coder_opts chain_front;
    /* -mb's bind pairs (n_bonds > 0): indices into chain, in the order
     * given; they make a chain of any coders. */
    fz7_7z_bond bonds[FZ7_7Z_CHAIN_MAX];
    unsigned n_bonds;
    fz7_xz_check check;       /* xz block check (-mcrc=); CRC32
                                 by default, as 7zz writes xz */
    bool check_refused;       /* xz: -mcrc= gave a size no check has (7zz
                                 refuses it once the stream starts) */
    bool header_compress;     /* -mhc (default on) */
    const char *solid;        /* -ms spec for fz7_7z_plan_solid; "off" for Copy */
    bool store_time[FZ7_TIME_KINDS]; /* [FZ7_TIME_C/_A/_M]: -mtc, -mta, -mtm; for a
                                 new archive off, off, on as in 7-Zip */
    bool time_given[FZ7_TIME_KINDS]; /* the switch was given (fz7_settings_times_from) */
    bool no_attrib;           /* -mtr=off: no attributes stored */
    uint32_t threads;         /* -mmt: LZMA2 encoder threads (every core when
                                 not given), 1..FZ7_LZMA2_MT_THREADS_MAX */
    uint64_t mem_limit;       /* bytes the encoders' threads may use: -mmemuse,
                                 or 3/4 of RAM */
    bool sort_by_type;        /* -mqs: files sorted by extension, then path */
    bool no_atime;            /* -ssp: the header checks read inputs without
                               * updating their access time */
} fz7_settings;

/* Reads the compression switches of o into *s (xz: for an .xz archive).
 * Unknown -m parameters, a method other than LZMA2/LZMA/Copy (LZMA2 only
 * for xz), BCJ with Delta and bad LZMA parameters are refused: FZ7_E_ARG or
 * FZ7_E_UNSUPPORTED with a message for the user in why (whylen bytes).
 * 7-Zip's -m switches: Methods.txt names the coders. */
fz7_status fz7_settings_make(const struct fz7_options *o, bool xz, fz7_settings *s, char *why,
                             size_t whylen);

/* For an update of the archive old (NULL: a new one): a time kind whose
 * switch (-mtc, -mta, -mtm) was not given is stored for new and replaced
 * entries when some entry of old has it, else not, as 7-Zip does. */
void fz7_settings_times_from(fz7_settings *s, const struct fz7_archive *old);

/* Whether the header of an archive written from old (NULL: a new one) is
 * encrypted with -p's key: -mhe=on asks for it, -mhe=off not, and without
 * -mhe it stays as old's was, as in 7-Zip (an `a` or `u -p` to a -mhe=on
 * archive keeps its names hidden). */
bool fz7_settings_header_encrypted(const struct fz7_options *o, const struct fz7_archive *old);

/* Sets m's creation, access and modification times from the disk item it,
 * each present as s->store_time says. Other fields of m are left alone. */
void fz7_settings_item_times(const fz7_settings *s, const fz7_tree_item *it, fz7_7z_entry_meta *m);

/* The instruction set of the branch filter with 7z method ID id (one
 * fz7_settings_make puts in branch_id). */
fz7_bcj_arch fz7_settings_branch_arch(uint32_t id);

/* A size as 7zz's -m parameters write it: N (2^N bytes) or N with a
 * b/k/m/g suffix. False when it is not one. */
bool fz7_settings_parse_size(const char *val, uint64_t *bytes);

/* A decimal number of 32 bits, as 7zz reads a numeric parameter: false
 * for anything else (nothing, a sign, a suffix, 2^32 or more). */
bool fz7_settings_parse_u32(const char *val, uint32_t *v);

/* Deflate's fb= (fast bytes: the nice length, 0..2 taken as 3), mc=
 * (match cycles) or pass= (shortest-path parses) into d: true for one of
 * those names (name: nlen bytes), a value that is no number in *bad. 7z's
 * Deflate methods and gzip read them alike. */
bool fz7_settings_deflate_param(fz7_deflate_enc_opts *d, const char *name, size_t nlen, const char *val, bool *bad);

/* BZip2's d= (or -md) as 7zz reads it: 100 000 bytes a block step,
 * clamped to 1..9. */
int fz7_settings_bzip2_block(uint64_t bytes);

/* Reads the -m switches of a and u for a tar, zip, gzip or bzip2 archive
 * (kind) into *w as 7zz 26 takes them for that format; password and crypt
 * are the caller's. FZ7_E_ARG when 7zz refuses one or fz7's writer for the
 * format cannot do what it asks (why says which, whylen bytes),
 * FZ7_E_UNSUPPORTED for a method 7zz does not know (its E_NOTIMPL); *late:
 * 7zz refuses it after "Add new data to archive:" rather than before. */
fz7_status fz7_la_settings_make(const struct fz7_options *o, fz7_la_kind kind, fz7_la_opts *w, bool *late,
                                char *why, size_t whylen);

/* Reports a failed fz7_settings_make (st, why) on stderr and returns the
 * exit code: 8 when memory ran out, else 2 with 7-Zip's E_INVALIDARG
 * lines (a method or parameter fz7 cannot use), our reason under them. */
int fz7_settings_fail(fz7_status st, const char *why);

/* The thread plan (lzma_presets.h fz7_lzma_plan_threads) of a folder or
 * xz stream of `bytes` input bytes (0 = unknown) with s's options,
 * threads and memory cap. */
fz7_lzma_plan fz7_settings_pick_mt(const fz7_settings *s, uint64_t bytes);

/* The input size a 7z archive's dictionary is shrunk to (the size_hint
 * below), from the bytes of all its files (total) and of its largest
 * (largest): a solid block can hold them all, so total; with -ms=off each
 * file is a block of its own, so largest (as 7-Zip: 775 KiB in four files
 * of 791 KiB gets 768k, not 1 MiB). */
uint64_t fz7_settings_size_hint(const fz7_settings *s, uint64_t total, uint64_t largest);

/* Coder options of a new 7z folder: s's method, LZMA parameters and Delta,
 * x86 BCJ in front when bcj, or s's chain with chain_front in front when
 * bcj; 7zAES with key (NULL = not encrypted).
 * size_hint: the input bytes of the whole archive (the dictionary is
 * shrunk to it, the same in every folder, as 7-Zip does; 0 = unknown);
 * folder_bytes: this folder's input (0 = unknown), for the threads. */
void fz7_settings_folder_opts(const fz7_settings *s, const fz7_7zaes_key *key, uint64_t size_hint,
                              bool bcj, uint64_t folder_bytes, fz7_7z_folder_opts *fo);

/* Whether old data compressed again keeps x86 BCJ: when its old coders
 * (an fz7_entry's method text, may be NULL) had it and s allows BCJ. */
bool fz7_settings_bcj_again(const fz7_settings *s, const char *old_method);

/* One new folder of a plan: order[first .. first+count-1] go into it. */
typedef struct fz7_plan_folder {
    size_t first, count;
    uint64_t bytes;           /* the files' sizes added up */
    bool bcj;                 /* x86 executables, behind BCJ */
} fz7_plan_folder;

/* The folders new files with data go into, in write order. */
typedef struct fz7_folder_plan {
    size_t *order;            /* tree item indices, n of them */
    size_t n;
    fz7_plan_folder *folders; /* n_folders of them */
    size_t n_folders;
} fz7_folder_plan;

/* Plans the folders for the items of t that have data (files with a size,
 * and with from_stdin the one standard input item) and that take selects
 * (NULL: all), as 7-Zip groups them: other files first, then x86
 * executables (ELF, PE, Mach-O, by their headers, read from disk_path)
 * in folders of their own behind BCJ; within a group sorted by extension
 * with -mqs, and cut into solid blocks by -ms (default: 256 dictionaries,
 * 16 MiB..4 GiB). FZ7_E_ARG for a bad -ms value (message in why),
 * FZ7_E_MEM. Free with fz7_folder_plan_free(). */
fz7_status fz7_settings_plan(const fz7_settings *s, const fz7_tree *t, const bool *take,
                             bool from_stdin, fz7_folder_plan *p, char *why, size_t whylen);

/* Frees what fz7_settings_plan allocated (a zeroed plan is fine). */
void fz7_folder_plan_free(fz7_folder_plan *p);

#endif
