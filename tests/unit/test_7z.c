/* test_7z.c - the 7z reader: every row of the shared 7z corpus (MANIFEST.tsv
 * with expected/<archive>.tsv: type, path, size, SHA-256 or link target),
 * archives made here with 7zz (solid, non-solid, plain headers, Copy, BCJ,
 * Delta, empty files and dirs, symlinks, non-BMP names) checked against the
 * files they were made from, partial selection, damaged data and headers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "check/check.h"
#include "codec/codec.h"
#include "crypto/aes7z.h"
#include "format/archive.h"
#include "test_util.h"

/* ---- What the decoders can do today: the one place to widen. ---- */

static bool aes_available(void)
{
    static int known = -1;
    if (known < 0) {
        /* The stub refuses everything; a real coder accepts 2^19 rounds
         * without salt or IV. */
        static const uint8_t props[1] = {19};
        fz7_istream *src = fz7_istream_from_memory((const uint8_t *)"", 0), *dec = NULL;
        known = src && fz7_7zaes_istream_new(src, props, 1, "x", &dec) == FZ7_OK;
        fz7_istream_free(dec);
        fz7_istream_free(src);
    }
    return known;
}

static bool method_supported(const char *name, size_t len)
{
    static const char *const supported[] = {"Copy",  "LZMA",  "LZMA2", "BCJ",     "BCJ2",
                                            "Delta", "ARM",   "ARMT",  "ARM64",   "PPC",
                                            "SPARC", "IA64",  "BZip2", "Deflate", "Deflate64",
                                            "PPMD"};
    for (size_t i = 0; i < sizeof supported / sizeof supported[0]; i++)
        if (strlen(supported[i]) == len && memcmp(supported[i], name, len) == 0)
            return true;
    return len == 5 && memcmp(name, "7zAES", 5) == 0 && aes_available();
}

/* True when every method of a list ("BCJ LZMA2:24;LZMA2:24 BCJ", "-")
 * can be decoded. */
static bool methods_supported(const char *list)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ';')
            p++;
        if (!*p)
            break;
        size_t word = strcspn(p, " ;"), name = strcspn(p, ":");
        if (name > word)
            name = word;
        if (!(word == 1 && *p == '-') && !method_supported(p, name))
            return false;
        p += word;
    }
    return true;
}

/* ---- Collecting what extraction delivers ---- */

typedef struct {
    char type;             /* f, d, l */
    char *path;
    uint64_t size;
    char value[65];        /* SHA-256 hex, link target or "-" */
    fz7_status result;
    bool ended;
} item;

typedef struct {
    item *items;
    size_t count, cap;
    fz7_sha256 sha;
    uint8_t link[4096];
    size_t got;
    size_t begins, ends;
    fz7_status first_error;
} collector;

static fz7_status c_begin(void *ctx, size_t index, const fz7_entry *e)
{
    collector *c = ctx;
    (void)index;
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->items = realloc(c->items, c->cap * sizeof *c->items);
        assert_non_null(c->items);
    }
    item *it = &c->items[c->count++];
    memset(it, 0, sizeof *it);
    it->type = e->is_symlink ? 'l' : e->is_dir ? 'd' : 'f';
    it->path = strdup(e->path);
    it->size = e->size;
    fz7_sha256_init(&c->sha);
    c->got = 0;
    c->begins++;
    return FZ7_OK;
}

static fz7_status c_data(void *ctx, const uint8_t *p, size_t n)
{
    collector *c = ctx;
    fz7_sha256_update(&c->sha, p, n);
    for (size_t i = 0; i < n && c->got + i < sizeof c->link - 1; i++)
        c->link[c->got + i] = p[i];
    c->got += n;
    return FZ7_OK;
}

static fz7_status c_end(void *ctx, size_t index, fz7_status result, const char *detail)
{
    collector *c = ctx;
    (void)index;
    (void)detail;
    item *it = &c->items[c->count - 1];
    uint8_t d[32];
    fz7_sha256_final(&c->sha, d);
    if (it->type == 'd') {
        strcpy(it->value, "-");
    } else if (it->type == 'l') {
        size_t n = c->got < 64 ? c->got : 64;
        memcpy(it->value, c->link, n);
        it->value[n] = 0;
    } else {
        tu_hex(d, 32, it->value);
    }
    if (result == FZ7_OK && c->got != it->size)
        result = FZ7_E_ARG;   /* a wrong byte count is a reader bug */
    it->result = result;
    it->ended = true;
    c->ends++;
    if (result != FZ7_OK && c->first_error == FZ7_OK)
        c->first_error = result;
    return FZ7_OK;
}

