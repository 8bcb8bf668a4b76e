/* cpio_headers.c - a cpio archive's headers read as they are stored (the
 * SVR4 "newc" and "crc" forms and POSIX.1 "odc"), for what 7-Zip lists of
 * its entries and libarchive does not tell: inode, link count, the
 * devices, the data's offset and padded size. libarchive still decodes
 * the archive; this walk reads only the headers. */
#include "format/archive_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NEWC_LEN 110u
#define ODC_LEN 76u
/* The longest name read: libarchive refuses longer ones too. */
#define NAME_MAX_LEN ((uint64_t)1 << 20)

/* A header field of n digits in base (8 or 16); false unless all digits. */
static bool field(const char *f, size_t n, unsigned base, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = f[i] >= '0' && f[i] <= '9' ? (unsigned)(f[i] - '0')
                     : f[i] >= 'a' && f[i] <= 'f' ? (unsigned)(f[i] - 'a' + 10)
                     : f[i] >= 'A' && f[i] <= 'F' ? (unsigned)(f[i] - 'A' + 10) : 99;
        if (d >= base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

fz7_status fz7_cpio_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit,
                                 fz7_detail keep, fz7_cpio_headers *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0, check_cap = 0;
    bool all_crc = true;
    char h[NEWC_LEN];
    fz7_status st = FZ7_OK;
    for (uint64_t at = 0;;) {
        if (size - at < ODC_LEN)
            break;   /* (a header cut: 7-Zip's Physical Size is the file's) */
        if ((st = fz7_volumes_pread(v, h, 6, at)) != FZ7_OK)
            break;
        bool newc = memcmp(h, "070701", 6) == 0 || memcmp(h, "070702", 6) == 0;
        bool odc = memcmp(h, "070707", 6) == 0;
        if (!newc && !odc) {
            st = FZ7_E_FORMAT;   /* binary cpio, or damage: nothing to add */
            break;
        }
        size_t hl = newc ? NEWC_LEN : ODC_LEN;
        if (size - at < hl)
            break;
        if ((st = fz7_volumes_pread(v, h, hl, at)) != FZ7_OK)
            break;
        fz7_cpio_hdr c = {0};
        uint64_t name_len, data_len, mode, dev = 0, rdev = 0;
        bool ok;
        if (newc) {
            ok = field(h + 6, 8, 16, &c.ino) && field(h + 14, 8, 16, &mode) &&
                 field(h + 22, 8, 16, &c.uid) && field(h + 30, 8, 16, &c.gid) &&
                 field(h + 38, 8, 16, &c.nlink) && field(h + 54, 8, 16, &data_len) &&
                 field(h + 62, 8, 16, &c.dev_major) && field(h + 70, 8, 16, &c.dev_minor) &&
                 field(h + 78, 8, 16, &c.rdev_major) && field(h + 86, 8, 16, &c.rdev_minor) &&
                 field(h + 94, 8, 16, &name_len);
            uint64_t check = 0;
            c.has_check = h[5] == '2';
            ok = ok && (!c.has_check || field(h + 102, 8, 16, &check));
            c.check = (uint32_t)check;
        } else {
            ok = field(h + 6, 6, 8, &dev) && field(h + 12, 6, 8, &c.ino) && field(h + 18, 6, 8, &mode) &&
                 field(h + 24, 6, 8, &c.uid) && field(h + 30, 6, 8, &c.gid) &&
                 field(h + 36, 6, 8, &c.nlink) && field(h + 42, 6, 8, &rdev) &&
                 field(h + 59, 6, 8, &name_len) && field(h + 65, 11, 8, &data_len);
            c.dev_minor = dev;   /* one number: 7-Zip shows it as the minor */
            c.rdev_minor = rdev;
        }
        if (!ok || name_len == 0 || name_len > NAME_MAX_LEN) {
            st = FZ7_E_FORMAT;
            break;
        }
        if (name_len > size - at - hl)
            break;   /* a name cut (the trailer's too) */
        /* newc pads the header and name, and the data, to 4 bytes */
        uint64_t data_at = at + hl + name_len;
        if (newc)
            data_at = (data_at + 3) & ~(uint64_t)3;
        uint64_t packed = newc ? (data_len + 3) & ~(uint64_t)3 : data_len;
        bool cut = data_at > size || packed > size - data_at;
        char tail[11];
        if (name_len == 11 && (st = fz7_volumes_pread(v, tail, 11, at + hl)) == FZ7_OK &&
            memcmp(tail, "TRAILER!!!", 11) == 0)
            break;
        if (st != FZ7_OK)
            break;
        if (keep == FZ7_DETAIL_PROPS)
            st = fz7_grow((void **)&out->h, out->count, &cap, sizeof *out->h, 64, mem_limit);
        else if (keep == FZ7_DETAIL_PACKED)
            st = fz7_grow((void **)&out->packed, out->count, &cap, sizeof *out->packed, 64, mem_limit);
        if (st != FZ7_OK)
            break;
        /* The byte sums, for t and x to verify (as 7-Zip does). */
        all_crc = all_crc && c.has_check;
        if (!all_crc) {
            free(out->check);
            out->check = NULL;
        } else if ((st = fz7_grow((void **)&out->check, out->count, &check_cap, sizeof *out->check, 64,
                                  mem_limit)) != FZ7_OK) {
            break;
        } else {
            out->check[out->count] = c.check;
        }
        c.packed = packed;
        c.offset = data_at;
        c.mode = (uint32_t)mode;
        if (keep == FZ7_DETAIL_PROPS)
            out->h[out->count] = c;
        else if (keep == FZ7_DETAIL_PACKED)
            out->packed[out->count] = packed;
        out->count++;
        out->sub_type = newc ? (h[5] == '2' ? "New CRC" : "New ASCII") : "Portable ASCII";
        at = data_at + packed;
        if (cut) {   /* its data cut: listed, and the archive would end after it */
            out->cut_end = at;
            break;
        }
    }
    if (st != FZ7_OK) {
        free(out->h);
        free(out->packed);
        free(out->check);
        memset(out, 0, sizeof *out);
    }
    return st;
}

size_t fz7_cpio_props(const fz7_entry *e, const fz7_cpio_hdr *c, const char *link, size_t stream,
                      fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &n, "Packed Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)c->packed));
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    char mode[11];
    fz7_mode_string(c->mode, mode);
    fz7_prop_text(pr, &n, "Mode", fz7_prop_put(buf, cap, &used, "%s", mode));
#define NUM(label, v) fz7_prop_text(pr, &n, label, fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)(v)))
    NUM("Links", c->nlink);
    NUM("iNode", c->ino);
    NUM("User ID", c->uid);
    NUM("Group ID", c->gid);
    NUM("Dev Major", c->dev_major);
    NUM("Dev Minor", c->dev_minor);
    NUM("Device Major", c->rdev_major);
    NUM("Device Minor", c->rdev_minor);
    fz7_prop_text(pr, &n, "Checksum",
                  c->has_check ? fz7_prop_put(buf, cap, &used, "%lu", (unsigned long)c->check) : "");
    fz7_prop_text(pr, &n, "Symbolic Link", S_ISLNK(c->mode) ? link : "");
    fz7_prop_text(pr, &n, "Stream ID",
                  e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)stream));
    NUM("Offset", c->offset);
#undef NUM
    return n;
}
