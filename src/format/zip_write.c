/* zip_write.c - fz7's zip writer (see zip_write.h). The layout follows
 * what 7-Zip writes on Linux, so that a zip made by fz7 lists as 7zz's:
 * no extra fields in the local headers but WinZip AES's; in the central
 * directory the NTFS times (4.5.5) and the Unix mode in the high half of
 * the external attributes, with 7-Zip's 0x8000 mark and the DOS bits; a
 * DOS time rounded up to an even second, in local time. */
#include "format/zip_write.h"
#include "check/check.h"
#include "cpu/bytes.h"
#include "crypto/aes7z.h"
#include "format/7z/7z_write.h"
#include "format/archive_impl.h"
#include "format/fd_ostream.h"
#include "format/file_io.h"
#include "format/zip_crypt.h"
#include "format/zip_format.h"
#include "lzma/lzma_enc.h"
#include "format/xz/xz_write.h"
#include "lzma/lzma_presets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MADE_BY (3u << 8 | 63u)   /* host Unix, APPNOTE 6.3 */
#define DOS_TIME_1980 0x00210000u   /* 1980-01-01 00:00:00, the first DOS time */
/* A file this large gets a zip64 field in its local header before its
 * packed size is known: room for what Deflate adds to incompressible data
 * and for a file that grows while it is read. */
#define ZIP64_LOCAL_FROM 0xf0000000u
#define U32_MAX 0xffffffffu
#define COPY_CHUNK ((size_t)1 << 16)
/* A local header's extras besides the Unicode Path: zip64 (20), UT (9)
 * and AES (11); a central record's: zip64 (28), NTFS (36) or UT (9), and
 * AES (11) */
#define LOCAL_EXTRAS_MAX 40u
#define CENTRAL_EXTRAS_MAX 75u
#define LOCAL_MAX (ZIP_LFH_LEN + 0xffff + 0xffff)   /* name, extras */

typedef enum zip_crypt_kind { CRYPT_NONE, CRYPT_ZIPCRYPTO, CRYPT_AES } zip_crypt_kind;

/* The entry being written. */
typedef struct zip_entry {
    bool open;
    uint8_t *name;              /* as stored: a folder's ends in '/' */
    size_t name_len;
    uint16_t flags, method, needed;   /* method: the data's (under AES: aes_method) */
    uint32_t dos_time, ext_attr;
    uint64_t ft[3];             /* NTFS times: modified, accessed, created (0: none) */
    bool ntfs;
    bool ut;                    /* -mtp=1: the mtime in Info-ZIP's UT field instead */
    uint32_t unix_mtime;
    bool upath;                 /* -mcl with a non-ASCII name: its UTF-8 form in an extra too */
    bool zip64_local;
    uint64_t offset;            /* the local header's, from the archive's start */
    uint64_t data_start;        /* after the local header */
    size_t local_len;
    uint32_t crc;               /* of what was handed in */
    uint64_t size;
    uint64_t packed;            /* after the local header up to the descriptor */
    bool descriptor;            /* sizes in a data descriptor (bit 3) */
    bool crc_known;             /* ZipCrypto's check byte from crc_before */
    uint32_t crc_before;
    int data_fd;                /* a file to read again (pread), or -1 */
    uint8_t *data_mem;          /* a symlink's text (a copy), the other source */
    bool coding;                /* the method's encoder takes the data */
} zip_entry;

struct fz7_zip_writer {
    fz7_fd_ostream out;
    int fd;
    uint64_t base;              /* the fd's offset where the zip starts */
    bool seekable;
    bool lzma_flag_stored;      /* an entry stored instead of LZMA keeps bit 1 */
    fz7_la_opts opts;
    zip_crypt_kind crypt;
    uint8_t aes_strength;       /* 1, 2, 3: AES-128, -192, -256 */
    fz7_membuf cd;              /* the central directory so far */
    char *comment;              /* the archive's comment (an old zip's, kept), or NULL */
    uint64_t entries;
    zip_entry cur;
    /* the encoders of -mm, kept from entry to entry: Deflate or Deflate64
     * (restarted), BZip2 (one an entry), LZMA (reset while its dictionary
     * stays, the options in lz_opts) */
    fz7_deflate_enc *enc;
    fz7_bzip2_enc *bz;
    fz7_ppmd8_enc *ppmd;
    fz7_lzma_enc *lz;
    fz7_lzma_enc_opts lz_opts;
    fz7_xz_writer *xz;          /* one an entry */
    /* The data's path to the file: encrypted as it goes, counted. */
    fz7_ostream packed_os;
    uint8_t *scratch;           /* COPY_CHUNK bytes */
    uint8_t *reread;            /* COPY_CHUNK bytes, once a file is stored again */
    /* the entry's cipher: ZipCrypto's keys and header, or AES's state,
     * salt and password check */
    fz7_zipcrypto zc;
    uint8_t zc_header[FZ7_ZIPCRYPTO_HEADER];
    fz7_wzaes aes;
    uint8_t salt[16], pv[2];
    char err[256];
};

static fz7_status fail(fz7_zip_writer *w, fz7_status st, const char *what)
{
    if (!w->err[0])
        snprintf(w->err, sizeof w->err, "%s", what ? what : strerror(errno));
    return st;
}

static fz7_status put(fz7_zip_writer *w, const void *p, size_t n)
{
    fz7_status st = w->out.os.write(&w->out.os, p, n);
    return st == FZ7_OK ? st : fail(w, st, NULL);
}

/* ---- times -------------------------------------------------------------- */

/* The DOS date and time (4.4.6) of a time, rounded up to an even second
 * as 7-Zip rounds its FILETIME, in local time; before 1980 the first DOS
 * time, after 2107 the last. */
static uint32_t dos_time_of(int64_t sec, uint32_t nsec)
{
    time_t t = (time_t)(sec + (nsec / 100u ? 1 : 0));
    t += t & 1;
    struct tm tm;
    if (!localtime_r(&t, &tm) || tm.tm_year < 80)
        return DOS_TIME_1980;
    if (tm.tm_year > 207)
        return 0xff9fbf7du;   /* 2107-12-31 23:59:58 */
    return (uint32_t)(tm.tm_year - 80) << 25 | (uint32_t)(tm.tm_mon + 1) << 21 | (uint32_t)tm.tm_mday << 16 |
           (uint32_t)tm.tm_hour << 11 | (uint32_t)tm.tm_min << 5 | (uint32_t)tm.tm_sec >> 1;
}

/* ---- encryption ----------------------------------------------------------- */

/* A fresh salt and the keys of it (WinZip AES). */
static fz7_status aes_derive(fz7_zip_writer *w)
{
    if (fz7_random_bytes(w->salt, fz7_wzaes_salt_len(w->aes_strength)) != FZ7_OK)
        return fail(w, FZ7_E_IO, "no random numbers for the salt");
    fz7_wzaes_init(&w->aes, w->aes_strength, w->opts.password, w->salt, w->pv);
    return FZ7_OK;
}

/* Writes the encryption header (ZipCrypto's 12 bytes, AES's salt and
 * check) and sets the cipher at the data's first byte. */