static void collector_free(collector *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->items[i].path);
    free(c->items);
    memset(c, 0, sizeof *c);
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const item *)a)->path, ((const item *)b)->path);
}

/* Opens and extracts everything (select may be NULL). */
static fz7_status run(const char *path, const char *password, const bool *select, collector *c,
                      fz7_archive **keep)
{
    fz7_open_opts o = {.password = password};
    fz7_archive *a = NULL;
    char err[256];
    memset(c, 0, sizeof *c);
    fz7_status st = fz7_archive_open(path, &o, &a, err, sizeof err);
    if (st != FZ7_OK)
        return st;
    fz7_extract_cb cb = {c, c_begin, c_data, c_end, NULL};
    st = fz7_archive_extract(a, select, &cb, err, sizeof err);
    assert_int_equal(st, FZ7_OK);
    assert_int_equal(c->begins, c->ends);
    if (keep)
        *keep = a;
    else
        fz7_archive_close(a);
    return FZ7_OK;
}

/* Expected items (type, path, size, value) from a TSV file; count or -1. */
static long read_expected(const char *path, item **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    size_t n = 0, cap = 0;
    item *v = NULL;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        char *type = strtok(line, "\t"), *p = strtok(NULL, "\t"), *size = strtok(NULL, "\t"),
             *val = strtok(NULL, "\t");
        assert_non_null(val);
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            v = realloc(v, cap * sizeof *v);
        }
        memset(&v[n], 0, sizeof v[n]);
        v[n].type = type[0];
        v[n].path = strdup(p);
        v[n].size = strtoull(size, NULL, 10);
        snprintf(v[n].value, sizeof v[n].value, "%s", val);
        n++;
    }
    fclose(f);
    *out = v;
    return (long)n;
}

/* What extraction leaves on disk: leading '/' dropped, and parent
 * directories that have no entry of their own created. */
static void as_on_disk(collector *c)
{
    for (size_t i = 0; i < c->count; i++) {
        char *p = c->items[i].path;
        size_t lead = strspn(p, "/");
        memmove(p, p + lead, strlen(p + lead) + 1);
    }
    for (size_t i = 0; i < c->count; i++) {
        for (char *slash = strchr(c->items[i].path, '/'); slash; slash = strchr(slash + 1, '/')) {
            size_t len = (size_t)(slash - c->items[i].path);
            bool known = false;
            for (size_t k = 0; k < c->count && !known; k++)
                known = strlen(c->items[k].path) == len && !strncmp(c->items[k].path, c->items[i].path, len);
            if (known)
                continue;
            if (c->count == c->cap) {
                c->cap = 2 * c->cap;
                c->items = realloc(c->items, c->cap * sizeof *c->items);
                assert_non_null(c->items);
            }
            item *d = &c->items[c->count++];
            memset(d, 0, sizeof *d);
            d->type = 'd';
            d->path = strndup(c->items[i].path, len);
            strcpy(d->value, "-");
        }
    }
}

/* Compares the delivered items with the expected ones (order-free);
 * returns the number of mismatches and prints them. */
static int compare_items(const char *name, collector *c, item *exp, size_t n_exp)
{
    int bad = 0;
    as_on_disk(c);
    if (c->count)
        qsort(c->items, c->count, sizeof *c->items, item_cmp);
    if (n_exp)
        qsort(exp, n_exp, sizeof *exp, item_cmp);
    if (c->count != n_exp) {
        print_message("%s: %zu entries, expected %zu\n", name, c->count, n_exp);
        return 1;
    }
    for (size_t i = 0; i < n_exp; i++) {
        const item *g = &c->items[i], *e = &exp[i];
        if (g->type != e->type || strcmp(g->path, e->path) || g->size != e->size ||
            strcmp(g->value, e->value) || g->result != FZ7_OK) {
            print_message("%s: %c %s %llu %s (result %d), expected %c %s %llu %s\n", name, g->type,
                          g->path, (unsigned long long)g->size, g->value, g->result, e->type, e->path,
                          (unsigned long long)e->size, e->value);
            bad++;
        }
    }
    return bad;
}

