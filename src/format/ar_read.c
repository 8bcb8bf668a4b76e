/* ar_read.c - Unix ar archives (static libraries, .deb packages), read as
 * 7-Zip reads them: "!<arch>\n", then per member a 60-byte header of text
 * fields (name 16, mtime 12, uid 6, gid 6, mode 8 octal, size 10, "`\n")
 * and its data, padded to an even offset. GNU ar keeps long names in a
 * "//" member and symbol tables in "/"; BSD ar stores a long name ("#1/N")
 * in front of the data and its symbols in "__.SYMDEF". A symbol table that
 * reads is listed as 7-Zip lists it: a text file, "1.txt", of one line
 * "member    symbol" per symbol. */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define AR_MAGIC "!<arch>\n"
#define AR_MAGIC_LEN 8
#define AR_HDR 60
#define AR_COPY_BYTES (1u << 16)
/* The longest BSD name fz7 takes (PATH_MAX's usual value). */
#define AR_NAME_MAX 4096
/* 7-Zip's name for a symbol table it turned into text. */
#define AR_SYMBOLS_NAME "1.txt"

typedef struct ar_member {
    uint64_t header;       /* where its header starts in the file */
    uint64_t data;         /* where its data starts (past a BSD long name) */
    uint32_t mode, uid, gid;
    bool symbols;          /* the symbol table listed as text (priv->text) */
} ar_member;

typedef struct ar_priv {
    ar_member *m;          /* one per entry */
    size_t m_cap;
    char *text;            /* the symbol table as 7-Zip lists it, or NULL */
    size_t text_len;
    char sub_type[8];      /* "ar", "a", "deb", "ar:BSD", "a:BSD" */
} ar_priv;

/* A header's number field (len bytes): digits in base, then spaces only;
 * all spaces is 0, and "-1" (which some writers put where they have no
 * value) is 0 too, as 7-Zip takes it. False for anything else or a value
 * past 32 bits (64 with wide: the size). */
static bool ar_number(const uint8_t *f, size_t len, unsigned base, bool wide, uint64_t *out)
{
    while (len && f[len - 1] == ' ')
        len--;
    *out = 0;
    if (len == 2 && f[0] == '-' && f[1] == '1')
        return true;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)f[i] - '0';
        if (d >= base)
            return false;
        *out = *out * base + d;
    }
    return wide || *out <= UINT32_MAX;   /* (10 digits, 8 octal ones: no overflow) */
}

/* Adds entry path (malloc'd, taken) to a; FZ7_E_MEM, FZ7_E_MEMLIMIT. */
static fz7_status ar_add(fz7_archive *a, size_t *cap, char *path, const ar_member *m, uint64_t size,
                         uint32_t mtime)
{
    if (!path)
        return FZ7_E_MEM;
    ar_priv *p = a->priv;
    fz7_status st = fz7_grow((void **)&a->entries, a->count, cap, sizeof *a->entries, 16, a->opts.mem_limit);
    if (st == FZ7_OK)
        st = fz7_grow((void **)&p->m, a->count, &p->m_cap, sizeof *p->m, 16, a->opts.mem_limit);
    if (st != FZ7_OK) {
        free(path);
        return st;
    }
    p->m[a->count] = *m;
    fz7_entry *e = &a->entries[a->count++];
    memset(e, 0, sizeof *e);
    e->path = path;
    e->size = size;
    e->packed_size = size;
    e->packed_known = e->has_size = true;
    e->has_stream = size > 0;
    e->folder = -1;
    e->method = "";
    /* 7-Zip lists an mtime of 0 as none, and extracts by the mode's
     * permissions and file type (a link's data is its target) without
     * making folders, so a member is never is_dir. */
    e->has_mtime = mtime != 0;
    e->mtime = mtime;
    e->mtime_prec = FZ7_MTIME_SECONDS;
    e->is_symlink = S_ISLNK(m->mode);
    e->mode = (S_ISLNK(m->mode) ? S_IFLNK : S_IFREG) | (m->mode & 07777);
    e->has_attrib = !m->symbols;
    e->attrib = 0x8000u | (m->mode & 0xFFFFu) << 16;
    return FZ7_OK;
}

/* The name a GNU "/N" refers to in the long-name table names (len bytes):
 * up to its "/\n" (or "\n"); NULL when N points past the table. */
