/* split_read.c - a set of volumes (x.001, x.002, ...) read as the one file
 * they join to, 7-Zip's "Split" type: what -tsplit asks for, and what a
 * first volume opens as when no format knows the joined bytes (a file cut
 * with split(1) or 7-Zip's -v). One entry, named after the first volume
 * without its number, holding every volume's bytes in order. */
#include "format/archive_impl.h"
#include "format/file_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SPLIT_CHUNK ((size_t)1 << 20)

static fz7_status split_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err,
                                size_t errlen)
{
    if (select && !select[0])
        return FZ7_OK;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    uint8_t *buf = malloc(SPLIT_CHUNK);
    if (!buf)
        return FZ7_E_MEM;
    bool cb_failed = false;
    for (uint64_t at = 0; st == FZ7_OK && at < a->file_size;) {
        size_t n = a->file_size - at < SPLIT_CHUNK ? (size_t)(a->file_size - at) : SPLIT_CHUNK;
        st = fz7_volumes_pread(a->vol, buf, n, at);
        if (st == FZ7_OK && (st = cb->data(cb->ctx, buf, n)) != FZ7_OK)
            cb_failed = true;
        at += n;
    }
    free(buf);
    if (cb_failed)
        return st;
    return fz7_end_one(cb, st, NULL, err, errlen);
}

/* `l -slt`: 7-Zip shows the joined file's name and size alone. */
static size_t split_props(const fz7_archive *a, size_t i, fz7_prop *props, char *buf, size_t cap)
{
    (void)i;
    snprintf(buf, cap, "%llu", (unsigned long long)a->entries[0].size);
    props[0] = (fz7_prop){.name = "Path", .value = a->entries[0].path};
    props[1] = (fz7_prop){.name = "Size", .value = buf};
    return 2;
}

static const fz7_archive_ops split_ops = {split_extract, NULL, split_props};

fz7_status fz7_split_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (!fz7_volumes_is_first_name(a->path))
        return FZ7_E_FORMAT;
    fz7_entry *e = calloc(1, sizeof *e);
    const char *base = strrchr(a->path, '/');
    base = base ? base + 1 : a->path;
    if (!e || !(e->path = strndup(base, strlen(base) - strlen(strrchr(base, '.'))))) {
        free(e);
        return FZ7_E_MEM;
    }
    e->has_size = true;
    e->size = e->packed_size = a->file_size;
    e->packed_known = true;
    e->mode = S_IFREG | 0644;
    e->has_stream = true;
    e->folder = -1;
    a->entries = e;
    a->count = 1;
    a->ops = &split_ops;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "Split";
    return FZ7_OK;
}
