/* archive_impl.h - what each container reader (7z, xz, lzma) provides to
 * archive.c. Not for cli/. */
#ifndef FZ7_ARCHIVE_IMPL_H
#define FZ7_ARCHIVE_IMPL_H

#include "format/archive.h"
#include "format/file_io.h"

#include <limits.h>
#include <locale.h>
#include <stdio.h>

typedef struct fz7_archive_ops {
    fz7_status (*extract)(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                          char *err, size_t errlen);
    void (*close)(fz7_archive *a);   /* frees the format's own data */
    /* fz7_archive_entry_props for the format, or NULL: none */
    size_t (*props)(const fz7_archive *a, size_t i, fz7_prop *props, char *buf, size_t cap);
} fz7_archive_ops;

struct fz7_archive {
    const fz7_archive_ops *ops;
    fz7_archive_info info;
    fz7_entry *entries;    /* count items, freed by archive.c (paths too) */
    size_t count;
    fz7_entry_more *more;  /* count items or NULL: what the entries' more
                              point to; freed by archive.c */
    char *names;           /* names_len bytes holding many entries' paths
                              (one block instead of a malloc each), or
                              NULL; paths outside it are each their own */
    size_t names_len;
    uint32_t *owners;      /* 2 x count items (uid, gid) or NULL: kept when
                              opts.owners asks and the format has them */
    size_t owners_cap;     /* entries owners has room for */
    uint32_t *listed;      /* count items or NULL: the entries in the order
                              7-Zip lists them where that is not theirs (a
                              zip's directory order); freed by archive.c */
    int fd;                /* the (first volume's) file; owned by vol */
    uint64_t file_size;    /* bytes of all volumes */
    fz7_volumes *vol;      /* the archive's bytes, closed by archive.c;
                              readers of split archives read through it */
    fz7_open_opts opts;    /* mem_limit filled in; password not copied */
    const char *path;      /* as given to fz7_archive_open */
    char open_detail[PATH_MAX + 32]; /* info.open_detail's text */
    void *priv;            /* the format's own data */
    size_t main_subfile;   /* 1 + the entry holding the archive 7-Zip opens
                              in its place (a .deb's data.tar.xz, an rpm's
                              payload), or 0 */
    uint64_t main_offset;  /* with main_subfile: where that entry's bytes
                              start in vol (they are e->size long) */
    uint64_t *main_blocks; /* with main_subfile: where each 2^main_bits
                              block of that entry lies in vol, when its
                              bytes are scattered (a Compound file's
                              stream; main_offset unused); else NULL.
                              Freed by archive.c */
    unsigned main_bits;
    fz7_block_reader main_block_read; /* with main_blocks: reads their
                              FZ7_BLOCK_CODED blocks, given this archive */
    bool main_cut;         /* with main_blocks: blocks may lie past the
                              file's end (a virtual disk cut short: reads
                              there fail), and the subfile opens in spite
                              of info.open_error, as 7-Zip does */
    const char *main_type; /* with main_subfile: 7-Zip's type of it by its
                              name ("gzip" for an rpm's .cpio.gz), when 7-Zip
                              requires it to open; else NULL */
    fz7_archive *outer;    /* the archive this one was opened inside (the
                              .deb's ar), freed with this one; else NULL */
};

/* Frees the entries, their paths (those outside a->names one by one),
 * a->more and a->names, and leaves count 0. */
void fz7_archive_free_entries(fz7_archive *a);

/* Each reader checks the signature itself and returns FZ7_E_FORMAT with
 * err left empty when the file is not its format, so archive.c can try the
 * next one. On success it fills a->ops, entries, count, info, priv. */
fz7_status fz7_7z_open(fz7_archive *a, char *err, size_t errlen);
fz7_status fz7_xz_open(fz7_archive *a, char *err, size_t errlen);
fz7_status fz7_lzma_alone_open(fz7_archive *a, char *err, size_t errlen);
/* An .lz (lzip) file of one or more members (lzip_read.c). */
fz7_status fz7_lzip_open(fz7_archive *a, char *err, size_t errlen);
/* A 7z archive behind a self-extractor stub: the first signature whose
 * start header CRC checks and whose next header lies in the file. */
fz7_status fz7_7z_sfx_open(fz7_archive *a, char *err, size_t errlen);
fz7_status fz7_split_open(fz7_archive *a, char *err, size_t errlen);
/* An ar archive (ar_read.c): a static library or a .deb, whose data.tar.*
 * member it names in a->main_subfile. A header number that does not read
 * is FZ7_E_FORMAT with "Is not archive" in err. */
fz7_status fz7_ar_open(fz7_archive *a, char *err, size_t errlen);
/* An rpm package (rpm_read.c): its lead and headers, listed as one entry,
 * the compressed payload, which it names in a->main_subfile. */
fz7_status fz7_rpm_open(fz7_archive *a, char *err, size_t errlen);
/* A SquashFS 4.0 image (squashfs_read.c): its folder tree as 7-Zip lists
 * it. A compressor fz7 has no decoder for is FZ7_E_UNSUPPORTED with
 * FZ7_E_NOTIMPL_TEXT in err; a damaged image is FZ7_E_FORMAT. */
