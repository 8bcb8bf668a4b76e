/* cfb_read.c - Microsoft Compound File Binary files ([MS-CFB]: .msi, .msp,
 * .msm, .doc, .xls, .ppt, .aaf), read as 7-Zip reads them (its Compound
 * type). Layout: a 512-byte header (in a sector of its own), then sectors
 * numbered from 0. The FAT (its sectors named by the header's 109 DIFAT
 * slots and a chain of DIFAT sectors) links each sector to the next of
 * its chain. The directory is a chain of 128-byte entries: entry 0 the
 * root, whose stream is the mini stream; streams under 4096 bytes live in
 * the mini stream in 64-byte sectors linked by the mini FAT. Storages and
 * streams of one storage form a red-black tree, walked here as a plain
 * binary tree (left, self, the storage's own tree, right), each entry at
 * most once. Every check 7-Zip makes at open is made, so the same files
 * open: sectors used once each, the FAT agreeing with what uses them. */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define CFB_HEADER 512
#define CFB_ENTRY 128
#define CFB_MINI_BITS 6
#define CFB_MINI_CUTOFF 4096u     /* streams this long or longer: regular sectors */
#define CFB_NONE 0xFFFFFFFFu      /* no entry (NOSTREAM), a free sector */
#define CFB_END 0xFFFFFFFEu       /* ENDOFCHAIN */
#define CFB_FATSECT 0xFFFFFFFDu
#define CFB_DIFSECT 0xFFFFFFFCu
#define CFB_MAXREG 0xFFFFFFFAu    /* the highest sector number */
#define CFB_LONG_LEVEL 256        /* 7-Zip cuts paths whose folders lie deeper */
#define CFB_COPY (1u << 16)

enum { T_EMPTY = 0, T_STORAGE = 1, T_STREAM = 2, T_ROOT = 5 };
/* What uses a sector, in the order of the FAT values that mark it
 * (0xFFFFFFFF - use): free, a chain's, the FAT's, the DIFAT's. */
enum { U_FREE = 0, U_CHAIN = 1, U_FAT = 2, U_DIFAT = 3 };
enum { K_COMPOUND, K_MSI, K_MSP, K_MSM, K_DOC, K_PPT, K_XLS, K_AAF };
static const char *const kind_ext[] = {"compound", "msi", "msp", "msm", "doc", "ppt", "xls", "aaf"};

/* One directory entry as stored. */
typedef struct cfb_item {
    uint16_t name[32];           /* UTF-16 units up to the first 0 */
    uint64_t ctime, mtime, size; /* FILETIMEs (0: none) */
    uint32_t left, right, son, sid;
    uint32_t level;              /* storages above it + 1, once walked */
    uint8_t type, state;         /* state: walk phase (0: not reached) */
} cfb_item;

typedef struct cfb_priv {
    unsigned bits;               /* sector size 2^bits: 9 or 12 */
    uint32_t *fat, n_fat;        /* FAT entries (whole FAT sectors) */
    uint32_t *mat, n_mat;        /* mini FAT entries the mini stream covers */
    uint32_t *mini, n_mini;      /* the mini stream's sectors, in order */
    cfb_item *items;
    size_t n_items;
    uint32_t *item_of;           /* per entry: its directory entry */
    uint64_t phy_unaligned;      /* past the last byte of the last stream */
    fz7_prop lines[2];
    char cluster[16];
} cfb_priv;

static uint64_t ceil_div(uint64_t n, unsigned bits) { return (n + ((uint64_t)1 << bits) - 1) >> bits; }

/* Reads sector sid whole: FZ7_E_FORMAT when the file holds less. */
static fz7_status read_sector(const fz7_archive *a, const cfb_priv *p, uint32_t sid, uint8_t *buf)
{
    uint64_t off = ((uint64_t)sid + 1) << p->bits, n = (uint64_t)1 << p->bits;
    if (off > a->file_size || a->file_size - off < n)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_volumes_pread(a->vol, buf, (size_t)n, off);
    return st == FZ7_E_TRUNCATED ? FZ7_E_FORMAT : st;
}

static fz7_status read_ids(const fz7_archive *a, const cfb_priv *p, uint32_t sid, uint8_t *buf, uint32_t *dest)
{
    fz7_status st = read_sector(a, p, sid, buf);
    for (size_t k = 0; st == FZ7_OK && k < ((size_t)1 << p->bits) / 4; k++)
        dest[k] = fz7_get32le(buf + 4 * k);
    return st;
}

