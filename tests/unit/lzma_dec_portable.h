/* lzma_dec_portable.h - the LZMA and LZMA2 decoders' public names with a
 * portable_ prefix, so that the copy of lzma_dec.c and lzma2_dec.c built
 * with FZ7_LZMA_NO_ASM (tests/CMakeLists.txt: fz7lzmadec_portable, which
 * force-includes this header) links beside fz7codec's. test_lzma_dec runs
 * every vector through both. */
#ifndef FZ7_LZMA_DEC_PORTABLE_H
#define FZ7_LZMA_DEC_PORTABLE_H

#include "fz7_common.h"

#ifdef FZ7_LZMA_NO_ASM
#define fz7_lzma_dec_new portable_lzma_dec_new
#define fz7_lzma_dec_free portable_lzma_dec_free
#define fz7_lzma_dec_set_props portable_lzma_dec_set_props
#define fz7_lzma_dec_reset_state portable_lzma_dec_reset_state
#define fz7_lzma_dec_reset_dict portable_lzma_dec_reset_dict
#define fz7_lzma_dec_rc_init portable_lzma_dec_rc_init
#define fz7_lzma_dec_make_room portable_lzma_dec_make_room
#define fz7_lzma_dec_take portable_lzma_dec_take
#define fz7_lzma_dec_put_raw portable_lzma_dec_put_raw
#define fz7_lzma_dec_run portable_lzma_dec_run
#define fz7_lzma_dec_end_marker_next portable_lzma_dec_end_marker_next
#define fz7_lzma_istream_new portable_lzma_istream_new
#define fz7_lzma_istream_unread portable_lzma_istream_unread
#define fz7_lzma_decode_whole portable_lzma_decode_whole
#define fz7_lzma2_dict_size portable_lzma2_dict_size
#define fz7_lzma2_istream_new_sized portable_lzma2_istream_new_sized
#define fz7_lzma2_istream_new portable_lzma2_istream_new
#endif

/* As fz7_lzma_istream_new and fz7_lzma2_istream_new (lzma/lzma_dec.h). */
fz7_status portable_lzma_istream_new(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                     uint64_t mem_limit, fz7_istream **out);
fz7_status portable_lzma2_istream_new(fz7_istream *src, uint8_t dict_prop, uint64_t mem_limit,
                                      fz7_istream **out);
/* As fz7_lzma_decode_whole. */
fz7_status portable_lzma_decode_whole(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                      uint64_t mem_limit, uint8_t **out);

#endif
