/* 7z_write.h - writing .7z archives (7zFormat.txt): pack streams pushed
 * folder by folder, then the header (plain or LZMA-encoded) and the
 * signature header. The caller decides which files share a folder (solid
 * block) and which coders a folder uses; see fz7_7z_plan_solid(). */
#ifndef FZ7_7Z_WRITE_H
#define FZ7_7Z_WRITE_H

#include "fz7_common.h"
#include "codec/codec.h"
#include "crypto/aes7z.h"
#include "lzma/lzma_enc.h"

#include <stdbool.h>

/* FILE_ATTRIBUTE_* bits as 7-Zip stores them on Unix. */
#define FZ7_ATTR_READONLY 0x1u
#define FZ7_ATTR_DIRECTORY 0x10u
#define FZ7_ATTR_ARCHIVE 0x20u
#define FZ7_ATTR_UNIX_EXTENSION 0x8000u  /* high 16 bits hold st_mode */

/* The kWinAttributes value 7-Zip on Linux writes for a st_mode. */
uint32_t fz7_7z_attrib_from_mode(uint32_t st_mode);

/* A time as a FILETIME (100 ns units since 1601-01-01; 0 before it), as
 * 7z and zip's NTFS field store it. */
uint64_t fz7_filetime_of(int64_t sec, uint32_t nsec);

/* The UTF-16 units the next character of a Linux name (bytes) is stored
 * as in a 7z header, as 7-Zip stores it: UTF-8 (RFC 3629) as UTF-16; a
 * byte that does not start valid UTF-8 as U+EF00 plus the byte, and so
 * each byte of a character in U+EF80..U+EFFF, so that reading the name
 * back (7z_read.c) gives the same bytes. Writes 1 to 4 units to u, moves
 * *p past the bytes taken and returns the count; 0 at the name's NUL.
 * Also the names `h` hashes, as 7-Zip hashes them. */
unsigned fz7_7z_name_units(const uint8_t **p, uint16_t u[4]);

typedef enum fz7_7z_method {
    FZ7_7Z_COPY = 0,   /* Methods.txt 00 */
    FZ7_7Z_LZMA,       /* 030101 */
    FZ7_7Z_LZMA2,      /* 21 */
    FZ7_7Z_BZIP2,      /* 040202 (libbz2) */
    FZ7_7Z_PPMD,       /* 030401 (codec/ppmd7_enc.c) */
    FZ7_7Z_DEFLATE,    /* 040108 (codec/deflate_enc.c) */
    FZ7_7Z_DEFLATE64,  /* 040109 */
    FZ7_7Z_NONE        /* no method coder: the filter (x86 BCJ, Delta or a
                          branch filter, not BCJ2) alone writes the pack
                          stream, as 7-Zip's -m0=ARM64 does */
} fz7_7z_method;

/* One coder of a chain (7-Zip's -m0=, -m1=, ...): a method with its own
 * parameters, or a filter. */
typedef enum fz7_7z_coder_kind {
    FZ7_7Z_CODER_METHOD = 0,  /* method, with lzma, bzip2_block, ... */
    FZ7_7Z_CODER_BCJ,         /* x86 BCJ (03030103) */
    FZ7_7Z_CODER_BCJ2,        /* BCJ2 (0303011B): its main stream goes on to
                                 the next coder, call, jump and rc are pack
                                 streams of their own */
    FZ7_7Z_CODER_DELTA,       /* Delta (03), delta_distance */
    FZ7_7Z_CODER_BRANCH       /* another CPU's branch filter, branch_id */
} fz7_7z_coder_kind;

typedef struct fz7_7z_coder_opts {
    fz7_7z_coder_kind kind;
    fz7_7z_method method;     /* FZ7_7Z_CODER_METHOD: not FZ7_7Z_NONE */
    fz7_lzma_enc_opts lzma;   /* LZMA/LZMA2 */
    int bzip2_block;          /* BZip2: block size in 100 kB, 1..9 */
    fz7_deflate_enc_opts deflate;
    unsigned ppmd_order;      /* PPMd: model order, 2..32 */
    uint32_t ppmd_mem;        /* PPMd: model memory in bytes */
    unsigned delta_distance;  /* Delta: 1..256 bytes */
    uint32_t branch_id;       /* branch filter: its method ID (see below) */
    uint32_t branch_start;    /* its start offset (ARM64, RISCV: written as
                                 4 property bytes when not 0) */
} fz7_7z_coder_opts;