/* Parses a directory entry; false where 7-Zip refuses the file. */
static bool parse_item(const uint8_t *q, bool wide, cfb_item *it)
{
    memset(it, 0, sizeof *it);
    unsigned len = 0;
    while (len < 32 && fz7_get16le(q + 2 * len))
        len++;
    for (unsigned i = 0; i < len; i++)
        it->name[i] = fz7_get16le(q + 2 * i);
    it->type = q[66];
    if (it->type != T_EMPTY && (len == 32 || 2 * len + 2 != fz7_get16le(q + 64)))
        return false;
    if (q[67] > 1)   /* the color: red or black */
        return false;
    it->left = fz7_get32le(q + 68);
    it->right = fz7_get32le(q + 72);
    it->son = fz7_get32le(q + 76);
    it->ctime = fz7_get64le(q + 100);
    it->mtime = fz7_get64le(q + 108);
    it->sid = fz7_get32le(q + 116);
    it->size = fz7_get32le(q + 120);
    if (wide)   /* version 3 files may keep junk in the high half */
        it->size |= (uint64_t)fz7_get32le(q + 124) << 32;
    return true;
}

static bool is_large(size_t index, uint64_t size) { return index == 0 || size >= CFB_MINI_CUTOFF; }

/* Marks sector sid as used by a chain: false when it is no sector or used
 * already (two chains sharing it, or a cycle). */
static bool take(uint8_t *used, uint32_t n, uint32_t sid, uint8_t how)
{
    if (sid >= n || used[sid])
        return false;
    used[sid] = how;
    return true;
}

/* A stream's chain is as long as its size says and ends there; keeps the
 * end of the last regular stream's data for the physical size. */
static bool check_item(cfb_priv *p, size_t index)
{
    const cfb_item *it = &p->items[index];
    if (it->type == T_EMPTY || it->type == T_STORAGE)
        return true;
    uint64_t size = it->size;
    uint32_t sid = it->sid;
    if (!is_large(index, size)) {
        if (ceil_div(size, CFB_MINI_BITS) > p->n_mat)
            return false;
        for (; size; size = size > 64 ? size - 64 : 0) {
            if (sid >= p->n_mat)
                return false;
            if ((sid >> (p->bits - CFB_MINI_BITS)) >= p->n_mini)
                return true;   /* (7-Zip lets it open; extraction fails) */
            sid = p->mat[sid];
        }
        return sid == CFB_END;
    }
    uint64_t cluster = (uint64_t)1 << p->bits;
    if (ceil_div(size, p->bits) > p->n_fat)
        return false;
    for (; size; size = size > cluster ? size - cluster : 0) {
        if (sid >= p->n_fat)
            return false;
        if (size <= cluster) {
            uint64_t end = (((uint64_t)sid + 1) << p->bits) + size;
            if (end > p->phy_unaligned)
                p->phy_unaligned = end;
        }
        sid = p->fat[sid];
    }
    return sid == CFB_END;
}

/* The FAT from the DIFAT (header and DIFAT sectors), checked as 7-Zip
 * checks it; used[] gets what each sector holds. */
static fz7_status read_fat(fz7_archive *a, cfb_priv *p, const uint8_t *h, uint8_t *used, uint8_t *sect)
{
    unsigned ids_bits = p->bits - 2;
    uint32_t per = 1u << ids_bits, n_fat_sect = fz7_get32le(h + 44), n_dif = fz7_get32le(h + 72);
    uint64_t sectors_in_file = a->file_size >> p->bits;
    if (n_dif > ((1u << 30) >> (ids_bits - 1) >> (ids_bits - 1)) || n_dif > sectors_in_file)
        return FZ7_E_FORMAT;
    uint64_t n_bat = 109 + ((uint64_t)n_dif << ids_bits);
    uint32_t *bat = malloc((size_t)n_bat * sizeof *bat);
    if (!bat)
        return FZ7_E_MEM;
    for (size_t i = 0; i < 109; i++)
        bat[i] = fz7_get32le(h + 76 + 4 * i);
    size_t i = 109;
    uint32_t sid = fz7_get32le(h + 68);
    fz7_status st = FZ7_OK;
    for (uint32_t s = 0; s < n_dif && st == FZ7_OK; s++) {
        if (!take(used, p->n_fat, sid, U_DIFAT))
            st = FZ7_E_FORMAT;
        else if ((st = read_ids(a, p, sid, sect, bat + i)) == FZ7_OK) {
            i += per - 1;   /* the last slot names the next DIFAT sector */
            sid = bat[i];
        }
    }
    if (st == FZ7_OK && sid != CFB_END && sid != CFB_NONE)
        st = FZ7_E_FORMAT;
    if (st == FZ7_OK && n_fat_sect > i)
        st = FZ7_E_FORMAT;
    for (size_t k = n_fat_sect; st == FZ7_OK && k < i; k++)
        if (bat[k] != CFB_NONE)
            st = FZ7_E_FORMAT;
    for (uint32_t k = 0; st == FZ7_OK && k < n_fat_sect; k++) {
        uint32_t at = bat[k];
        uint32_t *part = p->fat + ((size_t)k << ids_bits);
        if (!take(used, p->n_fat, at, U_FAT) || (st = read_ids(a, p, at, sect, part)) != FZ7_OK) {
            st = st == FZ7_OK ? FZ7_E_FORMAT : st;
            break;
        }
        for (uint32_t j = 0; j < per && st == FZ7_OK; j++) {
            uint32_t v = part[j];
            if (v > CFB_MAXREG) {
                if (v == CFB_DIFSECT && used[((size_t)k << ids_bits) + j] != U_DIFAT)
                    st = FZ7_E_FORMAT;
            } else if (!take(used, p->n_fat, v, U_CHAIN)) {
                st = FZ7_E_FORMAT;   /* two sectors lead to one: chains cross */
            }
        }
    }
    for (uint32_t k = 0; st == FZ7_OK && k < n_fat_sect; k++)
        if (p->fat[bat[k]] != CFB_FATSECT)
            st = FZ7_E_FORMAT;
    free(bat);
    return st;
}

