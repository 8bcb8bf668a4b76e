/* 7z_write_impl.h - the .7z writer's state, shared by its parts: the
 * writer and its coder chain (7z_write.c), the header writer
 * (7z_header_write.c) and the folder copier (7z_copy.c). Not for use
 * outside src/format/7z/7z_*. */
#ifndef FZ7_7Z_WRITE_IMPL_H
#define FZ7_7Z_WRITE_IMPL_H

#include "format/7z/7z_write.h"

#include "format/7z/7z_internal.h"
#include "format/fd_ostream.h"

#include "codec/codec.h"
#include "filter/bcj2.h"
#include "filter/filter.h"
#include "lzma/lzma2_mt.h"

#include <stdbool.h>
#include <stdint.h>

/* Property IDs (7zFormat.txt). */
enum {
    K_END = 0x00, K_HEADER = 0x01, K_MAIN_STREAMS_INFO = 0x04, K_FILES_INFO = 0x05,
    K_PACK_INFO = 0x06, K_UNPACK_INFO = 0x07, K_SUBSTREAMS_INFO = 0x08, K_SIZE = 0x09,
    K_CRC = 0x0A, K_FOLDER = 0x0B, K_CODERS_UNPACK_SIZE = 0x0C, K_NUM_UNPACK_STREAM = 0x0D,
    K_EMPTY_STREAM = 0x0E, K_EMPTY_FILE = 0x0F, K_ANTI = 0x10, K_NAME = 0x11, K_CTIME = 0x12,
    K_ATIME = 0x13, K_MTIME = 0x14,
    K_WIN_ATTRIBUTES = 0x15, K_ENCODED_HEADER = 0x17, K_DUMMY = 0x19
};

#define SIGNATURE_HEADER_SIZE 32

/* ---- a growable byte buffer for the header ----------------------------- */

typedef struct bytebuf {
    fz7_membuf m;  /* m.p, m.n: the bytes */
    bool failed;   /* an allocation failed; later appends are dropped */
} bytebuf;

static inline void bb_bytes(bytebuf *b, const void *p, size_t n)
{
    if (!b->failed && fz7_membuf_write(&b->m.base, p, n) != FZ7_OK)
        b->failed = true;
}

static inline void bb_byte(bytebuf *b, uint8_t v) { bb_bytes(b, &v, 1); }

static inline void bb_u32(bytebuf *b, uint32_t v)
{
    uint8_t t[4];
    fz7_put32le(t, v);
    bb_bytes(b, t, 4);
}

static inline void bb_u64(bytebuf *b, uint64_t v)
{
    uint8_t t[8];
    fz7_put64le(t, v);
    bb_bytes(b, t, 8);
}

/* 7z NUMBER: the count of leading 1 bits in the first byte tells how many
 * little-endian bytes follow; the first byte's remaining bits are the
 * value's high bits. */
static inline void bb_number(bytebuf *b, uint64_t v)
{
    uint8_t t[9];
    int extra = 0;
    while (extra < 8 && v >= ((uint64_t)1 << (7 * (extra + 1))))
        extra++;
    uint8_t first = (uint8_t)(0xFF00u >> extra);
    if (extra < 8)
        first |= (uint8_t)(v >> (8 * extra));
    t[0] = first;
    for (int i = 0; i < extra; i++)
        t[1 + i] = (uint8_t)(v >> (8 * i));
    bb_bytes(b, t, (size_t)extra + 1);
}

/* A bit vector, most significant bit first. */
static inline void bb_bits(bytebuf *b, const bool *bits, size_t n)
{
    uint8_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (bits[i])
            cur |= (uint8_t)(0x80u >> (i & 7));
        if ((i & 7) == 7) {
            bb_byte(b, cur);
            cur = 0;
        }
    }
    if (n & 7)
        bb_byte(b, cur);
}

/* ---- output ---------------------------------------------------------- */

/* An ostream into a bytebuf (for the encoded header). */
typedef struct mem_sink {
    fz7_ostream os;
    bytebuf *b;
} mem_sink;

