/* cli_common.c - what l, t, x and e share: 7-Zip's wildcard rules, the
 * terminal questions (password with echo off, overwrite), opening an
 * archive with a password, and the archive block of the output. */
#include "cli/cli.h"
#include "cli/archive_out.h"
#include "cli/settings.h"
#include "cli/archive_type.h"

#include "cpu/cpu.h"
#include "fsio/wildcard.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int fz7_open_input(const char *path, bool no_atime)
{
#ifdef O_NOATIME
    if (no_atime) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
        if (fd >= 0 || errno != EPERM)
            return fd;
    }
#else
    (void)no_atime;
#endif
    return open(path, O_RDONLY | O_CLOEXEC);
}

ssize_t fz7_read_fill(int fd, void *buf, size_t cap)
{
    size_t have = 0;
    while (have < cap) {
        ssize_t n = read(fd, (uint8_t *)buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && have == 0)
            return -1;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    return (ssize_t)have;
}

/* ---- wildcards ---- */

static bool char_eq(char a, char b, bool cs)
{
    return cs ? a == b : tolower((unsigned char)a) == tolower((unsigned char)b);
}

#define MAX_COMPONENTS 512

/* Splits a path into components, skipping empty and "." ones. */
static size_t split(const char *path, const char **b, const char **e)
{
    size_t n = 0;
    const char *p = path;
    while (*p && n < MAX_COMPONENTS) {
        const char *q = p;
        while (*q && *q != '/')
            q++;
        if (q > p && !(q - p == 1 && *p == '.')) {
            b[n] = p;
            e[n] = q;
            n++;
        }
        p = *q ? q + 1 : q;
    }
    return n;
}

/* One component against another, as a glob or (literal) byte for byte. */
static bool component_match(const char *p, const char *pe, const char *s, const char *se,
                            bool cs, bool literal)
{
    if (!literal)
        return fz7_glob_part(p, (size_t)(pe - p), s, (size_t)(se - s), cs);
    if (pe - p != se - s)
        return false;
    for (; p < pe; p++, s++)
        if (!char_eq(*p, *s, cs))
            return false;
    return true;
}

static bool match_parts(const char *pattern, const char *path, bool recursive, bool cs,
                        bool literal, size_t *matched_len)
{
    const char *pb[MAX_COMPONENTS], *pe[MAX_COMPONENTS], *sb[MAX_COMPONENTS], *se[MAX_COMPONENTS];
    size_t m = split(pattern, pb, pe), n = split(path, sb, se);
    *matched_len = n;
    if (m == 0)
        return true;
    if (n < m)
        return false;
    /* The leading components match the path's first ones; the last one
     * matches the next component or, recursive, one at any depth below
     * them (7-Zip's -r: src and then "*.txt" takes src/sub/c.txt; sub/c.txt
     * does not take src/sub/c.txt). */
    for (size_t j = 0; j + 1 < m; j++)
        if (!component_match(pb[j], pe[j], sb[j], se[j], cs, literal))
            return false;
    size_t last = recursive ? n - 1 : m - 1;
    for (size_t k = m - 1; k <= last; k++)
        if (component_match(pb[m - 1], pe[m - 1], sb[k], se[k], cs, literal)) {
            *matched_len = k + 1; /* components up to the match */
            return true;
        }
    return false;
}

bool fz7_wildcard_match(const char *pattern, const char *path, bool recursive,
                        bool case_sensitive)
{
    size_t len;
    return match_parts(pattern, path, recursive, case_sensitive, false, &len);
}

bool fz7_wildcard_selects(const fz7_wildcard *w, const char *path, bool is_dir,
                          bool case_sensitive)
{
    size_t plen = strlen(w->pattern), matched, n;
    if (!match_parts(w->pattern, path, w->recursive, case_sensitive, w->literal, &matched))
        return false;
    if (w->mark != 1)
        return true;
    /* m: a trailing '/' asks for a folder, its absence for a file. The
     * matched item is the path itself or, when the pattern matched its
     * leading components, one of its parent folders. */
    const char *b[MAX_COMPONENTS], *e[MAX_COMPONENTS];
    n = split(path, b, e);
    bool item_is_dir = matched < n ? true : is_dir;
    bool wants_dir = plen > 0 && w->pattern[plen - 1] == '/';
    return item_is_dir == wants_dir;
}

bool fz7_selected_item(const struct fz7_options *o, const char *path, bool is_dir)
{
    bool in = o->n_names == 0;
    for (size_t i = 0; !in && i < o->n_names; i++)
        in = fz7_wildcard_selects(&o->names[i], path, is_dir, o->case_sensitive);
    return in && !fz7_excluded_item(o, path, is_dir);
}

bool fz7_excluded_item(const struct fz7_options *o, const char *path, bool is_dir)
{
    for (size_t i = 0; i < o->n_excludes; i++)
        if (fz7_wildcard_selects(&o->excludes[i], path, is_dir, o->case_sensitive))
            return true;
    return false;
}

bool fz7_selected(const struct fz7_options *o, const char *path)
{
    return fz7_selected_item(o, path, false);
}

/* ---- terminal questions ---- */

static char *read_line(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, in);
    if (n < 0) {
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = 0;
    return line;
}

char *fz7_ask_password(FILE *out)
{
    if (!isatty(STDIN_FILENO)) {
        /* As 7-Zip: a password piped in (echo pw | fz7 x a.7z) is read
         * from the first line; at end of input there is none. */
        fprintf(out, "\nEnter password (will not be echoed):\n");
        fflush(out);
        return read_line(stdin);
    }
    fflush(out);
    fprintf(stderr, "Enter password:");
    fflush(stderr);
    struct termios old, quiet;
    bool restore = tcgetattr(STDIN_FILENO, &old) == 0;
    if (restore) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
        quiet.c_lflag |= ICANON;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char *pw = read_line(stdin);
    if (restore)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
    fputc('\n', stderr);
    return pw;
}

static void free_password(char *pw)
{
    if (pw) {
        explicit_bzero(pw, strlen(pw));
        free(pw);
    }
}

char *fz7_ask_new_password(FILE *out, bool *differ)
{
    *differ = false;
    char *pw = fz7_ask_password(out);
    if (!pw || !isatty(STDIN_FILENO))
        return pw;
    char *again = fz7_ask_password(out);
    *differ = !again || strcmp(again, pw) != 0;
    free_password(again);
    if (*differ) {
        free_password(pw);
        return NULL;
    }
    return pw;
}

int fz7_break_signaled(void)
{
    fflush(stdout);
    fprintf(stderr, "\n\nBreak signaled\n");
    return FZ7_EXIT_BREAK;
}

fz7_status fz7_open_asking(const char *path, const fz7_open_opts *opts, FILE *out,
                           const char **password, char **asked, fz7_archive **a, char *err,
                           size_t errlen)
{
    *asked = NULL;
    fz7_open_opts oo = *opts;
    oo.password = *password;
    fz7_status s = fz7_archive_open(path, &oo, a, err, errlen);
    if (s != FZ7_E_NEED_PASSWORD || *password)
        return s;
    *asked = fz7_ask_password(out);
    if (!*asked)
        return s;
    *password = oo.password = *asked;
    return fz7_archive_open(path, &oo, a, err, errlen);
}

int fz7_password_key(const char *password, fz7_7zaes_key **key)
{
    *key = NULL;
    if (!password || !password[0])
        return 0;
    fz7_status st = fz7_7zaes_key_new(password, key);
    if (st == FZ7_OK)
        return 0;
    fprintf(stderr, "\nERROR: cannot derive the encryption key: %s\n", fz7_status_str(st));
    return st == FZ7_E_MEM ? FZ7_EXIT_MEMORY : FZ7_EXIT_FATAL;
}

void fz7_print_bytes(FILE *out, uint64_t n)
{
    fprintf(out, "%llu bytes", (unsigned long long)n);
    if (n == 0)
        return;
    if (n < ((uint64_t)10 << 20))
        fprintf(out, " (%llu KiB)", (unsigned long long)((n + 1023) >> 10));
    else
        fprintf(out, " (%llu MiB)", (unsigned long long)((n + (1 << 20) - 1) >> 20));
}

fz7_answer fz7_ask_overwrite(FILE *out, const char *disk_path, uint64_t disk_size,
                             int64_t disk_mtime, const char *entry_path, uint64_t entry_size,
                             bool entry_has_mtime, int64_t entry_mtime)
{
    char t1[32], t2[32] = "";
    fz7_format_time(t1, sizeof t1, disk_mtime);
    if (entry_has_mtime)
        fz7_format_time(t2, sizeof t2, entry_mtime);
    /* A newline in a name printed as '_', as in 7zz's listings. */
    fprintf(out, "\nWould you like to replace the existing file:\n  Path:     ");
    fz7_print_name(out, disk_path);
    fprintf(out, "\n  Size:     ");
    fz7_print_bytes(out, disk_size);
    fprintf(out, "\n  Modified: %s\nwith the file from archive:\n  Path:     ", t1);
    fz7_print_name(out, entry_path);
    fprintf(out, "\n  Size:     ");
    fz7_print_bytes(out, entry_size);
    fputc('\n', out);
    if (entry_has_mtime)   /* 7-Zip leaves the line out for an entry without a time */
        fprintf(out, "  Modified: %s\n", t2);
    /* 7zz's "? " once, the choices again after each answer it does not
     * know, and a newline after one it takes. */
    fputs("? ", out);
    for (;;) {
        fprintf(out, "(Y)es / (N)o / (A)lways / (S)kip all / A(u)to rename all / (Q)uit? ");
        fflush(out);
        char *line = read_line(stdin);
        if (!line)
            return FZ7_ANSWER_EOF;
        char c = (char)tolower((unsigned char)line[0]);
        bool one = line[0] && !line[1];
        free(line);
        fz7_answer a = FZ7_ANSWER_EOF;
        if (one) {
            switch (c) {
            case 'y': a = FZ7_ANSWER_YES; break;
            case 'n': a = FZ7_ANSWER_NO; break;
            case 'a': a = FZ7_ANSWER_ALWAYS; break;
            case 's': a = FZ7_ANSWER_SKIP_ALL; break;
            case 'u': a = FZ7_ANSWER_RENAME_ALL; break;
            case 'q': a = FZ7_ANSWER_QUIT; break;
            }
        }
        if (a != FZ7_ANSWER_EOF) {
            fputc('\n', out);
            return a;
        }
    }
}

/* ---- output ---- */

static FILE *g_list_out;

FILE *fz7_list_stream(void)
{
    return g_list_out ? g_list_out : stdout;
}

void fz7_keep_list_stream(FILE *f)
{
    g_list_out = f;
}

static bool g_messages_off;

void fz7_set_messages_off(void)
{
    g_messages_off = true;
}

bool fz7_messages_off(void)
{
    return g_messages_off;
}

FILE *fz7_msg_stream(const struct fz7_options *o)
{
    if (!o->to_stdout)
        return stdout;
    /* As 7-Zip: with data on stdout the log goes nowhere, unless -bso says
     * where (-bso2 standard error; -bso1 standard output, among the data);
     * errors still reach stderr. */
    if (o->bso && (o->bso[0] == '1' || !o->bso[0]))
        return stdout;
    if (o->bso && o->bso[0] == '2')
        return stderr;
    static FILE *none;
    if (!none)
        none = fopen("/dev/null", "w");
    return none ? none : stderr;
}

static bool g_bare;
static const char *g_affinity;   /* -stm's mask as given, NULL without */
static int g_affinity_errno;

void fz7_set_affinity(const char *hex_mask)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    uint64_t mask = strtoull(hex_mask, NULL, 16);
    for (unsigned c = 0; c < 64 && c < CPU_SETSIZE; c++)
        if (mask >> c & 1)
            CPU_SET(c, &set);
    g_affinity = hex_mask;
    g_affinity_errno = sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

void fz7_set_bare(bool bare) { g_bare = bare; }

void fz7_print_banner(FILE *out)
{
    if (g_bare)
        return;
    /* Two lines, as 7-Zip's banner: the program, then the machine. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(out, "\nfz7 %s (%s) : 7z/xz archiver\n %d-bit Threads:%ld kernels:%s\n\n",
            FZ7_VERSION,
#if defined(__x86_64__)
            "x64",
#else
            "generic",
#endif
            (int)(sizeof(void *) * 8), cores > 0 ? cores : 1L,
            fz7_cpu_level_name(fz7_cpu_level_get()));
    if (g_affinity) {
        fprintf(out, "Set process affinity mask: %s", g_affinity);
        if (g_affinity_errno)
            fprintf(out, " : ERROR : errno=%d : %s", g_affinity_errno, strerror(g_affinity_errno));
        fputc('\n', out);
    }
}

void fz7_format_time(char *buf, size_t cap, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!localtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, cap, "%s", "");
}

static const char *type_name(fz7_format f)
{
    switch (f) {
    case FZ7_FORMAT_7Z: return "7z";
    case FZ7_FORMAT_XZ: return "xz";
    case FZ7_FORMAT_LZMA: return "lzma";
    case FZ7_FORMAT_OTHER: break;
    }
    return "?";
}

/* The warning of one archive's block (not of the archive around it). */
static const char *block_warning(const fz7_archive_info *in)
{
    if (in->warning)
        return in->warning;
    if (in->headers_error)
        return "Headers Error";
    return in->tail_size ? FZ7_TAIL_WARNING : NULL;
}

const char *fz7_archive_warning(const fz7_archive *a) { return fz7_archive_warning_in(a, NULL); }

const char *fz7_archive_open_error_in(const fz7_archive *a, const char **name)
{
    for (const fz7_archive *in = a; in; in = fz7_archive_outer(in, NULL))
        if (fz7_archive_get_info(in)->open_error) {
            if (name)
                *name = fz7_archive_opened_as(in);
            return fz7_archive_get_info(in)->open_error;
        }
    if (name)
        *name = NULL;
    return NULL;
}

const char *fz7_archive_opened_as(const fz7_archive *a)
{
    size_t member;
    const fz7_archive *outer = fz7_archive_outer(a, &member);
    return outer ? fz7_archive_entry(outer, member)->path : NULL;
}

const char *fz7_archive_warning_in(const fz7_archive *a, const char **name)
{
    /* the file's own block's, else one of the archives opened inside it
     * (a FAT volume shorter than its VHD's disk) */
    const fz7_archive *top = fz7_archive_outermost(a);
    const char *w = block_warning(fz7_archive_get_info(top));
    if (name)
        *name = NULL;
    for (const fz7_archive *in = a; !w && in != top; in = fz7_archive_outer(in, NULL))
        if ((w = block_warning(fz7_archive_get_info(in))) && name)
            *name = fz7_archive_opened_as(in);
    return w;
}

int fz7_refuse_read_only(FILE *out, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    int e = S_ISDIR(sb.st_mode) ? EISDIR : S_ISREG(sb.st_mode) && !(sb.st_mode & 0222) ? EACCES : 0;
    if (!e)
        return 0;
    fprintf(out, "\nError:\n%s\n%s\nerrno=%d : %s\n",
            e == EISDIR ? "There is a folder with the name of archive" : "The file is read-only", path, e, strerror(e));
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nerrno=%d : %s\n", e, strerror(e));
    return FZ7_EXIT_FATAL;
}

int fz7_refuse_rewrite(FILE *out, const char *path, const fz7_archive *a)
{
    bool multivolume = fz7_archive_get_info(a)->multivolume;
    if (!fz7_archive_get_info(a)->tail_size && !multivolume)
        return 0;
    if (multivolume) {
        fz7_print_archive_block(out, path, a, NULL);
        fprintf(out, "\n\nError:\nUpdating for multivolume archives is not implemented\n");
    } else {
        fprintf(out, "\nWARNINGS:\n%s\n\n", FZ7_TAIL_WARNING);
        fz7_print_archive_block(out, path, a, NULL);
        fprintf(out, "\n\nError:\nThere is some data block after the end of the archive\n");
    }
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n");
    return FZ7_EXIT_FATAL;
}

bool fz7_volume_set_sizes(const char *path, const fz7_archive *a, uint64_t *first,
                          uint64_t *total)
{
    const fz7_archive_info *in = fz7_archive_get_info(a);
    if (!in->volumes || !fz7_archive_is_volume_name(path))
        return false;
    struct stat sb;
    *first = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    *total = in->file_size;
    return true;
}

const char *fz7_archive_type_name(const fz7_archive *a)
{
    const fz7_archive_info *in = fz7_archive_get_info(a);
    return in->type_name ? in->type_name : type_name(in->format);
}

static void print_one_block(FILE *out, const char *path, const fz7_archive *a, const char *expected);
static void print_member_props(FILE *out, const fz7_archive *a, size_t i);
static void print_chain(FILE *out, const char *path, const fz7_archive *a, const char *expected);

void fz7_print_archive_block(FILE *out, const char *path, const fz7_archive *a, const char *expected)
{
    const fz7_archive_info *in = fz7_archive_get_info(a);
    char joined[PATH_MAX];
    uint64_t first, total;
    bool split = in->type_name && !strcmp(in->type_name, "Split");
    if (split && fz7_volume_set_sizes(path, a, &first, &total)) {
        /* the joined file itself is the entry: 7-Zip's Split block alone */
        fprintf(out, "--\nPath = %s\nType = Split\nPhysical Size = %llu\nVolumes = %llu\n"
                     "Total Physical Size = %llu\n",
                path, (unsigned long long)first, (unsigned long long)in->volumes, (unsigned long long)total);
        return;
    }
    if (fz7_volume_set_sizes(path, a, &first, &total) && strlen(path) < sizeof joined) {
        /* A volume set (x.7z.001...): 7-Zip's Split block, its joined
         * stream, then the archive in it named without the volume number
         * (and without the folder: 7-Zip names the stream, not a file). */
        const char *base = strrchr(path, '/');
        strcpy(joined, base ? base + 1 : path);
        *strrchr(joined, '.') = 0;
        fprintf(out, "--\nPath = %s\nType = Split\nPhysical Size = %llu\nVolumes = %llu\n"
                     "Total Physical Size = %llu\n----\nPath = %s\nSize = %llu\n",
                path, (unsigned long long)first, (unsigned long long)in->volumes,
                (unsigned long long)total, joined, (unsigned long long)total);
        path = joined;
    }
    print_chain(out, path, a, expected);
}

/* The blocks of the archives a was opened inside, outermost first (a
 * .deb's ar; a virtual disk's image, its partition table), each with the
 * member that holds the next, then a's own block. */
static void print_chain(FILE *out, const char *path, const fz7_archive *a, const char *expected)
{
    size_t member;
    const fz7_archive *outer = fz7_archive_outer(a, &member);
    if (outer) {
        print_chain(out, path, outer, expected);
        fprintf(out, "----\n");
        print_member_props(out, outer, member);
        path = fz7_archive_entry(outer, member)->path;
        expected = NULL;
    }
    print_one_block(out, path, a, expected);
}

/* The "Path = " ... lines of one archive (not of the archive around it). */
static void print_one_block(FILE *out, const char *path, const fz7_archive *a, const char *expected)
{
    const fz7_archive_info *in = fz7_archive_get_info(a);
    fprintf(out, "--\nPath = %s\n", path);
    if (expected)
        fprintf(out, "Open WARNING: Cannot open the file as [%s] archive\n", expected);
    fprintf(out, "Type = %s\n", fz7_archive_type_name(a));
    if (in->open_error)
        fprintf(out, in->open_error_prop ? "ERROR = %s\n" : "ERRORS:\n%s\n", in->open_error);
    if (in->warning)   /* the format's own: 7-Zip's property line */
        fprintf(out, "WARNING = %s\n", in->warning);
    else if (block_warning(in))
        fprintf(out, "WARNINGS:\n%s\n", block_warning(in));
    if (in->offset)
        fprintf(out, "Offset = %llu\n", (unsigned long long)in->offset);
    if (in->multivolume) {
        fprintf(out, "Physical Size = %llu\n", (unsigned long long)in->volume_size);
        if (in->stub_size)
            fprintf(out, "Embedded Stub Size = %llu\n", (unsigned long long)in->stub_size);
        fprintf(out, "Total Physical Size = %llu\nMultivolume = +\nVolume Index = %llu\nVolumes = %llu\n",
                (unsigned long long)in->file_size, (unsigned long long)in->volume_index,
                (unsigned long long)in->volumes);
    } else if (!in->sizes_unknown) {
        fprintf(out, "Physical Size = %llu\n", (unsigned long long)in->phy_size);
    }
    if (in->tail_size)
        fprintf(out, "Tail Size = %llu\n", (unsigned long long)in->tail_size);
    if (in->format == FZ7_FORMAT_7Z || in->headers_size)
        fprintf(out, "Headers Size = %llu\n", (unsigned long long)in->headers_size);
    if (in->block_lines) {   /* the format's order, not the one below */
        for (size_t k = 0; k < in->n_block_lines; k++)
            if (in->block_lines[k].value)
                fprintf(out, "%s = %s\n", in->block_lines[k].name, in->block_lines[k].value);
            else
                fz7_print_time_prop(out, &in->block_lines[k]);
        return;
    }
    if (in->sub_type)
        fprintf(out, "SubType = %s\n", in->sub_type);
    if (in->code_page)
        fprintf(out, "Code Page = %s\n", in->code_page);
    const char *m = in->method ? in->method : "";
    if (in->check && !strstr(m, in->check))
        fprintf(out, "Method = %s%s%s\n", m, m[0] ? " " : "", in->check);
    else if (m[0])
        fprintf(out, "Method = %s\n", m);
    for (size_t k = 0; k < 4 && in->lines[k].name; k++)
        fprintf(out, "%s = %s\n", in->lines[k].name, in->lines[k].value);
    if (in->format == FZ7_FORMAT_7Z) {
        fprintf(out, "Solid = %c\n", in->solid ? '+' : '-');
        fprintf(out, "Blocks = %llu\n", (unsigned long long)in->num_blocks);
    } else if (in->format == FZ7_FORMAT_XZ && !in->sizes_unknown) {
        fprintf(out, "Streams = %llu\n", (unsigned long long)in->num_streams);
        fprintf(out, "Blocks = %llu\n", (unsigned long long)in->num_blocks);
    }
    if (in->cluster_size)
        fprintf(out, "Cluster Size = %llu\n", (unsigned long long)in->cluster_size);
    if (in->characteristics)
        fprintf(out, "Characteristics = %s\n", in->characteristics);
    if (in->comment)   /* several lines: 7-Zip starts them on a line of their own */
        fprintf(out, "Comment = %s%s\n", strchr(in->comment, '\n') ? "\n" : "", in->comment);
    for (size_t k = 0; k < 2 && in->times[k].name; k++)
        fz7_print_time_prop(out, &in->times[k]);
}

/* The lines of an entry of `l -slt` that have a value: 7-Zip's lines for
 * the member that holds the archive it opened in its place. */
static void print_member_props(FILE *out, const fz7_archive *a, size_t i)
{
    fz7_prop props[FZ7_PROPS_MAX];
    char buf[512];
    size_t np = fz7_archive_entry_props(a, i, props, buf, sizeof buf);
    for (size_t k = 0; k < np; k++) {
        if (!props[k].value ? props[k].digits < 0 : !props[k].value[0])
            continue;
        if (!props[k].value)
            fz7_print_time_prop(out, &props[k]);
        else
            fprintf(out, "%s = %s\n", props[k].name, props[k].value);
    }
}

void fz7_print_time_prop(FILE *out, const fz7_prop *p)
{
    char t[32] = "";
    fprintf(out, "%s = ", p->name);
    if (p->digits >= 0) {
        fz7_format_time(t, sizeof t, p->sec);
        fputs(t, out);
        if (p->digits > 0) {
            uint32_t f = p->nsec;
            for (int k = p->digits; k < 9; k++)
                f /= 10;
            fprintf(out, ".%0*u", p->digits, (unsigned)f);
        }
    }
    fputc('\n', out);
}

const char *fz7_entry_error_words(fz7_status st, bool encrypted)
{
    switch (st) {
    case FZ7_E_CRC: return encrypted ? "CRC Failed in encrypted file. Wrong password?" : "CRC Failed";
    case FZ7_E_DATA:
        return encrypted ? "Data Error in encrypted file. Wrong password?" : "Data Error";
    case FZ7_E_PASSWORD: return "Data Error in encrypted file. Wrong password?";
    case FZ7_E_WRONG_PASSWORD: return "Wrong password";   /* 7-Zip's words for a zip's check */
    case FZ7_E_NEED_PASSWORD: return "Cannot open encrypted archive. Wrong password?";
    case FZ7_E_TRUNCATED: return "Unexpected end of data";
    case FZ7_E_UNSUPPORTED: return "Unsupported Method";
    case FZ7_E_MEMLIMIT: return "Memory usage limit reached";
    case FZ7_E_MEM: return "Can't allocate required memory";
    default: return fz7_status_str(st);
    }
}

/* ---- opening ---- */

static char g_noname[256] = "noname";

const char *fz7_entry_path(const fz7_entry *e) { return e->path[0] ? e->path : g_noname; }

static void set_noname(const char *archive)
{
    const char *base = strrchr(archive, '/');
    base = base ? base + 1 : archive;
    snprintf(g_noname, sizeof g_noname, "%s", base);
    char *dot = strrchr(g_noname, '.');
    if (dot && dot != g_noname)
        *dot = 0;
}

static void print_size_line(FILE *out, size_t folders, size_t files, uint64_t n)
{
    if (folders)
        fprintf(out, "%zu folder%s, ", folders, folders == 1 ? "" : "s");
    fprintf(out, "%zu file%s, ", files, files == 1 ? "" : "s");
    fz7_print_bytes(out, n);
    fputc('\n', out);
}

/* The format 7-Zip tries first for an archive name: by -t, else by the
 * extension; NULL when neither names one. */
static const char *expected_type(const struct fz7_options *o, const char *path)
{
    if (o->type != FZ7_TYPE_AUTO)
        return fz7_type_display(o->type, o->type_name);
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    static const struct { const char *ext, *type; } by_ext[] = {
        {".7z", "7z"}, {".xz", "xz"}, {".txz", "xz"}, {".lzma", "lzma"}, {".gz", "gzip"},
        {".tgz", "gzip"}, {".bz2", "bzip2"}, {".tbz2", "bzip2"}, {".tbz", "bzip2"},
        {".zst", "zstd"}, {".tzst", "zstd"}, {".zip", "zip"}, {".tar", "tar"}, {".cpio", "Cpio"},
        {".ar", "Ar"}, {".a", "Ar"}, {".lib", "Ar"}, {".deb", "Ar"}, {".udeb", "Ar"}, {".z01", "zip"},
        {".rpm", "Rpm"}, {".cab", "Cab"}, {".lzh", "Lzh"}, {".lha", "Lzh"}, {".squashfs", "SquashFS"},
        {".msi", "Compound"}, {".msp", "Compound"}, {".msm", "Compound"}, {".doc", "Compound"},
        {".xls", "Compound"}, {".ppt", "Compound"}, {".aaf", "Compound"}, {".fat", "FAT"}, {".vhd", "VHD"}, {".vdi", "VDI"},
        {".qcow", "QCOW"}, {".qcow2", "QCOW"}, {".qcow2c", "QCOW"}, {".vmdk", "VMDK"}};
    for (size_t i = 0; i < sizeof by_ext / sizeof by_ext[0]; i++)
        if (!strcasecmp(dot, by_ext[i].ext))
            return by_ext[i].type;
    return NULL;
}

const char *fz7_unexpected_type(const struct fz7_options *o, const char *path, const fz7_archive *a)
{
    if (o->type != FZ7_TYPE_AUTO || o->from_stdin)
        return NULL;
    const char *want = expected_type(o, path);
    /* a .deb: its ar archive's */
    const char *got = fz7_archive_type_name(fz7_archive_outermost(a));
    /* (a disk image that is no VHD or VDI but an MBR disk: 7zz does not
     * say it, found by trying) */
    if (want && !strcmp(got, "MBR") && (!strcmp(want, "VHD") || !strcmp(want, "VDI")))
        return NULL;
    return want && strcmp(want, got) != 0 ? want : NULL;
}

static const char *g_system_error;   /* l's System ERROR, after its Errors line */

/* A reader that refused the file with a COM error (7-Zip's handler
 * returned it from Open): l names it as the error "opening" gave and
 * again as the System ERROR, t and x after "Cannot open the file as
 * archive". */
static void system_open_error(const struct fz7_options *o, const char *path, const char *what)
{
    if (o->command == FZ7_CMD_LIST) {
        fprintf(stderr, "\nERROR: %s : opening : %s\n", path, what);
        g_system_error = what;   /* (a literal, or FZ7_E_NOTIMPL_TEXT) */
    } else
        fprintf(stderr, "ERROR: %s\nCannot open the file as archive\n\n%s\n", path, what);
}

void fz7_flush_system_error(FILE *out)
{
    if (!g_system_error)
        return;
    fflush(out);
    fprintf(stderr, "\n\nSystem ERROR:\n%s\n", g_system_error);
    g_system_error = NULL;
}

/* An archive that does not open, in 7-Zip 26's lines: "ERROR: <arc>" and
 * the reason (l: on one line with " : "), for a file of the expected
 * type "Open ERROR: Cannot open the file as [7z] archive" and an
 * "ERRORS:" block; fz7's own detail, when it says more, on a line after.
 * `l` ends with "Errors: 1", t/x/e with the "Can't open as archive"
 * counts. */
static int open_error(const struct fz7_options *o, FILE *out, const char *path, fz7_status st,
                      const char *err, bool excluded_type, bool *cant_open)
{
    bool listing = o->command == FZ7_CMD_LIST;
    const char *type = excluded_type ? NULL : expected_type(o, path);
    /* A volume set that ends early (x.7z.001 without .002): 7-Zip names
     * the archive inside the set, x.7z, and its type. */
    char inner[PATH_MAX] = "";
    const char *vol = strrchr(path, '.');
    if (!type && !excluded_type && st == FZ7_E_TRUNCATED && fz7_archive_is_volume_name(path) &&
        (size_t)(vol - path) < sizeof inner) {
        const char *base = strrchr(path, '/');   /* (the stream's name: no folder) */
        base = base && base < vol ? base + 1 : path;
        memcpy(inner, base, (size_t)(vol - base));
        inner[vol - base] = 0;
        type = expected_type(o, inner);
    }
    const char *name = inner[0] && type ? inner : path;
    struct stat sb;
    int64_t size = !o->from_stdin && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
    if (size == 0)   /* an empty file is no archive of any type to 7-Zip (no [type] block) */
        type = NULL;
    if (cant_open)
        *cant_open = st != FZ7_E_MEM && st != FZ7_E_IO; /* damaged headers, wrong password too */
    if (listing && !o->ba)   /* l's empty line comes before the error, as 7zz's */
        fputc('\n', out);
    fflush(out);
    if (st == FZ7_E_UNSUPPORTED && !strcmp(err, FZ7_E_NOTIMPL_TEXT)) {
        system_open_error(o, path, FZ7_E_NOTIMPL_TEXT);   /* (a SquashFS compressor fz7 lacks) */
    } else if (st == FZ7_E_NEED_PASSWORD || st == FZ7_E_PASSWORD) {
        const char *m = fz7_entry_error_words(FZ7_E_NEED_PASSWORD, true);
        const char *he = strstr(err, "(Headers Error)") ? "ERRORS:\nHeaders Error\n" : "";
        if (listing)
            fprintf(stderr, "\nERROR: %s : %s\n\n%s\n", path, m, he);
        else
            fprintf(stderr, "ERROR: %s\n%s\n\n%s", path, m, he);
    } else if (type && st != FZ7_E_MEM && st != FZ7_E_IO && st != FZ7_E_MEMLIMIT &&
               st != FZ7_E_UNSUPPORTED) {
        /* 7-Zip's xz reader calls any bad start "Is not archive", and so
         * a zip cut before its first entry or a 7z before its 32-byte
         * signature header (fz7's readers: FZ7_E_TRUNCATED) */
        bool short_start = st == FZ7_E_TRUNCATED && !inner[0] &&
                           (!strcmp(type, "zip") || (!strcmp(type, "7z") && size >= 0 && size < 32));
        const char *why = st == FZ7_E_TRUNCATED && !short_start ? "Unexpected end of archive"
                          : short_start || st == FZ7_E_FORMAT || !strcmp(type, "xz") ? "Is not archive"
                          : "Headers Error";
        fprintf(stderr, "%sERROR: %s%s%s\nOpen ERROR: Cannot open the file as [%s] archive\n\n\n",
                listing ? "\n" : "", path, listing ? " : " : "\n", name, type);
        /* (7zz gives no reason for a file its Split, Rpm, SquashFS, FAT, VHD or VDI handler, or
         * its zip one for a first disk, x.z01, turns down) */
        bool no_reason = !strcmp(type, "Split") || !strcmp(type, "Rpm") || !strcmp(type, "SquashFS") ||
                         !strcmp(type, "FAT") || !strcmp(type, "VHD") || !strcmp(type, "VDI") ||
                         !strcmp(type, "QCOW") || !strcmp(type, "VMDK") ||   /* (their readers give 7-Zip's block in err) */
                         (vol && !strcasecmp(vol, ".z01"));
        if (!no_reason)
            fprintf(stderr, "ERRORS:\n%s\n", why);
        /* the reader's own reason (which header, which offset) unless it is
         * only the generic "not this format" */
        if (err[0] && strcmp(err, why) && strcmp(err, "Cannot open the file as archive") &&
            (strcmp(err, "Unexpected end of archive") || st != FZ7_E_TRUNCATED))   /* (a Compound file's 2nd line) */
            fprintf(stderr, "%s\n", err);
        if (listing)
            fputc('\n', stderr);
    } else {
        /* (a damaged Compound file's "Unexpected end of archive" or tail
         * warning goes in the ERRORS block above only) */
        bool cut_headers = st == FZ7_E_DATA && (!strcmp(err, "Unexpected end of archive") ||
                                                !strncmp(err, "WARNINGS:\n", 10));
        const char *m = st == FZ7_E_FORMAT || cut_headers ? "Cannot open the file as archive"
                        : err[0] ? err : fz7_status_str(st);
        if (listing)
            fprintf(stderr, "\nERROR: %s : %s\n\n\n", path, m);
        else
            fprintf(stderr, "ERROR: %s\n%s\n\n", path, m);
    }
    return st == FZ7_E_MEM ? FZ7_EXIT_MEMORY : FZ7_EXIT_FATAL;
}

/* A package whose payload does not open as its name says (an rpm's
 * .cpio.gz that is no gzip): 7-Zip 26 names the payload and its type as
 * for an archive that does not open, without a reason, after the
 * package's own error when it is cut short. */
static int payload_error(const struct fz7_options *o, FILE *out, const char *path, const fz7_archive_info *in,
                         bool *cant_open)
{
    bool listing = o->command == FZ7_CMD_LIST;
    *cant_open = true;
    if (listing && !o->ba)
        fputc('\n', out);
    fflush(out);
    if (!listing && in->open_error)
        fprintf(stderr, "\nERRORS:\n%s\n\n", in->open_error);
    fprintf(stderr, "%sERROR: %s%s%s\nOpen ERROR: Cannot open the file as [%s] archive\n\n\n%s",
            listing ? "\n" : "", path, listing ? " : " : "\n", in->unopened_name, in->unopened_type,
            listing ? "\n" : "");
    return FZ7_EXIT_FATAL;
}

void fz7_print_cant_open_summary(const struct fz7_options *o, FILE *out)
{
    if (o->command == FZ7_CMD_LIST)
        fprintf(out, "\n\nErrors: 1\n");
    else
        fprintf(out, "\nCan't open as archive: 1\nFiles: 0\nSize:       0\nCompressed: 0\n");
}

/* -mmemuse as a decoder memory limit in bytes; 0 = the default. */
static uint64_t mem_limit_of(const struct fz7_options *o)
{
    if (o->memuse_bytes)
        return o->memuse_bytes;
    if (o->memuse_percent) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            return (uint64_t)pages * (uint64_t)page / 100 * o->memuse_percent;
    }
    return 0;
}

/* -mmt{N} as decoder threads: 0 (every core) unless N was given. */
static unsigned decode_threads_of(const struct fz7_options *o)
{
    return o->threads > 0 ? (unsigned)o->threads : 0;
}


/* -si: an xz file on stdin is read in one forward pass (a pipe cannot
 * seek); a 7z or lzma file is read only when stdin is a regular file
 * (redirected), through its /dev/stdin name. */
/* What the command shows beyond the entries: l a packed size per entry,
 * l -slt every field. */
/* -mcp=N as 7zz's tar shows it in "Code Page = ": OEM for 1 (or
 * nothing), UTF-8 for 65001, else the number; NULL without -mcp. The
 * names are read as they are either way (7zz on Linux converts none). */
static const char *code_page_label(const struct fz7_options *o, char *buf, size_t n)
{
    const char *label = NULL;
    for (size_t i = 0; i < o->n_methods; i++) {
        const char *m = o->methods[i];
        if (strncasecmp(m, "cp", 2) || isalpha((unsigned char)m[2]))
            continue;
        const char *v = m + 2 + (m[2] == '=');
        unsigned long cp = strtoul(v, NULL, 10);
        if (!v[0] || cp == 1)
            label = "OEM";
        else if (cp == 65001)
            label = "UTF-8";
        else {
            snprintf(buf, n, "%lu", cp);
            label = buf;
        }
    }
    return label;
}

static fz7_detail detail_of(const struct fz7_options *o)
{
    return o->command != FZ7_CMD_LIST ? FZ7_DETAIL_NONE : o->slt ? FZ7_DETAIL_PROPS : FZ7_DETAIL_PACKED;
}

static int open_stdin(const struct fz7_options *o, FILE *out, const char *verb,
                      fz7_archive **out_arc, bool *cant_open)
{
    if (!o->ba || o->command != FZ7_CMD_LIST) /* -ba: l prints its entries only */
        fprintf(out, "\n%s archive: \n", verb);
    char err[512];
    fz7_open_opts opts = {.password = o->password, .mem_limit = mem_limit_of(o),
                          .threads = decode_threads_of(o), .xz_salvage = true,
                          .detail = detail_of(o)};
    fz7_status s = fz7_archive_open_fd(STDIN_FILENO, o->stdin_name, &opts, out_arc, err,
                                       sizeof err);
    struct stat st;
    bool regular = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
    if (s != FZ7_OK && s != FZ7_E_IO && s != FZ7_E_MEM && regular && o->type != FZ7_TYPE_XZ) {
        s = fz7_archive_open("/dev/stdin", &opts, out_arc, err, sizeof err);
        if (s == FZ7_E_NEED_PASSWORD)
            snprintf(err, sizeof err, "encrypted headers need a password (-p{password} or "
                     "--password-file={file}; stdin carries the archive)");
    }
    if (s != FZ7_OK)
        return open_error(o, out, "", s, err, false, cant_open);   /* 7zz names no file */
    return 0;
}

/* True when -stx names the type of the opened archive. */
static bool type_excluded(const struct fz7_options *o, const fz7_archive *a)
{
    if (o->type != FZ7_TYPE_AUTO)
        return false;   /* -t names the type: -stx excludes only from the guess (7zz) */
    for (size_t i = 0; i < o->n_excluded_types; i++) {
        const char *canon = NULL;
        fz7_type t = fz7_type_parse(o->excluded_types[i], &canon);
        if (t != FZ7_TYPE_UNKNOWN && t != FZ7_TYPE_AUTO &&
            fz7_type_matches(t, canon, fz7_archive_get_info(a)))
            return true;
    }
    return false;
}

bool fz7_excluded_types_known(const struct fz7_options *o)
{
    for (size_t i = 0; i < o->n_excluded_types; i++) {
        const char *canon = NULL;
        if (fz7_type_parse(o->excluded_types[i], &canon) == FZ7_TYPE_UNKNOWN)
            return false;
    }
    return true;
}

/* x, e, t, l: 7zz hands the -m switches to the archive's handler as it
 * opens the archive, which refuses what it cannot read (the checks 7zz
 * makes before "Add new data" when writing; a coder's own are not made). */
static bool method_switches_refused(const struct fz7_options *o, const fz7_archive *a)
{
    if (!o->n_methods && !o->bad_method && !o->solid && !o->filters && o->level < 0 &&
        o->header_compress == FZ7_UNSET && o->header_encrypt == FZ7_UNSET)
        return false;
    char why[256];
    const fz7_archive_info *info = fz7_archive_get_info(a);
    /* tar and zip take -mcp, zip -mem: each format's handler its own */
    static const struct {
        fz7_type type;
        fz7_la_kind kind;
    } la[] = {{FZ7_TYPE_TAR, FZ7_LA_TAR}, {FZ7_TYPE_ZIP, FZ7_LA_ZIP},
              {FZ7_TYPE_GZIP, FZ7_LA_GZIP}, {FZ7_TYPE_BZIP2, FZ7_LA_BZIP2}};
    for (size_t i = 0; i < sizeof la / sizeof la[0]; i++)
        if (fz7_type_matches(la[i].type, NULL, info)) {
            fz7_la_opts w;
            bool late = false;
            fz7_status st = fz7_la_settings_make(o, la[i].kind, &w, &late, why, sizeof why);
            return (st == FZ7_E_ARG || st == FZ7_E_UNSUPPORTED) && !late;
        }
    fz7_settings s;
    fz7_status st = fz7_settings_make(o, info->format == FZ7_FORMAT_XZ, &s, why, sizeof why);
    return (st == FZ7_E_ARG || st == FZ7_E_UNSUPPORTED) && !s.refuse_late;
}

int fz7_open_for_read(const struct fz7_options *o, const char *path, FILE *out, const char *verb,
                      bool need_data, fz7_archive **out_arc, char **password_out, bool *cant_open)
{
    *out_arc = NULL;
    *password_out = NULL;
    *cant_open = false;
    if (o->from_stdin) {
        int rc = open_stdin(o, out, verb, out_arc, cant_open);
        if (rc == 0 && !fz7_type_matches(o->type, o->type_name, fz7_archive_get_info(*out_arc))) {
            fz7_archive_close(*out_arc);
            *out_arc = NULL;
            fflush(out);
            fprintf(stderr, "ERROR: stdin : Cannot open the file as [%s] archive\n",
                    fz7_type_display(o->type, o->type_name));
            return FZ7_EXIT_FATAL;
        }
        return rc;
    }
    if (!o->ba || o->command != FZ7_CMD_LIST) /* -ba: l prints its entries only */
        fprintf(out, "\n%s archive: %s\n", verb, path);

    set_noname(path);
    const char *password = o->password;
    char err[512] = "";
    fz7_archive *a = NULL;
    fz7_open_opts opts = {.mem_limit = mem_limit_of(o), .threads = decode_threads_of(o),
                          .xz_salvage = true, .detail = detail_of(o),
                          .split = o->type == FZ7_TYPE_OTHER && o->type_name && !strcasecmp(o->type_name, "Split")};
    opts.owners = o->store_owner_id && (o->command == FZ7_CMD_EXTRACT || o->command == FZ7_CMD_EXTRACT_FLAT);
    static char cp_buf[16];   /* the open archive's info points at it */
    opts.code_page = code_page_label(o, cp_buf, sizeof cp_buf);
    fz7_status s = FZ7_E_NEED_PASSWORD;
    if (o->command == FZ7_CMD_LIST && !password) {
        /* l: 7-Zip's empty line comes before the question, not after it. */
        s = fz7_archive_open(path, &opts, &a, err, sizeof err);
        if (s == FZ7_E_NEED_PASSWORD && !o->ba)
            fputc('\n', out);
    }
    if (s == FZ7_E_NEED_PASSWORD)
        s = fz7_open_asking(path, &opts, out, &password, password_out, &a, err, sizeof err);
    if (s == FZ7_E_NEED_PASSWORD && !password) { /* no answer: as 7-Zip */
        if (o->command != FZ7_CMD_LIST)
            fputc('\n', out);
        return fz7_break_signaled();
    }
    if (s != FZ7_OK)
        return open_error(o, out, path, s, err, false, cant_open);
    if (fz7_archive_get_info(a)->unopened_type) {
        int rc = payload_error(o, out, path, fz7_archive_get_info(a), cant_open);
        fz7_archive_close(a);
        return rc;
    }
    if (type_excluded(o, a)) { /* -stx: as a file of no known type */
        fz7_archive_close(a);
        fflush(out);
        return open_error(o, out, path, FZ7_E_FORMAT, "", true, cant_open);
    }
    if (!fz7_type_matches(o->type, o->type_name, fz7_archive_get_info(a))) {
        fz7_archive_close(a);
        fflush(out);
        return open_error(o, out, path, FZ7_E_FORMAT, "", false, cant_open);
    }
    if (method_switches_refused(o, a)) {
        fz7_archive_close(a);
        if (o->command == FZ7_CMD_LIST && !o->ba)   /* l's empty line, as in open_error */
            fputc('\n', out);
        fflush(out);
        *cant_open = true;
        system_open_error(o, path, "E_INVALIDARG : One or more arguments are invalid");
        return FZ7_EXIT_FATAL;
    }
    if (need_data && !password) {
        bool encrypted = false;
        for (size_t i = 0; i < fz7_archive_count(a) && !encrypted; i++) {
            const fz7_entry *e = fz7_archive_entry(a, i);
            encrypted = e->encrypted && fz7_selected_item(o, fz7_entry_path(e), e->is_dir);
        }
        if (encrypted) {
            *password_out = fz7_ask_password(out);
            fz7_archive_close(a);
            if (!*password_out) {
                fputc('\n', out);
                return fz7_break_signaled();
            }
            opts.password = *password_out;
            s = fz7_archive_open(path, &opts, &a, err, sizeof err);
            if (s != FZ7_OK)
                return open_error(o, out, path, s, err, false, cant_open);
        }
    }
    *out_arc = a;
    return 0;
}

int fz7_reopen_with_password(const struct fz7_options *o, const char *path, FILE *out,
                             const char *password, fz7_archive **a)
{
    char err[512] = "";
    fz7_open_opts opts = {.password = password, .mem_limit = mem_limit_of(o),
                          .threads = decode_threads_of(o), .xz_salvage = true};
    fz7_status s = fz7_archive_open(path, &opts, a, err, sizeof err);
    if (s != FZ7_OK) {
        *a = NULL;
        return open_error(o, out, path, s, err, false, NULL);
    }
    return 0;
}

void fz7_keep_password(char **kept, char **asked)
{
    if (kept && !*kept) {
        *kept = *asked;
        *asked = NULL;
        return;
    }
    if (*asked) {
        explicit_bzero(*asked, strlen(*asked));
        free(*asked);
        *asked = NULL;
    }
}

/* ---- the archives of a command line ---- */

static bool has_wildcard(const char *s) { return strpbrk(s, "*?") != NULL; }

static int add_path(fz7_archive_list *l, char *path, uint64_t size)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **n = realloc(l->paths, cap * sizeof *n);
        if (!n) {
            free(path);
            return -1;
        }
        l->paths = n;
        l->cap = cap;
    }
    l->paths[l->n++] = path;
    l->bytes += size;
    return 0;
}