/* The mini FAT's chain, read whole. */
static fz7_status read_mat(fz7_archive *a, cfb_priv *p, const uint8_t *h, uint8_t *used, uint8_t *sect,
                           uint32_t *n_items)
{
    unsigned ids_bits = p->bits - 2;
    uint32_t n_sect = fz7_get32le(h + 64), sid = fz7_get32le(h + 60);
    if (n_sect > (a->file_size >> p->bits) || n_sect > (UINT32_MAX >> ids_bits))
        return FZ7_E_FORMAT;   /* (each is read from the file) */
    *n_items = n_sect << ids_bits;
    p->mat = malloc(((size_t)*n_items + 1) * sizeof *p->mat);
    if (!p->mat)
        return FZ7_E_MEM;
    if (*n_items && !take(used, p->n_fat, sid, U_CHAIN))
        return FZ7_E_FORMAT;
    for (uint32_t i = 0; i < *n_items; i += 1u << ids_bits) {
        if (sid >= p->n_fat)
            return FZ7_E_FORMAT;
        fz7_status st = read_ids(a, p, sid, sect, p->mat + i);
        if (st != FZ7_OK)
            return st;
        sid = p->fat[sid];
    }
    return sid == CFB_END ? FZ7_OK : FZ7_E_FORMAT;
}

/* The directory's chain: every entry, checked as 7-Zip checks it. */
static fz7_status read_dir(fz7_archive *a, cfb_priv *p, const uint8_t *h, uint8_t *used, uint8_t *sect)
{
    uint32_t n_dir = fz7_get32le(h + 40), sid = fz7_get32le(h + 48), done = 0;
    size_t per = ((size_t)1 << p->bits) / CFB_ENTRY, cap = 0;
    bool wide = p->bits >= 12;
    uint64_t sect_size = (uint64_t)1 << p->bits;
    if (!take(used, p->n_fat, sid, U_CHAIN))
        return FZ7_E_FORMAT;
    do {
        if (sid >= p->n_fat || (n_dir && done >= n_dir) || done >= p->n_fat)
            return FZ7_E_FORMAT;
        done++;
        fz7_status st = read_sector(a, p, sid, sect);
        if (st != FZ7_OK)
            return st;
        for (size_t k = 0; k < per; k++) {
            cfb_item it;
            if (!parse_item(sect + k * CFB_ENTRY, wide, &it) || (it.size >> 32) >= sect_size)
                return FZ7_E_FORMAT;
            if (p->n_items == 0) {
                if (it.type != T_ROOT || it.left != CFB_NONE || it.right != CFB_NONE || it.son == 0)
                    return FZ7_E_FORMAT;
                if (it.sid != CFB_END && !take(used, p->n_fat, it.sid, U_CHAIN))
                    return FZ7_E_FORMAT;
            } else if (it.type == T_STORAGE) {
                if (it.size != 0 || (it.sid != 0 && it.sid != CFB_NONE))
                    return FZ7_E_FORMAT;
            } else if (it.type == T_EMPTY) {
                /* some writers leave zeros in an unused entry's links */
                if ((it.sid != 0 && it.sid != CFB_NONE && it.sid != CFB_END) ||
                    (it.left != CFB_NONE && it.left) || (it.right != CFB_NONE && it.right) ||
                    (it.son != CFB_NONE && it.son))
                    return FZ7_E_FORMAT;
            } else {
                if (it.type != T_STREAM || it.son != CFB_NONE)
                    return FZ7_E_FORMAT;
                if (it.size == 0 ? it.sid != CFB_END
                                 : it.size >= CFB_MINI_CUTOFF && !take(used, p->n_fat, it.sid, U_CHAIN))
                    return FZ7_E_FORMAT;
            }
            if ((st = fz7_grow((void **)&p->items, p->n_items, &cap, sizeof *p->items, 16, a->opts.mem_limit)) !=
                FZ7_OK)
                return st;
            p->items[p->n_items++] = it;
        }
        sid = p->fat[sid];
    } while (sid != CFB_END);
    return FZ7_OK;
}

