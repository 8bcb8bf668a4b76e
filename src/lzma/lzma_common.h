/* lzma_common.h - the LZMA model both the encoder and the decoder must agree on.
 *
 * Constants, the state machine (states 0..11) and the probability layout of
 * lzma-file-format.txt / the LZMA SDK description, kept in one place so the
 * two sides cannot drift apart. Plain macros and inline helpers only. */
#ifndef FZ7_LZMA_COMMON_H
#define FZ7_LZMA_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Range coder ------------------------------------------------------ */

/* A probability is an 11-bit estimate that the next bit is 0, stored in
 * 16 bits. It starts at one half and moves 1/32 of the way toward the
 * observed bit after every coded bit. */
typedef uint16_t fz7_lzma_prob;
#define FZ7_LZMA_PROB_BITS 11
#define FZ7_LZMA_PROB_ONE (1u << FZ7_LZMA_PROB_BITS)     /* 2048 */
#define FZ7_LZMA_PROB_INIT (FZ7_LZMA_PROB_ONE / 2)       /* 1024 */
#define FZ7_LZMA_MOVE_BITS 5
/* The range is renormalised (shifted left by a byte) whenever it falls
 * below 2^24. */
#define FZ7_LZMA_RC_TOP (1u << 24)
/* A range-coded stream starts with 5 bytes; the first is always 0. */
#define FZ7_LZMA_RC_INIT_BYTES 5

/* ---- Properties (lc, lp, pb, dictionary size) -------------------------- */

#define FZ7_LZMA_LC_MAX 8
#define FZ7_LZMA_LP_MAX 4
#define FZ7_LZMA_PB_MAX 4
#define FZ7_LZMA_POS_BITS_MAX 4                          /* kNumPosBitsMax */
#define FZ7_LZMA_POS_STATES_MAX (1u << FZ7_LZMA_POS_BITS_MAX)
/* LZMA2 restricts the literal context to lc + lp <= 4. */
#define FZ7_LZMA2_LCLP_MAX 4
/* The properties byte is (pb * 5 + lp) * 9 + lc, so it is below 225. */
#define FZ7_LZMA_PROPS_BYTE_MAX (9 * 5 * 5 - 1)
/* Smallest dictionary a decoder uses (smaller header values are raised). */
#define FZ7_LZMA_DICT_MIN 4096u

/* Splits a properties byte; false if it is >= 225. */
static inline bool fz7_lzma_props_decode(uint8_t b, unsigned *lc, unsigned *lp, unsigned *pb)
{
    if (b > FZ7_LZMA_PROPS_BYTE_MAX)
        return false;
    *lc = b % 9u;
    b = (uint8_t)(b / 9u);
    *lp = b % 5u;
    *pb = b / 5u;
    return true;
}

/* The inverse of fz7_lzma_props_decode. */
static inline uint8_t fz7_lzma_props_encode(unsigned lc, unsigned lp, unsigned pb)
{
    return (uint8_t)((pb * 5u + lp) * 9u + lc);
}

/* ---- State machine ----------------------------------------------------- */

/* 12 states remember the kinds of the last few symbols. States 0..6 mean
 * the previous symbol was a literal (so the next literal is coded plainly);
 * 7..11 mean it was a match, rep or short rep (the next literal is coded
 * "matched" against the byte at distance rep0). */
#define FZ7_LZMA_NUM_STATES 12
#define FZ7_LZMA_LIT_STATES 7

static inline bool fz7_lzma_state_is_literal(unsigned s) { return s < FZ7_LZMA_LIT_STATES; }

/* State after a literal: 0..3 -> 0, 4..9 -> s-3, 10..11 -> s-6. */
static inline unsigned fz7_lzma_state_after_literal(unsigned s)
{
    return s < 4 ? 0 : (s < 10 ? s - 3 : s - 6);
}
/* After a match: 7 if the previous was a literal state, else 10. */
static inline unsigned fz7_lzma_state_after_match(unsigned s) { return s < FZ7_LZMA_LIT_STATES ? 7 : 10; }
/* After a long rep (rep0 with length, rep1..rep3): 8 or 11. */
static inline unsigned fz7_lzma_state_after_rep(unsigned s) { return s < FZ7_LZMA_LIT_STATES ? 8 : 11; }
/* After a short rep (one byte at rep0): 9 or 11. */
static inline unsigned fz7_lzma_state_after_short_rep(unsigned s) { return s < FZ7_LZMA_LIT_STATES ? 9 : 11; }

