/* la_write.h - tar, zip, gzip and bzip2 output: the formats fz7 writes
 * besides its own 7z and xz. tar and bzip2 go through libarchive's
 * writers (bzip2 on its libbz2); a zip is fz7's own writer (zip_write.c)
 * and a gzip file fz7's own Deflate stream in the RFC 1952 wrapper, so fz7
 * itself links no zlib. gzip and bzip2 hold one file; tar and zip hold a
 * tree. */
#ifndef FZ7_LA_WRITE_H
#define FZ7_LA_WRITE_H

#include "codec/codec.h"
#include "fz7_common.h"

#include <stdbool.h>

typedef enum fz7_la_kind { FZ7_LA_TAR, FZ7_LA_ZIP, FZ7_LA_GZIP, FZ7_LA_BZIP2 } fz7_la_kind;

/* One entry's header. mode: st_mode with its S_IFMT bits (regular file,
 * directory or symlink); size: bytes of data to follow (0 for a directory
 * or symlink); link_target: a symlink's text, else NULL. */
typedef struct fz7_la_entry {
    const char *name;       /* UTF-8, '/'-separated, no trailing '/' */
    uint32_t mode;
    uint64_t size;
    int64_t mtime;
    uint32_t mtime_nsec;
    const char *link_target;
    bool owner_ids;         /* tar: uid and gid below go into the header
                               (else 0, as 7zz writes without -snoi) */
    uint32_t uid, gid;
    const char *uname, *gname;   /* tar: the owner's names, or NULL for none */
    const char *hardlink;   /* tar: the name of an earlier entry this regular
                               file is a hard link of (no data follows,
                               size 0), else NULL */
    int64_t ctime, atime;   /* zip with -mtc, -mta: st_ctime, st_atime */
    uint32_t ctime_nsec, atime_nsec;
    bool size_unknown;      /* zip: the size is known only at the data's end
                               (-si); the local header gets 64-bit sizes */
    uint64_t rdev;          /* a device's number (S_ISCHR, S_ISBLK modes); a tar
                               keeps FIFOs and devices as such, a socket as an
                               empty file (tar has no socket entry) */
    int data_fd;            /* zip: the regular file the data comes from,
                               read again with pread for ZipCrypto's check
                               byte and to store what Deflate did not
                               shrink; -1 when there is none */
} fz7_la_entry;

typedef struct fz7_la_writer fz7_la_writer;

/* A zip's encryption (-mem=): traditional PKWARE or WinZip AES (AE-2). */
typedef enum fz7_la_crypt {
    FZ7_LA_CRYPT_NONE,
    FZ7_LA_CRYPT_ZIPCRYPTO,
    FZ7_LA_CRYPT_AES128,
    FZ7_LA_CRYPT_AES192,
    FZ7_LA_CRYPT_AES256
} fz7_la_crypt;

/* A zip's method (-mm=). */
typedef enum fz7_zip_method {
    FZ7_ZIP_DEFLATE, FZ7_ZIP_COPY, FZ7_ZIP_DEFLATE64, FZ7_ZIP_BZIP2, FZ7_ZIP_LZMA, FZ7_ZIP_XZ, FZ7_ZIP_PPMD
} fz7_zip_method;

/* The field a zip's times go in (-mtp=): 7-Zip's NTFS field (100 ns; by
 * default), Info-ZIP's UT field (Unix seconds, the mtime alone: -mtp=1),
 * or none beside the header's DOS time (-mtp=2). */
typedef enum fz7_zip_time { FZ7_ZIP_TIME_NTFS, FZ7_ZIP_TIME_UNIX, FZ7_ZIP_TIME_DOS } fz7_zip_time;

/* What the -m switches of these formats ask of the writer (cli's
 * la_settings.c reads them as 7zz reads them). */
