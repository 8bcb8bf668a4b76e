/* bcj2.h - the 7z BCJ2 decoder (method 0303011B): x86 branch targets kept
 * in separate streams so that the main stream compresses better.
 *
 * Follows 7-Zip's description of BCJ2 (Methods.txt names the ID only). */
#ifndef FZ7_BCJ2_H
#define FZ7_BCJ2_H

#include "fz7_common.h"

/* BCJ2 decoder. in[0] is the main stream (the x86 code with the operands
 * of converted branches removed), in[1] the call stream (E8 targets), in[2]
 * the jump stream (E9 and 0F 80..8F targets; both as absolute addresses,
 * 32-bit big endian), in[3] the range-coded stream of one bit per branch
 * opcode saying whether it was converted (probabilities indexed by the byte
 * before an E8, one for E9, one for Jcc). out_size: the bytes the decoder
 * produces (the coder's unpack size in the folder). The stream does not own
 * the inputs. Errors: FZ7_E_MEM; read(): FZ7_E_DATA when an input ends too
 * early or a converted branch would run past out_size, and the inputs'
 * errors. */
fz7_status fz7_bcj2_istream_new(fz7_istream *in[4], uint64_t out_size, fz7_istream **out);

/* ---- Encoder (bcj2_enc.c) ---------------------------------------------- */

/* The encoder's output streams, in the decoder's input order. */
enum {
    FZ7_BCJ2_MAIN = 0,   /* x86 code without the converted operands */
    FZ7_BCJ2_CALL = 1,   /* E8 targets, absolute, 32-bit big endian */
    FZ7_BCJ2_JUMP = 2,   /* E9 and 0F 80..8F targets, the same way */
    FZ7_BCJ2_RC = 3,     /* range-coded "converted?" bits */
    FZ7_BCJ2_STREAMS = 4
};

typedef struct fz7_bcj2_enc fz7_bcj2_enc;

/* BCJ2 encoder: the exact inverse of fz7_bcj2_istream_new. Input pushed
 * with fz7_bcj2_enc_write is split into dst[FZ7_BCJ2_MAIN .. _RC] (not
 * owned; they must outlive the encoder). A branch operand is converted
 * (moved to the call or jump stream as an absolute address) when 4 bytes
 * follow the opcode and, as 7-Zip decides it, its target lies inside the
 * file that holds the branch (fz7_bcj2_enc_file), or, where that file's
 * size is unknown, its displacement lies within +-240 MiB. Stream
 * positions start at 0 as in a 7z folder. Output is written in pieces of
 * up to 64 KiB as it is produced. Errors: FZ7_E_MEM. */
fz7_status fz7_bcj2_enc_new(fz7_ostream *dst[FZ7_BCJ2_STREAMS], fz7_bcj2_enc **out);

/* The bytes written from now on belong to a new file of size bytes (0 =
 * unknown); only the conversion decisions depend on it, so a wrong size
 * costs ratio, never correctness. Errors: FZ7_E_MEM, FZ7_E_ARG after
 * finish. */
fz7_status fz7_bcj2_enc_file(fz7_bcj2_enc *e, uint64_t size);

/* Converts n bytes (any piece sizes give the same output). Returns the
 * first error of a dst (sticky); FZ7_E_ARG after finish. */
fz7_status fz7_bcj2_enc_write(fz7_bcj2_enc *e, const uint8_t *p, size_t n);

/* Converts the held-back tail (up to 4 bytes after an opcode), flushes
 * the range coder (5 bytes) and writes out every stream's rest. */
fz7_status fz7_bcj2_enc_finish(fz7_bcj2_enc *e);

/* Bytes produced so far for stream (FZ7_BCJ2_MAIN .. _RC). */
uint64_t fz7_bcj2_enc_bytes_out(const fz7_bcj2_enc *e, unsigned stream);

/* Frees e (NULL is fine). */
void fz7_bcj2_enc_free(fz7_bcj2_enc *e);

#endif
