/* archive.h - reading archives: open by content (7z, xz, lzma), list the
 * entries, and extract or test them through callbacks.
 *
 * This is the whole interface cli/ sees of the containers. */
#ifndef FZ7_ARCHIVE_H
#define FZ7_ARCHIVE_H

#include "fz7_common.h"

#include <stdbool.h>

/* FZ7_FORMAT_OTHER: read through libarchive (zip, tar, cpio, iso, rar);
 * fz7_archive_info.type_name names it. */
typedef enum fz7_format { FZ7_FORMAT_7Z, FZ7_FORMAT_XZ, FZ7_FORMAT_LZMA, FZ7_FORMAT_OTHER } fz7_format;

/* What few entries of an archive have, kept beside the entries so that
 * an archive of many files does not pay for it in every entry. */
typedef struct fz7_entry_more {
    int64_t ctime, atime;  /* creation and last access (7z kCTime, kATime),
                              seconds since 1970-01-01 UTC, when the
                              entry's has_ctime / has_atime */
    uint32_t ctime_nsec, atime_nsec;
    size_t hardlink_index; /* when is_hardlink: the earlier regular file
                              (tar) holding the data */
    const char *hardlink_missing; /* a hard link (tar) whose target, this
                              name (owned by the archive), is no earlier
                              file: nothing to link to or copy; else NULL */
} fz7_entry_more;

/* One item of an archive (7zFormat.txt, FilesInfo). 72 bytes: an archive
 * keeps one per file. */
typedef struct fz7_entry {
    char *path;            /* UTF-8, '/'-separated as stored; never NULL */
    uint64_t size;         /* unpacked bytes */
    uint64_t packed_size;  /* the folder's pack bytes, on the folder's first
                              entry only (as 7-Zip lists it); else 0 */
    int64_t mtime;         /* seconds since 1970-01-01 UTC, when has_mtime */
    const char *method;    /* coders as 7-Zip names them ("LZMA2:24 BCJ"),
                              owned by the archive; "" when none */
    const fz7_entry_more *more; /* owned by the archive; NULL unless the
                              entry has a ctime or atime or is a tar hard
                              link (is_hardlink or a missing target) */
    uint32_t attrib;       /* Windows attributes; when bit 0x8000 is set the
                              high 16 bits are a Unix st_mode */
    uint32_t mode;         /* st_mode derived from attrib and kind: S_IFREG,
                              S_IFDIR or S_IFLNK with permission bits */
    uint32_t crc;          /* CRC32 of the data, when has_crc */
    uint32_t mtime_nsec;
    int32_t folder;        /* index of the folder (solid block) holding the
                              data, or -1 for entries without data */
    /* One bit each. */
    bool has_attrib : 1, has_crc : 1, has_mtime : 1, has_size : 1, has_ctime : 1, has_atime : 1;
    bool is_dir : 1, is_symlink : 1, is_anti : 1;
    bool has_stream : 1;   /* has data in a folder (empty files do not) */
    bool encrypted : 1;    /* its folder has a 7zAES coder */
    bool zip_aes : 1;      /* a zip entry under WinZip AES */
    bool packed_known : 1; /* packed_size is the entry's own (tar, zip),
                              listed even when 0 */
    bool is_hardlink : 1;  /* a hard link (tar) to the regular file at
                              more->hardlink_index, an earlier entry holding
                              the data */
    bool link_named : 1;   /* a tar or cpio link, which 7-Zip's x makes
                              from its header and leaves out of its Files
                              and Size lines */
    bool size_from_trailer : 1; /* size is a trailer's (gzip: the last
                              member's, modulo 2^32): x and e count the
                              bytes decoded instead, as 7-Zip does */
    unsigned mtime_prec : 2; /* what mtime can tell apart: FZ7_MTIME_* */
} fz7_entry;

