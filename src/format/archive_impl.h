/* archive_impl.h - what each container reader (7z, xz, lzma) provides to
 * archive.c. Not for cli/. */
#ifndef FZ7_ARCHIVE_IMPL_H
#define FZ7_ARCHIVE_IMPL_H

#include "format/archive.h"
#include "format/file_io.h"

#include <locale.h>
#include <stdio.h>

typedef struct fz7_archive_ops {
    fz7_status (*extract)(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                          char *err, size_t errlen);
    void (*close)(fz7_archive *a);   /* frees the format's own data */
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
    int fd;                /* the (first volume's) file; owned by vol */
    uint64_t file_size;    /* bytes of all volumes */
    fz7_volumes *vol;      /* the archive's bytes, closed by archive.c;
                              readers of split archives read through it */
    fz7_open_opts opts;    /* mem_limit filled in; password not copied */
    const char *path;      /* as given to fz7_archive_open */
    void *priv;            /* the format's own data */
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
/* Zip, tar (plain or gz/bz2/xz/zstd/lz4-compressed), cpio, iso9660, rar
 * and rar5 through libarchive (read only). */
fz7_status fz7_libarchive_open(fz7_archive *a, char *err, size_t errlen);

/* Switches this thread to a UTF-8 LC_CTYPE around libarchive calls, so
 * names convert as UTF-8 whatever the process locale; returns what
 * fz7_la_utf8_leave restores ((locale_t)0: nothing changed). */
locale_t fz7_la_utf8_enter(void);
void fz7_la_utf8_leave(locale_t old);

struct archive_entry;
/* A libarchive entry's path as fz7 lists it: UTF-8 where libarchive can
 * convert, without the trailing '/' of directories (malloc'd; NULL: no
 * memory). */
char *fz7_la_entry_path(struct archive_entry *ae);
/* The archive's own top folder ("./" as `tar -C dir .` stores it): not
 * listed and not extracted, since it names the output folder itself. */
bool fz7_la_is_root_folder(struct archive_entry *ae);

/* Sets the mtime of a zip's entries (count of them, as libarchive listed
 * them from the archive of size bytes in v) from the NTFS extra fields of
 * its central directory (zip_ntfs.c), where 7-Zip keeps its times to
 * 100 ns, and their mtime_prec (entries come with FZ7_MTIME_DOS): EXACT
 * with an NTFS time, SECONDS with a UT one. A directory over mem_limit
 * bytes, or one that cannot be read, is passed over (libarchive reports
 * what is wrong with it). */
void fz7_zip_ntfs_times(const fz7_volumes *v, uint64_t size, fz7_entry *entries, size_t count,
                        uint64_t mem_limit);

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
