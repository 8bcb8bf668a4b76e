/* bcj_riscv.c - RISC-V BCJ encoder and decoder. The encoder rewrites two
 * things, on 2-byte steps (compressed instructions keep 32-bit ones 2-byte
 * aligned):
 *   - JAL with rd = ra or t0: the 21-bit offset becomes an absolute
 *     address, its bits stored high first in the immediate's bytes;
 *   - AUIPC rd + a 32-bit inst2 whose rs1 is rd (rd not x0 or x2): stored
 *     as "AUIPC x2" carrying inst2's low 20 bits, followed by the absolute
 *     target big endian. Real AUIPC x2 pairs that look like that special
 *     form were swapped the other way by the encoder, so every byte
 *     sequence maps back one to one. */
#include "filter/bcj_riscv.h"

#include "filter/filter.h"

static inline uint32_t get32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void put32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The J-type immediate field (inst[31:12]) of a byte offset:
 * imm[20] -> 31, imm[10:1] -> 30..21, imm[11] -> 20, imm[19:12] -> 19..12. */
static inline uint32_t jtype_field(uint32_t off)
{
    return ((off & 0x100000u) << 11) | ((off & 0x7FEu) << 20) | ((off & 0x800u) << 9) | (off & 0xFF000u);
}

/* The byte offset (bits [20:1], unsigned) in a J-type immediate field:
 * jtype_field's inverse. */
static inline uint32_t jtype_offset(uint32_t inst)
{
    return ((inst >> 11) & 0x100000u) | ((inst >> 20) & 0x7FEu) | ((inst >> 9) & 0x800u) |
           (inst & 0xFF000u);
}

/* JAL at p (pc): the stored absolute address, bits [20:1] spread as
 * p[1] high nibble = [20:17], p[2] = [16:9], p[3] = [8:1]. */
static void jal_decode(uint8_t *p, uint32_t pc)
{
    uint32_t abs = ((uint32_t)(p[1] & 0xF0) << 13) | ((uint32_t)p[2] << 9) | ((uint32_t)p[3] << 1);
    uint32_t inst = (uint32_t)p[0] | ((uint32_t)(p[1] & 0x0F) << 8) | jtype_field(abs - pc);
    fz7_put32le(p, inst);
}

/* JAL at p (pc): its target made absolute and stored as jal_decode reads
 * it; only bits [20:1] are kept, which is all the decoder needs (it works
 * modulo 2^21). p[1]'s low nibble (rd and funct bits) stays. */
static void jal_encode(uint8_t *p, uint32_t pc)
{
    uint32_t abs = jtype_offset(fz7_get32le(p)) + pc;
    p[1] = (uint8_t)((p[1] & 0x0F) | ((abs >> 13) & 0xF0));
    p[2] = (uint8_t)(abs >> 9);
    p[3] = (uint8_t)(abs >> 1);
}

/* One pass of the encoder or the decoder. They take the same steps: every
 * test looks at bytes the conversion leaves alone (p[0], p[1] & 0x0D, an
 * unconverted pair; the first word's rd and the special form's rs1 swap
 * places but keep their class), so the decoder, scanning the encoder's
 * output, meets each converted instruction where the encoder made it. */
static size_t riscv_code(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n, bool encode)
{
    if (n < 8)
        return 0;
    size_t i = 0;
    while (i <= n - 8) {
        uint8_t *p = buf + i;
        uint32_t pc = s->pos + (uint32_t)i;
        if (p[0] == 0xEF) {
            /* JAL (opcode 6F, rd bit 0 set): rd must be x1 or x5. */
            if ((p[1] & 0x0D) == 0) {
                if (encode)
                    jal_encode(p, pc);
                else
                    jal_decode(p, pc);
                i += 4;
            } else {
                i += 2;
            }
            continue;
        }
        if ((p[0] & 0x7F) != 0x17) {
            i += 2;
            continue;
        }
        /* AUIPC. */
        uint32_t inst = fz7_get32le(p), inst2 = fz7_get32le(p + 4);
        unsigned rd = (inst >> 7) & 0x1F;
        if (rd != 0 && rd != 2) {
            /* AUIPC rd and an inst2 whose rs1 is rd. Encode: to the
             * special form, "AUIPC x2" carrying inst2's low 20 bits, then
             * the absolute target (the AUIPC part plus inst2's
             * sign-extended 12 bits) big endian. Decode: such a pair was
             * the encoder's image of a real special-looking "AUIPC x2"
             * pair: swap it back. */
            if (((inst2 >> 15) & 0x1F) != rd || (inst2 & 3) != 3) {
                i += 6;
                continue;
            }
            uint32_t upper = inst & 0xFFFFF000u, imm = inst2 >> 20;
            fz7_put32le(p, 0x17u | (2u << 7) | (inst2 << 12));
            if (encode)
                put32be(p + 4, upper + (imm ^ 0x800u) - 0x800u + pc);
            else
                fz7_put32le(p + 4, upper + imm);
        } else {
            /* The special form: AUIPC x2, inst2's opcode bits 11 in
             * [13:12], inst2's rs1 (not x0 or x2) in [31:27]. Decode: the
             * pair back from the absolute target. Encode: a real AUIPC x2
             * of that shape becomes the ordinary-looking pair the decoder
             * swaps back, inst2's bits split as the decoder joins them
             * (no address in it, so pc plays no part). */
            unsigned rs1 = inst >> 27;
            if ((inst & 0x3FFF) != 0x3117 || (rs1 & 0x1D) == 0) {
                i += 4;
                continue;
            }
            uint32_t x = encode ? inst2 : get32be(p + 4) - pc;
            /* Decoding, inst2's 12-bit immediate is sign-extended: round
             * the AUIPC part to compensate. */
            uint32_t upper = (encode ? x : x + 0x800u) & 0xFFFFF000u;
            fz7_put32le(p, 0x17u | ((uint32_t)rs1 << 7) | upper);
            fz7_put32le(p + 4, (inst >> 12) | (x << 20));
        }
        i += 8;
    }
    s->pos += (uint32_t)i;
    return i;
}

size_t fz7_bcj_riscv_encode(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n)
{
    return riscv_code(s, buf, n, true);
}

size_t fz7_bcj_riscv_decode(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n)
{
    return riscv_code(s, buf, n, false);
}

static size_t riscv_filter(void *state, uint8_t *buf, size_t n)
{
    return fz7_bcj_riscv_decode(state, buf, n);
}

fz7_status fz7_bcj_riscv_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out)
{
    *out = NULL;
    if (start_offset & 1)
        return FZ7_E_ARG;
    fz7_bcj_riscv_state s = {start_offset};
    return fz7_filter_istream_new(src, riscv_filter, &s, sizeof s, out);
}
