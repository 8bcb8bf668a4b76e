/* enc_hashes.c - the bytes fz7's encoders write, as one SHA-256 line per
 * case, for comparing machines: raw LZMA, LZMA2 and .xz at every level
 * 0-9 (level 0 is level 1's options), the match finders, lc/lp/pb, x86
 * BCJ and Delta, the multi-threaded LZMA2 encoder with 1 and 3 threads
 * (2.25 MiB made of the data: three blocks),
 * over generated text-like and binary-like data (no files needed). Each
 * stream is decoded back by fz7 and compared with the input first.
 * scripts/cross.sh runs it natively and under qemu-user (aarch64, s390x)
 * and diffs the lists: the same input and options must give the same bytes
 * on every CPU.
 *
 * Usage: enc_hashes [BYTES]   (default 393216; exit 1 on a mismatch) */
#include "check/check.h"
#include "format/xz/xz_write.h"
#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef fz7_membuf sink;

static int failures;

static void report(const char *name, const sink *k)
{
    fz7_sha256 h;
    uint8_t d[32];
    fz7_sha256_init(&h);
    fz7_sha256_update(&h, k->p, k->n);
    fz7_sha256_final(&h, d);
    printf("%-28s %8zu ", name, k->n);
    for (int i = 0; i < 32; i++)
        printf("%02x", d[i]);
    putchar('\n');
}

/* Decodes src (raw LZMA with props, or LZMA2 with dict_prop) and compares. */
static void check_back(const char *name, const sink *k, const uint8_t *props, int dict_prop, const uint8_t *in,
                       size_t n)
{
    fz7_istream *src = fz7_istream_from_memory(k->p, k->n), *dec = NULL;
    fz7_status st = props ? fz7_lzma_istream_new(src, props, n, FZ7_DEFAULT_MEM_LIMIT, &dec)
                          : fz7_lzma2_istream_new(src, (uint8_t)dict_prop, FZ7_DEFAULT_MEM_LIMIT, &dec);
    uint8_t *out = malloc(n + 1);
    size_t got = 0, g;
    while (st == FZ7_OK && (st = dec->read(dec, out + got, n + 1 - got, &g)) == FZ7_OK && g)
        got += g;
    if (st != FZ7_OK || got != n || memcmp(out, in, n)) {
        fprintf(stderr, "enc_hashes: %s does not decode back (%s, %zu of %zu bytes)\n", name,
                fz7_status_str(st), got, n);
        failures++;
    }
    free(out);
    fz7_istream_free(dec), fz7_istream_free(src);
}

/* Encodes in with opts as raw LZMA (lzma2 0), LZMA2 (1) or multi-threaded
 * LZMA2 with `threads` threads and 1 MiB blocks (2). */
static void run(const char *name, const fz7_lzma_enc_opts *opts, int kind, unsigned threads, const uint8_t *in,
                size_t n)
{
    sink k = {.base = {fz7_membuf_write}};
    fz7_lzma_enc *e = NULL;
    fz7_status st = kind == 0   ? fz7_lzma_enc_new(opts, &k.base, &e)
                    : kind == 1 ? fz7_lzma2_enc_new(opts, &k.base, &e)
                                : fz7_lzma2_enc_new_mt(opts, threads, (uint64_t)1 << 20, &k.base, &e);
    /* pieces of 100 000 bytes: the output must not depend on them either */
    for (size_t off = 0; st == FZ7_OK && off < n; off += 100000)
        st = fz7_lzma_enc_write(e, in + off, n - off < 100000 ? n - off : 100000);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(e);
    uint8_t props[5];
    int dict_prop = 0;
    if (e)
        fz7_lzma_enc_props(e, props), dict_prop = fz7_lzma2_enc_dict_prop(e);
    fz7_lzma_enc_free(e);
    if (st != FZ7_OK) {
        fprintf(stderr, "enc_hashes: %s: %s\n", name, fz7_status_str(st));
        failures++;
    } else {
        check_back(name, &k, kind == 0 ? props : NULL, dict_prop, in, n);
        report(name, &k);
    }
    free(k.p);
}

/* An .xz file written to a memfd (the writer needs an fd). */
static void run_xz(const char *name, const fz7_xz_opts *o, const uint8_t *in, size_t n)
{
    sink k = {.base = {fz7_membuf_write}};
    int fd = memfd_create("enc_hashes", 0);
    fz7_xz_writer *w = NULL;
    fz7_status st = fd < 0 ? FZ7_E_IO : fz7_xz_writer_new(fd, o, &w);
    if (st == FZ7_OK)
        st = fz7_xz_writer_write(w, in, n);
    if (st == FZ7_OK)
        st = fz7_xz_writer_finish(w);
    fz7_xz_writer_free(w);
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (st == FZ7_OK && size > 0 && (k.p = malloc((size_t)size)) && pread(fd, k.p, (size_t)size, 0) == size) {
        k.n = (size_t)size;
        report(name, &k);
    } else {
        fprintf(stderr, "enc_hashes: %s: %s\n", name, fz7_status_str(st));
        failures++;
    }
    if (fd >= 0)
        close(fd);
    free(k.p);
}

