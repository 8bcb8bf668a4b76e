/* fat_read.c - FAT12, FAT16 and FAT32 file-system images, read as 7-Zip
 * reads them (Microsoft's FAT specification, fatgen103). Layout: the boot
 * sector with its BIOS parameter block, reserved sectors, the FATs (one
 * entry per cluster: the next cluster of a chain, 0 free, the end-of-chain
 * values at the top), the root directory (fixed after the FATs for
 * FAT12/16, a cluster chain for FAT32), then the clusters. Directories are
 * runs of 32-byte entries: 8.3 names, and VFAT long names as entries of
 * attribute 0x0F before them (13 UTF-16 units each, with a checksum of the
 * short name). Entries are listed as 7-Zip lists them: a folder's entries
 * together, then each subfolder's in turn. Deleted entries, "." and ".."
 * and the volume label are not listed; the label is the archive's. */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FAT_MAX_LEVELS 1024   /* folders within folders */
#define FAT_ATTR_LFN 0x0F
#define FAT_ATTR_LABEL 0x08
#define FAT_ATTR_DIR 0x10
#define FAT_LFN_SLOTS 20      /* 20 entries of 13 units: 255 and more */

/* What an entry's 32 bytes say, kept for `l -slt` and extraction. */
typedef struct fat_item {
    uint32_t cluster, size;
    uint16_t mdate, mtime, cdate, ctime, adate;
    uint8_t ctenth, attr;
    char short_name[13];
} fat_item;

typedef struct fat_priv {
    uint32_t *fat;            /* n_fat entries: clusters 0 .. last */
    uint32_t n_fat;
    uint32_t eoc;             /* the first end-of-chain value (bad: eoc - 1) */
    uint8_t *dir_cluster;     /* per cluster: a folder's already */
    uint64_t data_off;        /* where cluster 2 starts */
    uint32_t cluster_size;
    unsigned bits;            /* 12, 16 or 32 */
    fat_item *items;          /* per entry */
    uint64_t path_bytes;      /* paths made so far (bounded) */
    uint64_t dir_clusters;    /* clusters that hold folders (Headers Size) */
    fat_item label;
    bool has_label, has_id;
    bool bad_lfn;             /* a long name did not fit its entries: 7-Zip's
                                 Headers Error (the 8.3 name is listed) */
    uint32_t id;
    uint16_t lfn[FAT_LFN_SLOTS * 13 + 1];        /* the long name being read */
    char name[FAT_LFN_SLOTS * 13 * 3 + 1];       /* an entry's name in UTF-8 */
    fz7_prop lines[10];
    char fs[8], cluster[16], free_space[24], headers[24], label_text[16], sector[8], id_text[16];
} fat_priv;

/* Seconds since 1970 of a DOS date and time, which FAT keeps in local
 * time (7-Zip converts it as local time too); false when the date or
 * the time is none (7-Zip lists no time then). */
static bool dos_time(uint16_t d, uint16_t t, int64_t *out)
{
    unsigned m = (d >> 5) & 15, day = d & 31;
    /* (a day past its month's end rolls over, as 7-Zip lets it) */
    if (m < 1 || m > 12 || day < 1 || (t >> 11) > 23 || ((t >> 5) & 63) > 59 || (t & 31) > 29)
        return false;
    struct tm tm = {0};
    tm.tm_year = (int)(d >> 9) + 80;
    tm.tm_mon = (int)m - 1;
    tm.tm_mday = (int)day;
    tm.tm_hour = (int)(t >> 11);
    tm.tm_min = (int)((t >> 5) & 63);
    tm.tm_sec = (int)(t & 31) * 2;
    tm.tm_isdst = -1;
    time_t v = mktime(&tm);
    if (v == (time_t)-1)
        return false;
    *out = (int64_t)v;
    return true;
}

/* The 8.3 name of entry p as 7-Zip shows it: the blanks trimmed, the
 * parts lower-cased where byte 12 says so (Windows NT's flags), 0x05 for
 * a leading 0xE5. Bytes past ASCII are kept as they are. */
