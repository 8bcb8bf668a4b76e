/* xz_write.h - writing .xz files (xz-file-format.txt): one stream of
 * LZMA2 blocks, optionally behind a branch filter or Delta, with the index and the
 * stream footer. One input file per stream. */
#ifndef FZ7_XZ_WRITE_H
#define FZ7_XZ_WRITE_H

#include "fz7_common.h"
#include "filter/filter.h"
#include "lzma/lzma_enc.h"

#include <stdbool.h>

/* Check IDs (xz-file-format.txt 2.1.1.2). */
typedef enum fz7_xz_check {
    FZ7_XZ_CHECK_NONE = 0x00,
    FZ7_XZ_CHECK_CRC32 = 0x01,
    FZ7_XZ_CHECK_CRC64 = 0x04,
    FZ7_XZ_CHECK_SHA256 = 0x0A
} fz7_xz_check;

typedef struct fz7_xz_opts {
    fz7_lzma_enc_opts lzma;   /* the LZMA2 encoder's options */
    fz7_xz_check check;       /* FZ7_XZ_CHECK_CRC64 is xz's default */
    bool bcj_x86;             /* x86 BCJ filter (ID 0x04) before LZMA2 */
    bool branch;              /* a branch filter for another CPU before LZMA2
                                 (IDs 0x05..0x0A; not with bcj_x86 or Delta): */
    fz7_bcj_arch branch_arch; /* its instruction set */
    unsigned delta_distance;  /* Delta filter (ID 0x03) distance 1..256; 0 = none */
    bool empty_block;         /* empty input: one empty block, as 7-Zip
                                 writes it (false: no block, as xz does) */
    uint64_t block_size;      /* uncompressed bytes per block; 0 = one block */
    uint64_t size_hint;       /* input bytes if known (shrinks the dictionary); 0 = unknown */
    uint32_t threads;         /* 0 or 1: one thread. More with block_size
                                 1 MiB..1 GiB: that many blocks compressed at
                                 once, each on a thread of its own (as xz -T);
                                 more without: fz7_lzma2_enc_new_mt inside
                                 each block */
    uint64_t mt_block_size;   /* LZMA2 block bytes for fz7_lzma2_enc_new_mt; 0 = 3 x dictionary */
} fz7_xz_opts;

typedef struct fz7_xz_writer fz7_xz_writer;

/* Starts a stream on fd and writes the stream header. When fd is seekable
 * every block header carries the compressed and uncompressed sizes
 * (xz-file-format.txt 3.1.3, 3.1.4), filled in when the block ends;
 * otherwise they are left out. FZ7_E_ARG for bad options, FZ7_E_MEM,
 * FZ7_E_IO. */
fz7_status fz7_xz_writer_new(int fd, const fz7_xz_opts *o, fz7_xz_writer **out);

/* As fz7_xz_writer_new, the stream written to dst (a zip entry's data,
 * through its cipher) as to a pipe: block headers without sizes. */
fz7_status fz7_xz_writer_new_os(fz7_ostream *dst, const fz7_xz_opts *o, fz7_xz_writer **out);

/* Compresses n bytes of input. */
fz7_status fz7_xz_writer_write(fz7_xz_writer *w, const uint8_t *p, size_t n);

/* Ends the last block, writes the index and the stream footer. Empty
 * input gives a stream without blocks, as xz writes it, or with one empty
 * block (opts.empty_block). */
fz7_status fz7_xz_writer_finish(fz7_xz_writer *w);

/* Bytes written to fd so far. */
uint64_t fz7_xz_writer_size(const fz7_xz_writer *w);

/* Frees the writer (NULL is fine); does not close fd. */
void fz7_xz_writer_free(fz7_xz_writer *w);

#endif
