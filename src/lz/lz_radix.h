/* lz_radix.h - the radix match table: for every position of a block, the
 * nearest earlier position with the longest common prefix, found by
 * sorting the block's positions on their next bytes (one byte a level)
 * instead of walking a tree per position. The sort reaches every depth at
 * once, so the table also keeps the nearest positions sharing at least a
 * few given numbers of bytes (the near links): the shorter, nearer
 * matches the optimal parser prices besides the longest. */
#ifndef FZ7_LZ_RADIX_H
#define FZ7_LZ_RADIX_H

#include <stdint.h>

/* The near links: their count and depths in bytes, shortest first. The
 * nearest 4-byte match is what a hash head would give, but exact and
 * without a table the coder writes at random; 8 stands for the lengths
 * between it and the longest. */
#define FZ7_LZ_RADIX_NEARS 2
#define FZ7_LZ_RADIX_NEAR_DEPTHS {4u, 8u}
extern const uint32_t fz7_lz_radix_near_depth[FZ7_LZ_RADIX_NEARS];

/* One position's entry: the longest match as ((dist - 1) << 8) | len
 * (len 0: none; dist at most 2^24), and for each near link the distance
 * of the nearest match of at least its depth (0: none). */
typedef struct fz7_lz_radix_entry {
    uint32_t longest;
    uint32_t near[FZ7_LZ_RADIX_NEARS];
} fz7_lz_radix_entry;

/* Scratch of the sort: two lists of positions and a byte for each. */
typedef struct fz7_lz_radix_work {
    uint32_t *list, *tmp;
    uint8_t *keys;
    uint32_t cap;          /* positions each holds */
} fz7_lz_radix_work;

/* Allocates scratch for blocks of up to cap positions (prefix included).
 * 0, or -1 when out of memory. */
int fz7_lz_radix_work_init(fz7_lz_radix_work *w, uint32_t cap);
void fz7_lz_radix_work_free(fz7_lz_radix_work *w);

/* Bytes of scratch for cap positions. */
uint64_t fz7_lz_radix_work_bytes(uint32_t cap);

/* Fills out[0 .. to - from) for positions [from, to) of data[0 .. len),
 * from the positions [lo, to) (lo <= from < to <= len, to - lo at most
 * w->cap): for each, the nearest earlier position of [lo, p) at most dict
 * bytes back sharing the most bytes (counted up to max_len, 12..255, and
 * up to len), and the near links. A position's entry depends only on
 * data[lo .. p + max_len) (and len where that is shorter), so a caller
 * that has max_len bytes past to gets the same table whatever follows. */
void fz7_lz_radix_build(fz7_lz_radix_work *w, const uint8_t *data, uint32_t len, uint32_t lo, uint32_t from,
                        uint32_t to, uint32_t dict, uint32_t max_len, fz7_lz_radix_entry *out);

/* fz7_lz_radix_build in three steps, so that several threads can sort one
 * block: fz7_lz_radix_begin (one thread) prepares the sort; then any number
 * of threads call fz7_lz_radix_sort at once, each taking parts of the
 * first level's buckets until none is left (the parts write disjoint
 * entries, so the table is the same whoever sorts what); once every part
 * is sorted (fz7_lz_radix_sorted, and no thread is still inside
 * fz7_lz_radix_sort), one thread calls fz7_lz_radix_end, which finishes
 * out and frees the job. begin returns NULL when out of memory, with out
 * all zero (no matches: still a valid table). */
typedef struct fz7_lz_radix_job fz7_lz_radix_job;
fz7_lz_radix_job *fz7_lz_radix_begin(fz7_lz_radix_work *w, const uint8_t *data, uint32_t len, uint32_t lo,
                                     uint32_t from, uint32_t to, uint32_t dict, uint32_t max_len,
                                     fz7_lz_radix_entry *out);
void fz7_lz_radix_sort(fz7_lz_radix_job *j);
int fz7_lz_radix_sorted(fz7_lz_radix_job *j);
void fz7_lz_radix_end(fz7_lz_radix_job *j);

#endif
