/* lzma_dec.h - LZMA and LZMA2 decoders as pull streams.
 *
 * lzma-file-format.txt (LZMA properties, end marker) and
 * xz-file-format.txt 5.3.1 (LZMA2). Neither stream owns src: the caller
 * destroys the decoder first, then src. */
#ifndef FZ7_LZMA_DEC_H
#define FZ7_LZMA_DEC_H

#include "fz7_common.h"

/* Largest dictionary the decoders accept: any an LZMA or LZMA2 header can
 * name (LZMA2's property 40 is 4 GiB - 1; 7-Zip writes up to 3840 MiB).
 * The window is still fitted to the stream's size and the memory limit. */
#define FZ7_LZMA_DICT_MAX UINT32_MAX

/* Decodes a raw LZMA stream read from src.
 * props: 5 bytes, the lc/lp/pb byte ((pb * 5 + lp) * 9 + lc) and the
 *   dictionary size as 32-bit little endian (as in a 7z LZMA coder's
 *   properties and the .lzma header).
 * unpack_size: bytes to produce, or UINT64_MAX when unknown; then the
 *   stream must end with the end marker. With a known size an end marker
 *   right after the last byte is accepted too.
 * mem_limit: bytes the dictionary may take; more gives FZ7_E_MEMLIMIT.
 * read() errors: FZ7_E_DATA (corrupt), FZ7_E_TRUNCATED (src ended early). */
fz7_status fz7_lzma_istream_new(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                uint64_t mem_limit, fz7_istream **out);

/* Bytes a stream of fz7_lzma_istream_new has read from src beyond what its
 * decoder used (it reads ahead). Once the stream has ended, a container
 * that knows the packed size (7z) checks with it that nothing follows. */
size_t fz7_lzma_istream_unread(const fz7_istream *s);

/* Decodes a whole raw LZMA stream of unpack_size bytes (props as for
 * fz7_lzma_istream_new) from src into one buffer, returned in *out for
 * the caller to free: the decoder's window is that buffer, so a stream of
 * known size costs its output once (a 7z encoded header, not a window and
 * a copy). Its first unpack_size bytes are the output. The window takes
 * unpack_size bytes, whatever the dictionary size, against mem_limit.
 * Errors: FZ7_E_ARG (unpack_size 0 or too large for memory),
 * FZ7_E_UNSUPPORTED, FZ7_E_MEMLIMIT, FZ7_E_MEM, FZ7_E_DATA (corrupt, or
 * the stream ends before unpack_size bytes), FZ7_E_TRUNCATED, or src's. */
fz7_status fz7_lzma_decode_whole(fz7_istream *src, const uint8_t props[5], uint64_t unpack_size,
                                 uint64_t mem_limit, uint8_t **out);

/* Decodes an LZMA2 stream read from src, up to and including its end
 * byte (0x00), and never reads past that byte (the xz block reader relies
 * on it). dict_prop: the one-byte dictionary size property (0..40). */
fz7_status fz7_lzma2_istream_new(fz7_istream *src, uint8_t dict_prop, uint64_t mem_limit,
                                 fz7_istream **out);

/* As fz7_lzma2_istream_new, when the unpacked size is known (an xz block
 * header's Uncompressed Size): the dictionary is then allocated no larger
 * than unpack_size, and the memory limit applies to that. UINT64_MAX:
 * unknown. A stream that runs longer than unpack_size gets a smaller
 * window than it declared (far distances give FZ7_E_DATA). */
fz7_status fz7_lzma2_istream_new_sized(fz7_istream *src, uint8_t dict_prop, uint64_t unpack_size,
                                       uint64_t mem_limit, fz7_istream **out);

/* Dictionary bytes an LZMA2 dictionary-size byte stands for; 0 if the
 * byte is invalid (> 40). */
uint64_t fz7_lzma2_dict_size(uint8_t dict_prop);

/* ---- Lower level: one LZMA decoder over its own dictionary ---------------
 * Used by the LZMA and LZMA2 istreams (and later a multi-threaded
 * decoder). The dictionary is a circular buffer that is also the output
 * staging area: fz7_lzma_dec_run() decodes into it, the caller takes the
 * new bytes with fz7_lzma_dec_take(), then fz7_lzma_dec_make_room()
 * wraps it. */

#include <stdbool.h>
#include "lzma/lzma_common.h"

/* run() may read this many bytes past its in_stop argument: the input
 * buffer must hold that many readable bytes (data or zero padding) there.
 * One symbol takes at most about 20 bytes of input (every probability
 * stays in [31, 2017], so a symbol shrinks the range by at most ~135
 * bits, about 17 normalisations); this leaves room. */