/* The root's stream: the sectors of the mini stream, exactly as many as
 * its size needs. */
static fz7_status read_mini(cfb_priv *p, uint32_t n_mat_items)
{
    const cfb_item *root = &p->items[0];
    uint64_t n = ceil_div(root->size, p->bits), m = ceil_div(root->size, CFB_MINI_BITS);
    if (n > (uint64_t)CFB_MAXREG + 1 || m > n_mat_items || n > p->n_fat)
        return FZ7_E_FORMAT;
    p->n_mat = (uint32_t)m;
    p->mini = malloc(((size_t)n + 1) * sizeof *p->mini);
    if (!p->mini)
        return FZ7_E_MEM;
    uint32_t sid = root->sid;
    for (uint64_t i = 0;; i++) {
        if (sid == CFB_END) {
            if (i != n)
                return FZ7_E_FORMAT;
            break;
        }
        if (i >= n || sid >= p->n_fat)
            return FZ7_E_FORMAT;
        p->mini[i] = sid;
        sid = p->fat[sid];
    }
    p->n_mini = (uint32_t)n;
    return FZ7_OK;
}

/* Every FAT value agrees with what uses its sector (7-Zip's strict check,
 * which also takes the range lock sector of files past 2 GB). */
static bool fat_agrees(const cfb_priv *p, uint8_t *used)
{
    uint32_t lock = (0x7FFFFFFFu >> p->bits) - 1;
    if (lock < p->n_fat) {
        if (used[lock])
            return false;
        if (p->fat[lock] == CFB_END)
            used[lock] = U_CHAIN;
        else if (p->fat[lock] != CFB_NONE)
            return false;
    }
    for (uint32_t i = 0; i < p->n_fat; i++) {
        uint32_t f = p->fat[i] <= CFB_MAXREG ? CFB_END : p->fat[i];
        if (f != CFB_NONE - used[i])
            return false;
    }
    return true;
}