static char *join_path(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *p = malloc(dl + nl + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    size_t k = dl;
    if (dl && dir[dl - 1] != '/')
        p[k++] = '/';
    memcpy(p + k, name, nl + 1);
    return p;
}

/* True when an -ax wildcard takes path out. */
static bool archive_excluded(const struct fz7_options *o, const char *path, bool is_dir)
{
    for (size_t k = 0; k < o->n_archive_excludes; k++)
        if (fz7_wildcard_selects(&o->archive_excludes[k], path, is_dir, o->case_sensitive))
            return true;
    return false;
}

/* Adds the regular files below dir ("" the current folder) whose path
 * after its first root_len bytes w matches, down to depth levels more
 * (symlinked folders not entered). */
static int walk_matches(const struct fz7_options *o, const fz7_wildcard *w, size_t root_len,
                        const char *dir, unsigned depth, fz7_archive_list *l)
{
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return 0; /* a folder that cannot be read holds no archive */
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *p = join_path(dir, de->d_name);
        if (!p) {
            rc = -1;
            break;
        }
        struct stat st, lst;
        if (stat(p, &st) != 0 || lstat(p, &lst) != 0) {
            free(p);
            continue;
        }
        if (S_ISDIR(st.st_mode) && (S_ISLNK(lst.st_mode) || archive_excluded(o, p, true))) {
            free(p);
        } else if (S_ISDIR(st.st_mode) && fz7_wildcard_selects(w, p + root_len, true,
                                                                o->case_sensitive)) {
            /* A folder that matches: every file below it, as 7-Zip. */
            l->folders++;
            rc = walk_matches(o, w, root_len, p, 64, l);
            free(p);
        } else if (S_ISDIR(st.st_mode)) {
            if (depth > 1)
                rc = walk_matches(o, w, root_len, p, depth - 1, l);
            free(p);
        } else if (S_ISREG(st.st_mode) &&
                   fz7_wildcard_selects(w, p + root_len, false, o->case_sensitive)) {
            rc = add_path(l, p, (uint64_t)st.st_size);
        } else {
            free(p);
        }
    }
    closedir(d);
    return rc;
}