static void short_name(const uint8_t *p, char out[13])
{
    size_t n = 0, b = 8, e = 3;
    while (b && p[b - 1] == ' ')
        b--;
    while (e && p[8 + e - 1] == ' ')
        e--;
    for (size_t i = 0; i < b; i++) {
        uint8_t c = i == 0 && p[0] == 0x05 ? 0xE5 : p[i];
        out[n++] = (char)((p[12] & 0x08) && c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    if (e) {
        out[n++] = '.';
        for (size_t i = 0; i < e; i++) {
            uint8_t c = p[8 + i];
            out[n++] = (char)((p[12] & 0x10) && c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
    }
    out[n] = 0;
}

static uint8_t lfn_checksum(const uint8_t *p)
{
    uint8_t s = 0;
    for (int i = 0; i < 11; i++)
        s = (uint8_t)(((s & 1) << 7) + (s >> 1) + p[i]);
    return s;
}

/* The cluster after c in its chain: 0 at the chain's end, UINT32_MAX
 * when c or its successor is no cluster of the image (free, bad, past
 * the last). */
static uint32_t next_cluster(const fat_priv *p, uint32_t c)
{
    if (c < 2 || c >= p->n_fat)
        return UINT32_MAX;
    uint32_t n = p->fat[c];
    if (n >= p->eoc)
        return 0;
    return n < 2 || n >= p->n_fat ? UINT32_MAX : n;
}

static uint64_t cluster_offset(const fat_priv *p, uint32_t c)
{
    return p->data_off + (uint64_t)(c - 2) * p->cluster_size;
}

/* Reads a folder's entries: the fixed root (cluster 0) or the chain from
 * cluster. Each cluster can be a folder's once (a loop in a chain or two
 * folders sharing clusters: FZ7_E_FORMAT). *out is malloc'd. */
static fz7_status read_dir(fz7_archive *a, uint32_t cluster, uint64_t root_off, uint32_t root_bytes, uint8_t **out,
                           size_t *len)
{
    fat_priv *p = a->priv;
    *out = NULL;
    *len = 0;
    if (!cluster) {
        if (root_off > a->file_size || a->file_size - root_off < root_bytes)
            return FZ7_E_FORMAT;
        uint8_t *d = malloc(root_bytes ? root_bytes : 1);
        if (!d)
            return FZ7_E_MEM;
        fz7_status st = fz7_volumes_pread(a->vol, d, root_bytes, root_off);
        if (st != FZ7_OK) {
            free(d);
            return st == FZ7_E_TRUNCATED ? FZ7_E_FORMAT : st;
        }
        *out = d;
        *len = root_bytes;
        return FZ7_OK;
    }
    size_t cap = 0;
    uint8_t *d = NULL;
    fz7_status st = FZ7_OK;
    for (uint32_t c = cluster; c && st == FZ7_OK; c = next_cluster(p, c)) {
        /* a bad first cluster is a damaged image; a chain that goes astray
         * later (free, out of range, into a folder's cluster) ends there */
        if (c == UINT32_MAX || c < 2 || c >= p->n_fat || p->dir_cluster[c]) {
            if (!*len)
                st = FZ7_E_FORMAT;
            break;
        }
        p->dir_cluster[c] = 1;
        p->dir_clusters++;
        uint64_t off = cluster_offset(p, c);
        if (off > a->file_size || a->file_size - off < p->cluster_size) {
            st = FZ7_E_FORMAT;
            break;
        }
        if (*len + p->cluster_size > cap) {
            size_t nc = cap ? 2 * cap : 4 * (size_t)p->cluster_size;
            if (nc > a->opts.mem_limit / 4) {
                st = FZ7_E_MEMLIMIT;
                break;
            }
            uint8_t *nd = realloc(d, nc);
            if (!nd) {
                st = FZ7_E_MEM;
                break;
            }
            d = nd;
            cap = nc;
        }
        if ((st = fz7_volumes_pread(a->vol, d + *len, p->cluster_size, off)) != FZ7_OK)
            break;
        *len += p->cluster_size;
    }
    if (st != FZ7_OK) {
        free(d);
        *len = 0;
        return st == FZ7_E_TRUNCATED ? FZ7_E_FORMAT : st;
    }
    *out = d;
    return FZ7_OK;
}

/* Adds entry name (len bytes) in folder parent (-1: the root) with the
 * entry's 32 bytes at q. */
static fz7_status add_entry(fz7_archive *a, size_t *cap, long parent, const char *name, size_t len, const uint8_t *q)
{
    fat_priv *p = a->priv;
    char *path = NULL;
    fz7_status st = fz7_child_path(a, parent, name, len, &p->path_bytes, &path);
    size_t was = *cap;
    if (st == FZ7_OK)
        st = fz7_grow((void **)&a->entries, a->count, cap, sizeof *a->entries, 64, a->opts.mem_limit);
    if (st == FZ7_OK && *cap != was) {
        fat_item *ni = realloc(p->items, *cap * sizeof *ni);
        if (ni)
            p->items = ni;
        else
            st = FZ7_E_MEM;
    }
    if (st != FZ7_OK) {
        free(path);
        return st;
    }
    fat_item *it = &p->items[a->count];
    it->attr = q[11];
    it->ctenth = q[13];
    it->ctime = fz7_get16le(q + 14);
    it->cdate = fz7_get16le(q + 16);
    it->adate = fz7_get16le(q + 18);
    it->mtime = fz7_get16le(q + 22);
    it->mdate = fz7_get16le(q + 24);
    it->cluster = (p->bits == 32 ? (uint32_t)fz7_get16le(q + 20) << 16 : 0) | fz7_get16le(q + 26);
    it->size = fz7_get32le(q + 28);
    short_name(q, it->short_name);
    fz7_entry *e = &a->entries[a->count++];
    memset(e, 0, sizeof *e);
    e->path = path;
    e->folder = -1;
    e->method = "";
    return FZ7_OK;
}

/* Lists the folder at cluster (0: the fixed root) as entry self (-1: the
 * root), then each of its folders, as 7-Zip does. */
static fz7_status open_dir(fz7_archive *a, size_t *cap, long self, uint32_t cluster, uint64_t root_off,
                           uint32_t root_bytes, unsigned level)
{
    fat_priv *p = a->priv;
    if (level > FAT_MAX_LEVELS)
        return FZ7_E_FORMAT;
    uint8_t *d;
    size_t len;
    fz7_status st = read_dir(a, cluster, root_off, root_bytes, &d, &len);
    if (st != FZ7_OK)
        return st;
    size_t first = a->count;
    uint16_t *lfn = p->lfn;   /* (shared: a folder is parsed before its subfolders) */
    char *name = p->name;
    unsigned want = 0;        /* the long name's next sequence number; 0: none */
    uint8_t sum = 0;
    unsigned parts = 0;
    for (size_t pos = 0; pos + 32 <= len && st == FZ7_OK; pos += 32) {
        const uint8_t *q = d + pos;
        if (q[0] == 0)   /* no entries after this one */
            break;
        if (q[0] == 0xE5) {   /* deleted */
            want = parts = 0;
            continue;
        }
        if ((q[11] & 0x3F) == FAT_ATTR_LFN) {
            unsigned seq = q[0] & 0x1F;
            if (q[0] & 0x40) {   /* the last part comes first */
                if (seq == 0 || seq > FAT_LFN_SLOTS) {
                    p->bad_lfn = true;
                    want = parts = 0;
                    continue;
                }
                parts = seq;
                sum = q[13];
                lfn[seq * 13] = 0;
            } else if (!want || seq != want || q[13] != sum) {
                p->bad_lfn = true;
                want = parts = 0;
                continue;
            }
            uint16_t *u = lfn + (seq - 1) * 13;
            static const uint8_t at[13] = {1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30};
            for (int i = 0; i < 13; i++)
                u[i] = fz7_get16le(q + at[i]);
            want = seq - 1;
            continue;
        }
        bool long_ok = parts && want == 0 && lfn_checksum(q) == sum;
        if (parts && !long_ok)
            p->bad_lfn = true;
        unsigned had = parts;
        parts = 0;
        want = 0;
        if (q[11] & FAT_ATTR_LABEL) {
            if (self < 0 && !p->has_label && !(q[11] & FAT_ATTR_DIR)) {
                p->has_label = true;
                memcpy(p->label.short_name, q, 11);
                p->label.short_name[11] = 0;
                p->label.mtime = fz7_get16le(q + 22);
                p->label.mdate = fz7_get16le(q + 24);
            }
            continue;
        }
        size_t nl;
        if (long_ok && had) {
            nl = fz7_utf16_to_utf8(lfn, (size_t)had * 13, name);
        } else {
            char sn[13];
            short_name(q, sn);
            nl = strlen(sn);
            memcpy(name, sn, nl + 1);
        }
        if (q[0] == '.' && (!strcmp(name, ".") || !strcmp(name, "..")))
            continue;
        for (size_t i = 0; i < nl; i++)   /* a name is one level, as 7-Zip keeps it */
            if (name[i] == '/')
                name[i] = '_';
        st = add_entry(a, cap, self, name, nl, q);
    }
    free(d);
    size_t last = a->count;
    for (size_t i = first; i < last && st == FZ7_OK; i++) {
        const fat_item *it = &p->items[i];
        if (!(it->attr & FAT_ATTR_DIR))
            continue;
        if (!it->cluster)
            st = FZ7_E_FORMAT;   /* a folder without clusters (7-Zip: not an archive) */
        else
            st = open_dir(a, cap, (long)i, it->cluster, 0, 0, level + 1);
    }
    return st;
}

/* Fills the entries' fields from their directory entries. */
static void fill_entries(fz7_archive *a)
{
    fat_priv *p = a->priv;
    for (size_t i = 0; i < a->count; i++) {
        fz7_entry *e = &a->entries[i];
        const fat_item *it = &p->items[i];
        e->is_dir = (it->attr & FAT_ATTR_DIR) != 0;
        e->has_mtime = dos_time(it->mdate, it->mtime, &e->mtime);
        e->mtime_prec = FZ7_MTIME_SECONDS;
        e->has_attrib = true;
        e->attrib = it->attr;
        e->mode = e->is_dir ? S_IFDIR : S_IFREG;   /* no permissions: the umask's */
        if (e->is_dir)
            continue;
        e->has_size = true;
        e->size = it->size;
        e->has_stream = it->size > 0;
        e->packed_size = ((uint64_t)it->size + p->cluster_size - 1) / p->cluster_size * p->cluster_size;
        e->packed_known = true;
    }
}

/* Whether a file's chain from it->cluster has exactly the clusters its
 * size needs, the last one marked as the end: 7-Zip checks that before it
 * writes a byte, and a file that fails gets no data (Data Error). */
static bool chain_fits(const fat_priv *p, const fat_item *it)
{
    uint64_t need = ((uint64_t)it->size + p->cluster_size - 1) / p->cluster_size;
    if (need >= p->n_fat)
        return false;   /* more than the image holds (and a loop's bound) */
    uint32_t c = it->cluster;
    for (uint64_t i = 0; i < need; i++) {
        if (c < 2 || c >= p->n_fat)
            return false;
        uint32_t n = p->fat[c];
        if (i + 1 == need)
            return n >= p->eoc;
        c = n;
    }
    return true;
}

/* Hands a file's clusters to cb->data. FZ7_E_DATA when its chain does not
 * fit its size or the image ends before its data; else the callback's. */
static fz7_status file_data(fz7_archive *a, const fat_item *it, uint8_t *buf, const fz7_extract_cb *cb,
                            bool *cb_failed)
{
    fat_priv *p = a->priv;
    if (!chain_fits(p, it))
        return FZ7_E_DATA;
    uint64_t left = it->size;
    for (uint32_t c = it->cluster; left; c = p->fat[c]) {
        uint64_t off = cluster_offset(p, c);
        size_t n = left < p->cluster_size ? (size_t)left : p->cluster_size;
        /* an image cut short: its bytes up to the end, then 7-Zip's Data Error */
        size_t have = off >= a->file_size ? 0 : a->file_size - off < n ? (size_t)(a->file_size - off) : n;
        fz7_status st = have ? fz7_volumes_pread(a->vol, buf, have, off) : FZ7_OK;
        if (st != FZ7_OK)
            return st;
        if (have && (st = cb->data(cb->ctx, buf, have)) != FZ7_OK) {
            *cb_failed = true;
            return st;
        }
        if (have < n)
            return FZ7_E_DATA;
        left -= n;
    }
    return FZ7_OK;
}

static fz7_status fat_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    fat_priv *p = a->priv;
    uint8_t *buf = malloc(p->cluster_size);
    fz7_status st = buf ? FZ7_OK : FZ7_E_MEM;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status r = FZ7_OK;
        bool cb_failed = false;
        if (!e->is_dir && e->size)
            r = file_data(a, &p->items[i], buf, cb, &cb_failed);
        if (fz7_entry_done(cb, i, r, cb_failed,
                           r == FZ7_E_DATA ? "its cluster chain does not fit its size, or the image ends first" : NULL,
                           err, errlen, &st))
            break;
    }
    free(buf);
    return st;
}

static size_t fat_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const fat_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const fat_item *it = &p->items[i];
    size_t k = 0, used = 0;
    char attr[64];
    int64_t t = 0;
    bool ok;
    fz7_attrib_string(e, attr, sizeof attr);
    fz7_prop_text(pr, &k, "Path", e->path);
    fz7_prop_text(pr, &k, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &k, "Size", e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &k, "Packed Size",
                  e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size));
    fz7_prop_time(pr, &k, "Modified", e->has_mtime, e->mtime, 0, 0);
    /* creation: 2 s steps plus hundredths of a second */
    ok = dos_time(it->cdate, it->ctime, &t);
    fz7_prop_time(pr, &k, "Created", ok, t + it->ctenth / 100, (uint32_t)(it->ctenth % 100) * 10000000u, 2);
    ok = dos_time(it->adate, 0, &t);
    fz7_prop_time(pr, &k, "Accessed", ok, t, 0, 0);
    fz7_prop_text(pr, &k, "Attributes", fz7_prop_put(buf, cap, &used, "%s", attr));
    fz7_prop_text(pr, &k, "Short Name", it->short_name);
    return k;
}

