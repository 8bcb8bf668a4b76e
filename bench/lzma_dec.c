/* lzma_dec.c (fz7bench_lzma_dec) - decode-speed check for the LZMA/LZMA2
 * decoders.
 *
 * Usage: fz7bench_lzma_dec FILE.lzma            (.lzma: 13-byte header)
 *        fz7bench_lzma_dec -2 DICTPROP FILE.raw  (raw LZMA2 stream)
 * Prints the SHA-256 of the output, its size and the best MB/s of a few
 * runs (HASH=0: no hashing). Not a test: it asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "lzma/lzma_dec.h"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int lzma2 = argc == 4 && strcmp(argv[1], "-2") == 0;
    if (argc != 2 && !lzma2) {
        fprintf(stderr, "usage: %s FILE.lzma | -2 DICTPROP FILE.raw\n", argv[0]);
        return 2;
    }
    size_t n;
    uint8_t *data = slurp(argv[argc - 1], &n);
    if (!data || (!lzma2 && n < 13)) {
        fprintf(stderr, "cannot read input\n");
        return 2;
    }
    int runs = getenv("RUNS") ? atoi(getenv("RUNS")) : 5;
    /* HASH=0 leaves the SHA-256 out (for timing one run with perf stat). */
    int hash = !(getenv("HASH") && !strcmp(getenv("HASH"), "0"));
    size_t bufsz = (size_t)1 << 20;
    uint8_t *buf = malloc(bufsz);
    double best = 1e30;
    uint64_t total = 0;
    uint8_t digest[32];
    for (int r = 0; r < runs; r++) {
        fz7_istream *src, *dec;
        fz7_status st;
        double t0 = now();
        if (lzma2) {
            src = fz7_istream_from_memory(data, n);
            st = fz7_lzma2_istream_new(src, (uint8_t)atoi(argv[2]), FZ7_DEFAULT_MEM_LIMIT, &dec);
        } else {
            src = fz7_istream_from_memory(data + 13, n - 13);
            st = fz7_lzma_istream_new(src, data, fz7_get64le(data + 5), FZ7_DEFAULT_MEM_LIMIT, &dec);
        }
        if (st != FZ7_OK) {
            fprintf(stderr, "open: %s\n", fz7_status_str(st));
            return 1;
        }
        fz7_sha256 sh;
        fz7_sha256_init(&sh);
        total = 0;
        for (;;) {
            size_t got;
            st = dec->read(dec, buf, bufsz, &got);
            if (st != FZ7_OK) {
                fprintf(stderr, "read: %s after %llu bytes\n", fz7_status_str(st), (unsigned long long)total);
                return 1;
            }
            if (got == 0)
                break;
            if (r == 0 && hash)
                fz7_sha256_update(&sh, buf, got);
            total += got;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
        if (r == 0)
            fz7_sha256_final(&sh, digest);
        fz7_istream_free(dec);
        fz7_istream_free(src);
    }
    for (int i = 0; i < 32; i++)
        printf("%02x", digest[i]);
    printf("  %llu bytes  best %.3f s  %.1f MB/s\n", (unsigned long long)total, best, total / best / 1e6);
    return 0;
}
