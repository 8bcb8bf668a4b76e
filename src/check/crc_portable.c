/* crc_portable.c - table-driven CRC-32 and CRC-64 (reflected polynomials),
 * slicing-by-8. The portable twins of the carry-less-multiplication kernels,
 * which also finish their heads and tails (fewer than 64 bytes). */
#include "check/check_kernels.h"
#include "cpu/bytes.h"

#include <pthread.h>

#define CRC32_POLY 0xEDB88320u            /* IEEE 802.3, reflected */
#define CRC64_POLY 0xC96C5795D7870F42ull  /* ECMA-182, reflected */

/* table[0][b] is the CRC of byte b; table[t][b] that of b followed by t
 * zero bytes, so eight lookups advance the register by eight bytes. */
static uint32_t crc32_table[8][256];
static uint64_t crc64_table[8][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        uint64_t d = i;
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (CRC32_POLY & (0u - (c & 1)));
            d = (d >> 1) ^ (CRC64_POLY & (0ull - (d & 1)));
        }
        crc32_table[0][i] = c;
        crc64_table[0][i] = d;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++) {
            uint32_t c = crc32_table[t - 1][i];
            uint64_t d = crc64_table[t - 1][i];
            crc32_table[t][i] = (c >> 8) ^ crc32_table[0][c & 0xff];
            crc64_table[t][i] = (d >> 8) ^ crc64_table[0][d & 0xff];
        }
}

const uint32_t *fz7_crc32_byte_table(void)
{
    pthread_once(&tables_once, make_tables);
    return crc32_table[0];
}

uint32_t fz7_crc32_portable(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&tables_once, make_tables);
    uint32_t c = ~crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = c ^ fz7_get32le(p), hi = fz7_get32le(p + 4);
        c = crc32_table[7][lo & 0xff] ^ crc32_table[6][(lo >> 8) & 0xff] ^
            crc32_table[5][(lo >> 16) & 0xff] ^ crc32_table[4][lo >> 24] ^
            crc32_table[3][hi & 0xff] ^ crc32_table[2][(hi >> 8) & 0xff] ^
            crc32_table[1][(hi >> 16) & 0xff] ^ crc32_table[0][hi >> 24];
    }
    while (n--)
        c = (c >> 8) ^ crc32_table[0][(c ^ *p++) & 0xff];
    return ~c;
}

uint64_t fz7_crc64_portable(uint64_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&tables_once, make_tables);
    uint64_t c = ~crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v = c ^ fz7_get64le(p);
        c = crc64_table[7][v & 0xff] ^ crc64_table[6][(v >> 8) & 0xff] ^
            crc64_table[5][(v >> 16) & 0xff] ^ crc64_table[4][(v >> 24) & 0xff] ^
            crc64_table[3][(v >> 32) & 0xff] ^ crc64_table[2][(v >> 40) & 0xff] ^
            crc64_table[1][(v >> 48) & 0xff] ^ crc64_table[0][v >> 56];
    }
    while (n--)
        c = (c >> 8) ^ crc64_table[0][(c ^ *p++) & 0xff];
    return ~c;
}
