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

#endif
