/* aes.c (fz7bench_aes) - MB/s of AES-256-CBC decryption and encryption on
 * every path the CPU has, in place on a 64 MiB buffer (memory-bound on
 * most machines) and on a 256 KiB one passed over repeatedly (in cache, as
 * `7zz b` measures), plus the 7zAES KDF
 * (key derivations per second at power 19), to set beside
 * `7zz b -mm=AES256CBC:3` and `openssl speed -evp aes-256-cbc`.
 * Usage: fz7bench_aes [MiB] [repeats] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "crypto/aes.h"
#include "crypto/aes7z.h"

typedef void (*cbc_fn)(const void *rk, uint8_t iv[16], uint8_t *buf, size_t nblocks);

/* Process CPU time rather than wall time, so a machine shared with other
 * jobs gives the rate of the cycles this process actually got. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of `repeats` timings of `passes` passes over n bytes, in MB/s
 * (10^6 bytes) of CPU time. */
static double measure(cbc_fn fn, const void *rk, uint8_t *buf, size_t n, int passes, int repeats)
{
    uint8_t iv[16] = {0};
    double best = 1e30;
    for (int r = 0; r < repeats; r++) {
        double t = now();
        for (int p = 0; p < passes; p++)
            fn(rk, iv, buf, n / 16);
        t = (now() - t) / passes;
        if (t < best)
            best = t;
    }
    return (double)n / best / 1e6;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    if (mib == 0 || repeats <= 0)
        return 2;
    size_t n = mib << 20;
    uint8_t *buf = aligned_alloc(64, n);
    if (!buf)
        return 8;
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    uint8_t key[32];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(i * 7 + 1);
    fz7_aes256_key k;
    fz7_aes256_expand(&k, key);

    const fz7_cpu_features *f = fz7_cpu_features_get();
    struct { const char *name; cbc_fn fn; int dec; int ok; } paths[16];
    size_t np = 0;
    for (int dec = 1; dec >= 0; dec--) {
        size_t nk;
        const fz7_aes_cbc_kernel *ks = dec ? fz7_aes_cbc_dec_kernels(&nk) : fz7_aes_cbc_enc_kernels(&nk);
        for (size_t i = 0; i < nk && np < sizeof paths / sizeof paths[0]; i++, np++) {
            paths[np].name = ks[i].info.name;
            paths[np].fn = ks[i].fn;
            paths[np].dec = dec;
            paths[np].ok = fz7_cpu_can_run(ks[i].info.need);
        }
    }
    printf("CPU: %s\nbuffer %zu MiB, best of %d, MB/s of process CPU time\n", f->brand, mib, repeats);
    for (size_t p = 0; p < np; p++) {
        if (!paths[p].ok) {
            printf("%-8s %s: skipped (CPU lacks the features)\n", paths[p].name,
                   paths[p].dec ? "decrypt" : "encrypt");
            continue;
        }
        /* The portable path is slow: time it on 1/16 of the buffer. */
        int slow = strcmp(paths[p].name, "portable") == 0;
        size_t len = slow ? n / 16 : n;
        const void *rk = paths[p].dec ? (const void *)k.dec : (const void *)k.enc;
        double big = measure(paths[p].fn, rk, buf, len, 1, repeats);
        size_t small = (size_t)256 << 10;
        int passes = slow ? 1 : (int)(n / small);
        double cached = measure(paths[p].fn, rk, buf, small < n ? small : n, passes, repeats);
        printf("%-8s %s: %9.1f MB/s (%zu MiB)  %9.1f MB/s (256 KiB, in cache)\n", paths[p].name,
               paths[p].dec ? "decrypt" : "encrypt", big, len >> 20, cached);
    }

    /* KDF: one 7zAES key derivation at power 19 with an 8-char password. */
    {
        static const uint8_t props[18] = {0x53, 0x0f};
        fz7_istream *mem = fz7_istream_from_memory(buf, 16), *s = NULL;
        double t = now();
        fz7_7zaes_cache_clear();
        fz7_status st = fz7_7zaes_istream_new(mem, props, sizeof props, "password", &s);
        t = now() - t;
        printf("7zAES KDF (power 19, 8-char password): %.1f ms (%s)\n", t * 1e3,
               fz7_status_str(st));
        fz7_istream_free(s);
        fz7_istream_free(mem);
    }
    fz7_aes256_wipe(&k);
    free(buf);
    return 0;
}
