/* filter_stub.c - placeholder for the BCJ and Delta decoders (delete when they land). */
#include "filter/filter.h"

fz7_status fz7_bcj_x86_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out)
{ (void)src; (void)start_offset; *out = NULL; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_delta_istream_new(fz7_istream *src, unsigned distance, fz7_istream **out)
{ (void)src; (void)distance; *out = NULL; return FZ7_E_UNSUPPORTED; }
