/* lzma_enc_impl.h - state shared by the LZMA encoder's files (private).
 *
 * lzma_enc.c codes symbols, keeps prices and runs the LZMA1/LZMA2 streams;
 * lzma2_enc.c frames LZMA2's chunks, lzma2_mt.c codes LZMA2 blocks on
 * threads; lzma_enc_fast.c and lzma_enc_normal.c are the two parsers. A parser
 * appends decisions (len, absolute distance) to a queue; the coder turns
 * each into the cheapest symbol for the state it meets (so a chunk may end
 * between decisions and the next one may reset the state). */
#ifndef FZ7_LZMA_ENC_IMPL_H
#define FZ7_LZMA_ENC_IMPL_H

#include <string.h>

#include "lz/lz_mf.h"
#include "lz/lz_mf_mt.h"
#include "lzma/lzma_common.h"
#include "lzma/lzma_enc.h"
#include "lzma/range_enc.h"

/* Positions the normal parser looks ahead at most. */
#define FZ7_LZMA_OPTS 4096
/* Bytes of input the encoder wants beyond its read position before it
 * parses (unless finishing): the parser's look-ahead plus a longest match. */
#define FZ7_LZMA_LOOKAHEAD (FZ7_LZMA_OPTS + FZ7_LZMA_MATCH_LEN_MAX + 8)

/* Prices are in 1/16 bit. */
#define FZ7_PRICE_SHIFT 4
#define FZ7_PRICE_INFINITY (1u << 30)

/* One parser decision: dist 0 = literal (len 1); otherwise a match or rep
 * of len bytes at distance dist (1 = previous byte); len 1 with dist =
 * rep0 is a short rep. */
typedef struct fz7_lzma_decision {
    uint32_t len;
    uint32_t dist;
} fz7_lzma_decision;

/* One node of the normal parser's graph (lzma_enc_normal.c). */
typedef struct fz7_lzma_opt {
    uint32_t price;
    uint32_t back;          /* UINT32_MAX literal, 0..3 rep, else dist0 + 4 */
    uint32_t back2;
    uint32_t reps[4];
    uint16_t pos_prev;      /* node this one is reached from (< FZ7_LZMA_OPTS) */
    uint16_t pos_prev2;
    uint8_t state;
    uint8_t lit_first;      /* 1: a literal at pos_prev, then rep0 (back 0) */
    uint8_t has_prev2;      /* 1: before that literal, back2 from pos_prev2 */
} fz7_lzma_opt;             /* 36 bytes: the nodes are 144 KiB, not 192 */
_Static_assert(FZ7_LZMA_OPTS <= 65536, "fz7_lzma_opt.pos_prev is 16 bits");

/* What a stream kind adds to the LZMA coder, called through these so that
 * lzma_enc.c calls up into no other file. LZMA2's chunk framing
 * (fz7_lzma2_frame, lzma2_enc.c): */
typedef struct fz7_lzma_frame {
    /* Ends the open chunk (the bytes since chunk_start); nothing for an
     * empty one. Called when the next symbol could overflow it. */
    void (*close_chunk)(struct fz7_lzma_enc *e);
    /* Queue empty: stores the coder's next piece as it is if lzma2_store.c
     * finds it incompressible; 1 when it stored. */
    int (*store_piece)(struct fz7_lzma_enc *e);
    /* The same with the match finder's thread: stores the pass it made
     * from the coder's position, if there is one; 1 when it stored. */
    int (*store_mt_pass)(struct fz7_lzma_enc *e);
    /* Closes the last chunk and ends the stream. */
    void (*end_stream)(struct fz7_lzma_enc *e);
    /* The match finder thread's piece test (fz7_lz_piece_test). */
    uint32_t (*piece_test)(fz7_lz_mf *mf, uint32_t n);
} fz7_lzma_frame;

