/* lzma_enc_stub.c - placeholder for the LZMA/LZMA2 encoders so writers link
 * against lzma_enc.h while the encoder is written (delete when it lands). */
#include "lzma/lzma_enc.h"

fz7_status fz7_lzma_enc_preset(fz7_lzma_enc_opts *o, unsigned level) { (void)o; (void)level; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma_enc_parse_param(fz7_lzma_enc_opts *o, const char *p) { (void)o; (void)p; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma_enc_check(const fz7_lzma_enc_opts *o) { (void)o; return FZ7_E_UNSUPPORTED; }
void fz7_lzma_enc_reduce_dict(fz7_lzma_enc_opts *o, uint64_t n) { (void)o; (void)n; }
uint64_t fz7_lzma_enc_memusage(const fz7_lzma_enc_opts *o) { (void)o; return 0; }
fz7_status fz7_lzma_enc_new(const fz7_lzma_enc_opts *o, fz7_ostream *d, fz7_lzma_enc **out) { (void)o; (void)d; *out = NULL; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma2_enc_new(const fz7_lzma_enc_opts *o, fz7_ostream *d, fz7_lzma_enc **out) { (void)o; (void)d; *out = NULL; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma_enc_write(fz7_lzma_enc *e, const uint8_t *p, size_t n) { (void)e; (void)p; (void)n; return FZ7_E_UNSUPPORTED; }
fz7_status fz7_lzma_enc_finish(fz7_lzma_enc *e) { (void)e; return FZ7_E_UNSUPPORTED; }
void fz7_lzma_enc_free(fz7_lzma_enc *e) { (void)e; }
void fz7_lzma_enc_props(const fz7_lzma_enc *e, uint8_t p[5]) { (void)e; p[0] = p[1] = p[2] = p[3] = p[4] = 0; }
uint8_t fz7_lzma2_enc_dict_prop(const fz7_lzma_enc *e) { (void)e; return 0; }
uint8_t fz7_lzma2_dict_prop(uint32_t d) { (void)d; return 0; }
uint64_t fz7_lzma_enc_bytes_in(const fz7_lzma_enc *e) { (void)e; return 0; }
uint64_t fz7_lzma_enc_bytes_out(const fz7_lzma_enc *e) { (void)e; return 0; }