static char *gnu_long_name(const char *names, size_t len, uint64_t at)
{
    if (!names || at >= len)
        return NULL;
    const char *s = names + at, *nl = memchr(s, '\n', len - at);
    size_t n = nl ? (size_t)(nl - s) : len - at;
    if (n && s[n - 1] == '/')
        n--;
    return strndup(s, n);
}

/* The index of the member whose header is at offset, or -1. */
static long member_at(const ar_priv *p, size_t count, uint64_t offset)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {   /* headers are in file order */
        size_t mid = lo + (hi - lo) / 2;
        if (p->m[mid].header < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && p->m[lo].header == offset ? (long)lo : -1;
}

/* Appends "member    symbol\n" to *out (a growing buffer of at most
 * limit bytes: each line repeats a member's name, so the text can be far
 * longer than the table). */
static bool text_line(char **out, size_t *len, size_t *cap, const char *member, const char *sym,
                      size_t sym_len, uint64_t limit)
{
    size_t ml = strlen(member), need = *len + ml + 4 + sym_len + 1;
    if (need > limit)
        return false;
    if (need > *cap) {
        size_t c = need > 2 * *cap ? need : 2 * *cap;
        char *n = realloc(*out, c);
        if (!n)
            return false;
        *out = n;
        *cap = c;
    }
    memcpy(*out + *len, member, ml);
    memcpy(*out + *len + ml, "    ", 4);
    memcpy(*out + *len + ml + 4, sym, sym_len);
    (*out)[need - 1] = '\n';
    *len = need;
    return true;
}

/* The most text a symbol table of n bytes may become: a real one's lines
 * are a few times its entries (short member names), a crafted one's could
 * repeat a 4 KiB name for every 5-byte entry. */
static uint64_t text_limit(const fz7_archive *a, uint64_t n)
{
    uint64_t cap = a->opts.mem_limit / 4, t = n < (UINT64_MAX - 65536) / 16 ? 16 * n + 65536 : UINT64_MAX;
    return t < cap ? t : cap;
}

/* The symbol table t (n bytes) of the first member as 7-Zip's text into
 * p->text; bsd: a __.SYMDEF (little-endian ranlib pairs), else GNU's "/"
 * (a big-endian count, offsets, then the names). -1: the table does not
 * read (an offset at no member header, names past its end), 0: it reads
 * but bytes are left over after the names (7-Zip calls both an error,
 * the second after it has taken the archive for a library), 1: read. */
static int symbols_text(fz7_archive *a, const uint8_t *t, uint64_t n, bool bsd)
{
    ar_priv *p = a->priv;
    uint64_t count, strings, str_len, pos;
    if (bsd) {
        if (n < 8 || (count = fz7_get32le(t)) % 8 || count > n - 8)
            return -1;
        count /= 8;
        str_len = fz7_get32le(t + 4 + 8 * count);
        strings = 8 + 8 * count;
        if (str_len > n - strings)
            return -1;
    } else {
        if (n < 4 || (count = fz7_get32be(t)) > (n - 4) / 4)
            return -1;
        strings = 4 + 4 * count;
        str_len = n - strings;
    }
    char *out = NULL;
    size_t len = 0, cap = 0;
    pos = strings;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t off = bsd ? fz7_get32le(t + 4 + 8 * i + 4) : fz7_get32be(t + 4 + 4 * i);
        uint64_t at = bsd ? strings + fz7_get32le(t + 4 + 8 * i) : pos;
        long k = member_at(p, a->count, off);
        const uint8_t *end = at < strings + str_len ? memchr(t + at, 0, strings + str_len - at) : NULL;
        if (k < 0 || !end) {
            free(out);
            return -1;
        }
        if (!text_line(&out, &len, &cap, a->entries[k].path, (const char *)t + at, (size_t)(end - (t + at)),
                       text_limit(a, n))) {
            free(out);
            return -1;
        }
        pos = (uint64_t)(end - t) + 1;
    }
    /* GNU ar pads the table to an even size with one zero byte */
    if (!bsd && (pos + 1) / 2 * 2 != n) {
        free(out);
        return 0;
    }
    p->text = out ? out : strdup("");
    p->text_len = len;
    return p->text ? 1 : -1;
}

/* Numbers runs of neighbours with the same name ("1.a.o", "2.a.o"), as
 * 7-Zip does so that they extract side by side; names 7-Zip keeps as they
 * are (GNU's special "/..." ones) are left alone. */