/* A handle whose input is coded elsewhere (multi-threaded LZMA2,
 * lzma2_mt.c): fz7_lzma_enc_write, _finish and _free go here. */
typedef struct fz7_lzma_driver {
    fz7_status (*write)(struct fz7_lzma_enc *e, const uint8_t *data, size_t n);
    fz7_status (*finish)(struct fz7_lzma_enc *e);
    void (*free)(struct fz7_lzma_enc *e);
} fz7_lzma_driver;

struct fz7_lzma_enc {
    fz7_lzma_enc_opts opts;
    const fz7_lzma_frame *frame;   /* LZMA2's; NULL for LZMA1 */
    fz7_ostream *dst;
    fz7_lzma_ref_sink *ref_dst;    /* stored input goes here, or NULL: to dst */
    fz7_status error;
    int finished;

    fz7_lz_mf mf;
    fz7_lz_mf_mt *mf_mt;   /* the match finder's thread (opts.mf_thread), or
                            * NULL: then mf searches in this thread */
    fz7_range_enc rc;
    uint8_t *out;          /* range coder output */
    size_t out_cap;

    fz7_lzma_probs *probs;
    uint32_t state;
    uint32_t reps[4];      /* dist0 (distance - 1) of the last 4 matches/reps */
    uint64_t pos;          /* uncompressed bytes coded (since the dictionary reset) */
    uint32_t pos_mask;     /* (1 << pb) - 1 */

    /* Parser output waiting to be coded, and how far the match finder is
     * ahead of the coder (bytes the queue covers, plus 1 when the matches of
     * the next position are already held in matches[]). */
    fz7_lzma_decision *queue;
    uint32_t queue_head, queue_len;
    uint32_t ahead;
    int have_matches;      /* matches[] hold the results for mf.pos - 1 */
    uint32_t match_count;
    fz7_lz_match matches[FZ7_LZ_MATCHES_MAX];

    /* Prices (normal mode). */
    uint32_t price_table[FZ7_LZMA_PROB_ONE >> FZ7_PRICE_SHIFT];
    /* price_table spread over every probability and both bits (see
     * fz7_lzma_bit_prices_init): bit_prices[bit][p]; 4 KiB, all <= 128. */
    uint8_t bit_prices[2][FZ7_LZMA_PROB_ONE];
    uint32_t match_len_prices[FZ7_LZMA_POS_STATES_MAX][FZ7_LZMA_LEN_SYMBOLS];
    uint32_t rep_len_prices[FZ7_LZMA_POS_STATES_MAX][FZ7_LZMA_LEN_SYMBOLS];
    uint32_t slot_prices[FZ7_LZMA_DIST_STATES][FZ7_LZMA_DIST_SLOTS];
    uint32_t dist_prices[FZ7_LZMA_DIST_STATES][FZ7_LZMA_FULL_DISTANCES];
    uint32_t align_prices[FZ7_LZMA_ALIGN_SIZE];
    uint32_t len_count, dist_count, align_count; /* symbols since the last refresh */
    fz7_lzma_opt *opt;     /* FZ7_LZMA_OPTS nodes */

    /* LZMA2 */
    uint64_t chunk_start;  /* pos of the first byte of the open chunk */
    int need_dict_reset, need_props, need_state_reset;

    uint64_t bytes_in, bytes_out;
    uint64_t store_next;   /* LZMA2: pos at which the coder next tries to
                            * store a piece as it is (fz7_lzma2_store_piece) */

    /* Multi-threaded LZMA2 (lzma2_mt.c): when driver is set, this handle
     * only cuts the input into blocks and writes their chunks (mt: its
     * state); the fields above besides opts, dst, error, finished and the
     * byte counts are unused. */
    const fz7_lzma_driver *driver;
    struct fz7_lzma2_mt *mt;
};

