/* fuzz_enc_xz.c - differential harness of the .xz writer. Input:
 * FUZZ_CFG_BYTES of options (fuzz_common.h: LZMA2 options, x86 BCJ or
 * Delta, check, threads), flags: bits 0-5 the block size (0: one block,
 * else 1..63 x 1 KiB + 7), bit 6 the input size given first, bit 7
 * blocks of 1 MiB on parallel threads (the input is then tiled to 1-2
 * MiB). The file must read back to the data through fz7's archive API
 * and through liblzma's stream decoder. */
#include "fuzz_common.h"
#include "format/xz/xz_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fz7_xz_check checks[4] = {FZ7_XZ_CHECK_NONE, FZ7_XZ_CHECK_CRC32, FZ7_XZ_CHECK_CRC64,
                                           FZ7_XZ_CHECK_SHA256};
    fuzz_cfg c;
    if (!fuzz_take_cfg(&data, &size, true, &c))
        return 0;
    uint8_t *big = NULL;
    fz7_xz_opts o = {.lzma = c.lzma, .check = checks[c.check], .bcj_x86 = c.filter == 1,
                     .delta_distance = c.filter == 2 ? c.delta : 0, .threads = c.threads,
                     .block_size = (c.flags & 63) ? (uint64_t)(c.flags & 63) * 1024 + 7 : 0};
    if ((c.flags & 128) && size && c.threads > 1) {
        o.lzma.mode = FZ7_LZMA_MODE_FAST;
        o.block_size = FZ7_LZMA2_MT_BLOCK_MIN;
        if (!(big = fuzz_tile(data, size, FZ7_LZMA2_MT_BLOCK_MIN + (c.flags & 63) * 16384, &size)))
            return 0;
        data = big;
    }
    if (c.flags & 64)
        o.size_hint = size;
    int fd = fuzz_memfd(NULL, 0);
    FUZZ_CHECK(fd >= 0, "memfd");
    fz7_xz_writer *w;
    FUZZ_CHECK(fz7_xz_writer_new(fd, &o, &w) == FZ7_OK, "writer");
    fz7_status st = FZ7_OK;
    uint32_t seed = c.piece_seed;
    for (size_t off = 0; off < size && st == FZ7_OK;) {
        size_t k = fuzz_piece(&seed, size - off);
        st = fz7_xz_writer_write(w, data + off, k);
        off += k;
    }
    FUZZ_CHECK(st == FZ7_OK && fz7_xz_writer_finish(w) == FZ7_OK, "write");
    fz7_xz_writer_free(w);

    fuzz_buf file, out;
    fuzz_buf_init(&file), fuzz_buf_init(&out);
    off_t fsize = lseek(fd, 0, SEEK_END);
    FUZZ_CHECK(fsize > 0 && fuzz_buf_reserve(&file, (size_t)fsize) &&
                   pread(fd, file.p, (size_t)fsize, 0) == fsize, "read back");
    file.n = (size_t)fsize;
    fuzz_extract x = {.cap = UINT64_MAX, .collect = &out};
    st = fuzz_archive_fd(fd, NULL, 1, FUZZ_MEM_LIMIT, &x);
    FUZZ_CHECK(st == FZ7_OK && x.worst == FZ7_OK, "fz7: open %s, extract %s", fz7_status_str(st),
               fz7_status_str(x.worst));
    fuzz_same("fz7", data, size, out.p, out.n);
    close(fd);

    lzma_ret r = fuzz_xz_decode(NULL, file.p, file.n, size, &out);
    FUZZ_CHECK(r == LZMA_STREAM_END, "liblzma: %d", (int)r);
    fuzz_same("liblzma", data, size, out.p, out.n);
    fuzz_buf_free(&file), fuzz_buf_free(&out);
    free(big);
    return 0;
}