static void fat_close(fz7_archive *a)
{
    fat_priv *p = a->priv;
    if (p) {
        free(p->fat);
        free(p->dir_cluster);
        free(p->items);
    }
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops fat_ops = {fat_extract, fat_close, fat_props};

/* The boot sector's facts that place everything else. */
typedef struct fat_bpb {
    uint32_t sector_size, cluster_size, sectors, fat_sectors, root_cluster;
    uint32_t reserved, n_fats, root_entries;
    uint64_t data_sector;
    uint32_t clusters;
    unsigned bits;
    bool has_id;
    uint32_t id;
} fat_bpb;

static int log2_exact(uint32_t v)
{
    if (!v || (v & (v - 1)))
        return -1;
    int n = 0;
    while (v >>= 1)
        n++;
    return n;
}

/* Parses and checks the boot sector h (512 bytes); false when it is no
 * FAT boot sector. */
static bool parse_bpb(const uint8_t *h, fat_bpb *b)
{
    memset(b, 0, sizeof *b);
    if (h[510] != 0x55 || h[511] != 0xAA)
        return false;
    if (!(h[0] == 0xE9 || (h[0] == 0xEB && h[2] == 0x90)))
        return false;
    int ss = log2_exact(fz7_get16le(h + 11)), spc = log2_exact(h[13]);
    if (ss < 9 || ss > 12 || spc < 0 || ss + spc > 24)
        return false;
    b->sector_size = 1u << ss;
    b->cluster_size = 1u << (ss + spc);
    b->reserved = fz7_get16le(h + 14);
    b->n_fats = h[16];
    b->root_entries = fz7_get16le(h + 17);
    if (!b->reserved || b->n_fats < 1 || b->n_fats > 4)
        return false;
    b->sectors = fz7_get16le(h + 19);
    if (!b->sectors)
        b->sectors = fz7_get32le(h + 32);
    b->fat_sectors = fz7_get16le(h + 22);
    const uint8_t *ext = h + 36;
    if (!b->root_entries) {   /* FAT32: its own fields first */
        if (b->fat_sectors)
            return false;
        b->fat_sectors = fz7_get32le(h + 36);
        if (b->fat_sectors >= (1u << 24) || fz7_get16le(h + 42) != 0)
            return false;
        b->root_cluster = fz7_get32le(h + 44);
        ext = h + 64;
        b->bits = 32;
    } else if ((b->root_entries * 32u) % b->sector_size) {
        return false;
    }
    if (!b->fat_sectors)
        return false;
    if (ext[2] == 0x29) {
        b->has_id = true;
        b->id = fz7_get32le(ext + 3);
    }
    uint64_t root_sectors = (uint64_t)b->root_entries * 32 / b->sector_size;
    b->data_sector = b->reserved + (uint64_t)b->fat_sectors * b->n_fats + root_sectors;
    if (b->sectors < b->data_sector)
        return false;
    uint32_t clusters = (uint32_t)((b->sectors - b->data_sector) >> spc);
    /* FAT32 by its fields (as 7-Zip takes it, however few its clusters);
     * else FAT12 or FAT16 by the count, as the spec says */
    if (b->bits != 32) {
        if (clusters >= 0xFFF5)
            return false;
        b->bits = clusters < 0xFF5 ? 12 : 16;
    } else if (clusters >= 0x0FFFFFF5) {
        return false;
    }
    b->clusters = clusters;
    /* the FAT must hold an entry for every cluster */
    uint64_t need = ((uint64_t)(clusters + 2) * b->bits + 7) / 8;
    if (need > (uint64_t)b->fat_sectors * b->sector_size)
        return false;
    if (b->bits == 32 && (b->root_cluster < 2 || b->root_cluster >= clusters + 2))
        return false;
    return true;
}

bool fz7_fat_boot_sector(const uint8_t *h)
{
    fat_bpb b;
    return parse_bpb(h, &b);
}

/* Reads the first FAT into p->fat (one 32-bit value per cluster), and
 * counts the free clusters. */
static fz7_status read_fat(fz7_archive *a, const fat_bpb *b, uint64_t *free_clusters)
{
    fat_priv *p = a->priv;
    uint64_t off = (uint64_t)b->reserved * b->sector_size;
    uint32_t n = b->clusters + 2;
    size_t bytes = (size_t)(((uint64_t)n * b->bits + 7) / 8);
    if (off > a->file_size || a->file_size - off < bytes)
        return FZ7_E_FORMAT;
    if ((uint64_t)n * 4 + bytes > a->opts.mem_limit / 2)
        return FZ7_E_MEMLIMIT;
    uint8_t *raw = malloc(bytes);
    p->fat = malloc((size_t)n * sizeof *p->fat);
    p->dir_cluster = calloc(n, 1);
    if (!raw || !p->fat || !p->dir_cluster) {
        free(raw);
        return FZ7_E_MEM;
    }
    fz7_status st = fz7_volumes_pread(a->vol, raw, bytes, off);
    if (st != FZ7_OK) {
        free(raw);
        return st == FZ7_E_TRUNCATED ? FZ7_E_FORMAT : st;
    }
    *free_clusters = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v;
        if (b->bits == 32) {
            v = fz7_get32le(raw + 4 * (size_t)i) & 0x0FFFFFFF;
        } else if (b->bits == 16) {
            v = fz7_get16le(raw + 2 * (size_t)i);
        } else {
            size_t at = (size_t)i * 3 / 2;
            uint32_t w = raw[at] | (at + 1 < bytes ? (uint32_t)raw[at + 1] << 8 : 0);
            v = i & 1 ? w >> 4 : w & 0xFFF;
        }
        p->fat[i] = v;
        if (i >= 2 && v == 0)
            (*free_clusters)++;
    }
    free(raw);
    p->n_fat = n;
    p->eoc = b->bits == 32 ? 0x0FFFFFF8 : b->bits == 16 ? 0xFFF8 : 0xFF8;
    return FZ7_OK;
}

