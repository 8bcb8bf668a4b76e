/* bytes.h - little-endian loads and stores of 16-, 32- and 64-bit values
 * (and the big-endian loads of formats that store numbers so: ar, rpm).
 *
 * Every value that reaches the output (header fields, CRC words, and the
 * match finders' hashes, which choose the matches) is read through these,
 * so archives are the same bytes on big- and little-endian machines.
 * Compilers turn each into one plain load or store on little-endian CPUs. */
#ifndef FZ7_BYTES_H
#define FZ7_BYTES_H

#include <stdint.h>

static inline uint16_t fz7_get16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t fz7_get32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t fz7_get64le(const uint8_t *p)
{
    return (uint64_t)fz7_get32le(p) | ((uint64_t)fz7_get32le(p + 4) << 32);
}
static inline uint16_t fz7_get16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t fz7_get32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void fz7_put16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
}
static inline void fz7_put32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void fz7_put64le(uint8_t *p, uint64_t v)
{
    fz7_put32le(p, (uint32_t)v); fz7_put32le(p + 4, (uint32_t)(v >> 32));
}

#endif
