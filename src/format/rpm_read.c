/* rpm_read.c - RPM packages, read as 7-Zip reads them: a 96-byte lead,
 * a signature header (padded to 8 bytes), the main header, then the
 * payload, a compressed cpio archive. The package is listed as one entry,
 * the payload ("name-version-release.arch.cpio.gz"), which archive.c
 * opens in its place (main_subfile), as it does a .deb's data.tar.xz.
 *
 * libarchive's rpm filter is not used: it skips the headers and hands on
 * the cpio inside, while 7-Zip lists the compressed payload itself and
 * takes its name, CPU, Host OS, build time and sizes from the headers.
 * Only the few tags needed are read (the RPM file format in the rpm
 * project's docs: lead, header structure, tags). */
#include "format/archive_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RPM_LEAD 96
#define RPM_HEADER_INTRO 16   /* magic, 4 reserved bytes, index count, store size */
#define RPM_INDEX_ENTRY 16    /* tag, type, offset, count */
#define RPM_COPY_BYTES (1u << 16)
/* Bounds of one header, rpm's own (it refuses larger ones), so a forged
 * count cannot make fz7 allocate much. */
#define RPM_MAX_TAGS 0x10000u
#define RPM_MAX_STORE (256u << 20)

/* lead fields (rpmlead) */
#define RPM_LEAD_SOURCE 1          /* type: a source package */
#define RPM_SIGTYPE_NONE 0         /* no signature header (old packages) */
#define RPM_SIGTYPE_HEADERSIG 5    /* a signature in header form */

/* tag types and the tags read */
#define RPM_INT32 4
#define RPM_STRING 6
#define RPM_SIGTAG_SIZE 1000       /* main header + payload bytes */
#define RPM_TAG_NAME 1000
#define RPM_TAG_VERSION 1001
#define RPM_TAG_RELEASE 1002
#define RPM_TAG_BUILDTIME 1006
#define RPM_TAG_OS 1021
#define RPM_TAG_ARCH 1022
#define RPM_TAG_PAYLOADFORMAT 1124
#define RPM_TAG_PAYLOADCOMPRESSOR 1125

typedef struct rpm_header {
    uint8_t *index;        /* count entries, then the store */
    uint32_t count, store_len;
    uint64_t end;          /* where the header ends in the file */
} rpm_header;

typedef struct rpm_priv {
    uint64_t payload;      /* where the payload starts */
    int64_t build_time;
    bool has_build_time;
    char cpu[32], os[32];  /* the CPU and Host OS lines' values */
} rpm_priv;

/* Reads the header structure at pos into h (malloc'd index and store).
 * FZ7_E_FORMAT when it is none or reaches past the file. */
static fz7_status read_header(const fz7_archive *a, uint64_t pos, rpm_header *h)
{
    uint8_t intro[RPM_HEADER_INTRO];
    memset(h, 0, sizeof *h);
    if (pos > a->file_size || a->file_size - pos < sizeof intro ||
        fz7_volumes_pread(a->vol, intro, sizeof intro, pos) != FZ7_OK ||
        memcmp(intro, "\x8e\xad\xe8\x01", 4) != 0)
        return FZ7_E_FORMAT;
    h->count = fz7_get32be(intro + 8);
    h->store_len = fz7_get32be(intro + 12);
    if (h->count > RPM_MAX_TAGS || h->store_len > RPM_MAX_STORE)
        return FZ7_E_FORMAT;
    uint64_t len = (uint64_t)h->count * RPM_INDEX_ENTRY + h->store_len;
    if (len > a->file_size - pos - sizeof intro)
        return FZ7_E_FORMAT;
    if (len > a->opts.mem_limit)
        return FZ7_E_MEMLIMIT;
    if (!(h->index = malloc(len ? (size_t)len : 1)))
        return FZ7_E_MEM;
    h->end = pos + sizeof intro + len;
    fz7_status st = fz7_volumes_pread(a->vol, h->index, (size_t)len, pos + sizeof intro);
    if (st != FZ7_OK) {
        free(h->index);
        h->index = NULL;
    }
    return st;
}

/* The data of the first index entry of tag with type, at least need
 * bytes of it in the store; NULL when there is none (*avail: the bytes
 * from there to the store's end). */