static fz7_status crypt_begin(fz7_zip_writer *w, zip_entry *e)
{
    if (w->crypt == CRYPT_ZIPCRYPTO) {
        fz7_zipcrypto_init(&w->zc, w->opts.password);
        uint8_t h[FZ7_ZIPCRYPTO_HEADER];
        memcpy(h, w->zc_header, sizeof h - 1);
        /* the check byte: the CRC's high byte, or with a descriptor the
         * DOS time's (6.1.6) */
        h[sizeof h - 1] = e->crc_known ? (uint8_t)(e->crc_before >> 24) : (uint8_t)(e->dos_time >> 8);
        fz7_zipcrypto_encrypt(&w->zc, h, sizeof h);
        return put(w, h, sizeof h);
    }
    if (w->crypt == CRYPT_AES) {
        fz7_wzaes_restart(&w->aes);
        fz7_status st = put(w, w->salt, fz7_wzaes_salt_len(w->aes_strength));
        return st == FZ7_OK ? put(w, w->pv, 2) : st;
    }
    return FZ7_OK;
}

static fz7_status crypt_end(fz7_zip_writer *w)
{
    if (w->crypt != CRYPT_AES)
        return FZ7_OK;
    uint8_t mac[FZ7_WZAES_MAC];
    fz7_wzaes_mac(&w->aes, mac);
    return put(w, mac, sizeof mac);
}

/* The packed stream: what the coder writes, encrypted, to the file. */
static fz7_status packed_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    fz7_zip_writer *w = (fz7_zip_writer *)((char *)os - offsetof(fz7_zip_writer, packed_os));
    bool crypt = w->cur.flags & ZIP_FLAG_ENCRYPTED;
    while (n) {
        size_t k = n < COPY_CHUNK ? n : COPY_CHUNK;
        const uint8_t *q = p;
        if (crypt) {
            memcpy(w->scratch, p, k);
            if (w->crypt == CRYPT_ZIPCRYPTO)
                fz7_zipcrypto_encrypt(&w->zc, w->scratch, k);
            else
                fz7_wzaes_encrypt(&w->aes, w->scratch, k);
            q = w->scratch;
        }
        fz7_status st = put(w, q, k);
        if (st != FZ7_OK)
            return st;
        p += k;
        n -= k;
    }
    return FZ7_OK;
}

/* ---- headers -------------------------------------------------------------- */

static uint16_t needed_of(const zip_entry *e, zip_crypt_kind crypt, bool zip64)
{
    /* APPNOTE 4.4.3.2: the version each feature needs, the highest taken */
    uint16_t v = e->method == ZIP_METHOD_LZMA || e->method == ZIP_METHOD_PPMD ? 63 : e->method == ZIP_METHOD_BZIP2 ? 46 : e->method == ZIP_METHOD_DEFLATE64 ? 21
                 : e->method == ZIP_METHOD_DEFLATE || e->method == ZIP_METHOD_XZ ? 20 : 10;
    if (e->name_len && e->name[e->name_len - 1] == '/' && v < 20)
        v = 20;
    if (crypt == CRYPT_ZIPCRYPTO && v < 20)
        v = 20;
    if (zip64 && v < 45)
        v = 45;
    if (crypt == CRYPT_AES && v < 51)
        v = 51;
    return v;
}

/* The entry's method field: 99 under AES, with the real one in its extra. */
static uint16_t header_method(const fz7_zip_writer *w, const zip_entry *e)
{
    return (e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_AES ? ZIP_METHOD_AES : e->method;
}

static size_t aes_extra(const fz7_zip_writer *w, const zip_entry *e, uint8_t *x)
{
    if (!(e->flags & ZIP_FLAG_ENCRYPTED) || w->crypt != CRYPT_AES)
        return 0;
    fz7_put16le(x, ZIP_EXTRA_AES);
    fz7_put16le(x + 2, 7);
    fz7_put16le(x + 4, 2);   /* AE-2: no CRC, the MAC checks the data */
    x[6] = 'A', x[7] = 'E', x[8] = w->aes_strength;
    fz7_put16le(x + 9, e->method);
    return 11;
}

/* Info-ZIP's extended timestamp (APPNOTE 4.6.1's 0x5455), the mtime
 * alone, in both headers as 7zz writes it under -mtp=1. */
static size_t ut_extra(const zip_entry *e, uint8_t *x)
{
    if (!e->ut)
        return 0;
    fz7_put16le(x, ZIP_EXTRA_UT);
    fz7_put16le(x + 2, 5);
    x[4] = 1;
    fz7_put32le(x + 5, e->unix_mtime);
    return 9;
}

/* Info-ZIP's Unicode Path field (APPNOTE 4.6.9), which 7zz adds under -mcl
 * so that the name's UTF-8 form survives the code-page field: its 9 bytes
 * before the name go to x; returns the field's length with the name. */
static size_t upath_head(const zip_entry *e, uint8_t *x)
{
    if (!e->upath)
        return 0;
    fz7_put16le(x, ZIP_EXTRA_UPATH);
    fz7_put16le(x + 2, (uint16_t)(5 + e->name_len));
    x[4] = 1;
    fz7_put32le(x + 5, fz7_crc32(0, e->name, e->name_len));
    return 9 + e->name_len;
}

/* The local header (4.3.7) with what is known now; written again with
 * the sizes when the data is done (same length). */
static size_t local_header(const fz7_zip_writer *w, const zip_entry *e, uint8_t *h)
{
    bool aes = (e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_AES;
    bool sizes = !e->descriptor;
    uint8_t *x = h + ZIP_LFH_LEN + e->name_len;
    size_t xlen = 0;
    if (e->zip64_local) {
        fz7_put16le(x, ZIP_EXTRA_ZIP64);
        fz7_put16le(x + 2, 16);
        fz7_put64le(x + 4, sizes ? e->size : 0);
        fz7_put64le(x + 12, sizes ? e->packed : 0);
        xlen = 20;
    }
    xlen += ut_extra(e, x + xlen);
    if (e->upath) {
        xlen += upath_head(e, x + xlen);
        memcpy(x + xlen - e->name_len, e->name, e->name_len);
    }
    xlen += aes_extra(w, e, x + xlen);
    fz7_put32le(h, ZIP_LFH_SIG);
    fz7_put16le(h + 4, e->needed);
    fz7_put16le(h + 6, e->flags);
    fz7_put16le(h + 8, header_method(w, e));
    fz7_put32le(h + 10, e->dos_time);
    fz7_put32le(h + 14, sizes && !aes ? e->crc : 0);
    fz7_put32le(h + 18, !sizes ? 0 : e->zip64_local ? U32_MAX : (uint32_t)e->packed);
    fz7_put32le(h + 22, !sizes ? 0 : e->zip64_local ? U32_MAX : (uint32_t)e->size);
    fz7_put16le(h + 26, (uint16_t)e->name_len);
    fz7_put16le(h + 28, (uint16_t)xlen);
    memcpy(h + ZIP_LFH_LEN, e->name, e->name_len);
    return ZIP_LFH_LEN + e->name_len + xlen;
}

/* Appends a central directory record (4.3.12): zip64's field with what
 * overflows, then the NTFS times and the AES field as 7-Zip orders them. */
static fz7_status central_record(fz7_zip_writer *w, const zip_entry *e)
{
    uint8_t h[ZIP_CDH_LEN], x[CENTRAL_EXTRAS_MAX];
    size_t xlen = 0;
    bool big_size = e->size >= U32_MAX, big_packed = e->packed >= U32_MAX, big_off = e->offset >= U32_MAX;
    if (big_size || big_packed || big_off) {
        size_t n = 8u * (big_size + big_packed + big_off), at = 4;
        fz7_put16le(x, ZIP_EXTRA_ZIP64);
        fz7_put16le(x + 2, (uint16_t)n);
        if (big_size)
            fz7_put64le(x + at, e->size), at += 8;
        if (big_packed)
            fz7_put64le(x + at, e->packed), at += 8;
        if (big_off)
            fz7_put64le(x + at, e->offset), at += 8;
        xlen = at;
    }
    if (e->ntfs) {
        uint8_t *t = x + xlen;
        fz7_put16le(t, ZIP_EXTRA_NTFS);
        fz7_put16le(t + 2, 32);
        fz7_put32le(t + 4, 0);
        fz7_put16le(t + 8, 1);
        fz7_put16le(t + 10, 24);
        for (int k = 0; k < 3; k++)
            fz7_put64le(t + 12 + 8 * k, e->ft[k]);
        xlen += 36;
    }
    xlen += ut_extra(e, x + xlen);
    size_t pre = xlen;   /* the Unicode Path field goes after these, its name from e */
    uint8_t up[9];
    size_t up_len = upath_head(e, up);
    size_t aes_len = aes_extra(w, e, x + xlen);
    xlen += up_len + aes_len;
    bool aes = (e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_AES;
    /* the version this record needs: zip64 only for its own fields (a
     * local header of 64-bit sizes for -si data still says 45) */
    uint16_t needed = needed_of(e, e->flags & ZIP_FLAG_ENCRYPTED ? w->crypt : CRYPT_NONE, big_size || big_packed || big_off);
    fz7_put32le(h, ZIP_CDH_SIG);
    fz7_put16le(h + 4, MADE_BY);
    fz7_put16le(h + 6, needed);
    fz7_put16le(h + 8, e->flags);
    fz7_put16le(h + 10, header_method(w, e));
    fz7_put32le(h + 12, e->dos_time);
    fz7_put32le(h + 16, aes ? 0 : e->crc);
    fz7_put32le(h + 20, big_packed ? U32_MAX : (uint32_t)e->packed);
    fz7_put32le(h + 24, big_size ? U32_MAX : (uint32_t)e->size);
    fz7_put16le(h + 28, (uint16_t)e->name_len);
    fz7_put16le(h + 30, (uint16_t)xlen);
    fz7_put16le(h + 32, 0);
    fz7_put16le(h + 34, 0);
    fz7_put16le(h + 36, 0);
    fz7_put32le(h + 38, e->ext_attr);
    fz7_put32le(h + 42, big_off ? U32_MAX : (uint32_t)e->offset);
    fz7_status st = fz7_membuf_write(&w->cd.base, h, sizeof h);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, e->name, e->name_len);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, x, pre);
    if (st == FZ7_OK && up_len)
        st = fz7_membuf_write(&w->cd.base, up, sizeof up);
    if (st == FZ7_OK && up_len)
        st = fz7_membuf_write(&w->cd.base, e->name, e->name_len);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, x + pre, aes_len);
    w->entries++;
    return st == FZ7_OK ? st : fail(w, st, "out of memory for the central directory");
}

