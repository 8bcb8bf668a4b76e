/* range_dec.h - the LZMA range decoder as macros over register-held locals.
 *
 * The hot loop keeps `range`, `code` (uint32_t) and `in` (const uint8_t *)
 * in local variables; these macros expand in place so no per-bit function
 * call or memory round trip happens. Normalisation is one compare: before
 * every bit, if range < 2^24, shift one input byte into code. The x86-64
 * branch-free bits use inline cmov; -DFZ7_LZMA_NO_ASM builds the portable
 * twins (same results). */
#ifndef FZ7_RANGE_DEC_H
#define FZ7_RANGE_DEC_H

#include "lzma/lzma_common.h"

/* Brings range back to >= 2^24 by shifting in one input byte. */
#define RC_NORMALIZE()                                   \
    do {                                                 \
        if (range < FZ7_LZMA_RC_TOP) {                   \
            range <<= 8;                                 \
            code = (code << 8) | *in++;                  \
        }                                                \
    } while (0)

/* Branching bit decode (best where the bit is predictable, e.g. is_match
 * on text). Needs RC_LOCALS in scope:
 *     RC_IF_BIT0(p) { RC_UPDATE0(p); ... } else { RC_UPDATE1(p); ... } */
#define RC_LOCALS uint32_t pv_, bound_
#define RC_IF_BIT0(p)                                                           \
    pv_ = *(p);                                                                 \
    RC_NORMALIZE();                                                             \
    bound_ = (range >> FZ7_LZMA_PROB_BITS) * pv_;                               \
    if (code < bound_)
#define RC_UPDATE0(p)                                                           \
    do {                                                                        \
        range = bound_;                                                         \
        *(p) = (fz7_lzma_prob)(pv_ + ((FZ7_LZMA_PROB_ONE - pv_) >> FZ7_LZMA_MOVE_BITS)); \
    } while (0)
#define RC_UPDATE1(p)                                                           \
    do {                                                                        \
        range -= bound_;                                                        \
        code -= bound_;                                                         \
        *(p) = (fz7_lzma_prob)(pv_ - (pv_ >> FZ7_LZMA_MOVE_BITS));              \
    } while (0)

/* Branch-free bit decode: sets bit (uint32_t, 0 or 1) from probability *p.
 * The probability update is the exact integer update of RC_UPDATE0/1
 * written as p' = p - ((p - (bit ? 0 : 2017)) >> 5) with an arithmetic
 * shift: for bit 0, (p - 2017) >> 5 = (31 - (2048 - p)) >> 5 rounds down
 * to -((2048 - p) >> 5). m is all ones for bit 0, else 0. (GCC and Clang
 * shift negative values arithmetically; the build requires one of them.) */
#define RC_PROB_NEXT(pv, m)                                                     \
    ((fz7_lzma_prob)((pv) - (uint32_t)((int32_t)((pv) - (2017u & (m))) >> FZ7_LZMA_MOVE_BITS)))
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FZ7_LZMA_NO_ASM)
/* x86-64: compilers turn the selects into branches; these must be
 * conditional moves. m_ = all ones when the bit is 0 (sbb of the carry
 * from code < bound). */
#define RC_BIT_BL(p, bit)                                                       \
    do {                                                                        \
        fz7_lzma_prob *pb_ = (p);                                               \
        uint32_t pvb_ = *pb_;                                                   \
        RC_NORMALIZE();                                                         \
        uint32_t bnd_ = (range >> FZ7_LZMA_PROB_BITS) * pvb_;                   \
        uint32_t r1_ = range - bnd_, c1_ = code - bnd_, m_, rn_ = bnd_;         \
        __asm__("cmpl %[b], %[c]\n\t"                                           \
                "cmovael %[r1], %[rn]\n\t"                                      \
                "cmovael %[c1], %[c]\n\t"                                       \
                "sbbl %[m], %[m]"                                               \
                : [rn] "+&r"(rn_), [c] "+&r"(code), [m] "=&r"(m_)               \
                : [b] "r"(bnd_), [r1] "r"(r1_), [c1] "r"(c1_)                   \
                : "cc");                                                        \
        range = rn_;                                                            \
        *pb_ = RC_PROB_NEXT(pvb_, m_);                                          \
        (bit) = m_ + 1u;                                                        \
    } while (0)