fz7_status fz7_squashfs_open(fz7_archive *a, char *err, size_t errlen);
/* A Compound File Binary file (cfb_read.c: .msi, .doc, .xls...): its
 * storages as folders, its streams as files, as 7-Zip lists them; an MSI
 * package's one .cab stream in a->main_subfile. A file with the signature
 * that 7-Zip would refuse is FZ7_E_DATA ("Cannot open the file as
 * archive" in err: 7-Zip's Headers Error). */
fz7_status fz7_cfb_open(fz7_archive *a, char *err, size_t errlen);
/* A FAT12, FAT16 or FAT32 image (fat_read.c): its folder tree as 7-Zip
 * lists it, long names included. A damaged boot sector, FAT or folder is
 * FZ7_E_FORMAT. */
fz7_status fz7_fat_open(fz7_archive *a, char *err, size_t errlen);
/* A UDF image (udf_read.c): its folder tree as 7-Zip lists it, the
 * volume's descriptors as the archive's Comment. Tried before libarchive:
 * a hybrid ISO 9660 + UDF image opens as UDF, as 7-Zip opens it. A
 * damaged descriptor is FZ7_E_FORMAT; a file whose extents 7-Zip does not
 * read (unrecorded, chained, past its partition, not its size) is listed
 * and extracts as FZ7_E_UNSUPPORTED. ECMA-167, OSTA UDF 1.02-2.60. */
fz7_status fz7_udf_open(fz7_archive *a, char *err, size_t errlen);
/* A virtual machine's disk image (vmdisk_read.c): VHD (fixed, dynamic),
 * VDI (normal, fixed).
 * The disk is one entry, named after the file; a->main_subfile names it,
 * with main_blocks where its blocks are scattered. Not the format:
 * FZ7_E_FORMAT, err empty; a disk whose blocks pass the file's end opens
 * with info.open_error. */
fz7_status fz7_vhd_open(fz7_archive *a, char *err, size_t errlen);
fz7_status fz7_vdi_open(fz7_archive *a, char *err, size_t errlen);
/* A QCOW image (QEMU's qcow2.txt, versions 1 to 3), as the VHD above; a
 * compressed cluster is inflated as it is read. FZ7_E_DATA with 7-Zip's
 * "ERRORS:" block in err for a table past the end of the file or a disk
 * in a backing file; an image with a cipher is listed, not read. */
fz7_status fz7_qcow_open(fz7_archive *a, char *err, size_t errlen);
/* A VMDK monolithic sparse image (VMware's Virtual Disk Format 5.0:
 * header versions 1 and 2, uncompressed grains), as the VHD above; a
 * stream-optimized one is not (7-Zip refuses it too). */
fz7_status fz7_vmdk_open(fz7_archive *a, char *err, size_t errlen);
/* A disk image with an MBR partition table (mbr_read.c): its partitions
 * as entries; one partition alone is named in a->main_subfile. Tried
 * after FAT (whose boot sector has the same 0x55AA) and after libarchive
 * (a hybrid ISO's table is no reason to list it as a disk), as 7-Zip
 * tries a format without a signature after those with one. */
fz7_status fz7_mbr_open(fz7_archive *a, char *err, size_t errlen);
/* A disk image with a GUID partition table (gpt_read.c: UEFI 2.x, 512-byte
 * sectors): its partitions as entries, the header's and the entry array's
 * CRC-32 checked (a bad one: FZ7_E_FORMAT, so the protective MBR is read
 * instead, as 7-Zip does); one partition alone is named in
 * a->main_subfile. */
fz7_status fz7_gpt_open(fz7_archive *a, char *err, size_t errlen);
/* Decodes the .xz stream(s) read from src to its end, forward as a pipe
 * is read (xz_stream.c): each block's check and each index verified, the
 * data handed to cb->data (only). A zip entry's xz data comes this way.
 * Errors as extraction of an .xz file gives them (detail: the reason);
 * *cb_failed says the status is cb->data's. */
fz7_status fz7_xz_decode_istream(fz7_istream *src, uint64_t mem_limit, const fz7_extract_cb *cb, bool *cb_failed,
                                 char *detail, size_t dlen);

/* An xz file arriving on fd (a pipe), read once forward (xz_stream.c):
 * head (head_len bytes, at most 64 KiB) came from fd already. The entry is
 * named name, else "~". FZ7_E_FORMAT (not xz: err says so), FZ7_E_MEM. */
fz7_status fz7_xz_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                            const fz7_open_opts *opts, fz7_archive **out, char *err, size_t errlen);
/* A gzip file (gzip_read.c): one entry, every member decoded and checked
 * by fz7's Deflate decoder. */
fz7_status fz7_gzip_open(fz7_archive *a, char *err, size_t errlen);
/* A gzip file arriving on fd (a pipe), read once forward: head (head_len
 * bytes, at least the first KiB unless the input is shorter) came from fd
 * already. The entry is named by the stored name, else name, else "~";
 * its size and the archive's phy_size are known after extraction
 * (info.piped). fd is not closed. FZ7_E_FORMAT (not gzip), FZ7_E_MEM. */