static void free_items(item *v, long n)
{
    for (long i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

/* ---- The shared corpus ---- */

static const char *corpus_dir(void) { return tu_shared_dir("corpus/7z"); }

/* The entries of a's folders whose method list holds an unsupported one. */
static bool entry_supported(const fz7_archive *a, const char *entry_path)
{
    for (size_t i = 0; i < fz7_archive_count(a); i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        if (strcmp(e->path, entry_path) == 0)
            return methods_supported(e->method) && !(e->encrypted && !aes_available());
    }
    return false;
}

/* The entry's folder uses a 7-Zip-zstd fork method fz7 was built to
 * decode (7-Zip cannot: such rows say unsupported_method). */
static bool entry_fork_decoded(const fz7_archive *a, const char *entry_path)
{
    for (size_t i = 0; i < fz7_archive_count(a); i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        if (strcmp(e->path, entry_path) == 0)
            return (strstr(e->method, "04F71101") && fz7_zstd_supported()) ||
                   (strstr(e->method, "04F71102") && fz7_brotli_supported()) ||
                   (strstr(e->method, "04F71104") && fz7_lz4_supported());
    }
    return false;
}

static void test_corpus_manifest(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus (FZ7_SHARED/corpus/7z) is missing\n");
        skip();
    }
    char path[6144], line[4096];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    FILE *m = fopen(path, "r");
    assert_non_null(m);
    int rows = 0, passed = 0;
    while (fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        char *name = strtok(line, "\t"), *pw = strtok(NULL, "\t"), *expect = strtok(NULL, "\t"),
             *methods = strtok(NULL, "\t");
        assert_non_null(methods);
        const char *password = strcmp(pw, "-") ? pw : NULL;
        bool supported = methods_supported(methods);
        rows++;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        collector c;
        fz7_archive *a = NULL;
        fz7_status st = run(path, password, NULL, &c, &a);
        bool ok = false;
        if (strcmp(expect, "bad_archive") == 0) {
            ok = st != FZ7_OK || c.first_error != FZ7_OK;
        } else if (strcmp(expect, "data_error") == 0) {
            ok = st == FZ7_OK && c.first_error != FZ7_OK && c.first_error != FZ7_E_UNSUPPORTED;
        } else if (!supported) {
            /* Entries of folders with an unsupported method end with
             * FZ7_E_UNSUPPORTED; the others must still be right. A header
             * that itself needs such a method fails to open with it. */
            if (st == FZ7_E_UNSUPPORTED) {
                ok = true;
            } else if (st == FZ7_OK) {
                size_t unsupported = 0;
                ok = true;
                item *exp = NULL;
                snprintf(path, sizeof path, "%s/expected/%s.tsv", dir, name);
                long n_exp = read_expected(path, &exp);
                for (size_t i = 0; i < c.count; i++) {
                    item *it = &c.items[i];
                    if (!entry_supported(a, it->path)) {
                        unsupported++;
                        ok &= it->result == FZ7_E_UNSUPPORTED ||
                              (it->result == FZ7_OK && entry_fork_decoded(a, it->path));
                        continue;
                    }
                    bool found = false;
                    for (long k = 0; k < n_exp; k++)
                        if (strcmp(exp[k].path, it->path) == 0) {
                            found = true;
                            ok &= exp[k].type == it->type && exp[k].size == it->size &&
                                  strcmp(exp[k].value, it->value) == 0 && it->result == FZ7_OK;
                        }
                    ok &= found || n_exp < 0;
                }
                ok &= unsupported > 0;
                free_items(exp, n_exp);
            }
        } else if (st == FZ7_OK) {
            item *exp = NULL;
            snprintf(path, sizeof path, "%s/expected/%s.tsv", dir, name);
            long n_exp = read_expected(path, &exp);
            assert_true(n_exp >= 0);
            ok = compare_items(name, &c, exp, (size_t)n_exp) == 0;
            free_items(exp, n_exp);
        }
        if (!ok)
            print_message("FAIL %s (%s, %s): open status %d, first entry error %d\n", name, expect,
                          methods, st, c.first_error);
        passed += ok;
        collector_free(&c);
        fz7_archive_close(a);
    }
    fclose(m);
    print_message("7z corpus: %d of %d rows passed (7zAES decoder %s)\n", passed, rows,
                  aes_available() ? "present" : "absent: encrypted rows expect FZ7_E_UNSUPPORTED");
    assert_true(rows > 0);
    assert_int_equal(passed, rows);
}

/* Listing fields of corpus archives, as `7zz l -slt` shows them. */
static void test_corpus_listing(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus is missing\n");
        skip();
    }
    static const struct {
        const char *archive, *method_union, *path, *method;
        uint64_t size, packed, headers_size, blocks;
        uint32_t crc, mode;
        bool solid;
    } rows[] = {
        {"lzma2bcj2.7z", "LZMA2:192k LZMA:192k BCJ2", "mingw64/bin/libszip-0.dll",
         "BCJ2 LZMA2:192k LZMA:192k:lc0:lp2 LZMA:192k:lc0:lp2", 66352, 23793, 539, 2, 0xBD5359F4,
         0100755, true},
        {"copy_bcj_1.7z", "Copy BCJ", "test_bcj2.bin", "Copy BCJ", 10000, 10000, 130, 1,
         0xA526573A, 0100664, false},
        {"la_delta_lzma2.7z", "Delta LZMA2:16", NULL, "Delta:1 LZMA2:16", 0, 0, 112, 1, 0, 0,
         false},
        {"encrypted_1.7z", "LZMA:16 7zAES", "test1.txt", "LZMA:16 7zAES:19", 33, 48, 203, 1,
         0x08626A3E, 0100644, true},
        {"test_2.7z", "LZMA2:6k", NULL, NULL, 0, 0, 203, 1, 0, 0, false},
        {"lzma_bcj_2.7z", "LZMA:3m BCJ", NULL, "BCJ LZMA:3m", 0, 0, 239, 1, 0, 0, true},
        {"ppmd.7z", "PPMD", NULL, "PPMD:o6:mem16", 0, 0, 187, 1, 0, 0, true},
        {"zstd.7z", "04F71101", NULL, "04F71101", 0, 0, 216, 1, 0, 0, true},
        {"symlink.7z", "LZMA2:13", "lib/libabc.so", "LZMA2:13", 11, 1532, 226, 1, 0xFE0FA88A,
         0120777, true},
        {"github_14.7z", "LZMA:24", "github_14", "LZMA:24", 24, 0, 91, 1, 0, 0, false},
        {"empty.7z", "", NULL, NULL, 0, 0, 32, 0, 0, 0, false},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char path[4096 + 256], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, rows[r].archive);
        fz7_open_opts o = {.password = "secret"};
        fz7_archive *a;
        fz7_status st = fz7_archive_open(path, &o, &a, err, sizeof err);
        if (st != FZ7_OK)
            print_message("%s: %s\n", rows[r].archive, err);
        assert_int_equal(st, FZ7_OK);
        const fz7_archive_info *in = fz7_archive_get_info(a);
        assert_int_equal(in->format, FZ7_FORMAT_7Z);
        assert_string_equal(in->method, rows[r].method_union);
        assert_int_equal(in->headers_size, rows[r].headers_size);
        assert_int_equal(in->num_blocks, rows[r].blocks);
        assert_int_equal(in->solid, rows[r].solid);
        bool seen_method = rows[r].method == NULL, seen_path = rows[r].path == NULL;
        for (size_t i = 0; i < fz7_archive_count(a); i++) {
            const fz7_entry *e = fz7_archive_entry(a, i);
            if (rows[r].method && strcmp(e->method, rows[r].method) == 0)
                seen_method = true;
            if (rows[r].path && strcmp(e->path, rows[r].path) == 0) {
                seen_path = true;
                assert_int_equal(e->size, rows[r].size);
                if (rows[r].packed)
                    assert_int_equal(e->packed_size, rows[r].packed);
                if (rows[r].crc) {
                    assert_true(e->has_crc);
                    assert_int_equal(e->crc, rows[r].crc);
                }
                if (rows[r].mode)
                    assert_int_equal(e->mode, rows[r].mode);
            }
        }
        if (!seen_method || !seen_path)
            print_message("%s: method %s or path %s not listed\n", rows[r].archive,
                          rows[r].method, rows[r].path);
        assert_true(seen_method && seen_path);
        fz7_archive_close(a);
    }
}

