/* archive_type.c - the type table behind -t and archive-name extensions.
 * The formats and their extensions are the ones 7-Zip 26 lists in `7zz i`,
 * in its order (the first format with an extension is the one created). */
#include "cli/archive_type.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct type_row {
    const char *name;   /* 7-Zip's spelling */
    const char *exts;   /* space-separated, without dots */
    fz7_type type;
} type_row;

static const type_row k_types[] = {
    {"7z", "7z", FZ7_TYPE_7Z},
    {"APFS", "apfs img", FZ7_TYPE_OTHER},
    {"APM", "apm", FZ7_TYPE_OTHER},
    {"Ar", "ar a deb udeb lib", FZ7_TYPE_OTHER},
    {"Arj", "arj", FZ7_TYPE_OTHER},
    {"Base64", "b64", FZ7_TYPE_OTHER},
    {"COFF", "obj", FZ7_TYPE_OTHER},
    {"Cab", "cab", FZ7_TYPE_OTHER},
    {"Chm", "chm chi chq chw", FZ7_TYPE_OTHER},
    {"Compound", "msi msp msm doc xls ppt aaf", FZ7_TYPE_OTHER},
    {"Cpio", "cpio", FZ7_TYPE_OTHER},
    {"CramFS", "cramfs", FZ7_TYPE_OTHER},
    {"Dmg", "dmg", FZ7_TYPE_OTHER},
    {"ELF", "elf", FZ7_TYPE_OTHER},
    {"Ext", "ext ext2 ext3 ext4 img", FZ7_TYPE_OTHER},
    {"FAT", "fat img", FZ7_TYPE_OTHER},
    {"FLV", "flv", FZ7_TYPE_OTHER},
    {"GPT", "gpt mbr", FZ7_TYPE_OTHER},
    {"HFS", "hfs hfsx", FZ7_TYPE_OTHER},
    {"Hxs", "hxs hxi hxr hxq hxw lit", FZ7_TYPE_OTHER},
    {"IHex", "ihex", FZ7_TYPE_OTHER},
    {"Iso", "iso img", FZ7_TYPE_OTHER},
    {"LP", "lpimg img", FZ7_TYPE_OTHER},
    {"Lzh", "lzh lha", FZ7_TYPE_OTHER},
    {"MBR", "mbr", FZ7_TYPE_OTHER},
    {"MachO", "macho", FZ7_TYPE_OTHER},
    {"MsLZ", "mslz", FZ7_TYPE_OTHER},
    {"Mub", "mub", FZ7_TYPE_OTHER},
    {"NTFS", "ntfs img", FZ7_TYPE_OTHER},
    {"Nsis", "nsis", FZ7_TYPE_OTHER},
    {"PE", "exe dll sys", FZ7_TYPE_OTHER},
    {"Ppmd", "pmd", FZ7_TYPE_OTHER},
    {"QCOW", "qcow qcow2 qcow2c", FZ7_TYPE_OTHER},
    {"Rpm", "rpm", FZ7_TYPE_OTHER},
    {"SWF", "swf", FZ7_TYPE_OTHER},
    {"SWFc", "swf", FZ7_TYPE_OTHER},
    {"Sparse", "simg img", FZ7_TYPE_OTHER},
    {"Split", "001", FZ7_TYPE_OTHER},
    {"SquashFS", "squashfs", FZ7_TYPE_OTHER},
    {"TE", "te", FZ7_TYPE_OTHER},
    {"UEFIc", "scap", FZ7_TYPE_OTHER},
    {"UEFIf", "uefif", FZ7_TYPE_OTHER},
    {"Udf", "udf iso img", FZ7_TYPE_OTHER},
    {"VDI", "vdi", FZ7_TYPE_OTHER},
    {"VHD", "vhd", FZ7_TYPE_OTHER},
    {"VHDX", "vhdx avhdx", FZ7_TYPE_OTHER},
    {"VMDK", "vmdk", FZ7_TYPE_OTHER},
    {"Xar", "xar pkg xip", FZ7_TYPE_OTHER},
    {"Z", "z taz", FZ7_TYPE_OTHER},
    {"bzip2", "bz2 bzip2 tbz2 tbz", FZ7_TYPE_BZIP2},
    {"gzip", "gz gzip tgz tpz apk", FZ7_TYPE_GZIP},
    {"lzma", "lzma", FZ7_TYPE_LZMA},
    {"lzma86", "lzma86", FZ7_TYPE_OTHER},
    {"tar", "tar ova", FZ7_TYPE_TAR},
    {"wim", "wim swm esd ppkg", FZ7_TYPE_OTHER},
    {"xz", "xz txz", FZ7_TYPE_XZ},
    {"zip", "zip z01 zipx jar xpi odt ods docx xlsx epub ipa apk appx", FZ7_TYPE_ZIP},
    {"zstd", "zst tzst", FZ7_TYPE_OTHER},
    {"Hash", "sha256 sha512 sha384 sha224 sha512-224 sha512-256 sha3-224 sha3-256 sha3-384 "
             "sha3-512 sha1 sha2 sha3 sha md5 blake2s blake2b blake2sp xxh64 crc32 crc64 cksum asc",
     FZ7_TYPE_OTHER},
};

#define N_TYPES (sizeof k_types / sizeof k_types[0])

fz7_type fz7_type_parse(const char *name, const char **canon)
{
    *canon = NULL;
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcasecmp(name, k_types[i].name) == 0) {
            *canon = k_types[i].name;
            return k_types[i].type;
        }
    return FZ7_TYPE_UNKNOWN;
}

