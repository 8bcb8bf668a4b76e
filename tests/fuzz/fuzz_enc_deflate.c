/* fuzz_enc_deflate.c - the Deflate and Deflate64 encoders, read back by
 * fz7's decoder. Input: 1 byte (level 1 + low nibble % 9; bit 4:
 * Deflate64; bit 5: 3 option bytes follow the seed), 1 byte write-piece
 * seed, [fb= byte (0: by the level, else 2 + byte: past 258 too, as 7zz
 * takes it), mc= byte (0: by the level; from 200 up: 100 times more),
 * pass= byte (1 + byte % 4; bits 2-3: a= by the level, fast or shortest
 * path)], then the data. Bits 6 and 7 both set: the data is tiled to
 * 128 KiB or more, each copy with one byte changed, so that the stream has
 * several blocks and matches reach across them (mc= at most 64 then). The stream must be the same written whole or
 * in pieces, and decode to the data. */
#include "fuzz_common.h"
#include "codec/codec.h"

#include <stdlib.h>
#include <string.h>

#define TILE_BYTES ((size_t)128 << 10)

static void encode(const fz7_deflate_enc_opts *o, bool d64, const uint8_t *data, size_t size, uint32_t seed,
                   fuzz_buf *enc)
{
    fz7_deflate_enc *e;
    FUZZ_CHECK(fz7_deflate_enc_new_opts(o, d64, &enc->os, &e) == FZ7_OK, "encoder level %d", o->level);
    for (size_t at = 0; at < size;) {
        size_t n = fuzz_piece(&seed, size - at);
        FUZZ_CHECK(fz7_deflate_enc_write(e, data + at, n) == FZ7_OK, "write");
        at += n;
    }
    FUZZ_CHECK(fz7_deflate_enc_finish(e) == FZ7_OK, "finish");
    FUZZ_CHECK(fz7_deflate_enc_bytes_out(e) == enc->n, "bytes out");
    fz7_deflate_enc_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    fz7_deflate_enc_opts o;
    fz7_deflate_enc_opts_level(1 + (data[0] & 15) % 9, &o);
    bool d64 = data[0] & 16, options = data[0] & 32, tile = (data[0] & 0xC0) == 0xC0;
    uint32_t seed = data[1];
    data += 2, size -= 2;
    if (options) {
        if (size < 3)
            return 0;
        o.nice_len = data[0] ? 2u + data[0] : 0;
        o.depth = data[1] >= 200 ? 100u * data[1] : data[1];
        o.passes = 1u + data[2] % 4;
        static const int parse[4] = {FZ7_DEFLATE_PARSE_BY_LEVEL, FZ7_DEFLATE_PARSE_FAST, FZ7_DEFLATE_PARSE_OPTIMAL,
                                     FZ7_DEFLATE_PARSE_BY_LEVEL};
        o.parse = parse[(data[2] >> 2) & 3];
        data += 3, size -= 3;
    }
    uint8_t *tiled = NULL;
    if (tile && size > 0) {
        if (o.depth > 64)   /* a few blocks in milliseconds, not seconds */
            o.depth = 64;
        size_t copies = (TILE_BYTES + size - 1) / size, n = copies * size;
        tiled = malloc(n);
        FUZZ_CHECK(tiled != NULL, "tile");
        for (size_t k = 0; k < copies; k++) {
            memcpy(tiled + k * size, data, size);
            tiled[k * size + (k * 7919u) % size] ^= (uint8_t)(k + 1);
        }
        data = tiled, size = n;
    }
    fuzz_buf enc, whole, out;
    fuzz_buf_init(&enc), fuzz_buf_init(&whole), fuzz_buf_init(&out);
    encode(&o, d64, data, size, seed, &enc);
    encode(&o, d64, data, size, 0, &whole);
    fuzz_same("whole against pieces", whole.p, whole.n, enc.p, enc.n);
    fz7_istream *src = fz7_istream_from_memory(enc.p, enc.n), *dec;
    FUZZ_CHECK(src && fz7_deflate_istream_new(src, d64, &dec) == FZ7_OK, "decoder");
    fz7_status st = fuzz_read_all(dec, &out);
    FUZZ_CHECK(st == FZ7_OK, "fz7 decode (level %d fb %u mc %u pass %u%s): %s", o.level, o.nice_len, o.depth,
               o.passes, d64 ? ", Deflate64" : "", fz7_status_str(st));
    fuzz_same("fz7", data, size, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);
    fuzz_buf_free(&enc), fuzz_buf_free(&whole), fuzz_buf_free(&out);
    free(tiled);
    return 0;
}
