/* read_tree.c - walks `fz7 a`'s inputs with archive_read_disk and names the
 * results as 7-Zip does. libarchive does the directory walk, the symlink
 * policy (physical for -snl, logical otherwise) and the stat; this file does
 * the 7-Zip naming and wildcard rules. */
#include "fsio/read_tree.h"
#include "fsio/wildcard.h"
#include "format/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool fz7_has_wildcard(const char *s)
{
    return strpbrk(s, "*?") != NULL;
}

static char *dup_range(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = 0;
    }
    return r;
}

char *fz7_archive_name_of(const char *arg)
{
    /* 7-Zip keeps a relative path as it is (empty parts dropped), but when
     * the path is absolute or has a "." or ".." part anywhere it keeps only
     * the last part: "t/d" -> "t/d", "./t/d" and "/x/t/d" -> "d". */
    size_t len = strlen(arg);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    bool last_only = arg[0] == '/';
    const char *p = arg;
    const char *last_start = NULL;
    size_t last_len = 0;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - s);
        if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
            last_only = true;
            continue;
        }
        if (o)
            out[o++] = '/';
        memcpy(out + o, s, n);
        o += n;
        last_start = s;
        last_len = n;
    }
    out[o] = 0;
    if (last_only) {
        if (last_start)
            memmove(out, last_start, last_len);
        out[last_start ? last_len : 0] = 0;
    }
    return out;
}

char *fz7_archive_name_full(const char *arg, int full_paths)
{
    if (full_paths == 1) {
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            n--;
        return dup_range(arg, n);
    }
    if (full_paths == 2 && arg[0] == '/')
        return fz7_archive_name_of(arg + 1);   /* a "." or ".." part still gives the last part */
    return fz7_archive_name_of(arg);
}

/* Matches the pattern's parts against the path's parts. */
bool fz7_match_rule_test(const fz7_match_rule *w, const char *path)
{
    const char *pp = w->pattern;
    const char *cp = path;
    for (;;) {
        while (*pp == '/')
            pp++;
        while (*cp == '/')
            cp++;
        const char *ps = pp;
        while (*pp && *pp != '/')
            pp++;
        size_t pn = (size_t)(pp - ps);
        if (pn == 0)
            return true;   /* every part of the pattern matched */
        bool last_part = (*pp == 0) || (pp[strspn(pp, "/")] == 0);
        /* A recursive rule's last part may match any later path part. */
        for (;;) {
            while (*cp == '/')
                cp++;
            const char *cs = cp;
            while (*cp && *cp != '/')
                cp++;
            size_t cn = (size_t)(cp - cs);
            if (cn == 0)
                return false;
            if (fz7_glob_part(ps, pn, cs, cn, true))
                break;
            if (!(last_part && w->recursive))
                return false;
        }
    }
}

static fz7_status push_item(fz7_tree *t, fz7_tree_item *it)
{
    if (t->count == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        fz7_tree_item *n = realloc(t->items, nc * sizeof *n);
        if (!n)
            return FZ7_E_MEM;
        t->items = n;
        t->cap = nc;
    }
    t->items[t->count++] = *it;
    return FZ7_OK;
}

static void free_item(fz7_tree_item *it)
{
    free(it->name);
    free(it->disk_path);
    free(it->link_target);
}

static char *join_name(const char *base, const char *rel)
{
    size_t a = strlen(base), b = strlen(rel);
    char *r = malloc(a + b + 2);
    if (!r)
        return NULL;
    memcpy(r, base, a);
    size_t o = a;
    if (a && b)
        r[o++] = '/';
    memcpy(r + o, rel, b);
    r[o + b] = 0;
    return r;
}

static bool excluded(const fz7_tree_opts *o, const char *name)
{
    for (size_t i = 0; i < o->n_exclude; i++)
        if (fz7_match_rule_test(&o->exclude[i], name))
            return true;
    return false;
}

static void warn(const fz7_tree_opts *o, const char *path, int e)
{
    if (o->warn)
        o->warn(o->warn_ctx, path, e ? e : EIO);
}

/* Splits s at '/' into at most max parts (start, length); the count, or
 * max + 1 when there are more. */
static size_t split_parts(const char *s, const char **start, size_t *len, size_t max)
{
    size_t n = 0;
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *b = s;
        while (*s && *s != '/')
            s++;
        if (n == max)
            return max + 1;
        start[n] = b;
        len[n++] = (size_t)(s - b);
    }
    return n;
}

static bool part_matches(const char *pat, size_t plen, const char *part, size_t n, bool literal)
{
    if (literal)
        return plen == n && memcmp(pat, part, n) == 0;
    return fz7_glob_part(pat, plen, part, n, true);
}

