/* lzma_dec.h - LZMA and LZMA2 decoders as pull streams.
 *
 * lzma-file-format.txt (LZMA properties, end marker) and
 * xz-file-format.txt 5.3.1 (LZMA2). Neither stream owns src: the caller
 * destroys the decoder first, then src. */
#ifndef FZ7_LZMA_DEC_H
#define FZ7_LZMA_DEC_H

#include "fz7_common.h"

/* Largest dictionary the decoders accept regardless of the memory limit. */
#define FZ7_LZMA_DICT_MAX ((uint32_t)1536 << 20)

/* Decodes a raw LZMA stream read from src.
 * props: 5 bytes, the lc/lp/pb byte ((pb * 5 + lp) * 9 + lc) and the
 *   dictionary size as 32-bit little endian (as in a 7z LZMA coder's
 *   properties and the .lzma header).
 * unpack_size: bytes to produce, or UINT64_MAX when unknown; then the
 *   stream must end with the end marker. With a known size an end marker
 *   right after the last byte is accepted too.
 * mem_limit: bytes the dictionary may take; more gives FZ7_E_MEMLIMIT.
 * read() errors: FZ7_E_DATA (corrupt), FZ7_E_TRUNCATED (src ended early). */
fz7_status fz7_lzma_istream_new(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                uint64_t mem_limit, fz7_istream **out);

/* Decodes an LZMA2 stream read from src, up to and including its end
 * byte (0x00), and never reads past that byte (the xz block reader relies
 * on it). dict_prop: the one-byte dictionary size property (0..40). */
fz7_status fz7_lzma2_istream_new(fz7_istream *src, uint8_t dict_prop, uint64_t mem_limit,
                                 fz7_istream **out);

/* Dictionary bytes an LZMA2 dictionary-size byte stands for; 0 if the
 * byte is invalid (> 40). */
uint64_t fz7_lzma2_dict_size(uint8_t dict_prop);

#endif