/* ---- entries -------------------------------------------------------------- */

/* The CRC of the entry's source read once before (ZipCrypto's check byte
 * is its high byte, and comes before the data). */
static fz7_status crc_of_source(fz7_zip_writer *w, zip_entry *e)
{
    uint32_t crc = 0;
    for (uint64_t at = 0, k; at < e->size; at += k) {
        k = e->size - at < COPY_CHUNK ? e->size - at : COPY_CHUNK;
        const uint8_t *p = e->data_mem ? e->data_mem + at : w->scratch;
        if (!e->data_mem && fz7_pread_full(e->data_fd, w->scratch, (size_t)k, at) != FZ7_OK)
            return fail(w, FZ7_E_IO, "the file changed while it was read");
        crc = fz7_crc32(crc, p, (size_t)k);
    }
    e->crc_before = crc;
    e->crc_known = true;
    return FZ7_OK;
}

/* The LZMA options of the zip's LZMA and xz methods: the level's preset,
 * d= and the other -m parameters (checked by the caller's settings). */
static void zip_lzma_opts(const fz7_zip_writer *w, fz7_lzma_enc_opts *o)
{
    fz7_lzma_enc_preset(o, (unsigned)(w->opts.level < 1 ? 1 : w->opts.level > 9 ? 9 : w->opts.level));
    if (w->opts.zip_dict)
        o->dict_size = w->opts.zip_dict < FZ7_LZMA_DICT_MIN ? FZ7_LZMA_DICT_MIN : w->opts.zip_dict;
    for (unsigned k = 0; k < w->opts.n_zip_lzma_params; k++)
        (void)fz7_lzma_enc_parse_param(o, w->opts.zip_lzma_params[k]);
}

/* 7zz leaves LZMA's end-marker flag (bit 1) on a file it stores instead
 * only under its normal parser: a=1, the default from -mx5. */
static bool lzma_flag_stored(const fz7_la_opts *o)
{
    bool normal = o->level >= 5;
    for (unsigned k = 0; k < o->n_zip_lzma_params; k++)
        if (!strncmp(o->zip_lzma_params[k], "a=", 2))
            normal = strtoul(o->zip_lzma_params[k] + 2, NULL, 10) != 0;
    return o->zip_method == FZ7_ZIP_LZMA && !o->zip_lzma_no_eos && normal;
}

/* LZMA in a zip (APPNOTE 5.8.8): the LZMA SDK version, the properties'
 * size and the properties, then the stream with its end marker (unless
 * eos=off, and then without the flag that says so). */
static fz7_status start_lzma(fz7_zip_writer *w, uint64_t size_hint)
{
    fz7_lzma_enc_opts o;
    zip_lzma_opts(w, &o);
    if (size_hint != UINT64_MAX)
        fz7_lzma1_reduce_dict(&o, size_hint ? size_hint : 1);
    o.end_marker = !w->opts.zip_lzma_no_eos;
    fz7_status st = FZ7_OK;
    if (w->lz && w->lz_opts.dict_size == o.dict_size) {   /* the rest is the archive's */
        st = fz7_lzma_enc_reset(w->lz, &w->packed_os);
    } else {
        fz7_lzma_enc_free(w->lz);
        w->lz = NULL;
        st = fz7_lzma_enc_new(&o, &w->packed_os, &w->lz);
        w->lz_opts = o;
    }
    if (st != FZ7_OK)
        return fail(w, st, "cannot start the LZMA encoder");
    uint8_t h[4 + 5] = {FZ7_VERSION_MAJOR, FZ7_VERSION_MINOR, 5, 0};
    fz7_lzma_enc_props(w->lz, h + 4);
    return packed_write(&w->packed_os, h, sizeof h);
}

