/* mbr_read.c - disk images with an MBR partition table, read as 7-Zip
 * reads them (its Type = MBR): the four primary entries of the first
 * sector, each partition an entry named by its index and an extension
 * after its type ("0.fat", "1.img"), and the bytes after the last one as
 * an entry named by its index alone. An extended partition's chain of
 * logical ones is listed in its place. A disk of one partition opens that
 * partition in its place (a FAT image, say), as 7-Zip does. */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MBR_SECTOR 512

/* 7-Zip's names of partition types; the others are listed by number. */
static const struct {
    uint8_t type;
    const char *name, *ext;
} k_types[] = {
    {0x01, "FAT12", "fat"}, {0x04, "FAT16 DOS 3.0+", "fat"}, {0x05, "Extended", "img"},
    {0x06, "FAT16 DOS 3.31+", "fat"}, {0x0B, "FAT32", "fat"}, {0x0C, "FAT32-LBA", "fat"},
    {0x0E, "FAT16-LBA", "fat"}, {0x0F, "Extended-LBA", "img"}, {0x11, "FAT12-Hidden", "fat"},
    {0x14, "FAT16-Hidden < 32 MB", "fat"}, {0x16, "FAT16-Hidden >= 32 MB", "fat"},
    {0x1B, "FAT32-Hidden", "fat"}, {0x1C, "FAT32-LBA-Hidden", "fat"}, {0x1E, "FAT16-LBA-WIN95-Hidden", "fat"},
    {0x27, "NTFS-WinRE", "ntfs"}, {0x82, "Solaris x86 / Linux swap", "img"}, {0x83, "Linux", "img"},
    {0x8E, "Linux LVM", "lvm"}, {0xA5, "BSD slice", "img"}, {0xBE, "Solaris 8 boot", "img"},
    {0xBF, "New Solaris x86", "img"}, {0xC2, "Linux-Hidden", "img"}, {0xC3, "Linux swap-Hidden", "img"},
    {0xEE, "GPT", "img"},
};

/* One listed item: a partition, or the bytes after the last (type 0). */
typedef struct mbr_item {
    uint64_t offset, size;
    uint8_t type;
    bool primary;             /* in the first sector's table (else logical) */
    uint8_t chs[2][3];        /* begin, end: head, sector | cylinder high bits, cylinder */
} mbr_item;

#define MBR_NAME 24   /* "3.ntfs" and the like, in a->names */

#define MBR_MAX_ITEMS 128     /* partitions, logical ones and the bytes after */

typedef struct mbr_priv {
    mbr_item items[MBR_MAX_ITEMS + 1];
    fz7_prop lines[2];
    char id[16];
} mbr_priv;

static int type_index(uint8_t type)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (k_types[i].type == type)
            return (int)i;
    return -1;
}

static uint64_t item_offset(const fz7_archive *a, size_t i) { return ((const mbr_priv *)a->priv)->items[i].offset; }

static fz7_status mbr_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    return fz7_extract_slices(a, select, cb, item_offset, err, errlen);
}

static size_t mbr_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const mbr_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const mbr_item *it = &p->items[i];
    size_t k = 0, used = 0;
    fz7_prop_text(pr, &k, "Path", e->path);
    fz7_prop_text(pr, &k, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    int t = it->type ? type_index(it->type) : -1;
    fz7_prop_text(pr, &k, "File System",
                  !it->type ? "" : t >= 0 ? k_types[t].name : fz7_prop_put(buf, cap, &used, "%u", it->type));
    fz7_prop_text(pr, &k, "Offset", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)it->offset));
    fz7_prop_text(pr, &k, "Primary", !it->type ? "" : it->primary ? "+" : "-");
    static const char *const chs_names[2] = {"Begin CHS", "End CHS"};
    for (int j = 0; j < 2; j++) {
        const uint8_t *c = it->chs[j];
        fz7_prop_text(pr, &k, chs_names[j],
                      !it->type ? ""
                                : fz7_prop_put(buf, cap, &used, "%u-%u-%u", (unsigned)((c[1] & 0xC0) << 2 | c[2]),
                                               (unsigned)c[0], (unsigned)(c[1] & 63)));
    }
    return k;
}

static void mbr_close(fz7_archive *a)
{
    free(a->priv);
    a->priv = NULL;
}

static const fz7_archive_ops mbr_ops = {mbr_extract, mbr_close, mbr_props};

/* Adds the partition of table entry q, whose start counts from base, when
 * it follows the ones before (*end: where they end). False when the entry
 * is no partition 7-Zip takes. */
