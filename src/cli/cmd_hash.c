/* cmd_hash.c - `fz7 h`: hashes of files in 7-Zip's table. CRC32, CRC64
 * and SHA-256 are fz7's own kernels; SHA-1, MD5, SHA-384, SHA-512 and
 * SHA3-256 come from OpenSSL's libcrypto, opened when one of them is asked
 * for (linked, its relocations cost every fz7 run 1.5 MB of memory), XXH64
 * from libxxhash.
 *
 * The two sums are 7-Zip's: "for data" adds every file's digest as a
 * little-endian number, "for data and names" adds, for every file and
 * folder, the hash of 16 bytes (byte 0 is 1 for a folder), the item's data
 * digest (zeros for a folder) and its path in UTF-16LE. The carry out of
 * the digest's width is kept in 32 more bits and printed as "-XXXXXXXX"
 * when the sum holds other than one item. */
#include "check/check.h"
#include "cli/archive_out.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "format/7z/7z_write.h"
#include "fsio/read_tree.h"
#include "fsio/wildcard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <xxhash.h>

typedef enum hash_id { H_CRC32, H_CRC64, H_SHA256, H_SHA1, H_MD5, H_XXH64, H_SHA384, H_SHA512,
                       H_SHA3_256, H_COUNT } hash_id;

typedef struct hash_kind {
    const char *name;
    unsigned size;      /* digest bytes */
    bool numeric;       /* printed as an upper-case number (little-endian digest) */
} hash_kind;

/* 7-Zip's order: the columns follow it whatever order -scrc gave. */
static const hash_kind k_hashes[H_COUNT] = {
    {"CRC32", 4, true},   {"CRC64", 8, true},   {"SHA256", 32, false},
    {"SHA1", 20, false},  {"MD5", 16, false},   {"XXH64", 8, true},
    {"SHA384", 48, false}, {"SHA512", 64, false}, {"SHA3-256", 32, false},
};

#define MAX_DIGEST 64
#define SUM_BYTES (MAX_DIGEST + 4)

typedef struct hasher {
    hash_id id;
    uint32_t crc32;
    uint64_t crc64;
    fz7_sha256 sha256;
    XXH64_state_t *xxh;
    EVP_MD_CTX *evp;
    uint8_t digest[MAX_DIGEST];     /* the current file's */
    uint8_t sum_data[SUM_BYTES];
    uint8_t sum_names[SUM_BYTES];
} hasher;

/* The libcrypto calls fz7 makes, found in the library its headers
 * belong to (OPENSSL_SHLIB_VERSION names its ABI). */
#define FZ7_STR_(x) #x
#define FZ7_STR(x) FZ7_STR_(x)
#define LIBCRYPTO_SONAME "libcrypto.so." FZ7_STR(OPENSSL_SHLIB_VERSION)
static struct {
    __typeof__(&EVP_sha1) sha1, md5, sha384, sha512, sha3_256;
    __typeof__(&EVP_MD_CTX_new) ctx_new;
    __typeof__(&EVP_MD_CTX_free) ctx_free;
    __typeof__(&EVP_DigestInit_ex) init;
    __typeof__(&EVP_DigestUpdate) update;
    __typeof__(&EVP_DigestFinal_ex) final;
} ossl;

static bool uses_libcrypto(hash_id id)
{
    return id == H_SHA1 || id == H_MD5 || id == H_SHA384 || id == H_SHA512 || id == H_SHA3_256;
}

/* Opens libcrypto once; false, with the reason on stderr, when it or one
 * of its calls is missing. */