fz7_status fz7_gzip_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                              const fz7_open_opts *opts, fz7_archive **out, char *err, size_t errlen);
/* Zip, tar (plain or gz/bz2/xz/zstd/lz4-compressed), cpio, iso9660, rar,
 * rar5, cab, xar and lzh through libarchive (read only). */
fz7_status fz7_libarchive_open(fz7_archive *a, char *err, size_t errlen);
/* One bzip2, zstd, lz4 or compress file arriving on fd, which need not
 * seek (a pipe: -si), for one forward pass: head (head_len bytes) was read
 * from fd already. The one entry is named name, else "~"; its size
 * and the archive's phy_size are known only after fz7_archive_extract,
 * which can run once (info.piped). fd is not closed. Errors: FZ7_E_FORMAT
 * (no such file: err empty), FZ7_E_IO, FZ7_E_MEM. */
fz7_status fz7_libarchive_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                                    const fz7_open_opts *opts, fz7_archive **out, char *err,
                                    size_t errlen);

/* Switches this thread to a UTF-8 LC_CTYPE around libarchive calls, so
 * names convert as UTF-8 whatever the process locale; returns what
 * fz7_la_utf8_leave restores ((locale_t)0: nothing changed). */
locale_t fz7_la_utf8_enter(void);
void fz7_la_utf8_leave(locale_t old);

struct archive;
struct archive_entry;
/* A libarchive entry's path as fz7 lists it: UTF-8 where libarchive can
 * convert, without the trailing '/' of directories (malloc'd; NULL: no
 * memory). */
char *fz7_la_entry_path(struct archive_entry *ae);
/* A folder named "/" (an absolute root), or an ISO image's root: not
 * listed and not extracted. The "./" that `tar -C dir .` stores is an
 * entry, ".", as 7-Zip lists it; extracting it makes the output folder,
 * which is there already. ar is the reader ae came from. */
bool fz7_la_is_root_folder(struct archive *ar, struct archive_entry *ae);

/* What `l -slt` lists of a zip entry, from its central directory record
 * (APPNOTE.TXT 4.3.12). */
typedef struct fz7_zip_rec {
    uint64_t size, offset;  /* unpacked bytes; the local header's offset in
                               the file (a prefix's bytes counted; in its
                               disk when the zip spans files) */
    uint64_t at;            /* where the local header is in the byte space */
    char *comment;          /* the entry's comment, or NULL */
    int64_t ctime, atime;   /* an NTFS field's, when has_ctime / has_atime */
    uint32_t ctime_nsec, atime_nsec;
    bool has_ctime, has_atime;
    uint32_t crc, disk;
    uint16_t flags, method, made_by, needed;
    uint16_t aes_method;    /* with aes: the method under the encryption */
    uint8_t aes_strength;   /* 1, 2, 3: AES-128, -192, -256 */
    bool aes, matched;      /* matched: the record was found */
    char *la_path;          /* libarchive's name of the entry where it is
                               not the record's bytes (NFC of an NFD name),
                               the entry's path now being the bytes; else
                               NULL */
    char extras[40];        /* the extra fields 7-Zip names ("NTFS",
                               "UT:MA:1 ux", "WzAES") */
} fz7_zip_rec;

/* The central directory's offset and length in the zip of size bytes in
 * v, from the end records (zip64's when the classic ones overflow), the
 * archive's comment (malloc'd, or NULL; comment may be NULL), and in
 * *shift (may be NULL) what to add to the offsets the records give: the
 * bytes before the zip (a self-extractor's), and in *tail_size (may be
 * NULL) the bytes after its end record and comment (7-Zip's tail: a
 * record is taken there only when its directory starts with a directory
 * record). False when there is none. */
bool fz7_zip_find_directory(const fz7_volumes *v, uint64_t size, uint64_t *cd_off, uint64_t *cd_len,
                            char **comment, uint64_t *shift, uint64_t *tail_size);

/* Whether the zip of size bytes in v is the last part of a set split
 * across disks (.z01, .z02, ..., .zip: its end record's disk numbers are
 * not 0) that was opened alone. */
bool fz7_zip_spans_disks(const fz7_volumes *v, uint64_t size);

/* The disks of a zip split across files (Info-ZIP's and WinZip's x.z01,
 * x.z02, ..., x.zip; APPNOTE.TXT 8.0) that path names by its last part
 * (v: its bytes) or by x.z01, opened in order as one byte space in
 * *disks; *named: the disk path is. The last part's end record gives
 * their number. FZ7_E_FORMAT
 * when path is no such zip; FZ7_E_TRUNCATED ("Missing volume: x.z03" in
 * err), FZ7_E_IO, FZ7_E_MEM as fz7_volumes_open_disks. */
fz7_status fz7_zip_open_disks(const char *path, const fz7_volumes *v, fz7_volumes **disks, size_t *named,
                              char *err, size_t errlen);

/* The entries of the zip of size bytes in v that the central directory
 * alone can list: its records whose local header lies at or past from
 * (libarchive, reading the local headers one after another, stopped
 * before them: a split zip's missing disk). *out gets *n_out entries
 * (paths malloc'd) and *recs_out their records (each matched, comments
 * malloc'd), both malloc'd; none when the directory cannot be read.
 * FZ7_E_MEM, FZ7_E_MEMLIMIT past mem_limit bytes. */