/* ---- Archives made here with 7zz ---- */

static char scratch[256];

static bool have_7zz(void) { return system("7zz > /dev/null 2>&1") == 0; }

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

/* Compressible but not trivial bytes: words from a fixed LCG. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    static const char *words[] = {"alpha ", "beta ", "gamma\n", "delta ", "\xe9\x00\x01", "fz7 "};
    size_t o = 0;
    while (o < n) {
        seed = seed * 1103515245u + 12345u;
        const char *w = words[(seed >> 16) % 6];
        size_t l = (seed >> 16) % 6 == 4 ? 3 : strlen(w);
        for (size_t i = 0; i < l && o < n; i++)
            p[o++] = (uint8_t)w[i];
        if ((seed & 0xF00) == 0 && o < n)
            p[o++] = (uint8_t)(seed >> 24);
    }
}

static int setup_tree(void **state)
{
    (void)state;
    if (!have_7zz())
        return 0;
    snprintf(scratch, sizeof scratch, "/tmp/fz7_test_7z_XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    char p[1024];
    static uint8_t buf[700000];
    snprintf(p, sizeof p, "mkdir -p %s/tree/sub/deeper %s/tree/emptydir %s/links/lib", scratch,
             scratch, scratch);
    if (system(p) != 0)
        return -1;
    fill(buf, sizeof buf, 1);
    snprintf(p, sizeof p, "%s/tree/big.txt", scratch);
    write_file(p, buf, sizeof buf);   /* spans several 256 KiB chunks */
    fill(buf, 5000, 2);
    snprintf(p, sizeof p, "%s/tree/sub/small.txt", scratch);
    write_file(p, buf, 5000);
    snprintf(p, sizeof p, "%s/tree/sub/empty.txt", scratch);
    write_file(p, "", 0);
    snprintf(p, sizeof p, "%s/tree/sub/deeper/caf\xc3\xa9 \xf0\x9f\x98\x80.txt", scratch);
    write_file(p, "non-BMP name\n", 13);
    /* x86-looking bytes so BCJ has calls to convert. */
    for (size_t i = 0; i < 60000; i++)
        buf[i] = (i % 7 == 0) ? 0xE8 : (uint8_t)(i * 13);
    snprintf(p, sizeof p, "%s/tree/sub/code.bin", scratch);
    write_file(p, buf, 60000);
    snprintf(p, sizeof p, "%s/links/lib/libx.so.1.0", scratch);
    write_file(p, "library\n", 8);
    snprintf(p, sizeof p, "cd %s/links/lib && ln -s libx.so.1.0 libx.so.1 && ln -s libx.so.1 libx.so"
                          " && cd .. && ln -s lib lib64", scratch);
    return system(p) == 0 ? 0 : -1;
}