#define FZ7_LZMA_IN_MARGIN 64

typedef struct fz7_lzma_dec {
    /* Dictionary (circular buffer). */
    uint8_t *dict;
    size_t cap;          /* circular buffer bytes: the window rounded up to 16, plus 32
                            (the buffer has 32 more bytes of slack after it) */
    size_t pos;          /* write position, 0..cap */
    size_t out_pos;      /* dict[out_pos, pos) are decoded bytes not yet taken */
    bool wrapped;        /* pos has wrapped: distances below cap - 16 are valid */
    /* Model. */
    unsigned lc, lp, pb;
    unsigned lclp_alloc; /* lc + lp the probability array was sized for */
    fz7_lzma_probs *probs;
    uint32_t state, rep0, rep1, rep2, rep3;
    /* Range decoder. */
    uint32_t range, code;
    /* Bytes of a match still to copy (the output limit cut it). */
    uint32_t pending;
    /* Set by run() when it decoded the end marker. */
    bool end_marker;
    /* The thread faulting the dictionary's pages in ahead of the decoder
     * (large windows only); NULL: none. */
    struct fz7_lzma_prefault *prefault;
} fz7_lzma_dec;

/* Allocates a decoder. dict_size: the window in bytes (raised to 4 KiB);
 * unpack_hint: total bytes the stream will produce if known, else
 * UINT64_MAX (the dictionary is then no larger than that). lc/lp/pb are
 * checked only against their LZMA1 ranges (lc <= 8, lp <= 4, pb <= 4).
 * Errors: FZ7_E_MEMLIMIT (window plus probabilities over mem_limit, or
 * window over FZ7_LZMA_DICT_MAX),
 * FZ7_E_MEM, FZ7_E_ARG (bad lc/lp/pb). */
fz7_status fz7_lzma_dec_new(uint64_t dict_size, uint64_t unpack_hint, uint64_t mem_limit, unsigned lc,
                            unsigned lp, unsigned pb, fz7_lzma_dec **out);
void fz7_lzma_dec_free(fz7_lzma_dec *d);

/* Changes lc/lp/pb (LZMA2 "new props") and resets the state. FZ7_E_MEM. */
fz7_status fz7_lzma_dec_set_props(fz7_lzma_dec *d, unsigned lc, unsigned lp, unsigned pb);
/* Resets probabilities, state and reps (LZMA2 state reset). */
void fz7_lzma_dec_reset_state(fz7_lzma_dec *d);
/* Empties the dictionary; only when every decoded byte was taken. */
void fz7_lzma_dec_reset_dict(fz7_lzma_dec *d);
/* Starts the range decoder from the first 5 bytes of a coded stream;
 * FZ7_E_DATA if the first byte is not 0. */
fz7_status fz7_lzma_dec_rc_init(fz7_lzma_dec *d, const uint8_t in[5]);

/* Once every decoded byte was taken and the write position is at the end
 * of the buffer, wraps it. Returns the bytes that can be written before
 * the end (> 0 once everything was taken). *st is FZ7_OK. */
size_t fz7_lzma_dec_make_room(fz7_lzma_dec *d, fz7_status *st);

/* Decodes symbols into the dictionary while its write position is below
 * limit (<= cap) and *in <= in_stop; advances *in. Finishes a pending
 * match first. Stops after an end marker (sets end_marker). Before
 * returning it normalises the range, so range >= 2^24 between calls.
 * Input: FZ7_LZMA_IN_MARGIN readable bytes must follow in_stop.
 * Errors: FZ7_E_DATA (distance beyond the decoded data). */
fz7_status fz7_lzma_dec_run(fz7_lzma_dec *d, const uint8_t **in, const uint8_t *in_stop, size_t limit);

/* At a known end of data: true if an end marker follows here (decodes
 * it; same input contract as run). False means no end marker: the caller
 * decides (the range decoder then must have code == 0). */
bool fz7_lzma_dec_end_marker_next(fz7_lzma_dec *d, const uint8_t **in);

/* Copies up to cap decoded bytes not yet taken into buf; returns the count. */
size_t fz7_lzma_dec_take(fz7_lzma_dec *d, uint8_t *buf, size_t cap);

/* Appends n raw bytes (an LZMA2 uncompressed chunk); n <= the room
 * make_room reported. */
void fz7_lzma_dec_put_raw(fz7_lzma_dec *d, const uint8_t *p, size_t n);

#endif
