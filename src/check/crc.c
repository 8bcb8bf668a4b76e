/* crc.c - CRC-32 and CRC-64 front ends through the dispatch table. */
#include "check/check.h"
#include "cpu/dispatch.h"

uint32_t fz7_crc32(uint32_t crc, const void *p, size_t n)
{
    return fz7_dispatch_get()->crc32(crc, p, n);
}

uint64_t fz7_crc64(uint64_t crc, const void *p, size_t n)
{
    return fz7_dispatch_get()->crc64(crc, p, n);
}