/* PPMd in a zip (APPNOTE 5.10): 2 bytes of properties, then the stream
 * with its end marker. 7zz's choices: order 3 + level, 2^(level-1) MiB of
 * model (or o=, mem=) shrunk to the smallest power of two MiB at least 16
 * times the run's largest file, and the model cut off rather than
 * restarted when it fills from -mx7. */
static fz7_status start_ppmd(fz7_zip_writer *w, int level)
{
    unsigned order = w->opts.zip_ppmd_order ? w->opts.zip_ppmd_order : 3u + (unsigned)level;
    uint32_t mem = w->opts.zip_ppmd_mem ? w->opts.zip_ppmd_mem : (uint32_t)1 << (19 + level);
    for (uint32_t m = (uint32_t)1 << 20; w->opts.zip_largest && m < mem; m <<= 1)
        if (w->opts.zip_largest <= m >> 4) {
            mem = m;
            break;
        }
    unsigned restore = level >= 7 ? FZ7_PPMD8_CUT_OFF : FZ7_PPMD8_RESTART;
    uint8_t props[2];
    fz7_ppmd8_zip_props(order, mem, restore, props);
    fz7_status st = fz7_ppmd8_enc_new(order, mem, restore, &w->packed_os, &w->ppmd);
    if (st != FZ7_OK)
        return fail(w, st, "cannot start the PPMd encoder");
    return packed_write(&w->packed_os, props, sizeof props);
}

/* size_hint: the entry's bytes, UINT64_MAX when not known */
static fz7_status start_coder(fz7_zip_writer *w, zip_entry *e, uint64_t size_hint)
{
    fz7_status st = FZ7_OK;
    int level = w->opts.level < 1 ? 1 : w->opts.level > 9 ? 9 : w->opts.level;
    switch (e->method) {
    case ZIP_METHOD_DEFLATE:
    case ZIP_METHOD_DEFLATE64:
        /* one encoder for the archive, restarted for each entry: a new
         * one's tables cost more than a small file's coding */
        if (w->enc) {
            fz7_deflate_enc_restart(w->enc);
        } else {
            fz7_deflate_enc_opts d = w->opts.deflate;
            d.level = level;
            st = fz7_deflate_enc_new_opts(&d, e->method == ZIP_METHOD_DEFLATE64, &w->packed_os, &w->enc);
        }
        break;
    case ZIP_METHOD_BZIP2: {
        /* the block size as 7-Zip picks it (la_write.c's bzip2 too) */
        int block = w->opts.bzip2_block ? w->opts.bzip2_block : level <= 2 ? 1 : level <= 4 ? 5 : 9;
        st = fz7_bzip2_enc_new(block, &w->packed_os, &w->bz);
        break;
    }
    case ZIP_METHOD_LZMA:
        if ((st = start_lzma(w, size_hint)) != FZ7_OK)
            return st;
        break;
    case ZIP_METHOD_XZ: {
        /* a whole .xz stream (APPNOTE 5.14), with CRC32 checks as 7zz
         * writes it in a zip */
        fz7_xz_opts xo = {.check = FZ7_XZ_CHECK_CRC32, .size_hint = size_hint == UINT64_MAX ? 0 : size_hint};
        zip_lzma_opts(w, &xo.lzma);
        st = fz7_xz_writer_new_os(&w->packed_os, &xo, &w->xz);
        break;
    }
    case ZIP_METHOD_PPMD:
        if ((st = start_ppmd(w, level)) != FZ7_OK)
            return st;
        break;
    default:
        return FZ7_OK;
    }
    e->coding = st == FZ7_OK;
    return st == FZ7_OK ? st : fail(w, st, "cannot start the encoder");
}

/* Ends the entry's coder: its last block, end marker or trailer. */
static fz7_status finish_coder(fz7_zip_writer *w, zip_entry *e)
{
    if (!e->coding)
        return FZ7_OK;
    e->coding = false;
    fz7_status st = FZ7_OK;
    if (e->method == ZIP_METHOD_BZIP2) {
        st = fz7_bzip2_enc_finish(w->bz);
        fz7_bzip2_enc_free(w->bz);
        w->bz = NULL;
    } else if (e->method == ZIP_METHOD_PPMD) {
        st = fz7_ppmd8_enc_finish(w->ppmd);
        fz7_ppmd8_enc_free(w->ppmd);
        w->ppmd = NULL;
    } else if (e->method == ZIP_METHOD_LZMA) {
        st = fz7_lzma_enc_finish(w->lz);
    } else if (e->method == ZIP_METHOD_XZ) {
        st = fz7_xz_writer_finish(w->xz);
        fz7_xz_writer_free(w->xz);
        w->xz = NULL;
    } else {
        st = fz7_deflate_enc_finish(w->enc);
    }
    return st == FZ7_OK ? st : fail(w, st, NULL);
}

static fz7_status code(fz7_zip_writer *w, zip_entry *e, const uint8_t *p, size_t n)
{
    if (!e->coding)
        return packed_write(&w->packed_os, p, n);
    switch (e->method) {
    case ZIP_METHOD_BZIP2: return fz7_bzip2_enc_write(w->bz, p, n);
    case ZIP_METHOD_LZMA: return fz7_lzma_enc_write(w->lz, p, n);
    case ZIP_METHOD_PPMD: return fz7_ppmd8_enc_write(w->ppmd, p, n);
    case ZIP_METHOD_XZ: return fz7_xz_writer_write(w->xz, p, n);
    default: return fz7_deflate_enc_write(w->enc, p, n);
    }
}

static fz7_status write_local(fz7_zip_writer *w, zip_entry *e)
{
    uint8_t h[LOCAL_MAX];
    e->offset = w->out.pos;
    e->local_len = local_header(w, e, h);
    fz7_status st = put(w, h, e->local_len);
    e->data_start = w->out.pos;
    return st;
}

/* Writes the file again as stored (7-Zip keeps a file Deflate did not
 * shrink that way): back to the data's start, the source read again. */
static fz7_status restore_stored(fz7_zip_writer *w, zip_entry *e)
{
    fz7_status st = fz7_fd_ostream_flush(&w->out);
    if (st != FZ7_OK)
        return fail(w, st, NULL);
    if (lseek(w->fd, (off_t)(w->base + e->data_start), SEEK_SET) < 0)
        return fail(w, FZ7_E_IO, NULL);
    w->out.pos = e->data_start;
    e->method = ZIP_METHOD_STORE;
    if (!w->lzma_flag_stored)
        e->flags &= (uint16_t)~ZIP_FLAG_LZMA_EOS;
    e->needed = needed_of(e, e->flags & ZIP_FLAG_ENCRYPTED ? w->crypt : CRYPT_NONE, e->zip64_local);
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && (st = crypt_begin(w, e)) != FZ7_OK)
        return st;
    if (!e->data_mem && !w->reread && !(w->reread = malloc(COPY_CHUNK)))
        return fail(w, FZ7_E_MEM, "out of memory");
    uint32_t crc = 0;
    uint64_t at = 0;
    for (uint64_t k; at < e->size; at += k) {
        k = e->size - at < COPY_CHUNK ? e->size - at : COPY_CHUNK;
        const uint8_t *p = e->data_mem ? e->data_mem + at : w->reread;
        if (!e->data_mem && fz7_pread_full(e->data_fd, w->reread, (size_t)k, at) != FZ7_OK)
            break;
        crc = fz7_crc32(crc, p, (size_t)k);
        if ((st = packed_write(&w->packed_os, p, (size_t)k)) != FZ7_OK)
            return st;
    }
    if (at != e->size || crc != e->crc)
        return fail(w, FZ7_E_IO, "the file changed while it was read");
    return crypt_end(w);
}