static const uint8_t *find_tag(const rpm_header *h, uint32_t tag, uint32_t type, uint32_t need, uint32_t *avail)
{
    const uint8_t *store = h->index + (size_t)h->count * RPM_INDEX_ENTRY;
    for (uint32_t i = 0; i < h->count; i++) {
        const uint8_t *e = h->index + (size_t)i * RPM_INDEX_ENTRY;
        if (fz7_get32be(e) != tag)
            continue;
        uint32_t off = fz7_get32be(e + 8);
        if (fz7_get32be(e + 4) != type || fz7_get32be(e + 12) == 0 || off > h->store_len ||
            h->store_len - off < need)
            return NULL;
        *avail = h->store_len - off;
        return store + off;
    }
    return NULL;
}

/* A STRING tag's text, or NULL when it is missing, empty or not ended
 * inside the store (7-Zip then takes the lead's value). */
static const char *tag_string(const rpm_header *h, uint32_t tag)
{
    uint32_t avail;
    const uint8_t *s = find_tag(h, tag, RPM_STRING, 1, &avail);
    return s && s[0] && memchr(s, 0, avail) ? (const char *)s : NULL;
}

static bool tag_int32(const rpm_header *h, uint32_t tag, uint32_t *out)
{
    uint32_t avail;
    const uint8_t *p = find_tag(h, tag, RPM_INT32, 4, &avail);
    if (p)
        *out = fz7_get32be(p);
    return p != NULL;
}

/* rpm's numbers of architectures and systems (its rpmrc's arch_canon and
 * os_canon), which the lead stores: 7-Zip's CPU and Host OS when the main
 * header has no ARCH or OS tag. A number past them lists as itself. */
static const char *const lead_arch[] = {
    "noarch", "i386", "alpha", "sparc", "mips", "ppc", "m68k", "sgi", "rs6000", "ia64", "sparc64", "mipsel",
    "arm", "m68kmint", "s390", "s390x", "ppc64", "sh", "xtensa", "aarch64", "mipsr6", "mips64r6", "riscv64",
    "loongarch64"};
static const char *const lead_os[] = {
    NULL, "Linux", "Irix", "solaris", "SunOS", "AmigaOS", "HP-UX", "osf", "FreeBSD", "SCO_SV", "Irix64",
    "NextStep", "bsdi", "machten", "cygwin32-NT", "cygwin32-95", "MP_RAS", "MiNT", "OS/390", "VM/ESA",
    "Linux/390", "Darwin"};

static void lead_name(char *out, size_t cap, const char *tag, const char *const *table, size_t n, unsigned num)
{
    if (tag)
        snprintf(out, cap, "%s", tag);
    else if (num < n && table[num])
        snprintf(out, cap, "%s", table[num]);
    else
        snprintf(out, cap, "%u", num);
}

/* Payload compressors: PAYLOADCOMPRESSOR's word, the suffix 7-Zip gives
 * the payload, and 7-Zip's type of that suffix. */
typedef struct rpm_compressor {
    const char *tag, *suffix, *type;
} rpm_compressor;

static const rpm_compressor compressors[] = {
    {"gzip", "gz", "gzip"}, {"bzip2", "bz2", "bzip2"}, {"xz", "xz", "xz"}, {"lzma", "lzma", "lzma"},
    {"zstd", "zst", "zstd"}};

/* The payload's compressor: by its PAYLOADCOMPRESSOR tag (a word 7-Zip
 * does not know is the suffix, of no type), else by its first bytes (rpm
 * wrote gzip before the tag existed; lzma has no magic, so 7-Zip takes
 * anything else for it). */
static rpm_compressor payload_compressor(const fz7_archive *a, const rpm_header *h, uint64_t payload)
{
    const char *c = tag_string(h, RPM_TAG_PAYLOADCOMPRESSOR);
    if (c) {
        for (size_t i = 0; i < sizeof compressors / sizeof compressors[0]; i++)
            if (!strcmp(c, compressors[i].tag))
                return compressors[i];
        return (rpm_compressor){c, c, NULL};
    }
    static const struct { const char *magic; size_t len; size_t compressor; } magics[] = {
        {"\x1f\x8b", 2, 0}, {"BZh", 3, 1}, {"\xfd" "7zXZ\0", 6, 2}, {"\x28\xb5\x2f\xfd", 4, 4}};
    uint8_t m[6] = {0};
    if (a->file_size - payload >= sizeof m)
        fz7_volumes_pread(a->vol, m, sizeof m, payload);
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (!memcmp(m, magics[i].magic, magics[i].len))
            return compressors[magics[i].compressor];
    return compressors[3];
}

