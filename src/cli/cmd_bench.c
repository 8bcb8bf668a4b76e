/* cmd_bench.c - `fz7 b`: LZMA compression and decompression speeds per
 * dictionary size on generated data, and the speeds of the kernels
 * (CRC32, CRC64, SHA256, AES256CBC) at every CPU level from the one
 * in use down to portable, so each SIMD path's gain is visible. */
#include "cli/cli.h"

#include "check/check.h"
#include "check/check_kernels.h"
#include "cpu/cpu.h"
#include "lz/match_len.h"
#include "crypto/aes.h"
#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma_presets.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define DICT_BITS_FIRST 22
#define DICT_BITS_LAST 25
#define MAX_THREADS 64

/* Time budgets in seconds. Compression feeds the encoder until its budget
 * is spent (at least COMPRESS_MIN_BYTES), so a slow machine still finishes
 * a row in about a second; decompression repeats the whole stream. */
#define COMPRESS_SECONDS 0.6
#define DECOMPRESS_SECONDS 0.3
#define KERNEL_SECONDS 0.08
#define COMPRESS_CHUNK ((size_t)64 << 10)
#define COMPRESS_MIN_BYTES ((size_t)256 << 10)

/* The rating is an estimate in MIPS from a fixed model of instructions per
 * byte: compression 48 * log2(dictionary) per input byte (deeper searches in
 * bigger windows), decompression 90 per output byte. It makes rows, levels
 * and machines comparable between fz7 runs; it is not 7-Zip's number. */
#define RATING_COMPRESS_PER_DICT_BIT 48.0
#define RATING_DECOMPRESS 90.0

static double now_sec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_sec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- test data -----------------------------------------------------------
 * Deterministic and compressible like real files: words of a generated
 * vocabulary (picked with a skew toward the first ones), copies of earlier
 * data at near and far distances (far ones reach across the whole buffer,
 * so larger dictionaries find more), and short runs of random bytes. The
 * same seed gives the same bytes on every machine and level. */

typedef struct rng { uint64_t s; } rng;