#define MAX_PARTS 256

/* rel against pattern's parts (one or more: "x*", "src/x*", a wildcard
 * folder and a name after it): wanted when they
 * match rel's first parts (with recursive, any run of its parts), so a
 * matched folder's contents are wanted too. *on_way: rel (a folder)
 * matches the pattern's first parts and the rest may match inside it. */
static bool parts_match(const char *rel, const char *pattern, bool recursive, bool literal, bool *on_way)
{
    const char *rs[MAX_PARTS], *ps[MAX_PARTS];
    size_t rl[MAX_PARTS], pl[MAX_PARTS];
    size_t nr = split_parts(rel, rs, rl, MAX_PARTS), np = split_parts(pattern, ps, pl, MAX_PARTS);
    *on_way = false;
    if (nr > MAX_PARTS || np > MAX_PARTS || np == 0)
        return false;
    for (size_t s = 0; s == 0 || (recursive && s < nr); s++) {
        size_t k = 0;
        while (k < np && s + k < nr && part_matches(ps[k], pl[k], rs[s + k], rl[s + k], literal))
            k++;
        if (k == np)
            return true;
        if (s == 0 && s + k == nr)
            *on_way = true;   /* every part of rel matched: the rest may match below */
    }
    return false;
}

/* A folder libarchive could not enter: its message is "PATH: Couldn't
 * visit directory" with no errno. Warns as 7-Zip does, with the folder's
 * name and a '/' and the real errno (opendir's); false when the message
 * is not of that form. */
static bool warn_unvisited(const fz7_tree_opts *o, const char *msg)
{
    const char *colon = msg ? strstr(msg, ": Couldn't visit directory") : NULL;
    if (!colon || colon == msg)
        return false;
    char *path = malloc((size_t)(colon - msg) + 2);
    if (!path)
        return false;
    memcpy(path, msg, (size_t)(colon - msg));
    path[colon - msg] = 0;
    DIR *d = opendir(path);
    int e = d ? EIO : errno;
    if (d)
        closedir(d);
    strcat(path, "/");
    warn(o, path, e);
    free(path);
    return true;
}

/* Walks root. pattern == NULL: root and everything below it are wanted,
 * named base_name/...; otherwise entries below root that pattern's parts
 * match (parts_match: from depth 1, or any depth when recursive), with
 * their contents. */
/* A walked path as 7-Zip shows it: under a wildcard given without a
 * folder (bare: the walk starts at "."), without libarchive's "./". */
static const char *walked(const char *p, bool bare)
{
    return bare && p[0] == '.' && p[1] == '/' ? p + 2 : p;
}