static inline fz7_status mem_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    mem_sink *m = (mem_sink *)os;
    bb_bytes(m->b, p, n);
    return m->b->failed ? FZ7_E_MEM : FZ7_OK;
}


/* ---- what the header needs to remember --------------------------------- */

typedef struct entry_rec {
    char *name;
    uint32_t attrib;
    bool has_attrib;
    bool is_dir, has_stream, is_anti;
    bool has_time[3];             /* kCTime, kATime, kMTime */
    uint64_t time[3];             /* FILETIME, when has_time */
    uint64_t size;
    uint32_t crc;
} entry_rec;

typedef struct folder_rec {
    uint64_t pack_size;           /* bytes of its (first) pack stream */
    uint64_t unpack_size;
    size_t num_substreams;
    /* Its Folder record and its unpack sizes, already encoded: from its
     * coder graph (fz7_7z_graph_put) or copied from another archive
     * (fz7_7z_writer_copy_folder). NULL while a pending folder's coders
     * still run. */
    uint8_t *raw_folder, *raw_sizes;
    size_t raw_folder_len, raw_sizes_len;
    /* A folder with several pack streams (BCJ2): the bytes of each, in the
     * folder's order (pack_size is their sum); NULL with one. */
    uint64_t *raw_pack_sizes;
    size_t raw_n_packs;
} folder_rec;

/* Coders, out streams and pack streams of one folder. */
#define GRAPH_CODERS_MAX 64

/* A folder's coders as the encoder sees them (7-Zip's order before it
 * writes the Folder reversed): coder 0 reads the entries' bytes; out
 * streams are numbered coder by coder, each coder's in its own order
 * (BCJ2: main, call, jump, rc). */
typedef struct graph_coder {
    uint32_t id;                  /* method ID (Methods.txt) */
    uint8_t n_out;                /* 4 for BCJ2, else 1 */
    uint8_t props_len;
    uint8_t props[FZ7_7ZAES_PROPS_MAX];
    uint64_t in;                  /* bytes it received: its unpack size */
} graph_coder;

typedef struct folder_graph {
    graph_coder c[GRAPH_CODERS_MAX];
    unsigned n;
    /* Bonds in the order they were made: out stream `out` feeds coder
     * `coder`. */
    struct { uint8_t out, coder; } bond[GRAPH_CODERS_MAX];
    unsigned n_bonds;
    /* The out streams written as pack streams, in the archive's order,
     * and their sizes. */
    uint8_t pack[GRAPH_CODERS_MAX];
    uint64_t pack_size[GRAPH_CODERS_MAX];
    unsigned n_packs;
} folder_graph;

/* Appends g as a Folder record to folder and its unpack sizes to sizes,
 * as 7-Zip writes an encoder's graph: coders last to first, each coder's
 * in streams in a row, bind pairs in the reverse order of the bonds. */
void fz7_7z_graph_put(const folder_graph *g, bytebuf *folder, bytebuf *sizes);

/* One coder of the open folder at work: what the coder before it (or the
 * entries' data, for the first) writes to. */
typedef enum stage_kind { ST_METHOD, ST_FILTER, ST_BCJ2, ST_AES } stage_kind;

typedef struct stage {
    fz7_ostream os;
    stage_kind kind;
    fz7_lzma_enc *enc;            /* LZMA, LZMA2 */
    fz7_bzip2_enc *bz;
    fz7_ppmd7_enc *ppmd;
    fz7_deflate_enc *defl;        /* Deflate, Deflate64; Copy has no encoder */
    fz7_7zaes_writer *aes;
    fz7_bcj2_enc *bcj2;
    fz7_filter_ostream filt;      /* BCJ, another branch filter, Delta */
    fz7_ostream *dst;             /* its (main) output */
    uint64_t *in;                 /* its coder's byte count in the graph */
} stage;

/* A pack stream other than the first: kept in memory until the first,
 * which goes to the file as it comes, is whole. */
typedef struct mem_pack {
    mem_sink sink;
    bytebuf b;
} mem_pack;