/* The entry's name, as 7-Zip makes it: NAME[-VERSION][-RELEASE] (the
 * lead's name without a NAME tag), ".src" for a source package else
 * ".arch", the payload's format (cpio) and its compressor's suffix. */
static char *payload_name(const rpm_header *h, const uint8_t *lead, const char *arch, const char *suffix)
{
    char lname[67];
    memcpy(lname, lead + 10, 66);
    lname[66] = 0;
    const char *name = tag_string(h, RPM_TAG_NAME), *ver = tag_string(h, RPM_TAG_VERSION),
               *rel = tag_string(h, RPM_TAG_RELEASE), *format = tag_string(h, RPM_TAG_PAYLOADFORMAT);
    if (!name)
        ver = rel = NULL;
    bool source = fz7_get16be(lead + 6) == RPM_LEAD_SOURCE;
    const char *parts[] = {name ? name : lname, ver ? "-" : "", ver ? ver : "", rel ? "-" : "",
                           rel ? rel : "", ".", source ? "src" : arch, ".", format ? format : "cpio",
                           ".", suffix};
    size_t n = 1;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        n += strlen(parts[i]);   /* (each within a store of at most 256 MiB) */
    char *out = malloc(n);
    if (!out)
        return NULL;
    out[0] = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        strcat(out, parts[i]);
    return out;
}

static fz7_status rpm_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err,
                              size_t errlen)
{
    const rpm_priv *p = a->priv;
    if ((select && !select[0]) || a->count == 0)
        return FZ7_OK;
    const fz7_entry *e = &a->entries[0];
    fz7_status st = cb->begin(cb->ctx, 0, e);
    if (st != FZ7_OK)
        return st;
    uint8_t *buf = malloc(RPM_COPY_BYTES);
    if (!buf)
        return FZ7_E_MEM;
    /* a payload cut short gives what the file holds, then Data Error */
    uint64_t have = a->file_size - p->payload < e->size ? a->file_size - p->payload : e->size;
    for (uint64_t done = 0; done < have && st == FZ7_OK; done += RPM_COPY_BYTES) {
        size_t n = have - done < RPM_COPY_BYTES ? (size_t)(have - done) : RPM_COPY_BYTES;
        if ((st = fz7_volumes_pread(a->vol, buf, n, p->payload + done)) != FZ7_OK) {
            snprintf(err, errlen, "Read error");
            free(buf);
            return st;
        }
        st = cb->data(cb->ctx, buf, n);
    }
    free(buf);
    if (st != FZ7_OK)
        return st;   /* the callback's own */
    return have < e->size ? cb->end(cb->ctx, 0, FZ7_E_DATA, "the payload ends with the file")
                          : cb->end(cb->ctx, 0, FZ7_OK, NULL);
}

static size_t rpm_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const rpm_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_time(pr, &n, "Created", p->has_build_time, p->build_time, 0, 0);
    return n;
}

static void rpm_close(fz7_archive *a)
{
    free(a->priv);
    a->priv = NULL;
}

static const fz7_archive_ops rpm_ops = {rpm_extract, rpm_close, rpm_props};

/* Reads the lead and both headers into a->priv, a->info and the one
 * entry. FZ7_E_FORMAT when they are not an rpm's as 7-Zip takes one. */