static int teardown_tree(void **state)
{
    (void)state;
    if (scratch[0] && !getenv("FZ7_TEST_KEEP")) {
        char p[1024];
        snprintf(p, sizeof p, "rm -rf %s", scratch);
        if (system(p) != 0)
            return -1;
    }
    return 0;
}

/* Walks root/rel, adding what the archive should hold. */
static void expect_tree(const char *root, const char *rel, item **v, size_t *n)
{
    char full[4500];
    snprintf(full, sizeof full, "%s/%s", root, rel);
    struct stat st;
    assert_int_equal(lstat(full, &st), 0);
    *v = realloc(*v, (*n + 1) * sizeof **v);
    item *it = &(*v)[(*n)++];
    memset(it, 0, sizeof *it);
    it->path = strdup(rel);
    if (S_ISLNK(st.st_mode)) {
        it->type = 'l';
        ssize_t l = readlink(full, it->value, sizeof it->value - 1);
        assert_true(l > 0);
        it->size = (uint64_t)l;
    } else if (S_ISDIR(st.st_mode)) {
        it->type = 'd';
        strcpy(it->value, "-");
        DIR *d = opendir(full);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char sub[4500];
            snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name);
            expect_tree(root, sub, v, n);
        }
        closedir(d);
    } else {
        it->type = 'f';
        it->size = (uint64_t)st.st_size;
        FILE *f = fopen(full, "rb");
        assert_non_null(f);
        fz7_sha256 s;
        fz7_sha256_init(&s);
        uint8_t b[65536], d[32];
        size_t r;
        while ((r = fread(b, 1, sizeof b, f)) > 0)
            fz7_sha256_update(&s, b, r);
        fclose(f);
        fz7_sha256_final(&s, d);
        tu_hex(d, 32, it->value);
    }
}

/* Makes <scratch>/<name>.7z from <scratch>/<dir>/<top> with 7zz switches,
 * extracts it and compares with the files. */
