/* replay.c - runs one libFuzzer harness without libFuzzer, for CTest:
 * over every file of the given folders (the committed corpus), then over
 * N pseudo-random inputs from a fixed seed. A mismatch aborts inside the
 * harness, so the test fails with the input's name or number printed.
 *
 * Usage: replay_HARNESS [-n N] [-s SEED] [-l MAXLEN] [-e EVERY] [PATH...]
 * -e EVERY: of the files libFuzzer named by their SHA-1, only those whose
 * first byte is a multiple of EVERY (a fixed sample, for the builds where
 * each input takes seconds); files named otherwise (the regression
 * inputs) always run. */
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng;
static char current[4200]; /* the input being run, printed if it crashes */

static void on_crash(int sig)
{
    ssize_t r = write(2, "replay: crashed on ", 19);
    r += write(2, current, strlen(current));
    r += write(2, "\n", 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}
static uint32_t next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* Whether -e EVERY leaves the file out: a libFuzzer name (40 hexadecimal
 * digits) whose first byte is not a multiple of EVERY. */
static int left_out(const char *name, unsigned long every)
{
    if (every <= 1 || strspn(name, "0123456789abcdef") != 40 || name[40] != '\0')
        return 0;
    char first[3] = {name[0], name[1], 0};
    return strtoul(first, NULL, 16) % every != 0;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (!p || (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    snprintf(current, sizeof current, "%s", path);
    LLVMFuzzerTestOneInput(p, (size_t)n);
    free(p);
    return 1;
}

/* Options bytes at random, then random bytes, text-like bytes from a small
 * alphabet, runs, or a repeated phrase. */
static size_t make_input(uint8_t *p, size_t maxlen)
{
    size_t n = next() % (maxlen + 1), head = n < 10 ? n : 10;
    for (size_t i = 0; i < head; i++)
        p[i] = (uint8_t)next();
    unsigned kind = next() % 4, alpha = 2 + next() % 20;
    for (size_t i = head; i < n; i++)
        p[i] = kind == 0   ? (uint8_t)next()
               : kind == 1 ? (uint8_t)('a' + next() % alpha)
               : kind == 2 ? (uint8_t)(next() % 16 == 0 ? next() : (i > head ? p[i - 1] : 0))
                           : (uint8_t)"the quick brown fox \xe8\x10\x00\x00\x00 jumps "[(i * 7 / 5) % 26];
    return n;
}

int main(int argc, char **argv)
{
    unsigned long runs = 100, seed = 1, maxlen = 4096, files = 0, every = 1, skipped = 0;
    int i = 1;
    signal(SIGABRT, on_crash), signal(SIGSEGV, on_crash);
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        unsigned long v = strtoul(argv[i + 1], NULL, 0);
        if (!strcmp(argv[i], "-n"))
            runs = v;
        else if (!strcmp(argv[i], "-s"))
            seed = v;
        else if (!strcmp(argv[i], "-l"))
            maxlen = v;
        else if (!strcmp(argv[i], "-e") && v > 0)
            every = v;
    }
    for (; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            files += run_file(argv[i]);
            continue;
        }
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                if (left_out(e->d_name, every)) {
                    skipped++;
                    continue;
                }
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                files += run_file(path);
            }
        closedir(d);
    }
    rng = seed;
    uint8_t *p = malloc(maxlen + 1);
    for (unsigned long r = 0; p && r < runs; r++) {
        size_t n = make_input(p, maxlen);
        snprintf(current, sizeof current, "random input %lu (-s %lu, %zu bytes)", r, seed, n);
        LLVMFuzzerTestOneInput(p, n);
    }
    free(p);
    printf("replay: %lu corpus files (%lu left out by -e %lu), %lu random inputs: no crash, no mismatch\n", files,
           skipped, every, runs);
    return 0;
}
