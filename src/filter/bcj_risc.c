/* bcj_risc.c - BCJ filters for fixed-width instruction sets: PowerPC
 * (big endian, xz filter 0x05, 7z 03030205) and ARM64 (xz 0x0A, 7z 0A).
 * Each 4-byte-aligned branch gets its target made absolute
 * (xz-file-format.txt 5.3.2); bit-compatible with xz and 7-Zip. */
#include "filter/filter.h"

#include <stdbool.h>

/* PowerPC "bl": primary opcode 18 (top 6 bits 010010), AA = 0, LK = 1;
 * the 24-bit word displacement sits in bits 2..25. */
static size_t bcj_ppc(uint32_t *pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t insn = ((uint32_t)buf[i] << 24) | ((uint32_t)buf[i + 1] << 16) |
                        ((uint32_t)buf[i + 2] << 8) | buf[i + 3];
        if ((insn & 0xFC000003u) != 0x48000001u)
            continue;
        uint32_t pc = *pos + (uint32_t)i;
        uint32_t disp = insn & 0x03FFFFFCu;
        uint32_t dest = encode ? disp + pc : disp - pc;
        insn = 0x48000001u | (dest & 0x03FFFFFCu);
        buf[i] = (uint8_t)(insn >> 24);
        buf[i + 1] = (uint8_t)(insn >> 16);
        buf[i + 2] = (uint8_t)(insn >> 8);
        buf[i + 3] = (uint8_t)insn;
    }
    *pos += (uint32_t)i;
    return i;
}

/* ARM64: BL (top 6 bits 100101, imm26 in words) and ADRP (bit 31 = 1,
 * bits 24..28 = 10000; a 21-bit page offset split as immlo bits 29..30 and
 * immhi bits 5..23). ADRP is converted only when its offset is within
 * +-512 MiB (the top 4 of the 21 bits equal), and the result is stored
 * sign-extended the same way, as xz 5.4 and 7-Zip do. */
static size_t bcj_arm64(uint32_t *pos, uint8_t *buf, size_t n, bool encode)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t insn = fz7_get32le(buf + i);
        uint32_t pc = *pos + (uint32_t)i;
        if ((insn >> 26) == 0x25) {
            uint32_t words = pc >> 2;
            uint32_t dest = encode ? insn + words : insn - words;
            fz7_put32le(buf + i, 0x94000000u | (dest & 0x03FFFFFFu));
        } else if ((insn & 0x9F000000u) == 0x90000000u) {
            uint32_t pages = ((insn >> 29) & 3) | ((insn >> 3) & 0x001FFFFCu);
            /* Only offsets in [-2^17, 2^17) pages: bits 18..20 match bit 17. */
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
    *pos += (uint32_t)i;
    return i;
}

size_t fz7_bcj_ppc_encode(uint32_t *pos, uint8_t *buf, size_t n) { return bcj_ppc(pos, buf, n, true); }
size_t fz7_bcj_ppc_decode(uint32_t *pos, uint8_t *buf, size_t n) { return bcj_ppc(pos, buf, n, false); }
size_t fz7_bcj_arm64_encode(uint32_t *pos, uint8_t *buf, size_t n) { return bcj_arm64(pos, buf, n, true); }
size_t fz7_bcj_arm64_decode(uint32_t *pos, uint8_t *buf, size_t n) { return bcj_arm64(pos, buf, n, false); }

static size_t ppc_decode_fn(void *state, uint8_t *buf, size_t n)
{
    return fz7_bcj_ppc_decode(state, buf, n);
}

static size_t arm64_decode_fn(void *state, uint8_t *buf, size_t n)
{
    return fz7_bcj_arm64_decode(state, buf, n);
}

fz7_status fz7_bcj_ppc_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out)
{
    *out = NULL;
    if (start_offset % 4 != 0)
        return FZ7_E_ARG;
    return fz7_filter_istream_new(src, ppc_decode_fn, &start_offset, sizeof start_offset, out);
}

fz7_status fz7_bcj_arm64_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out)
{
    *out = NULL;
    if (start_offset % 4 != 0)
        return FZ7_E_ARG;
    return fz7_filter_istream_new(src, arm64_decode_fn, &start_offset, sizeof start_offset, out);
}
