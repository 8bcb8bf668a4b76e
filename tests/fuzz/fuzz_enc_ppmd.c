/* fuzz_enc_ppmd.c - the PPMd variant H encoder, read back by fz7's decoder.
 * Input: 1 byte model order (2..32), 1 byte model memory (2 KiB to 1 MiB:
 * small models fill and restart), 1 byte write-piece seed (0: one write),
 * then the data.
 * The stream must decode to the data, byte for byte and to its end (the
 * decoder checks the range coder's final code). */
#include "fuzz_common.h"
#include "codec/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    unsigned order = 2 + data[0] % 31;
    uint32_t mem = (uint32_t)1 << (11 + data[1] % 10), seed = data[2];
    data += 3, size -= 3;
    fuzz_buf enc, out;
    fuzz_buf_init(&enc), fuzz_buf_init(&out);
    fz7_ppmd7_enc *e;
    FUZZ_CHECK(fz7_ppmd7_enc_new(order, mem, &enc.os, &e) == FZ7_OK, "encoder o%u mem %u", order, mem);
    for (size_t at = 0; at < size;) {
        size_t n = fuzz_piece(&seed, size - at);
        FUZZ_CHECK(fz7_ppmd7_enc_write(e, data + at, n) == FZ7_OK, "write");
        at += n;
    }
    FUZZ_CHECK(fz7_ppmd7_enc_finish(e) == FZ7_OK, "finish");
    FUZZ_CHECK(fz7_ppmd7_enc_bytes_out(e) == enc.n, "bytes out");
    fz7_ppmd7_enc_free(e);
    uint8_t props[5];
    fz7_ppmd7_enc_props(order, mem, props);
    fz7_istream *src = fz7_istream_from_memory(enc.p, enc.n), *dec;
    FUZZ_CHECK(src && fz7_ppmd7_istream_new(src, props, 5, size, FUZZ_MEM_LIMIT, &dec) == FZ7_OK, "decoder");
    fz7_status st = fuzz_read_all(dec, &out);
    FUZZ_CHECK(st == FZ7_OK, "fz7 decode (o%u, mem %u): %s", order, mem, fz7_status_str(st));
    fuzz_same("fz7", data, size, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);
    fuzz_buf_free(&enc), fuzz_buf_free(&out);
    return 0;
}