/* As RC_BIT_BL with the probability value pv already loaded from *p;
 * afterwards pv holds c1 if the bit was 1, else c0 (the two children,
 * loaded before the bit is known). */
#define RC_BIT_SEL(p, pv, c0, c1, bit)                                          \
    do {                                                                        \
        uint32_t c0s_ = (c0), c1s_ = (c1);                                      \
        RC_NORMALIZE();                                                         \
        uint32_t bnd_ = (range >> FZ7_LZMA_PROB_BITS) * (pv);                   \
        uint32_t r1_ = range - bnd_, cd1_ = code - bnd_, m_, rn_ = bnd_;        \
        uint32_t pold_ = (pv);                                                  \
        (pv) = c0s_;                                                            \
        __asm__("cmpl %[b], %[c]\n\t"                                           \
                "cmovael %[r1], %[rn]\n\t"                                      \
                "cmovael %[cd1], %[c]\n\t"                                      \
                "cmovael %[k1], %[pn]\n\t"                                      \
                "sbbl %[m], %[m]"                                               \
                : [rn] "+&r"(rn_), [c] "+&r"(code), [pn] "+&r"(pv), [m] "=&r"(m_) \
                : [b] "r"(bnd_), [r1] "r"(r1_), [cd1] "r"(cd1_), [k1] "r"(c1s_)  \
                : "cc");                                                        \
        range = rn_;                                                            \
        *(p) = RC_PROB_NEXT(pold_, m_);                                         \
        (bit) = m_ + 1u;                                                        \
    } while (0)
#else
#define RC_BIT_BL(p, bit)                                                       \
    do {                                                                        \
        fz7_lzma_prob *pb_ = (p);                                               \
        uint32_t pvb_ = *pb_;                                                   \
        RC_NORMALIZE();                                                         \
        uint32_t bnd_ = (range >> FZ7_LZMA_PROB_BITS) * pvb_;                   \
        (bit) = code >= bnd_;                                                   \
        uint32_t m_ = (bit) - 1u; /* all ones when the bit is 0 */             \
        code -= bnd_ & ~m_;                                                     \
        range = ((range - bnd_) & ~m_) | (bnd_ & m_);                           \
        *pb_ = RC_PROB_NEXT(pvb_, m_);                                          \
    } while (0)
#define RC_BIT_SEL(p, pv, c0, c1, bit)                                          \
    do {                                                                        \
        uint32_t c0s_ = (c0), c1s_ = (c1);                                      \
        RC_NORMALIZE();                                                         \
        uint32_t bnd_ = (range >> FZ7_LZMA_PROB_BITS) * (pv);                   \
        (bit) = code >= bnd_;                                                   \
        uint32_t m_ = (bit) - 1u;                                               \
        code -= bnd_ & ~m_;                                                     \
        range = ((range - bnd_) & ~m_) | (bnd_ & m_);                           \
        *(p) = RC_PROB_NEXT(pv, m_);                                            \
        (pv) = (c0s_ & m_) | (c1s_ & ~m_);                                      \
    } while (0)
#endif

/* One step down a bit tree: decodes the bit at probs[sym] and sets
 * sym = 2 * sym + bit, branch-free (literal and length bits are close to
 * random, so a mispredicted branch would dominate). */
#define RC_TREE_STEP(probs, sym)                                                \
    do {                                                                        \
        uint32_t tb_;                                                           \
        RC_BIT_BL((probs) + (sym), tb_);                                        \
        (sym) = ((sym) << 1) + tb_;                                             \
    } while (0)