fz7_status fz7_zip_unlisted(const fz7_volumes *v, uint64_t size, uint64_t from, uint64_t mem_limit,
                            fz7_entry **out, fz7_zip_rec **recs_out, size_t *n_out);

/* The zip64 extra field's data (n bytes at x): the sizes and offset it
 * holds, each present only where the record's own field is all ones
 * (APPNOTE 4.5.3); the others are left as they are. */
void fz7_zip64_fields(const uint8_t *x, size_t n, uint64_t *size, uint64_t *packed, uint64_t *offset);

/* The local header's offset that a central directory record gives (h:
 * the record, its name and extra fields in the buffer): zip64's where the
 * field is all ones. */
uint64_t fz7_zip_record_local(const uint8_t *h);
/* The record's unpacked and packed sizes and its local header's offset,
 * zip64's where the fields are all ones. */
void fz7_zip_record_sizes(const uint8_t *h, uint64_t *size, uint64_t *packed, uint64_t *local);

/* A central directory record's place: its local header's offset, and
 * where the record starts in the directory. Sorted by the first (then the
 * second), records come in the order libarchive lists the entries. */
typedef struct fz7_zip_place {
    uint64_t local;
    uint64_t at;
} fz7_zip_place;
void fz7_zip_places_sort(fz7_zip_place *p, size_t n);

/* Reads the central directory of a zip (size bytes in v) whose entries
 * libarchive listed (count of them, in the order of their data), sets
 * *listed to the entries in the directory's order (count of them,
 * malloc'd) when that differs from the data's, else NULL, and sets
 * each entry's packed size, and its mtime from an NTFS extra field where
 * 7-Zip keeps its times to 100 ns, with its mtime_prec (entries come with
 * FZ7_MTIME_DOS): EXACT with an NTFS time, SECONDS with a UT one. With
 * recs_out, *recs_out gets count records (calloc'd; each comment malloc'd)
 * or NULL; *comment gets the archive's comment (malloc'd) or NULL;
 * *tail_size the bytes after the end record (fz7_zip_find_directory);
 * *stub the bytes before the zip that its offsets do not count (a
 * self-extractor's, 7-Zip's Offset; 0 for a zip split across files). A
 * directory over mem_limit bytes, or one that cannot be read, is passed
 * over (libarchive reports what is wrong with it). */
void fz7_zip_central(const fz7_volumes *v, uint64_t size, fz7_entry *entries, size_t count,
                     uint64_t mem_limit, fz7_zip_rec **recs_out, char **comment, uint32_t **listed,
                     uint64_t *tail_size, uint64_t *stub);

/* A time of a pax record: seconds since 1970-01-01 UTC, nanoseconds, and
 * the fraction's digits as stored (0-9; 7-Zip lists that many). */
typedef struct fz7_tar_time {
    int64_t sec;
    uint32_t nsec;
    uint8_t digits;
    bool set;
} fz7_tar_time;

/* fz7_tar_hdr.flags: the header kinds an entry was made of. */
enum {
    FZ7_TAR_GNU = 1, FZ7_TAR_POSIX = 2, FZ7_TAR_PREFIX = 4, FZ7_TAR_LONG_NAME = 8,
    FZ7_TAR_LONG_LINK = 16, FZ7_TAR_DEV_EMPTY = 32   /* no device numbers stored */
};
/* fz7_tar_hdr.pax: what a pax extended header gave the entry. */
enum {
    FZ7_TAR_PAX_HEADER = 1, FZ7_TAR_PAX_PATH = 2, FZ7_TAR_PAX_LINKPATH = 4, FZ7_TAR_PAX_SIZE = 8,
    FZ7_TAR_PAX_MTIME = 16, FZ7_TAR_PAX_ATIME = 32, FZ7_TAR_PAX_CTIME = 64,
    FZ7_TAR_PAX_UNSUPPORTED = 128   /* a record neither libarchive nor 7-Zip lists */
};

/* One entry header of a plain tar as stored (tar_headers.c). */
typedef struct fz7_tar_hdr {
    uint64_t packed;        /* its data in the archive, in whole 512-byte blocks */
    uint64_t pax_size;      /* the pax size record, with FZ7_TAR_PAX_SIZE */
    uint64_t dev_major, dev_minor;   /* unless FZ7_TAR_DEV_EMPTY */
    uint64_t uid, gid;
    char *user, *group;     /* names, pax's over the header's; NULL: none */
    fz7_tar_time time[3];   /* pax mtime, atime, ctime */
    char *comment;          /* with a pax header: its name, then each record
                               of the other kinds, each line ending in '\n' */
    char type;              /* the typeflag as stored */
    uint8_t magic[8];       /* the magic and version, unless GNU or POSIX */
    uint8_t flags;          /* FZ7_TAR_* */
    uint8_t pax;            /* FZ7_TAR_PAX_* */
    uint8_t pax_ids;        /* 1: a uid record, 2: a gid record */
    char *pax_path, *pax_linkpath;   /* pax path and linkpath records with
                                        bytes past ASCII, as stored (while
                                        read: fz7_tar_headers.raw takes them) */
} fz7_tar_hdr;

