/* aes7z_stub.c - placeholder until the AES coder lands: every encrypted
 * folder reports "unsupported method", and the kernels are absent. */
#include "crypto/aes7z.h"
#include "cpu/kernels.h"

fz7_status fz7_7zaes_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 const char *password, fz7_istream **out)
{
    (void)src; (void)props; (void)props_len; (void)password;
    *out = NULL;
    return FZ7_E_UNSUPPORTED;
}

void fz7_aes_cbc_dec_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    (void)rk; (void)iv; (void)buf; (void)nblocks;
}

void fz7_aes_cbc_enc_portable(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks)
{
    (void)rk; (void)iv; (void)buf; (void)nblocks;
}