static uint64_t rng_next(rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(rng *r, uint32_t n) { return (uint32_t)((rng_next(r) >> 32) * n >> 32); }

#define VOCAB_WORDS 2048
#define WORD_MAX 12

static void generate_data(uint8_t *buf, size_t n, uint64_t seed)
{
    static const char letters[] = "etaoinshrdlcumwfgypbvkjxqz";
    rng r = {seed};
    char vocab[VOCAB_WORDS][WORD_MAX + 1];
    uint8_t vlen[VOCAB_WORDS];
    for (unsigned w = 0; w < VOCAB_WORDS; w++) {
        unsigned len = 2 + rng_below(&r, 4) + rng_below(&r, 6);
        for (unsigned i = 0; i < len; i++) {
            uint32_t a = rng_below(&r, 26), b = rng_below(&r, 26);
            vocab[w][i] = letters[a < b ? a : b]; /* skewed toward common letters */
        }
        vlen[w] = (uint8_t)len;
    }
    size_t pos = 0;
    while (pos < n) {
        uint32_t kind = rng_below(&r, 100);
        if (kind < 28 && pos >= 64) {
            /* A copy: 4..67 bytes from 1..4 KiB back, or from anywhere. */
            size_t len = 4 + rng_below(&r, 16) + rng_below(&r, 16) * rng_below(&r, 4);
            size_t dist = rng_below(&r, 3) ? 1 + rng_below(&r, pos < 4096 ? (uint32_t)pos : 4096)
                                           : 1 + (size_t)(rng_next(&r) % pos);
            for (size_t i = 0; i < len && pos < n; i++, pos++)
                buf[pos] = buf[pos - dist];
        } else if (kind < 94) {
            uint32_t w = rng_below(&r, VOCAB_WORDS) * rng_below(&r, VOCAB_WORDS) / VOCAB_WORDS;
            for (unsigned i = 0; i < vlen[w] && pos < n; i++)
                buf[pos++] = (uint8_t)vocab[w][i];
            uint32_t sep = rng_below(&r, 16);
            if (pos < n)
                buf[pos++] = sep == 0 ? '\n' : sep == 1 ? ',' : ' ';
        } else {
            size_t len = 1 + rng_below(&r, 24);
            for (size_t i = 0; i < len && pos < n; i++)
                buf[pos++] = (uint8_t)rng_next(&r);
        }
    }
}

/* ---- LZMA ---------------------------------------------------------------- */

/* One thread's share of an LZMA row. */
typedef struct lzma_job {
    const uint8_t *data;
    size_t data_len;
    uint32_t dict;
    pthread_t thread;
    /* Results. */
    fz7_status st;
    bool mismatch;             /* decoded bytes differ from the input */
    uint64_t in_bytes, packed_bytes, out_bytes;
    double c_sec, d_sec;
} lzma_job;

static fz7_status lzma_compress(lzma_job *j, fz7_membuf *sink, uint8_t props[5])
{
    fz7_lzma_enc_opts opts;
    fz7_lzma_enc_preset(&opts, 5);
    opts.dict_size = j->dict;
    fz7_lzma_enc *enc;
    fz7_status st = fz7_lzma_enc_new(&opts, &sink->base, &enc);
    if (st != FZ7_OK)
        return st;
    double t0 = now_sec();
    size_t pos = 0;
    while (pos < j->data_len && st == FZ7_OK) {
        size_t n = j->data_len - pos < COMPRESS_CHUNK ? j->data_len - pos : COMPRESS_CHUNK;
        st = fz7_lzma_enc_write(enc, j->data + pos, n);
        pos += n;
        if (pos >= COMPRESS_MIN_BYTES && now_sec() - t0 >= COMPRESS_SECONDS)
            break;
    }
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(enc);
    j->c_sec = now_sec() - t0;
    fz7_lzma_enc_props(enc, props);
    fz7_lzma_enc_free(enc);
    j->in_bytes = pos;
    j->packed_bytes = sink->n;
    return st;
}

static fz7_status lzma_decompress_once(const fz7_membuf *sink, const uint8_t props[5], uint8_t *out,
                                       size_t n)
{
    fz7_istream *src = fz7_istream_from_memory(sink->p, sink->n);
    if (!src)
        return FZ7_E_MEM;
    fz7_istream *dec;
    fz7_status st = fz7_lzma_istream_new(src, props, n, FZ7_DEFAULT_MEM_LIMIT, &dec);
    if (st == FZ7_OK) {
        st = fz7_istream_read_full(dec, out, n);
        uint8_t extra;
        size_t got = 0;
        if (st == FZ7_OK && (st = dec->read(dec, &extra, 1, &got)) == FZ7_OK && got)
            st = FZ7_E_DATA;
        fz7_istream_free(dec);
    }
    fz7_istream_free(src);
    return st;
}

static void *lzma_worker(void *arg)
{
    lzma_job *j = arg;
    fz7_membuf sink;
    fz7_membuf_init(&sink);
    uint8_t props[5];
    j->st = lzma_compress(j, &sink, props);
    uint8_t *out = j->st == FZ7_OK ? malloc(j->in_bytes ? j->in_bytes : 1) : NULL;
    if (j->st == FZ7_OK && !out)
        j->st = FZ7_E_MEM;
    if (j->st == FZ7_OK) {
        double t0 = now_sec();
        do {
            j->st = lzma_decompress_once(&sink, props, out, j->in_bytes);
            j->out_bytes += j->in_bytes;
            j->d_sec = now_sec() - t0;
        } while (j->st == FZ7_OK && j->d_sec < DECOMPRESS_SECONDS);
        j->mismatch = j->st == FZ7_OK && memcmp(out, j->data, j->in_bytes) != 0;
    }
    free(out);
    fz7_membuf_free(&sink);
    return NULL;
}

/* One row's totals over every thread. */
typedef struct lzma_row {
    double c_speed, d_speed;   /* bytes per second, all threads */
    double c_usage, d_usage;   /* CPU time / wall time, in percent */
    double c_rating, d_rating; /* MIPS estimates */
    double ratio;              /* packed / input, percent */
} lzma_row;

static unsigned dict_bits(uint32_t dict)
{
    unsigned b = 0;
    while (b < 31 && ((uint32_t)1 << (b + 1)) <= dict)
        b++;
    return b;
}

/* Runs one dictionary size on `threads` threads; 0 or an exit code. */
static int lzma_row_run(const uint8_t *data, size_t data_len, uint32_t dict, unsigned threads,
                        lzma_row *row)
{
    lzma_job jobs[MAX_THREADS];
    memset(jobs, 0, sizeof jobs);
    double w0 = now_sec(), c0 = cpu_sec();
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (lzma_job){.data = data, .data_len = data_len, .dict = dict};
        if (threads == 1) {
            lzma_worker(&jobs[t]);
            started = 1;
        } else if (pthread_create(&jobs[t].thread, NULL, lzma_worker, &jobs[t]) == 0) {
            started++;
        } else {
            break;
        }
    }
    if (threads > 1)
        for (unsigned t = 0; t < started; t++)
            pthread_join(jobs[t].thread, NULL);
    double wall = now_sec() - w0, cpu = cpu_sec() - c0;
    if (started == 0)
        return FZ7_EXIT_MEMORY;
    uint64_t in = 0, packed = 0, out = 0;
    double c_sec = 0, d_sec = 0;
    for (unsigned t = 0; t < started; t++) {
        if (jobs[t].st != FZ7_OK || jobs[t].mismatch) {
            fflush(stdout);
            fprintf(stderr, "ERROR: LZMA benchmark, dictionary %u bytes: %s\n", (unsigned)dict,
                    jobs[t].mismatch ? "decoded data differ from the input"
                                     : fz7_status_str(jobs[t].st));
            return jobs[t].st == FZ7_E_MEM ? FZ7_EXIT_MEMORY : FZ7_EXIT_FATAL;
        }
        in += jobs[t].in_bytes;
        packed += jobs[t].packed_bytes;
        out += jobs[t].out_bytes;
        if (jobs[t].c_sec > c_sec)
            c_sec = jobs[t].c_sec;
        if (jobs[t].d_sec > d_sec)
            d_sec = jobs[t].d_sec;
    }
    /* Usage: the CPU time of the whole row split between the phases in
     * proportion to their wall time (both phases keep every thread busy). */
    double phase_wall = c_sec + d_sec;
    double usage = phase_wall > 0 ? 100.0 * cpu / (wall > phase_wall ? wall : phase_wall) : 0;
    row->c_speed = c_sec > 0 ? (double)in / c_sec : 0;
    row->d_speed = d_sec > 0 ? (double)out / d_sec : 0;
    row->c_usage = row->d_usage = usage;
    row->c_rating = row->c_speed * RATING_COMPRESS_PER_DICT_BIT * dict_bits(dict) / 1e6;
    row->d_rating = row->d_speed * RATING_DECOMPRESS / 1e6;
    row->ratio = in ? 100.0 * (double)packed / (double)in : 0;
    return 0;
}