/* The longest chain a folder takes. */
#define FZ7_7Z_CHAIN_MAX 16

/* A bind pair of a folder's coders as 7-Zip's -mb names them (-mbA[sN]:B):
 * out stream `stream` of coder `from` (BCJ2's: 0 main, 1 call, 2 jump, 3
 * rc) feeds the input of coder `to`; indices into fz7_7z_folder_opts.chain. */
typedef struct fz7_7z_bond {
    uint8_t from, stream, to;
} fz7_7z_bond;

/* Checks that bonds join chain[0..n) into one folder as 7zz takes it:
 * each stream a coder has, each bound once, each coder fed once, no
 * cycle, exactly one coder fed by none (the one that reads the entries;
 * the streams no bond names become pack streams). FZ7_E_ARG otherwise. */
fz7_status fz7_7z_bonds_check(const fz7_7z_coder_opts *chain, unsigned n, const fz7_7z_bond *bonds,
                              unsigned n_bonds);

/* Coders of one folder. Either chain (chain_len > 0): any linear chain,
 * chain[0] seeing the entries' bytes, each coder's (main) output the next
 * one's input, as 7-Zip builds -m0=... -m1=...; a BCJ2 in it keeps call,
 * jump and rc raw, unless it is chain[0] and bcj2_lzma_sides says they go
 * through LZMA, as 7-Zip's -mf=BCJ2 puts BCJ2 in front of a chain.
 * Or, with chain_len 0, the fields below it describe the chain:
 * [x86 BCJ or Delta ->] method, or with BCJ2 four streams as 7-Zip lays
 * them out: BCJ2's main stream through the method, its call and jump
 * streams through LZMA (1 MiB dictionary, lc0 lp2), its range-coded stream
 * as it is. Every pack stream goes through a 7zAES of its own when key is
 * set. The folder is written as 7zz writes the same chain: coders last to
 * first; the first pack stream is the one reached from the coder that
 * reads the entries by following each coder's first out stream (for a
 * chain, the last coder's output), then come the other streams no coder
 * reads, in the order of the coders that make them. */
typedef struct fz7_7z_folder_opts {
    fz7_7z_coder_opts chain[FZ7_7Z_CHAIN_MAX];
    unsigned chain_len;
    /* With n_bonds > 0 the chain's coders are joined by these bind pairs
     * instead of one after another (7-Zip's -mb; see fz7_7z_bonds_check).
     * When front is set, chain[0] is the filter put in front of the
     * coder no bond feeds (-mf=, or the automatic one) and no bond names
     * it. The bind pairs are written in reverse order, the front's after
     * the others, as 7zz writes them. */
    fz7_7z_bond bonds[FZ7_7Z_CHAIN_MAX];
    unsigned n_bonds;
    bool front;
    bool bcj2_lzma_sides;
    fz7_7z_method method;
    fz7_lzma_enc_opts lzma;   /* LZMA/LZMA2 only */
    int bzip2_block;          /* BZip2 only: block size in 100 kB, 1..9 */
    fz7_deflate_enc_opts deflate; /* Deflate/Deflate64 only: level 1..9, fb=, mc=, pass= */
    unsigned ppmd_order;      /* PPMd only: model order, 2..32 */
    uint32_t ppmd_mem;        /* PPMd only: model memory in bytes */
    bool bcj_x86;             /* x86 BCJ (03030103) in front of the method */
    bool bcj2;                /* with bcj_x86: BCJ2 (0303011B) instead of BCJ.
                                 Its main stream gets lc=4
                                 where lzma has the default lc=3 lp=0 */
    bool bcj2_raw_sides;      /* with bcj2 in front of a method: only the main
                                 stream goes through the method, call, jump
                                 and rc are stored as they are (pack streams
                                 main, call, jump, rc), as 7zz writes a chain
                                 that names BCJ2 and a method (-m0=BCJ2
                                 -m1=LZMA2); Copy too */
    uint64_t folder_bytes;    /* this folder's input bytes when known (0 =
                                 unknown): BCJ2's file size for an entry
                                 whose size is not given */
    uint32_t branch_id;       /* a branch filter in front of the method, by its
                                 7z method ID: 03030205 PPC, 03030401 IA64,
                                 03030501 ARM, 03030701 ARMT, 03030805 SPARC,
                                 0A ARM64; 0 = none; not with BCJ or Delta */
    uint32_t branch_start;    /* its start offset (ARM64, RISCV), or 0 */
    unsigned delta_distance;  /* Delta (03) in front of the method, 1..256
                                 bytes; 0 = none; not together with BCJ */
    bool filter_after;        /* x86 BCJ, Delta or the branch filter runs over
                                 the method's output rather than its input, as
                                 7zz does for a filter named after the method
                                 (-m0=LZMA2 -m1=BCJ): its coder comes before
                                 the method's in the folder. Not with BCJ2 */
    const fz7_7zaes_key *key; /* encrypt with 7zAES (06F10701); NULL = no */
    uint64_t size_hint;       /* bytes the whole input will hold (0 = unknown),
                                 for the BCJ2 side streams' dictionary; the
                                 caller fits lzma's (fz7_lzma_enc_reduce_dict) */
    uint32_t threads;         /* LZMA2 encoder threads; 0 or 1 = one solid
                                 stream, more = fz7_lzma2_enc_new_pooled on
                                 the writer's pool */
    uint64_t mt_block_size;   /* LZMA2 block bytes when threads > 1 (0 = the
                                 encoder's default, 3 x dictionary); with one
                                 thread, blocks asked for (c=) coded in turn,
                                 0 = one stream */
    uint64_t mt_mem_limit;    /* bytes this folder's multi-threaded coder and
                                 the one of the folder before (whose last
                                 blocks may still be coded while this one
                                 starts) may hold together; 0 = no overlap */
} fz7_7z_folder_opts;