/* An entry's mtime precision: 100 ns or finer (7z, a zip's NTFS time, a
 * pax tar's), whole seconds (tar, a zip's UT time), or a zip's DOS time
 * alone (2 s, which 7-Zip rounds up to an even second). */
enum { FZ7_MTIME_EXACT = 0, FZ7_MTIME_SECONDS = 1, FZ7_MTIME_DOS = 2 };

/* The most folders (and files) an archive's entries can index: folder is
 * an int32_t. Readers refuse archives with more. */
#define FZ7_MAX_FOLDERS ((uint64_t)INT32_MAX)

/* Archive-wide facts for `l` and `l -slt`. */
/* One line of an entry's `l -slt` block (or of the archive's) as its
 * format has it, with 7-Zip's name for it. A time when value is NULL. */
typedef struct fz7_prop {
    const char *name;       /* "Mode", "CRC", ... */
    const char *value;      /* UTF-8 ("" lists a blank value), or NULL */
    int64_t sec;            /* a time: seconds since 1970-01-01 UTC */
    uint32_t nsec;
    int8_t digits;          /* a time's fraction digits as 7-Zip lists
                               them (0-9), or -1: no time (blank) */
} fz7_prop;

typedef struct fz7_archive_info {
    fz7_format format;
    uint64_t phy_size;      /* bytes of the archive, from its start (offset)
                               to its end (tail_size bytes before the end
                               of the file) */
    uint64_t headers_size;  /* bytes of headers (7z; tar: all but the
                               entries' data blocks), or 0 */
    uint64_t num_blocks;    /* folders (7z), blocks (xz) */
    uint64_t num_streams;   /* xz streams; 0 for 7z */
    bool solid;             /* some folder holds more than one file */
    bool header_encrypted;
    const char *method;     /* union of the methods, 7-Zip style */
    const char *check;      /* xz check name ("CRC64"), or NULL */
    const char *type_name;  /* 7-Zip's "Type =" word ("zip", "tar"), or NULL
                               to name it by format */
    uint64_t offset;        /* where the archive starts in the file (behind
                               a self-extractor stub), else 0 */
    uint64_t volumes;       /* files read: 1, or the volumes of x.7z.001... */
    bool multivolume;       /* a zip split across files (x.z01, ..., x.zip),
                               read as one: 7-Zip's Multivolume lines */
    uint64_t volume_index;  /* with multivolume: the named file's disk */
    uint64_t volume_size;   /* with multivolume: the named file's bytes */
    uint64_t stub_size;     /* with multivolume: bytes before the first
                               entry (the split zip's marker), or 0 */
    uint64_t volumes_missing; /* with multivolume: the parts not there */
    bool open_error_prop;   /* open_error is 7-Zip's one-line "ERROR = "
                               property ("Missing volume : x.z02"), not
                               an "ERRORS:" block in the archive's lines */
    uint64_t tail_size;     /* bytes after the end of the archive (7z: past
                               its header), not part of phy_size; 7-Zip
                               warns "There are data after the end of
                               archive" */
    uint64_t cluster_size;  /* xz with several blocks: the largest block's
                               uncompressed size (7-Zip's "Cluster Size");
                               else 0 */
    const char *code_page;  /* 7-Zip's "Code Page = " value (tar), or NULL */
    const char *sub_type;   /* 7-Zip's "SubType = " value (cpio), or NULL */
    fz7_prop lines[4];      /* the format's own lines after Method (an rpm's
                               CPU and Host OS, a cabinet's Blocks, Volumes,
                               Volume Index, ID), each a value; name NULL:
                               none */
    const fz7_prop *block_lines; /* n_block_lines lines (owned by the
                               archive) that replace every line after
                               Headers Size, in the format's own order
                               (SquashFS: File System ... Code Page); else
                               NULL */
    size_t n_block_lines;
    fz7_prop times[2];      /* the volume's Created and Modified lines
                               after Comment (ISO 9660); name NULL: none */
    const char *comment;    /* the archive's comment (a tar's pax global
                               headers, as 7-Zip shows them), or NULL */
    const char *characteristics; /* 7-Zip's "Characteristics = " value, or
                               NULL (xz: "BlockPackSize BlockUnpackSize"
                               when first block headers carry sizes) */
    const char *open_error; /* opened with the entries before damage that
                               ends the archive (a tar or zip cut short:
                               "Unexpected end of archive"), else NULL;
                               7-Zip lists them under an ERRORS line, and
                               t/x extract them and exit 2 ("Open Errors") */
    const char *open_detail; /* fz7's own words on it ("Missing volume:
                               x.tar.003"), or NULL */
    const char *warning;    /* a warning of the format's own (7-Zip's
                               "WARNING = " line: an ar library's symbol
                               table that does not read), or NULL */
    uint64_t file_size;     /* bytes of the file, of all its volumes */
    bool headers_error;     /* opened in spite of a damaged header (7z: a
                               zeroed start header); 7-Zip warns "Headers
                               Error" and exits 0 */
    bool sizes_unknown;     /* the archive's extent is known only after
                               decoding (.lzma, a salvaged .xz): 7-Zip shows
                               no Physical Size and no packed sizes */
    const char *unopened_name, *unopened_type; /* a package whose payload
                               (an rpm's) does not open as the type its
                               name says ("gzip"): the payload's name and
                               that type; 7-Zip cannot open the package
                               then. Else NULL */
    bool no_size_is_empty;  /* an entry listed without a size holds no data
                               (a xar <file> without <data>): the totals
                               count it 0 rather than blank, as 7-Zip */
    bool zero_mtime_1601;   /* an entry without a time (a Compound file's
                               zero FILETIME) is extracted with that time,
                               1601-01-01, as 7-Zip does, not the archive's */
    bool piped;             /* read from a pipe in one forward pass (-si):
                               sizes and phy_size are known only after
                               fz7_archive_extract, which runs once */
} fz7_archive_info;

