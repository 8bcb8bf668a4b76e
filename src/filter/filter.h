/* filter.h - decoding filters as pull streams (BCJ for x86, PowerPC, ARM,
 * ARM Thumb, SPARC, ARM64, IA-64 and RISC-V; Delta), and the in-place
 * converters the archive writers use.
 *
 * Methods.txt: 03030103 (BCJ x86), 03 (Delta, property = distance - 1);
 * xz-file-format.txt 5.3.2 (BCJ), 5.3.3 (Delta). Streams do not own src. */
#ifndef FZ7_FILTER_H
#define FZ7_FILTER_H

#include "fz7_common.h"

#include <stdbool.h>

/* ---- Generic in-place filter stream ------------------------------------ */

/* An in-place converter: converts a prefix of buf[0..n) and returns its
 * length in bytes. The bytes after that prefix could not be converted yet
 * (an instruction may continue past n): the caller presents them again at
 * the start of the next call, followed by more data. At the end of the
 * stream the bytes still unconverted pass through unchanged. */
typedef size_t (*fz7_filter_fn)(void *state, uint8_t *buf, size_t n);

/* A pull stream that reads src and passes it through fn. state_size bytes
 * of state are copied into the stream (so the caller's copy may go away).
 * Errors: FZ7_E_MEM; read() passes on src's errors. */
fz7_status fz7_filter_istream_new(fz7_istream *src, fz7_filter_fn fn, const void *state,
                                  size_t state_size, fz7_istream **out);

/* ---- x86 BCJ (E8 call / E9 jmp with a 32-bit relative operand) --------- */

/* State of one x86 BCJ stream, encoder or decoder. */
typedef struct fz7_bcj_x86_state {
    uint32_t pos;        /* stream position of buf[0] at the next call */
    uint32_t prev_pos;   /* stream position of the last E8/E9 byte examined */
    uint32_t prev_mask;  /* which of the 3 bytes before it were unconverted
                            E8/E9 bytes, and whether their operand ended in
                            00/FF (see bcj_x86.c) */
} fz7_bcj_x86_state;

/* start_offset: the stream position of the first byte (0 in 7z; xz's
 * start offset property). */
void fz7_bcj_x86_init(fz7_bcj_x86_state *s, uint32_t start_offset);

/* Converts relative call/jump targets to absolute (encode) or back
 * (decode) in buf[0..n), in place, as fz7_filter_fn describes: returns the
 * bytes done; up to 4 trailing bytes stay for the next call (all of buf
 * when n < 5). */
size_t fz7_bcj_x86_encode(fz7_bcj_x86_state *s, uint8_t *buf, size_t n);
size_t fz7_bcj_x86_decode(fz7_bcj_x86_state *s, uint8_t *buf, size_t n);

/* x86 BCJ decoder stream; start_offset as for fz7_bcj_x86_init. */
fz7_status fz7_bcj_x86_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out);

/* ---- BCJ for fixed-width instruction sets ------------------------------ */

/* xz filter IDs 0x05, 0x07, 0x08, 0x09, 0x0A, 0x06, 0x0B; 7z 03030205,
 * 03030501, 03030701, 03030805, 0A, 03030401, 0B. */
typedef enum fz7_bcj_arch {
    FZ7_BCJ_PPC,     /* PowerPC big endian: "bl" */
    FZ7_BCJ_ARM,     /* ARM little endian: "bl" */
    FZ7_BCJ_ARMT,    /* ARM Thumb: "bl" pairs, 2-byte aligned */
    FZ7_BCJ_SPARC,   /* SPARC: "call" */
    FZ7_BCJ_ARM64,   /* ARM64: BL and ADRP (ADRP within +-512 MiB) */
    FZ7_BCJ_IA64,    /* IA-64: IP-relative branches in 16-byte bundles */
    FZ7_BCJ_RISCV    /* RISC-V: JAL and AUIPC pairs, 2-byte steps
                        (filter/bcj_riscv.h) */
} fz7_bcj_arch;

typedef struct fz7_bcj_risc_state {
    fz7_bcj_arch arch;
    uint32_t pos;     /* stream position of buf[0] at the next call (start
                         offset first; a multiple of the alignment) */
} fz7_bcj_risc_state;

/* Instruction alignment in bytes: 2 for ARM Thumb and RISC-V, 16 for
 * IA-64, else 4. */
unsigned fz7_bcj_risc_alignment(fz7_bcj_arch arch);

