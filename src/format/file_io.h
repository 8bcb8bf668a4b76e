/* file_io.h - reading archive files: an istream over a byte range of a file
 * descriptor (pread, so several may read one file at once), and a volume
 * set that reads name.7z.001, .002, ... as one byte space. */
#ifndef FZ7_FILE_IO_H
#define FZ7_FILE_IO_H

#include "fz7_common.h"

#include <stdbool.h>

/* An istream over bytes [offset, offset + length) of fd, buffered. Reading
 * past the end of the file gives FZ7_E_TRUNCATED; EOF at offset + length.
 * Does not close fd. NULL on allocation failure. */
fz7_istream *fz7_fd_istream_new(int fd, uint64_t offset, uint64_t length);

/* Bytes of the range read so far through the stream. */
uint64_t fz7_fd_istream_pos(const fz7_istream *s);

/* Reads exactly n bytes at offset; FZ7_E_TRUNCATED at end of file,
 * FZ7_E_IO on error. */
fz7_status fz7_pread_full(int fd, void *buf, size_t n, uint64_t offset);

/* The bytes of an archive: one file, or the volumes of a split archive
 * (name.001, name.002, ... as `7zz a -v` makes them) read in order as one
 * byte space. The first 16 volumes stay open until fz7_volumes_close, a
 * later one is opened for each read; reads are pread calls, so several
 * readers may share one set. */
typedef struct fz7_volumes fz7_volumes;

/* Opens path. When its name ends in a run of digits whose value is 1
 * ("x.7z.001", "x.zip.01"), the following numbers of the same width are
 * opened too while they exist (the first absent one ends the set).
 * FZ7_E_IO with "Cannot open the file: ..." in err when path itself
 * cannot be opened or is not a regular file; a later volume that exists
 * but cannot be opened is FZ7_E_IO too. FZ7_E_MEM. */
fz7_status fz7_volumes_open(const char *path, fz7_volumes **out, char *err, size_t errlen);

/* True when path names a first volume ("x.7z.001", "x.zip.01"): the name
 * fz7_volumes_open reads as a volume set. */
bool fz7_volumes_is_first_name(const char *path);

/* Opens the n files at paths (n >= 1) as one byte space in that order:
 * the disks of a zip split across files (x.z01, x.z02, ..., x.zip). A
 * missing disk but the last is a hole as long as the longest other disk
 * but the last (a split's size), where reads fail with FZ7_E_TRUNCATED;
 * fz7_volumes_missing names the first. FZ7_E_TRUNCATED with "Missing
 * volume: <path>" in err when the last is missing, FZ7_E_IO when one
 * cannot be opened, FZ7_E_MEM. */
fz7_status fz7_volumes_open_disks(const char *const *paths, size_t n, fz7_volumes **out, char *err,
                                  size_t errlen);

/* True when v was opened by fz7_volumes_open_disks: volume i is disk i. */
bool fz7_volumes_are_disks(const fz7_volumes *v);

/* Bytes of the byte space before its first missing disk (all of them
 * when none is missing). */
uint64_t fz7_volumes_present(const fz7_volumes *v);

/* Disks missing (holes). */
size_t fz7_volumes_missing_count(const fz7_volumes *v);

/* Bytes of the holes that missing disks leave. */
uint64_t fz7_volumes_missing_bytes(const fz7_volumes *v);

/* Where volume i (< fz7_volumes_count) begins in the byte space. */
uint64_t fz7_volumes_start(const fz7_volumes *v, size_t i);

/* A byte space that is bytes [offset, offset + length) of parent (an ar
 * member, which is stored in one piece), for opening the archive inside
 * it; parent must outlive *out, which fz7_volumes_close frees (parent's
 * files stay open). It has no descriptor of its own: first_fd gives -1.
 * FZ7_E_ARG when the range passes parent's end, FZ7_E_MEM. */
fz7_status fz7_volumes_window(const fz7_volumes *parent, uint64_t offset, uint64_t length,
                              fz7_volumes **out);

/* A block offset that stands for a block of zeros, not stored in parent
 * (a sparse virtual disk's unallocated block). */
#define FZ7_BLOCK_ZEROS UINT64_MAX

/* A byte space of length bytes made of n blocks of 2^bits bytes of
 * parent, block i at parent offset blocks[i] (copied; FZ7_BLOCK_ZEROS:
 * zeros): a stream stored in scattered sectors (a Compound file's, a
 * virtual disk's), for opening the archive inside it. As
 * fz7_volumes_window otherwise; FZ7_E_ARG when n does not fit length, or
 * a block passes parent's end (past_end: allowed, reads there give
 * FZ7_E_TRUNCATED, as in a virtual disk cut short). */
fz7_status fz7_volumes_blocks(const fz7_volumes *parent, const uint64_t *blocks, size_t n, unsigned bits,
                              uint64_t length, bool past_end, fz7_volumes **out);

/* Reads bytes [in, in + n) of block i of a fz7_volumes_blocks window
 * whose offset has FZ7_BLOCK_CODED set (n stays in the block), from
 * state ctx (a virtual disk's compressed cluster). Its own errors. */
typedef fz7_status (*fz7_block_reader)(void *ctx, uint64_t i, uint64_t in, uint8_t *buf, size_t n);

/* A block offset flag: the block is not parent's bytes but decoded by
 * the window's fz7_block_reader (below 2^62: offsets never reach it). */
#define FZ7_BLOCK_CODED ((uint64_t)1 << 62)

/* Makes v (from fz7_volumes_blocks) read its FZ7_BLOCK_CODED blocks
 * through fn with ctx, which must outlive v. */
void fz7_volumes_block_reader(fz7_volumes *v, fz7_block_reader fn, void *ctx);

/* True for a window made by fz7_volumes_window. */
bool fz7_volumes_is_window(const fz7_volumes *v);

/* Closes every volume and frees v (NULL is allowed). */
void fz7_volumes_close(fz7_volumes *v);

/* Bytes of all volumes together. */
uint64_t fz7_volumes_size(const fz7_volumes *v);

/* Volumes opened (1 for a plain file). */
size_t fz7_volumes_count(const fz7_volumes *v);

/* The descriptor of the first volume (the whole file when count is 1), or
 * -1 for a window. */
int fz7_volumes_first_fd(const fz7_volumes *v);

/* True when the name was a first volume ("x.7z.001"), even if no second
 * volume was found. */
bool fz7_volumes_is_split(const fz7_volumes *v);

/* When the bytes end early, whether a missing next volume explains it: the
 * set is split and its last volume is as large as the first (volumes all
 * have one size but the last). Then *name (owned by v) is the absent
 * volume's path, "x.7z.003". */
bool fz7_volumes_missing(const fz7_volumes *v, const char **name);

/* Reads exactly n bytes at offset of the byte space, across volume
 * boundaries; FZ7_E_TRUNCATED past the end, FZ7_E_IO on a read error. */
fz7_status fz7_volumes_pread(const fz7_volumes *v, void *buf, size_t n, uint64_t offset);

/* An istream over bytes [offset, offset + length) of the byte space, like
 * fz7_fd_istream_new (FZ7_E_TRUNCATED past the end, EOF at offset +
 * length). v must outlive it. NULL on allocation failure. */
fz7_istream *fz7_volumes_istream_new(const fz7_volumes *v, uint64_t offset, uint64_t length);

#endif