static fz7_status read_package(fz7_archive *a, const uint8_t *lead)
{
    rpm_priv *p = a->priv;
    uint16_t sig_type = fz7_get16be(lead + 78);
    if (lead[4] < 3 || fz7_get16be(lead + 6) > RPM_LEAD_SOURCE ||
        (sig_type != RPM_SIGTYPE_NONE && sig_type != RPM_SIGTYPE_HEADERSIG))
        return FZ7_E_FORMAT;
    uint64_t main_at = RPM_LEAD;
    uint32_t signed_size = 0;
    bool has_size = false;
    fz7_status st;
    if (sig_type == RPM_SIGTYPE_HEADERSIG) {
        rpm_header sig;
        if ((st = read_header(a, RPM_LEAD, &sig)) != FZ7_OK)
            return st;
        has_size = tag_int32(&sig, RPM_SIGTAG_SIZE, &signed_size);
        main_at = (sig.end + 7) / 8 * 8;
        free(sig.index);
    }
    rpm_header h;
    if ((st = read_header(a, main_at, &h)) != FZ7_OK)
        return st;
    uint64_t payload = h.end, end = a->file_size;
    if (has_size) {   /* SIZE counts the main header and the payload */
        if (signed_size < h.end - main_at) {
            free(h.index);
            return FZ7_E_FORMAT;
        }
        end = main_at + signed_size;
    }
    lead_name(p->cpu, sizeof p->cpu, tag_string(&h, RPM_TAG_ARCH), lead_arch,
              sizeof lead_arch / sizeof lead_arch[0], fz7_get16be(lead + 8));
    lead_name(p->os, sizeof p->os, tag_string(&h, RPM_TAG_OS), lead_os, sizeof lead_os / sizeof lead_os[0],
              fz7_get16be(lead + 76));
    uint32_t t;
    if ((p->has_build_time = tag_int32(&h, RPM_TAG_BUILDTIME, &t)))
        p->build_time = t;
    rpm_compressor c = payload_compressor(a, &h, payload);
    char *name = payload_name(&h, lead, p->cpu, c.suffix);
    free(h.index);
    if (!name)
        return FZ7_E_MEM;
    if (!(a->entries = calloc(1, sizeof *a->entries))) {
        free(name);
        return FZ7_E_MEM;
    }
    a->count = 1;
    p->payload = payload;
    fz7_entry *e = &a->entries[0];
    e->path = name;
    e->size = e->packed_size = end - payload;
    e->packed_known = e->has_size = true;
    e->has_stream = e->size > 0;
    e->folder = -1;
    e->method = "";
    e->mode = S_IFREG | 0644;
    /* 7-Zip's l shows the build time in the entry's date column */
    e->has_mtime = p->has_build_time;
    e->mtime = p->build_time;
    e->mtime_prec = FZ7_MTIME_SECONDS;

    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "Rpm";
    a->info.method = "";
    a->info.headers_size = payload;
    a->info.sizes_unknown = !has_size;   /* 7-Zip then shows no Physical Size */
    /* 7-Zip opens the payload in the package's place, and when it does
     * not open as its suffix says (cut short too), not the package */
    a->main_subfile = e->size > 0;
    a->main_offset = payload;
    a->main_type = c.type;
    if (end <= a->file_size) {
        a->info.phy_size = end;
        a->info.tail_size = a->file_size - end;
    } else {
        a->info.phy_size = a->file_size;
        a->info.open_error = "Unexpected end of archive";
    }
    a->info.lines[0] = (fz7_prop){.name = "CPU", .value = p->cpu, .digits = -1};
    a->info.lines[1] = (fz7_prop){.name = "Host OS", .value = p->os, .digits = -1};
    if (p->has_build_time)
        a->info.times[0] = (fz7_prop){.name = "Created", .sec = p->build_time, .digits = 0};
    return FZ7_OK;
}

fz7_status fz7_rpm_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint8_t lead[RPM_LEAD];
    if (a->file_size < RPM_LEAD || fz7_volumes_pread(a->vol, lead, sizeof lead, 0) != FZ7_OK ||
        memcmp(lead, "\xed\xab\xee\xdb", 4) != 0)
        return FZ7_E_FORMAT;
    if (!(a->priv = calloc(1, sizeof(rpm_priv))))
        return FZ7_E_MEM;
    a->ops = &rpm_ops;
    fz7_status st = read_package(a, lead);
    if (st != FZ7_OK) {
        fz7_archive_free_entries(a);
        rpm_close(a);
        a->ops = NULL;
        memset(&a->info, 0, sizeof a->info);
    }
    return st;
}