static void made_archive(const char *name, const char *switches, const char *dir, const char *top,
                         const char *expect_method)
{
    char cmd[4096], arc[1024];
    snprintf(arc, sizeof arc, "%s/%s.7z", scratch, name);
    snprintf(cmd, sizeof cmd, "cd %s/%s && rm -f %s && 7zz a %s %s %s > /dev/null", scratch, dir, arc,
             switches, arc, top);
    assert_int_equal(system(cmd), 0);
    collector c;
    fz7_archive *a = NULL;
    assert_int_equal(run(arc, NULL, NULL, &c, &a), FZ7_OK);
    if (expect_method)
        assert_string_equal(fz7_archive_get_info(a)->method, expect_method);
    fz7_archive_close(a);
    item *exp = NULL;
    size_t n = 0;
    char root[1024];
    snprintf(root, sizeof root, "%s/%s", scratch, dir);
    expect_tree(root, top, &exp, &n);
    assert_int_equal(compare_items(name, &c, exp, n), 0);
    free_items(exp, (long)n);
    collector_free(&c);
}

#define NEED_7ZZ()                                                   \
    do {                                                             \
        if (!scratch[0]) {                                           \
            print_message("SKIP: 7zz is not installed\n");           \
            skip();                                                  \
        }                                                            \
    } while (0)

static void test_made_lzma2(void **state)
{
    (void)state;
    NEED_7ZZ();
    made_archive("mx1", "-mx1", ".", "tree", "LZMA2:18");
    made_archive("nonsolid", "-ms=off -mx3", ".", "tree", NULL);
    made_archive("plainhdr", "-mhc=off -mx1", ".", "tree", NULL);
    made_archive("lzma", "-m0=LZMA:d=20 -mx5", ".", "tree", NULL);
}

static void test_made_filters(void **state)
{
    (void)state;
    NEED_7ZZ();
    made_archive("copy", "-m0=Copy", ".", "tree", "Copy");
    made_archive("copy_plain", "-m0=Copy -mhc=off", ".", "tree", "Copy");
    made_archive("bcj", "-mf=BCJ -mx1", ".", "tree", NULL);
    made_archive("delta", "-mf=Delta:4 -mx1", ".", "tree", NULL);
    made_archive("bcj2", "-mf=BCJ2 -mx1", ".", "tree", NULL);
    made_archive("arm64", "-mf=ARM64 -mx1", ".", "tree", NULL);
    made_archive("deflate", "-m0=Deflate -mx5", ".", "tree", "Deflate");
    made_archive("bzip2", "-m0=BZip2 -mx5", ".", "tree", "BZip2");
    made_archive("ppmd", "-m0=PPMd -mx5", ".", "tree", "PPMD");
}

static void test_made_symlinks(void **state)
{
    (void)state;
    NEED_7ZZ();
    made_archive("links", "-snl -mx1", "links", "lib", NULL);
    made_archive("links64", "-snl -mx1", "links", "lib64", NULL);
}

/* Only selected entries see callbacks, in archive order, and the data of a
 * file in the middle of a solid block is right. */
static void test_partial_select(void **state)
{
    (void)state;
    NEED_7ZZ();
    made_archive("sel", "-mx1 -mhc=off", ".", "tree", NULL);
    char arc[1024], err[256];
    snprintf(arc, sizeof arc, "%s/sel.7z", scratch);
    fz7_open_opts o = {0};
    fz7_archive *a;
    assert_int_equal(fz7_archive_open(arc, &o, &a, err, sizeof err), FZ7_OK);
    size_t n = fz7_archive_count(a), want = SIZE_MAX;
    bool *sel = calloc(n, 1);
    for (size_t i = 0; i < n; i++)
        if (strcmp(fz7_archive_entry(a, i)->path, "tree/sub/small.txt") == 0)
            want = i;
    assert_true(want != SIZE_MAX);
    sel[want] = true;
    collector c = {0};
    fz7_extract_cb cb = {&c, c_begin, c_data, c_end, NULL};
    assert_int_equal(fz7_archive_extract(a, sel, &cb, err, sizeof err), FZ7_OK);
    assert_int_equal(c.count, 1);
    assert_string_equal(c.items[0].path, "tree/sub/small.txt");
    assert_int_equal(c.items[0].result, FZ7_OK);
    uint8_t buf[5000], d[32];
    char h[65];
    fill(buf, sizeof buf, 2);
    fz7_sha256 s;
    fz7_sha256_init(&s);
    fz7_sha256_update(&s, buf, sizeof buf);
    fz7_sha256_final(&s, d);
    tu_hex(d, 32, h);
    assert_string_equal(c.items[0].value, h);
    collector_free(&c);
    free(sel);
    fz7_archive_close(a);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n ? *n : 1);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