static void dict_label(char *buf, size_t cap, uint32_t dict)
{
    if (((uint32_t)1 << dict_bits(dict)) == dict)
        snprintf(buf, cap, "%u:", dict_bits(dict));
    else if (dict % MIB == 0)
        snprintf(buf, cap, "%um:", (unsigned)(dict / MIB));
    else
        snprintf(buf, cap, "%uk:", (unsigned)(dict >> 10));
}

/* The columns of the LZMA table, as text and as numbers. */
#define ROW_TEXT "%-6s %9s %5s %6s %7s  | %9s %5s %7s\n"
#define ROW_NUMBERS "%-6s %9.2f %5.0f %6.1f %7.0f  | %9.2f %5.0f %7.0f\n"

static void print_row(const char *label, const lzma_row *r)
{
    printf(ROW_NUMBERS, label, r->c_speed / 1e6,
           r->c_usage, r->ratio, r->c_rating, r->d_speed / 1e6, r->d_usage, r->d_rating);
}

/* The LZMA table for the given dictionary sizes, then, when the level in
 * use is above portable, the smallest dictionary again at each lower level
 * (the match finder's match_len kernel is the part that changes) when
 * each_level is true. */
static int bench_lzma(const uint32_t *dicts, size_t ndicts, unsigned threads, unsigned passes,
                      bool each_level)
{
    uint32_t largest = 0;
    for (size_t i = 0; i < ndicts; i++)
        if (dicts[i] > largest)
            largest = dicts[i];
    /* The buffer is as large as the largest dictionary (plus a little, so
     * the window slides) but never above 64 MiB. */
    size_t data_len = largest + (largest >> 2);
    if (data_len > 64 * MIB)
        data_len = 64 * MIB;
    if (data_len < 4 * MIB)
        data_len = 4 * MIB;
    uint8_t *data = malloc(data_len);
    if (!data) {
        fprintf(stderr, "ERROR: Can't allocate required memory\n");
        return FZ7_EXIT_MEMORY;
    }
    generate_data(data, data_len, 0x667A37u);

    printf("LZMA (level 5: normal parser, bt4, nice_len 32), %u thread%s, match_len: %s\n",
           threads, threads == 1 ? "" : "s", fz7_match_len_pick()->info.name);
    printf("Rating: estimated MIPS from fz7's model (not comparable with 7-Zip's)\n\n");
    printf("%-6s %-30s  | %s\n", "", "         Compressing", "     Decompressing");
    printf(ROW_TEXT, "Dict", "Speed", "Usage", "Ratio", "Rating", "Speed", "Usage", "Rating");
    printf(ROW_TEXT, "", "MB/s", "%", "%", "MIPS", "MB/s", "%", "MIPS");
    printf("\n");
    fflush(stdout);
    lzma_row sum = {0};
    unsigned rows = 0;
    int rc = 0;
    for (unsigned p = 0; p < passes && rc == 0; p++) {
        for (size_t i = 0; i < ndicts && rc == 0; i++) {
            lzma_row r;
            rc = lzma_row_run(data, data_len, dicts[i], threads, &r);
            if (rc)
                break;
            char label[16];
            dict_label(label, sizeof label, dicts[i]);
            print_row(label, &r);
            fflush(stdout);
            sum.c_speed += r.c_speed;
            sum.d_speed += r.d_speed;
            sum.c_usage += r.c_usage;
            sum.d_usage += r.d_usage;
            sum.c_rating += r.c_rating;
            sum.d_rating += r.d_rating;
            sum.ratio += r.ratio;
            rows++;
        }
    }
    if (rc == 0 && rows) {
        lzma_row avr = {sum.c_speed / rows, sum.d_speed / rows, sum.c_usage / rows,
                        sum.d_usage / rows, sum.c_rating / rows, sum.d_rating / rows,
                        sum.ratio / rows};
        printf("-------------------------------------  | ------------------------\n");
        print_row("Avr:", &avr);
        printf("%-6s %9s %5.0f %6s %7.0f\n", "Tot:", "", (avr.c_usage + avr.d_usage) / 2, "",
               (avr.c_rating + avr.d_rating) / 2);
    }
    fz7_cpu_level start = fz7_cpu_level_get();
    if (rc == 0 && each_level && start > FZ7_LEVEL_PORTABLE) {
        printf("\nLZMA at each level, dictionary 2^%u (match_len path):\n", dict_bits(dicts[0]));
        for (int lv = (int)start; lv >= (int)FZ7_LEVEL_PORTABLE && rc == 0; lv--) {
            fz7_cpu_set_level((fz7_cpu_level)lv);
            lzma_row r;
            rc = lzma_row_run(data, data_len, dicts[0], threads, &r);
            if (rc == 0) {
                char label[32];
                snprintf(label, sizeof label, "%s", fz7_cpu_level_name((fz7_cpu_level)lv));
                printf("%-9s %-10s compress %8.2f MB/s   decompress %8.2f MB/s\n", label,
                       fz7_match_len_pick()->info.name, r.c_speed / 1e6, r.d_speed / 1e6);
                fflush(stdout);
            }
        }
        fz7_cpu_set_level(start);
    }
    free(data);
    return rc;
}