static bool load_libcrypto(void)
{
    static int state;   /* 0 not tried, 1 loaded, -1 failed */
    if (state)
        return state > 0;
    state = -1;
    void *lib = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "ERROR: %s\n", dlerror());
        return false;
    }
    struct {
        void **slot;
        const char *name;
    } calls[] = {
        {(void **)&ossl.sha1, "EVP_sha1"},           {(void **)&ossl.md5, "EVP_md5"},
        {(void **)&ossl.sha384, "EVP_sha384"},       {(void **)&ossl.sha512, "EVP_sha512"},
        {(void **)&ossl.sha3_256, "EVP_sha3_256"},   {(void **)&ossl.ctx_new, "EVP_MD_CTX_new"},
        {(void **)&ossl.ctx_free, "EVP_MD_CTX_free"}, {(void **)&ossl.init, "EVP_DigestInit_ex"},
        {(void **)&ossl.update, "EVP_DigestUpdate"}, {(void **)&ossl.final, "EVP_DigestFinal_ex"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (!(*calls[i].slot = dlsym(lib, calls[i].name))) {
            fprintf(stderr, "ERROR: %s: no %s\n", LIBCRYPTO_SONAME, calls[i].name);
            return false;
        }
    }
    state = 1;
    return true;
}

static const EVP_MD *evp_of(hash_id id)
{
    switch (id) {
    case H_SHA1: return ossl.sha1();
    case H_MD5: return ossl.md5();
    case H_SHA384: return ossl.sha384();
    case H_SHA512: return ossl.sha512();
    case H_SHA3_256: return ossl.sha3_256();
    default: return NULL;
    }
}

static bool h_init(hasher *h)
{
    switch (h->id) {
    case H_CRC32: h->crc32 = 0; return true;
    case H_CRC64: h->crc64 = 0; return true;
    case H_SHA256: fz7_sha256_init(&h->sha256); return true;
    case H_XXH64:
        if (!h->xxh && !(h->xxh = XXH64_createState()))
            return false;
        return XXH64_reset(h->xxh, 0) == XXH_OK;
    default:
        if (!h->evp && !(h->evp = ossl.ctx_new()))
            return false;
        return ossl.init(h->evp, evp_of(h->id), NULL) == 1;
    }
}

static void h_update(hasher *h, const void *p, size_t n)
{
    switch (h->id) {
    case H_CRC32: h->crc32 = fz7_crc32(h->crc32, p, n); break;
    case H_CRC64: h->crc64 = fz7_crc64(h->crc64, p, n); break;
    case H_SHA256: fz7_sha256_update(&h->sha256, p, n); break;
    case H_XXH64: XXH64_update(h->xxh, p, n); break;
    default: ossl.update(h->evp, p, n); break;
    }
}

/* The digest as 7-Zip keeps it: numbers little-endian, the others in
 * their own byte order. */
static void h_final(hasher *h, uint8_t *out)
{
    switch (h->id) {
    case H_CRC32: fz7_put32le(out, h->crc32); break;
    case H_CRC64: fz7_put64le(out, h->crc64); break;
    case H_SHA256: fz7_sha256_final(&h->sha256, out); break;
    case H_XXH64: fz7_put64le(out, XXH64_digest(h->xxh)); break;
    default: {
        unsigned len = 0;
        ossl.final(h->evp, out, &len);
        break;
    }
    }
}

/* sum += digest (size bytes, little-endian), the carry into the 4 bytes
 * beyond. */
static void sum_add(uint8_t *sum, const uint8_t *digest, unsigned size)
{
    unsigned carry = 0;
    for (unsigned i = 0; i < size + 4; i++) {
        carry += sum[i] + (i < size ? digest[i] : 0);
        sum[i] = (uint8_t)carry;
        carry >>= 8;
    }
}

static void print_digest(FILE *out, const hash_kind *k, const uint8_t *d)
{
    if (k->numeric)
        for (unsigned i = k->size; i-- > 0;)
            fprintf(out, "%02X", d[i]);
    else
        for (unsigned i = 0; i < k->size; i++)
            fprintf(out, "%02x", d[i]);
}

static void print_sum(FILE *out, const hash_kind *k, const uint8_t *sum, bool with_carry)
{
    print_digest(out, k, sum);
    if (with_carry)
        fprintf(out, "-%08X", fz7_get32le(sum + k->size));
}

static void print_dashes(FILE *out, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        fputc('-', out);
}

/* The -scrc values as a set; false (name in *bad) for one fz7 does not
 * know. */
