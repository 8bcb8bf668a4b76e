/* zip_ntfs.c - the NTFS times of a zip's central directory (extra field
 * 0x000a, APPNOTE.TXT 4.5.5), which libarchive 3.6 does not read. 7-Zip
 * keeps a file's times there to 100 ns and writes beside them only a DOS
 * time, rounded up to an even second: without this pass such a zip would
 * list and extract its files up to 2 s off. */
#include "format/archive_impl.h"
#include "cpu/bytes.h"

#include <stdlib.h>
#include <string.h>

#define EOCD_SIG 0x06054b50u
#define EOCD64_LOC_SIG 0x07064b50u
#define EOCD64_SIG 0x06064b50u
#define CDH_SIG 0x02014b50u
#define EOCD_LEN 22u
#define CDH_LEN 46u
#define EXTRA_NTFS 0x000au
#define EXTRA_UT 0x5455u
/* Seconds from 1601-01-01 (FILETIME's epoch) to 1970-01-01. */
#define FILETIME_UNIX_EPOCH 11644473600LL

/* The central directory's offset and size, from the end records (zip64's
 * when the classic ones overflow). False when there is none. */
static bool find_directory(const fz7_volumes *v, uint64_t size, uint64_t *cd_off, uint64_t *cd_len)
{
    uint8_t tail[EOCD_LEN + 0xffff];
    size_t n = size < sizeof tail ? (size_t)size : sizeof tail;
    if (n < EOCD_LEN || fz7_volumes_pread(v, tail, n, size - n) != FZ7_OK)
        return false;
    for (size_t i = n - EOCD_LEN + 1; i-- > 0;) {
        const uint8_t *e = tail + i;
        /* the record whose comment reaches the end of the file */
        if (fz7_get32le(e) != EOCD_SIG || i + EOCD_LEN + fz7_get16le(e + 20) != n)
            continue;
        uint64_t off = fz7_get32le(e + 16), len = fz7_get32le(e + 12);
        uint64_t at = size - n + i;
        if ((off == 0xffffffffu || len == 0xffffffffu) && at >= 20) {
            uint8_t loc[20], rec[56];
            if (fz7_volumes_pread(v, loc, sizeof loc, at - 20) != FZ7_OK ||
                fz7_get32le(loc) != EOCD64_LOC_SIG)
                return false;
            uint64_t r = fz7_get64le(loc + 8);
            if (r > size - sizeof rec || fz7_volumes_pread(v, rec, sizeof rec, r) != FZ7_OK ||
                fz7_get32le(rec) != EOCD64_SIG)
                return false;
            len = fz7_get64le(rec + 40);
            off = fz7_get64le(rec + 48);
            at = r;
        }
        if (len > at)
            return false;
        /* Bytes before the zip (a self-extractor) move the directory:
         * it ends where the end record begins. */
        *cd_off = off + len == at ? off : at - len;
        *cd_len = len;
        return true;
    }
    return false;
}

/* The modification time in an NTFS extra field's data, if it has one. */
static bool ntfs_mtime(const uint8_t *x, size_t n, int64_t *sec, uint32_t *nsec)
{
    for (size_t i = 4; i + 4 <= n;) {   /* 4 reserved bytes, then tag-size-value */
        uint16_t tag = fz7_get16le(x + i), len = fz7_get16le(x + i + 2);
        if (len > n - i - 4)
            return false;
        if (tag == 1 && len >= 24) {
            uint64_t ft = fz7_get64le(x + i + 4);
            *sec = (int64_t)(ft / 10000000u) - FILETIME_UNIX_EPOCH;
            *nsec = (uint32_t)(ft % 10000000u) * 100u;
            return ft != 0;
        }
        i += 4u + len;
    }
    return false;
}

/* Whether central directory name nm (n bytes, a folder's with its '/')
 * is entry path p. */
static bool same_name(const uint8_t *nm, size_t n, const char *p)
{
    while (n > 1 && nm[n - 1] == '/')
        n--;
    return strlen(p) == n && memcmp(p, nm, n) == 0;
}

void fz7_zip_ntfs_times(const fz7_volumes *v, uint64_t size, fz7_entry *entries, size_t count,
                        uint64_t mem_limit)
{
    uint64_t off, len;
    if (!count || !find_directory(v, size, &off, &len) || len > mem_limit || len > SIZE_MAX ||
        off > size || len > size - off)
        return;
    uint8_t *cd = malloc(len ? (size_t)len : 1);
    if (!cd || fz7_volumes_pread(v, cd, (size_t)len, off) != FZ7_OK) {
        free(cd);
        return;
    }
    /* The records come in the order libarchive listed the entries; one
     * it did not list (a root folder) or named otherwise is passed over. */
    size_t i = 0;
    for (size_t at = 0; at + CDH_LEN <= len && i < count;) {
        const uint8_t *h = cd + at;
        if (fz7_get32le(h) != CDH_SIG)
            break;
        size_t nlen = fz7_get16le(h + 28), xlen = fz7_get16le(h + 30), clen = fz7_get16le(h + 32);
        if (CDH_LEN + nlen + xlen + clen > len - at)
            break;
        const uint8_t *nm = h + CDH_LEN, *x = nm + nlen;
        size_t k = same_name(nm, nlen, entries[i].path) ? i
                   : i + 1 < count && same_name(nm, nlen, entries[i + 1].path) ? i + 1 : SIZE_MAX;
        for (size_t j = 0; k != SIZE_MAX && j + 4 <= xlen;) {
            uint16_t id = fz7_get16le(x + j), dlen = fz7_get16le(x + j + 2);
            if (dlen > xlen - j - 4)
                break;
            int64_t sec;
            uint32_t nsec;
            if (id == EXTRA_NTFS && ntfs_mtime(x + j + 4, dlen, &sec, &nsec)) {
                entries[k].has_mtime = true;
                entries[k].mtime = sec;
                entries[k].mtime_nsec = nsec;
                entries[k].mtime_prec = FZ7_MTIME_EXACT;
            } else if (id == EXTRA_UT && dlen >= 5 && (x[j + 4] & 1) &&
                       entries[k].mtime_prec == FZ7_MTIME_DOS) {
                entries[k].mtime_prec = FZ7_MTIME_SECONDS;   /* libarchive read its time */
            }
            j += 4u + dlen;
        }
        if (k != SIZE_MAX)
            i = k + 1;
        at += CDH_LEN + nlen + xlen + clen;
    }
    free(cd);
}