/* UTF-8 of one code point into out (4 bytes at most). */
static size_t put_utf8(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | (c >> 6 & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | (c >> 12 & 0x3F));
    out[2] = (char)(0x80 | (c >> 6 & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* An entry's name as 7-Zip shows it (out: 32 units * 8 bytes is enough):
 * MSI's packed characters (U+3800..U+47FF: two of a 64-letter set,
 * U+4800..U+483F: one, U+4840: the table mark "!") decoded, a control
 * character as "[N]", '/' as '_', an empty name as "[]". */
static size_t item_name(const cfb_item *it, char *out)
{
    static const char set[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._";
    size_t n = 0;
    for (unsigned i = 0; i < 32 && it->name[i]; i++) {
        uint32_t c = it->name[i];
        if (c >= 0x3800 && c <= 0x4840) {
            unsigned v = c - 0x3800, hi = v >> 6;
            if (hi > 64) {
                out[n++] = '!';
                continue;
            }
            out[n++] = set[v & 63];
            if (hi < 64)
                out[n++] = set[hi];
            continue;
        }
        if (c < 0x20) {
            n += (size_t)sprintf(out + n, "[%u]", (unsigned)c);
            continue;
        }
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < 32 && it->name[i + 1] >= 0xDC00 && it->name[i + 1] < 0xE000) {
            c = 0x10000 + ((c - 0xD800) << 10) + (it->name[i + 1] - 0xDC00u);
            i++;
        }   /* (a lone surrogate goes out as its own 3 bytes, as 7-Zip's) */
        if (c == '/')
            c = '_';
        n += put_utf8(c, out + n);
    }
    if (!n) {
        memcpy(out, "[]", 2);
        n = 2;
    }
    out[n] = 0;
    return n;
}

/* Whether an entry's raw name is the ASCII text s. */
static bool raw_name_is(const cfb_item *it, const char *s)
{
    unsigned i = 0;
    for (; s[i]; i++)
        if (i >= 32 || it->name[i] != (uint8_t)s[i])
            return false;
    return i == 32 || it->name[i] == 0;
}

/* Adds the entry for item x under entry parent (SIZE_MAX: the top). Its
 * path is the parent's plus its name, or from "[LONG_PATH]" when the
 * parent lies CFB_LONG_LEVEL storages deep, as 7-Zip cuts it. */
static fz7_status add_entry(fz7_archive *a, size_t *cap, uint32_t x, size_t parent)
{
    cfb_priv *p = a->priv;
    char name[32 * 8 + 1];
    size_t nl = item_name(&p->items[x], name);
    const char *pp = NULL;
    char *cut = NULL;
    if (parent != SIZE_MAX) {
        const cfb_item *up = &p->items[p->item_of[parent]];
        if (up->level >= CFB_LONG_LEVEL) {
            char upn[32 * 8 + 1];
            item_name(up, upn);
            size_t l = strlen(upn) + 13;
            if (!(cut = malloc(l)))
                return FZ7_E_MEM;
            snprintf(cut, l, "[LONG_PATH]/%s", upn);
            pp = cut;
        } else {
            pp = a->entries[parent].path;
        }
    }
    size_t pl = pp ? strlen(pp) + 1 : 0;
    fz7_status st = fz7_grow((void **)&a->entries, a->count, cap, sizeof *a->entries, 16, a->opts.mem_limit);
    char *path = st == FZ7_OK ? malloc(pl + nl + 1) : NULL;
    if (!path) {
        free(cut);
        return st == FZ7_OK ? FZ7_E_MEM : st;
    }
    if (pp) {
        memcpy(path, pp, pl - 1);
        path[pl - 1] = '/';
    }
    memcpy(path + pl, name, nl + 1);
    free(cut);
    fz7_entry *e = &a->entries[a->count];
    memset(e, 0, sizeof *e);
    e->path = path;
    e->folder = -1;
    e->method = "";
    p->item_of[a->count++] = x;
    return FZ7_OK;
}

/* Walks the directory from the root's tree: per sibling tree its left
 * side, the entry, a storage's own tree, its right side (7-Zip's order),
 * with an explicit stack. An entry reached twice (a cycle, or a link to
 * the root), an unused one or a link past the directory refuses the file,
 * and so does an entry in use that is never reached. */
static fz7_status walk(fz7_archive *a)
{
    cfb_priv *p = a->priv;
    size_t n = p->n_items, cap = 0;
    uint32_t start = p->items[0].son;
    if (start == CFB_NONE)
        return FZ7_OK;
    if (start == 0 || start >= n)
        return FZ7_E_FORMAT;
    typedef struct frame {
        uint32_t x;
        uint32_t level;
        size_t parent;   /* the entry of the storage it is in, or SIZE_MAX */
    } frame;
    frame *stack = malloc(n * sizeof *stack);
    p->item_of = malloc(n * sizeof *p->item_of);
    if (!stack || !p->item_of) {
        free(stack);
        return FZ7_E_MEM;
    }
    p->items[0].state = 3;
    size_t depth = 0;
    fz7_status st = FZ7_OK;
    uint32_t next = start, next_level = 1;
    size_t next_parent = SIZE_MAX;
    for (;;) {
        if (next != CFB_NONE) {   /* enter a node */
            if (next >= n || p->items[next].state || p->items[next].type == T_EMPTY) {
                st = FZ7_E_FORMAT;
                break;
            }
            p->items[next].state = 1;
            p->items[next].level = next_level;
            stack[depth++] = (frame){next, next_level, next_parent};
            next = CFB_NONE;
        }
        if (!depth)
            break;
        frame *f = &stack[depth - 1];
        cfb_item *it = &p->items[f->x];
        if (it->state == 1) {
            it->state = 2;
            next = it->left;
            next_level = f->level;
            next_parent = f->parent;
        } else if (it->state == 2) {
            it->state = 3;
            if ((st = add_entry(a, &cap, f->x, f->parent)) != FZ7_OK)
                break;
            if (it->type != T_STREAM) {   /* a storage: its tree next */
                next = it->son;
                next_level = f->level + 1;
                next_parent = a->count - 1;
            }
        } else if (it->state == 3) {
            it->state = 4;
            next = it->right;
            next_level = f->level;
            next_parent = f->parent;
        } else {
            depth--;
        }
    }
    free(stack);
    for (size_t i = 1; st == FZ7_OK && i < n; i++)
        if (p->items[i].type != T_EMPTY && !p->items[i].state)
            st = FZ7_E_FORMAT;   /* an entry in use that no tree holds */
    return st;
}

/* FILETIME (100 ns since 1601) to Unix seconds and nanoseconds. */
static void filetime(uint64_t ft, int64_t *sec, uint32_t *nsec)
{
    *sec = (int64_t)(ft / 10000000) - 11644473600LL;
    *nsec = (uint32_t)(ft % 10000000) * 100;
}

static uint64_t pack_size(const cfb_priv *p, uint64_t size)
{
    unsigned bits = size >= CFB_MINI_CUTOFF ? p->bits : CFB_MINI_BITS;
    return ceil_div(size, bits) << bits;
}

/* The kind 7-Zip names in its Extension line, and the one .cab (or "exe")
 * stream of an MSI package that it opens in the package's place. */
static unsigned kind_of(fz7_archive *a, const uint8_t *h)
{
    cfb_priv *p = a->priv;
    unsigned kind = fz7_get32le(h + 16) == 0x342B0E06u ? K_AAF : K_COMPOUND;   /* AAF's CLSID, in part */
    bool msi = false;
    for (size_t i = 0; i < a->count && !msi; i++) {
        const cfb_item *it = &p->items[p->item_of[i]];
        for (unsigned k = 0; it->type == T_STREAM && k < 32 && it->name[k]; k++)
            if (it->name[k] >= 0x3800 && it->name[k] <= 0x4840)
                msi = true;
    }
    char name[32 * 8 + 1];
    if (msi) {
        size_t cabs = 0;
        kind = K_MSI;
        for (size_t i = 0; i < a->count; i++) {
            const cfb_item *it = &p->items[p->item_of[i]];
            if (it->type != T_STREAM)
                continue;
            size_t n = item_name(it, name);
            if ((n >= 4 && !strcasecmp(name + n - 4, ".cab")) || (n >= 3 && !strcasecmp(name + n - 3, "exe"))) {
                a->main_subfile = ++cabs == 1 ? i + 1 : 0;
                if (cabs > 1)
                    break;
            }
        }
    }
    if (kind == K_AAF)
        return kind;
    for (size_t i = 0; i < a->count; i++) {
        const cfb_item *it = &p->items[p->item_of[i]];
        if (it->type != T_STREAM)
            continue;
        if (msi) {
            item_name(it, name);
            if (!strcmp(name, "!MsiPatchSequence"))
                return K_MSP;
            if (!strcmp(name, "MergeModule.CABinet"))
                return K_MSM;
        } else if (raw_name_is(it, "WordDocument")) {
            return K_DOC;
        } else if (raw_name_is(it, "PowerPoint Document")) {
            return K_PPT;
        } else if (raw_name_is(it, "Workbook")) {
            return K_XLS;
        }
    }
    return kind;
}

/* Where each sector of a stream (64-byte mini sectors for a short one)
 * lies in the file, so the archive it holds can be opened in place: a
 * malloc'd array in *out, *bits the sectors' size. False when its chain
 * leaves the file's sectors (or memory is short). */
static bool stream_blocks(const fz7_archive *a, size_t index, uint64_t **out, unsigned *bits)
{
    const cfb_priv *p = a->priv;
    const cfb_item *it = &p->items[index];
    bool large = is_large(index, it->size);
    *bits = large ? p->bits : CFB_MINI_BITS;
    uint64_t n = ceil_div(it->size, *bits);
    if (n > (large ? p->n_fat : p->n_mat) || !(*out = malloc((n ? (size_t)n : 1) * sizeof **out)))
        return false;
    uint32_t sid = it->sid, sub = p->bits - CFB_MINI_BITS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t at;
        if (large && sid < p->n_fat) {
            at = ((uint64_t)sid + 1) << p->bits;
            sid = p->fat[sid];
        } else if (!large && sid < p->n_mat && (sid >> sub) < p->n_mini) {
            at = (((uint64_t)p->mini[sid >> sub] + 1) << p->bits) +
                 ((uint64_t)(sid & ((1u << sub) - 1)) << CFB_MINI_BITS);
            sid = p->mat[sid];
        } else {
            break;
        }
        if (at > a->file_size || a->file_size - at < ((uint64_t)1 << *bits))
            break;
        (*out)[i] = at;
        if (i + 1 == n)
            return true;
    }
    free(*out);
    *out = NULL;
    return n == 0;
}

static fz7_status cfb_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err,
                              size_t errlen)
{
    cfb_priv *p = a->priv;
    uint8_t *buf = malloc(CFB_COPY);
    if (!buf)
        return FZ7_E_MEM;
    fz7_status st = FZ7_OK;
    uint64_t sect = (uint64_t)1 << p->bits;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        const cfb_item *it = &p->items[p->item_of[i]];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        if (e->is_dir) {
            st = cb->end(cb->ctx, i, FZ7_OK, NULL);
            continue;
        }
        fz7_status r = FZ7_OK;
        bool cb_failed = false, bad = false;
        uint64_t left = it->size;
        uint32_t sid = it->sid;
        if (!is_large(p->item_of[i], it->size)) {
            /* 7-Zip gathers a small stream whole before handing it on */
            size_t got = 0;
            while (left && r == FZ7_OK) {
                uint32_t fid = sid >> (p->bits - CFB_MINI_BITS);
                if (sid >= p->n_mat || fid >= p->n_mini) {
                    bad = true;
                    break;
                }
                uint64_t off = (((uint64_t)p->mini[fid] + 1) << p->bits) +
                               ((uint64_t)(sid & ((1u << (p->bits - CFB_MINI_BITS)) - 1)) << CFB_MINI_BITS);
                size_t k = left < 64 ? (size_t)left : 64;
                if (off > a->file_size || a->file_size - off < k) {
                    bad = true;
                    break;
                }
                r = fz7_volumes_pread(a->vol, buf + got, k, off);
                got += k;
                left -= k;
                sid = p->mat[sid];
            }
            if (!bad && r == FZ7_OK && sid != CFB_END)
                bad = true;
            if (!bad && r == FZ7_OK && got) {
                r = cb->data(cb->ctx, buf, got);
                cb_failed = r != FZ7_OK;
            }
        } else {
            while (left && r == FZ7_OK) {
                if (sid >= p->n_fat) {
                    bad = true;
                    break;
                }
                uint64_t off = ((uint64_t)sid + 1) << p->bits;
                size_t k = left < sect ? (size_t)left : (size_t)sect;
                uint32_t last = sid;
                /* sectors in a row are read at once */
                while (k < left && k + sect <= CFB_COPY && last < p->n_fat && p->fat[last] == last + 1 &&
                       off + k + sect <= a->file_size) {
                    last++;
                    k += left - k < sect ? (size_t)(left - k) : (size_t)sect;
                }
                if (off > a->file_size || a->file_size - off < k) {
                    bad = true;   /* the file ends in it: what is there goes out */
                    size_t have = off < a->file_size ? (size_t)(a->file_size - off) : 0;
                    if (have && (r = fz7_volumes_pread(a->vol, buf, have, off)) == FZ7_OK) {
                        r = cb->data(cb->ctx, buf, have);
                        cb_failed = r != FZ7_OK;
                    }
                    break;
                }
                if ((r = fz7_volumes_pread(a->vol, buf, k, off)) != FZ7_OK)
                    break;
                r = cb->data(cb->ctx, buf, k);
                cb_failed = r != FZ7_OK;
                left -= k;
                sid = p->fat[last];
            }
            if (!bad && r == FZ7_OK && sid != CFB_END)
                bad = true;
        }
        if (cb_failed || r == FZ7_E_MEM) {
            st = r;
            break;
        }
        if (r != FZ7_OK) {
            snprintf(err, errlen, "Read error");
            st = r;
            break;
        }
        st = cb->end(cb->ctx, i, bad ? FZ7_E_DATA : FZ7_OK, bad ? "the stream's sectors are not in the file" : NULL);
    }
    free(buf);
    return st;
}

