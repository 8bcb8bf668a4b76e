/* 7z_solid.c - the -ms switch: which files share a solid block (folder),
 * by count, by bytes and by extension. */
#include "format/7z/7z_write.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>


/* Parses -ms: "on"/"+"/"" (defaults), "off"/"-", "e", and runs of {N}f /
 * {N}[bkmgt]. */
static fz7_status parse_solid(const char *spec, bool *solid, bool *by_ext, uint64_t *max_files,
                              uint64_t *max_bytes)
{
    if (!spec || !*spec || strcasecmp(spec, "on") == 0 || strcmp(spec, "+") == 0)
        return FZ7_OK;
    if (strcasecmp(spec, "off") == 0 || strcmp(spec, "-") == 0) {
        *solid = false;
        return FZ7_OK;
    }
    const char *p = spec;
    while (*p) {
        if (*p == 'e' || *p == 'E') {
            *by_ext = true;
            p++;
            continue;
        }
        if (*p < '0' || *p > '9')
            return FZ7_E_ARG;
        uint64_t v = 0;
        while (*p >= '0' && *p <= '9') {
            if (v > (UINT64_MAX - 9) / 10)
                return FZ7_E_ARG;
            v = v * 10 + (uint64_t)(*p++ - '0');
        }
        unsigned shift = 0;
        switch (*p) {
        case 'f': case 'F': *max_files = v; p++; continue;
        case 'b': case 'B': shift = 0; break;
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        default: return FZ7_E_ARG;
        }
        p++;
        if (v > (UINT64_MAX >> shift))
            return FZ7_E_ARG;
        *max_bytes = v << shift;
    }
    return FZ7_OK;
}

fz7_status fz7_7z_plan_solid(const char *spec, uint64_t level_block_bytes, const uint64_t *sizes,
                             const char *const *exts, size_t n, size_t *block_of,
                             size_t *n_blocks)
{
    bool solid = true, by_ext = false;
    uint64_t max_files = UINT64_MAX, max_bytes = level_block_bytes ? level_block_bytes : UINT64_MAX;
    fz7_status st = parse_solid(spec, &solid, &by_ext, &max_files, &max_bytes);
    if (st != FZ7_OK)
        return st;
    if (max_files == 0 || max_bytes == 0)
        solid = false;
    size_t block = 0;
    uint64_t files_in = 0, bytes_in = 0;
    for (size_t i = 0; i < n; i++) {
        bool new_block = false;
        if (i > 0) {
            if (!solid)
                new_block = true;
            else if (files_in >= max_files || bytes_in + sizes[i] > max_bytes)
                new_block = true;
            else if (by_ext && exts && strcmp(exts[i] ? exts[i] : "", exts[i - 1] ? exts[i - 1] : "") != 0)
                new_block = true;
        }
        if (new_block && files_in) {
            block++;
            files_in = 0;
            bytes_in = 0;
        }
        block_of[i] = block;
        files_in++;
        bytes_in += sizes[i];
    }
    *n_blocks = n ? block + 1 : 0;
    return FZ7_OK;
}

