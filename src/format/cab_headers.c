/* cab_headers.c - a cabinet's own headers, for what 7-Zip lists of it
 * and libarchive does not give: the folders' compression methods, the set
 * ID and cabinet index, each file's attributes and folder. libarchive
 * reads the entries and their data; this reads the CFHEADER, CFFOLDER and
 * CFFILE records only (Microsoft's "Cabinet File Format", [MS-CAB] 2.1 to
 * 2.3), bounded by their counts (16-bit) and the file size. */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>

#define CAB_HEADER 36
#define CAB_FOLDER 8
#define CAB_FILE 16
#define CAB_NAME_MAX 256           /* szName: at most 255 bytes and its NUL */
#define CAB_PREV_CABINET 0x0001
#define CAB_NEXT_CABINET 0x0002
#define CAB_RESERVE_PRESENT 0x0004

/* A folder's method as 7-Zip names it (typeCompress: the type in the low
 * 4 bits, LZX's and Quantum's window bits above). */
static void method_name(uint16_t type, char *out, size_t cap)
{
    switch (type & 0xF) {
    case 0: snprintf(out, cap, "None"); break;
    case 1: snprintf(out, cap, "MSZip"); break;
    case 2: snprintf(out, cap, "Quantum:%u", (unsigned)(type >> 8) & 0x1F); break;
    case 3: snprintf(out, cap, "LZX:%u", (unsigned)(type >> 8) & 0x1F); break;
    default: snprintf(out, cap, "%u", (unsigned)type & 0xF); break;
    }
}

/* Skips a NUL-terminated string at *pos (the previous and next cabinet's
 * names); false when it does not end within the file. */
static bool skip_string(const fz7_volumes *v, uint64_t size, uint64_t *pos)
{
    uint8_t s[CAB_NAME_MAX];
    size_t n = size - *pos < sizeof s ? (size_t)(size - *pos) : sizeof s;
    if (*pos >= size || fz7_volumes_pread(v, s, n, *pos) != FZ7_OK)
        return false;
    const uint8_t *end = memchr(s, 0, n);
    if (!end)
        return false;
    *pos += (uint64_t)(end - s) + 1;
    return true;
}

fz7_status fz7_cab_headers_read(const fz7_volumes *v, uint64_t size, fz7_cab_headers *out)
{
    memset(out, 0, sizeof *out);
    uint8_t h[CAB_HEADER];
    if (size < sizeof h || fz7_volumes_pread(v, h, sizeof h, 0) != FZ7_OK || memcmp(h, "MSCF", 4) != 0)
        return FZ7_E_FORMAT;
    uint32_t files_at = fz7_get32le(h + 16);
    uint16_t folders = fz7_get16le(h + 26), files = fz7_get16le(h + 28), flags = fz7_get16le(h + 30);
    out->cabinet_size = fz7_get32le(h + 8);
    out->set_id = fz7_get16le(h + 32);
    out->cabinet_index = fz7_get16le(h + 34);
    uint64_t pos = sizeof h;
    size_t folder_reserve = 0;
    if (flags & CAB_RESERVE_PRESENT) {
        uint8_t r[4];
        if (size - pos < sizeof r || fz7_volumes_pread(v, r, sizeof r, pos) != FZ7_OK)
            return FZ7_E_FORMAT;
        pos += sizeof r + fz7_get16le(r);
        folder_reserve = r[2];
    }
    if (((flags & CAB_PREV_CABINET) && (!skip_string(v, size, &pos) || !skip_string(v, size, &pos))) ||
        ((flags & CAB_NEXT_CABINET) && (!skip_string(v, size, &pos) || !skip_string(v, size, &pos))))
        return FZ7_E_FORMAT;
    out->folders = folders;
    out->folder_type = calloc(folders ? folders : 1, sizeof *out->folder_type);
    out->files = calloc(files ? files : 1, sizeof *out->files);
    if (!out->folder_type || !out->files) {
        fz7_cab_headers_free(out);
        return FZ7_E_MEM;
    }
    for (size_t i = 0; i < folders; i++, pos += CAB_FOLDER + folder_reserve) {
        uint8_t f[CAB_FOLDER];
        if (pos > size || size - pos < sizeof f || fz7_volumes_pread(v, f, sizeof f, pos) != FZ7_OK) {
            fz7_cab_headers_free(out);
            return FZ7_E_FORMAT;
        }
        out->folder_type[i] = fz7_get16le(f + 6);
    }
    pos = files_at;
    for (size_t i = 0; i < files; i++) {
        uint8_t f[CAB_FILE];
        if (pos > size || size - pos < sizeof f || fz7_volumes_pread(v, f, sizeof f, pos) != FZ7_OK) {
            fz7_cab_headers_free(out);
            return FZ7_E_FORMAT;
        }
        out->files[i].folder = fz7_get16le(f + 8);
        out->files[i].attribs = fz7_get16le(f + 14);
        pos += sizeof f;
        if (!skip_string(v, size, &pos)) {
            fz7_cab_headers_free(out);
            return FZ7_E_FORMAT;
        }
    }
    out->count = files;
    /* the archive's Method: each method once, in folder order */
    size_t used = 0;
    for (size_t i = 0; i < folders; i++) {
        char m[24];
        method_name(out->folder_type[i], m, sizeof m);
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = out->folder_type[k] == out->folder_type[i];
        if (!seen && used + strlen(m) + 2 < sizeof out->method)
            used += (size_t)snprintf(out->method + used, sizeof out->method - used, "%s%s", used ? " " : "", m);
    }
    return FZ7_OK;
}

void fz7_cab_headers_free(fz7_cab_headers *c)
{
    free(c->folder_type);
    free(c->files);
    memset(c, 0, sizeof *c);
}

size_t fz7_cab_props(const fz7_entry *e, const fz7_cab_headers *c, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    char attr[32];
    fz7_attrib_string(e, attr, sizeof attr);
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    fz7_prop_text(pr, &n, "Attributes", fz7_prop_put(buf, cap, &used, "%s", attr));
    uint16_t folder = c->files[i].folder;
    char m[24] = "";
    if (folder < c->folders)
        method_name(c->folder_type[folder], m, sizeof m);
    fz7_prop_text(pr, &n, "Method", fz7_prop_put(buf, cap, &used, "%s", m));
    fz7_prop_text(pr, &n, "Block", fz7_prop_put(buf, cap, &used, "%u", (unsigned)folder));
    return n;
}