typedef struct fz7_la_opts {
    int level;                     /* -mx 0..9 (0: zip stored; gzip, bzip2 as 1) */
    fz7_deflate_enc_opts deflate;  /* gzip: fb=, mc=, pass=, a= (0: by level);
                                      its level field is set from level */
    int bzip2_block;               /* bzip2, zip's BZip2: d=, block size in 100 kB (1..9); 0 by level */
    fz7_zip_method zip_method;     /* zip: -mm= */
    uint32_t zip_dict;             /* zip's LZMA and xz: d=, the dictionary in bytes; 0 by level */
    /* zip's LZMA and xz: lc=, lp=, pb=, mf=, fb=, mc=, a= as
     * fz7_lzma_enc_parse_param takes them, the last of each name, applied
     * over the level's preset */
    char zip_lzma_params[7][24];
    unsigned n_zip_lzma_params;
    bool zip_lzma_no_eos;          /* zip's LZMA: eos=off, no end marker (nor its flag) */
    unsigned zip_ppmd_order;       /* zip's PPMd: o=, 2..16 (0: 3 + the level) */
    uint32_t zip_ppmd_mem;         /* zip's PPMd: mem=, whole MiB 1..256 (0: 2^(level-1) MiB) */
    uint64_t zip_largest;          /* bytes of the run's largest file (0: not known): zip's
                                      PPMd model shrinks to it, as 7zz's does */
    fz7_la_crypt crypt;            /* zip: the password's cipher */
    const char *password;          /* with crypt */
    bool no_mtime;                 /* -mtm=off: no modification time stored */
    bool zip_ctime, zip_atime;     /* -mtc=on, -mta=on: zip's NTFS times, a POSIX tar's pax records */
    fz7_zip_time zip_time_prec;    /* zip: -mtp=, which field holds the times */
    bool tar_posix;                /* tar: -mm=POSIX, ustar headers with pax records where
                                      needed (else GNU's, 7zz's default) */
    uint32_t tar_time_unit;        /* a POSIX tar's mtime in a pax record to this many ns
                                      (-mtp=0: 100, -mtp=3: 1); 0: whole seconds */
    bool zip_local_names;          /* zip: -mcl=on, names without the UTF-8 flag */
} fz7_la_opts;

/* Starts an archive of the given kind written to fd (not closed by the
 * writer). o: NULL for the defaults (-mx5). Errors: FZ7_E_MEM, FZ7_E_IO,
 * FZ7_E_ARG (an option libarchive refuses; message in err). */
fz7_status fz7_la_writer_new(int fd, fz7_la_kind kind, const fz7_la_opts *o, fz7_la_writer **out,
                             char *err, size_t errlen);

/* Starts an entry; its data follows through fz7_la_writer_write (exactly
 * e->size bytes for a regular file). */
fz7_status fz7_la_writer_begin(fz7_la_writer *w, const fz7_la_entry *e);
fz7_status fz7_la_writer_write(fz7_la_writer *w, const uint8_t *p, size_t n);

/* How an old entry is written again (fz7_la_writer_copy's callback). */
typedef struct fz7_la_copy_as {
    const char *name;       /* the name to write it under; NULL drops it */
    const char *link;       /* a tar hard link's target to write */
} fz7_la_copy_as;

/* What an update does with one old entry, asked by fz7_la_writer_copy.
 * index counts the entries as fz7_archive_open lists them (a root folder
 * entry such as "./" is not one: it is copied as it is, without a call);
 * path is the entry's path as listed there; hardlink is a tar hard link's
 * target, else NULL. The callback may write new entries into w first
 * (they go before this one) and fills *as, which comes set to drop the
 * entry, its link as it is and its time as it is. */
typedef fz7_status (*fz7_la_copy_fn)(void *ctx, fz7_la_writer *w, size_t index, const char *path,
                                     const char *hardlink, fz7_la_copy_as *as);

/* Copies the entries of the tar or zip at old_path that fn keeps, data
 * and every header field included, in their order. *kept_* count them.
 * Errors: FZ7_E_FORMAT (not a readable archive of this kind), FZ7_E_DATA,
 * FZ7_E_IO, FZ7_E_MEM, or fn's; message in the writer
 * (fz7_la_writer_error) for libarchive's. */
fz7_status fz7_la_writer_copy(fz7_la_writer *w, const char *old_path, fz7_la_copy_fn fn, void *ctx,
                              uint64_t *kept_dirs, uint64_t *kept_files, uint64_t *kept_bytes);

/* Ends the archive (tar's end blocks, zip's central directory, the
 * compressor's trailer). */
fz7_status fz7_la_writer_finish(fz7_la_writer *w);

/* Bytes written to the fd by the writer itself (after finish, a new
 * archive's size; old entries copied by fz7_la_writer_copy into a tar
 * are not counted). */
uint64_t fz7_la_writer_bytes(const fz7_la_writer *w);

/* libarchive's message for the last failure ("" when none). */
const char *fz7_la_writer_error(const fz7_la_writer *w);

void fz7_la_writer_free(fz7_la_writer *w);

#endif