/* An entry's pax path or link target as stored, where libarchive gives it
 * in Unicode's composed form (NFC): "e" + U+0301 as U+00E9. */
typedef struct fz7_tar_raw_name {
    size_t header;          /* the entry header's index */
    uint64_t at;            /* where its headers begin (the first pax or GNU
                               record before it): libarchive's
                               archive_read_header_position */
    char *path, *linkpath;  /* either may be NULL */
} fz7_tar_raw_name;

typedef struct fz7_tar_headers {
    fz7_tar_hdr *h;         /* one per entry header, in the archive's order
                               (FZ7_DETAIL_PROPS), else NULL */
    uint64_t *packed;       /* their packed sizes alone (FZ7_DETAIL_PACKED) */
    size_t count;
    uint8_t pax_union;      /* the pax bits of all entries */
    uint8_t flags_union;    /* their FZ7_TAR_* flags */
    char *global;           /* the pax global headers as 7-Zip's archive
                               Comment shows them, or NULL */
    uint64_t global_bytes;  /* those headers with their records (7-Zip
                               counts them out of its Headers Size) */
    fz7_tar_raw_name *raw;  /* every kept level: the entries whose pax
                               names pass ASCII, in header order */
    size_t raw_count;
    uint64_t *span;         /* every kept level: per entry header, where its
                               headers begin and where its data's last
                               block ends, past size for an entry cut short
                               (2 x count offsets) */
    uint64_t end;           /* past the end blocks and the whole zero
                               blocks after them (7-Zip's Physical Size:
                               what follows is a tail); 0 when the walk
                               did not reach the end blocks */
} fz7_tar_headers;

/* Reads the headers of the plain tar of size bytes in v (POSIX.1-2001
 * ustar/pax, GNU tar's long names): count entry headers ('L', 'K', 'x'
 * and 'g' records go to the entry after them or to global), kept as keep
 * says: each a fz7_tar_hdr (PROPS), its packed size (PACKED) or only
 * counted (NONE). Stops at the end blocks or at a truncated entry.
 * FZ7_E_FORMAT for a bad checksum or record set over 1 MiB,
 * FZ7_E_MEMLIMIT past mem_limit bytes of headers; on error *out is empty. */
fz7_status fz7_tar_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit,
                                fz7_detail keep, fz7_tar_headers *out);
void fz7_tar_headers_free(fz7_tar_headers *t);

/* What a cabinet's own headers say beyond libarchive's entries
 * (cab_headers.c). */
typedef struct fz7_cab_file {
    uint16_t folder;        /* iFolder: the folder (7-Zip's Block) holding it */
    uint16_t attribs;       /* its attributes (read-only, hidden, system, archive...) */
} fz7_cab_file;

typedef struct fz7_cab_headers {
    uint16_t *folder_type;  /* per folder its typeCompress */
    size_t folders;
    fz7_cab_file *files;    /* per CFFILE record, in the file's order */
    size_t count;
    uint32_t cabinet_size;  /* cbCabinet: the cabinet's bytes as its header says */
    uint16_t set_id, cabinet_index;
    char method[64];        /* the folders' methods as 7-Zip's Method line */
} fz7_cab_headers;

/* Reads the CFHEADER, CFFOLDER and CFFILE records of the cabinet of size
 * bytes in v. FZ7_E_FORMAT when they do not read (then *out is empty),
 * FZ7_E_MEM. Free with fz7_cab_headers_free. */
fz7_status fz7_cab_headers_read(const fz7_volumes *v, uint64_t size, fz7_cab_headers *out);
void fz7_cab_headers_free(fz7_cab_headers *c);

/* A cabinet entry's `l -slt` lines in 7-Zip's order (e the entry
 * libarchive listed, c's record i its CFFILE). */
size_t fz7_cab_props(const fz7_entry *e, const fz7_cab_headers *c, size_t i, fz7_prop *pr, char *buf, size_t cap);

/* A span of a xar TOC's XML (xar_headers.c): the text as stored,
 * entities not decoded; len 0: none. */
typedef struct fz7_xar_text {
    uint32_t at, len;
} fz7_xar_text;

/* One <file> of a xar TOC, in the TOC's order (a folder before its files). */
typedef struct fz7_xar_file {
    size_t parent;          /* its folder's index, or SIZE_MAX */
    char *path;             /* the names from the top, '/'-separated, decoded */
    fz7_xar_text id, name, type, link, mode, uid, gid, user, group, inode;
    fz7_xar_text time[3];   /* mtime, ctime, atime */
    fz7_xar_text encoding, archived_style, extracted_style, extracted_sum;
    uint64_t length, offset, size;   /* <data>: packed bytes, where in the
                               heap, unpacked bytes */
    bool has_data;          /* it has a <data> element */
} fz7_xar_file;