static fz7_status walk(fz7_tree *t, const char *root, const char *base_name, const char *pattern,
                       bool recursive, bool bare, const fz7_tree_opts *o)
{
    struct archive *ad = archive_read_disk_new();
    if (!ad)
        return FZ7_E_MEM;
    if (o->store_symlinks)
        archive_read_disk_set_symlink_physical(ad);
    else
        archive_read_disk_set_symlink_logical(ad);
    archive_read_disk_set_behavior(ad, ARCHIVE_READDISK_NO_XATTR | ARCHIVE_READDISK_NO_ACL |
                                           ARCHIVE_READDISK_NO_FFLAGS |
                                           ARCHIVE_READDISK_NO_SPARSE);
    fz7_status st = FZ7_OK;
    if (archive_read_disk_open(ad, root) != ARCHIVE_OK) {
        warn(o, root, archive_errno(ad));
        archive_read_free(ad);
        return FZ7_E_IO;
    }
    size_t root_len = strlen(root);
    while (root_len > 1 && root[root_len - 1] == '/')
        root_len--;
    struct archive_entry *e = archive_entry_new();
    if (!e) {
        archive_read_free(ad);
        return FZ7_E_MEM;
    }
    bool first = true;
    for (;;) {
        int r = archive_read_next_header2(ad, e);
        if (r == ARCHIVE_EOF)
            break;
        const char *src = archive_entry_sourcepath(e);
        if (!src)
            src = archive_entry_pathname(e);
        if (r == ARCHIVE_FATAL) {
            warn(o, src ? walked(src, bare) : root, archive_errno(ad));
            st = first ? FZ7_E_IO : FZ7_OK;
            break;
        }
        if (r < ARCHIVE_WARN || !src) {   /* FAILED / RETRY: this entry is unusable */
            if (!src && archive_errno(ad) <= 0 && warn_unvisited(o, archive_error_string(ad)))
                continue;
            warn(o, src ? walked(src, bare) : root, archive_errno(ad));
            if (first) {
                st = FZ7_E_IO;
                break;
            }
            continue;
        }
        if (r == ARCHIVE_WARN)
            warn(o, walked(src, bare), archive_errno(ad));
        bool is_root = first;
        first = false;
        /* rel: the path below root ("" for root itself). */
        const char *rel = "";
        if (!is_root) {
            rel = src;
            if (strncmp(src, root, root_len) == 0) {
                rel = src + root_len;
                while (*rel == '/')
                    rel++;
            }
        }
        const struct stat *sb = archive_entry_stat(e);
        mode_t fmt = sb->st_mode & S_IFMT;
        bool is_dir = fmt == S_IFDIR;
        bool is_link = fmt == S_IFLNK;
        if (is_link && !o->store_symlinks) {
            /* Following links, libarchive hands back the link itself only
             * when its target cannot be reached: 7-Zip warns and skips it. */
            struct stat tsb;
            int e = stat(src, &tsb) == 0 ? ELOOP : errno;
            warn(o, walked(src, bare), e);
            if (is_root) {
                st = FZ7_E_IO;
                break;
            }
            continue;
        }
        bool want;
        bool descend;
        if (!pattern) {
            want = true;
            descend = is_dir;
        } else if (is_root) {
            want = false;
            descend = is_dir;
        } else {
            /* Wanted when some part of rel matches: the first part, or
             * any part when recursive (then it is inside a matched folder
             * or matches itself). */
            bool on_way;
            want = parts_match(rel, pattern, recursive, o->no_wildcards, &on_way);
            descend = is_dir && (want || recursive || on_way);
        }
        char *name = join_name(base_name, rel);
        if (!name) {
            st = FZ7_E_MEM;
            break;
        }
        if (excluded(o, name)) {
            free(name);
            continue;   /* an excluded folder is not entered */
        }
        if (descend)
            archive_read_disk_descend(ad);
        if (!want || name[0] == 0) {
            free(name);
            continue;
        }
        fz7_tree_item it = {0};
        it.name = name;
        it.disk_path = strdup(walked(src, bare));
        bool special = !is_dir && !is_link && fmt != S_IFREG;
        it.kind = is_dir ? FZ7_ITEM_DIR : is_link ? FZ7_ITEM_SYMLINK : special ? FZ7_ITEM_SPECIAL : FZ7_ITEM_FILE;
        it.mode = (uint32_t)sb->st_mode;
        it.size = is_dir || special ? 0 : (uint64_t)sb->st_size;
        it.rdev = special ? (uint64_t)sb->st_rdev : 0;
        it.mtime = (int64_t)sb->st_mtim.tv_sec;
        it.mtime_nsec = (uint32_t)sb->st_mtim.tv_nsec;
        it.ctime = (int64_t)sb->st_ctim.tv_sec;
        it.ctime_nsec = (uint32_t)sb->st_ctim.tv_nsec;
        it.atime = (int64_t)sb->st_atim.tv_sec;
        it.atime_nsec = (uint32_t)sb->st_atim.tv_nsec;
        it.dev = (uint64_t)sb->st_dev;
        it.ino = (uint64_t)sb->st_ino;
        it.nlink = (uint64_t)sb->st_nlink;
        it.uid = (uint32_t)sb->st_uid;
        it.gid = (uint32_t)sb->st_gid;
        if (is_link) {
            const char *tgt = archive_entry_symlink(e);
            it.link_target = strdup(tgt ? tgt : "");
            if (it.link_target)
                it.size = strlen(it.link_target);
        }
        if (!it.disk_path || (is_link && !it.link_target)) {
            free_item(&it);
            st = FZ7_E_MEM;
            break;
        }
        st = push_item(t, &it);
        if (st != FZ7_OK) {
            free_item(&it);
            break;
        }
    }
    archive_entry_free(e);
    archive_read_close(ad);
    archive_read_free(ad);
    return st;
}