/* What FilesInfo says about one entry. */
typedef struct fz7_7z_entry_meta {
    const char *name;     /* UTF-8, '/'-separated (stored as UTF-16LE) */
    uint32_t attrib;      /* see fz7_7z_attrib_from_mode */
    bool no_attrib;       /* no kWinAttributes for it (7-Zip's -mtr=off) */
    bool is_dir;
    bool is_anti;         /* an anti-item (kAnti): deletes name when the archive is
                             applied over an older one; fz7_7z_writer_add_empty only.
                             It is stored with its name and folder flag alone (no
                             times, no attributes), as 7-Zip stores them */
    bool has_mtime;
    int64_t mtime;        /* seconds since 1970-01-01 UTC */
    uint32_t mtime_nsec;
    bool has_ctime, has_atime;   /* kCTime / kATime (-mtc, -mta); 7-Zip on
                                    Linux stores st_ctime as the creation time */
    int64_t ctime, atime;        /* seconds since 1970-01-01 UTC */
    uint32_t ctime_nsec, atime_nsec;
} fz7_7z_entry_meta;

/* Header options for fz7_7z_writer_finish. */
typedef struct fz7_7z_header_opts {
    bool compress;             /* LZMA-encode the header (kEncodedHeader); -mhc.
                                  A header of one entry stays plain, as
                                  7-Zip writes it */
    const fz7_7zaes_key *key;  /* also encrypt it (-mhe; implies compress); NULL = no */
} fz7_7z_header_opts;

typedef struct fz7_7z_writer fz7_7z_writer;

/* Starts an archive on fd, which must be empty, writable and seekable
 * (the signature header is written last, at offset 0). FZ7_E_MEM, FZ7_E_IO. */
fz7_status fz7_7z_writer_new(int fd, fz7_7z_writer **out);

/* Adds an entry without data: a directory, an empty file or an anti-item
 * (kEmptyStream/kEmptyFile/kAnti). Not inside a folder. */
fz7_status fz7_7z_writer_add_empty(fz7_7z_writer *w, const fz7_7z_entry_meta *m);

/* Opens a folder (solid block); entries with data go between begin and
 * end. FZ7_E_ARG for bad coder options, FZ7_E_MEM, FZ7_E_UNSUPPORTED when
 * the encoder is missing. */
fz7_status fz7_7z_writer_begin_folder(fz7_7z_writer *w, const fz7_7z_folder_opts *o);

/* One entry's data: begin_file, any number of write calls, end_file. An
 * entry that receives no bytes becomes an empty file. The metadata strings
 * are copied. */