static fz7_status number_duplicates(fz7_archive *a, const bool *special)
{
    for (size_t i = 0; i + 1 < a->count;) {
        size_t j = i + 1;
        while (j < a->count && !special[j] && !special[i] && a->entries[i].path[0] != '/' &&
               strcmp(a->entries[j].path, a->entries[i].path) == 0)
            j++;
        for (size_t k = i; j - i > 1 && k < j; k++) {
            size_t n = strlen(a->entries[k].path) + 24;
            char *r = malloc(n);
            if (!r)
                return FZ7_E_MEM;
            snprintf(r, n, "%zu.%s", k - i + 1, a->entries[k].path);
            free(a->entries[k].path);
            a->entries[k].path = r;
        }
        i = j;
    }
    return FZ7_OK;
}

static fz7_status ar_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err,
                             size_t errlen)
{
    ar_priv *p = a->priv;
    uint8_t *buf = malloc(AR_COPY_BYTES);
    if (!buf)
        return FZ7_E_MEM;
    fz7_status st = FZ7_OK;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status r = FZ7_OK;
        if (p->m[i].symbols) {
            if (p->text_len)
                r = cb->data(cb->ctx, (const uint8_t *)p->text, p->text_len);
        } else {
            /* a member cut short (the archive's open error) gives what
             * the file holds, then 7-Zip's x error: Data Error */
            uint64_t here = p->m[i].data < a->file_size ? a->file_size - p->m[i].data : 0;
            uint64_t have = e->size < here ? e->size : here;
            for (uint64_t done = 0; done < have && r == FZ7_OK;) {
                size_t n = have - done < AR_COPY_BYTES ? (size_t)(have - done) : AR_COPY_BYTES;
                r = fz7_volumes_pread(a->vol, buf, n, p->m[i].data + done);
                if (r != FZ7_OK) {
                    snprintf(err, errlen, "Read error");
                    free(buf);
                    return r;
                }
                r = cb->data(cb->ctx, buf, n);
                done += n;
            }
            if (r == FZ7_OK && have < e->size) {
                st = cb->end(cb->ctx, i, FZ7_E_DATA, "the member's data ends with the file");
                continue;
            }
        }
        if (r != FZ7_OK) {
            st = r;   /* the callback's own */
            break;
        }
        st = cb->end(cb->ctx, i, FZ7_OK, NULL);
    }
    free(buf);
    return st;
}

/* 7-Zip's Mode line: the permissions with the type's letter, a hex digit
 * for a type without one ("0rw-r--r--": no type stored), and any bits
 * past 16 in hex after it. */
static const char *mode_text(uint32_t mode, char *buf, size_t cap, size_t *used)
{
    char m[11];
    fz7_mode_string(mode, m);
    unsigned type = (mode >> 12) & 0xF;
    if (type != 1 && type != 2 && type != 4 && type != 6 && type != 8 && type != 10 && type != 12)
        m[0] = "0123456789ABCDEF"[type];
    if (mode >> 16)
        return fz7_prop_put(buf, cap, used, "%s %08X", m, (unsigned)(mode & 0xFFFF0000u));
    return fz7_prop_put(buf, cap, used, "%s", m);
}

static size_t ar_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const ar_priv *p = a->priv;
    const ar_member *m = &p->m[i];
    const fz7_entry *e = &a->entries[i];
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    fz7_prop_text(pr, &n, "Mode", m->symbols ? "" : mode_text(m->mode, buf, cap, &used));
    fz7_prop_text(pr, &n, "User ID", m->uid ? fz7_prop_put(buf, cap, &used, "%u", (unsigned)m->uid) : "");
    fz7_prop_text(pr, &n, "Group ID", m->gid ? fz7_prop_put(buf, cap, &used, "%u", (unsigned)m->gid) : "");
    return n;
}