/* LZMA2 store pieces: the next FZ7_LZMA2_STORE_PIECE bytes (fewer only at
 * the end of the input, at least FZ7_LZMA2_STORE_MIN) are tested with
 * fz7_lzma2_store_worthy and, if they pass, written as one uncompressed
 * chunk (its largest size) without searching them; a piece that fails is
 * coded and the next test comes a piece later. On one thread the coder
 * tests at a decision boundary; with the match finder's thread the
 * searcher tests where it stands (fz7_lzma2_store_test: it has recorded
 * positions ahead of the coder, a timing-dependent count) and the coder
 * stores the pieces that it reaches at a decision boundary. */
#define FZ7_LZMA2_STORE_PIECE ((uint32_t)1 << 16)
/* The searcher tests again this far after a failed test: it stores only
 * the pieces the coder reaches at a decision boundary, so it looks more
 * often than the coder, which tests wherever it stands. */
#define FZ7_LZMA2_STORE_RETEST_MT (FZ7_LZMA2_STORE_PIECE / 4)
#define FZ7_LZMA2_STORE_MIN ((uint32_t)4096)

/* The anchors fz7_lzma2_store_worthy found in the piece it passed, so that
 * fz7_lzma2_store_pass need not look for them again: anchor[0..count) are
 * the offsets from idx of every anchor below offset listed (n, unless the
 * list filled up first) of the piece [idx, end). */
#define FZ7_LZMA2_SCAN_ANCHORS 1024u
typedef struct {
    uint32_t idx, end, listed, count;
    uint32_t anchor[FZ7_LZMA2_SCAN_ANCHORS];
} fz7_lzma2_store_scan;

/* lzma2_store.c: 1 when the n bytes at buffer index idx of mf's window
 * (n <= FZ7_LZMA2_STORE_PIECE, none of them recorded yet) look
 * incompressible to LZMA (flat in every lc = 3 literal context, almost no
 * repeats inside, no anchor repeating the dictionary), with *scan filled
 * in for fz7_lzma2_store_pass; 0 otherwise (*scan then undefined). */
int fz7_lzma2_store_worthy(const fz7_lz_mf *mf, uint32_t idx, uint32_t n, fz7_lzma2_store_scan *scan);
/* lzma2_store.c: moves mf from pos to buffer index stop without searching,
 * recording only the anchors (the bytes between are stored as they are).
 * scan: what fz7_lzma2_store_worthy found for the piece ending at stop, or
 * NULL; either way the same anchors are recorded. */
void fz7_lzma2_store_pass(fz7_lz_mf *mf, uint32_t stop, const fz7_lzma2_store_scan *scan);
/* lzma2_store.c: the match finder thread's piece test (fz7_lz_piece_test):
 * the n bytes at mf->pos, if fz7_lzma2_store_worthy (and at least
 * FZ7_LZMA2_STORE_MIN), passed over as fz7_lzma2_store_pass does. */
uint32_t fz7_lzma2_store_test(fz7_lz_mf *mf, uint32_t n);

/* lzma_enc.c: passes n bytes at p to dst (nothing after an error; a dst
 * error sticks in e->error) and counts them in bytes_out. */
void fz7_lzma_enc_emit(struct fz7_lzma_enc *e, const uint8_t *p, size_t n);
/* lzma_enc.c: the n input bytes at p, which sit at encoder position pos,
 * as fz7_lzma_enc_emit passes bytes, or to ref_dst when there is one. */
void fz7_lzma_enc_emit_input(struct fz7_lzma_enc *e, const uint8_t *p, uint64_t pos, size_t n);
/* lzma_enc.c: the probabilities, state and reps as a stream starts them. */
void fz7_lzma_enc_reset_model(struct fz7_lzma_enc *e);

/* LZMA2 chunk limits (xz-file-format.txt 5.3.1): unpacked and packed
 * bytes of one chunk. */