/* A flipped byte in a Copy folder fails that file's CRC only. */
static void test_damaged_data(void **state)
{
    (void)state;
    NEED_7ZZ();
    char cmd[4096], arc[1024], bad[1024];
    snprintf(arc, sizeof arc, "%s/dmg.7z", scratch);
    snprintf(cmd, sizeof cmd, "cd %s/tree/sub && rm -f %s && 7zz a -m0=Copy -ms=off %s small.txt code.bin > /dev/null",
             scratch, arc, arc);
    assert_int_equal(system(cmd), 0);
    size_t n;
    uint8_t *p = slurp(arc, &n);
    /* 7zz sorts by extension: code.bin comes first, then small.txt. */
    p[32 + 60000 + 100] ^= 0x40;
    snprintf(bad, sizeof bad, "%s/dmg_bad.7z", scratch);
    write_file(bad, p, n);
    collector c;
    assert_int_equal(run(bad, NULL, NULL, &c, NULL), FZ7_OK);
    assert_int_equal(c.count, 2);
    int crc_errors = 0, oks = 0;
    for (size_t i = 0; i < c.count; i++) {
        crc_errors += c.items[i].result == FZ7_E_CRC;
        oks += c.items[i].result == FZ7_OK;
        if (c.items[i].result == FZ7_E_CRC)
            assert_string_equal(c.items[i].path, "small.txt");
    }
    assert_int_equal(crc_errors, 1);
    assert_int_equal(oks, 1);
    collector_free(&c);
    free(p);
}

/* Every truncation of a small archive fails to open (the header lies past
 * the end); flipped header bytes never crash and are mostly caught by the
 * header CRC. Run under ASan+UBSan for the full value. */
static void test_damaged_headers(void **state)
{
    (void)state;
    NEED_7ZZ();
    char arc[1024], bad[1024], cmd[4096], err[256];
    snprintf(arc, sizeof arc, "%s/hdr.7z", scratch);
    snprintf(cmd, sizeof cmd, "cd %s && rm -f %s && 7zz a -mhc=off -mx1 %s tree/sub > /dev/null", scratch, arc, arc);
    assert_int_equal(system(cmd), 0);
    snprintf(bad, sizeof bad, "%s/hdr_bad.7z", scratch);
    size_t n;
    uint8_t *p = slurp(arc, &n);
    for (size_t len = 0; len < n; len += (len < 64 || len > n - 300) ? 1 : 37) {
        write_file(bad, p, len);
        fz7_open_opts o = {0};
        fz7_archive *a = NULL;
        fz7_status st = fz7_archive_open(bad, &o, &a, err, sizeof err);
        if (st == FZ7_OK)
            print_message("truncated to %zu bytes: opened\n", len);
        assert_int_not_equal(st, FZ7_OK);
    }
    /* Flip header bytes and fix the CRCs, so the parser sees the damage. */
    uint64_t nh_off = fz7_get64le(p + 12), nh_size = fz7_get64le(p + 20);
    uint32_t seed = 7;
    int opened = 0;
    for (int round = 0; round < 400; round++) {
        uint8_t *q = malloc(n);
        memcpy(q, p, n);
        for (int k = 0; k < 1 + round % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            q[32 + nh_off + (seed >> 8) % nh_size] ^= (uint8_t)(1u << ((seed >> 4) % 8));
        }
        fz7_put32le(q + 28, fz7_crc32(0, q + 32 + nh_off, (size_t)nh_size));
        fz7_put32le(q + 8, fz7_crc32(0, q + 12, 20));
        write_file(bad, q, n);
        free(q);
        fz7_open_opts o = {.mem_limit = 64u << 20};
        fz7_archive *a = NULL;
        if (fz7_archive_open(bad, &o, &a, err, sizeof err) == FZ7_OK) {
            opened++;
            collector c = {0};
            fz7_extract_cb cb = {&c, c_begin, c_data, c_end, NULL};
            fz7_status st = fz7_archive_extract(a, NULL, &cb, err, sizeof err);
            assert_true(st == FZ7_OK);
            assert_int_equal(c.begins, c.ends);
            collector_free(&c);
            fz7_archive_close(a);
        }
    }
    print_message("header flips: %d of 400 still opened\n", opened);
    free(p);
}

/* Encrypted headers need a password to open; encrypted data without one
 * ends each entry with FZ7_E_NEED_PASSWORD while other entries go on. */
