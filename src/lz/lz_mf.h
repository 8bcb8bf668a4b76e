/* lz_mf.h - the sliding window and match finders the LZMA encoder
 * searches for earlier occurrences of the bytes ahead: hash chains over a
 * 4- or 5-byte hash (hc4, hc5), binary trees (bt2, bt3, bt4), hash
 * buckets on hc5's hash (hb5, lz_mf_bucket.c) and the radix match table
 * (rdx, lz_radix.h).
 *
 * The window keeps the last dictionary-size bytes before the read position
 * plus the input not yet searched. Hash tables and chains/trees store
 * positions as 32-bit values (buffer index + offset); 0 means empty and is
 * always out of reach, and all values are lowered together before they
 * could overflow (normalisation), so inputs of any length stream through. */
#ifndef FZ7_LZ_MF_H
#define FZ7_LZ_MF_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/bytes.h"
#include "lz/hash_mask.h"
#include "lz/match_len.h"

/* Kinds of match finder (7-Zip's mf=hc4|bt2|bt3|bt4|hc5, and fz7's hb5
 * and rdx): hash chains over a 4- or 5-byte hash, binary trees over a 2-,
 * 3- or 4-byte hash, hash buckets on hc5's hash (lz_mf_bucket.c), and a
 * table of each position's longest and near matches built per block by a
 * radix sort (lz_radix.h), with bt4's 2- and 3-byte heads beside it. */
typedef enum fz7_lz_kind {
    FZ7_LZ_HC4 = 0,
    FZ7_LZ_BT2,
    FZ7_LZ_BT3,
    FZ7_LZ_BT4,
    FZ7_LZ_HC5,
    FZ7_LZ_HB5,
    FZ7_LZ_RDX
} fz7_lz_kind;

/* Hash chains (hc4, hc5) keep one link per slot; binary trees two. */
static inline int fz7_lz_is_hc(int kind) { return kind == FZ7_LZ_HC4 || kind == FZ7_LZ_HC5; }

/* One match: len bytes equal at distance dist (1 = the previous byte). */
typedef struct fz7_lz_match {
    uint32_t len;
    uint32_t dist;
} fz7_lz_match;

/* At most this many matches come back from one search (lengths strictly
 * increase, so nice_len - 1 bounds it; 273 is the largest nice_len). */
#define FZ7_LZ_MATCHES_MAX 274

/* Positions a binary-tree find searches together (their walks interleaved,
 * one cache miss in flight per walk). */
#define FZ7_LZ_GROUP 4

typedef struct fz7_lz_mf {
    uint8_t *buf;          /* the window */
    uint32_t buf_size;     /* bytes allocated for buf */
    uint32_t keep_before;  /* bytes kept before pos when the window moves */
    uint32_t pos;          /* buffer index of the next position to search */
    uint32_t end;          /* buffer index one past the last byte written */
    uint32_t offset;       /* stored position = buffer index + offset */
    uint32_t released;     /* bytes at the start of buf handed back to the
                            * kernel: out of reach, not yet rewritten */
    uint32_t huge_end;     /* buf[0..huge_end) was offered as huge pages */
    int moved;             /* the window has moved once: dead pages are
                            * rewritten by the next move, not released */
    uint32_t buf_mapped;   /* bytes mapped for buf when more than buf_size
                            * (a hash chain's window in one huge page) */
    uint8_t *own_buf;      /* while borrowed (fz7_lz_mf_borrow): the window, */
    uint32_t own_size;     /* its buf_size; own_buf is NULL otherwise */
    uint32_t dict_size;    /* largest distance returned */
    uint32_t cyclic_size;  /* dict_size + 1 chain/tree slots */
    uint32_t cyclic_pos;   /* slot of pos */
    uint32_t nice_len;     /* search stops at a match this long */
    uint32_t depth;        /* candidates visited per search */
    uint32_t ways;         /* hb5: positions per bucket, 8 or 16 */
    uint32_t hash4_mask;   /* hash4 has hash4_mask + 1 entries */
    uint32_t hash4_shift;  /* 32 - log2(entries): the hash keeps the top bits */
    int kind;              /* FZ7_LZ_HC4 .. FZ7_LZ_HB5 */
    uint32_t *hash2;       /* 1024 heads keyed by a hash of the next 2
                            * bytes (compared before a match counts) */
    uint32_t *hash3;       /* 1024 heads keyed by a hash of 3 bytes */
    uint32_t *hash4;       /* heads keyed by a hash of 4 bytes */
    uint32_t *son;         /* hc: 1 link per slot; bt: 2 children per slot */
    uint32_t (*match_len)(const uint8_t *a, const uint8_t *b, uint32_t limit);
    fz7_hash_mask_fn hash_mask;  /* for the LZMA2 store test's samples */
    /* find searches up to FZ7_LZ_GROUP positions at once: pending is how
     * many after pos are already searched and inserted; their matches wait
     * in pending_matches[pending_first..] for the next finds (skip drops
     * them). */
    uint32_t pending;
    uint32_t pending_first;
    uint32_t pending_count[FZ7_LZ_GROUP - 1];
    /* Positions after pos inside a run of one byte value that a search
     * already recorded (lz_mf.c, bt_run): each is found as nice_len bytes
     * at distance 1 without a walk. */
    uint32_t run_left;
    /* Positions from pos, pos included, that one find may record (a
     * group, a pair, a run stops short of the rest); UINT32_MAX: no
     * bound. The match finder thread sets it so that what one search
     * records never crosses the position of its next piece test. */
    uint32_t record_max;
    /* Binary trees: the distance at which the last position searched
     * matched nice_len bytes (0: none), a hint for bt_repeat in lz_mf.c,
     * which checks it before use. */
    uint32_t repeat_dist;
    /* The stretch bt_repeat recorded last: repeat_len positions at
     * distance repeat_len_dist that end just before stored position
     * repeat_end, walked with near matches checked when repeat_collect. A
     * call that goes on from there needs no new walk of two periods.
     * Renumbering the stored positions sets repeat_len to 0. */
    uint32_t repeat_end, repeat_len, repeat_len_dist;
    int repeat_collect;
    fz7_lz_match pending_matches[FZ7_LZ_GROUP - 1][FZ7_LZ_MATCHES_MAX];
    struct fz7_lz_rdx *rdx;   /* rdx: the table and the block it covers */
} fz7_lz_mf;

