/* gpt_read.c - disk images with a GUID partition table, read as 7-Zip
 * reads them (its Type = GPT). The layout is the UEFI specification's
 * (chapter 5): a protective MBR in LBA 0, the GPT header in LBA 1, an
 * array of partition entries where the header says, a backup copy at the
 * disk's end. Each used entry is listed as "index.name.ext" (the index
 * counts listed partitions; no name: "index.ext"); the extension comes
 * from the partition type, or for a Windows basic data partition from its
 * boot sector. A disk of one partition opens that partition in its place,
 * as with MBR. Only 512-byte sectors are read. */
#include "format/archive_impl.h"

#include "check/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GPT_SECTOR 512
/* The bounds 7-Zip keeps to (found by trying it): entries of 128 to 4096
 * bytes, at most 65536 of them, LBAs below 2^54 (so byte offsets stay
 * below 2^63). */
#define GPT_ENTRY_MIN 128
#define GPT_ENTRY_MAX 4096
#define GPT_ENTRIES_MAX 65536u
#define GPT_LBA_LIMIT ((uint64_t)1 << 54)
#define GPT_CHUNK (1u << 16)            /* bytes of the entry array read at a time */
#define GPT_NAME_UNITS 36               /* UTF-16 units of a partition name */
#define GPT_GUID_TEXT 37
/* "index." + the name as UTF-8 (up to 3 bytes a unit) + ".ext" */
#define GPT_PATH (12 + GPT_NAME_UNITS * 3 + 8)

/* The partition types 7-Zip names, with the extension it gives them
 * ("img" for the rest; NULL: by the boot sector). GUIDs as text, the
 * form the specs give them in; 7-Zip tells them apart by the first field
 * alone (found by trying: a type with a later byte changed keeps its
 * name), and so does type_index. */
static const struct {
    const char *guid, *name, *ext;
} k_types[] = {
    {"024DEE41-33E7-11D3-9D69-0008C781F39F", "MBR", "img"},
    {"C12A7328-F81F-11D2-BA4B-00A0C93EC93B", "EFI System", "img"},
    {"21686148-6449-6E6F-744E-656564454649", "BIOS Boot", "img"},
    {"EBD0A0A2-B9E5-4433-87C0-68B6B72699C7", "Windows BDP", NULL},
    {"E3C9E316-0B5C-4DB8-817D-F92DF00215AE", "Windows MSR", "img"},
    {"5808C8AA-7E8F-42E0-85D2-E1E90434CFB3", "Windows LDM Metadata", "img"},
    {"AF9B60A0-1431-4F62-BC68-3311714A69AD", "Windows LDM Data", "img"},
    {"DE94BBA4-06D1-4D40-A16A-BFD50179D6AC", "Windows Recovery", "img"},
    {"0FC63DAF-8483-4772-8E79-3D69D8477DE4", "Linux Data", "img"},
    {"0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", "Linux Swap", "img"},
    {"44479540-F297-41B2-9AF7-D131D5F0458A", "Linux root (x86)", "img"},
    {"4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", "Linux root (x86-64)", "img"},
    {"69DAD710-2CE4-4E3C-B16C-21A1D49ABED3", "Linux root (ARM)", "img"},
    {"B921B045-1DF0-41C3-AF44-4C6F280D3FAE", "Linux root (ARM64)", "img"},
    {"993D8D3D-F80E-4225-855A-9DAF8ED7EA97", "Linux root (IA-64)", "img"},
    {"83BD6B9D-7F41-11DC-BE0B-001560B84F0F", "FreeBSD Boot", "img"},
    {"516E7CB4-6ECF-11D6-8FF8-00022D09712B", "FreeBSD Data", "img"},
    {"516E7CB5-6ECF-11D6-8FF8-00022D09712B", "FreeBSD Swap", "img"},
    {"516E7CB6-6ECF-11D6-8FF8-00022D09712B", "FreeBSD UFS", "ufs"},
    {"516E7CB8-6ECF-11D6-8FF8-00022D09712B", "FreeBSD Vinum", "img"},
    {"48465300-0000-11AA-AA11-00306543ECAC", "HFS+", "hfsx"},
    {"7C3457EF-0000-11AA-AA11-00306543ECAC", "APFS", "apfs"},
};

