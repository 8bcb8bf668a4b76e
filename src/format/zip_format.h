/* zip_format.h - the numbers of the zip format (PKWARE's APPNOTE.TXT
 * 6.3.10) that fz7's zip code reads and writes: record signatures and
 * fixed lengths, general purpose flags, methods, extra field IDs and the
 * external attributes' DOS bits. */
#ifndef FZ7_ZIP_FORMAT_H
#define FZ7_ZIP_FORMAT_H

/* Record signatures (4.3) and the records' fixed parts. */
#define ZIP_LFH_SIG 0x04034b50u         /* local file header */
#define ZIP_CDH_SIG 0x02014b50u         /* central directory header */
#define ZIP_DD_SIG 0x08074b50u          /* data descriptor (optional) */
#define ZIP_SPAN_SIG 0x08074b50u        /* the same at the start of a split zip (APPNOTE 8.5.3) */
#define ZIP_EOCD_SIG 0x06054b50u        /* end of central directory */
#define ZIP_EOCD64_SIG 0x06064b50u      /* zip64 end of central directory */
#define ZIP_EOCD64_LOC_SIG 0x07064b50u  /* its locator */
#define ZIP_LFH_LEN 30u
#define ZIP_CDH_LEN 46u
#define ZIP_EOCD_LEN 22u
#define ZIP_EOCD64_LEN 56u
#define ZIP_EOCD64_LOC_LEN 20u

/* General purpose flags (4.4.4). */
#define ZIP_FLAG_ENCRYPTED 0x0001u
#define ZIP_FLAG_LZMA_EOS 0x0002u       /* LZMA: the stream ends with its end marker */
#define ZIP_FLAG_DESCRIPTOR 0x0008u     /* sizes and CRC in a data descriptor */
#define ZIP_FLAG_UTF8 0x0800u           /* name and comment in UTF-8 */

/* Compression methods (4.4.5); 99 is WinZip AES's wrapper. */
#define ZIP_METHOD_STORE 0u
#define ZIP_METHOD_DEFLATE 8u
#define ZIP_METHOD_DEFLATE64 9u
#define ZIP_METHOD_BZIP2 12u
#define ZIP_METHOD_LZMA 14u
#define ZIP_METHOD_XZ 95u
#define ZIP_METHOD_PPMD 98u           /* PPMd var.I rev.1 */
#define ZIP_METHOD_AES 99u

/* Extra field IDs (4.5, 4.6). */
#define ZIP_EXTRA_ZIP64 0x0001u
#define ZIP_EXTRA_NTFS 0x000au
#define ZIP_EXTRA_UT 0x5455u            /* extended timestamp */
#define ZIP_EXTRA_UX 0x7875u            /* Info-ZIP Unix uid/gid */
#define ZIP_EXTRA_AES 0x9901u
#define ZIP_EXTRA_UPATH 0x7075u         /* Info-ZIP Unicode Path: version, CRC32 of the name field, UTF-8 name */

/* "Version made by" hosts (4.4.2) and the external attributes' low half
 * (DOS) with 7-Zip's mark that the high half holds a Unix mode. */
#define ZIP_HOST_UNIX 3u
#define ZIP_ATTR_DIRECTORY 0x10u
#define ZIP_ATTR_UNIX_EXTENSION 0x8000u

#endif