static bool pick_hashes(const struct fz7_options *o, bool *use)
{
    memset(use, 0, H_COUNT * sizeof *use);
    if (!o->n_hashes) {
        use[H_CRC32] = true;
        return true;
    }
    for (size_t i = 0; i < o->n_hashes; i++) {
        const char *v = o->hashes[i];
        if (!v[0]) {
            use[H_CRC32] = true;
            continue;
        }
        if (!strcmp(v, "*")) {
            for (int k = 0; k < H_COUNT; k++)
                use[k] = true;
            continue;
        }
        int found = -1;
        for (int k = 0; k < H_COUNT; k++)
            if (!strcasecmp(v, k_hashes[k].name))
                found = k;
        if (found < 0)
            return false;
        use[found] = true;
    }
    return true;
}

/* Hashes one file's data with every hasher; errno on a read error. */
static int hash_file(const char *path, hasher *hs, size_t n, uint8_t *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int err = 0;
    for (;;) {
        ssize_t got = read(fd, buf, cap);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        if (got == 0)
            break;
        for (size_t i = 0; i < n; i++)
            h_update(&hs[i], buf, (size_t)got);
    }
    close(fd);
    return err;
}

/* The name part of the names sum: 16 bytes, the data digest, the path
 * as UTF-16LE (code points above U+FFFF as surrogate pairs). */
static void hash_name(hasher *h, const char *name, bool dir)
{
    uint8_t pre[16] = {0};
    pre[0] = dir ? 1 : 0;
    unsigned size = k_hashes[h->id].size;
    uint8_t zero[MAX_DIGEST] = {0};
    h_init(h);
    h_update(h, pre, sizeof pre);
    h_update(h, dir ? zero : h->digest, size);
    /* The path as 7-Zip's UTF-16 of it, bytes that are not UTF-8 too. */
    const uint8_t *s = (const uint8_t *)name;
    uint16_t u[4];
    for (unsigned n; (n = fz7_7z_name_units(&s, u)) > 0;) {
        uint8_t le[8];
        for (unsigned i = 0; i < n; i++) {
            le[2 * i] = (uint8_t)u[i];
            le[2 * i + 1] = (uint8_t)(u[i] >> 8);
        }
        h_update(h, le, 2 * n);
    }
    uint8_t d[MAX_DIGEST];
    h_final(h, d);
    sum_add(h->sum_names, d, size);
}

/* ---- sums over items, for h and for x/e/t -scrc ----------------------- */

struct fz7_hash_sums {
    hasher hs[H_COUNT];
    size_t nh;
    uint64_t files, folders;   /* items added */
};

/* The "for data" and "for data and names" lines of every hasher: the
 * carry shows unless the sum holds one item; the names line only when
 * the items are other than one file. */
static void print_sum_lines(FILE *out, const hasher *hs, size_t nh, uint64_t n_files,
                            uint64_t n_dirs)
{
    bool several = n_files != 1 || n_dirs != 0;
    for (size_t i = 0; i < nh; i++) {
        const hash_kind *k = &k_hashes[hs[i].id];
        fprintf(out, "%-6s %-23s", k->name, "for data:");
        print_sum(out, k, hs[i].sum_data, n_files != 1);
        fputc('\n', out);
        if (several) {
            fprintf(out, "%-6s %-23s", k->name, "for data and names:");
            print_sum(out, k, hs[i].sum_names, n_files + n_dirs != 1);
            fputc('\n', out);
        }
        fputc('\n', out);
    }
}

static bool pick_hashes(const struct fz7_options *o, bool *use);

int fz7_hash_sums_new(const struct fz7_options *o, FILE *out, fz7_hash_sums **sums)
{
    *sums = NULL;
    bool use[H_COUNT];
    if (!pick_hashes(o, use)) {
        fflush(out);
        fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
        return FZ7_EXIT_FATAL;
    }
    for (int k = 0; k < H_COUNT; k++) {
        if (use[k] && uses_libcrypto((hash_id)k) && !load_libcrypto()) {
            fflush(out);
            return FZ7_EXIT_FATAL;
        }
    }
    fz7_hash_sums *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "ERROR: Can't allocate required memory\n");
        return FZ7_EXIT_MEMORY;
    }
    for (int k = 0; k < H_COUNT; k++)
        if (use[k])
            h->hs[h->nh++].id = (hash_id)k;
    *sums = h;
    return 0;
}