static fz7_status entry_data_end(fz7_zip_writer *w, zip_entry *e);

/* Ends the open entry and adds its central record. */
static fz7_status entry_end(fz7_zip_writer *w)
{
    zip_entry *e = &w->cur;
    if (!e->open)
        return FZ7_OK;
    e->open = false;
    fz7_status st = entry_data_end(w, e);
    if (e->data_fd >= 0)
        close(e->data_fd);
    e->data_fd = -1;
    return st == FZ7_OK ? central_record(w, e) : st;
}

/* The end of the entry's data: the coder's, the MAC, the sizes where they
 * go; or the data again as stored. */
static fz7_status entry_data_end(fz7_zip_writer *w, zip_entry *e)
{
    fz7_status st = finish_coder(w, e);
    if (st != FZ7_OK)
        return st;
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && (st = crypt_end(w)) != FZ7_OK)
        return st;
    uint64_t overhead = !(e->flags & ZIP_FLAG_ENCRYPTED) ? 0
                        : w->crypt == CRYPT_ZIPCRYPTO ? FZ7_ZIPCRYPTO_HEADER
                                                      : fz7_wzaes_salt_len(w->aes_strength) + 2u + FZ7_WZAES_MAC;
    if (e->crc_known && e->crc_before != e->crc)
        return fail(w, FZ7_E_IO, "the file changed while it was read");
    bool coded = e->method != ZIP_METHOD_STORE;
    if (coded && e->size && w->out.pos - e->data_start - overhead >= e->size && w->seekable &&
        !e->descriptor && (e->data_fd >= 0 || e->data_mem) && (st = restore_stored(w, e)) != FZ7_OK)
        return st;
    e->packed = w->out.pos - e->data_start;
    if (!e->zip64_local && (e->size >= U32_MAX || e->packed >= U32_MAX))
        return fail(w, FZ7_E_IO, "the file grew past 4 GiB while it was read");
    if (e->descriptor) {
        uint8_t d[24];
        size_t n = 16;
        fz7_put32le(d, ZIP_DD_SIG);
        fz7_put32le(d + 4, w->crypt == CRYPT_AES && (e->flags & ZIP_FLAG_ENCRYPTED) ? 0 : e->crc);
        if (e->zip64_local) {
            fz7_put64le(d + 8, e->packed);
            fz7_put64le(d + 16, e->size);
            n = 24;
        } else {
            fz7_put32le(d + 8, (uint32_t)e->packed);
            fz7_put32le(d + 12, (uint32_t)e->size);
        }
        st = put(w, d, n);
    } else if (w->seekable) {
        /* the local header again, now with the sizes (and the method a
         * stored file ended with); on a pipe only a folder comes here,
         * its header right as it was written */
        uint8_t h[LOCAL_MAX];
        size_t n = local_header(w, e, h);
        st = fz7_fd_ostream_flush(&w->out);
        if (st == FZ7_OK && pwrite(w->fd, h, n, (off_t)(w->base + e->offset)) != (ssize_t)n)
            st = FZ7_E_IO;
        if (st != FZ7_OK)
            return fail(w, st, NULL);
    }
    return st;
}

static bool has_high_byte(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return true;
    return false;
}

/* Whether s is well-formed UTF-8 (no overlong forms, surrogates or code
 * points past U+10FFFF): only such a name gets the UTF-8 flag; other
 * bytes are stored as they are without it, as 7zz stores them. */

fz7_status fz7_zip_writer_begin(fz7_zip_writer *w, const fz7_la_entry *le)
{
    fz7_status st = entry_end(w);
    if (st != FZ7_OK)
        return st;
    zip_entry *e = &w->cur;
    free(e->name);
    free(e->data_mem);
    if (e->data_fd >= 0)   /* an entry that failed to start */
        close(e->data_fd);
    memset(e, 0, sizeof *e);
    e->data_fd = -1;
    bool dir = S_ISDIR(le->mode), link = S_ISLNK(le->mode);
    size_t n = strlen(le->name);
    if (n + dir > 0xffff)
        return fail(w, FZ7_E_ARG, "a name longer than a zip holds (65535 bytes)");
    e->name = malloc(n + 2);
    if (!e->name)
        return fail(w, FZ7_E_MEM, "out of memory");
    memcpy(e->name, le->name, n);
    if (dir)
        e->name[n++] = '/';
    e->name_len = n;
    if (has_high_byte(le->name) && !w->opts.zip_local_names && fz7_utf8_valid(le->name))
        e->flags |= ZIP_FLAG_UTF8;
    /* (a name too long for the field beside the others goes without it) */
    e->upath = has_high_byte(le->name) && w->opts.zip_local_names && fz7_utf8_valid(le->name) &&
               n <= 0xffff - 9 - (CENTRAL_EXTRAS_MAX > LOCAL_EXTRAS_MAX ? CENTRAL_EXTRAS_MAX : LOCAL_EXTRAS_MAX);
    e->size = dir ? 0 : link ? (le->link_target ? strlen(le->link_target) : 0) : le->size;
    if (link && !(e->data_mem = (uint8_t *)strdup(le->link_target ? le->link_target : "")))
        return fail(w, FZ7_E_MEM, "out of memory");
    if (!dir && !link && le->data_fd >= 0)
        e->data_fd = dup(le->data_fd);   /* the caller closes its own before the entry ends */
    /* an empty file is stored, but not on a pipe: there its sizes go in a
     * descriptor, which readers such as Java's take after Deflate only
     * (7zz deflates it too) */
    bool store = dir || (e->size == 0 && !le->size_unknown && w->seekable) || w->opts.level == 0 || w->opts.zip_method == FZ7_ZIP_COPY;
    static const uint16_t methods[] = {[FZ7_ZIP_DEFLATE] = ZIP_METHOD_DEFLATE, [FZ7_ZIP_COPY] = ZIP_METHOD_STORE,
                                       [FZ7_ZIP_DEFLATE64] = ZIP_METHOD_DEFLATE64, [FZ7_ZIP_BZIP2] = ZIP_METHOD_BZIP2,
                                       [FZ7_ZIP_LZMA] = ZIP_METHOD_LZMA, [FZ7_ZIP_XZ] = ZIP_METHOD_XZ,
                                       [FZ7_ZIP_PPMD] = ZIP_METHOD_PPMD};
    e->method = store ? ZIP_METHOD_STORE : methods[w->opts.zip_method];
    /* 7zz sets LZMA's flag on a file it stores too (an empty one, one
     * LZMA did not shrink), as lzma_flag_stored says */
    if (w->opts.zip_method == FZ7_ZIP_LZMA && !dir && w->opts.level != 0 && !w->opts.zip_lzma_no_eos &&
        (!store || w->lzma_flag_stored))
        e->flags |= ZIP_FLAG_LZMA_EOS;
    if (!dir && w->crypt != CRYPT_NONE)
        e->flags |= ZIP_FLAG_ENCRYPTED;
    /* times: DOS in the headers, NTFS in the central directory (or
     * as -mtp= says) */
    bool mt = !w->opts.no_mtime;
    e->dos_time = mt ? dos_time_of(le->mtime, le->mtime_nsec) : DOS_TIME_1980;
    if (mt)
        e->ft[0] = fz7_filetime_of(le->mtime, le->mtime_nsec);
    if (w->opts.zip_atime)
        e->ft[1] = fz7_filetime_of(le->atime, le->atime_nsec);
    if (w->opts.zip_ctime)
        e->ft[2] = fz7_filetime_of(le->ctime, le->ctime_nsec);
    e->ntfs = w->opts.zip_time_prec == FZ7_ZIP_TIME_NTFS && (mt || w->opts.zip_atime || w->opts.zip_ctime);
    e->ut = w->opts.zip_time_prec == FZ7_ZIP_TIME_UNIX && mt && le->mtime >= 0 && le->mtime <= (int64_t)U32_MAX;
    e->unix_mtime = (uint32_t)le->mtime;
    e->ext_attr = fz7_7z_attrib_from_mode(le->mode);   /* the same as 7z's (the Unix mode up high) */
    e->zip64_local = le->size_unknown || e->size >= ZIP64_LOCAL_FROM;
    e->descriptor = !w->seekable && !dir;   /* a folder's sizes are known: 0 */
    e->crc = 0;
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_ZIPCRYPTO && !e->descriptor) {
        if (e->data_mem || e->data_fd >= 0) {
            if ((st = crc_of_source(w, e)) != FZ7_OK)
                return st;
        } else {
            e->descriptor = true;   /* no second read: the time's byte checks */
        }
    }
    if (e->descriptor)
        e->flags |= ZIP_FLAG_DESCRIPTOR;
    /* a salt (AES) or header (ZipCrypto) of its own for each entry: one
     * key stream is never used twice */
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_AES && (st = aes_derive(w)) != FZ7_OK)
        return st;
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && w->crypt == CRYPT_ZIPCRYPTO &&
        fz7_random_bytes(w->zc_header, sizeof w->zc_header) != FZ7_OK)
        return fail(w, FZ7_E_IO, "no random numbers for the encryption header");
    e->needed = needed_of(e, e->flags & ZIP_FLAG_ENCRYPTED ? w->crypt : CRYPT_NONE, e->zip64_local);
    e->open = true;
    if ((st = write_local(w, e)) != FZ7_OK)
        return st;
    if ((e->flags & ZIP_FLAG_ENCRYPTED) && (st = crypt_begin(w, e)) != FZ7_OK)
        return st;
    if ((st = start_coder(w, e, le->size_unknown ? UINT64_MAX : e->size)) != FZ7_OK)
        return st;
    if (link && e->size) {
        e->size = 0;   /* counted again as it is written */
        return fz7_zip_writer_write(w, e->data_mem, strlen((const char *)e->data_mem));
    }
    if (!dir)
        e->size = 0;
    return FZ7_OK;
}

