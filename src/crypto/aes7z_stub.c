/* aes7z_stub.c - placeholder until the 7zAES coder lands: every encrypted
 * folder reports "unsupported method". */
#include "crypto/aes7z.h"

fz7_status fz7_7zaes_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                 const char *password, fz7_istream **out)
{
    (void)src; (void)props; (void)props_len; (void)password;
    *out = NULL;
    return FZ7_E_UNSUPPORTED;
}
