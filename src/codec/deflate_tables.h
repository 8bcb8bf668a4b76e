/* deflate_tables.h - the fixed tables of RFC 1951 (3.2.5, 3.2.7) that the
 * Deflate decoder (deflate.c) and encoder (deflate_enc.c) share, with
 * Deflate64's two extra distance codes. Internal to codec/. */
#ifndef FZ7_DEFLATE_TABLES_H
#define FZ7_DEFLATE_TABLES_H

#include <stdint.h>

#define NUM_CLEN 19

/* Base lengths and extra bits of codes 257..285 (Deflate64's 285 is
 * instead 3 plus 16 extra bits). */
static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
/* Distance codes 0..29, and 30..31 which only Deflate64 has. */
static const uint32_t dist_base[32] = {1,    2,    3,    4,    5,    7,     9,     13,    17,    25,   33,
                                       49,   65,   97,   129,  193,  257,   385,   513,   769,   1025, 1537,
                                       2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153};
static const uint8_t dist_extra[32] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                       7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14};
/* The order code length code lengths are stored in. */
static const uint8_t clen_order[NUM_CLEN] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

#endif