/* One step down a bit tree with the next step's probability loaded ahead:
 * pv holds probs[sym] on entry; decodes its bit, updates probs[sym], sets
 * sym = 2 * sym + bit and pv = probs[sym] (the new sym). Not for a tree's
 * last level (its children lie outside the tree). Same results as
 * RC_BIT_SEL with the children probs[2 * sym], probs[2 * sym + 1]; the
 * x86-64 version is one asm block because the compiler's version of that
 * spends more instructions per bit (register copies, separate address
 * arithmetic for the two child loads). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FZ7_LZMA_NO_ASM)
#define RC_TREE_STEP_SEL(probs, sym, pv)                                        \
    do {                                                                        \
        RC_NORMALIZE();                                                         \
        uint64_t tss_ = (sym), tsm_, tst_, tsb_;                                        \
        uint32_t tsc_;                                                           \
        __asm__("movzwl (%[PR],%[S],4), %k[M]\n\t"                              \
                "movzwl 2(%[PR],%[S],4), %[C1]\n\t"                             \
                "movl %[RG], %k[B]\n\t"                                         \
                "shrl $11, %k[B]\n\t"                                           \
                "imull %[PV], %k[B]\n\t"                                        \
                "subl %k[B], %[RG]\n\t"                                         \
                "movl %[CD], %k[T]\n\t"                                         \
                "subl %k[B], %[CD]\n\t"                                         \
                "cmovbl %k[B], %[RG]\n\t"                                       \
                "cmovbl %k[T], %[CD]\n\t"                                       \
                "cmovbl %k[M], %[C1]\n\t"                                       \
                "sbbq %[M], %[M]\n\t"                                           \
                "movl %k[M], %k[B]\n\t"                                         \
                "andl $2017, %k[B]\n\t"                                         \
                "movl %[PV], %k[T]\n\t"                                         \
                "subl %k[B], %k[T]\n\t"                                         \
                "sarl $5, %k[T]\n\t"                                            \
                "subl %k[T], %[PV]\n\t"                                         \
                "movw %w[PV], (%[PR],%[S],2)\n\t"                               \
                "leaq 1(%[M],%[S],2), %[S]\n\t"                                 \
                "movl %[C1], %[PV]"                                             \
                : [RG] "+&r"(range), [CD] "+&r"(code), [PV] "+&r"(pv),          \
                  [S] "+&r"(tss_), [M] "=&r"(tsm_), [T] "=&r"(tst_), [B] "=&r"(tsb_),   \
                  [C1] "=&r"(tsc_)                                               \
                : [PR] "r"(probs)                                               \
                : "cc", "memory");                                              \
        (sym) = (uint32_t)tss_;                                                 \
    } while (0)
#else
#define RC_TREE_STEP_SEL(probs, sym, pv)                                        \
    do {                                                                        \
        uint32_t tsb_;                                                          \
        RC_BIT_SEL((probs) + (sym), pv, (probs)[2 * (sym)], (probs)[2 * (sym) + 1], tsb_); \
        (sym) = ((sym) << 1) + tsb_;                                            \
    } while (0)
#endif

/* One step of a reverse bit tree (distance footers, align bits): decodes
 * the bit at probs[idx], idx = 2 * idx + bit, and adds bit << shift to acc. */
#define RC_REV_STEP(probs, idx, acc, shift)                                     \
    do {                                                                        \
        uint32_t before_ = (idx);                                               \
        RC_TREE_STEP(probs, idx);                                               \
        (acc) += ((idx) - 2 * before_) << (shift);                              \
    } while (0)