/* The lines of the archive's block after Physical Size, in 7-Zip's order. */
static void block_lines(fz7_archive *a, const fat_bpb *b, uint64_t free_clusters)
{
    fat_priv *p = a->priv;
    size_t k = 0;
    snprintf(p->fs, sizeof p->fs, "FAT%u", b->bits);
    snprintf(p->cluster, sizeof p->cluster, "%u", (unsigned)b->cluster_size);
    snprintf(p->free_space, sizeof p->free_space, "%llu", (unsigned long long)(free_clusters * b->cluster_size));
    /* the system area and every folder's clusters */
    uint64_t headers = b->data_sector * b->sector_size + p->dir_clusters * b->cluster_size;
    snprintf(p->headers, sizeof p->headers, "%llu", (unsigned long long)headers);
    snprintf(p->sector, sizeof p->sector, "%u", (unsigned)b->sector_size);
    snprintf(p->id_text, sizeof p->id_text, "%u", (unsigned)b->id);
    p->lines[k++] = (fz7_prop){.name = "File System", .value = p->fs};
    p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = p->cluster};
    p->lines[k++] = (fz7_prop){.name = "Free Space", .value = p->free_space};
    p->lines[k++] = (fz7_prop){.name = "Headers Size", .value = p->headers};
    if (p->has_label) {
        int64_t t;
        if (dos_time(p->label.mdate, p->label.mtime, &t))
            p->lines[k++] = (fz7_prop){.name = "Modified", .sec = t, .digits = 0};
        size_t n = 11;
        while (n && p->label.short_name[n - 1] == ' ')
            n--;
        memcpy(p->label_text, p->label.short_name, n);
        p->label_text[n] = 0;
        p->lines[k++] = (fz7_prop){.name = "Label", .value = p->label_text};
    }
    p->lines[k++] = (fz7_prop){.name = "Sector Size", .value = p->sector};
    if (b->has_id)
        p->lines[k++] = (fz7_prop){.name = "ID", .value = p->id_text};
    a->info.block_lines = p->lines;
    a->info.n_block_lines = k;
}

