/* 7z_copy.c - copies a folder of another .7z into the archive being
 * written, its pack streams byte for byte and its Folder record re-encoded
 * (u on a solid archive keeps the folders it does not change). */
#include "format/7z/7z_write_impl.h"

#include <stdlib.h>
#include <string.h>

#define COPY_BUF_SIZE ((size_t)1 << 16)


/* The folder's coders, bind pairs and pack stream indices as 7zFormat.txt
 * lays out a Folder; ids big-endian in as few bytes as they need. */
static void put_folder_record(bytebuf *b, const fz7_7z_folder *f)
{
    bb_number(b, f->num_coders);
    for (uint32_t i = 0; i < f->num_coders; i++) {
        const fz7_7z_coder *c = &f->coders[i];
        uint8_t id[8];
        size_t id_len = 1;
        while (id_len < 8 && (c->id >> (8 * id_len)) != 0)
            id_len++;
        for (size_t k = 0; k < id_len; k++)
            id[k] = (uint8_t)(c->id >> (8 * (id_len - 1 - k)));
        bool complex = c->num_in != 1 || c->num_out != 1;
        uint8_t flags = (uint8_t)id_len;
        if (complex)
            flags |= 0x10;
        if (c->props_len)
            flags |= 0x20;
        bb_byte(b, flags);
        bb_bytes(b, id, id_len);
        if (complex) {
            bb_number(b, c->num_in);
            bb_number(b, c->num_out);
        }
        if (c->props_len) {
            bb_number(b, c->props_len);
            bb_bytes(b, c->props, c->props_len);
        }
    }
    for (uint32_t i = 0; i < f->num_bind_pairs; i++) {
        bb_number(b, f->bind_pairs[i].in_index);
        bb_number(b, f->bind_pairs[i].out_index);
    }
    if (f->num_packed > 1)
        for (uint32_t i = 0; i < f->num_packed; i++)
            bb_number(b, f->packed[i]);
}

/* Pack streams one copied folder may have (BCJ2 has 4). */
#define COPY_PACKS_MAX 32

fz7_status fz7_7z_writer_copy_folder(fz7_7z_writer *w, struct fz7_archive *src, uint64_t folder,
                                     const fz7_7z_entry_meta *metas, size_t n)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder || !src || src->info.format != FZ7_FORMAT_7Z || !src->priv)
        return FZ7_E_ARG;
    fz7_status settled = fz7_7z_writer_settle(w);
    if (settled != FZ7_OK)
        return settled;
    const fz7_7z_streams *s = &((const fz7_7z_db *)src->priv)->main;
    if (folder >= s->num_folders)
        return FZ7_E_ARG;
    const fz7_7z_folder *sf = &s->folders[folder];
    if (n != sf->num_substreams || n == 0)
        return FZ7_E_ARG;
    /* Its pack streams follow each other in PackInfo (BCJ2 has four): they
     * are copied in that order, so the folder record's stream indices stay
     * right. */
    if (sf->num_packed < 1 || sf->num_packed > COPY_PACKS_MAX || sf->first_pack >= s->num_pack ||
        s->num_pack - sf->first_pack < sf->num_packed)
        return FZ7_E_UNSUPPORTED;
    for (uint64_t k = 0; k < n; k++)
        if (!s->sub_has_crc[sf->first_substream + k])
            return FZ7_E_UNSUPPORTED;

    if (!fz7_7z_writer_reserve_folder(w))
        return FZ7_E_MEM;
    bytebuf rec = {0}, sizes = {0};
    put_folder_record(&rec, sf);
    for (uint32_t i = 0; i < sf->num_coders; i++)
        bb_number(&sizes, sf->unpack_sizes[i]);
    if (rec.failed || sizes.failed) {
        free(rec.m.p);
        free(sizes.m.p);
        return FZ7_E_MEM;
    }

    /* The entries, then the pack stream's bytes as they are. */
    fz7_status st = FZ7_OK;
    uint64_t unpack = 0;
    for (size_t k = 0; st == FZ7_OK && k < n; k++) {
        st = fz7_7z_writer_push_entry(w, &metas[k], true);
        if (st == FZ7_OK) {
            entry_rec *e = &w->entries[w->n_entries - 1];
            e->size = s->sub_sizes[sf->first_substream + k];
            e->crc = s->sub_crcs[sf->first_substream + k];
            unpack += e->size;
        }
    }
    uint64_t start = w->out.pos;
    uint64_t *packs = NULL;
    if (st == FZ7_OK && sf->num_packed > 1 && !(packs = malloc((size_t)sf->num_packed * sizeof *packs)))
        st = FZ7_E_MEM;
    uint8_t *buf = st == FZ7_OK ? malloc(COPY_BUF_SIZE) : NULL;
    if (st == FZ7_OK && !buf)
        st = FZ7_E_MEM;
    for (uint64_t j = 0; st == FZ7_OK && j < sf->num_packed; j++) {
        uint64_t off = s->pack_offsets[sf->first_pack + j], left = s->pack_sizes[sf->first_pack + j];
        if (packs)
            packs[j] = left;
        while (st == FZ7_OK && left) {
            size_t take = left < COPY_BUF_SIZE ? (size_t)left : COPY_BUF_SIZE;
            st = fz7_volumes_pread(src->vol, buf, take, off);
            if (st == FZ7_OK)
                st = fz7_fd_ostream_write(&w->out.os, buf, take);
            off += take;
            left -= take;
        }
    }
    free(buf);
    if (st != FZ7_OK) {
        /* Entries already pushed describe a folder that is not there: the
         * writer stays failed. */
        free(rec.m.p);
        free(sizes.m.p);
        free(packs);
        w->failed = st;
        return st;
    }
    folder_rec *f = &w->folders[w->n_folders];
    memset(f, 0, sizeof *f);
    f->pack_size = w->out.pos - start;
    f->unpack_size = unpack;
    f->num_substreams = n;
    f->raw_folder = rec.m.p;
    f->raw_folder_len = rec.m.n;
    f->raw_sizes = sizes.m.p;
    f->raw_sizes_len = sizes.m.n;
    f->raw_pack_sizes = packs;
    f->raw_n_packs = packs ? (size_t)sf->num_packed : 0;
    w->n_folders++;
    return FZ7_OK;
}