fz7_status fz7_zip_writer_write(fz7_zip_writer *w, const uint8_t *p, size_t n)
{
    zip_entry *e = &w->cur;
    if (!e->open)
        return fail(w, FZ7_E_ARG, "data outside an entry");
    e->crc = fz7_crc32(e->crc, p, n);
    e->size += n;
    return code(w, e, p, n);
}

/* ---- the writer ------------------------------------------------------------- */

fz7_status fz7_zip_writer_new(int fd, const fz7_la_opts *o, fz7_zip_writer **out, char *err,
                              size_t errlen)
{
    *out = NULL;
    fz7_zip_writer *w = calloc(1, sizeof *w);
    if (w)
        w->cur.data_fd = -1;
    if (!w || !(w->scratch = malloc(COPY_CHUNK)) || fz7_fd_ostream_init(&w->out, fd) != FZ7_OK) {
        fz7_zip_writer_free(w);
        return FZ7_E_MEM;
    }
    w->fd = fd;
    w->opts = *o;
    w->lzma_flag_stored = lzma_flag_stored(o);
    w->cur.data_fd = -1;
    w->packed_os.write = packed_write;
    fz7_membuf_init(&w->cd);
    struct stat sb;
    off_t at = lseek(fd, 0, SEEK_CUR);
    w->seekable = at >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    w->base = at >= 0 ? (uint64_t)at : 0;
    switch (o->crypt) {
    case FZ7_LA_CRYPT_NONE: break;
    case FZ7_LA_CRYPT_ZIPCRYPTO: w->crypt = CRYPT_ZIPCRYPTO; break;
    case FZ7_LA_CRYPT_AES128: w->crypt = CRYPT_AES, w->aes_strength = 1; break;
    case FZ7_LA_CRYPT_AES192: w->crypt = CRYPT_AES, w->aes_strength = 2; break;
    case FZ7_LA_CRYPT_AES256: w->crypt = CRYPT_AES, w->aes_strength = 3; break;
    }
    (void)err, (void)errlen;
    *out = w;
    return FZ7_OK;
}

fz7_status fz7_zip_writer_finish(fz7_zip_writer *w)
{
    fz7_status st = entry_end(w);
    if (st != FZ7_OK)
        return st;
    uint64_t cd_off = w->out.pos, cd_len = w->cd.n;
    if ((st = put(w, w->cd.p, w->cd.n)) != FZ7_OK)
        return st;
    bool z64 = w->entries >= 0xffff || cd_off >= U32_MAX || cd_len >= U32_MAX;
    if (z64) {
        uint8_t r[ZIP_EOCD64_LEN + ZIP_EOCD64_LOC_LEN];
        uint64_t at = w->out.pos;
        fz7_put32le(r, ZIP_EOCD64_SIG);
        fz7_put64le(r + 4, ZIP_EOCD64_LEN - 12);
        fz7_put16le(r + 12, MADE_BY);
        fz7_put16le(r + 14, 45);
        fz7_put32le(r + 16, 0);
        fz7_put32le(r + 20, 0);
        fz7_put64le(r + 24, w->entries);
        fz7_put64le(r + 32, w->entries);
        fz7_put64le(r + 40, cd_len);
        fz7_put64le(r + 48, cd_off);
        uint8_t *l = r + ZIP_EOCD64_LEN;
        fz7_put32le(l, ZIP_EOCD64_LOC_SIG);
        fz7_put32le(l + 4, 0);
        fz7_put64le(l + 8, at);
        fz7_put32le(l + 16, 1);
        if ((st = put(w, r, sizeof r)) != FZ7_OK)
            return st;
    }
    uint8_t e[ZIP_EOCD_LEN];
    uint16_t count = w->entries >= 0xffff ? 0xffff : (uint16_t)w->entries;
    fz7_put32le(e, ZIP_EOCD_SIG);
    fz7_put16le(e + 4, 0);
    fz7_put16le(e + 6, 0);
    fz7_put16le(e + 8, count);
    fz7_put16le(e + 10, count);
    fz7_put32le(e + 12, cd_len >= U32_MAX ? U32_MAX : (uint32_t)cd_len);
    fz7_put32le(e + 16, cd_off >= U32_MAX ? U32_MAX : (uint32_t)cd_off);
    size_t clen = w->comment ? strlen(w->comment) : 0;
    fz7_put16le(e + 20, (uint16_t)(clen > 0xffff ? 0xffff : clen));
    if ((st = put(w, e, sizeof e)) != FZ7_OK || (clen && (st = put(w, w->comment, clen > 0xffff ? 0xffff : clen)) != FZ7_OK))
        return st;
    if ((st = fz7_fd_ostream_flush(&w->out)) != FZ7_OK)
        return fail(w, st, NULL);
    /* a file stored after Deflate wrote more leaves nothing behind */
    if (w->seekable && ftruncate(w->fd, (off_t)(w->base + w->out.pos)) != 0)
        return fail(w, FZ7_E_IO, NULL);
    return FZ7_OK;
}

