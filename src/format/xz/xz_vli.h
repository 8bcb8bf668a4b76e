/* xz_vli.h - the xz variable-length integer (xz-file-format.txt 1.2),
 * shared by the seekable reader (xz_read.c) and the pipe reader
 * (xz_stream.c). */
#ifndef FZ7_XZ_VLI_H
#define FZ7_XZ_VLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes a VLI from p[*pos .. end) into *out and advances *pos. Rejects
 * encodings longer than 9 bytes, non-minimal ones (a last byte of 0x00
 * after the first) and ones cut by end: false then. */
static inline bool fz7_xz_vli_decode(const uint8_t *p, size_t end, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 9; i++) {
        if (*pos >= end)
            return false;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            if (b == 0 && i > 0)
                return false;
            *out = v;
            return true;
        }
    }
    return false;
}

#endif
