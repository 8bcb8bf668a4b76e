/* fuzz_7zaes.c - libFuzzer harness: 7zAES properties and CBC decryption
 * with the fixed password "secret".
 * Input: 1 byte props length (mod 35), the props, the ciphertext. KDF
 * powers above 8 (other than 0x3F) are lowered so one run stays fast. */
#include "fuzz_common.h"
#include "crypto/aes7z.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size - 1 < data[0] % (FZ7_7ZAES_PROPS_MAX + 1))
        return 0;
    uint8_t props[FZ7_7ZAES_PROPS_MAX];
    size_t plen = data[0] % (FZ7_7ZAES_PROPS_MAX + 1);
    memcpy(props, data + 1, plen);
    if (plen && (props[0] & 0x3F) > 8 && (props[0] & 0x3F) != 0x3F && (props[0] & 0x3F) <= 24)
        props[0] &= 0xC7; /* power 9..24 -> 0..7 (25..62 stay: refused) */
    fz7_istream *src = fz7_istream_from_memory(data + 1 + plen, size - 1 - plen), *dec;
    if (src && fz7_7zaes_istream_new(src, props, plen, "secret", &dec) == FZ7_OK) {
        fuzz_drain(dec);
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    fz7_7zaes_cache_clear();
    return 0;
}