static bool add_part(mbr_item *items, size_t *n, uint64_t *end, const uint8_t *q, uint64_t base, bool primary)
{
    uint32_t lba = fz7_get32le(q + 8), count = fz7_get32le(q + 12);
    if ((q[0] != 0 && q[0] != 0x80) || lba == 0 || count == 0 || base + (uint64_t)lba * MBR_SECTOR < *end ||
        *n >= MBR_MAX_ITEMS)
        return false;
    mbr_item *it = &items[(*n)++];
    memset(it, 0, sizeof *it);
    it->offset = base + (uint64_t)lba * MBR_SECTOR;
    it->size = (uint64_t)count * MBR_SECTOR;
    it->type = q[4];
    it->primary = primary;
    memcpy(it->chs[0], q + 1, 3);
    memcpy(it->chs[1], q + 5, 3);
    *end = it->offset + it->size;
    return true;
}

static bool is_extended(uint8_t type) { return type == 0x05 || type == 0x0F; }

/* Reads the sector at offset into s; true when it ends with 0x55AA. */
static bool read_table(fz7_archive *a, uint64_t offset, uint8_t *s)
{
    return offset <= a->file_size && a->file_size - offset >= MBR_SECTOR &&
           fz7_volumes_pread(a->vol, s, MBR_SECTOR, offset) == FZ7_OK && s[510] == 0x55 && s[511] == 0xAA;
}

/* The logical partitions of the extended partition at ext (7-Zip lists
 * them in its place): each extended boot record holds one and points to
 * the next. False when the first record holds none: the extended
 * partition is then listed as it is. */
static bool read_logical(fz7_archive *a, const mbr_item *ext, mbr_item *items, size_t *n, uint64_t *end)
{
    uint8_t s[MBR_SECTOR];
    uint64_t at = ext->offset;
    size_t first = *n;
    /* each record lies past the one before: the chain ends */
    while (read_table(a, at, s) && add_part(items, n, end, s + 446, at, false)) {
        const uint8_t *next = s + 446 + 16;
        uint64_t to = ext->offset + (uint64_t)fz7_get32le(next + 8) * MBR_SECTOR;
        if (!is_extended(next[4]) || to <= at)
            break;
        at = to;
    }
    return *n > first;
}

fz7_status fz7_mbr_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint8_t s[MBR_SECTOR];
    if (a->file_size < MBR_SECTOR || !read_table(a, 0, s))
        return FZ7_E_FORMAT;
    mbr_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    mbr_item *items = p->items;
    size_t n = 0;
    uint64_t end = MBR_SECTOR;
    /* 7-Zip takes a table whose used entries are marked 0 or 0x80, have
     * a start and a length, and follow one another without overlapping */
    for (int i = 0; i < 4; i++) {
        const uint8_t *q = s + 446 + 16 * i;
        if (q[4] == 0)
            continue;
        if (!add_part(items, &n, &end, q, 0, true)) {
            free(p);
            return FZ7_E_FORMAT;
        }
        if (is_extended(q[4])) {
            mbr_item ext = items[--n];
            uint64_t inner = ext.offset;
            if (read_logical(a, &ext, items, &n, &inner))
                end = ext.offset + ext.size > inner ? ext.offset + ext.size : inner;
            else
                items[n++] = ext;
        }
    }
    if (!n) {
        free(p);
        return FZ7_E_FORMAT;
    }
    size_t parts = n;
    if (end < a->file_size)   /* the bytes after the last partition */
        items[n++] = (mbr_item){.offset = end, .size = a->file_size - end};
    a->entries = calloc(n, sizeof *a->entries);
    a->names = calloc(n, MBR_NAME);
    if (!a->entries || !a->names) {
        free(p);
        free(a->entries);
        free(a->names);
        a->entries = NULL;
        a->names = NULL;
        return FZ7_E_MEM;
    }
    a->names_len = n * MBR_NAME;
    a->priv = p;
    a->ops = &mbr_ops;
    for (size_t i = 0; i < n; i++) {
        mbr_item *it = &p->items[i];
        fz7_entry *e = &a->entries[i];
        int t = it->type ? type_index(it->type) : -1;
        if (it->type)
            snprintf(a->names + i * MBR_NAME, MBR_NAME, "%u.%s", (unsigned)i, t >= 0 ? k_types[t].ext : "img");
        else
            snprintf(a->names + i * MBR_NAME, MBR_NAME, "%u", (unsigned)i);
        e->path = a->names + i * MBR_NAME;
        e->size = it->size;
        e->folder = -1;
        e->method = "";
        e->has_size = true;
        e->has_stream = e->size > 0;
        e->packed_size = e->size;
        e->packed_known = true;
        e->mode = S_IFREG;
    }
    a->count = n;
    snprintf(p->id, sizeof p->id, "%u", (unsigned)fz7_get32le(s + 440));
    p->lines[0] = (fz7_prop){.name = "Sector Size", .value = "512"};
    p->lines[1] = (fz7_prop){.name = "ID", .value = p->id};
    a->info.block_lines = p->lines;
    a->info.n_block_lines = 2;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "MBR";
    a->info.method = "";
    a->info.phy_size = a->file_size;
    if (parts == 1) {   /* the one partition opens in the disk's place */
        a->main_subfile = 1;
        a->main_offset = p->items[0].offset;
    }
    return FZ7_OK;
}