typedef struct fz7_archive fz7_archive;

/* FILETIME 0 (1601-01-01 00:00:00 UTC) in Unix seconds. */
#define FZ7_FILETIME_ZERO_UNIX (-11644473600LL)

/* err of fz7_archive_open with FZ7_E_UNSUPPORTED when the format is known
 * but not what it needs (a SquashFS compressor): 7-Zip's words for it. */
#define FZ7_E_NOTIMPL_TEXT "E_NOTIMPL : Not implemented"

/* What fz7_archive_open reads beyond the entries, for a listing. */
typedef enum fz7_detail {
    FZ7_DETAIL_NONE = 0,    /* x, t: nothing more */
    FZ7_DETAIL_PACKED,      /* l: each entry's packed size where a format
                               keeps it only in its headers (tar, cpio) */
    FZ7_DETAIL_PROPS        /* l -slt: and what fz7_archive_entry_props
                               lists (tar, zip, cpio) */
} fz7_detail;

/* Open options; zero-initialise and set what you need. */
typedef struct fz7_open_opts {
    const char *password;   /* UTF-8, or NULL */
    uint64_t mem_limit;     /* bytes; 0 means FZ7_DEFAULT_MEM_LIMIT */
    unsigned threads;       /* decoder threads for multi-block xz and
                               non-solid 7z (-mmt): 0 = every core, 1 = off */
    bool xz_salvage;        /* an .xz whose stream footer or index can not be
                               read but whose first stream header and block
                               header can opens anyway, as 7-Zip opens it:
                               one entry without sizes, info.sizes_unknown,
                               decoded in one forward pass that reports the
                               damage (off: FZ7_E_FORMAT / FZ7_E_CRC) */
    fz7_detail detail;      /* what a listing needs (costs memory per
                               entry that x and t do not spend) */
    bool split;             /* -tsplit: a first volume's set (x.001...) is
                               the one file it joins to, whatever it holds */
    const char *code_page;  /* a tar's info.code_page (-mcp), NULL: UTF-8 */
    bool owners;            /* keep each entry's owner ids where the format
                               has them (x -snoi): fz7_archive_entry_owner */
} fz7_open_opts;