typedef struct fz7_xar_headers {
    uint8_t *toc;           /* the TOC's XML, inflated (7-Zip's [TOC].xml) */
    size_t toc_size;
    fz7_xar_file *files;
    size_t count;
    uint16_t header_size;
    uint64_t toc_packed;    /* the TOC's zlib bytes after the header */
    uint32_t checksum_alg;  /* the header's: 0 none, 1 SHA-1, 2 MD5 */
    uint64_t heap_end;      /* past the last data (or the TOC's checksum) in
                               the heap, which follows the TOC */
    fz7_xar_text created;   /* <creation-time> */
    char method[8];         /* 7-Zip's Method line: NONE, SHA1, MD5 or "" */
} fz7_xar_headers;

/* Reads the header and TOC of the xar archive of size bytes in v (the TOC
 * up to mem_limit bytes inflated). FZ7_E_FORMAT when it is not one or its
 * TOC does not inflate or parse, FZ7_E_MEMLIMIT, FZ7_E_MEM; then *out is
 * empty. Free with fz7_xar_headers_free. */
fz7_status fz7_xar_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit, fz7_xar_headers *out);
void fz7_xar_headers_free(fz7_xar_headers *x);

/* A TOC time s as seconds since 1970-01-01 UTC: only the form 7-Zip
 * takes, "YYYY-MM-DDThh:mm:ssZ". False for any other text. */
bool fz7_xar_time(const fz7_xar_headers *x, fz7_xar_text s, int64_t *sec);

/* Whether the data of x's file i can be read: its encoding one libarchive
 * decodes and its checksums' styles known, with digests of their length
 * (7-Zip's "Unsupported Method" otherwise). */
bool fz7_xar_supported(const fz7_xar_headers *x, size_t i);

/* A xar entry's `l -slt` lines in 7-Zip's order (e the entry, x's file i
 * its <file>; i past x->count: the [TOC].xml entry, blank lines). */
size_t fz7_xar_props(const fz7_entry *e, const fz7_xar_headers *x, size_t i, fz7_prop *pr, char *buf, size_t cap);

/* One LHA entry header as stored (lzh_headers.c). */
typedef struct fz7_lzh_header {
    uint64_t offset;        /* where the header starts in the file */
    uint64_t packed;        /* its data's bytes (level 1: without the
                               extension headers its skip size counts) */
    uint64_t size;          /* the original size field */
    uint16_t crc;           /* CRC-16 of the original data */
    uint8_t os;             /* host OS byte (level 0 has none: 0) */
    uint8_t level;          /* header level, 0 to 2 */
    char method[6];         /* its five method bytes ("-lh5-"), NUL-ended */
} fz7_lzh_header;

typedef struct fz7_lzh_headers {
    fz7_lzh_header *h;      /* in the file's order */
    size_t count;
    uint64_t end;           /* 7-Zip's Physical Size: past the end mark (and
                               what 7-Zip takes after it), the file's end
                               when it has none or is cut, else the header
                               that did not read */
    bool end_mark;          /* the walk ended on the 0 end mark */
    bool cut;               /* the last header or its data runs past the file */
    bool headers_error;     /* a header that does not read ended the walk */
} fz7_lzh_headers;

/* Walks the LHA headers (levels 0-2) of the size bytes in v from offset
 * 0. FZ7_OK with at least one header; FZ7_E_FORMAT when the first is no
 * LHA header (headers_error set when it looked like one but did not read,
 * level 3 too, which 7-Zip does not read), FZ7_E_MEMLIMIT when the list
 * passes mem_limit bytes, FZ7_E_MEM, FZ7_E_IO; on error *out is empty but
 * for headers_error. Free with fz7_lzh_headers_free. */
fz7_status fz7_lzh_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit, fz7_lzh_headers *out);
void fz7_lzh_headers_free(fz7_lzh_headers *l);

/* An LHA entry's `l -slt` lines in 7-Zip's order (e the entry libarchive
 * listed, h its header): Path, Folder, Size, Packed Size, Modified, CRC,
 * Method, Host OS. */
size_t fz7_lzh_props(const fz7_entry *e, const fz7_lzh_header *h, fz7_prop *pr, char *buf, size_t cap);

/* One entry header of a cpio archive as stored (cpio_headers.c). */
typedef struct fz7_cpio_hdr {
    uint64_t packed;        /* its data in the archive, with newc's padding */
    uint64_t offset;        /* where its data starts */
    uint64_t ino, nlink, uid, gid;
    uint64_t dev_major, dev_minor;    /* the file system it came from */
    uint64_t rdev_major, rdev_minor;  /* a device file's own numbers */
    uint32_t mode;          /* st_mode as stored */
    uint32_t check;         /* "crc" form: the sum of the data's bytes mod 2^32 */
    bool has_check;         /* the header is of the "crc" form (070702) */
} fz7_cpio_hdr;

typedef struct fz7_cpio_headers {
    fz7_cpio_hdr *h;        /* one per entry, in the archive's order
                               (FZ7_DETAIL_PROPS), else NULL */
    uint64_t *packed;       /* their packed sizes alone (FZ7_DETAIL_PACKED) */
    uint32_t *check;        /* per entry its data's byte sum, whatever keep
                               says, when every header is of the "crc" form;
                               else NULL */
    size_t count;
    const char *sub_type;   /* 7-Zip's SubType: "New ASCII", "New CRC",
                               "Portable ASCII" */
    uint64_t cut_end;       /* the file ends inside an entry's data: where
                               that entry would end (7-Zip's Physical
                               Size), else 0 */
} fz7_cpio_headers;

