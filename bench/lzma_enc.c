/* lzma_enc.c - bench: encode one file as LZMA2 (or raw LZMA) at a level and
 * print the compressed size and the time taken.
 *
 * usage: fz7bench_lzma_enc FILE LEVEL [lzma1|lzma2] [OUT] [PARAM...]
 *   PARAM: 7-Zip method parameters such as d=16m fb=64 mf=hc4 (applied after
 *   the level's preset; the dictionary is not reduced to the file size),
 *   and mt=N (threads: multi-threaded LZMA2) and bs=BYTES (its block size;
 *   0 = automatic; suffix k/m allowed).
 *   OUT: write the raw stream there ("-" = nowhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lzma/lzma_enc.h"
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_presets.h"

typedef struct sink {
    fz7_ostream base;
    FILE *f;
    uint64_t n;
} sink;

static fz7_status sink_write(fz7_ostream *s, const uint8_t *buf, size_t n)
{
    sink *k = (sink *)s;
    k->n += n;
    if (k->f && fwrite(buf, 1, n, k->f) != n)
        return FZ7_E_IO;
    return FZ7_OK;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE LEVEL [lzma1|lzma2] [OUT|-] [PARAM...]\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    fz7_lzma_enc_opts opts;
    if (fz7_lzma_enc_preset(&opts, (unsigned)atoi(argv[2])) != FZ7_OK) {
        fprintf(stderr, "bad level\n");
        return 2;
    }
    int lzma2 = !(argc > 3 && strcmp(argv[3], "lzma1") == 0);
    unsigned threads = 0;
    unsigned long long block_size = 0;
    for (int i = 5; i < argc; i++) {
        if (strncmp(argv[i], "mt=", 3) == 0) {
            threads = (unsigned)atoi(argv[i] + 3);
            continue;
        }
        if (strncmp(argv[i], "bs=", 3) == 0) {
            char *end;
            block_size = strtoull(argv[i] + 3, &end, 10);
            block_size <<= *end == 'k' ? 10 : *end == 'm' ? 20 : 0;
            continue;
        }
        if (fz7_lzma_enc_parse_param(&opts, argv[i]) != FZ7_OK) {
            fprintf(stderr, "bad parameter %s\n", argv[i]);
            return 2;
        }
    }
    sink k = {{sink_write}, NULL, 0};
    if (argc > 4 && strcmp(argv[4], "-") != 0) {
        k.f = fopen(argv[4], "wb");
        if (!k.f) {
            perror(argv[4]);
            return 1;
        }
    }
    static uint8_t buf[1 << 20];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fz7_lzma_enc *enc;
    fz7_status st = threads ? fz7_lzma2_enc_new_mt(&opts, threads, block_size, &k.base, &enc)
                  : lzma2 ? fz7_lzma2_enc_new(&opts, &k.base, &enc) : fz7_lzma_enc_new(&opts, &k.base, &enc);
    size_t got;
    while (st == FZ7_OK && (got = fread(buf, 1, sizeof(buf), in)) > 0)
        st = fz7_lzma_enc_write(enc, buf, got);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(enc);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (st != FZ7_OK) {
        fprintf(stderr, "encode failed: %s\n", fz7_status_str(st));
        return 1;
    }
    printf("%s level %s %s: %llu -> %llu bytes, %.3f s, %.2f MB/s, mem %llu MiB\n", argv[1], argv[2],
           lzma2 ? "lzma2" : "lzma1", (unsigned long long)fz7_lzma_enc_bytes_in(enc),
           (unsigned long long)k.n, secs, (double)fz7_lzma_enc_bytes_in(enc) / secs / 1e6,
           (unsigned long long)((threads ? fz7_lzma2_mt_memusage(&opts, threads, block_size)
                                         : fz7_lzma_enc_memusage(&opts)) >> 20));
    fz7_lzma_enc_free(enc);
    fclose(in);
    if (k.f)
        fclose(k.f);
    return 0;
}