/* ---- an old zip's entries, copied --------------------------------------------- */

/* Copies n bytes at off of v to the output. */
static fz7_status copy_bytes(fz7_zip_writer *w, const fz7_volumes *v, uint64_t off, uint64_t n)
{
    while (n) {
        size_t k = n < COPY_CHUNK ? (size_t)n : COPY_CHUNK;
        if (fz7_volumes_pread(v, w->scratch, k, off) != FZ7_OK)
            return fail(w, FZ7_E_TRUNCATED, "the old archive ends inside an entry");
        fz7_status st = put(w, w->scratch, k);
        if (st != FZ7_OK)
            return st;
        off += k;
        n -= k;
    }
    return FZ7_OK;
}

/* Whether extra fields x (n bytes) hold one of kind id. */
static bool has_extra(const uint8_t *x, size_t n, uint16_t id)
{
    for (size_t j = 0; j + 4 <= n;) {
        uint16_t k = fz7_get16le(x + j), dlen = fz7_get16le(x + j + 2);
        if (dlen > n - j - 4)
            return false;
        if (k == id)
            return true;
        j += 4u + dlen;
    }
    return false;
}

/* One old entry written again: its local header (a new name where it has
 * one), its data and descriptor as they are, and its central record with
 * the new name and offset (zip64's field made again for them). */
static fz7_status copy_entry(fz7_zip_writer *w, const fz7_volumes *v, uint64_t vsize, const uint8_t *rec,
                             uint64_t shift, const char *new_name, bool dir, uint64_t *size_out)
{
    size_t nlen = fz7_get16le(rec + 28), xlen = fz7_get16le(rec + 30), clen = fz7_get16le(rec + 32);
    const uint8_t *x = rec + ZIP_CDH_LEN + nlen;
    uint64_t size, packed, local;
    fz7_zip_record_sizes(rec, &size, &packed, &local);
    local += shift;
    uint16_t flags = fz7_get16le(rec + 8);
    *size_out = size;
    uint8_t lh[ZIP_LFH_LEN];
    if (local > vsize || fz7_volumes_pread(v, lh, ZIP_LFH_LEN, local) != FZ7_OK || fz7_get32le(lh) != ZIP_LFH_SIG)
        return fail(w, FZ7_E_DATA, "an entry's local header is not where the central directory says");
    size_t lnlen = fz7_get16le(lh + 26), lxlen = fz7_get16le(lh + 28);
    uint64_t data = local + ZIP_LFH_LEN + lnlen + lxlen;
    if (data > vsize || packed > vsize - data)
        return fail(w, FZ7_E_DATA, "an entry's data reaches past the archive's end");
    uint64_t tail = 0;   /* the data descriptor (4.3.9), signature optional */
    if (flags & ZIP_FLAG_DESCRIPTOR) {
        /* its sizes are 8 bytes each when the local header has a zip64
         * field (4.3.9.2) */
        bool z64 = lxlen && fz7_volumes_pread(v, w->scratch, lxlen, local + ZIP_LFH_LEN + lnlen) == FZ7_OK &&
                   has_extra(w->scratch, lxlen, ZIP_EXTRA_ZIP64);
        uint8_t sig[4];
        bool has_sig = data + packed + 4 <= vsize && fz7_volumes_pread(v, sig, 4, data + packed) == FZ7_OK &&
                       fz7_get32le(sig) == ZIP_DD_SIG;
        tail = (has_sig ? 4u : 0u) + 4u + (z64 ? 16u : 8u);
        if (tail > vsize - data - packed)
            tail = vsize - data - packed;
    }
    size_t name_len = strlen(new_name) + dir;
    if (name_len > 0xffff)
        return fail(w, FZ7_E_ARG, "a name longer than a zip holds (65535 bytes)");
    uint16_t nflags = (uint16_t)(flags & ~ZIP_FLAG_UTF8);
    if (has_high_byte(new_name) && ((flags & ZIP_FLAG_UTF8) || !w->opts.zip_local_names) && fz7_utf8_valid(new_name))
        nflags |= ZIP_FLAG_UTF8;
    uint64_t offset = w->out.pos;
    /* the local header with the new name */
    uint8_t h[ZIP_LFH_LEN];
    memcpy(h, lh, ZIP_LFH_LEN);
    fz7_put16le(h + 6, nflags);
    fz7_put16le(h + 26, (uint16_t)name_len);
    fz7_status st = put(w, h, ZIP_LFH_LEN);
    if (st == FZ7_OK)
        st = put(w, new_name, name_len - dir);
    if (st == FZ7_OK && dir)
        st = put(w, "/", 1);
    if (st == FZ7_OK)
        st = copy_bytes(w, v, local + ZIP_LFH_LEN + lnlen, lxlen);
    if (st == FZ7_OK)
        st = copy_bytes(w, v, data, packed + tail);
    if (st != FZ7_OK)
        return st;
    /* the central record: the old one's fields, zip64's made again */
    bool big_size = size >= U32_MAX, big_packed = packed >= U32_MAX, big_off = offset >= U32_MAX;
    uint8_t c[ZIP_CDH_LEN], z[28];
    memcpy(c, rec, ZIP_CDH_LEN);
    size_t zlen = 0;
    if (big_size || big_packed || big_off) {
        zlen = 4;
        if (big_size)
            fz7_put64le(z + zlen, size), zlen += 8;
        if (big_packed)
            fz7_put64le(z + zlen, packed), zlen += 8;
        if (big_off)
            fz7_put64le(z + zlen, offset), zlen += 8;
        fz7_put16le(z, ZIP_EXTRA_ZIP64);
        fz7_put16le(z + 2, (uint16_t)(zlen - 4));
    }
    size_t kept = 0;   /* the other extra fields, as they are (the copy is done with scratch) */
    uint8_t *xs = w->scratch;
    for (size_t j = 0; j + 4 <= xlen;) {
        uint16_t id = fz7_get16le(x + j), dlen = fz7_get16le(x + j + 2);
        if (dlen > xlen - j - 4)
            break;
        if (id != ZIP_EXTRA_ZIP64)
            memcpy(xs + kept, x + j, 4u + dlen), kept += 4u + dlen;
        j += 4u + dlen;
    }
    if (zlen + kept > 0xffff)
        return fail(w, FZ7_E_FORMAT, "an entry's extra fields overflow");
    fz7_put16le(c + 8, nflags);
    fz7_put32le(c + 20, big_packed ? U32_MAX : (uint32_t)packed);
    fz7_put32le(c + 24, big_size ? U32_MAX : (uint32_t)size);
    fz7_put16le(c + 28, (uint16_t)name_len);
    fz7_put16le(c + 30, (uint16_t)(zlen + kept));
    fz7_put32le(c + 42, big_off ? U32_MAX : (uint32_t)offset);
    if (zlen && fz7_get16le(c + 6) < 45)
        fz7_put16le(c + 6, 45);
    st = fz7_membuf_write(&w->cd.base, c, ZIP_CDH_LEN);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, (const uint8_t *)new_name, name_len - dir);
    if (st == FZ7_OK && dir)
        st = fz7_membuf_write(&w->cd.base, (const uint8_t *)"/", 1);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, z, zlen);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, xs, kept);
    if (st == FZ7_OK)
        st = fz7_membuf_write(&w->cd.base, x + xlen, clen);
    w->entries++;
    return st == FZ7_OK ? st : fail(w, st, "out of memory for the central directory");
}

