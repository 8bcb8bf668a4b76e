/* 7z_internal.h - the parsed 7z database shared by the header reader
 * (7z_read.c), the coder graph builder (7z_folder.c) and extraction
 * (7z_extract.c). Terms follow 7zFormat.txt: a folder is a graph of coders
 * joined by bind pairs, fed by pack streams, whose main output is split into
 * substreams (the files). Not for use outside src/format/7z/7z_*. */
#ifndef FZ7_7Z_INTERNAL_H
#define FZ7_7Z_INTERNAL_H

#include "filter/filter.h"
#include "format/archive_impl.h"

#include <stdbool.h>
#include <stdint.h>

/* Limits on one folder, as 7-Zip applies them; real folders use at most 4
 * coders (BCJ2) and 7 in streams. */
#define FZ7_7Z_MAX_CODERS 64
#define FZ7_7Z_MAX_IN_STREAMS 64

/* Method IDs (Methods.txt) the reader knows by name or decodes. */
#define FZ7_7Z_ID_COPY 0x00u
#define FZ7_7Z_ID_DELTA 0x03u
#define FZ7_7Z_ID_LZMA2 0x21u
#define FZ7_7Z_ID_LZMA 0x030101u
#define FZ7_7Z_ID_BCJ 0x03030103u
#define FZ7_7Z_ID_BCJ2 0x0303011Bu
#define FZ7_7Z_ID_PPMD 0x030401u
#define FZ7_7Z_ID_DEFLATE 0x040108u
#define FZ7_7Z_ID_DEFLATE64 0x040109u
#define FZ7_7Z_ID_BZIP2 0x040202u
#define FZ7_7Z_ID_AES 0x06F10701u

/* One coder of a folder (7zFormat.txt, Folder). "In" streams are its
 * packed side (BCJ2 has 4), "out" streams its unpacked side. */
typedef struct fz7_7z_coder {
    uint64_t id;
    uint32_t num_in;
    uint32_t num_out;      /* always 1: the reader rejects other values */
    uint32_t first_in;     /* folder-wide index of its first in stream */
    uint32_t props_len;
    uint8_t *props;        /* owned; NULL when props_len == 0 */
} fz7_7z_coder;

typedef struct fz7_7z_bind_pair {
    uint32_t in_index;     /* a coder's in stream ... */
    uint32_t out_index;    /* ... reads this coder's out stream */
} fz7_7z_bind_pair;

typedef struct fz7_7z_folder {
    uint32_t num_coders;
    uint32_t num_in;           /* in streams of all coders */
    uint32_t num_bind_pairs;   /* num_coders - 1 */
    uint32_t num_packed;       /* num_in - num_bind_pairs */
    fz7_7z_coder *coders;
    fz7_7z_bind_pair *bind_pairs;
    uint32_t *packed;          /* in stream read from the folder's k-th pack stream */
    uint64_t *unpack_sizes;    /* bytes of each out stream (= coder) */
    uint32_t main_out;         /* the out stream no bind pair reads */
    uint64_t first_pack;       /* index of its first pack stream */
    bool has_crc;
    uint32_t crc;              /* CRC32 of the main output */
    uint64_t num_substreams;   /* files stored in it */
    uint64_t first_substream;  /* index into the substream arrays */
    bool encrypted;            /* has a 7zAES coder */
    bool unsupported;          /* some coder cannot be decoded here */
    char *method;              /* 7-Zip style description, owned */
} fz7_7z_folder;

/* StreamsInfo (7zFormat.txt): PackInfo, CodersInfo and SubStreamsInfo. */
typedef struct fz7_7z_streams {
    uint64_t num_pack;
    uint64_t *pack_offsets;    /* offsets of the pack streams in the archive's
                                  byte space (SFX stub and volumes included) */
    uint64_t *pack_sizes;
    uint64_t num_folders;
    fz7_7z_folder *folders;
    uint64_t num_substreams;
    uint64_t *sub_sizes;
    uint32_t *sub_crcs;
    bool *sub_has_crc;
} fz7_7z_streams;

/* What fz7_archive.priv points to for a 7z archive. */
typedef struct fz7_7z_db {
    fz7_7z_streams main;
    uint32_t *entry_substream;  /* per entry: substream index, or UINT32_MAX */
    char *method_union;         /* archive-wide "Method =" string */
} fz7_7z_db;

/* Frees what a streams info owns (not s itself). */
void fz7_7z_streams_free(fz7_7z_streams *s);

/* Checks a parsed folder's graph: every in stream read by exactly one bind
 * pair or pack stream, exactly one unbound out stream, every coder reachable
 * from the main output (no cycles). Sets f->main_out, f->encrypted,
 * f->unsupported. FZ7_E_FORMAT when the graph is malformed. */
fz7_status fz7_7z_folder_check(fz7_7z_folder *f);

/* The branch filter a 7z method ID names (Methods.txt: 03030205 PPC,
 * 03030401 IA64, 03030501 ARM, 03030701 ARMT, 03030805 SPARC, 0A ARM64,
 * 0B RISCV); false for any other ID. */
bool fz7_7z_branch_arch(uint64_t id, fz7_bcj_arch *arch);

/* The folder's coders as 7-Zip lists them per file ("BCJ LZMA2:24",
 * "LZMA:16 7zAES:19"), in a new string; NULL on allocation failure. */
char *fz7_7z_folder_method(const fz7_7z_folder *f);

/* Appends to the archive-wide method list: ids sorted, LZMA/LZMA2 with the
 * largest dictionary. Call for every folder, then fz7_7z_method_union. */
typedef struct fz7_7z_method_set {
    uint64_t ids[32];
    size_t count;
    uint32_t lzma_dict;
    int lzma2_prop;        /* -1 when none */
} fz7_7z_method_set;
void fz7_7z_method_set_add(fz7_7z_method_set *m, const fz7_7z_folder *f);
char *fz7_7z_method_union(const fz7_7z_method_set *m);

/* Name of a method ID as 7-Zip spells it in messages ("BCJ2", "ZSTD"),
 * written to buf (hex digits when unknown). */
const char *fz7_7z_method_name(uint64_t id, char *buf, size_t buflen);

/* Builds the decoding chain of folder fi of s: pack streams read from vol
 * (the archive's byte space; pack_offsets are offsets in it),
 * coders joined as the bind pairs say, every coder output checked against
 * its unpack size (too little or too much data: FZ7_E_DATA). *out yields
 * the folder's main output and owns the whole chain. On failure writes a
 * reason to detail: FZ7_E_UNSUPPORTED ("Unsupported Method: BCJ2"),
 * FZ7_E_NEED_PASSWORD, FZ7_E_MEMLIMIT, FZ7_E_MEM, FZ7_E_FORMAT. */
fz7_status fz7_7z_folder_istream_new(const fz7_volumes *vol, const fz7_7z_streams *s, uint64_t fi,
                                     const char *password, uint64_t mem_limit,
                                     fz7_istream **out, char *detail, size_t detail_len);

/* Extraction entry point (ops->extract), in 7z_extract.c. */
fz7_status fz7_7z_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                          char *err, size_t errlen);

#endif