static void test_passwords(void **state)
{
    (void)state;
    const char *dir = corpus_dir();
    if (!dir) {
        print_message("SKIP: the shared corpus is missing\n");
        skip();
    }
    char path[4200], err[256];
    fz7_open_opts o = {0};
    fz7_archive *a = NULL;
    snprintf(path, sizeof path, "%s/encrypted_3.7z", dir);
    assert_int_equal(fz7_archive_open(path, &o, &a, err, sizeof err), FZ7_E_NEED_PASSWORD);
    assert_true(err[0] != 0);

    snprintf(path, sizeof path, "%s/encrypted_1.7z", dir);
    collector c;
    assert_int_equal(run(path, NULL, NULL, &c, &a), FZ7_OK);
    assert_false(fz7_archive_get_info(a)->header_encrypted);
    size_t need = 0;
    for (size_t i = 0; i < c.count; i++) {
        if (c.items[i].type == 'f') {
            need++;
            assert_int_equal(c.items[i].result, FZ7_E_NEED_PASSWORD);
        } else {
            assert_int_equal(c.items[i].result, FZ7_OK);
        }
    }
    assert_int_equal(need, 2);
    for (size_t i = 0; i < fz7_archive_count(a); i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        assert_int_equal(e->encrypted, e->has_stream);
    }
    collector_free(&c);
    fz7_archive_close(a);

    if (aes_available()) {
        /* A wrong password: the header's CRC or data check fails. */
        o.password = "wrong";
        snprintf(path, sizeof path, "%s/encrypted_3.7z", dir);
        assert_int_equal(fz7_archive_open(path, &o, &a, err, sizeof err), FZ7_E_PASSWORD);
        snprintf(path, sizeof path, "%s/encrypted_1.7z", dir);
        assert_int_equal(run(path, "wrong", NULL, &c, NULL), FZ7_OK);
        assert_int_equal(c.first_error, FZ7_E_PASSWORD);
        collector_free(&c);
    }
}

/* Archives encrypted by 7zz, headers too (-mhe=on): right password gives
 * the files, a wrong one FZ7_E_PASSWORD at open. */
static void test_made_encrypted(void **state)
{
    (void)state;
    NEED_7ZZ();
    if (!aes_available()) {
        print_message("SKIP: no 7zAES decoder yet\n");
        skip();
    }
    char cmd[4096], arc[1024], err[256];
    snprintf(arc, sizeof arc, "%s/enc.7z", scratch);
    snprintf(cmd, sizeof cmd, "cd %s && rm -f %s && 7zz a -mx1 -mhe=on '-pp\xc3\xa4ss w\xf0\x9f\x98\x80rd' %s tree > /dev/null",
             scratch, arc, arc);
    assert_int_equal(system(cmd), 0);
    collector c;
    fz7_archive *a = NULL;
    assert_int_equal(run(arc, "p\xc3\xa4ss w\xf0\x9f\x98\x80rd", NULL, &c, &a), FZ7_OK);
    assert_true(fz7_archive_get_info(a)->header_encrypted);
    fz7_archive_close(a);
    item *exp = NULL;
    size_t n = 0;
    expect_tree(scratch, "tree", &exp, &n);
    assert_int_equal(compare_items("enc.7z", &c, exp, n), 0);
    free_items(exp, (long)n);
    collector_free(&c);
    fz7_open_opts o = {.password = "pass word"};
    assert_int_equal(fz7_archive_open(arc, &o, &a, err, sizeof err), FZ7_E_PASSWORD);
    o.password = NULL;
    assert_int_equal(fz7_archive_open(arc, &o, &a, err, sizeof err), FZ7_E_NEED_PASSWORD);
}

static void test_not_7z(void **state)
{
    (void)state;
    char path[] = "/tmp/fz7_not7z_XXXXXX", err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "7z\xbc\xaf\x27", 5), 5);   /* signature cut short */
    close(fd);
    fz7_open_opts o = {0};
    fz7_archive *a = NULL;
    assert_int_equal(fz7_archive_open(path, &o, &a, err, sizeof err), FZ7_E_FORMAT);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_manifest),
        cmocka_unit_test(test_corpus_listing),
        cmocka_unit_test(test_made_lzma2),
        cmocka_unit_test(test_made_filters),
        cmocka_unit_test(test_made_symlinks),
        cmocka_unit_test(test_partial_select),
        cmocka_unit_test(test_damaged_data),
        cmocka_unit_test(test_damaged_headers),
        cmocka_unit_test(test_passwords),
        cmocka_unit_test(test_made_encrypted),
        cmocka_unit_test(test_not_7z),
    };
    return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
