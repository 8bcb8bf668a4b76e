/* file_io.h - reading archive files: an istream over a byte range of a file
 * descriptor (pread, so several may read one file at once). */
#ifndef FZ7_FILE_IO_H
#define FZ7_FILE_IO_H

#include "fz7_common.h"

/* An istream over bytes [offset, offset + length) of fd, buffered. Reading
 * past the end of the file gives FZ7_E_TRUNCATED; EOF at offset + length.
 * Does not close fd. NULL on allocation failure. */
fz7_istream *fz7_fd_istream_new(int fd, uint64_t offset, uint64_t length);

/* Bytes of the range read so far through the stream. */
uint64_t fz7_fd_istream_pos(const fz7_istream *s);

/* Reads exactly n bytes at offset; FZ7_E_TRUNCATED at end of file,
 * FZ7_E_IO on error. */
fz7_status fz7_pread_full(int fd, void *buf, size_t n, uint64_t offset);

#endif