/* Reads the headers of the cpio archive of size bytes in v (newc, crc or
 * odc; up to its TRAILER!!! entry), kept as keep says (as
 * fz7_tar_headers_read). A file cut short gives the headers before the
 * cut, an entry whose data it cuts among them (then out->cut_end).
 * FZ7_E_FORMAT for a binary cpio or a bad header, FZ7_E_MEMLIMIT past
 * mem_limit bytes of headers; on error *out is empty. Free out->h,
 * out->packed and out->check. */
fz7_status fz7_cpio_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit,
                                 fz7_detail keep, fz7_cpio_headers *out);

/* A cpio entry's `l -slt` lines in 7-Zip's order (e the entry libarchive
 * listed, c its header, link its symlink target or NULL, stream the index
 * of the entry holding its data). */
size_t fz7_cpio_props(const fz7_entry *e, const fz7_cpio_hdr *c, const char *link, size_t stream,
                      fz7_prop *pr, char *buf, size_t cap);

/* What a gzip file's header and last trailer say (RFC 1952 2.3). */
typedef struct fz7_gzip_info {
    char *name;             /* FNAME as UTF-8 (Latin-1 converted when it is
                               not UTF-8), malloc'd, or NULL */
    uint32_t mtime, crc;    /* mtime 0: none stored */
    uint32_t isize;         /* the data's size modulo 2^32 */
    uint64_t header_size;
    uint8_t os;             /* the OS byte */
    bool has_trailer;       /* crc and isize were read */
} fz7_gzip_info;

/* Reads a gzip header from its first n bytes h (at most 1 KiB is
 * needed): name, mtime, header_size, os (file_headers.c). False when h is
 * not gzip or its names reach past n. */
bool fz7_gzip_header_parse(const uint8_t *h, size_t n, fz7_gzip_info *out);

/* Reads the header and last trailer of the gzip file of size bytes in v
 * (file_headers.c). False when it is not gzip, or its names reach past
 * the first KiB. */
bool fz7_gzip_header(const fz7_volumes *v, uint64_t size, fz7_gzip_info *out);

/* 7-Zip's Method line of a zstd frame header (h, n bytes, the file's
 * first): "" when h is not one. */
void fz7_zstd_method(const uint8_t *h, size_t n, char *out, size_t cap);

/* An ISO 9660 image's primary volume descriptor (size bytes in v) as
 * 7-Zip's archive block shows it: the Comment (its identifiers unless
 * the image has Joliet names, and its sizes) into comment (cap bytes),
 * its Created and Modified times into times; *joliet: it has them (then
 * 7-Zip reads those, and no Rock Ridge); *space: the volume's bytes as its
 * descriptor counts them. False when sector 16 holds none. */
bool fz7_iso_volume(const fz7_volumes *v, uint64_t size, char *comment, size_t cap, fz7_prop times[2],
                    bool *joliet, uint64_t *space);

/* An ISO 9660 image's entries (count of them) in the order 7-Zip lists
 * them: each folder's records sorted by name, a folder's contents right
 * after it (ECMA-119 9.3; Joliet's names sort by their code points, as
 * UTF-8 bytes do). A malloc'd array of count indices, NULL when that is
 * the order they are in or memory is short. */
uint32_t *fz7_iso_order(const fz7_entry *entries, size_t count);

/* What `l -slt` lists of an ISO 9660 entry, as 7-Zip does: Folder, Size
 * and Packed Size (blank for a folder), Modified to the second, Mode and
 * Symbolic Link (Rock Ridge's; blank without rr). link: a symlink's
 * target or NULL. */
size_t fz7_iso_props(const fz7_entry *e, const char *link, bool rr, fz7_prop *pr, char *buf, size_t cap);

/* Makes room for one more item in *items (count of them, *cap allocated,
 * each size bytes): doubles *cap from first. FZ7_E_MEMLIMIT when the
 * array would pass mem_limit bytes, FZ7_E_MEM; *items is kept either way. */
fz7_status fz7_grow(void **items, size_t count, size_t *cap, size_t size, size_t first,
                    uint64_t mem_limit);

/* An own reader's end of entry i in extract: r is what reading its data
 * gave, cb_failed whether a callback of cb failed. True when extraction
 * stops there (*st = r; FZ7_E_IO also puts "Read error" in err); else
 * *st is cb->end's answer, told `why` r failed (NULL: no reason). */
bool fz7_entry_done(const fz7_extract_cb *cb, size_t i, fz7_status r, bool cb_failed, const char *why, char *err,
                    size_t errlen, fz7_status *st);

/* The path of a new entry name (len bytes) in folder parent (an index
 * into a->entries, -1: the root): "parent's path/name", malloc'ed into
 * *path. *budget counts the bytes of the paths made so far: past a
 * quarter of the memory limit FZ7_E_MEMLIMIT (a crafted tree of deep
 * folders must not take the memory); FZ7_E_MEM. */
