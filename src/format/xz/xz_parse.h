/* xz_parse.h - the .xz parsing both readers share: the seekable one
 * (xz_read.c) fetches bytes by offset, the pipe one (xz_stream.c) in file
 * order, but block headers, filter chains, checks and index fields are
 * parsed here once (xz-file-format.txt 3.1, 3.4, 4, 5). */
#ifndef FZ7_XZ_PARSE_H
#define FZ7_XZ_PARSE_H

#include "check/check.h"
#include "fz7_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ7_XZ_STREAM_HEADER_BYTES 12
#define FZ7_XZ_STREAM_FOOTER_BYTES 12
#define FZ7_XZ_VLI_MAX (UINT64_MAX / 2)      /* 2^63 - 1 (section 1.2) */
#define FZ7_XZ_BLOCK_HEADER_MAX 1024         /* (255 + 1) * 4 bytes (3.1.1) */

enum { FZ7_XZ_CHECK_NONE = 0, FZ7_XZ_CHECK_CRC32 = 1, FZ7_XZ_CHECK_CRC64 = 4,
       FZ7_XZ_CHECK_SHA256 = 10 };
enum { FZ7_XZ_FILTER_DELTA = 0x03, FZ7_XZ_FILTER_X86 = 0x04, FZ7_XZ_FILTER_PPC = 0x05,
       FZ7_XZ_FILTER_IA64 = 0x06, FZ7_XZ_FILTER_ARM = 0x07, FZ7_XZ_FILTER_ARMT = 0x08,
       FZ7_XZ_FILTER_SPARC = 0x09, FZ7_XZ_FILTER_ARM64 = 0x0A, FZ7_XZ_FILTER_RISCV = 0x0B,
       FZ7_XZ_FILTER_LZMA2 = 0x21 };

/* Formats a one-line message into buf (len bytes, NUL-terminated; nothing
 * when len is 0). */
void fz7_xz_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Bytes of the check field for a check ID 0..15 (section 2.1.1.2). */
unsigned fz7_xz_check_size(unsigned id);

/* True for the check IDs fz7 computes: None, CRC32, CRC64, SHA-256. */
bool fz7_xz_check_supported(unsigned id);

/* ---- Block header (section 3.1) ---------------------------------------- */

typedef struct fz7_xz_block_header {
    unsigned header_size;    /* bytes, CRC32 included */
    uint64_t compressed;     /* UINT64_MAX when absent */
    uint64_t uncompressed;   /* UINT64_MAX when absent */
    unsigned nfilters;       /* 1..4, the last one LZMA2 */
    uint64_t id[4];          /* filter IDs, FZ7_XZ_FILTER_* */
    uint32_t prop[4];        /* Delta: distance; BCJ: start offset */
    bool has_start[4];       /* BCJ with the 4-byte start offset property */
    uint8_t lzma2_prop;      /* dictionary size byte, 0..40 */
    bool reserved_set;       /* refused for a reserved flag bit or non-zero padding */
} fz7_xz_block_header;

/* Parses the block header h of header_size bytes (a multiple of 4 from 8 to
 * FZ7_XZ_BLOCK_HEADER_MAX, CRC32 included) into *bh: its sizes and its
 * filter flags (5.1), allowing Delta and the BCJ filters (5.3) before one
 * LZMA2. Returns FZ7_OK, FZ7_E_DATA (corrupt: CRC, sizes, cut filter
 * flags) or FZ7_E_UNSUPPORTED (reserved bits, unknown filter or
 * properties); detail (dlen bytes) then gets a one-line reason. */
fz7_status fz7_xz_block_header_parse(const uint8_t *h, size_t header_size,
                                     fz7_xz_block_header *bh, char *detail, size_t dlen);

/* Opens the decoding chain of a block over its compressed data `packed`:
 * LZMA2, then the other filters from the last to the first (section 5).
 * unpack_size: the size to bound the dictionary by (UINT64_MAX: the full
 * declared dictionary, which the memory limit then applies to). stages[4]
 * must be NULL on entry and are freed by the caller, highest first, also
 * on failure; *top is the stage to read from. Returns FZ7_OK,
 * FZ7_E_MEMLIMIT, FZ7_E_MEM or the filter constructors' errors. */
fz7_status fz7_xz_open_chain(const fz7_xz_block_header *bh, fz7_istream *packed,
                             uint64_t unpack_size, uint64_t mem_limit, fz7_istream *stages[4],
                             fz7_istream **top);

/* ---- Block check (section 3.4) ---------------------------------------- */

typedef struct fz7_xz_check {
    unsigned id;
    uint32_t crc32;
    uint64_t crc64;
    fz7_sha256 sha;
} fz7_xz_check;

/* Starts the check of ID id over a block's uncompressed data. */
void fz7_xz_check_init(fz7_xz_check *c, unsigned id);

/* Adds n bytes at p. */
void fz7_xz_check_update(fz7_xz_check *c, const uint8_t *p, size_t n);

/* Compares the stored check (fz7_xz_check_size(id) bytes) with the one
 * computed: FZ7_OK or FZ7_E_CRC with a reason in detail. */
fz7_status fz7_xz_check_verify(fz7_xz_check *c, const uint8_t *stored, char *detail,
                               size_t dlen);

/* ---- Index (section 4) -------------------------------------------------- */

/* Reads index fields from `in` and keeps the CRC32 and size of every byte
 * taken, for the index padding (4.4) and CRC32 (4.5). */
typedef struct fz7_xz_index_reader {
    fz7_istream *in;
    uint32_t crc;            /* CRC32 of the index bytes so far */
    uint64_t size;           /* index bytes so far */
} fz7_xz_index_reader;

/* Counts bytes of the index the caller read itself (the index indicator
 * 0x00 when it had to be read to tell the index from a block). */
void fz7_xz_index_took(fz7_xz_index_reader *r, const uint8_t *p, size_t n);

/* One byte: FZ7_OK or the read error (FZ7_E_TRUNCATED at the end of in). */
fz7_status fz7_xz_index_byte(fz7_xz_index_reader *r, uint8_t *b);

/* One VLI (section 1.2): FZ7_OK, FZ7_E_DATA when it is over 9 bytes or
 * not minimal, or the read error. */
fz7_status fz7_xz_index_vli(fz7_xz_index_reader *r, uint64_t *out);

/* The index padding: bytes up to a multiple of 4 index bytes. FZ7_OK,
 * FZ7_E_DATA when one is not zero, or the read error. */
fz7_status fz7_xz_index_padding(fz7_xz_index_reader *r);

/* Reads the stored CRC32 (4 bytes, not counted in size) and compares it:
 * FZ7_OK, FZ7_E_CRC on a mismatch, or the read error. */
fz7_status fz7_xz_index_crc(fz7_xz_index_reader *r);

#endif