/* n (1..26) direct bits (a far distance's middle bits), appended to acc,
 * with no branch. The ranges these bits use do not depend on the data:
 * after one normalisation the range r0 halves m = min(bits until it drops
 * below 2^24, n) times, each halving dropping its low bit; the remaining
 * n2 = n - m bits start with a normalisation, one more every 8 bits, and
 * lose nothing, so their ranges are A/2, A/4, ... A/2^n2 exactly, with
 * A = (r0 >> m) << 32 the range at the scale of x = code << 32 | the next
 * 4 input bytes.
 * - The first m bits: a fixed 8 steps of "c >= d ? c -= d, 1 : 0" over
 *   d = (r0 << (8 - m)) >> 1 .. >> 8; the first 8 - m steps have d >= r0
 *   > code and give leading 0 bits.
 * - The last n2 bits are the restoring division of x by A / 2^n2: one
 *   64-bit divide, quotient = the bits, remainder = the code at that scale.
 * Afterwards, k = ceil(n2 / 8) normalisations happened: code and range
 * sit at scale s = 32 - 8k and k input bytes are used. For a valid stream
 * (code < range) this is exactly the bit-by-bit decode; on corrupt input
 * the results differ but stay in range (the bits are masked to n). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FZ7_LZMA_NO_ASM)
/* q gets the inverted bit (the borrow of c - d) as its low bit. */
#define RC_DIRECT_STEP_(c, d, q)                                                \
    do {                                                                        \
        uint64_t t_ = (c);                                                      \
        __asm__("subq %[dv], %[tv]\n\t"                                         \
                "cmovaeq %[tv], %[cv]\n\t"                                      \
                "adcl %[qv], %[qv]"                                             \
                : [tv] "+&r"(t_), [cv] "+&r"(c), [qv] "+&r"(q)                  \
                : [dv] "r"(d)                                                   \
                : "cc");                                                        \
    } while (0)
#define RC_DIRECT_INVERTED_ 0xFFu
#else
#define RC_DIRECT_STEP_(c, d, q)                                                \
    do {                                                                        \
        uint64_t d_ = (d);                                                      \
        uint32_t b_ = (c) >= d_;                                                \
        (c) -= d_ & (0 - (uint64_t)b_);                                         \
        (q) = ((q) << 1) + b_;                                                  \
    } while (0)
#define RC_DIRECT_INVERTED_ 0u
#endif
#define RC_DIRECT_BITS(n, acc)                                                  \
    do {                                                                        \
        RC_NORMALIZE();                                                         \
        const unsigned n_ = (n);                                                \
        unsigned m_ = 8u - (unsigned)__builtin_clz(range);                      \
        m_ = m_ < n_ ? m_ : n_;                                                 \
        const unsigned n2_ = n_ - m_;                                           \
        const uint64_t w_ = (uint64_t)range << (8u - m_);                       \
        uint64_t c_ = code;                                                     \
        uint32_t q_ = 0;                                                        \
        RC_DIRECT_STEP_(c_, w_ >> 1, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 2, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 3, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 4, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 5, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 6, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 7, q_);                                       \
        RC_DIRECT_STEP_(c_, w_ >> 8, q_);                                       \
        const uint32_t q1_ = (q_ ^ RC_DIRECT_INVERTED_) & ((1u << m_) - 1u);    \
        uint64_t x_ = (c_ << 32) | ((uint32_t)in[0] << 24) |                    \
                      ((uint32_t)in[1] << 16) | ((uint32_t)in[2] << 8) | in[3]; \
        const uint64_t dv_ = ((uint64_t)(range >> m_) << 32) >> n2_;            \
        const uint64_t q2_ = x_ / dv_;                                          \
        x_ -= q2_ * dv_;                                                        \
        const unsigned k_ = (n2_ + 7u) >> 3;                                    \
        const unsigned s_ = 32u - 8u * k_;                                      \
        range = (uint32_t)(dv_ >> s_);                                          \
        code = (uint32_t)(x_ >> s_);                                            \
        in += k_;                                                               \
        (acc) = ((acc) << n_) + (q1_ << n2_) + ((uint32_t)q2_ & ((1u << n2_) - 1u)); \
    } while (0)

/* One direct bit (probability 1/2), appended to acc. */
#define RC_DIRECT_BIT(acc)                                                      \
    do {                                                                        \
        RC_NORMALIZE();                                                         \
        range >>= 1;                                                            \
        uint32_t m_ = 0u - (uint32_t)(code >= range);                           \
        code -= range & m_;                                                     \
        (acc) = ((acc) << 1) + (m_ & 1u);                                       \
    } while (0)

#endif