/* Half text-like words, half binary with copies at many distances and
 * x86-like call bytes, from a fixed seed. */
static void generate(uint8_t *p, size_t n)
{
    static const char *words[] = {"match ", "literal ", "range ", "coder ", "the ", "of ", "window ",
                                  "distance ", "\n", "state ", "price ", "dictionary "};
    uint64_t x = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < n;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (i < n / 2) {
            for (const char *w = words[(x >> 20) % 12]; *w && i < n; w++)
                p[i++] = (uint8_t)*w;
        } else if ((x >> 40) % 4 == 0 && i > n / 2 + 70000) {
            size_t d = 1 + (size_t)((x >> 8) % 65536), len = 2 + (size_t)((x >> 30) % 300);
            for (size_t k = 0; k < len && i < n; k++, i++)
                p[i] = p[i - d];
        } else if ((x >> 40) % 4 == 1) {
            p[i++] = 0xE8;
        } else {
            p[i++] = (uint8_t)(x >> 24);
        }
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 393216;
    uint8_t *in = malloc(n ? n : 1);
    if (!in)
        return 1;
    generate(in, n);
    char name[64];
    fz7_lzma_enc_opts o;
    for (unsigned level = 0; level <= 9; level++) {
        fz7_lzma_enc_preset(&o, level);
        fz7_lzma_enc_reduce_dict(&o, n);
        snprintf(name, sizeof name, "lzma1-mx%u", level), run(name, &o, 0, 1, in, n);
        snprintf(name, sizeof name, "lzma2-mx%u", level), run(name, &o, 1, 1, in, n);
        fz7_xz_opts x = {.lzma = o, .check = FZ7_XZ_CHECK_CRC64, .size_hint = n};
        snprintf(name, sizeof name, "xz-mx%u", level), run_xz(name, &x, in, n);
    }
    static const char *mfs[] = {"hc4", "bt2", "bt3", "bt4", "hc5", "hb5"};
    for (unsigned mf = 0; mf < 6; mf++)
        for (unsigned mode = 0; mode < 2; mode++) {
            fz7_lzma_enc_preset(&o, mode ? 5 : 3);
            o.mf = (fz7_lz_kind)mf, o.dict_size = 1 << 16, o.mf_thread = mode;
            snprintf(name, sizeof name, "lzma2-%s-a%u-d64k", mfs[mf], mode), run(name, &o, 1, 1, in, n);
        }
    fz7_lzma_enc_preset(&o, 5);
    o.lc = 0, o.lp = 2, o.pb = 0, o.end_marker = 1;
    run("lzma1-lc0lp2pb0-eos", &o, 0, 1, in, n);
    o.lc = 8, o.lp = 4, o.pb = 4, o.end_marker = 0;
    run("lzma1-lc8lp4pb4", &o, 0, 1, in, n);
    /* the multi-threaded encoder over 2.25 MiB (the input three times, the
     * copies 3 bytes apart): three 1 MiB blocks, the later ones starting
     * from the block before */
    size_t big_n = n ? (size_t)9 << 18 : 0;
    uint8_t *big = malloc(big_n + 1);
    for (size_t i = 0; big && i < big_n; i++)
        big[i] = in[(i + 3 * (i / n)) % n];
    for (unsigned c = 0; big && c < 3; c++) {
        unsigned level = c < 2 ? 1 : 5, t = c == 0 ? 1 : 3;
        fz7_lzma_enc_preset(&o, level);
        snprintf(name, sizeof name, "lzma2-mt-mx%u-1m-t%u", level, t), run(name, &o, 2, t, big, big_n);
    }
    free(big);
    fz7_lzma_enc_preset(&o, 6);
    fz7_xz_opts x = {.lzma = o, .check = FZ7_XZ_CHECK_SHA256, .bcj_x86 = true, .block_size = 100000};
    run_xz("xz-mx6-x86-sha256-blocks", &x, in, n);
    x = (fz7_xz_opts){.lzma = o, .check = FZ7_XZ_CHECK_CRC32, .delta_distance = 4};
    run_xz("xz-mx6-delta4-crc32", &x, in, n);
    free(in);
    return failures ? 1 : 0;
}
