/* bcj_x86.c - the x86 BCJ filter: E8 (call) and E9 (jmp) operands turned
 * from relative to absolute so that repeated calls to one function become
 * repeated byte strings. Bit-compatible with the BCJ of 7-Zip and xz
 * (Methods.txt 03030103, xz-file-format.txt 5.3.2, filter ID 0x04). */
#include "filter/filter.h"

#include <stdbool.h>

/* An operand is converted only when its top byte is 0x00 or 0xFF, i.e.
 * the displacement is within +-16 MiB, as real near calls are. */
static bool is_near_msb(uint8_t b) { return b == 0x00 || b == 0xFF; }

void fz7_bcj_x86_init(fz7_bcj_x86_state *s, uint32_t start_offset)
{
    s->pos = start_offset;
    s->prev_pos = start_offset - 5;   /* "no E8/E9 seen recently" */
    s->prev_mask = 0;
}

/* The mask records, for the E8/E9 bytes examined but left unconverted,
 * their distance back from the byte being examined: bit k (1..3) for an
 * opcode k bytes back, and bit k+4 when that opcode's operand top byte
 * was 00/FF. Such opcodes may in fact be operand bytes of an earlier
 * instruction, so the rules below (which both sides apply identically)
 * decide when a new E8/E9 is trusted and how an operand overlapping an
 * earlier candidate is adjusted so that decoding stays unambiguous. */
static size_t bcj_x86(fz7_bcj_x86_state *s, uint8_t *buf, size_t n, bool encode)
{
    if (n < 5)
        return 0;
    uint32_t mask = s->prev_mask;
    uint32_t last = s->prev_pos;
    /* Keep the gap arithmetic free of 2^32 wrap-around. */
    if (s->pos - last > 5)
        last = s->pos - 5;

    size_t i = 0;
    while (i + 5 <= n) {
        if ((buf[i] & 0xFE) != 0xE8) {
            i++;
            continue;
        }
        uint32_t here = s->pos + (uint32_t)i;
        uint32_t gap = here - last;
        last = here;
        /* Age the history by gap bytes; after 4 bytes nothing is left. */
        if (gap >= 4) {
            mask = 0;
        } else {
            for (uint32_t k = 0; k < gap; k++)
                mask = (mask & 0x77) << 1;
        }

        uint8_t top = buf[i + 4];
        /* Candidates at distances 1..3, as bits 0..2. */
        uint32_t recent = (mask >> 1) & 7;
        /* At most one recent candidate, and none whose operand looked near. */
        bool trusted = mask < 0x20 && (recent == 0 || recent == 1 || recent == 2 || recent == 4);
        if (!is_near_msb(top) || !trusted) {
            i++;
            mask |= 1;
            if (is_near_msb(top))
                mask |= 0x10;
            continue;
        }

        uint32_t operand = fz7_get32le(buf + i + 1);
        uint32_t next_ip = here + 5;
        uint32_t dest;
        for (;;) {
            dest = encode ? operand + next_ip : operand - next_ip;
            if (recent == 0)
                break;
            /* The candidate k bytes back would read byte 3-k of this operand as
             * its own top byte; if that byte became 00/FF, flip the bits below
             * it and convert again so the decoder can tell the cases apart. */
            unsigned k = recent == 4 ? 3 : recent;
            unsigned shift = 24 - 8 * k;
            if (!is_near_msb((uint8_t)(dest >> shift)))
                break;
            operand = dest ^ ((1u << (shift + 8)) - 1);
        }
        /* Store 25 bits: the top byte repeats bit 24 (00 or FF). */
        buf[i + 1] = (uint8_t)dest;
        buf[i + 2] = (uint8_t)(dest >> 8);
        buf[i + 3] = (uint8_t)(dest >> 16);
        buf[i + 4] = (dest >> 24) & 1 ? 0xFF : 0x00;
        i += 5;
        mask = 0;
    }
    s->prev_mask = mask;
    s->prev_pos = last;
    s->pos += (uint32_t)i;
    return i;
}

size_t fz7_bcj_x86_encode(fz7_bcj_x86_state *s, uint8_t *buf, size_t n)
{
    return bcj_x86(s, buf, n, true);
}

size_t fz7_bcj_x86_decode(fz7_bcj_x86_state *s, uint8_t *buf, size_t n)
{
    return bcj_x86(s, buf, n, false);
}

static size_t x86_decode_fn(void *state, uint8_t *buf, size_t n)
{
    return fz7_bcj_x86_decode(state, buf, n);
}

fz7_status fz7_bcj_x86_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out)
{
    fz7_bcj_x86_state s;
    fz7_bcj_x86_init(&s, start_offset);
    return fz7_filter_istream_new(src, x86_decode_fn, &s, sizeof s, out);
}