#define FZ7_LZMA2_CHUNK_UNPACKED_MAX ((uint32_t)2 << 20)
#define FZ7_LZMA2_CHUNK_PACKED_MAX ((uint32_t)1 << 16)
/* Bytes one symbol can add to the range coder output, with room to spare. */
#define FZ7_LZMA_SYMBOL_BYTES_MAX 64

/* lzma2_enc.c: LZMA2's chunk framing. */
extern const fz7_lzma_frame fz7_lzma2_frame;

/* lzma_enc.c: a new encoder with frame (NULL: LZMA1) as
 * fz7_lzma_enc_new describes. */
fz7_status fz7_lzma_enc_new_framed(const fz7_lzma_enc_opts *opts, fz7_ostream *dst,
                                   const fz7_lzma_frame *frame, fz7_lzma_enc **out);

/* Fills bit_prices from price_table (lzma_enc.c; price_table entries
 * must be below 256): bit_prices[0][p] = price_table[p >> 4] and
 * bit_prices[1][p] = price_table[(2048 - p) >> 4], p in 1..2047. */
void fz7_lzma_bit_prices_init(struct fz7_lzma_enc *e);

/* Price of coding bit (0, or any other value for a 1) with probability p
 * (of a 0): price_table at p, or at 2048 - p for a 1, read as one load
 * from bit_prices (no arithmetic on p; literal bits are as good as
 * random, so the bit is an index, not a branch). */
static inline uint32_t fz7_price_bit(const struct fz7_lzma_enc *e, fz7_lzma_prob p, unsigned bit)
{
    return e->bit_prices[bit != 0][p];
}

/* Equal leading bytes of a and b, at most limit, through the match
 * finder's kernel (fz7_match_len_step). */
static inline uint32_t fz7_lzma_match_len(const struct fz7_lzma_enc *e, const uint8_t *a, const uint8_t *b,
                                          uint32_t limit)
{
    return fz7_match_len_step(e->mf.match_len, a, b, limit);
}

/* Parsers: append at least one decision to the queue. */
void fz7_lzma_parse_fast(struct fz7_lzma_enc *e);
void fz7_lzma_parse_normal(struct fz7_lzma_enc *e);

/* Shared by the parsers; inline, as they run once per input position. */

/* Finds the matches at mf.pos into e->matches; returns their count. */
static inline uint32_t fz7_lzma_enc_next_matches(struct fz7_lzma_enc *e)
{
    e->match_count = e->mf_mt ? fz7_lz_mf_mt_find(e->mf_mt, e->matches) : fz7_lz_mf_find(&e->mf, e->matches);
    e->ahead++;
    return e->match_count;
}

/* fz7_lz_mf_skip of n positions whichever thread searches, without
 * moving the coder (lzma2_mt.c's block start uses it too). */
static inline void fz7_lzma_enc_mf_skip(struct fz7_lzma_enc *e, uint32_t n)
{
    if (e->mf_mt)
        fz7_lz_mf_mt_skip(e->mf_mt, n);
    else
        fz7_lz_mf_skip(&e->mf, n);
}

/* Skips n positions the parser has decided (the coder trails by them). */
static inline void fz7_lzma_enc_skip(struct fz7_lzma_enc *e, uint32_t n)
{
    fz7_lzma_enc_mf_skip(e, n);
    e->ahead += n;
}

/* Appends one decision to the queue (a ring of FZ7_LZMA_OPTS + 8). */
static inline void fz7_lzma_enc_push(struct fz7_lzma_enc *e, uint32_t len, uint32_t dist)
{
    uint32_t i = e->queue_head + e->queue_len;
    if (i >= FZ7_LZMA_OPTS + 8)
        i -= FZ7_LZMA_OPTS + 8;
    e->queue[i].len = len;
    e->queue[i].dist = dist;
    e->queue_len++;
}

/* fz7_lz_mf_append whichever thread searches (lzma2_mt.c's block start
 * uses it too). */
size_t fz7_lzma_enc_mf_append(struct fz7_lzma_enc *e, const uint8_t *data, size_t n);

