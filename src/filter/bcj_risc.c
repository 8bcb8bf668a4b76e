/* bcj_risc.c - BCJ filters for fixed-width instruction sets: PowerPC, ARM,
 * ARM Thumb, SPARC, ARM64 and IA-64 (xz filter IDs 0x05, 0x07, 0x08, 0x09,
 * 0x0A, 0x06; 7z 03030205, 03030501, 03030701, 03030805, 0A, 03030401). Each branch or call gets
 * its target made absolute (xz-file-format.txt 5.3.2); bit-compatible with
 * xz and 7-Zip. RISC-V (0x0B) has its own file, bcj_riscv.c; it is
 * dispatched from here so the writers reach it like the others. */
#include "filter/filter.h"

#include "filter/bcj_riscv.h"

static uint32_t get32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void put32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* PowerPC (big endian) "bl": primary opcode 18, AA = 0, LK = 1; the word
 * displacement sits in bits 2..25. */
static size_t bcj_ppc(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t insn = get32be(buf + i);
        if ((insn & 0xFC000003u) != 0x48000001u)
            continue;
        uint32_t pc = pos + (uint32_t)i;
        uint32_t disp = insn & 0x03FFFFFCu;
        uint32_t dest = encode ? disp + pc : disp - pc;
        put32be(buf + i, 0x48000001u | (dest & 0x03FFFFFCu));
    }
    return i;
}

/* ARM (32-bit, little endian) "bl" with condition AL: top byte 0xEB; a
 * 24-bit word offset from the instruction address + 8. */
static size_t bcj_arm(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        if (buf[i + 3] != 0xEB)
            continue;
        uint32_t off = (fz7_get32le(buf + i) & 0x00FFFFFFu) << 2;
        uint32_t pc = pos + (uint32_t)i + 8;
        uint32_t dest = (encode ? off + pc : off - pc) >> 2;
        buf[i] = (uint8_t)dest;
        buf[i + 1] = (uint8_t)(dest >> 8);
        buf[i + 2] = (uint8_t)(dest >> 16);
    }
    return i;
}

/* ARM Thumb "bl": a pair of 16-bit halves 11110hhh hhhhhhhh (high 11 bits
 * of the halfword offset) then 11111lll llllllll (low 11 bits), from the
 * instruction address + 4. Scanned at every halfword; a converted pair is
 * skipped as a whole. */
static size_t bcj_armt(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 2) {
        if ((buf[i + 1] & 0xF8) != 0xF0 || (buf[i + 3] & 0xF8) != 0xF8)
            continue;
        uint32_t off = (((uint32_t)(buf[i + 1] & 7) << 19) | ((uint32_t)buf[i] << 11) |
                        ((uint32_t)(buf[i + 3] & 7) << 8) | buf[i + 2]) << 1;
        uint32_t pc = pos + (uint32_t)i + 4;
        uint32_t dest = (encode ? off + pc : off - pc) >> 1;
        buf[i + 1] = (uint8_t)(0xF0 | ((dest >> 19) & 7));
        buf[i] = (uint8_t)(dest >> 11);
        buf[i + 3] = (uint8_t)(0xF8 | ((dest >> 8) & 7));
        buf[i + 2] = (uint8_t)dest;
        i += 2;
    }
    return i;
}

/* SPARC "call" (op = 01, 30-bit word displacement), converted only when
 * the displacement fits in 23 bits (its top 9 bits all 0 or all 1), and
 * stored back sign-extended from bit 22. */
static size_t bcj_sparc(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        bool near_fwd = buf[i] == 0x40 && (buf[i + 1] & 0xC0) == 0x00;
        bool near_back = buf[i] == 0x7F && (buf[i + 1] & 0xC0) == 0xC0;
        if (!near_fwd && !near_back)
            continue;
        uint32_t off = get32be(buf + i) << 2;
        uint32_t pc = pos + (uint32_t)i;
        uint32_t dest = (encode ? off + pc : off - pc) >> 2;
        uint32_t sign = (0u - ((dest >> 22) & 1)) << 22;
        put32be(buf + i, (sign & 0x3FFFFFFFu) | (dest & 0x003FFFFFu) | 0x40000000u);
    }
    return i;
}

/* ARM64: BL (top 6 bits 100101, imm26 in words) and ADRP (bit 31 = 1,
 * bits 24..28 = 10000; a 21-bit page offset split as immlo bits 29..30 and
 * immhi bits 5..23). ADRP is converted only when its offset is within
 * +-512 MiB (bits 18..20 equal to bit 17), and the result is stored
 * sign-extended the same way, as xz 5.4 and 7-Zip do. */
