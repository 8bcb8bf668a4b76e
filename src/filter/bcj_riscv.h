/* bcj_riscv.h - the RISC-V branch converter (xz filter 0x0B, 7z method 0B):
 * the encoder makes the pc-relative targets of JAL and AUIPC+inst2 pairs
 * absolute, the decoder gets them back.
 *
 * Follows xz-file-format.txt 1.2.0 (filter 0x0B) and the RISC-V filter
 * design described with xz 5.6. */
#ifndef FZ7_BCJ_RISCV_H
#define FZ7_BCJ_RISCV_H

#include "fz7_common.h"

/* State of one RISC-V encoder or decoder: the stream position of buf[0]
 * at the next call (the start offset first, a multiple of 2). */
typedef struct fz7_bcj_riscv_state {
    uint32_t pos;
} fz7_bcj_riscv_state;

/* Converts buf[0..n) in place, RISC-V code to the filtered form (encode)
 * or back (decode), as fz7_filter_fn describes: returns the bytes done,
 * leaving at most the last 7 bytes (all of buf when n < 8; none when a
 * pair ends at n) for the next call, where an instruction pair may
 * continue; s->pos advances by the bytes done. Any split of the data
 * across calls gives the same bytes; decode undoes encode exactly, for
 * any input. No errors. */
size_t fz7_bcj_riscv_encode(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n);
size_t fz7_bcj_riscv_decode(fz7_bcj_riscv_state *s, uint8_t *buf, size_t n);

/* Decoder stream over src (not owned). start_offset: xz's start offset
 * property, 0 in 7z unless given; FZ7_E_ARG when it is odd. FZ7_E_MEM. */
fz7_status fz7_bcj_riscv_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out);

#endif