/* Reads the central directory record at `at` (of len bytes from off)
 * into rec (room for ZIP_CDH_LEN + 3 x 65535 bytes). */
static fz7_status read_record(fz7_zip_writer *w, const fz7_volumes *v, uint64_t off, uint64_t len, uint64_t at,
                              uint8_t *rec, size_t *rec_len)
{
    if (len - at < ZIP_CDH_LEN || fz7_volumes_pread(v, rec, ZIP_CDH_LEN, off + at) != FZ7_OK ||
        fz7_get32le(rec) != ZIP_CDH_SIG)
        return fail(w, FZ7_E_FORMAT, "a central directory record is damaged");
    size_t n = ZIP_CDH_LEN + fz7_get16le(rec + 28) + fz7_get16le(rec + 30) + fz7_get16le(rec + 32);
    if (n > len - at || fz7_volumes_pread(v, rec + ZIP_CDH_LEN, n - ZIP_CDH_LEN, off + at + ZIP_CDH_LEN) != FZ7_OK)
        return fail(w, FZ7_E_FORMAT, "a central directory record reaches past its end");
    *rec_len = n;
    return FZ7_OK;
}

fz7_status fz7_zip_writer_copy(fz7_zip_writer *w, fz7_la_writer *outer, const char *old_path,
                               fz7_la_copy_fn fn, void *ctx, uint64_t *kept_dirs, uint64_t *kept_files,
                               uint64_t *kept_bytes)
{
    *kept_dirs = *kept_files = *kept_bytes = 0;
    fz7_status st = entry_end(w);
    if (st != FZ7_OK)
        return st;
    fz7_volumes *v = NULL;
    char err[256];
    if ((st = fz7_volumes_open(old_path, &v, err, sizeof err)) != FZ7_OK)
        return fail(w, st == FZ7_E_MEM ? st : FZ7_E_FORMAT, err);
    uint64_t vsize = fz7_volumes_size(v), off, len;
    uint8_t *rec = NULL;
    fz7_zip_place *place = NULL;
    size_t n = 0, cap = 0, rec_len;
    uint64_t shift = 0;
    free(w->comment);
    w->comment = NULL;
    if (!fz7_zip_find_directory(v, vsize, &off, &len, &w->comment, &shift, NULL) || off > vsize || len > vsize - off) {
        st = fail(w, FZ7_E_FORMAT, "no central directory");
        goto out;
    }
    /* The records one at a time (memory grows by a place per entry, not
     * by the directory), in the order of their data: the order libarchive
     * lists the entries in, which fn's index counts. */
    if (!(rec = malloc(ZIP_CDH_LEN + 3u * 0xffffu))) {
        st = fail(w, FZ7_E_MEM, "out of memory");
        goto out;
    }
    for (uint64_t at = 0; at < len; at += rec_len) {
        if ((st = read_record(w, v, off, len, at, rec, &rec_len)) != FZ7_OK)
            goto out;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 256;
            fz7_zip_place *q = realloc(place, c * sizeof *q);
            if (!q) {
                st = fail(w, FZ7_E_MEM, "out of memory");
                goto out;
            }
            place = q, cap = c;
        }
        place[n++] = (fz7_zip_place){fz7_zip_record_local(rec) + shift, at};
    }
    fz7_zip_places_sort(place, n);
    size_t index = 0;
    for (size_t k = 0; k < n && st == FZ7_OK; k++) {
        if ((st = read_record(w, v, off, len, place[k].at, rec, &rec_len)) != FZ7_OK)
            break;
        size_t nlen = fz7_get16le(rec + 28);
        char *path = strndup((const char *)rec + ZIP_CDH_LEN, nlen);
        if (!path) {
            st = fail(w, FZ7_E_MEM, "out of memory");
            break;
        }
        size_t pn = strlen(path);
        bool dir = pn && path[pn - 1] == '/';
        while (pn > 1 && path[pn - 1] == '/')
            path[--pn] = 0;
        uint32_t ext = fz7_get32le(rec + 38);
        dir |= ((fz7_get16le(rec + 4) >> 8) == 3 && S_ISDIR(ext >> 16)) || (ext & ZIP_ATTR_DIRECTORY);
        fz7_la_copy_as as = {.name = NULL};
        bool root = strspn(path, "/") == pn && pn;
        if (root) {
            as.name = path;
        } else {
            st = fn(ctx, outer, index++, path, NULL, &as);
            if (st == FZ7_OK)
                st = entry_end(w);   /* new entries fn wrote before this one */
        }
        uint64_t size = 0;
        if (st == FZ7_OK && as.name)
            st = copy_entry(w, v, vsize, rec, shift, as.name, dir && !root, &size);
        if (st == FZ7_OK && as.name) {
            *kept_dirs += dir;
            *kept_files += !dir;
            *kept_bytes += dir ? 0 : size;
        }
        free(path);
    }
out:
    free(rec);
    free(place);
    fz7_volumes_close(v);
    return st;
}

uint64_t fz7_zip_writer_bytes(const fz7_zip_writer *w) { return w->out.pos; }

const char *fz7_zip_writer_error(const fz7_zip_writer *w)
{
    return w ? w->err : "";
}

void fz7_zip_writer_free(fz7_zip_writer *w)
{
    if (!w)
        return;
    fz7_deflate_enc_free(w->enc);
    fz7_bzip2_enc_free(w->bz);
    fz7_ppmd8_enc_free(w->ppmd);
    fz7_lzma_enc_free(w->lz);
    fz7_xz_writer_free(w->xz);
    if (w->cur.data_fd >= 0)
        close(w->cur.data_fd);
    free(w->cur.name);
    free(w->cur.data_mem);
    free(w->comment);
    fz7_membuf_free(&w->cd);
    fz7_fd_ostream_free(&w->out);
    free(w->scratch);
    free(w->reread);
    fz7_wzaes_wipe(&w->aes);
    memset(&w->zc, 0, sizeof w->zc);
    free(w);
}