/* Opens path, recognising the format by content: 7z, xz, lzma, ar (a .deb:
 * the archive in its data.tar.*, fz7_archive_outer), rpm (likewise its
 * payload; when that does not open, the package itself, with
 * info.unopened_name and unopened_type set), then what
 * libarchive reads (zip, tar and compressed tar, cpio, iso9660, rar), then a
 * 7z archive behind a self-extractor stub. A path naming a first volume
 * ("x.7z.001") is read together with x.7z.002, ... as one archive; when
 * no format knows the joined bytes (or opts->split), as 7-Zip's "Split"
 * type: one entry, the joined file, named without the number. On
 * failure returns the status and writes a one-line reason (without the
 * archive name) to err:
 * FZ7_E_FORMAT ("Cannot open the file as archive" or what was wrong),
 * FZ7_E_TRUNCATED ("Missing volume: x.7z.003", "Unexpected end of archive"),
 * FZ7_E_NEED_PASSWORD / FZ7_E_PASSWORD (encrypted headers), FZ7_E_IO,
 * FZ7_E_MEM, FZ7_E_MEMLIMIT, FZ7_E_UNSUPPORTED, FZ7_E_CRC (header CRC),
 * FZ7_E_TRUNCATED. */
fz7_status fz7_archive_open(const char *path, const fz7_open_opts *opts, fz7_archive **out,
                            char *err, size_t errlen);

/* Opens an xz file arriving on fd, which need not seek (a pipe: `-si`),
 * for one forward pass (pipe_open.c, xz_stream.c): streams, blocks, index and footer are
 * read in order and the index is checked against the blocks decoded. The
 * only entry is named name ("~" when NULL or empty, as 7-Zip names it); its
 * size and the archive's phy_size, num_blocks and num_streams are known
 * only after fz7_archive_extract, which can run once (info.piped). A gzip
 * file (gzip_read.c; its stored name names the entry) and a bzip2, zstd,
 * lz4 or compress file (libarchive) are read forward the same way; an lzip file is
 * spooled to a temporary file first (its sizes are in its trailers).
 * fd is not closed.
 * Errors: FZ7_E_FORMAT (none of these), FZ7_E_UNSUPPORTED (a 7z archive:
 * its headers are at the end), FZ7_E_IO, FZ7_E_MEM; err gets a one-line
 * reason. */
fz7_status fz7_archive_open_fd(int fd, const char *name, const fz7_open_opts *opts,
                               fz7_archive **out, char *err, size_t errlen);

void fz7_archive_close(fz7_archive *a);

/* The archive a was found inside, or NULL: fz7_archive_open opens a
 * .deb's data.tar.* member in place of the ar archive, as 7-Zip does, and
 * the ar archive stays readable here (owned by a) for its archive block
 * and, in *entry, the member's index. */
const fz7_archive *fz7_archive_outer(const fz7_archive *a, size_t *entry);
/* The archive the file itself is (a itself when a was not opened inside
 * another): a virtual disk's image around its partition table around a
 * file system. */
const fz7_archive *fz7_archive_outermost(const fz7_archive *a);

const fz7_archive_info *fz7_archive_get_info(const fz7_archive *a);

/* True when path names the first volume of a split archive ("x.7z.001"),
 * which fz7_archive_open reads with the volumes after it. */
bool fz7_archive_is_volume_name(const char *path);
size_t fz7_archive_count(const fz7_archive *a);
const fz7_entry *fz7_archive_entry(const fz7_archive *a, size_t i);
/* The index of the entry listed k-th (k < count): k, except in a zip whose
 * central directory names the entries in another order than their data
 * (7-Zip lists them in the directory's order; the entries and extraction
 * go in the data's). */