/* Where a folder's coders write its pack stream: the archive file, or, while
 * the folder before is still being coded (the writer's pending folder), a
 * buffer that goes to the file after that folder's last bytes. */
typedef struct pack_sink {
    fz7_ostream os;
    struct fz7_7z_writer *w;
    bool holding;
    bytebuf held;
} pack_sink;

struct fz7_7z_writer {
    fz7_fd_ostream out;           /* the archive file */
    entry_rec *entries;
    size_t n_entries, cap_entries;
    bool order_7zip;              /* FilesInfo in 7-Zip's order (fz7_7z_writer_order_7zip) */
    folder_rec *folders;
    size_t n_folders, cap_folders;
    /* The open folder, if any: its coders (stages[k] runs graph.c[k]) and
     * the pack streams after its first. */
    bool in_folder, in_file;
    uint64_t folder_start;        /* file offset of its pack stream */
    folder_graph graph;
    stage stages[GRAPH_CODERS_MAX];
    unsigned n_stages;
    unsigned entry;               /* the stage that reads the entries' bytes */
    unsigned last;                /* the chain's stage that writes the first
                                     pack stream (or its 7zAES) */
    uint8_t flow[GRAPH_CODERS_MAX];   /* the stages in the order they end */
    unsigned pooled;              /* the stage of the multi-threaded LZMA2, or n_stages */
    unsigned pooled_aes;          /* the 7zAES it writes to itself, or n_stages */
    mem_pack packs[GRAPH_CODERS_MAX];   /* [k] for pack stream k >= 1 */
    uint64_t folder_bytes;        /* the folder's input size if known, */
    uint64_t folder_in;           /* and the bytes it has received */
    /* Multi-threaded LZMA2 folders share one pool of workers. A folder whose
     * input has ended but whose last blocks are still being coded is the
     * pending folder: its record is counted (its sizes come when it is
     * settled), its coders write to the file, and the open folder's pack
     * stream waits in its sink's buffer meanwhile. sinks[cur_sink] is the
     * open folder's, the other one the pending folder's. */
    fz7_lzma2_pool *pool;
    pack_sink sinks[2];
    int cur_sink;
    fz7_lzma_enc *pend_enc;       /* NULL: no pending folder */
    fz7_7zaes_writer *pend_aes;
    folder_graph pend_graph;      /* its coders, */
    unsigned pend_aes_at;         /* pend_aes's among them */
    size_t pend_folder;           /* its index in folders */
    uint64_t pend_start;          /* file offset of its pack stream */
    uint64_t pend_mem;            /* bytes its coder may hold */
    uint64_t folder_mem;          /* the same for the open folder's coder */
    fz7_status failed;            /* sticky error */
};

/* Ends the pending folder (waiting for its last blocks if need be): writes
 * the rest of its pack stream, records its sizes, then sends what the open
 * folder's coders have written meanwhile after it. The error also sticks
 * in w->failed. */
fz7_status fz7_7z_writer_settle(fz7_7z_writer *w);

/* Appends an entry record for m; has_stream says whether it has bytes in a
 * folder. FZ7_E_MEM when the record or its name cannot be stored. */
fz7_status fz7_7z_writer_push_entry(fz7_7z_writer *w, const fz7_7z_entry_meta *m, bool has_stream);

/* Room for one more folder record; false when out of memory. */
bool fz7_7z_writer_reserve_folder(fz7_7z_writer *w);

/* The Header (7zFormat.txt: MainStreamsInfo, FilesInfo) of what w holds,
 * into b. FZ7_E_MEM when b could not grow. */
fz7_status fz7_7z_header_build(const fz7_7z_writer *w, bytebuf *b);

/* LZMA-encodes *header (and encrypts it when key is set) into the archive
 * at the current position and replaces *header with the kEncodedHeader
 * block that describes it. Errors: the encoder's, or FZ7_E_IO / FZ7_E_MEM. */
fz7_status fz7_7z_header_encode(fz7_7z_writer *w, bytebuf *header, const fz7_7zaes_key *key);

#endif