fz7_status fz7_tree_add(fz7_tree *t, const char *arg, bool recursive_wildcard,
                        const fz7_tree_opts *o)
{
    /* With recursion a plain name is a wildcard too, as in 7-Zip: "f.txt"
     * is every f.txt at any depth, and one that matches nothing is no
     * warning. */
    if (!fz7_has_wildcard(arg) && !(recursive_wildcard || o->recurse)) {
        struct stat sb;
        int rc = o->store_symlinks ? lstat(arg, &sb) : stat(arg, &sb);
        if (rc != 0) {
            warn(o, arg, errno);
            return FZ7_E_IO;
        }
        char *name = fz7_archive_name_full(arg, o->full_paths);
        if (!name)
            return FZ7_E_MEM;
        fz7_status st = walk(t, arg, name, NULL, false, false, o);
        free(name);
        return st;
    }
    /* The folder is the parts before the first one with a wildcard (for
     * src/su?/s, src), the pattern the parts from it on, as 7-Zip splits
     * it; without a wildcard, the last part is the pattern (-r). */
    const char *slash = NULL;
    for (const char *p = arg; *p; p++) {
        if (*p == '*' || *p == '?')
            break;
        if (*p == '/')
            slash = p;
    }
    if (!fz7_has_wildcard(arg))
        slash = strrchr(arg, '/');
    char *dir = slash ? dup_range(arg, (size_t)(slash - arg) + (slash == arg)) : strdup(".");
    if (!dir)
        return FZ7_E_MEM;
    const char *pattern = slash ? slash + 1 : arg;
    /* The folder is named as a path inside it would be: "./t/s*" gives
     * "sub", as "./t/sub" gives "sub" (7-Zip drops the whole prefix). */
    char *probe = join_name(dir, "\x01");
    char *base = probe ? fz7_archive_name_full(probe, o->full_paths) : NULL;
    free(probe);
    if (base) {
        char *cut = strrchr(base, '/');
        if (cut && slash)   /* no folder given: the "." stands for none */
            *cut = 0;
        else
            base[0] = 0;
    }
    fz7_status st = base ? walk(t, dir, base, pattern, recursive_wildcard || o->recurse, !slash, o)
                         : FZ7_E_MEM;
    free(base);
    free(dir);
    return st;
}

static int cmp_items(const void *x, const void *y)
{
    const fz7_tree_item *a = x, *b = y;
    return fz7_path_cmp(a->name, b->name);
}

fz7_status fz7_tree_sort(fz7_tree *t)
{
    if (t->count < 2)
        return FZ7_OK;
    qsort(t->items, t->count, sizeof *t->items, cmp_items);
    size_t w = 1;
    fz7_status st = FZ7_OK;
    for (size_t i = 1; i < t->count; i++) {
        if (strcmp(t->items[i].name, t->items[w - 1].name) == 0) {
            const fz7_tree_item *a = &t->items[w - 1], *b = &t->items[i];
            bool same = a->dev == b->dev && a->ino == b->ino;
            bool folders = a->kind == FZ7_ITEM_DIR && b->kind == FZ7_ITEM_DIR;
            if (!same && !folders) {   /* both stay: the caller refuses them */
                if (!t->dup_name && !(t->dup_name = strdup(a->name)))
                    st = FZ7_E_MEM;
                t->items[w++] = t->items[i];
                continue;
            }
            free_item(&t->items[i]);
            continue;
        }
        t->items[w++] = t->items[i];
    }
    t->count = w;
    return st;
}

static const fz7_tree *g_link_tree; /* for the qsort comparator */

static int by_inode(const void *pa, const void *pb)
{
    const fz7_tree_item *a = &g_link_tree->items[*(const size_t *)pa];
    const fz7_tree_item *b = &g_link_tree->items[*(const size_t *)pb];
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

fz7_status fz7_tree_hardlink_firsts(const fz7_tree *t, size_t **out)
{
    *out = NULL;
    if (t->count == 0)
        return FZ7_OK;
    size_t *first = malloc(t->count * sizeof *first);
    size_t *linked = malloc(t->count * sizeof *linked);
    if (!first || !linked) {
        free(first);
        free(linked);
        return FZ7_E_MEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++) {
        first[i] = i;
        if (t->items[i].kind == FZ7_ITEM_FILE && t->items[i].nlink > 1)
            linked[n++] = i;
    }
    /* sorted by inode, then list order: each run's head is its first name */
    g_link_tree = t;
    qsort(linked, n, sizeof *linked, by_inode);
    for (size_t k = 1; k < n; k++) {
        const fz7_tree_item *a = &t->items[first[linked[k - 1]]], *b = &t->items[linked[k]];
        if (a->dev == b->dev && a->ino == b->ino)
            first[linked[k]] = first[linked[k - 1]];
    }
    free(linked);
    *out = first;
    return FZ7_OK;
}

void fz7_tree_keep_only(fz7_tree *t, size_t k)
{
    for (size_t i = 0; i < t->count; i++)
        if (i != k)
            free_item(&t->items[i]);
    t->items[0] = t->items[k];
    t->count = 1;
}

void fz7_tree_free(fz7_tree *t)
{
    for (size_t i = 0; i < t->count; i++)
        free_item(&t->items[i]);
    free(t->items);
    free(t->dup_name);
    t->items = NULL;
    t->dup_name = NULL;
    t->count = t->cap = 0;
}