/* True when the space-separated list holds ext (case-insensitive). */
static bool list_has(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ' ');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && strncasecmp(p, ext, n) == 0)
            return true;
        p += k;
        while (*p == ' ')
            p++;
    }
    return false;
}

fz7_type fz7_type_of_archive_name(const char *path, const char **canon)
{
    *canon = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1])
        return FZ7_TYPE_AUTO;
    for (size_t i = 0; i < N_TYPES; i++)
        if (list_has(k_types[i].exts, dot + 1)) {
            *canon = k_types[i].name;
            return k_types[i].type;
        }
    return FZ7_TYPE_AUTO;
}

fz7_type fz7_type_for_writing(const char *path, const char **canon)
{
    fz7_type t = fz7_type_of_archive_name(path, canon);
    const char *dot = strrchr(path, '.');
    if (t == FZ7_TYPE_OTHER && dot && !strchr(dot, '/') && strcasecmp(dot, ".exe") == 0) {
        *canon = NULL;   /* a self-extractor's name: 7-Zip writes 7z under it */
        return FZ7_TYPE_7Z;
    }
    return t;
}

fz7_type fz7_type_to_write(const struct fz7_options *o, const char **canon)
{
    *canon = NULL;
    if (o->type != FZ7_TYPE_AUTO)
        return o->type;
    fz7_type t = fz7_type_for_writing(o->archive, canon);
    struct stat sb;
    if (t != FZ7_TYPE_AUTO || o->from_stdin || stat(o->archive, &sb) != 0 || !S_ISREG(sb.st_mode))
        return t;
    fz7_archive *a = NULL;
    char err[256];
    fz7_open_opts oo = {0};
    if (fz7_archive_open(o->archive, &oo, &a, err, sizeof err) != FZ7_OK)
        return t;
    const fz7_archive_info *in = fz7_archive_get_info(a);
    if (fz7_type_matches(FZ7_TYPE_ZIP, NULL, in))
        t = FZ7_TYPE_ZIP;
    else if (fz7_type_matches(FZ7_TYPE_TAR, NULL, in))
        t = FZ7_TYPE_TAR;
    fz7_archive_close(a);
    return t;
}

const char *fz7_type_extension(fz7_type t)
{
    switch (t) {
    case FZ7_TYPE_XZ: return ".xz";
    case FZ7_TYPE_TAR: return ".tar";
    case FZ7_TYPE_ZIP: return ".zip";
    case FZ7_TYPE_GZIP: return ".gz";
    case FZ7_TYPE_BZIP2: return ".bz2";
    default: return ".7z";
    }
}

bool fz7_type_matches(fz7_type t, const char *canon, const fz7_archive_info *info)
{
    const char *tn = info->type_name ? info->type_name : "";
    const char *m = info->method ? info->method : "";
    switch (t) {
    case FZ7_TYPE_AUTO: return true;
    case FZ7_TYPE_7Z: return info->format == FZ7_FORMAT_7Z;
    case FZ7_TYPE_XZ: return info->format == FZ7_FORMAT_XZ;
    case FZ7_TYPE_LZMA: return info->format == FZ7_FORMAT_LZMA;
    case FZ7_TYPE_TAR:
        return info->format == FZ7_FORMAT_OTHER && strcmp(tn, "tar") == 0 && !m[0];
    case FZ7_TYPE_ZIP: return info->format == FZ7_FORMAT_OTHER && strcmp(tn, "zip") == 0;
    case FZ7_TYPE_GZIP: return info->format == FZ7_FORMAT_OTHER && strcmp(tn, "gzip") == 0;
    case FZ7_TYPE_BZIP2: return info->format == FZ7_FORMAT_OTHER && strcmp(tn, "bzip2") == 0;
    case FZ7_TYPE_OTHER: /* Cpio, Iso: what libarchive reads besides */
        return info->format == FZ7_FORMAT_OTHER && canon && strcasecmp(tn, canon) == 0;
    default: return false;
    }
}

const char *fz7_type_display(fz7_type t, const char *canon)
{
    if (canon)
        return canon;
    switch (t) {
    case FZ7_TYPE_XZ: return "xz";
    case FZ7_TYPE_LZMA: return "lzma";
    case FZ7_TYPE_TAR: return "tar";
    case FZ7_TYPE_ZIP: return "zip";
    case FZ7_TYPE_GZIP: return "gzip";
    case FZ7_TYPE_BZIP2: return "bzip2";
    default: return "7z";
    }
}

bool fz7_apply_name_mode(struct fz7_options *o, char *buf, size_t cap)
{
    const char *base = strrchr(o->archive, '/');
    base = base ? base + 1 : o->archive;
    size_t len = strlen(o->archive);
    int n;
    if (o->name_mode == 'a') {
        fz7_type t = o->type != FZ7_TYPE_AUTO ? o->type : FZ7_TYPE_7Z;
        n = snprintf(buf, cap, "%s%s", o->archive, fz7_type_extension(t));
        o->name_mode = 'e';
    } else if (o->name_mode != 'e' && len > 1 && base[0] && o->archive[len - 1] == '.' &&
               strcmp(base, ".") && strcmp(base, "..")) {
        /* "name." asks for no extension at all, as 7-Zip reads it. */
        n = snprintf(buf, cap, "%.*s", (int)(len - 1), o->archive);
        o->name_mode = 'e';
    } else {
        return true;
    }
    if (n < 0 || (size_t)n >= cap)
        return false;
    o->archive = buf;
    return true;
}