/* Bytes fz7_lz_mf_init allocates for these settings (window, hash tables,
 * chains or trees). keep_extra: bytes the caller needs kept before pos in
 * addition to dict_size (its own look-behind). */
uint64_t fz7_lz_mf_memusage(int kind, uint32_t dict_size, uint32_t keep_extra);

/* Allocates a match finder. kind: FZ7_LZ_HC4..FZ7_LZ_HB5; dict_size: the
 * largest distance (bytes); nice_len 2..273; depth: candidates per search,
 * at least 1 (hb5: at most ways); ways: hb5's positions per bucket, 8 or
 * 16 (other kinds ignore it); size_hint: bytes the whole input is
 * expected to hold (0 = unknown), which only decides how much memory is
 * offered as huge pages, never the matches. The encoder's values come
 * from lzma/lzma_presets.h. Returns 0, or -1 for a bad depth or ways or
 * if allocation fails. */
int fz7_lz_mf_init(fz7_lz_mf *mf, int kind, uint32_t dict_size, uint32_t keep_extra,
                   uint32_t nice_len, uint32_t depth, uint32_t ways, uint64_t size_hint);

/* Frees what init allocated (a zeroed struct is fine). */
void fz7_lz_mf_free(fz7_lz_mf *mf);

/* Copies up to n bytes of input into the window, moving it down first when
 * it is full; returns the bytes taken (0 only when n is 0 or the caller has
 * not searched the window enough to free room). */
size_t fz7_lz_mf_append(fz7_lz_mf *mf, const uint8_t *data, size_t n);

/* Reads a stream from the caller's buffer instead of copying it into the
 * window: buf[0..len) holds the stream from its first byte, and each
 * append must pass the bytes that follow in buf (data == buf + end; any
 * other pointer takes nothing). The window is never written, moved or
 * given back while borrowed, so it costs no memory, and the matches are
 * the ones the window would give. The caller keeps buf[0..end) alive and
 * unchanged until the next reset, which returns to the window. Only right
 * after init or reset, with no searcher thread. For blocks whose whole
 * input is in memory (lzma2_mt.c). */
void fz7_lz_mf_borrow(fz7_lz_mf *mf, const uint8_t *buf, uint32_t len);

/* Bytes written but not yet searched (from pos to the end). */
static inline uint32_t fz7_lz_mf_avail(const fz7_lz_mf *mf) { return mf->end - mf->pos; }

/* Bytes the caller should have written past pos before it searches the
 * positions up to `ahead` past pos (unless the input has ended): rdx
 * builds its table for a whole block at once, from max_len bytes past the
 * block's end, so that the table never depends on how the input arrived.
 * 0 for the other kinds. */