static size_t bcj_arm64(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t insn = fz7_get32le(buf + i);
        uint32_t pc = pos + (uint32_t)i;
        if ((insn >> 26) == 0x25) {
            uint32_t words = pc >> 2;
            uint32_t dest = encode ? insn + words : insn - words;
            fz7_put32le(buf + i, 0x94000000u | (dest & 0x03FFFFFFu));
        } else if ((insn & 0x9F000000u) == 0x90000000u) {
            uint32_t pages = ((insn >> 29) & 3) | ((insn >> 3) & 0x001FFFFCu);
            if (((pages + 0x00020000u) & 0x001C0000u) != 0)
                continue;
            uint32_t page = pc >> 12;
            uint32_t dest = encode ? pages + page : pages - page;
            insn &= 0x9000001Fu;
            insn |= (dest & 3) << 29;
            insn |= (dest & 0x0003FFFCu) << 3;
            insn |= (0u - (dest & 0x00020000u)) & 0x00E00000u;
            fz7_put32le(buf + i, insn);
        }
    }
    return i;
}

/* IA-64: 16-byte bundles of a 5-bit template and three 41-bit slots. For
 * the templates with B-unit slots (which slots: the table below), an
 * IP-relative br.call/br.cond (opcode 5, btype 0) has its 21-bit bundle
 * offset (imm20b in bits 13..32, sign in bit 36) made absolute. */
static size_t bcj_ia64(uint32_t pos, uint8_t *buf, size_t n, bool encode)
{
    static const uint8_t branch_slots[32] = {
        [0x10] = 4, [0x11] = 4, [0x12] = 6, [0x13] = 6, [0x16] = 7, [0x17] = 7,
        [0x18] = 4, [0x19] = 4, [0x1C] = 4, [0x1D] = 4};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        unsigned slots = branch_slots[buf[i] & 0x1F];
        for (unsigned slot = 0; slot < 3; slot++) {
            if (!(slots >> slot & 1))
                continue;
            unsigned bit = 5 + 41 * slot;
            uint8_t *p = buf + i + bit / 8;
            unsigned shift = bit % 8;
            uint64_t raw = 0;
            for (unsigned j = 0; j < 6; j++)
                raw |= (uint64_t)p[j] << (8 * j);
            uint64_t insn = raw >> shift;
            if ((insn >> 37 & 0xF) != 5 || (insn >> 9 & 7) != 0)
                continue;
            uint32_t off = (uint32_t)((insn >> 13 & 0xFFFFF) | (insn >> 36 & 1) << 20) << 4;
            uint32_t pc = pos + (uint32_t)i;
            uint32_t dest = (encode ? off + pc : off - pc) >> 4;
            insn &= ~((uint64_t)0x8FFFFF << 13);
            insn |= (uint64_t)(dest & 0xFFFFF) << 13;
            insn |= (uint64_t)(dest & 0x100000) << 16;
            raw = (raw & (((uint64_t)1 << shift) - 1)) | insn << shift;
            for (unsigned j = 0; j < 6; j++)
                p[j] = (uint8_t)(raw >> (8 * j));
        }
    }
    return i;
}

unsigned fz7_bcj_risc_alignment(fz7_bcj_arch arch)
{
    return arch == FZ7_BCJ_ARMT || arch == FZ7_BCJ_RISCV ? 2 : arch == FZ7_BCJ_IA64 ? 16 : 4;
}

size_t fz7_bcj_risc_code(fz7_bcj_risc_state *s, uint8_t *buf, size_t n, bool encode)
{
    size_t done = 0;
    switch (s->arch) {
    case FZ7_BCJ_PPC: done = bcj_ppc(s->pos, buf, n, encode); break;
    case FZ7_BCJ_ARM: done = bcj_arm(s->pos, buf, n, encode); break;
    case FZ7_BCJ_ARMT: done = bcj_armt(s->pos, buf, n, encode); break;
    case FZ7_BCJ_SPARC: done = bcj_sparc(s->pos, buf, n, encode); break;
    case FZ7_BCJ_ARM64: done = bcj_arm64(s->pos, buf, n, encode); break;
    case FZ7_BCJ_IA64: done = bcj_ia64(s->pos, buf, n, encode); break;
    case FZ7_BCJ_RISCV: {
        fz7_bcj_riscv_state r = {s->pos};
        done = encode ? fz7_bcj_riscv_encode(&r, buf, n) : fz7_bcj_riscv_decode(&r, buf, n);
        break;
    }
    }
    s->pos += (uint32_t)done;
    return done;
}

static size_t risc_decode_fn(void *state, uint8_t *buf, size_t n)
{
    return fz7_bcj_risc_code(state, buf, n, false);
}

fz7_status fz7_bcj_risc_istream_new(fz7_istream *src, fz7_bcj_arch arch, uint32_t start_offset,
                                    fz7_istream **out)
{
    *out = NULL;
    if ((unsigned)arch > FZ7_BCJ_RISCV || start_offset % fz7_bcj_risc_alignment(arch) != 0)
        return FZ7_E_ARG;
    fz7_bcj_risc_state s = {arch, start_offset};
    return fz7_filter_istream_new(src, risc_decode_fn, &s, sizeof s, out);
}
