/* fuzz_enc_7z.c - the .7z writer, read back by fz7. Input:
 * FUZZ_CFG_BYTES of options (fuzz_common.h; filter 1 x86 BCJ, 2 Delta,
 * 3 BCJ2), flags: bits 0-1 method (Copy, LZMA, LZMA2, PPMd: order by the
 * level, 2 KiB to 1 MiB of model by the Delta byte), bits 2-4
 * entries - 1 (cut at pseudo-random points, some empty), bit 5 two
 * folders, bit 6 compressed header, bit 7 encrypted data and header. The
 * archive must list the entries in order and extract to the data. */
#include "fuzz_common.h"
#include "format/7z/7z_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fz7_7zaes_key *key; /* one KDF run per process */
    fuzz_cfg c;
    if (!fuzz_take_cfg(&data, &size, true, &c))
        return 0;
    if (!key && fz7_7zaes_key_new("fuzz", &key) != FZ7_OK)
        return 0;
    static const fz7_7z_method methods[4] = {FZ7_7Z_COPY, FZ7_7Z_LZMA, FZ7_7Z_LZMA2, FZ7_7Z_PPMD};
    fz7_7z_folder_opts fo = {.method = methods[c.flags & 3], .lzma = c.lzma,
                             .ppmd_order = 2 + c.level * 3, .ppmd_mem = (uint32_t)1 << (11 + c.delta % 10),
                             .bcj_x86 = c.filter == 1 || c.filter == 3, .bcj2 = c.filter == 3,
                             .delta_distance = c.filter == 2 ? c.delta : 0, .threads = c.threads,
                             .key = (c.flags & 128) ? key : NULL, .folder_bytes = size};
    if (fo.bcj2 && fo.method == FZ7_7Z_COPY)
        fo.method = FZ7_7Z_LZMA2;
    unsigned entries = 1 + (c.flags >> 2 & 7), folders = 1 + (c.flags >> 5 & 1);
    int fd = fuzz_memfd(NULL, 0);
    fz7_7z_writer *w;
    FUZZ_CHECK(fd >= 0 && fz7_7z_writer_new(fd, &w) == FZ7_OK, "writer");
    uint32_t seed = c.piece_seed | 1;
    size_t off = 0;
    char names[8][16];
    for (unsigned f = 0; f < folders; f++) {
        FUZZ_CHECK(fz7_7z_writer_begin_folder(w, &fo) == FZ7_OK, "folder");
        for (unsigned i = f * entries / folders; i < (f + 1) * entries / folders; i++) {
            size_t n = i + 1 == entries ? size - off : fuzz_piece(&seed, size - off) % (size - off + 1);
            snprintf(names[i], sizeof names[i], "f%u", i);
            fz7_7z_entry_meta m = {.name = names[i], .attrib = fz7_7z_attrib_from_mode(0100644)};
            FUZZ_CHECK(fz7_7z_writer_begin_file_sized(w, &m, (seed & 256) ? n : 0) == FZ7_OK, "file");
            FUZZ_CHECK(fz7_7z_writer_write(w, data + off, n) == FZ7_OK, "write");
            FUZZ_CHECK(fz7_7z_writer_end_file(w) == FZ7_OK, "end file");
            off += n;
        }
        FUZZ_CHECK(fz7_7z_writer_end_folder(w) == FZ7_OK, "end folder");
    }
    fz7_7z_header_opts h = {.compress = c.flags & 64, .key = fo.key};
    FUZZ_CHECK(fz7_7z_writer_finish(w, &h) == FZ7_OK, "finish");
    fz7_7z_writer_free(w);

    fuzz_buf out;
    fuzz_buf_init(&out);
    fuzz_extract x = {.cap = UINT64_MAX, .collect = &out};
    fz7_status st = fuzz_archive_fd(fd, "fuzz", 1, FUZZ_MEM_LIMIT, &x);
    FUZZ_CHECK(st == FZ7_OK && x.worst == FZ7_OK, "fz7: open %s, extract %s", fz7_status_str(st),
               fz7_status_str(x.worst));
    FUZZ_CHECK(x.sum >= entries, "entries");
    fuzz_same("fz7", data, size, out.p, out.n);
    close(fd);
    fuzz_buf_free(&out);
    return 0;
}