/* ---- kernels ------------------------------------------------------------- */

typedef enum kernel_id { K_CRC32, K_CRC64, K_SHA256, K_AES_DEC, K_AES_ENC } kernel_id;

/* The name of kernel k's pick at the level in use. */
static const char *kernel_path(kernel_id k)
{
    switch (k) {
    case K_CRC32: return fz7_crc32_pick()->info.name;
    case K_CRC64: return fz7_crc64_pick()->info.name;
    case K_SHA256: return fz7_sha256_pick()->info.name;
    case K_AES_DEC: return fz7_aes_cbc_dec_pick()->info.name;
    case K_AES_ENC: return fz7_aes_cbc_enc_pick()->info.name;
    }
    return "?";
}

static const char *kernel_name(kernel_id k)
{
    static const char *const names[] = {"CRC32", "CRC64", "SHA256", "AES256CBC:dec",
                                        "AES256CBC:enc"};
    return names[k];
}

/* Runs kernel k (its pick at the level in use) over buf[0..n) until
 * KERNEL_SECONDS pass; bytes per second. The results feed `sink` so no call
 * can be left out. */
static double kernel_speed(kernel_id k, uint8_t *buf, size_t n, const fz7_aes256_key *key,
                           uint64_t *sink)
{
    fz7_crc32_fn crc32 = fz7_crc32_pick()->fn;
    fz7_crc64_fn crc64 = fz7_crc64_pick()->fn;
    fz7_sha256_blocks_fn sha256 = fz7_sha256_pick()->fn;
    fz7_aes_cbc_fn dec = fz7_aes_cbc_dec_pick()->fn, enc = fz7_aes_cbc_enc_pick()->fn;
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint8_t iv[16] = {0};
    uint32_t c32 = 0;
    uint64_t c64 = 0, done = 0;
    size_t batch = 1; /* calls between clock reads, doubled while cheap */
    double t0 = now_sec(), t;
    do {
        for (size_t i = 0; i < batch; i++) {
            switch (k) {
            case K_CRC32: c32 = crc32(c32, buf, n); break;
            case K_CRC64: c64 = crc64(c64, buf, n); break;
            case K_SHA256: sha256(state, buf, n / 64); break;
            case K_AES_DEC: dec(key->dec, iv, buf, n / 16); break;
            case K_AES_ENC: enc(key->enc, iv, buf, n / 16); break;
            }
        }
        done += (uint64_t)batch * n;
        t = now_sec() - t0;
        if (t < KERNEL_SECONDS / 16 && batch < ((size_t)1 << 20))
            batch *= 2;
    } while (t < KERNEL_SECONDS);
    *sink += c32 + c64 + state[0] + iv[0];
    return (double)done / t;
}