void fz7_hash_sums_file_begin(fz7_hash_sums *h)
{
    for (size_t i = 0; i < h->nh; i++)
        h_init(&h->hs[i]); /* a failed state is caught at the end */
}

void fz7_hash_sums_data(fz7_hash_sums *h, const void *p, size_t n)
{
    for (size_t i = 0; i < h->nh; i++)
        h_update(&h->hs[i], p, n);
}

void fz7_hash_sums_file_end(fz7_hash_sums *h, const char *name)
{
    for (size_t i = 0; i < h->nh; i++) {
        h_final(&h->hs[i], h->hs[i].digest);
        sum_add(h->hs[i].sum_data, h->hs[i].digest, k_hashes[h->hs[i].id].size);
        hash_name(&h->hs[i], name, false);
    }
    h->files++;
}

void fz7_hash_sums_folder(fz7_hash_sums *h, const char *name)
{
    for (size_t i = 0; i < h->nh; i++)
        hash_name(&h->hs[i], name, true);
    h->folders++;
}

void fz7_hash_sums_print(const fz7_hash_sums *h, FILE *out)
{
    print_sum_lines(out, h->hs, h->nh, h->files, h->folders);
}

void fz7_hash_sums_free(fz7_hash_sums *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < H_COUNT; i++) {
        if (h->hs[i].xxh)
            XXH64_freeState(h->hs[i].xxh);
        if (h->hs[i].evp)
            ossl.ctx_free(h->hs[i].evp);
    }
    free(h);
}

/* ---- 7-Zip's listing order -------------------------------------------- */

/* The order 7-Zip hashes in: each folder followed at once by what it
 * holds (depth first), siblings in the order the folder was read. */
typedef struct order_key {
    const char *name;
    size_t parent_len;   /* bytes of the parent's path; 0 at the top */
    size_t copy;         /* which naming of a name given again; 0: the first */
    size_t index;
} order_key;

static int cmp_key(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    size_t n = x->parent_len < y->parent_len ? x->parent_len : y->parent_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    if (x->parent_len != y->parent_len)
        return x->parent_len < y->parent_len ? -1 : 1;
    if (x->copy != y->copy)
        return x->copy < y->copy ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Appends item k and, for a folder, its descendants (of the same naming,
 * copy) to order. */
static void emit_dfs(const fz7_tree *t, const order_key *keys, size_t n, size_t k, size_t copy,
                     size_t *order, size_t *used, unsigned depth)
{
    order[(*used)++] = k;
    const fz7_tree_item *it = &t->items[k];
    if (it->kind != FZ7_ITEM_DIR || depth > 4096)
        return;
    size_t len = strlen(it->name);
    /* First key whose parent is this folder, of this naming. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const order_key *m = &keys[mid];
        size_t pn = m->parent_len < len ? m->parent_len : len;
        int c = memcmp(m->name, it->name, pn);
        if (c < 0 || (c == 0 && (m->parent_len < len || (m->parent_len == len && m->copy < copy))))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && keys[lo].parent_len == len && keys[lo].copy == copy && memcmp(keys[lo].name, it->name, len) == 0;
         lo++)
        emit_dfs(t, keys, n, keys[lo].index, copy, order, used, depth + 1);
}

typedef struct dir_name {
    const char *name;
    size_t len;
} dir_name;

static int cmp_dir(const void *a, const void *b)
{
    const dir_name *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* The tree's indices in 7-Zip's order; NULL when out of memory. copy[i]
 * tells item i's naming (0, or the name given again that made it). */
static size_t *listing_order(const fz7_tree *t, const size_t *copy)
{
    size_t n = t->count;
    order_key *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    dir_name *dirs = malloc((n ? n : 1) * sizeof *dirs);
    if (!keys || !order || !dirs) {
        free(keys);
        free(order);
        free(dirs);
        return NULL;
    }
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        const char *nm = t->items[i].name;
        const char *slash = strrchr(nm, '/');
        keys[i] = (order_key){nm, slash ? (size_t)(slash - nm) : 0, copy[i], i};
        if (t->items[i].kind == FZ7_ITEM_DIR)
            dirs[nd++] = (dir_name){nm, strlen(nm)};
    }
    qsort(keys, n, sizeof *keys, cmp_key);
    qsort(dirs, nd, sizeof *dirs, cmp_dir);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        /* A root: an item whose parent folder is not itself listed. */
        const char *nm = t->items[i].name;
        const char *slash = strrchr(nm, '/');
        dir_name parent = {nm, slash ? (size_t)(slash - nm) : 0};
        if (!slash || !bsearch(&parent, dirs, nd, sizeof *dirs, cmp_dir))
            emit_dfs(t, keys, n, i, copy[i], order, &used, 0);
    }
    free(keys);
    free(dirs);
    if (used != n) {  /* cannot happen: every item has one root */
        free(order);
        return NULL;
    }
    return order;
}