fz7_status fz7_7z_writer_begin_file(fz7_7z_writer *w, const fz7_7z_entry_meta *m);

/* begin_file for an entry expected to hold size bytes (0 = unknown). In a
 * BCJ2 folder a branch is converted only when its target lies inside its
 * own entry, as 7-Zip does it; without the size an entry is taken to
 * fill the rest of the folder (fz7_7z_folder_opts.folder_bytes), which is
 * exact for the last or only entry. Only the ratio depends on it. */
fz7_status fz7_7z_writer_begin_file_sized(fz7_7z_writer *w, const fz7_7z_entry_meta *m,
                                          uint64_t size);
fz7_status fz7_7z_writer_write(fz7_7z_writer *w, const uint8_t *p, size_t n);
fz7_status fz7_7z_writer_end_file(fz7_7z_writer *w);

/* Finishes the folder's coders and its pack stream. A folder that received
 * no bytes at all is dropped. */
fz7_status fz7_7z_writer_end_folder(fz7_7z_writer *w);

/* Makes FilesInfo list the entries as 7-Zip does (a, u, d, rn of 7zz):
 * those without data first (folders, then files, each by path with '/'
 * first; then anti-items: files by path, folders by path backwards so that
 * a folder's anti-items come before its own), then the others in data order. Without it entries are listed in
 * the order they were added (entry index = order of the add calls). */
void fz7_7z_writer_order_7zip(fz7_7z_writer *w);

/* Writes the header (LZMA-encoded and/or encrypted as h asks; h may be
 * NULL for a plain header) and the signature header at offset 0. Names,
 * times and attributes are aligned with kDummy as 7-Zip aligns them. Does not
 * fsync: the caller owns fd. After an error the archive is incomplete.
 * Errors: FZ7_E_IO, FZ7_E_MEM, FZ7_E_ARG (a folder is still open). */
fz7_status fz7_7z_writer_finish(fz7_7z_writer *w, const fz7_7z_header_opts *h);

/* Bytes written to fd so far (the archive size after finish). */
uint64_t fz7_7z_writer_size(const fz7_7z_writer *w);

/* Frees the writer (NULL is fine); does not close fd. */
void fz7_7z_writer_free(fz7_7z_writer *w);

/* Solid-block planning as 7-Zip does it (-ms): sizes[i] are the entries'
 * data sizes in the order they will be written, exts[i] their extensions
 * (for -ms=e; may be NULL). Writes to block_of[i] the folder index of each
 * entry and returns the number of folders. spec: NULL or "on" = solid
 * (7-Zip's limits: up to `level_block_bytes` per block), "off" = one
 * folder per file, "e" = a new folder when the extension changes, and any
 * mix of "{N}f" (files per block) and "{N}[b|k|m|g|t]" (bytes per block).
 * FZ7_E_ARG for a spec it cannot parse (n may be 0 to check a spec). */
fz7_status fz7_7z_plan_solid(const char *spec, uint64_t level_block_bytes, const uint64_t *sizes,
                             const char *const *exts, size_t n, size_t *block_of,
                             size_t *n_blocks);

/* Copies folder `folder` (0-based) of the open 7z archive src as it is: its
 * pack streams' bytes (BCJ2's four too, in their order) are written unchanged and its coders (properties,
 * 7zAES salt and IV included) described again in the header, so nothing
 * is decoded and no password is needed. metas[k] describes the folder's
 * k-th substream (n must equal the folder's substream count); sizes and
 * CRCs come from src's SubStreamsInfo. Not inside begin/end_folder.
 * FZ7_E_UNSUPPORTED when the folder cannot be copied so (more than 32
 * pack streams; a substream without a CRC): re-compress it then. FZ7_E_ARG (not a 7z archive, bad index, n differs), FZ7_E_IO or
 * FZ7_E_TRUNCATED reading src (the writer is then failed), FZ7_E_MEM.
 * 7zFormat.txt: PackInfo, Folder, SubStreamsInfo. */
struct fz7_archive;
fz7_status fz7_7z_writer_copy_folder(fz7_7z_writer *w, struct fz7_archive *src, uint64_t folder,
                                     const fz7_7z_entry_meta *metas, size_t n);

#endif