/* The attribute bits 7-Zip names (UEFI: bits 0-2; Microsoft's basic data
 * bits 60, 62, 63); the others are shown together as one hex number. */
static const struct {
    unsigned bit;
    const char *name;
} k_attrs[] = {{0, "Sys"}, {1, "Ignore"}, {2, "Legacy"}, {60, "Win-Read-only"}, {62, "Win-Hidden"}, {63, "Win-Not-Automount"}};

typedef struct gpt_item {
    uint64_t offset, attrs;
    char type[GPT_GUID_TEXT], id[GPT_GUID_TEXT];
} gpt_item;

typedef struct gpt_priv {
    gpt_item *items;
    fz7_prop lines[2];
    char disk_id[GPT_GUID_TEXT];
} gpt_priv;

/* A GUID's 16 bytes as text: the first three fields are little-endian. */
static void guid_text(const uint8_t *g, char out[GPT_GUID_TEXT])
{
    snprintf(out, GPT_GUID_TEXT, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", (unsigned)fz7_get32le(g),
             (unsigned)fz7_get16le(g + 4), (unsigned)fz7_get16le(g + 6), g[8], g[9], g[10], g[11], g[12], g[13],
             g[14], g[15]);
}

static int type_index(const char *guid)
{
    for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++)
        if (!strncmp(k_types[i].guid, guid, 8))
            return (int)i;
    return -1;
}

/* The extension of a basic data partition starting at offset: what its
 * boot sector is. */
static const char *boot_sector_ext(fz7_archive *a, uint64_t offset)
{
    uint8_t s[GPT_SECTOR];
    if (offset > a->file_size || a->file_size - offset < GPT_SECTOR ||
        fz7_volumes_pread(a->vol, s, GPT_SECTOR, offset) != FZ7_OK || s[510] != 0x55 || s[511] != 0xAA)
        return "img";
    if (!memcmp(s + 3, "NTFS    ", 8))
        return "ntfs";
    return fz7_fat_boot_sector(s) ? "fat" : "img";
}

/* Whether the file's bytes from offset on are all zeros. */
static bool zeros_to_end(fz7_archive *a, uint64_t offset)
{
    uint8_t buf[1 << 14];
    while (offset < a->file_size) {
        size_t n = a->file_size - offset < sizeof buf ? (size_t)(a->file_size - offset) : sizeof buf;
        if (fz7_volumes_pread(a->vol, buf, n, offset) != FZ7_OK)
            return false;
        for (size_t i = 0; i < n; i++)
            if (buf[i])
                return false;
        offset += n;
    }
    return true;
}

static uint64_t item_offset(const fz7_archive *a, size_t i) { return ((const gpt_priv *)a->priv)->items[i].offset; }

static fz7_status gpt_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    return fz7_extract_slices(a, select, cb, item_offset, err, errlen);
}

static size_t gpt_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const gpt_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const gpt_item *it = &p->items[i];
    size_t k = 0, used = 0;
    fz7_prop_text(pr, &k, "Path", e->path);
    fz7_prop_text(pr, &k, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    int t = type_index(it->type);
    fz7_prop_text(pr, &k, "File System", t >= 0 ? k_types[t].name : it->type);
    /* the named bits, then the rest as one number */
    char chars[128];
    size_t cl = 0;
    chars[0] = 0;
    uint64_t rest = it->attrs;
    for (size_t j = 0; j < sizeof k_attrs / sizeof k_attrs[0]; j++)
        if (rest >> k_attrs[j].bit & 1) {
            cl += (size_t)snprintf(chars + cl, sizeof chars - cl, "%s%s", cl ? " " : "", k_attrs[j].name);
            rest &= ~((uint64_t)1 << k_attrs[j].bit);
        }
    if (rest)
        snprintf(chars + cl, sizeof chars - cl, "%s0x%llX", cl ? " " : "", (unsigned long long)rest);
    fz7_prop_text(pr, &k, "Characteristics", fz7_prop_put(buf, cap, &used, "%s", chars));
    fz7_prop_text(pr, &k, "Offset", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)it->offset));
    fz7_prop_text(pr, &k, "ID", it->id);
    return k;
}