/* A name or folder of the command line that is not there: 7-Zip's lines. */
static int no_such_path(FILE *out, const char *path)
{
    int en = errno;
    fflush(out);
    fprintf(stderr, "\nERROR: errno=%d : %s\n%s\n\n\n\nSystem ERROR:\nerrno=%d : %s\n", en,
            strerror(en), path, en, strerror(en));
    return FZ7_EXIT_FATAL;
}

/* One archive name or -ai wildcard: a name as it is, a wildcard by a
 * walk from its leading folders without wildcards. */
static int add_archives(const struct fz7_options *o, const fz7_wildcard *w, fz7_archive_list *l,
                        FILE *out)
{
    if (w->literal || o->no_wildcards || (!has_wildcard(w->pattern) && !w->recursive)) {
        struct stat st;
        if (stat(w->pattern, &st) != 0)
            return no_such_path(out, w->pattern);
        if (S_ISDIR(st.st_mode) && archive_excluded(o, w->pattern, true))
            return 0;
        if (S_ISDIR(st.st_mode)) { /* a folder: every file below it */
            fz7_wildcard all = {.pattern = "*", .recursive = true};
            l->folders++;
            return walk_matches(o, &all, strlen(w->pattern) + 1, w->pattern, 64, l)
                   ? FZ7_EXIT_MEMORY : 0;
        }
        char *p = strdup(w->pattern);
        return !p || add_path(l, p, (uint64_t)st.st_size) ? FZ7_EXIT_MEMORY : 0;
    }
    /* The walk starts at the last '/' before the first wildcard; below it
     * a recursive pattern may match at any depth (7-Zip's -air with d and
     * *.7z takes d/a.7z and d/sub/b.7z, never x/d/c.7z). */
    const char *first = strpbrk(w->pattern, "*?");
    size_t root_len = 0;
    for (const char *c = w->pattern; c < first; c++)
        if (*c == '/')
            root_len = (size_t)(c - w->pattern) + 1;
    char *root = strndup(w->pattern, root_len);
    if (!root)
        return FZ7_EXIT_MEMORY;
    struct stat rst;
    if (root_len > 1 && stat(root, &rst) != 0) { /* named as 7-Zip names it: no '/' */
        root[root_len - 1] = 0;
        int rc = no_such_path(out, root);
        free(root);
        return rc;
    }
    unsigned depth = 1;
    for (const char *c = w->pattern + root_len; *c; c++)
        if (*c == '/' && c[1])
            depth++;
    fz7_wildcard rest = *w;
    rest.pattern = w->pattern + root_len;
    int rc = walk_matches(o, &rest, root_len, root, w->recursive ? 64 : depth, l);
    free(root);
    return rc ? FZ7_EXIT_MEMORY : 0;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether path is volume 2 or later of a set whose first volume (same
 * name, ".001"-style number of the same width) is in the sorted list. */
static bool later_volume_listed(const fz7_archive_list *l, const char *path)
{
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    size_t n = dot ? strlen(dot + 1) : 0;
    if (n < 2 || n > 18 || strspn(dot + 1, "0123456789") != n || strtoull(dot + 1, NULL, 10) < 2)
        return false;
    char *first = strdup(path);
    if (!first)
        return false;
    char *d = first + (dot + 1 - path);
    memset(d, '0', n - 1);
    d[n - 1] = '1';
    bool found = bsearch(&first, l->paths, l->n, sizeof *l->paths, cmp_path) != NULL;
    free(first);
    return found;
}

/* 7zz opens a volume set once, from its first volume, and passes over the
 * later volumes a wildcard also matched ('vol.7z.*'); their bytes leave
 * l->bytes (the set's reader counts them). */
static void drop_later_volumes(fz7_archive_list *l)
{
    size_t w = 0;
    bool *later = calloc(l->n ? l->n : 1, sizeof *later);
    if (!later)
        return;   /* each is then tried on its own: slower, not wrong */
    for (size_t i = 0; i < l->n; i++)
        later[i] = later_volume_listed(l, l->paths[i]);
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        if (later[i] && stat(l->paths[i], &st) == 0 && l->bytes >= (uint64_t)st.st_size)
            l->bytes -= (uint64_t)st.st_size;
        if (later[i])
            free(l->paths[i]);
        else
            l->paths[w++] = l->paths[i];
    }
    l->n = w;
    free(later);
}