static size_t cfb_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const cfb_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const cfb_item *it = &p->items[p->item_of[i]];
    size_t n = 0, used = 0;
    int64_t s;
    uint32_t ns;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &n, "Packed Size",
                  e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size));
    filetime(it->ctime, &s, &ns);
    fz7_prop_time(pr, &n, "Created", it->ctime != 0, s, ns, 7);
    filetime(it->mtime, &s, &ns);
    fz7_prop_time(pr, &n, "Modified", it->mtime != 0, s, ns, 7);
    return n;
}

static void cfb_close(fz7_archive *a)
{
    cfb_priv *p = a->priv;
    if (p) {
        free(p->fat);
        free(p->mat);
        free(p->mini);
        free(p->items);
        free(p->item_of);
    }
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops cfb_ops = {cfb_extract, cfb_close, cfb_props};

/* Everything after the header's first checks (7-Zip's "it is one" point:
 * a failure from here on is a damaged file, not another format). */
static fz7_status read_file(fz7_archive *a, const uint8_t *h)
{
    cfb_priv *p = a->priv;
    uint32_t n_fat_sect = fz7_get32le(h + 44);
    unsigned ids_bits = p->bits - 2;
    if (fz7_get32le(h + 56) != CFB_MINI_CUTOFF)
        return FZ7_E_FORMAT;
    if (n_fat_sect == 0 || n_fat_sect > (UINT32_MAX >> ids_bits) || n_fat_sect > (a->file_size >> p->bits))
        return FZ7_E_FORMAT;   /* (each FAT sector is read from the file) */
    p->n_fat = n_fat_sect << ids_bits;
    if ((uint64_t)p->n_fat * 5 > a->opts.mem_limit)
        return FZ7_E_MEMLIMIT;
    uint8_t *used = calloc(p->n_fat, 1), *sect = malloc((size_t)1 << p->bits);
    p->fat = malloc((size_t)p->n_fat * sizeof *p->fat);
    fz7_status st = used && sect && p->fat ? FZ7_OK : FZ7_E_MEM;
    uint32_t n_mat_items = 0;
    if (st == FZ7_OK)
        st = read_fat(a, p, h, used, sect);
    if (st == FZ7_OK) {
        uint32_t last = p->n_fat;
        while (last && p->fat[last - 1] == CFB_NONE)
            last--;
        a->info.phy_size = ((uint64_t)last + 1) << p->bits;
        st = read_mat(a, p, h, used, sect, &n_mat_items);
    }
    if (st == FZ7_OK)
        st = read_dir(a, p, h, used, sect);
    if (st == FZ7_OK)
        st = read_mini(p, n_mat_items);
    if (st == FZ7_OK && !fat_agrees(p, used))
        st = FZ7_E_FORMAT;
    for (size_t i = 0; st == FZ7_OK && i < p->n_items; i++)
        if (!check_item(p, i))
            st = FZ7_E_FORMAT;
    free(used);
    free(sect);
    if (st == FZ7_OK)
        st = walk(a);
    if (st != FZ7_OK)
        return st;
    /* a file may end inside its last sector, right after its last data */
    uint64_t phy = a->info.phy_size, ss = (uint64_t)1 << p->bits;
    if (a->file_size < phy && a->file_size > phy - ss && a->file_size >= p->phy_unaligned &&
        p->phy_unaligned > phy - ss)
        a->info.phy_size = p->phy_unaligned;
    return FZ7_OK;
}

fz7_status fz7_cfb_open(fz7_archive *a, char *err, size_t errlen)
{
    static const uint8_t sig[8] = {0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1};
    uint8_t h[CFB_HEADER];
    if (a->file_size < CFB_HEADER || fz7_volumes_pread(a->vol, h, sizeof h, 0) != FZ7_OK || memcmp(h, sig, 8))
        return FZ7_E_FORMAT;
    unsigned major = fz7_get16le(h + 26), bits = fz7_get16le(h + 30);
    if (fz7_get16le(h + 24) != 0x3E || major < 3 || major > 4 || fz7_get16le(h + 28) != 0xFFFE ||
        bits != major * 3 || fz7_get16le(h + 32) != CFB_MINI_BITS)
        return FZ7_E_FORMAT;
    uint32_t n_dir = fz7_get32le(h + 40);
    bool damaged = fz7_get16le(h + 34) || fz7_get32le(h + 36) || major != 3u + (n_dir != 0) ||
                   n_dir > ((1u << 30) >> (bits - 9)) || (bits == 9 && fz7_get32le(h + 44) >= (1u << 15));
    cfb_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    a->priv = p;
    a->ops = &cfb_ops;
    p->bits = bits;
    fz7_status st = damaged ? FZ7_E_FORMAT : read_file(a, h);
    if (st == FZ7_OK) {
        unsigned kind = kind_of(a, h);
        for (size_t i = 0; i < a->count; i++) {
            fz7_entry *e = &a->entries[i];
            const cfb_item *it = &p->items[p->item_of[i]];
            e->is_dir = it->type != T_STREAM;
            e->has_mtime = it->mtime != 0;
            filetime(it->mtime, &e->mtime, &e->mtime_nsec);
            e->mtime_prec = FZ7_MTIME_EXACT;
            e->has_attrib = e->is_dir;
            e->attrib = e->is_dir ? 0x10 : 0;
            e->mode = e->is_dir ? S_IFDIR | 0755 : S_IFREG | 0644;
            if (e->is_dir)
                continue;
            e->has_size = e->packed_known = true;
            e->size = it->size;
            e->packed_size = pack_size(p, it->size);
            e->has_stream = it->size > 0;
        }
        if (a->main_subfile) {
            const char *path = a->entries[a->main_subfile - 1].path;
            size_t pl = strlen(path);
            if (a->entries[a->main_subfile - 1].size &&
                stream_blocks(a, p->item_of[a->main_subfile - 1], &a->main_blocks, &a->main_bits))
                a->main_type = pl >= 4 && !strcasecmp(path + pl - 4, ".cab") ? "Cab" : NULL;
            else
                a->main_subfile = 0;   /* (fz7 opens a subfile only over the file's bytes) */
        }
        snprintf(p->cluster, sizeof p->cluster, "%u", 1u << bits);
        p->lines[0] = (fz7_prop){.name = "Extension", .value = kind_ext[kind]};
        p->lines[1] = (fz7_prop){.name = "Cluster Size", .value = p->cluster};
        a->info.block_lines = p->lines;
        a->info.n_block_lines = 2;
        a->info.format = FZ7_FORMAT_OTHER;
        a->info.type_name = "Compound";
        a->info.zero_mtime_1601 = true;
        a->info.method = "";
        a->info.tail_size = a->file_size > a->info.phy_size ? a->file_size - a->info.phy_size : 0;
        if (a->info.phy_size > a->file_size)   /* streams' sectors past the end */
            a->info.open_error = "Unexpected end of archive";
        return FZ7_OK;
    }
    bool cut = a->info.phy_size > a->file_size, tail = a->info.phy_size < a->file_size;
    fz7_archive_free_entries(a);
    cfb_close(a);
    a->ops = NULL;
    a->main_subfile = 0;
    free(a->main_blocks);
    a->main_blocks = NULL;
    a->info.phy_size = a->info.tail_size = 0;
    if (st == FZ7_E_FORMAT) {   /* the signature was right: no other reader's */
        /* 7-Zip also calls it cut short when the FAT, read by then, reaches
         * past the file, and warns of a tail when it ends before */
        snprintf(err, errlen, "%s", cut    ? "Unexpected end of archive"
                                    : tail ? "WARNINGS:\nThere are data after the end of archive"
                                           : "Cannot open the file as archive");
        return FZ7_E_DATA;
    }
    return st;
}