/* Where the kernels' results end up, so no call can be optimised away. */
static volatile uint64_t g_kernel_sink;

static const size_t KERNEL_SIZES[] = {(size_t)4 << 10, (size_t)64 << 10, MIB};
#define N_KERNEL_SIZES (sizeof KERNEL_SIZES / sizeof KERNEL_SIZES[0])

/* One table per kernel: a row per level (path name, MB/s per buffer size,
 * gain over portable at the largest size). */
static int bench_kernels(const kernel_id *ks, size_t nk)
{
    uint8_t *buf = malloc(MIB);
    fz7_aes256_key *key = malloc(sizeof *key);
    if (!buf || !key) {
        free(buf);
        free(key);
        fprintf(stderr, "ERROR: Can't allocate required memory\n");
        return FZ7_EXIT_MEMORY;
    }
    generate_data(buf, MIB, 7);
    uint8_t raw_key[32];
    for (int i = 0; i < 32; i++)
        raw_key[i] = (uint8_t)(i * 37 + 11);
    fz7_aes256_expand(key, raw_key);
    uint64_t sink = 0;
    fz7_cpu_level start = fz7_cpu_level_get();
    for (size_t i = 0; i < nk; i++) {
        printf("\n%-14s %-16s", kernel_name(ks[i]), "Path");
        for (size_t s = 0; s < N_KERNEL_SIZES; s++)
            printf(" %8zu KiB", KERNEL_SIZES[s] >> 10);
        printf("   Gain\n%-14s %-16s", "", "");
        for (size_t s = 0; s < N_KERNEL_SIZES; s++)
            printf(" %12s", "MB/s");
        printf("\n");
        double speeds[3][N_KERNEL_SIZES];
        for (int lv = (int)start; lv >= (int)FZ7_LEVEL_PORTABLE; lv--) {
            fz7_cpu_set_level((fz7_cpu_level)lv);
            for (size_t s = 0; s < N_KERNEL_SIZES; s++)
                speeds[lv][s] = kernel_speed(ks[i], buf, KERNEL_SIZES[s], key, &sink);
        }
        for (int lv = (int)start; lv >= (int)FZ7_LEVEL_PORTABLE; lv--) {
            fz7_cpu_set_level((fz7_cpu_level)lv);
            printf("  %-12s %-16s", fz7_cpu_level_name((fz7_cpu_level)lv),
                   kernel_path(ks[i]));
            for (size_t s = 0; s < N_KERNEL_SIZES; s++)
                printf(" %12.0f", speeds[lv][s] / 1e6);
            double base = speeds[FZ7_LEVEL_PORTABLE][N_KERNEL_SIZES - 1];
            printf(" %5.1fx\n", base > 0 ? speeds[lv][N_KERNEL_SIZES - 1] / base : 0);
        }
        fflush(stdout);
    }
    fz7_cpu_set_level(start);
    fz7_aes256_wipe(key);
    free(key);
    free(buf);
    g_kernel_sink = sink;
    return 0;
}

