/* fuzz_liblzma.c - the other direction: liblzma encodes the data with
 * options from the first 8 bytes and fz7 must decode it back.
 * b0 % 4: raw LZMA1 with the end marker (size unknown), raw LZMA1
 * without it (size known), raw LZMA2, .xz; b1: preset 0..9 (bit 4:
 * extreme); b2: lc/lp/pb (lc + lp <= 4); b3: nice_len; b4: match
 * finder and mode; b5: dictionary 4 KiB..512 KiB; b6: depth; b7: .xz
 * check, x86 BCJ / Delta, block size. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    const uint8_t *b = data;
    data += 8, size -= 8;
    static const lzma_match_finder mfs[5] = {LZMA_MF_HC3, LZMA_MF_HC4, LZMA_MF_BT2, LZMA_MF_BT3, LZMA_MF_BT4};
    static const lzma_check checks[4] = {LZMA_CHECK_NONE, LZMA_CHECK_CRC32, LZMA_CHECK_CRC64, LZMA_CHECK_SHA256};
    lzma_options_lzma l;
    lzma_lzma_preset(&l, (b[1] % 10) | (b[1] & 16 ? LZMA_PRESET_EXTREME : 0));
    if (b[2] < 225) {
        l.lc = b[2] % 9 > 4 ? 4 : b[2] % 9, l.lp = b[2] / 9 % 5, l.pb = b[2] / 45;
        if (l.lc + l.lp > 4)
            l.lp = 4 - l.lc;
    }
    l.nice_len = 2 + b[3] % 272;
    if (b[4] & 1)
        l.mf = mfs[(b[4] >> 1) % 5], l.mode = (b[4] & 16) ? LZMA_MODE_NORMAL : LZMA_MODE_FAST;
    if (l.mf == LZMA_MF_HC3 || l.mf == LZMA_MF_BT3)
        l.nice_len = l.nice_len < 3 ? 3 : l.nice_len;
    if (l.mf == LZMA_MF_HC4 || l.mf == LZMA_MF_BT4)
        l.nice_len = l.nice_len < 4 ? 4 : l.nice_len;
    l.dict_size = (uint32_t)4096 << (b[5] & 7);
    l.depth = b[6] < 128 ? 0 : b[6] - 127;
    lzma_options_delta delta = {.type = LZMA_DELTA_TYPE_BYTE, .dist = 1 + b[6] % 256};
    lzma_filter f[3] = {{LZMA_FILTER_LZMA1, &l}, {LZMA_VLI_UNKNOWN, NULL}, {LZMA_VLI_UNKNOWN, NULL}};
    unsigned kind = b[0] % 4;
    if (kind == 1) {
        f[0].id = LZMA_FILTER_LZMA1EXT;
        lzma_set_ext_size(l, size);
        l.ext_flags = 0;
    } else if (kind >= 2) {
        f[0].id = LZMA_FILTER_LZMA2;
        if (kind == 3 && (b[7] & 12))
            f[1] = f[0], f[0] = (lzma_filter){(b[7] & 8) ? LZMA_FILTER_DELTA : LZMA_FILTER_X86,
                                              (b[7] & 8) ? &delta : NULL};
    }
    fuzz_buf enc, out;
    fuzz_buf_init(&enc), fuzz_buf_init(&out);
    size_t cap = size + size / 2 + 65536, pos = 0;
    FUZZ_CHECK(fuzz_buf_reserve(&enc, cap), "memory");
    lzma_ret r;
    if (kind == 3) {
        lzma_mt mt = {.threads = 1, .block_size = (b[7] >> 4) ? (uint64_t)(b[7] >> 4) * 999 : 0,
                      .filters = f, .check = checks[b[7] & 3]};
        lzma_stream s = LZMA_STREAM_INIT;
        r = lzma_stream_encoder_mt(&s, &mt);
        FUZZ_CHECK(r == LZMA_OK, "liblzma encoder: %d", (int)r);
        s.next_in = data, s.avail_in = size, s.next_out = enc.p, s.avail_out = cap;
        r = lzma_code(&s, LZMA_FINISH);
        pos = s.total_out;
        lzma_end(&s);
        r = r == LZMA_STREAM_END ? LZMA_OK : r;
    } else {
        r = lzma_raw_buffer_encode(f, NULL, data, size, enc.p, &pos, cap);
    }
    FUZZ_CHECK(r == LZMA_OK, "liblzma encode: %d", (int)r);
    enc.n = pos;

    fz7_istream *src = fz7_istream_from_memory(enc.p, enc.n), *dec = NULL;
    fz7_status st;
    if (kind < 2) {
        uint8_t props[5] = {(uint8_t)((l.pb * 5 + l.lp) * 9 + l.lc)};
        fz7_put32le(props + 1, l.dict_size);
        st = fz7_lzma_istream_new(src, props, kind == 0 ? UINT64_MAX : size, FUZZ_MEM_LIMIT, &dec);
    } else if (kind == 2) {
        st = fz7_lzma2_istream_new(src, fz7_lzma2_dict_prop(l.dict_size), FUZZ_MEM_LIMIT, &dec);
    } else {
        int fd = fuzz_memfd(enc.p, enc.n);
        fuzz_extract x = {.cap = UINT64_MAX, .collect = &out};
        st = fuzz_archive_fd(fd, NULL, 1 + (b[0] >> 7), FUZZ_MEM_LIMIT, &x);
        FUZZ_CHECK(st == FZ7_OK && x.worst == FZ7_OK, "fz7 xz: open %s, extract %s", fz7_status_str(st),
                   fz7_status_str(x.worst));
        close(fd);
    }
    FUZZ_CHECK(st == FZ7_OK, "fz7 decoder: %s", fz7_status_str(st));
    if (dec) {
        st = fuzz_read_all(dec, &out);
        FUZZ_CHECK(st == FZ7_OK, "fz7 decode: %s", fz7_status_str(st));
    }
    fuzz_same("fz7", data, size, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);
    fuzz_buf_free(&enc), fuzz_buf_free(&out);
    return 0;
}