/* Converts in place as fz7_filter_fn describes (encode: relative targets
 * to absolute; decode: back). Returns the bytes done: whole instructions
 * (bundles for IA-64), leaving fewer than 4 (16) bytes, or for RISC-V at
 * most 7 (an instruction pair); s->pos advances by that much. */
size_t fz7_bcj_risc_code(fz7_bcj_risc_state *s, uint8_t *buf, size_t n, bool encode);

/* Decoder stream. FZ7_E_ARG when start_offset is not a multiple of the
 * alignment (xz-file-format.txt 5.3.2) or arch is unknown. */
fz7_status fz7_bcj_risc_istream_new(fz7_istream *src, fz7_bcj_arch arch, uint32_t start_offset,
                                    fz7_istream **out);

/* ---- Delta ------------------------------------------------------------- */

/* Delta state: the last 256 bytes of the original data (zeros at start). */
typedef struct fz7_delta_state {
    unsigned distance;   /* 1..256 bytes */
    uint8_t pos;         /* ring index of the next byte */
    uint8_t history[256];
} fz7_delta_state;

/* distance: 1..256 (FZ7_E_ARG otherwise). */
fz7_status fz7_delta_init(fz7_delta_state *s, unsigned distance);

/* Encode: each byte becomes its difference from the original byte
 * `distance` positions earlier; decode adds it back. In place, all n
 * bytes, any split of the data across calls gives the same result. */
void fz7_delta_encode(fz7_delta_state *s, uint8_t *buf, size_t n);
void fz7_delta_decode(fz7_delta_state *s, uint8_t *buf, size_t n);

/* Delta decoder stream, distance in bytes 1..256 (FZ7_E_ARG otherwise). */
fz7_status fz7_delta_istream_new(fz7_istream *src, unsigned distance, fz7_istream **out);

/* ---- Encoders as push streams (the archive writers) -------------------- */

/* Which in-place encoder a writer's filter runs. */
typedef enum fz7_filter_enc_kind {
    FZ7_FILTER_ENC_X86,     /* x86 BCJ */
    FZ7_FILTER_ENC_BRANCH,  /* another CPU's branch converter (fz7_bcj_arch) */
    FZ7_FILTER_ENC_DELTA
} fz7_filter_enc_kind;

/* One encoding filter and its state, from the stream's first byte. */
typedef struct fz7_filter_enc {
    fz7_filter_enc_kind kind;
    union {
        fz7_bcj_x86_state x86;
        fz7_bcj_risc_state risc;
        fz7_delta_state delta;
    } s;
} fz7_filter_enc;

/* A filter of `kind` at stream position 0; arch for
 * FZ7_FILTER_ENC_BRANCH, param its start offset (the address the stream
 * starts at, a multiple of the instruction size: 7z's ARM64:N, RISCV:N),
 * or for FZ7_FILTER_ENC_DELTA the distance 1..256. FZ7_E_ARG for a bad
 * distance, offset or kind. */
fz7_status fz7_filter_enc_init(fz7_filter_enc *f, fz7_filter_enc_kind kind, fz7_bcj_arch arch,
                               uint32_t param);

/* Encodes a prefix of buf[0..n) in place as fz7_filter_fn describes and
 * returns its length (Delta: all n). At the end of the stream the bytes
 * after that prefix pass unchanged. */
size_t fz7_filter_enc_code(fz7_filter_enc *f, uint8_t *buf, size_t n);

/* A push stream: the bytes written to base go through enc and on to dst in
 * pieces of up to 64 KiB; the few an encoder holds back (an instruction
 * that may go on) wait for more bytes or for fz7_filter_ostream_finish.
 * The output does not depend on how the input is split into writes. */
typedef struct fz7_filter_ostream {
    fz7_ostream base;
    fz7_filter_enc enc;
    fz7_ostream *dst;
    uint8_t *buf;   /* staging: buf[0..fill) not yet passed on */
    size_t fill;
} fz7_filter_ostream;

/* Sets s up over dst with a copy of enc. Errors: FZ7_E_MEM (s is then
 * safe to free). */
fz7_status fz7_filter_ostream_init(fz7_filter_ostream *s, const fz7_filter_enc *enc, fz7_ostream *dst);

/* Starts the stream over with a copy of enc (a new xz block), keeping the
 * buffer; what s still held is dropped. */
void fz7_filter_ostream_restart(fz7_filter_ostream *s, const fz7_filter_enc *enc);

/* Ends the stream: the bytes held back go to dst unconverted. dst itself
 * is not ended. Passes on dst's errors. */
fz7_status fz7_filter_ostream_finish(fz7_filter_ostream *s);

void fz7_filter_ostream_free(fz7_filter_ostream *s);

#endif
