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
 * written as p' = p + 2048 - ((p + 65536 - (bit ? 0 : 2017)) >> 5). */
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
        *pb_ = (fz7_lzma_prob)(pvb_ + FZ7_LZMA_PROB_ONE -                       \
                               ((pvb_ + 65536u - (2017u & m_)) >> FZ7_LZMA_MOVE_BITS)); \
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
        *(p) = (fz7_lzma_prob)(pold_ + FZ7_LZMA_PROB_ONE -                      \
                               ((pold_ + 65536u - (2017u & m_)) >> FZ7_LZMA_MOVE_BITS)); \
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
        *pb_ = (fz7_lzma_prob)(pvb_ + FZ7_LZMA_PROB_ONE -                       \
                               ((pvb_ + 65536u - (2017u & m_)) >> FZ7_LZMA_MOVE_BITS)); \
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
        *(p) = (fz7_lzma_prob)((pv) + FZ7_LZMA_PROB_ONE -                       \
                               (((pv) + 65536u - (2017u & m_)) >> FZ7_LZMA_MOVE_BITS)); \
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

/* One step of a reverse bit tree (distance footers, align bits): decodes
 * the bit at probs[idx], idx = 2 * idx + bit, and adds bit << shift to acc. */
#define RC_REV_STEP(probs, idx, acc, shift)                                     \
    do {                                                                        \
        uint32_t before_ = (idx);                                               \
        RC_TREE_STEP(probs, idx);                                               \
        (acc) += ((idx) - 2 * before_) << (shift);                              \
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