/* ---- command line -------------------------------------------------------- */

/* -md value: "25" (2^25), "32m", "4096k", "=25". 0 when malformed. */
static uint32_t parse_dict(const char *v)
{
    if (*v == '=')
        v++;
    if (!isdigit((unsigned char)*v))
        return 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift;
    switch (tolower((unsigned char)*end)) {
    case 0:
        if (n > 31 || n < 12) /* 7-Zip reads a bare small number as a power of two */
            return 0;
        return (uint32_t)1 << n;
    case 'b': shift = 0; break;
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    default: return 0;
    }
    if (end[1] || n == 0 || n > ((uint64_t)FZ7_LZMA_DICT_ENC_MAX >> shift))
        return 0;
    uint64_t bytes = (uint64_t)n << shift;
    return bytes < FZ7_LZMA_DICT_MIN ? 0 : (uint32_t)bytes;
}

enum {
    M_LZMA = 1, M_CRC32 = 2, M_CRC64 = 4, M_SHA256 = 8, M_AES = 16,
    M_KERNELS = M_CRC32 | M_CRC64 | M_SHA256 | M_AES
};

static int method_bit(const char *name)
{
    static const struct { const char *name; int bit; } map[] = {
        {"LZMA", M_LZMA}, {"CRC32", M_CRC32}, {"CRC64", M_CRC64}, {"SHA256", M_SHA256},
        {"AES256CBC", M_AES}, {"AES", M_AES}, {"*", M_LZMA | M_KERNELS}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcasecmp(name, map[i].name))
            return map[i].bit;
    return 0;
}

