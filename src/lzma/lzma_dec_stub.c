/* lzma_dec_stub.c - placeholder for the LZMA/LZMA2 decoders (delete when they land). */
#include "lzma/lzma_dec.h"

fz7_status fz7_lzma_istream_new(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size, uint64_t mem_limit, fz7_istream **out)
{ (void)src; (void)props; (void)unpack_size; (void)mem_limit; *out = NULL; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma2_istream_new(fz7_istream *src, uint8_t dict_prop, uint64_t mem_limit, fz7_istream **out)
{ (void)src; (void)dict_prop; (void)mem_limit; *out = NULL; return FZ7_E_UNSUPPORTED; }
uint64_t fz7_lzma2_dict_size(uint8_t p) { (void)p; return 0; }