uint32_t fz7_lz_mf_wanted(const fz7_lz_mf *mf, uint32_t ahead);

/* No more input will be appended (until the next reset): rdx then builds
 * its last block from what there is. The other kinds ignore it. */
void fz7_lz_mf_input_end(fz7_lz_mf *mf);

/* rdx: starts a thread that builds each block's table while the caller
 * searches the block before (the same tables, so the same matches). 0, or
 * -1 when mf is not rdx or the thread could not start (mf then builds
 * each table itself). Stopped by fz7_lz_mf_free. */
int fz7_lz_mf_rdx_thread(fz7_lz_mf *mf);

/* Bytes fz7_lz_mf_rdx_thread allocates for a dictionary of dict_size. */
uint64_t fz7_lz_mf_rdx_thread_memusage(uint32_t dict_size);

/* Searches pos, records it in the tables and advances pos by one. Writes
 * matches with strictly increasing len (each the nearest of its length
 * found, lengths at most min(nice_len, avail)) and returns how many. When
 * the longest has nice_len bytes the binary trees may return it alone:
 * the parsers take such a match as it is and look at no other. */
uint32_t fz7_lz_mf_find(fz7_lz_mf *mf, fz7_lz_match *matches);

/* Records n positions without collecting matches and advances past them. */
void fz7_lz_mf_skip(fz7_lz_mf *mf, uint32_t n);

/* For the binary trees in data that repeats (a copied block, a period):
 * records up to max positions from pos, each of which fz7_lz_mf_find
 * would return as the one match of nice_len bytes at *dist, advances past
 * them and returns how many (0: pos is not such a position, nothing
 * done). Same tables as finding each. */
uint32_t fz7_lz_mf_repeat(fz7_lz_mf *mf, uint32_t max, uint32_t *dist);

/* Advances past n positions without recording them (no table changes):
 * later searches do not find matches into those bytes, and everything
 * they do find stays valid. For bytes stored as they are (LZMA2
 * uncompressed chunks), where matches are not worth looking for. */
void fz7_lz_mf_pass(fz7_lz_mf *mf, uint32_t n);

/* Anchors: the positions whose 4 bytes (little-endian, so the same on
 * every machine) times FZ7_LZ_ANCHOR_MULT have their top
 * FZ7_LZ_ANCHOR_BITS zero, about one in 2^FZ7_LZ_ANCHOR_BITS. The LZMA2
 * store test records the anchors of the bytes it stores and probes for a
 * second copy through them; rdx keeps a head for its anchors (a denser set
 * that holds these). */
#define FZ7_LZ_ANCHOR_BITS 8u
#define FZ7_LZ_ANCHOR_MULT 0x2545F491u
/* The hash whose top bits pick anchors (and rdx's denser set). */
static inline uint32_t fz7_lz_anchor_hash(const uint8_t *p)
{
    return fz7_get32le(p) * FZ7_LZ_ANCHOR_MULT;
}
static inline int fz7_lz_anchor(const uint8_t *p)
{
    return fz7_lz_anchor_hash(p) >> (32 - FZ7_LZ_ANCHOR_BITS) == 0;
}

/* Bytes the anchor at buffer index idx (at or after pos, with at least
 * 8 bytes after it, nothing from pos on recorded) shares with the newest
 * recorded position of its root hash (tree, chain or bucket; rdx: its
 * head of anchors), at most lim; 0 when there is none in reach.
 * Reads only: a cheap test whether bytes ahead repeat what the dictionary
 * holds. */
uint32_t fz7_lz_mf_probe(const fz7_lz_mf *mf, uint32_t idx, uint32_t lim);
/* fz7_lz_mf_probe for hb5 (lz_mf_bucket.c). */
uint32_t fz7_lz_hb_probe(const fz7_lz_mf *mf, uint32_t idx, uint32_t lim);

/* Empties mf for a new input as if it were fresh from fz7_lz_mf_init
 * (the same matches from then on), keeping its window and tables. Not
 * while a searcher thread (lz_mf_mt.h) uses it. */
void fz7_lz_mf_reset(fz7_lz_mf *mf);

/* The fast parser's hook into hb5: fz7_lz_mf_find and fz7_lz_mf_skip of a
 * finder of kind FZ7_LZ_HB5 (lz_mf_bucket.c) without the dispatch on the
 * kind at each position, the same results, for a caller that checked the
 * kind once. */
uint32_t fz7_lz_mf_find_hb5(fz7_lz_mf *mf, fz7_lz_match *matches);
void fz7_lz_mf_skip_hb5(fz7_lz_mf *mf, uint32_t count);

#endif