/* Price of coding the literal cur at pos after prev in state; match_byte
 * (the byte at rep0) matters only after a match, rep or short rep. One
 * branch-free walk for plain and matched literals: offs is 0x100 while
 * the bits so far equal match_byte's, else 0 (the tree then is probs[sym]). */
static inline uint32_t fz7_lzma_literal_price(const struct fz7_lzma_enc *e, uint64_t pos, uint32_t state,
                                              uint8_t prev, uint8_t cur, uint8_t match_byte)
{
    const fz7_lzma_prob *probs = e->probs->literal + fz7_lzma_literal_offset(pos, prev, e->opts.lc, e->opts.lp);
    uint32_t offs = fz7_lzma_state_is_literal(state) ? 0 : 0x100;
    uint32_t mb = match_byte;
    uint32_t c = (uint32_t)cur | 0x100; /* c >> 8: 1, then the bits so far */
    uint32_t price = 0;
    const uint8_t *bp = e->bit_prices[0];
    do {
        mb <<= 1;
        /* (c << 4) & 0x800: the bit to code, as the row of bit_prices. */
        price += bp[((c << 4) & FZ7_LZMA_PROB_ONE) + probs[offs + (mb & offs) + (c >> 8)]];
        c <<= 1;
        offs &= ~(mb ^ c);
    } while (c < 0x10000);
    return price;
}

/* Distance slot of a 0-based distance (lzma-file-format.txt: slots 0..3
 * are the distances, then two slots per power of two). */
static inline uint32_t fz7_lzma_dist_slot(uint32_t dist0)
{
    if (dist0 < 4)
        return dist0;
    uint32_t n = 31u - (uint32_t)__builtin_clz(dist0);
    return (n << 1) | ((dist0 >> (n - 1)) & 1);
}

/* Price of the bits that select rep (0..3, with length >= 2) before its length. */
static inline uint32_t fz7_lzma_rep_price(const struct fz7_lzma_enc *e, uint32_t rep, uint32_t state, uint32_t ps)
{
    const fz7_lzma_probs *p = e->probs;
    uint32_t price = fz7_price_bit(e, p->is_match[state][ps], 1) + fz7_price_bit(e, p->is_rep[state], 1);
    if (rep == 0) {
        price += fz7_price_bit(e, p->is_rep0[state], 0) + fz7_price_bit(e, p->is_rep0_long[state][ps], 1);
    } else {
        price += fz7_price_bit(e, p->is_rep0[state], 1);
        if (rep == 1)
            price += fz7_price_bit(e, p->is_rep1[state], 0);
        else
            price += fz7_price_bit(e, p->is_rep1[state], 1) + fz7_price_bit(e, p->is_rep2[state], rep - 2);
    }
    return price;
}

/* Price of a short rep (one byte at rep0). */
static inline uint32_t fz7_lzma_short_rep_price(const struct fz7_lzma_enc *e, uint32_t state, uint32_t ps)
{
    const fz7_lzma_probs *p = e->probs;
    return fz7_price_bit(e, p->is_match[state][ps], 1) + fz7_price_bit(e, p->is_rep[state], 1)
         + fz7_price_bit(e, p->is_rep0[state], 0) + fz7_price_bit(e, p->is_rep0_long[state][ps], 0);
}

/* Price of the distance of a normal match of length len (tables). */
static inline uint32_t fz7_lzma_match_dist_price(const struct fz7_lzma_enc *e, uint32_t dist0, uint32_t len)
{
    uint32_t ds = fz7_lzma_dist_state(len);
    if (dist0 < FZ7_LZMA_FULL_DISTANCES)
        return e->dist_prices[ds][dist0];
    return e->slot_prices[ds][fz7_lzma_dist_slot(dist0)] + e->align_prices[dist0 & (FZ7_LZMA_ALIGN_SIZE - 1)];
}

#endif