/* ---- Literals ---------------------------------------------------------- */

/* Each literal context (selected by lc high bits of the previous byte and
 * lp low bits of the position) owns 0x300 probabilities: a 256-leaf bit
 * tree for plain literals (indices 1..255) plus the matched-literal trees
 * (0x100 + match_bit * 0x100 + symbol). */
#define FZ7_LZMA_LITERAL_CODER_SIZE 0x300u

/* Index of the first probability of the literal context for a byte at
 * position pos whose previous byte is prev. */
static inline size_t fz7_lzma_literal_offset(uint64_t pos, uint8_t prev, unsigned lc, unsigned lp)
{
    size_t ctx = (size_t)((((uint32_t)pos & ((1u << lp) - 1u)) << lc) + ((unsigned)prev >> (8u - lc)));
    return ctx * FZ7_LZMA_LITERAL_CODER_SIZE;
}

/* ---- Lengths ----------------------------------------------------------- */

/* Match lengths 2..273: choice bit 0 -> low tree (3 bits, per pos state),
 * choice 1 + choice2 0 -> mid tree (3 bits, per pos state), else the high
 * tree (8 bits, shared). */
#define FZ7_LZMA_MATCH_LEN_MIN 2u
#define FZ7_LZMA_MATCH_LEN_MAX 273u
#define FZ7_LZMA_LEN_LOW_BITS 3
#define FZ7_LZMA_LEN_MID_BITS 3
#define FZ7_LZMA_LEN_HIGH_BITS 8
#define FZ7_LZMA_LEN_LOW_SYMBOLS (1u << FZ7_LZMA_LEN_LOW_BITS)   /* 8 */
#define FZ7_LZMA_LEN_MID_SYMBOLS (1u << FZ7_LZMA_LEN_MID_BITS)   /* 8 */
#define FZ7_LZMA_LEN_HIGH_SYMBOLS (1u << FZ7_LZMA_LEN_HIGH_BITS) /* 256 */
#define FZ7_LZMA_LEN_SYMBOLS \
    (FZ7_LZMA_LEN_LOW_SYMBOLS + FZ7_LZMA_LEN_MID_SYMBOLS + FZ7_LZMA_LEN_HIGH_SYMBOLS) /* 272 */

/* Probabilities of one length coder (one for matches, one for reps).
 * Tree arrays are indexed from 1 (index 0 unused), as bit trees are. */
typedef struct fz7_lzma_len_probs {
    fz7_lzma_prob choice;
    fz7_lzma_prob choice2;
    fz7_lzma_prob low[FZ7_LZMA_POS_STATES_MAX][FZ7_LZMA_LEN_LOW_SYMBOLS];
    fz7_lzma_prob mid[FZ7_LZMA_POS_STATES_MAX][FZ7_LZMA_LEN_MID_SYMBOLS];
    fz7_lzma_prob high[FZ7_LZMA_LEN_HIGH_SYMBOLS];
} fz7_lzma_len_probs;

/* ---- Distances --------------------------------------------------------- */

/* The distance slot (6-bit tree) is chosen by min(len - 2, 3). Slots 0..3
 * are the distances themselves; slot s >= 4 has (s >> 1) - 1 footer bits
 * under the base (2 | (s & 1)) << footer_bits. Slots 4..13 code all footer
 * bits with reverse bit trees in dist_special; slots 14..63 code the high
 * footer bits directly (probability 1/2) and the low 4 bits with the
 * reverse tree dist_align. Distances are stored minus one (rep0 = 0 means
 * the previous byte). */
