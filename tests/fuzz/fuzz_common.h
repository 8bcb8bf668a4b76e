/* fuzz_common.h - what every libFuzzer harness of fz7 shares: draining a
 * pull stream, and opening + extracting a whole archive held in memory.
 *
 * Harnesses only check that nothing crashes, leaks or hangs; the status a
 * codec returns for garbage is its own business. */
#ifndef FZ7_FUZZ_COMMON_H
#define FZ7_FUZZ_COMMON_H

#include "format/archive.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Memory limit every harness gives the decoders (bytes): big enough for the
 * seed corpora, small enough that a hostile header is refused, not
 * allocated (libFuzzer's -rss_limit_mb catches the rest). */
#define FUZZ_MEM_LIMIT ((uint64_t)64 << 20)

/* Reads s to its end or first error; returns the status (never asserts). */
static inline fz7_status fuzz_drain(fz7_istream *s)
{
    static uint8_t buf[65536];
    size_t got;
    fz7_status st;
    while ((st = s->read(s, buf, sizeof buf, &got)) == FZ7_OK && got)
        ;
    return st;
}

/* Consumes a little-endian 16-bit number from the front of the input (0
 * when there are not enough bytes). */
static inline unsigned fuzz_take16(const uint8_t **p, size_t *n)
{
    if (*n < 2)
        return 0;
    unsigned v = fz7_get16le(*p);
    *p += 2, *n -= 2;
    return v;
}

static fz7_status fuzz_cb_begin(void *ctx, size_t i, const fz7_entry *e)
{
    (void)i, (void)e;
    ++*(uint64_t *)ctx;
    return FZ7_OK;
}
static fz7_status fuzz_cb_data(void *ctx, const uint8_t *p, size_t n)
{
    *(uint64_t *)ctx += n ? p[n - 1] : 0; /* touch the bytes (ASan sees them) */
    return FZ7_OK;
}
static fz7_status fuzz_cb_end(void *ctx, size_t i, fz7_status r, const char *detail)
{
    (void)ctx, (void)i, (void)r, (void)detail;
    return FZ7_OK;
}

/* Writes the input to a memfd (the archive API opens a path), opens it as
 * an archive with password, lists every entry and extracts all of them
 * through counting callbacks. */
static inline void fuzz_archive(const uint8_t *data, size_t size, const char *password)
{
    int fd = memfd_create("fz7-fuzz", MFD_CLOEXEC);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fz7_open_opts o = {.password = password, .mem_limit = FUZZ_MEM_LIMIT};
    fz7_archive *a;
    if (fz7_archive_open(path, &o, &a, err, sizeof err) == FZ7_OK) {
        uint64_t sum = 0;
        for (size_t i = 0; i < fz7_archive_count(a); i++)
            sum += strlen(fz7_archive_entry(a, i)->path) + fz7_archive_entry(a, i)->size;
        fz7_extract_cb cb = {&sum, fuzz_cb_begin, fuzz_cb_data, fuzz_cb_end};
        fz7_archive_extract(a, NULL, &cb, err, sizeof err);
        fz7_archive_close(a);
    }
    close(fd);
    /* The 7zAES key cache has a fixed number of slots: keeping it makes
     * mutations of one encrypted seed skip the 2^19-round KDF. */
}

#endif