size_t fz7_archive_listed(const fz7_archive *a, size_t k);

#define FZ7_PROPS_MAX 24
/* Entry i's lines of `l -slt` (its Path line too, where the format has
 * one), in 7-Zip's order for its format, into props (FZ7_PROPS_MAX of them); numbers are written to
 * buf (cap bytes, 512 is enough), other strings are the archive's.
 * Returns how many; 0 when the format has none of its own (7z, xz, lzma,
 * and every format unless the archive was opened with FZ7_DETAIL_PROPS). */
size_t fz7_archive_entry_props(const fz7_archive *a, size_t i, fz7_prop *props, char *buf,
                               size_t cap);

/* 7-Zip's "Attributes = " value of e: the letters of its set Windows
 * bits (RHS8DAdNTsLCOIE, bits 0-14), then its Unix mode when the high 16
 * bits carry one (bit 15 says so), else any high bits in hex. */
void fz7_attrib_string(const fz7_entry *e, char *out, size_t cap);

/* "drwxr-xr-x" (or p, c, b, s, l, - first) from st_mode bits. */
void fz7_mode_string(uint32_t mode, char out[11]);

/* 7-Zip's order of paths: byte by byte with '/' before every other byte,
 * so a folder's contents come right after it ("d", "d/b", "d.txt");
 * negative, 0 or positive as strcmp. */
int fz7_path_cmp(const char *a, const char *b);

/* Callbacks of fz7_archive_extract. Returning anything but FZ7_OK from a
 * callback stops extraction with that status. */
typedef struct fz7_extract_cb {
    void *ctx;
    /* Before each selected entry, in archive order. */
    fz7_status (*begin)(void *ctx, size_t index, const fz7_entry *e);
    /* The entry's data, in order (none for directories and empty files). */
    fz7_status (*data)(void *ctx, const uint8_t *p, size_t n);
    /* After the entry: FZ7_OK, or its error (FZ7_E_CRC, FZ7_E_DATA,
     * FZ7_E_TRUNCATED, FZ7_E_UNSUPPORTED, FZ7_E_PASSWORD,
     * FZ7_E_NEED_PASSWORD, FZ7_E_MEMLIMIT); detail: a one-line reason, or
     * NULL. Entries after a damaged spot in the same folder get the error
     * too; other folders go on. */
    fz7_status (*end)(void *ctx, size_t index, fz7_status result, const char *detail);
    /* For an entry with is_hardlink, after begin(): true when the callback
     * made it a link to the file it wrote for entry target, so no data
     * follows; false (or hardlink NULL) delivers a copy of target's data. */
    bool (*hardlink)(void *ctx, size_t index, size_t target);
} fz7_extract_cb;

/* Decodes the selected entries (select: fz7_archive_count() flags, or NULL
 * for all) and checks every CRC and check. Returns FZ7_OK when it went
 * through every folder (per-entry errors go to end()), or a fatal status
 * (I/O, memory, or a callback's) with a reason in err. */
fz7_status fz7_archive_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                               char *err, size_t errlen);

/* Entry i's owner (uid, gid) as the archive stores it (tar, cpio), when
 * the archive was opened with opts.owners; false when it has none. */
bool fz7_archive_entry_owner(const fz7_archive *a, size_t i, uint32_t *uid, uint32_t *gid);

/* rn of a gzip file's one entry: copies the gzip file in_fd (size bytes)
 * to out_fd with its first member's stored name (FNAME, RFC 1952 2.3.1)
 * set to name, the flag set when it had none, the header CRC made again
 * when it has one; the data is copied as it is. FZ7_E_FORMAT when the
 * header is not gzip's or longer than 1 KiB, FZ7_E_IO, FZ7_E_TRUNCATED,
 * FZ7_E_MEM. */
fz7_status fz7_gzip_copy_renamed(int in_fd, uint64_t size, int out_fd, const char *name);

#endif
