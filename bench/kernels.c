/* kernels.c (fz7bench_kernels) - throughput of every CRC-32, CRC-64,
 * SHA-256 and match_len path this CPU runs, on a 256 MiB buffer (memory
 * bound) and on a 256 KiB buffer hashed over and over (in cache), beside
 * 7zz's own hash benchmark (`7zz b -mm=CRC32|CRC64|SHA256 -mmt1`).
 *
 * usage: fz7bench_kernels [--mib N] [--no-7zz] [--7zz-seconds S] */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "check/check_kernels.h"
#include "lz/match_len.h"

typedef uint32_t (*crc32_fn)(uint32_t, const uint8_t *, size_t);
typedef uint64_t (*crc64_fn)(uint64_t, const uint8_t *, size_t);
typedef void (*sha_fn)(uint32_t *, const uint8_t *, size_t);
typedef uint32_t (*mlen_fn)(const uint8_t *, const uint8_t *, uint32_t);

enum kind { K_CRC32, K_CRC64, K_SHA256, K_MLEN };

typedef struct bench_path {
    enum kind kind;
    const char *name;
    void (*fn)(void);
    bool have;
} bench_path;

#define FN(f) ((void (*)(void))(f))

/* CPU time of this thread: the machine is shared, and time spent waiting
 * for a core is not the kernel's. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps results alive so that no call is optimised away. */
static volatile uint64_t g_sink;

/* One pass over total bytes, in chunks of chunk bytes from buf. */
static void run_once(const bench_path *bp, const uint8_t *buf, const uint8_t *buf2, size_t chunk, size_t total)
{
    uint64_t acc = 0;
    for (size_t done = 0; done < total; done += chunk) {
        switch (bp->kind) {
        case K_CRC32:
            acc += ((crc32_fn)bp->fn)((uint32_t)acc, buf, chunk);
            break;
        case K_CRC64:
            acc += ((crc64_fn)bp->fn)(acc, buf, chunk);
            break;
        case K_SHA256: {
            uint32_t st[8] = {(uint32_t)acc};
            ((sha_fn)bp->fn)(st, buf, chunk / 64);
            acc += st[0];
            break;
        }
        case K_MLEN: {
            /* Matches of the longest LZMA length (273) over equal buffers. */
            mlen_fn f = (mlen_fn)bp->fn;
            for (size_t at = 0; at + 273 <= chunk; at += 273)
                acc += f(buf + at, buf2 + at, 273);
            break;
        }
        }
    }
    g_sink += acc;
}

/* Best of reps passes, in GB/s (1e9 bytes per CPU second). */
static double measure(const bench_path *bp, const uint8_t *buf, const uint8_t *buf2, size_t chunk,
                      size_t total, int reps)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        run_once(bp, buf, buf2, chunk, total);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return (double)total / best / 1e9;
}

/* Runs `7zz b -mm=METHOD -mmt1` for at most seconds and returns its best
 * single-thread rate over the buffer sizes it printed, in GB/s (0 if none).
 * Its rows read "SIZE:  USAGE%  MB/s" with MB/s per wall-clock second; the
 * rate is divided by the usage so that it too is per CPU second. */
static double run_7zz(const char *method, int seconds)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "timeout -s INT %d 7zz b -mm=%s -mmt1 2>&1", seconds, method);
    FILE *f = popen(cmd, "r");
    if (!f)
        return 0;
    char line[512];
    double best = 0;
    printf("  7zz b -mm=%s -mmt1:", method);
    while (fgets(line, sizeof line, f)) {
        int size, usage;
        double mbs;
        if (sscanf(line, "%d: %d %lf", &size, &usage, &mbs) == 3 && size > 0 && size < 40) {
            printf(" [%d: %.0f MB/s at %d%%]", size, mbs, usage);
            if (usage > 0)
                mbs = mbs * 100.0 / (usage < 100 ? usage : 100);
            if (mbs > best)
                best = mbs;
        }
    }
    pclose(f);
    printf("\n");
    return best / 1000.0;
}

int main(int argc, char **argv)
{
    size_t mib = 256;
    bool with_7zz = true;
    int seconds_7zz = 60;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc)
            mib = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--no-7zz"))
            with_7zz = false;
        else if (!strcmp(argv[i], "--7zz-seconds") && i + 1 < argc)
            seconds_7zz = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--mib N] [--no-7zz] [--7zz-seconds S]\n", argv[0]);
            return 2;
        }
    }
    size_t big = mib << 20, small = 256 << 10;
    uint8_t *buf = malloc(big), *buf2 = malloc(big);
    if (!buf || !buf2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    uint64_t s = 1;
    for (size_t i = 0; i < big; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(s >> 56);
    }
    memcpy(buf2, buf, big);

    const fz7_cpu_features *f = fz7_cpu_features_get();
    fz7_cpu_level max = fz7_cpu_max_level();
    bench_path paths[16];
    size_t np = 0, nk;
#define ADD_FAMILY(kind, list)                                                     \
    for (size_t i = 0; i < nk && np < sizeof paths / sizeof paths[0]; i++)         \
        paths[np++] = (bench_path){kind, (list)[i].info.name, FN((list)[i].fn),    \
                                   fz7_cpu_can_run((list)[i].info.need)}
    const fz7_crc32_kernel *c32 = fz7_crc32_kernels(&nk);
    ADD_FAMILY(K_CRC32, c32);
    const fz7_crc64_kernel *c64 = fz7_crc64_kernels(&nk);
    ADD_FAMILY(K_CRC64, c64);
    const fz7_sha256_kernel *sha = fz7_sha256_kernels(&nk);
    ADD_FAMILY(K_SHA256, sha);
    const fz7_match_len_kernel *ml = fz7_match_len_kernels(&nk);
    ADD_FAMILY(K_MLEN, ml);
#undef ADD_FAMILY
    static const char *kind_names[] = {"crc32", "crc64", "sha256", "match_len"};
    static const char *methods_7zz[] = {"CRC32", "CRC64", "SHA256", NULL};
    double best_fz7[4] = {0};

    printf("CPU: %s (max level %s)\n", f->brand, fz7_cpu_level_name(max));
    printf("GB/s = 1e9 bytes per CPU second, best of several passes\n");
    printf("%-10s %-16s %12s %12s\n", "kernel", "path", "GB/s 256KiB", "GB/s big");
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < np; i++) {
            const bench_path *bp = &paths[i];
            if ((int)bp->kind != k)
                continue;
            if (!bp->have) {
                printf("%-10s %-16s %12s\n", kind_names[k], bp->name, "skipped (CPU)");
                continue;
            }
            double in_cache = measure(bp, buf, buf2, small, 32u << 20, 15);
            double in_mem = measure(bp, buf, buf2, big, big, 3);
            printf("%-10s %-16s %12.2f %12.2f   (%zu MiB)\n", kind_names[k], bp->name, in_cache, in_mem, mib);
            if (in_cache > best_fz7[k])
                best_fz7[k] = in_cache;
            fflush(stdout);
        }
    }
    if (with_7zz) {
        printf("7zz, single thread, best row (its buffers are cache-sized):\n");
        for (int k = 0; methods_7zz[k]; k++) {
            fflush(stdout);
            double z = run_7zz(methods_7zz[k], seconds_7zz);
            if (z > 0)
                printf("  %-7s fz7 best %.2f GB/s vs 7zz %.2f GB/s: %.1fx\n", kind_names[k], best_fz7[k], z,
                       best_fz7[k] / z);
            else
                printf("  %-7s 7zz printed no rows (not installed or timed out)\n", kind_names[k]);
        }
    }
    free(buf);
    free(buf2);
    return 0;
}