static void print_header(unsigned threads)
{
    const fz7_cpu_features *f = fz7_cpu_features_get();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("\nfz7 %s benchmark\n", FZ7_VERSION);
    printf("CPU: %s\n", f->brand[0] ? f->brand : "unknown");
    printf("Hardware threads: %ld, LZMA threads: %u\n", cores > 0 ? cores : 1, threads);
    printf("Dispatch level: %s (highest supported: %s; FZ7_CPU lowers it)\n",
           fz7_cpu_level_name(fz7_cpu_level_get()), fz7_cpu_level_name(fz7_cpu_max_level()));
    printf("Kernels: crc32 %s, crc64 %s, sha256 %s, aes_cbc_dec %s, aes_cbc_enc %s, "
           "match_len %s\n\n",
           fz7_crc32_pick()->info.name, fz7_crc64_pick()->info.name,
           fz7_sha256_pick()->info.name, fz7_aes_cbc_dec_pick()->info.name,
           fz7_aes_cbc_enc_pick()->info.name, fz7_match_len_pick()->info.name);
}

int fz7_cmd_bench(const struct fz7_options *o)
{
    int methods = 0;
    uint32_t dict = 0;
    for (size_t i = 0; i < o->n_methods; i++) {
        const char *m = o->methods[i];
        if ((m[0] == 'm' || m[0] == 'M') && m[1] == '=') {
            int bit = method_bit(m + 2);
            if (!bit) {
                fprintf(stderr, "\nCommand Line Error:\nUnsupported benchmark method:\n%s\n"
                                "(methods: LZMA, CRC32, CRC64, SHA256, AES256CBC, *)\n", m + 2);
                return FZ7_EXIT_USAGE;
            }
            methods |= bit;
        } else if ((m[0] == 'd' || m[0] == 'D') && (dict = parse_dict(m + 1)) != 0) {
            continue;
        } else {
            fprintf(stderr, "\nCommand Line Error:\nUnsupported switch for the benchmark:\n-m%s\n",
                    m);
            return FZ7_EXIT_USAGE;
        }
    }
    /* `fz7 b [N]`: N passes over the LZMA table, as 7-Zip's `b N`. */
    unsigned passes = 1;
    if (o->archive) {
        char *end;
        unsigned long n = strtoul(o->archive, &end, 10);
        if (*end || n == 0 || n > 1000) {
            fprintf(stderr, "\nCommand Line Error:\nIncorrect number of passes:\n%s\n", o->archive);
            return FZ7_EXIT_USAGE;
        }
        passes = (unsigned)n;
    }
    /* Without -mm: the LZMA table and every kernel; the LZMA rows at each
     * level only when LZMA was asked for by name (they take longer). */
    bool explicit_methods = methods != 0;
    if (!methods)
        methods = M_LZMA | M_KERNELS;
    unsigned threads = 1;
    if (o->threads > 0) {
        threads = (unsigned)o->threads;
    } else {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (unsigned)cores : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;

    print_header(threads);
    int rc = 0;
    if (methods & M_LZMA) {
        /* Rows 2^22..2^25; -md{N} sets the largest (a size that is not a
         * power of two gets a row of its own after the powers below it). */
        uint32_t dicts[16];
        size_t nd = 0;
        uint32_t last = dict ? dict : (uint32_t)1 << DICT_BITS_LAST;
        for (unsigned b = DICT_BITS_FIRST; b <= 31 && ((uint32_t)1 << b) <= last && nd < 15; b++)
            dicts[nd++] = (uint32_t)1 << b;
        if (nd == 0 || dicts[nd - 1] != last)
            dicts[nd++] = last;
        rc = bench_lzma(dicts, nd, threads, passes, explicit_methods);
    }
    if (rc == 0 && (methods & M_KERNELS)) {
        kernel_id ks[5];
        size_t nk = 0;
        if (methods & M_CRC32)
            ks[nk++] = K_CRC32;
        if (methods & M_CRC64)
            ks[nk++] = K_CRC64;
        if (methods & M_SHA256)
            ks[nk++] = K_SHA256;
        if (methods & M_AES) {
            ks[nk++] = K_AES_DEC;
            ks[nk++] = K_AES_ENC;
        }
        printf("%sKernels at each level (one thread, data in cache up to 1 MiB; gain: over "
               "portable at 1 MiB)\n", (methods & M_LZMA) ? "\n" : "");
        rc = bench_kernels(ks, nk);
    }
    fflush(stdout);
    return rc;
}