static void ar_close(fz7_archive *a)
{
    ar_priv *p = a->priv;
    if (p) {
        free(p->m);
        free(p->text);
    }
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops ar_ops = {ar_extract, ar_close, ar_props};

/* Reads the member headers from the magic on. A header with a number
 * that does not read makes the file no ar archive (FZ7_E_FORMAT, as
 * 7-Zip); one cut short or without its "`\n" ends the archive there (the
 * rest is a tail); data cut short is the open error "Unexpected end of
 * archive". special[i] (grown beside the entries): GNU's "/..." names. */
static fz7_status read_members(fz7_archive *a, bool **special, char **long_names, size_t *long_len,
                               bool *symtab, bool *bsd)
{
    size_t cap = 0, scap = 0;
    uint64_t pos = AR_MAGIC_LEN;
    *symtab = false;
    while (a->file_size - pos >= AR_HDR) {
        uint8_t h[AR_HDR];
        fz7_status st = fz7_volumes_pread(a->vol, h, sizeof h, pos);
        if (st != FZ7_OK)
            return st;
        if (h[58] != '`' || h[59] != '\n')
            break;
        uint64_t mtime, uid, gid, mode, size;
        if (!ar_number(h + 16, 12, 10, false, &mtime) || !ar_number(h + 28, 6, 10, false, &uid) ||
            !ar_number(h + 34, 6, 10, false, &gid) || !ar_number(h + 40, 8, 8, false, &mode) ||
            !ar_number(h + 48, 10, 10, true, &size))
            return FZ7_E_FORMAT;
        size_t nl = 16;
        while (nl && h[nl - 1] == ' ')
            nl--;
        ar_member m = {.header = pos, .data = pos + AR_HDR, .mode = (uint32_t)mode, .uid = (uint32_t)uid,
                       .gid = (uint32_t)gid};
        uint64_t next = pos + AR_HDR + size + (size & 1);
        bool cut = next > a->file_size;
        char *path = NULL;
        bool is_special = nl >= 1 && h[0] == '/';
        if (is_special && nl == 2 && h[1] == '/' && !*long_names && !cut) {
            /* GNU's long-name table: read whole (it is not listed) */
            if (size > a->opts.mem_limit)
                return FZ7_E_MEMLIMIT;
            if (!(*long_names = malloc(size ? (size_t)size : 1)))
                return FZ7_E_MEM;
            *long_len = (size_t)size;
            if ((st = fz7_volumes_pread(a->vol, *long_names, (size_t)size, m.data)) != FZ7_OK)
                return st;
            pos = next;
            continue;
        }
        if (nl > 3 && !memcmp(h, "#1/", 3)) {   /* BSD: the name leads the data */
            uint64_t len;
            if (!ar_number(h + 3, nl - 3, 10, false, &len) || len > size || len > AR_NAME_MAX)
                return FZ7_E_FORMAT;
            if (m.data + len <= a->file_size) {
                char name[AR_NAME_MAX + 1];
                if ((st = fz7_volumes_pread(a->vol, name, (size_t)len, m.data)) != FZ7_OK)
                    return st;
                name[len] = 0;
                path = strdup(name);
                m.data += len;
                size -= len;
                *bsd = true;
            }
        }
        if (!path && is_special && nl > 1 && h[1] >= '0' && h[1] <= '9') {
            uint64_t at;
            if (ar_number(h + 1, nl - 1, 10, true, &at))
                path = gnu_long_name(*long_names, *long_len, at);
        }
        if (!path) {
            if (nl && h[nl - 1] == '/')
                nl--;   /* GNU ends names with '/' */
            path = strndup((const char *)h, nl);
        }
        bool table = a->count == 0 && ((nl == 0 && is_special) || !strcmp(path ? path : "", "__.SYMDEF") ||
                                       !strcmp(path ? path : "", "__.SYMDEF SORTED"));
        *symtab |= table;
        *bsd |= table && path && path[0] == '_';
        if ((st = ar_add(a, &cap, path, &m, size, (uint32_t)mtime)) != FZ7_OK)
            return st;
        if ((st = fz7_grow((void **)special, a->count - 1, &scap, sizeof **special, 16, a->opts.mem_limit)) != FZ7_OK)
            return st;
        (*special)[a->count - 1] = is_special && nl == 0;
        if (cut) {
            a->info.open_error = "Unexpected end of archive";
            a->info.phy_size = next;
            return FZ7_OK;
        }
        pos = next;
    }
    if (a->count == 0 && pos < a->file_size)
        return FZ7_E_FORMAT;   /* no member, then bytes: 7-Zip takes it for no archive */
    a->info.phy_size = pos;
    a->info.tail_size = a->file_size - pos;
    return FZ7_OK;
}

/* Turns the first member, a symbol table, into 7-Zip's text: "1.txt"
 * when it reads, else left as it is with the archive's warning. */
static fz7_status take_symbols(fz7_archive *a, bool bsd, bool *library)
{
    ar_priv *p = a->priv;
    fz7_entry *e = &a->entries[0];
    if (e->size > a->opts.mem_limit / 4)
        return FZ7_E_MEMLIMIT;   /* (the text is some times the table) */
    uint8_t *t = malloc(e->size ? (size_t)e->size : 1);
    if (!t)
        return FZ7_E_MEM;
    fz7_status st = fz7_volumes_pread(a->vol, t, (size_t)e->size, p->m[0].data);
    int r = st == FZ7_OK ? symbols_text(a, t, e->size, bsd) : -1;
    free(t);
    if (st != FZ7_OK && st != FZ7_E_TRUNCATED)
        return st;
    *library = r >= 0;
    if (r < 1) {
        a->info.warning = "Library symbols information error";
        return FZ7_OK;
    }
    char *name = strdup(AR_SYMBOLS_NAME);
    if (!name)
        return FZ7_E_MEM;
    free(e->path);
    e->path = name;
    e->size = e->packed_size = p->text_len;
    e->has_stream = p->text_len > 0;
    e->has_mtime = e->has_attrib = false;
    e->mode = S_IFREG | 0644;
    p->m[0].symbols = true;
    return FZ7_OK;
}

/* A Debian package: its first member is "debian-binary" holding "2.0\n"
 * (deb(5)); 7-Zip takes nothing else for one. */
static bool is_deb(const fz7_archive *a)
{
    const ar_priv *p = a->priv;
    uint8_t v[4];
    return a->count > 0 && !strcmp(a->entries[0].path, "debian-binary") && a->entries[0].size == 4 &&
           !p->m[0].symbols && fz7_volumes_pread(a->vol, v, 4, p->m[0].data) == FZ7_OK && !memcmp(v, "2.0\n", 4);
}

fz7_status fz7_ar_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t magic[AR_MAGIC_LEN];
    if (a->file_size < AR_MAGIC_LEN || fz7_volumes_pread(a->vol, magic, sizeof magic, 0) != FZ7_OK ||
        memcmp(magic, AR_MAGIC, AR_MAGIC_LEN) != 0)
        return FZ7_E_FORMAT;
    ar_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    a->priv = p;
    a->ops = &ar_ops;
    bool *special = NULL, bsd = false, library = false;
    char *long_names = NULL;
    size_t long_len = 0;
    bool symtab;
    fz7_status st = read_members(a, &special, &long_names, &long_len, &symtab, &bsd);
    if (st == FZ7_OK && symtab && !a->info.open_error)
        st = take_symbols(a, a->entries[0].path[0] == '_', &library);
    if (st == FZ7_OK)
        st = number_duplicates(a, special);
    free(special);
    free(long_names);
    if (st != FZ7_OK) {
        if (st == FZ7_E_FORMAT)   /* a bad number in a header: no other reader's either */
            snprintf(err, errlen, "Is not archive");
        fz7_archive_free_entries(a);
        ar_close(a);
        a->ops = NULL;
        a->info.open_error = NULL;
        a->info.warning = NULL;
        a->info.phy_size = a->info.tail_size = 0;
        return st;
    }
    bool deb = is_deb(a);
    if (deb) {   /* the package's format version: 7-Zip lists it as no member */
        free(a->entries[0].path);
        a->count--;
        memmove(a->entries, a->entries + 1, a->count * sizeof *a->entries);
        memmove(p->m, p->m + 1, a->count * sizeof *p->m);
    }
    snprintf(p->sub_type, sizeof p->sub_type, "%s%s", deb ? "deb" : library ? "a" : "ar", bsd ? ":BSD" : "");
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "Ar";
    a->info.sub_type = p->sub_type;
    a->info.method = "";
    /* a package's files are in its data.tar.xz (.gz, .zst...), which
     * 7-Zip opens in turn; a plain data.tar it leaves as a member */
    for (size_t i = 0; deb && i < a->count && !a->main_subfile; i++)
        if (!strncmp(a->entries[i].path, "data.tar.", 9)) {
            a->main_subfile = i + 1;
            a->main_offset = p->m[i].data;
        }
    return FZ7_OK;
}
