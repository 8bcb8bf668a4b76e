/* fuzz_enc_ppmd8.c - the PPMd variant I (rev. 1) encoder, read back by
 * fz7's decoder. Input: 1 byte model order (2..16), 1 byte restore method
 * (bit 0: cut off, else restart) and model memory (bits 1-3: 1 to 8 MiB,
 * which small inputs fill only with bit 4 set: 2 KiB .. 16 KiB), 1 byte
 * write-piece seed (0: one write), then the data.
 * The stream must decode to the data, byte for byte, its end marker where
 * the size says. */
#include "fuzz_common.h"
#include "codec/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    unsigned order = FZ7_PPMD8_ORDER_MIN + data[0] % (FZ7_PPMD8_ORDER_MAX - FZ7_PPMD8_ORDER_MIN + 1);
    unsigned restore = data[1] & 1 ? FZ7_PPMD8_CUT_OFF : FZ7_PPMD8_RESTART;
    uint32_t mem = data[1] & 16 ? (uint32_t)2048 << ((data[1] >> 1) & 3) : (uint32_t)1 << (20 + ((data[1] >> 1) & 3));
    uint32_t seed = data[2];
    data += 3, size -= 3;
    fuzz_buf enc, out;
    fuzz_buf_init(&enc), fuzz_buf_init(&out);
    fz7_ppmd8_enc *e;
    FUZZ_CHECK(fz7_ppmd8_enc_new(order, mem, restore, &enc.os, &e) == FZ7_OK, "encoder o%u mem %u r%u", order, mem,
               restore);
    for (size_t at = 0; at < size;) {
        size_t n = fuzz_piece(&seed, size - at);
        FUZZ_CHECK(fz7_ppmd8_enc_write(e, data + at, n) == FZ7_OK, "write");
        at += n;
    }
    FUZZ_CHECK(fz7_ppmd8_enc_finish(e) == FZ7_OK, "finish");
    FUZZ_CHECK(fz7_ppmd8_enc_bytes_out(e) == enc.n, "bytes out");
    fz7_ppmd8_enc_free(e);
    fz7_istream *src = fz7_istream_from_memory(enc.p, enc.n), *dec;
    FUZZ_CHECK(src && fz7_ppmd8_istream_new(src, order, mem, restore, size, FUZZ_MEM_LIMIT, &dec) == FZ7_OK,
               "decoder");
    fz7_status st = fuzz_read_all(dec, &out);
    FUZZ_CHECK(st == FZ7_OK, "fz7 decode (o%u, mem %u, r%u): %s", order, mem, restore, fz7_status_str(st));
    FUZZ_CHECK(fz7_ppmd8_istream_unread(dec) == 0, "bytes left after the end marker");
    fuzz_same("fz7", data, size, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);
    fuzz_buf_free(&enc), fuzz_buf_free(&out);
    return 0;
}
