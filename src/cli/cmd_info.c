/* cmd_info.c - `fz7 i`: the formats, codecs and hashers fz7 really
 * handles, in the columns of 7-Zip's `i` (flags, name, extensions,
 * signature; streams/encode/decode/filter, method ID, name; digest size,
 * ID, name). Format flags: C fz7 creates it, K one compressed file (the
 * name is kept from the archive's); the other 7-Zip flags are left '.'. */
#include "cli/cli.h"
#include "cli/commands.h"
#include "codec/codec.h"

#include <stdio.h>

typedef struct info_format {
    bool create, one_file;
    const char *name, *exts, *signature;
} info_format;

static const info_format k_formats[] = {
    {true, false, "7z", "7z", "7 z BC AF ' 1C"},
    {false, false, "Ar", "ar a deb udeb lib", "! < a r c h > 0A"},
    {false, false, "Cab", "cab", "M S C F 00 00 00 00"},
    {false, false, "Compound", "msi msp msm doc xls ppt aaf", "D0 CF 11 E0 A1 B1 1A E1"},
    {false, false, "Cpio", "cpio", "0 7 0 7 0  ||  C7 q  ||  q C7"},
    {false, false, "FAT", "fat img", "offset=510 U AA"},
    {false, false, "GPT", "gpt mbr", "offset=512 E F I 20 P A R T 00 00 01 00"},
    {false, false, "Iso", "iso img", "offset=32769 C D 0 0 1"},
    {false, false, "Lzh", "lzh lha", "offset=2 - l h"},
    {false, false, "MBR", "mbr", ""},
    {false, false, "QCOW", "qcow qcow2 qcow2c", "Q F I FB 00 00 00"},
    {false, false, "Rar", "rar r00", "R a r ! 1A 07 00"},
    {false, false, "Rar5", "rar r00", "R a r ! 1A 07 01 00"},
    {false, false, "Rpm", "rpm", "ED AB EE DB"},
    {false, false, "SquashFS", "squashfs", "h s q s"},
    {false, false, "Udf", "udf iso img", "offset=32768 00 B E A 0 1 01 00  ||  01 C D 0 0 1"},
    {false, false, "VDI", "vdi", "offset=64 \x7F 10 DA BE"},   /* (7-Zip shows the byte 7F as it is) */
    {false, false, "VHD", "vhd", "c o n e c t i x 00 00"},
    {false, false, "VMDK", "vmdk", "K D M V"},
    {false, false, "Xar", "xar pkg xip", "x a r ! 00"},
    {false, true, "Z", "z taz (.tar)", "1F 9D"},
    {true, true, "bzip2", "bz2 bzip2 tbz2 (.tar) tbz (.tar)", "B Z h"},
    {true, true, "gzip", "gz gzip tgz (.tar) tpz (.tar)", "1F 8B 08"},
    {false, true, "lz4", "lz4", "04 22 M 18"},
    {false, true, "lzip", "lz tlz (.tar)", "L Z I P 01"},
    {false, true, "lzma", "lzma", ""},
    {true, false, "tar", "tar ova", "offset=257 u s t a r"},
    {true, true, "xz", "xz txz (.tar)", "FD 7 z X Z 00"},
    {true, false, "zip", "zip z01 zipx jar xpi odt ods docx xlsx epub ipa apk appx",
     "P K 03 04  ||  P K 05 06  ||  P K 06 06  ||  P K 07 08 P K  ||  P K 0 0 P K"},
    {false, true, "zstd", "zst tzst (.tar)", "( B5 / FD"},
};

typedef struct info_codec {
    char streams;      /* '4' for BCJ2's four streams, else ' ' */
    bool enc, filter;
    unsigned id;
    const char *name;
    int lib;           /* 0 always; 1 zstd, 2 brotli, 3 lz4: when linked */
} info_codec;

static const info_codec k_codecs[] = {
    {'4', true, false, 0x303011B, "BCJ2", 0},
    {' ', true, true, 0x3030103, "BCJ", 0},
    {' ', true, true, 0x3030205, "PPC", 0},
    {' ', true, true, 0x3030401, "IA64", 0},
    {' ', true, true, 0x3030501, "ARM", 0},
    {' ', true, true, 0x3030701, "ARMT", 0},
    {' ', true, true, 0x3030805, "SPARC", 0},
    {' ', true, true, 0xA, "ARM64", 0},
    {' ', true, true, 0xB, "RISCV", 0},
    {' ', true, false, 0x40202, "BZip2", 0},
    {' ', true, false, 0x0, "Copy", 0},
    {' ', true, false, 0x40109, "Deflate64", 0},
    {' ', true, false, 0x40108, "Deflate", 0},
    {' ', true, true, 0x3, "Delta", 0},
    {' ', true, false, 0x21, "LZMA2", 0},
    {' ', true, false, 0x30101, "LZMA", 0},
    {' ', true, false, 0x30401, "PPMD", 0},
    {' ', false, false, 0x4F71101, "ZSTD", 1},
    {' ', false, false, 0x4F71102, "BROTLI", 2},
    {' ', false, false, 0x4F71104, "LZ4", 3},
    {' ', true, true, 0x6F10701, "7zAES", 0},
};

static const struct { unsigned size, id; const char *name; } k_hashers[] = {
    {4, 0x1, "CRC32"},     {16, 0x208, "MD5"},    {20, 0x201, "SHA1"},
    {32, 0xA, "SHA256"},   {32, 0x231, "SHA3-256"}, {48, 0x222, "SHA384"},
    {64, 0x223, "SHA512"}, {8, 0x211, "XXH64"},   {8, 0x4, "CRC64"},
};

static bool lib_present(int lib)
{
    switch (lib) {
    case 1: return fz7_zstd_supported();
    case 2: return fz7_brotli_supported();
    case 3: return fz7_lz4_supported();
    default: return true;
    }
}

int fz7_cmd_info(const struct fz7_options *o)
{
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);
    fprintf(out, "\nFormats:\n");
    for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; i++) {
        const info_format *f = &k_formats[i];
        fprintf(out, "   %c%c.....................  %-8s %-13s %s\n", f->create ? 'C' : '.',
                f->one_file ? 'K' : '.', f->name, f->exts, f->signature);
    }
    fprintf(out, "\nCodecs:\n");
    for (size_t i = 0; i < sizeof k_codecs / sizeof k_codecs[0]; i++) {
        const info_codec *c = &k_codecs[i];
        if (!lib_present(c->lib))
            continue;
        fprintf(out, "   %c%cD%c%9X %s\n", c->streams, c->enc ? 'E' : ' ', c->filter ? 'F' : ' ',
                c->id, c->name);
    }
    fprintf(out, "\nHashers:\n");
    for (size_t i = 0; i < sizeof k_hashers / sizeof k_hashers[0]; i++)
        fprintf(out, "%7u %8X %s\n", k_hashers[i].size, k_hashers[i].id, k_hashers[i].name);
    return 0;
}
