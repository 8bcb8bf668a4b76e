/* crc_portable.c - table-driven CRC-32 and CRC-64 (reflected polynomials).
 * The portable twins of the carry-less-multiplication kernels. */
#include "cpu/kernels.h"

#define CRC32_POLY 0xEDB88320u            /* IEEE 802.3, reflected */
#define CRC64_POLY 0xC96C5795D7870F42ull  /* ECMA-182, reflected */

static uint32_t crc32_table[8][256];
static uint64_t crc64_table[8][256];
static int tables_ready;

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
    tables_ready = 1;
}

/* Slicing-by-8: eight table lookups per 8 input bytes. */
uint32_t fz7_crc32_portable(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    uint32_t c = ~crc;
    while (n >= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        c = crc32_table[7][lo & 0xff] ^ crc32_table[6][(lo >> 8) & 0xff] ^
            crc32_table[5][(lo >> 16) & 0xff] ^ crc32_table[4][lo >> 24] ^
            crc32_table[3][p[4]] ^ crc32_table[2][p[5]] ^ crc32_table[1][p[6]] ^ crc32_table[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ crc32_table[0][(c ^ *p++) & 0xff];
    return ~c;
}

uint64_t fz7_crc64_portable(uint64_t crc, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    uint64_t c = ~crc;
    while (n >= 8) {
        uint64_t v = c ^ ((uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
                          (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56);
        c = crc64_table[7][v & 0xff] ^ crc64_table[6][(v >> 8) & 0xff] ^
            crc64_table[5][(v >> 16) & 0xff] ^ crc64_table[4][(v >> 24) & 0xff] ^
            crc64_table[3][(v >> 32) & 0xff] ^ crc64_table[2][(v >> 40) & 0xff] ^
            crc64_table[1][(v >> 48) & 0xff] ^ crc64_table[0][v >> 56];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ crc64_table[0][(c ^ *p++) & 0xff];
    return ~c;
}