/* Drops repeated names (a folder's file reached again through a name
 * inside it, or through a wildcard), keeping the first, as 7-Zip hashes
 * each item once in a naming; the order stays. copy[i] is item i's
 * naming (order_as_named); it is compacted with the tree. */
typedef struct named_items {
    const fz7_tree *t;
    const size_t *copy;
} named_items;

static int cmp_name_idx(const void *a, const void *b, void *ctx)
{
    const named_items *ni = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(ni->t->items[x].name, ni->t->items[y].name);
    if (!c && ni->copy[x] != ni->copy[y])
        c = ni->copy[x] < ni->copy[y] ? -1 : 1;
    return c ? c : x < y ? -1 : x > y;
}

static bool drop_repeats(fz7_tree *t, size_t *copy)
{
    size_t n = t->count;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    bool *drop = calloc(n ? n : 1, sizeof *drop);
    if (!idx || !drop) {
        free(idx);
        free(drop);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    named_items ni = {t, copy};
    qsort_r(idx, n, sizeof *idx, cmp_name_idx, &ni);
    for (size_t i = 1; i < n; i++)
        if (copy[idx[i]] == copy[idx[i - 1]] && !strcmp(t->items[idx[i]].name, t->items[idx[i - 1]].name))
            drop[idx[i]] = true;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (drop[i]) {
            free(t->items[i].name);
            free(t->items[i].disk_path);
            free(t->items[i].link_target);
            continue;
        }
        copy[w] = copy[i];
        t->items[w++] = t->items[i];
    }
    t->count = w;
    free(idx);
    free(drop);
    return true;
}

/* A folder of the names given, in 7-Zip's tree of them: its own names
 * (indexes into the list, in their order) and its subfolders (in the order
 * they were first named). */
typedef struct name_node {
    const char *part;
    size_t len;
    size_t first_child, next_sibling, last_child;   /* SIZE_MAX: none */
    size_t first_name, last_name;
} name_node;

/* The subfolder part[0..len) of node `at`, made (as nodes[*count]) when
 * it is not there yet. */