fz7_status fz7_child_path(const fz7_archive *a, long parent, const void *name, size_t len, uint64_t *budget,
                          char **path);

/* UTF-16 units (up to a 0 unit, at most n) as UTF-8 into out (room for 3
 * bytes per unit and one more); a lone surrogate is written as its own 3
 * bytes, as 7-Zip writes it. Returns the length. */
size_t fz7_utf16_to_utf8(const uint16_t *u, size_t n, char *out);

/* Extract for readers whose entries are each one run of the file's bytes
 * (partitions of a disk image): entry i's e->size bytes from
 * offset_of(a, i). Bytes past the end of the file end that entry with
 * FZ7_E_TRUNCATED (7-Zip's "Unexpected end of data"). */
fz7_status fz7_extract_slices(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                              uint64_t (*offset_of)(const fz7_archive *a, size_t i), char *err, size_t errlen);

/* Whether h (512 bytes) is a FAT boot sector fz7_fat_open would take:
 * what 7-Zip checks to name a partition ".fat". */
bool fz7_fat_boot_sector(const uint8_t *h);

/* The largest code point of UTF-8 text s (a byte that starts no sequence
 * counts as itself): 7-Zip's MaxUnicode of a tar. */
uint32_t fz7_max_code_point(const char *s);
/* Whether s (NUL-terminated) is well-formed UTF-8: no overlong forms,
 * surrogates or code points past U+10FFFF (RFC 3629). */
bool fz7_utf8_valid(const char *s);

/* Helpers of the formats' fz7_archive_entry_props. fz7_prop_put appends
 * a formatted value to buf (cap bytes, *used of them taken) and returns
 * it ("" when buf is full); fz7_prop_text and fz7_prop_time add props[*n]
 * (a NULL value lists blank; a time not set lists blank). */
const char *fz7_prop_put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void fz7_prop_text(fz7_prop *pr, size_t *n, const char *name, const char *value);
void fz7_prop_time(fz7_prop *pr, size_t *n, const char *name, bool set, int64_t sec, uint32_t nsec,
                   int digits);

/* A tar entry's `l -slt` lines after Path, in 7-Zip's order (e the entry
 * libarchive listed, h its header, link its link target or NULL). */
size_t fz7_tar_props(const fz7_entry *e, const fz7_tar_hdr *h, const char *link, fz7_prop *pr,
                     char *buf, size_t cap);
/* The name 7-Zip gives a zip's host system (APPNOTE 4.4.2.2) or a gzip
 * member's OS byte, or NULL for a number it has no name for. */
const char *fz7_host_os_name(unsigned host);

/* A zip entry's, from its central directory record r. */
size_t fz7_zip_props(const fz7_entry *e, const fz7_zip_rec *r, fz7_prop *pr, char *buf, size_t cap);

/* Makes a, an .xz file whose index or footer could not be read, one that
 * is decoded in one forward pass from offset 0 of a->vol, through every
 * volume (xz_stream.c): one entry named after the file without sizes,
 * info.sizes_unknown, method as given (copied; the first block's filters).
 * FZ7_E_MEM. */
fz7_status fz7_xz_stream_attach(fz7_archive *a, const char *method);

/* The one-entry readers' (lzma_alone.c, lzip_read.c) data path: reads
 * dec until it ends or fails, handing cb->data chunks of up to cap bytes
 * of buf (what was decoded before an error still goes out). Adds the
 * bytes to *produced and, if crc is not NULL, to the CRC32 *crc. Returns
 * dec's status, or the callback's with *cb_failed set. */
fz7_status fz7_pump_decoded(fz7_istream *dec, const fz7_extract_cb *cb, uint8_t *buf, size_t cap,
                            uint64_t *produced, uint32_t *crc, bool *cb_failed);

/* Ends such an entry: a read or memory error goes to err ("Read error",
 * "Out of memory") and is returned as it is; anything else is passed to
 * cb->end with detail (NULL when st is FZ7_OK). */
fz7_status fz7_end_one(const fz7_extract_cb *cb, fz7_status st, const char *detail, char *err, size_t errlen);

/* The name the one entry of a compressed file gets: the archive's base
 * name without a volume number (".001") and its .xz/.lzma/.gz/.bz2/.zst/
 * .lz4/.Z suffix (.txz, .tgz, .tbz2, .tzst -> .tar), as 7-Zip names it;
 * with no known suffix, the name without its last extension, or the name
 * and "~" when it has none, so it never equals the archive's name. */
char *fz7_strip_compressed_suffix(const char *archive_path);

/* The one entry of a compressed file (xz, .lzma, .lz), zeroed but for its
 * path (fz7_strip_compressed_suffix of the archive's). NULL when out of
 * memory; the caller frees entry and path. */
fz7_entry *fz7_single_entry_new(const fz7_archive *a);

/* A dictionary size in bytes as 7-Zip prints it in method names: "24" for
 * 2^24, else "192k", "3m" or "<n>b". Writes at most cap bytes to out. */
void fz7_dict_name(uint64_t bytes, char *out, size_t cap);

#endif
