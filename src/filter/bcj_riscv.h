/* bcj_riscv.h - the RISC-V branch converter (xz filter 0x0B, 7z method 0B)
 * as a decoder: JAL and AUIPC+inst2 pairs get their pc-relative targets
 * back from the absolute form the encoder stored.
 *
 * Follows xz-file-format.txt 1.2.0 (filter 0x0B) and the RISC-V filter
 * design described with xz 5.6. */
#ifndef FZ7_BCJ_RISCV_H
#define FZ7_BCJ_RISCV_H

#include "fz7_common.h"

/* State of one RISC-V decoder: the stream position of buf[0] at the next
 * call (the start offset first, a multiple of 2). */
typedef struct fz7_bcj_riscv_state {
    uint32_t pos;
} fz7_bcj_riscv_state;

/* Converts buf[0..n) in place from the filtered form back to RISC-V code,
 * as fz7_filter_fn describes: returns the bytes done, leaving the last
 * 2..7 bytes (all of buf when n < 8) for the next call, where an
 * instruction pair may continue; s->pos advances by the bytes done. */
size_t fz7_bcj_riscv_decode(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n);

/* Decoder stream over src (not owned). start_offset: xz's start offset
 * property, 0 in 7z unless given; FZ7_E_ARG when it is odd. FZ7_E_MEM. */
fz7_status fz7_bcj_riscv_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out);

#endif