static size_t child_of(name_node *nodes, size_t *count, size_t at, const char *part, size_t len)
{
    size_t c = nodes[at].first_child;
    while (c != SIZE_MAX && !(nodes[c].len == len && !memcmp(nodes[c].part, part, len)))
        c = nodes[c].next_sibling;
    if (c != SIZE_MAX)
        return c;
    c = (*count)++;
    nodes[c] = (name_node){part, len, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    if (nodes[at].last_child == SIZE_MAX)
        nodes[at].first_child = c;
    else
        nodes[nodes[at].last_child].next_sibling = c;
    nodes[at].last_child = c;
    return c;
}

/* The last part of a name ("c" of "a/b/c"). */
static const char *last_part(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}

/* True when name i is one 7-Zip hashes again: a plain name given before
 * in the same folder of the names' tree, where no name is a wildcard, and
 * no folder above it is named or matched by a wildcard (that folder's walk
 * takes it once). */
static bool named_again(const fz7_wildcard *names, const size_t *next, const name_node *nodes,
                        const size_t *parent, size_t at, size_t i, bool no_wildcards)
{
    const char *last = last_part(names[i].pattern);
    bool again = false;
    for (size_t j = nodes[at].first_name; j != SIZE_MAX; j = next[j]) {
        if (names[j].recursive || (!no_wildcards && fz7_has_wildcard(names[j].pattern)))
            return false;
        if (j < i && !strcmp(last_part(names[j].pattern), last))
            again = true;
    }
    for (size_t c = at, p = parent[c]; again && p != SIZE_MAX && p != 0; c = p, p = parent[c])
        for (size_t j = nodes[p].first_name; j != SIZE_MAX; j = next[j]) {
            const char *lj = last_part(names[j].pattern);
            if (names[j].recursive ||
                (no_wildcards ? strlen(lj) == nodes[c].len && !memcmp(lj, nodes[c].part, nodes[c].len)
                              : fz7_glob_part(lj, strlen(lj), nodes[c].part, nodes[c].len, true)))
                return false;
        }
    return again;
}

/* Orders names (n of them) as 7zz hashes them: the
 * names of the current folder first, in the order given, then each folder
 * named, in the order it was first named, with its names and folders the
 * same way ("d0/e0/f x.c d0/z" gives x.c, d0/z, d0/e0/f). copy[i] gets the
 * i-th name's (in the new order) naming: one number for each tree 7zz
 * walks apart (the relative names, each folder of absolute ones), and a
 * number of its own for a name 7-Zip hashes again (named_again); items of
 * one naming are hashed once. False when out of memory (names are left as
 * given). */
static bool order_as_named(fz7_wildcard *names, size_t n, bool no_wildcards, size_t *copy)
{
    size_t cap = 2, count = 1;
    for (size_t i = 0; i < n; i++)
        for (const char *c = names[i].pattern; *c; c++)
            cap += *c == '/';
    cap += n;
    name_node *nodes = malloc(cap * sizeof *nodes);
    size_t *next = malloc((n ? n : 1) * sizeof *next);
    size_t *node_of = malloc((n ? n : 1) * sizeof *node_of);
    fz7_wildcard *sorted = malloc((n ? n : 1) * sizeof *sorted);
    size_t *stack = malloc(cap * sizeof *stack);
    size_t *parent = malloc(cap * sizeof *parent);
    bool ok = nodes && next && node_of && sorted && stack && parent;
    if (!ok)
        goto out;
    /* Node 0 holds, in the order first named, the tree of the relative
     * names (a node named "") and for each folder of absolute names one
     * node named by its whole path (7zz keeps those apart, unnested). */
    nodes[0] = (name_node){"", 0, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    parent[0] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *p = names[i].pattern, *last = strrchr(p, '/');
        bool absolute = *p == '/';
        size_t at = child_of(nodes, &count, 0, p, absolute ? (size_t)(last - p + 1) : 0);
        parent[at] = 0;
        for (; !absolute;) {
            const char *end = strchr(p, '/');
            if (!end)
                break;   /* the last part: a name of folder `at` */
            size_t len = (size_t)(end - p);
            if (len && !(len == 1 && p[0] == '.')) {
                size_t c = child_of(nodes, &count, at, p, len);
                parent[c] = at;
                at = c;
            }
            p = end + 1;
        }
        next[i] = SIZE_MAX;
        node_of[i] = at;
        if (nodes[at].last_name == SIZE_MAX)
            nodes[at].first_name = i;
        else
            next[nodes[at].last_name] = i;
        nodes[at].last_name = i;
    }
    /* Depth first: a folder's names, then its subfolders, first named first. */
    size_t w = 0, depth = 0;
    stack[depth++] = 0;
    while (depth) {
        size_t at = stack[--depth];
        for (size_t i = nodes[at].first_name; i != SIZE_MAX; i = next[i]) {
            size_t top = node_of[i];
            while (parent[top] != 0)
                top = parent[top];
            copy[w] = named_again(names, next, nodes, parent, node_of[i], i, no_wildcards) ? n + 1 + w : 1 + top;
            sorted[w++] = names[i];
        }
        size_t first = depth;
        for (size_t c = nodes[at].first_child; c != SIZE_MAX; c = nodes[c].next_sibling)
            stack[depth++] = c;
        for (size_t a = first, b = depth; a + 1 < b; a++, b--) {   /* first named on top */
            size_t t = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = t;
        }
    }
    memcpy(names, sorted, n * sizeof *names);
out:
    free(nodes), free(next), free(node_of), free(sorted), free(stack), free(parent);
    return ok;
}

int fz7_cmd_hash(const struct fz7_options *o)
{
    FILE *out = fz7_msg_stream(o);
    fz7_print_banner(out);

    /* The first name sits in the archive's place of the command line. */
    struct fz7_options so = *o;
    size_t first = o->archive ? 1 : 0;
    fz7_wildcard *names = malloc((o->n_names + first + 1) * sizeof *names);
    if (!names)
        return FZ7_EXIT_MEMORY;
    if (o->archive)
        names[0] = (fz7_wildcard){.pattern = (char *)o->archive,
                                  .recursive = fz7_options_name_recursive(o, o->archive, false)};
    memcpy(names + first, o->names, o->n_names * sizeof *names);
    so.names = names;
    so.n_names = o->n_names + first;
    size_t *naming = malloc((so.n_names + 1) * sizeof *naming);
    if (!naming || !order_as_named(names, so.n_names, o->no_wildcards, naming)) {
        free(naming);
        free(names);
        return FZ7_EXIT_MEMORY;
    }
    size_t warnings = 0;
    fz7_scan_warnings sw = {.count = &warnings};
    fz7_tree tree = {0};
    if (!o->ba)
        fprintf(out, "Scanning\n");
    /* One name at a time, to know each item's naming. */
    fz7_status st = FZ7_OK;
    size_t *copy = NULL, ncopy = 0;
    for (size_t i = 0; i < (so.n_names ? so.n_names : 1) && st == FZ7_OK; i++) {
        struct fz7_options one = so;
        one.names = names + i;
        one.n_names = so.n_names ? 1 : 0;
        st = fz7_scan_inputs_ordered(&one, &tree, &sw, false);
        size_t *grown = realloc(copy, (tree.count ? tree.count : 1) * sizeof *copy);
        if (!grown) {
            st = FZ7_E_MEM;
            break;
        }
        copy = grown;
        for (; ncopy < tree.count; ncopy++)
            copy[ncopy] = so.n_names ? naming[i] : 0;
    }
    free(naming);
    free(names);
    fz7_hash_sums *sums = NULL;
    hasher *hs = NULL;
    size_t nh = 0;
    uint8_t *buf = NULL;
    size_t *order = NULL;
    int rc = 0;
    if (st == FZ7_OK && !drop_repeats(&tree, copy))
        st = FZ7_E_MEM;
    if (st != FZ7_OK) {
        fprintf(stderr, "\nERROR: %s\n", fz7_status_str(st));
        rc = FZ7_EXIT_MEMORY;
        goto done;
    }
    uint64_t n_dirs, n_files, n_bytes;
    fz7_tree_counts(&tree, &n_dirs, &n_files, &n_bytes);
    if (!o->ba)
        fz7_print_scan_counts(out, &tree);   /* links' bytes left out, as 7zz */
    rc = fz7_hash_sums_new(o, out, &sums);
    if (rc)
        goto done;
    hs = sums->hs;
    nh = sums->nh;
    /* Reads of 32 KiB land in a buffer that stays in the cache: the
     * kernel's copy into it costs a quarter of the system time that
     * reads of 1 MiB cost. */
    const size_t cap = (size_t)32 << 10;
    buf = malloc(cap);
    if (!buf) {
        rc = FZ7_EXIT_MEMORY;
        goto done;
    }

    if (!o->ba) {
        for (size_t i = 0; i < nh; i++) {
            const hash_kind *k = &k_hashes[hs[i].id];
            fprintf(out, "%-*s ", (int)(2 * k->size), k->name);
        }
        fprintf(out, "%13s  Name\n", "Size");
        for (size_t i = 0; i < nh; i++) {
            print_dashes(out, 2 * k_hashes[hs[i].id].size);
            fputc(' ', out);
        }
        fprintf(out, "-------------  ------------\n");
    }
    order = listing_order(&tree, copy);
    if (!order) {
        rc = FZ7_EXIT_MEMORY;
        goto done;
    }
    uint64_t hashed_bytes = 0;
    for (size_t t = 0; t < tree.count; t++) {
        const fz7_tree_item *it = &tree.items[order[t]];
        bool dir = it->kind == FZ7_ITEM_DIR;
        uint64_t size = 0;
        if (!dir) {
            for (size_t i = 0; i < nh; i++)
                if (!h_init(&hs[i])) {
                    rc = FZ7_EXIT_MEMORY;
                    goto done;
                }
            int err;
            if (it->kind == FZ7_ITEM_SYMLINK) {
                size = strlen(it->link_target);
                for (size_t i = 0; i < nh; i++)
                    h_update(&hs[i], it->link_target, size);
                err = 0;
            } else if (it->kind == FZ7_ITEM_SPECIAL) {
                err = 0;   /* no data, as in an archive: the empty input's hashes */
            } else {
                err = hash_file(it->disk_path, hs, nh, buf, cap);
                size = it->size;
            }
            if (err) {
                warnings++;
                fflush(out);
                fprintf(stderr, "\nERROR: %s : %s\n", it->disk_path, strerror(err));
                continue;
            }
            for (size_t i = 0; i < nh; i++) {
                h_final(&hs[i], hs[i].digest);
                sum_add(hs[i].sum_data, hs[i].digest, k_hashes[hs[i].id].size);
            }
            hashed_bytes += size;
        }
        for (size_t i = 0; i < nh; i++) {
            const hash_kind *k = &k_hashes[hs[i].id];
            if (dir)
                fprintf(out, "%*s ", (int)(2 * k->size), "");
            else {
                print_digest(out, k, hs[i].digest);
                fputc(' ', out);
            }
            hash_name(&hs[i], it->name, dir);
        }
        if (dir)
            fprintf(out, "%13s  ", "");
        else
            fprintf(out, "%13llu  ", (unsigned long long)size);
        fz7_print_name(out, it->name);
        fputs(dir ? "/\n" : "\n", out);
    }
    if (o->ba)
        goto end;
    for (size_t i = 0; i < nh; i++) {
        print_dashes(out, 2 * k_hashes[hs[i].id].size);
        fputc(' ', out);
    }
    fprintf(out, "-------------  ------------\n");
    for (size_t i = 0; i < nh; i++) {
        print_sum(out, &k_hashes[hs[i].id], hs[i].sum_data, n_files != 1);
        fputc(' ', out);
    }
    fprintf(out, "%13llu  \n\n", (unsigned long long)hashed_bytes);
    bool several = n_files != 1 || n_dirs != 0;
    if (n_dirs)
        fprintf(out, "Folders: %llu\n", (unsigned long long)n_dirs);
    if (several)
        fprintf(out, "Files: %llu\n", (unsigned long long)n_files);
    fprintf(out, "Size: %llu\n\n", (unsigned long long)hashed_bytes);
    print_sum_lines(out, hs, nh, n_files, n_dirs);
end:
    rc = warnings ? FZ7_EXIT_WARNING : 0;
    fz7_scan_warnings_print(&sw, out);
    if (!o->ba && !warnings)
        fprintf(out, "Everything is Ok\n");
    else if (!o->ba && warnings != sw.n)
        fprintf(out, "\nWARNINGS: %zu\n", warnings);
done:
    fz7_hash_sums_free(sums);
    free(buf);
    free(order);
    free(copy);
    fz7_scan_warnings_free(&sw);
    fz7_tree_free(&tree);
    return rc;
}