#define FZ7_LZMA_DIST_STATES 4
#define FZ7_LZMA_DIST_SLOT_BITS 6
#define FZ7_LZMA_DIST_SLOTS (1u << FZ7_LZMA_DIST_SLOT_BITS)  /* 64 */
#define FZ7_LZMA_DIST_MODEL_START 4                          /* first slot with footer bits */
#define FZ7_LZMA_DIST_MODEL_END 14                           /* first slot using dist_align */
#define FZ7_LZMA_FULL_DISTANCES (1u << (FZ7_LZMA_DIST_MODEL_END >> 1)) /* 128 */
#define FZ7_LZMA_ALIGN_BITS 4
#define FZ7_LZMA_ALIGN_SIZE (1u << FZ7_LZMA_ALIGN_BITS)       /* 16 */
/* For slot s in [4, 14) with base b, the reverse tree's node i (from 1)
 * is dist_special[b - s - 1 + i]; 114 entries cover all ten slots. */
#define FZ7_LZMA_DIST_SPECIAL_SIZE (FZ7_LZMA_FULL_DISTANCES - FZ7_LZMA_DIST_MODEL_END) /* 114 */
/* A match whose decoded rep0 is 0xFFFFFFFF is the end marker (it is coded
 * as a match of length 2 with all distance bits set). */
#define FZ7_LZMA_END_MARKER_DIST 0xFFFFFFFFu

/* Distance state for a match length (len >= 2). */
static inline unsigned fz7_lzma_dist_state(uint32_t len)
{
    return len < FZ7_LZMA_DIST_STATES + 1 ? len - 2 : FZ7_LZMA_DIST_STATES - 1;
}

/* ---- All probabilities of one LZMA model -------------------------------- */

/* is_match and is_rep0_long are per state and pos state
 * ([state][pos & ((1 << pb) - 1)]); the literal array is variable:
 * FZ7_LZMA_LITERAL_CODER_SIZE << (lc + lp) entries (allocate with
 * fz7_lzma_probs_size). */
typedef struct fz7_lzma_probs {
    fz7_lzma_prob is_match[FZ7_LZMA_NUM_STATES][FZ7_LZMA_POS_STATES_MAX];
    fz7_lzma_prob is_rep[FZ7_LZMA_NUM_STATES];
    fz7_lzma_prob is_rep0[FZ7_LZMA_NUM_STATES];
    fz7_lzma_prob is_rep1[FZ7_LZMA_NUM_STATES];
    fz7_lzma_prob is_rep2[FZ7_LZMA_NUM_STATES];
    fz7_lzma_prob is_rep0_long[FZ7_LZMA_NUM_STATES][FZ7_LZMA_POS_STATES_MAX];
    fz7_lzma_prob dist_slot[FZ7_LZMA_DIST_STATES][FZ7_LZMA_DIST_SLOTS];
    fz7_lzma_prob dist_special[FZ7_LZMA_DIST_SPECIAL_SIZE];
    fz7_lzma_prob dist_align[FZ7_LZMA_ALIGN_SIZE];
    fz7_lzma_len_probs match_len;
    fz7_lzma_len_probs rep_len;
    fz7_lzma_prob literal[]; /* 0x300 << (lc + lp) */
} fz7_lzma_probs;

/* Bytes of an fz7_lzma_probs for lc + lp literal context bits. */
static inline size_t fz7_lzma_probs_size(unsigned lc, unsigned lp)
{
    return sizeof(fz7_lzma_probs) + ((size_t)FZ7_LZMA_LITERAL_CODER_SIZE << (lc + lp)) * sizeof(fz7_lzma_prob);
}

/* Sets every probability to one half (the state at a stream start, and at
 * every LZMA2 state reset). The set part is copied over the rest, doubling:
 * a few calls even for lc + lp = 12 (3 M probabilities), which keeps a
 * coverage-instrumented build from paying a callback per probability. */
static inline void fz7_lzma_probs_init(fz7_lzma_probs *p, unsigned lc, unsigned lp)
{
    fz7_lzma_prob *a = (fz7_lzma_prob *)p;
    size_t n = fz7_lzma_probs_size(lc, lp) / sizeof(fz7_lzma_prob), done = 1;
    a[0] = FZ7_LZMA_PROB_INIT;
    while (done < n) {
        size_t k = done < n - done ? done : n - done;
        memcpy(a + done, a, k * sizeof *a);
        done += k;
    }
}

#endif