int fz7_find_archives(const struct fz7_options *o, FILE *out, fz7_archive_list *l)
{
    memset(l, 0, sizeof *l);
    if (o->from_stdin) { /* -si: the one archive, named "" in messages */
        char *p = strdup("");
        if (!p || add_path(l, p, 0)) {
            fprintf(stderr, "ERROR: Can't allocate required memory\n");
            return FZ7_EXIT_MEMORY;
        }
        return 0;
    }
    if (!o->ba)
        fprintf(out, "Scanning the drive for archives:\n");
    int rc = 0;
    if (o->archive) {
        fz7_wildcard w = {.pattern = (char *)o->archive};
        rc = add_archives(o, &w, l, out);
    }
    for (size_t i = 0; rc == 0 && i < o->n_archive_names; i++)
        rc = add_archives(o, &o->archive_names[i], l, out);
    if (rc) {
        if (rc == FZ7_EXIT_MEMORY)
            fprintf(stderr, "ERROR: Can't allocate required memory\n");
        fz7_archive_list_free(l);
        return rc;
    }
    size_t w = 0;
    l->bytes = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        if (archive_excluded(o, l->paths[i], false)) {
            free(l->paths[i]);
            continue;
        }
        if (stat(l->paths[i], &st) == 0)
            l->bytes += (uint64_t)st.st_size;
        l->paths[w++] = l->paths[i];
    }
    l->n = w;
    if (l->n > 1)
        qsort(l->paths, l->n, sizeof *l->paths, cmp_path);
    for (size_t i = 0; i + 1 < l->n; i++) {
        char *a = realpath(l->paths[i], NULL), *b = realpath(l->paths[i + 1], NULL);
        bool dup = a && b && !strcmp(a, b);
        if (dup) {
            fflush(out);
            fprintf(stderr, "\n\nCommand Line Error:\nDuplicate archive path:\n%s\n", a);
        }
        free(a);
        free(b);
        if (dup) {
            fz7_archive_list_free(l);
            return FZ7_EXIT_USAGE;
        }
    }
    if (l->n == 0) {
        fflush(out);
        fprintf(stderr, "\n\nCommand Line Error:\nCannot find archive\n");
        fz7_archive_list_free(l);
        return FZ7_EXIT_USAGE;
    }
    if (!o->ba)
        print_size_line(out, l->folders, l->n, l->bytes);
    drop_later_volumes(l);
    return 0;
}

void fz7_archive_list_free(fz7_archive_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

int fz7_ask_new_password_or_fail(FILE *out, char **asked)
{
    bool differ = false;
    *asked = fz7_ask_new_password(out, &differ);
    if (*asked)
        return 0;
    if (!differ)
        return fz7_break_signaled();
    fprintf(stderr, "\nERROR: the two passwords differ\n");
    return FZ7_EXIT_FATAL;
}