static void gpt_close(fz7_archive *a)
{
    gpt_priv *p = a->priv;
    if (p)
        free(p->items);
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops gpt_ops = {gpt_extract, gpt_close, gpt_props};

/* Reads the GPT header in LBA 1 into h and checks it: signature, revision
 * 1.0, a size the sector holds, its CRC-32, its own LBA 1. (7-Zip takes a stated size
 * below the 92 bytes of defined fields, so fz7 does too.) */
static bool read_header(fz7_archive *a, uint8_t *h)
{
    if (a->file_size < 2 * GPT_SECTOR || fz7_volumes_pread(a->vol, h, GPT_SECTOR, GPT_SECTOR) != FZ7_OK ||
        memcmp(h, "EFI PART\0\0\1\0", 12))
        return false;
    uint32_t size = fz7_get32le(h + 12), crc = fz7_get32le(h + 16);
    if (size > GPT_SECTOR || fz7_get64le(h + 24) != 1)
        return false;
    uint8_t copy[GPT_SECTOR];
    memcpy(copy, h, size);
    memset(copy + 16, 0, 4);   /* the CRC is of the header with its own field zeroed */
    return fz7_crc32(0, copy, size) == crc;
}

fz7_status fz7_gpt_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint8_t mbr[GPT_SECTOR], h[GPT_SECTOR];
    /* 7-Zip wants the MBR's 0x55AA before it looks at the GPT */
    if (a->file_size < 2 * GPT_SECTOR || fz7_volumes_pread(a->vol, mbr, GPT_SECTOR, 0) != FZ7_OK ||
        mbr[510] != 0x55 || mbr[511] != 0xAA || !read_header(a, h))
        return FZ7_E_FORMAT;
    uint64_t backup = fz7_get64le(h + 32), array_lba = fz7_get64le(h + 72);
    uint32_t n_entries = fz7_get32le(h + 80), entry_size = fz7_get32le(h + 84), array_crc = fz7_get32le(h + 88);
    /* the entry array must be in the file */
    if (entry_size < GPT_ENTRY_MIN || entry_size > GPT_ENTRY_MAX || n_entries > GPT_ENTRIES_MAX ||
        backup >= GPT_LBA_LIMIT || array_lba < 2 || array_lba > a->file_size / GPT_SECTOR)
        return FZ7_E_FORMAT;
    uint64_t array_at = array_lba * GPT_SECTOR, array_bytes = (uint64_t)n_entries * entry_size;
    if (a->file_size - array_at < array_bytes)
        return FZ7_E_FORMAT;
    /* Two passes over the array, a chunk of whole entries at a time (it
     * can be 256 MiB): the CRC and the used entries, then the entries. */
    uint32_t per_chunk = GPT_CHUNK / entry_size;
    uint8_t *chunk = malloc((size_t)per_chunk * entry_size);
    gpt_priv *p = calloc(1, sizeof *p);
    fz7_status st = chunk && p ? FZ7_OK : FZ7_E_MEM;
    static const uint8_t unused[16];
    uint32_t crc = 0;
    size_t n = 0;
    for (uint32_t i = 0; st == FZ7_OK && i < n_entries; i += per_chunk) {
        uint32_t m = n_entries - i < per_chunk ? n_entries - i : per_chunk;
        if ((st = fz7_volumes_pread(a->vol, chunk, (size_t)m * entry_size, array_at + (uint64_t)i * entry_size)) !=
            FZ7_OK)
            break;
        crc = fz7_crc32(crc, chunk, (size_t)m * entry_size);
        for (uint32_t j = 0; j < m; j++)
            n += memcmp(chunk + (size_t)j * entry_size, unused, 16) != 0;
    }
    if (st == FZ7_OK && crc != array_crc)
        st = FZ7_E_FORMAT;
    if (st == FZ7_OK) {
        p->items = calloc(n ? n : 1, sizeof *p->items);
        a->entries = calloc(n ? n : 1, sizeof *a->entries);
        a->names = calloc(n ? n : 1, GPT_PATH);
        if (!p->items || !a->entries || !a->names)
            st = FZ7_E_MEM;
    }
    /* the disk: up to the backup header, or the file's end if later */
    uint64_t end = (backup + 1) * GPT_SECTOR;
    size_t k = 0;
    for (uint32_t i = 0; st == FZ7_OK && i < n_entries && k < n; i++) {
        const uint8_t *q = chunk + (size_t)(i % per_chunk) * entry_size;
        if (i % per_chunk == 0) {
            uint32_t m = n_entries - i < per_chunk ? n_entries - i : per_chunk;
            if ((st = fz7_volumes_pread(a->vol, chunk, (size_t)m * entry_size, array_at + (uint64_t)i * entry_size)) !=
                FZ7_OK)
                break;
        }
        if (!memcmp(q, unused, 16))
            continue;
        uint64_t first = fz7_get64le(q + 32), last = fz7_get64le(q + 40);
        /* 7-Zip refers such a table to the MBR reader */
        if (last < first || last >= GPT_LBA_LIMIT) {
            st = FZ7_E_FORMAT;
            break;
        }
        gpt_item *it = &p->items[k];
        fz7_entry *e = &a->entries[k];
        it->offset = first * GPT_SECTOR;
        it->attrs = fz7_get64le(q + 48);
        guid_text(q, it->type);
        guid_text(q + 16, it->id);
        e->size = (last - first + 1) * GPT_SECTOR;
        if (it->offset + e->size > end)
            end = it->offset + e->size;
        uint16_t name[GPT_NAME_UNITS];
        for (size_t j = 0; j < GPT_NAME_UNITS; j++)
            name[j] = fz7_get16le(q + 56 + 2 * j);
        char utf8[GPT_NAME_UNITS * 3 + 1];
        size_t len = fz7_utf16_to_utf8(name, GPT_NAME_UNITS, utf8);
        int t = type_index(it->type);
        const char *ext = t < 0 ? "img" : k_types[t].ext ? k_types[t].ext : boot_sector_ext(a, it->offset);
        char *path = a->names + k * GPT_PATH;
        snprintf(path, GPT_PATH, len ? "%u.%s.%s" : "%u%s.%s", (unsigned)k, utf8, ext);
        e->path = path;
        e->folder = -1;
        e->method = "";
        e->has_size = true;
        e->has_stream = e->size > 0;
        e->packed_size = e->size;
        e->packed_known = true;
        e->mode = S_IFREG;
        k++;
    }
    free(chunk);
    if (st != FZ7_OK) {
        if (p)
            free(p->items);
        free(p);
        fz7_archive_free_entries(a);   /* (count is 0: the paths are in names) */
        return st == FZ7_E_IO ? FZ7_E_FORMAT : st;
    }
    a->names_len = (n ? n : 1) * GPT_PATH;
    a->count = n;
    a->priv = p;
    a->ops = &gpt_ops;
    guid_text(h + 56, p->disk_id);
    p->lines[0] = (fz7_prop){.name = "Sector Size", .value = "512"};
    p->lines[1] = (fz7_prop){.name = "ID", .value = p->disk_id};
    a->info.block_lines = p->lines;
    a->info.n_block_lines = 2;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "GPT";
    a->info.method = "";
    /* A shorter file was cut: its partitions are listed all the same. A
     * longer one is the disk when the rest is zeros (7-Zip then lists no
     * tail); anything else there is a tail. */
    a->info.phy_size = end > a->file_size ? end : a->file_size;
    if (end > a->file_size)
        a->info.open_error = "Unexpected end of archive";
    else if (!zeros_to_end(a, end)) {
        a->info.phy_size = end;
        a->info.tail_size = a->file_size - end;
    }
    if (n == 1) {   /* the one partition opens in the disk's place */
        a->main_subfile = 1;
        a->main_offset = p->items[0].offset;
    }
    return FZ7_OK;
}