fz7_status fz7_fat_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint8_t h[512];
    fat_bpb b;
    if (a->file_size < sizeof h || fz7_volumes_pread(a->vol, h, sizeof h, 0) != FZ7_OK || !parse_bpb(h, &b))
        return FZ7_E_FORMAT;
    fat_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    a->priv = p;
    a->ops = &fat_ops;
    p->bits = b.bits;
    p->cluster_size = b.cluster_size;
    p->data_off = b.data_sector * b.sector_size;
    uint64_t free_clusters = 0;
    size_t cap = 0;
    fz7_status st = read_fat(a, &b, &free_clusters);
    if (st == FZ7_OK) {
        uint64_t root_off = ((uint64_t)b.reserved + (uint64_t)b.fat_sectors * b.n_fats) * b.sector_size;
        st = open_dir(a, &cap, -1, b.bits == 32 ? b.root_cluster : 0, root_off, b.root_entries * 32u, 0);
    }
    if (st == FZ7_OK) {
        fill_entries(a);
        block_lines(a, &b, free_clusters);
        uint64_t phy = (uint64_t)b.sectors * b.sector_size;
        a->info.phy_size = phy;
        a->info.tail_size = a->file_size > phy ? a->file_size - phy : 0;
        if (a->file_size < phy)   /* cut short: listed, the missing data fail */
            a->info.open_error = "Unexpected end of archive";
        a->info.format = FZ7_FORMAT_OTHER;
        a->info.type_name = "FAT";
        a->info.headers_error = p->bad_lfn;
        a->info.method = "";
        return FZ7_OK;
    }
    fz7_archive_free_entries(a);
    fat_close(a);
    a->ops = NULL;
    return st == FZ7_E_MEM ? st : FZ7_E_FORMAT;
}
