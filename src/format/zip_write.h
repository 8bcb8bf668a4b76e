/* zip_write.h - fz7's own zip writer (APPNOTE.TXT 6.3.10), behind
 * la_write.h's fz7_la_writer for FZ7_LA_ZIP: entries laid out as 7-Zip
 * lays them out (local headers with their sizes once known, the NTFS
 * times in the central directory, Unix modes), Copy, Deflate, Deflate64,
 * BZip2, LZMA and xz through fz7's own encoders, ZipCrypto and WinZip AES
 * (AE-2, 128/192/256), zip64, and an old zip's entries copied as they are. */
#ifndef FZ7_ZIP_WRITE_H
#define FZ7_ZIP_WRITE_H

#include "format/la_write.h"

/* A zip being written: the open entry, its coder and cipher, and the
 * central directory so far. */
typedef struct fz7_zip_writer fz7_zip_writer;

/* Starts a zip written to fd at its current offset. A seekable fd gets
 * each local header rewritten with its sizes (and a file its method did
 * not shrink stored instead); a pipe gets data descriptors (bit 3), as
 * 7zz writes to stdout. Errors: FZ7_E_MEM (err unused). */
fz7_status fz7_zip_writer_new(int fd, const fz7_la_opts *o, fz7_zip_writer **out, char *err,
                              size_t errlen);

/* Starts an entry (ends the one before, adding its central record); a
 * symlink's target is written with it. Errors as fz7_zip_writer_error
 * says: FZ7_E_IO, FZ7_E_MEM, FZ7_E_ARG (a name over 65535 bytes). */
fz7_status fz7_zip_writer_begin(fz7_zip_writer *w, const fz7_la_entry *e);
/* A regular file's next n bytes of data. */
fz7_status fz7_zip_writer_write(fz7_zip_writer *w, const uint8_t *p, size_t n);

/* fz7_la_writer_copy for a zip: each entry's local header and data are
 * copied byte for byte (an encrypted one needs no password), under a new
 * name where fn gives one. */
fz7_status fz7_zip_writer_copy(fz7_zip_writer *w, fz7_la_writer *outer, const char *old_path,
                               fz7_la_copy_fn fn, void *ctx, uint64_t *kept_dirs, uint64_t *kept_files,
                               uint64_t *kept_bytes);

/* Ends the last entry and writes the central directory and end records. */
fz7_status fz7_zip_writer_finish(fz7_zip_writer *w);

/* Bytes of the zip written so far (after finish: its size). */
uint64_t fz7_zip_writer_bytes(const fz7_zip_writer *w);

/* The message of the last failure ("" when none). */
const char *fz7_zip_writer_error(const fz7_zip_writer *w);

/* Frees w (NULL: nothing); what was written stays as it is. */
void fz7_zip_writer_free(fz7_zip_writer *w);

#endif
