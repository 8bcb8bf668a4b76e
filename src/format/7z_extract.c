/* 7z_extract.c - extraction of a 7z archive: walks the entries in archive
 * order, decodes each folder that holds a selected entry once, front to
 * back, splits its output into substreams and checks every CRC. Data moves
 * in fixed chunks; no folder is ever held in memory whole. */
#include "format/7z_internal.h"

#include "check/check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)256 << 10)

/* The folder being decoded. */
typedef struct {
    uint64_t index;         /* UINT64_MAX: none */
    fz7_istream *in;        /* main output; NULL once done or failed */
    fz7_status status;      /* FZ7_OK, or the error every later entry gets */
    uint32_t crc;           /* CRC32 of the output so far */
    char detail[160];
} folder_state;

static void folder_close(folder_state *fs)
{
    fz7_istream_free(fs->in);
    fs->in = NULL;
}

/* 7-Zip reports data and CRC errors inside encrypted folders as a
 * probable wrong password. */
static fz7_status password_hint(const fz7_7z_folder *f, fz7_status st, char *detail, size_t len)
{
    if (f->encrypted && (st == FZ7_E_DATA || st == FZ7_E_CRC)) {
        snprintf(detail, len, "%s", fz7_status_str(FZ7_E_PASSWORD));
        return FZ7_E_PASSWORD;
    }
    return st;
}

/* Reads one substream of `size` bytes, passing it to data() when wanted.
 * Returns the decoding status; *cb_st gets a callback's failure. */
static fz7_status read_substream(folder_state *fs, uint64_t size, uint8_t *buf, bool wanted,
                                 const fz7_extract_cb *cb, uint32_t *crc, fz7_status *cb_st)
{
    *crc = 0;
    while (size > 0) {
        size_t n = size < CHUNK_BYTES ? (size_t)size : CHUNK_BYTES;
        fz7_status st = fz7_istream_read_full(fs->in, buf, n);
        if (st != FZ7_OK)
            return st;
        *crc = fz7_crc32(*crc, buf, n);
        fs->crc = fz7_crc32(fs->crc, buf, n);
        if (wanted && (*cb_st = cb->data(cb->ctx, buf, n)) != FZ7_OK)
            return FZ7_OK;
        size -= n;
    }
    return FZ7_OK;
}

/* After the folder's last substream: no bytes may follow, and the folder
 * CRC (when given for several files) must match. */
static fz7_status finish_folder(folder_state *fs, const fz7_7z_folder *f)
{
    uint8_t probe;
    size_t got = 0;
    fz7_status st = fs->in->read(fs->in, &probe, 1, &got);
    if (st == FZ7_OK && got)
        st = FZ7_E_DATA;
    if (st == FZ7_OK && f->has_crc && f->num_substreams > 1 && fs->crc != f->crc) {
        snprintf(fs->detail, sizeof fs->detail, "folder CRC mismatch (expected %08" PRIX32 ", got %08" PRIX32 ")",
                 f->crc, fs->crc);
        return FZ7_E_CRC;
    }
    return st;
}

fz7_status fz7_7z_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                          char *err, size_t errlen)
{
    fz7_7z_db *db = a->priv;
    const fz7_7z_streams *s = &db->main;
    uint64_t *last_wanted = malloc((s->num_folders ? (size_t)s->num_folders : 1) * sizeof *last_wanted);
    uint8_t *buf = malloc(CHUNK_BYTES);
    if (!last_wanted || !buf) {
        free(last_wanted);
        free(buf);
        snprintf(err, errlen, "%s", fz7_status_str(FZ7_E_MEM));
        return FZ7_E_MEM;
    }
    /* The last selected substream of each folder: decoding stops there. */
    for (uint64_t f = 0; f < s->num_folders; f++)
        last_wanted[f] = UINT64_MAX;
    for (size_t i = 0; i < a->count; i++)
        if ((!select || select[i]) && a->entries[i].has_stream)
            last_wanted[a->entries[i].folder] = db->entry_substream[i];

    folder_state fs = {.index = UINT64_MAX};
    fz7_status ret = FZ7_OK;
    for (size_t i = 0; i < a->count && ret == FZ7_OK; i++) {
        const fz7_entry *e = &a->entries[i];
        bool wanted = !select || select[i];
        if (!e->has_stream) {
            if (wanted && (ret = cb->begin(cb->ctx, i, e)) == FZ7_OK)
                ret = cb->end(cb->ctx, i, FZ7_OK, NULL);
            continue;
        }
        uint64_t fi = (uint64_t)e->folder, sub = db->entry_substream[i];
        const fz7_7z_folder *f = &s->folders[fi];
        if (last_wanted[fi] == UINT64_MAX || sub > last_wanted[fi])
            continue;   /* nothing selected from here on in this folder */
        if (fi != fs.index) {
            folder_close(&fs);
            fs.index = fi;
            fs.crc = 0;
            fs.detail[0] = 0;
            fs.status = fz7_7z_folder_istream_new(a->vol, s, fi, a->opts.password, a->opts.mem_limit,
                                                  &fs.in, fs.detail, sizeof fs.detail);
        }
        if (wanted && (ret = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status st = fs.status, cb_st = FZ7_OK;
        const char *detail = fs.detail[0] ? fs.detail : NULL;
        char crc_detail[96];
        if (st == FZ7_OK) {
            uint32_t crc;
            st = read_substream(&fs, s->sub_sizes[sub], buf, wanted, cb, &crc, &cb_st);
            if (cb_st != FZ7_OK) {
                ret = cb_st;
                break;
            }
            if (st == FZ7_OK && sub + 1 == f->first_substream + f->num_substreams)
                st = finish_folder(&fs, f);
            if (st == FZ7_OK && e->has_crc && crc != e->crc) {
                snprintf(crc_detail, sizeof crc_detail, "CRC mismatch (expected %08" PRIX32 ", got %08" PRIX32 ")",
                         e->crc, crc);
                detail = crc_detail;
                st = FZ7_E_CRC;
                if (f->encrypted)
                    st = password_hint(f, st, crc_detail, sizeof crc_detail);
            } else if (st != FZ7_OK) {
                /* A decoding error ends the folder: later entries get it too. */
                if (!fs.detail[0] || st != FZ7_E_CRC)
                    snprintf(fs.detail, sizeof fs.detail, "%s", fz7_status_str(st));
                st = password_hint(f, st, fs.detail, sizeof fs.detail);
                fs.status = st;
                detail = fs.detail;
                folder_close(&fs);
            }
        }
        if (wanted)
            ret = cb->end(cb->ctx, i, st, st == FZ7_OK ? NULL : detail);
        if (ret == FZ7_OK && (st == FZ7_E_IO || st == FZ7_E_MEM)) {
            snprintf(err, errlen, "%s", fz7_status_str(st));
            ret = st;
        }
        if (sub == last_wanted[fi])
            folder_close(&fs);
    }
    folder_close(&fs);
    free(last_wanted);
    free(buf);
    if (ret != FZ7_OK && errlen && !err[0])
        snprintf(err, errlen, "%s", fz7_status_str(ret));
    return ret;
}
