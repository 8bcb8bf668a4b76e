/* options.c - parses 7-Zip's command line into struct fz7_options.
 *
 * Switch names are case-insensitive as in 7-Zip. Wildcards that do not say
 * their own recursion (-xr!, -ir-!) take the -r state, which may come after
 * them, so recursion is resolved once every argument has been read. */
#include "cli/options.h"
#include "cli/archive_type.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A wildcard being collected: rmode -1 = take the -r state, 0 not
 * recursive, 1 recursive, 2 recursive when it has a wildcard (r0). */
typedef struct pending_wildcard {
    char *pattern;
    int rmode;
    bool exclude;
    bool archive;      /* -ai / -ax: names archives, not entries */
    bool literal;      /* w- */
    uint8_t mark;      /* m, m2 */
} pending_wildcard;

typedef struct parser {
    struct fz7_options *o;
    pending_wildcard *wc;
    size_t n_wc, cap_wc;
    char *kind, *arg;
    size_t kind_len, arg_len;
    uint64_t seen;     /* the single-instance switches met (switch_key) */
    int list_charset;  /* LIST_UTF8 etc.: -scs, read before any list file */
    const char *zone;  /* -snz's postfix, checked once the command is known */
    const char *links; /* -snld's, likewise */
    const char *path_mode; /* -spm's, checked once every switch is read */
    const char *archive_list;  /* an -ai@/-ax@ list file that did not open, */
    int archive_list_errno;    /* reported after the archive name checks */
} parser;

/* 7zz's switch names (the longest one a switch starts with is its name),
 * whether it may be given more than once, and what 7zz says of a postfix
 * it does not take: 's' a switch with none ("Too long switch:"), 'm' one
 * that takes only '-' ("Incorrect switch postfix:"), 0 one parsed here. */
static const struct { const char *name; bool multi; char form; } switch_names[] = {
    {"ai", true, 0}, {"ax", true, 0}, {"an", false, 's'}, {"ao", false, 0}, {"ba", false, 's'},
    {"bb", false, 0}, {"bd", false, 's'}, {"bse", false, 0}, {"bso", false, 0}, {"bsp", false, 0},
    {"bt", false, 's'}, {"i", true, 0}, {"m", true, 0}, {"o", false, 0}, {"p", false, 0},
    {"r", false, 0}, {"sa", false, 0}, {"scc", false, 0}, {"scrc", true, 0}, {"scs", false, 0},
    {"sdel", false, 's'}, {"seml", false, 0}, {"sfx", false, 0}, {"si", false, 0},
    {"slp", false, 0}, {"slt", false, 's'}, {"snc", false, 's'}, {"snh", false, 'm'},
    {"sni", false, 's'}, {"snl", false, 'm'}, {"snld", false, 0}, {"snoi", false, 'm'},
    {"snon", false, 'm'}, {"snr", false, 's'},
    {"sns", false, 'm'}, {"snt", false, 'm'}, {"snz", false, 0}, {"so", false, 's'},
    {"spd", false, 's'}, {"spe", false, 'm'}, {"spf", false, 0}, {"spm", false, 0},
    {"ssc", false, 'm'}, {"sse", false, 's'}, {"ssp", false, 's'}, {"ssw", false, 's'},
    {"stl", false, 's'}, {"stm", false, 0}, {"stx", true, 0}, {"t", false, 0}, {"u", true, 0},
    {"v", true, 0}, {"w", false, 0}, {"x", true, 0}, {"y", false, 's'},
};

/* The entry of switch_names whose name s (after its '-') starts with,
 * the longest one; -1 for none. */
static int switch_index(const char *s)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof switch_names / sizeof switch_names[0]; i++) {
        size_t n = strlen(switch_names[i].name);
        if (n > best_len && strncasecmp(s, switch_names[i].name, n) == 0)
            best = (int)i, best_len = n;
    }
    return best;
}

/* The bit of a single-instance switch s (after its '-'), 0 for one that
 * may repeat or that 7zz does not know. */
static uint64_t switch_key(const char *s)
{
    int i = switch_index(s);
    return i < 0 || switch_names[i].multi ? 0 : (uint64_t)1 << i;
}
_Static_assert(sizeof switch_names / sizeof switch_names[0] <= 64, "switch_key's bits are a uint64_t");

static int usage_error(parser *p, int code, const char *kind, const char *arg)
{
    snprintf(p->kind, p->kind_len, "%s", kind);
    snprintf(p->arg, p->arg_len, "%s", arg ? arg : "");
    return code;
}

/* True when d is empty or a decimal number below 2^32 (7zz's numbered
 * postfixes). */
static bool digits_u32(const char *d)
{
    uint64_t v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return false;
        v = v * 10 + (uint64_t)(*d - '0');
        if (v > UINT32_MAX)
            return false;
    }
    return true;
}

/* 7zz's error for switch s (after its '-') that nothing here took: a
 * postfix on a known switch that takes none or only '-', else unknown. */
static int not_taken(parser *p, const char *s, const char *arg)
{
    int i = switch_index(s);
    char form = i < 0 ? 0 : switch_names[i].form;
    if (form == 's')
        return usage_error(p, 7, "Too long switch:", arg);
    if (form == 'm')   /* "-snl--": the '-' taken, the rest too long */
        return usage_error(p, 7, s[strlen(switch_names[i].name)] == '-' ? "Too long switch:" : "Incorrect switch postfix:", arg);
    return usage_error(p, 7, "Unknown switch:", arg);
}

/* Adds a wildcard with how's recursion, target and modes. */
static int add_wildcard(parser *p, const char *pattern, const pending_wildcard *how)
{
    if (p->n_wc == p->cap_wc) {
        size_t cap = p->cap_wc ? p->cap_wc * 2 : 16;
        pending_wildcard *n = realloc(p->wc, cap * sizeof *n);
        if (!n)
            return -1;
        p->wc = n;
        p->cap_wc = cap;
    }
    char *copy = strdup(pattern);
    if (!copy)
        return -1;
    p->wc[p->n_wc] = *how;
    p->wc[p->n_wc++].pattern = copy;
    return 0;
}

/* A list file's charset (-scs): UTF-8 unless UTF-16 is named. */
enum { LIST_UTF8, LIST_UTF16LE, LIST_UTF16BE };

/* Rewrites n bytes of UTF-16 (big_endian or little) at buf as UTF-8 in
 * place (3 bytes out per 2 in at most, so buf holds n / 2 * 3 + 1); a
 * leading byte order mark is dropped, a lone surrogate becomes U+FFFD.
 * Returns the UTF-8 length, or SIZE_MAX when out of memory. */
static size_t utf16_to_utf8(uint8_t *buf, size_t n, bool big_endian)
{
    size_t units = n / 2;
    uint16_t *u = malloc((units ? units : 1) * sizeof *u);
    if (!u)
        return SIZE_MAX;
    for (size_t k = 0; k < units; k++)
        u[k] = big_endian ? (uint16_t)(buf[2 * k] << 8 | buf[2 * k + 1]) : (uint16_t)(buf[2 * k + 1] << 8 | buf[2 * k]);
    size_t o = 0;
    for (size_t k = units && u[0] == 0xFEFF ? 1 : 0; k < units; k++) {
        uint32_t c = u[k];
        if (c >= 0xD800 && c < 0xDC00 && k + 1 < units && u[k + 1] >= 0xDC00 && u[k + 1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (u[++k] - 0xDC00);
        else if (c >= 0xD800 && c < 0xE000)
            c = 0xFFFD;
        o += fz7_utf8_put(buf + o, c);
    }
    free(u);
    return o;
}

/* Reads a list file as 7-Zip does: in the -scs charset (UTF-8 without a
 * byte order mark; a NUL byte there means another charset and is refused
 * with 7zz's words), one name a line, each line trimmed of spaces and
 * tabs at both ends and of one pair of quotes around it, empty lines
 * skipped. */
static int read_listfile(parser *p, const char *path, const pending_wildcard *how)
{
    FILE *f = fopen(path, "r");
    if (!f) { /* 7-Zip's three lines: what, errno, the file */
        char msg[4200];
        int en = errno;
        snprintf(msg, sizeof msg, "errno=%d : %s\n%s", en, strerror(en), path);
        return usage_error(p, 7, "The file operation error for listfile", msg);
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (bool more = true; more;) {
        /* room for the terminator, and for UTF-16's growth to UTF-8 */
        size_t need = p->list_charset != LIST_UTF8 ? len / 2 * 3 + 1 : len + 1;
        if (cap - len < 4096 || cap < need) {
            size_t ncap = (cap < need ? need : cap) * 2 + 65536;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return usage_error(p, 8, "Can't allocate required memory", NULL);
            }
            buf = nb;
            cap = ncap;
            continue;
        }
        size_t k = fread(buf + len, 1, cap - len - 1, f);
        len += k;
        more = k > 0;
    }
    bool unread = ferror(f);   /* a folder named as the list: 7zz's words for it */
    fclose(f);
    if (unread) {
        free(buf);
        return usage_error(p, 7, "Incorrect item in listfile.\nCheck charset encoding and -scs switch.", path);
    }
    if (p->list_charset != LIST_UTF8) {
        len = utf16_to_utf8(buf, len, p->list_charset == LIST_UTF16BE);
        if (len == SIZE_MAX) {
            free(buf);
            return usage_error(p, 8, "Can't allocate required memory", NULL);
        }
    } else {
        if (memchr(buf, 0, len)) {
            free(buf);
            return usage_error(p, 7, "Incorrect item in listfile.\nCheck charset encoding and -scs switch.", path);
        }
        if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
            memmove(buf, buf + 3, len - 3);
            len -= 3;
        }
    }
    int rc = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        size_t end = at;
        while (end < len && buf[end] != '\n')
            end++;
        size_t next = end + 1, b = at;
        while (b < end && (buf[b] == ' ' || buf[b] == '\t' || buf[b] == '\r'))
            b++;
        while (end > b && (buf[end - 1] == ' ' || buf[end - 1] == '\t' || buf[end - 1] == '\r'))
            end--;
        if (end - b >= 2 && buf[b] == '"' && buf[end - 1] == '"') {
            b++;
            end--;
        }
        if (end > b) {
            buf[end] = 0;   /* the line's end (or the room kept after the data) */
            if (add_wildcard(p, (const char *)buf + b, how) != 0)
                rc = usage_error(p, 8, "Can't allocate required memory", NULL);
        }
        at = next;
    }
    free(buf);
    return rc;
}

/* --password-file=FILE: the password is the first line of FILE ("-" =
 * stdin), without its line end; an empty first line is an empty password. */
static int read_password_file(parser *p)
{
    struct fz7_options *o = p->o;
    const char *path = o->password_file;
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && o->from_stdin)
        return usage_error(p, 7, "--password-file=- and -si both read stdin:", "--password-file=-");
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (!f) {
        char msg[256];
        snprintf(msg, sizeof msg, "Cannot open the password file: %s", strerror(errno));
        return usage_error(p, 7, msg, path);
    }
    size_t cap = 0;
    ssize_t len = getline(&o->password_buf, &cap, f);
    bool failed = len < 0 && ferror(f);
    if (!from_stdin)
        fclose(f);
    if (failed) {
        char msg[256];
        snprintf(msg, sizeof msg, "Cannot read the password file: %s", strerror(errno));
        return usage_error(p, 7, msg, path);
    }
    if (len < 0) { /* empty file: no line at all */
        return usage_error(p, 7, "The password file is empty:", path);
    }
    while (len > 0 && (o->password_buf[len - 1] == '\n' || o->password_buf[len - 1] == '\r'))
        o->password_buf[--len] = 0;
    o->password = o->password_buf;
    return 0;
}

/* -x / -i / -ax / -ai: [r[-|0]][m[-|2]][w[-]] then !wildcard or @listfile
 * (7zz takes the three modifiers in any order). */
static int parse_selection(parser *p, const char *arg, const char *rest, bool exclude,
                           bool archive)
{
    pending_wildcard how = {.rmode = -1, .exclude = exclude, .archive = archive};
    const char *postfix = rest;
    for (;;) {
        char c = (char)tolower((unsigned char)rest[0]);
        if (c == 'r') {
            how.rmode = rest[1] == '-' ? 0 : rest[1] == '0' ? 2 : 1;
            rest += rest[1] == '-' || rest[1] == '0' ? 2 : 1;
        } else if (c == 'm') {
            how.mark = rest[1] == '-' ? 0 : rest[1] == '2' ? 2 : 1;
            rest += rest[1] == '-' || rest[1] == '2' ? 2 : 1;
        } else if (c == 'w') {
            how.literal = rest[1] == '-';
            rest += rest[1] == '-' ? 2 : 1;
        } else {
            break;
        }
    }
    if (!rest[0] || !rest[1])
        return usage_error(p, 7, "Too short switch:", arg);
    if (rest[0] == '!')
        return add_wildcard(p, rest + 1, &how) ? usage_error(p, 8, "Can't allocate required memory", NULL) : 0;
    if (rest[0] == '@' && archive && access(rest + 1, F_OK) != 0) {
        /* 7zz reads -ai's list files once the command's archive is known */
        if (!p->archive_list) {
            p->archive_list = rest + 1;
            p->archive_list_errno = errno;
        }
        return 0;
    }
    if (rest[0] == '@')
        return read_listfile(p, rest + 1, &how);
    return usage_error(p, 7, "Incorrect wildcard type marker", postfix);
}

/* "", "+", "on", "=on" -> 1; "-", "off", "=off" -> 0; else -1. */
static int parse_onoff(const char *v)
{
    if (*v == '=')
        v++;
    if (!*v || !strcmp(v, "+") || !strcasecmp(v, "on"))
        return 1;
    if (!strcmp(v, "-") || !strcasecmp(v, "off"))
        return 0;
    return -1;
}

static bool is_onoff_tail(char c) { return c == 0 || c == '=' || c == '+' || c == '-'; }

/* -mmemuse value: {N}[b|k|m|g|t], p{N} or {N}%. 7zz takes a zero (0, p0,
 * 0%, 0k) and writes as without the switch: so does fz7. */
static int parse_memuse(struct fz7_options *o, const char *v)
{
    char *end;
    if (*v == 'p' || *v == 'P') {
        unsigned long n = strtoul(v + 1, &end, 10);
        if (end == v + 1 || *end || n > 1000)
            return -1;
        o->memuse_percent = (unsigned)n;
        return 0;
    }
    if (!isdigit((unsigned char)*v))
        return -1;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno)
        return -1;
    if (*end == '%' && !end[1]) {
        if (n > 1000)
            return -1;
        o->memuse_percent = (unsigned)n;
        return 0;
    }
    unsigned shift = 20; /* 7-Zip reads a bare number as MB */
    switch (tolower((unsigned char)*end)) {
    case 0: shift = 20; break;
    case 'b': shift = 0; break;
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: return -1;
    }
    if (*end && end[1])
        return -1;
    if (n > (UINT64_MAX >> shift))
        return -1;
    o->memuse_bytes = (uint64_t)n << shift;
    return 0;
}

/* -m...: the named switches get fields, the rest go to o->methods. */
/* A -m switch whose value cannot be used: 7-Zip reads these when it opens
 * or writes an archive, and fails there with E_INVALIDARG (exit 2), not
 * with a command-line error (exit 7). */
static int bad_method_value(parser *p, const char *arg)
{
    if (!p->o->bad_method)
        p->o->bad_method = arg;
    return 0;
}

static int parse_method(parser *p, const char *arg, const char *v)
{
    struct fz7_options *o = p->o;
    if (!*v)
        return usage_error(p, 7, "Too short switch:", arg);
    if ((v[0] == 'x' || v[0] == 'X') && (v[1] == 0 || v[1] == '=' || isdigit((unsigned char)v[1]))) {
        const char *n = v[1] == '=' ? v + 2 : v + 1;
        if (!*n) {
            o->level = 9;
            return 0;
        }
        char *end;
        errno = 0;
        unsigned long long level = strtoull(n, &end, 10);
        if (!isdigit((unsigned char)n[0]) || *end || errno || level > UINT32_MAX)
            return bad_method_value(p, arg);   /* 7zz reads a 32-bit number */
        o->level = level > 9 ? 9 : (int)level;   /* 7-Zip takes -mx12 as -mx9 */
        return 0;
    }
    if (!strncasecmp(v, "mt", 2) && (is_onoff_tail(v[2]) || isdigit((unsigned char)v[2]))) {
        const char *n = v[2] == '=' ? v + 3 : v + 2;
        if (isdigit((unsigned char)*n)) {
            char *end;
            unsigned long t = strtoul(n, &end, 10);
            if (*end || end - n > 9)
                return bad_method_value(p, arg);
            /* As 7-Zip 26: -mmt0 means one thread, and a count above what
             * can run is taken as the most there can be. */
            o->threads = t == 0 ? 1 : t > 256 ? 256 : (int)t;
            return 0;
        }
        if ((*n == 'p' || *n == 'P') && isdigit((unsigned char)n[1])) {
            /* 7zz's pN: N percent of the processors, at least one */
            char *end;
            unsigned long pct = strtoul(n + 1, &end, 10);
            if (*end || end - n > 10)
                return bad_method_value(p, arg);
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            unsigned long t = (unsigned long)(cpus > 0 ? cpus : 1) * pct / 100;
            o->threads = t == 0 ? 1 : t > 256 ? 256 : (int)t;
            return 0;
        }
        int on = parse_onoff(v + 2);
        if (on < 0)
            return bad_method_value(p, arg);
        o->threads = on ? 0 : 1;
        return 0;
    }
    if ((!strncasecmp(v, "he", 2) || !strncasecmp(v, "hc", 2)) && is_onoff_tail(v[2])) {
        int on = parse_onoff(v + 2);
        if (on < 0)
            return bad_method_value(p, arg);
        if (v[1] == 'e' || v[1] == 'E')
            o->header_encrypt = on ? FZ7_ON : FZ7_OFF;
        else
            o->header_compress = on ? FZ7_ON : FZ7_OFF;
        return 0;
    }
    if ((v[0] == 's' || v[0] == 'S') && is_onoff_tail(v[1])) {
        o->solid = v[1] == '=' ? v + 2 : v + 1;
        return 0;
    }
    if ((v[0] == 'f' || v[0] == 'F') && is_onoff_tail(v[1])) {
        o->filters = v[1] == '=' ? v + 2 : v + 1;
        return 0;
    }
    if (!strncasecmp(v, "memuse", 6)) {
        if (parse_memuse(o, v[6] == '=' ? v + 7 : v + 6) != 0)
            return bad_method_value(p, arg);
        return 0;
    }
    char **n = realloc(o->methods, (o->n_methods + 1) * sizeof *n);
    if (!n)
        return usage_error(p, 8, "Can't allocate required memory", NULL);
    o->methods = n;
    o->methods[o->n_methods++] = (char *)v;
    return 0;
}

static int parse_switch(parser *p, const char *arg)
{
    struct fz7_options *o = p->o;
    const char *s = arg + 1;
    if (!strncmp(s, "-password-file=", 15)) {
        if (!s[15])
            return usage_error(p, 7, "Too short switch:", arg);
        o->password_file = s + 15;
        o->password = NULL;
        o->ask_password = false;
        return 0;
    }
    if (!strcasecmp(s, "-version")) {
        o->command = FZ7_CMD_VERSION;
        return 0;
    }
    if (!strcasecmp(s, "-help") || !strcasecmp(s, "h") || !strcmp(s, "?")) {
        o->command = FZ7_CMD_HELP;
        return 0;
    }
    /* A switch 7zz takes once, given again: its command line error. */
    uint64_t key = s[0] != '-' ? switch_key(s) : 0;
    if (key & p->seen)
        return usage_error(p, 7, "Multiple instances for switch:", arg);
    p->seen |= key;
    switch (tolower((unsigned char)s[0])) {
    case 'o':
        if (!s[1])
            return usage_error(p, 7, "Too short switch:", arg);
        o->out_dir = s + 1;
        return 0;
    case 'p':
        if (s[1]) {
            o->password = s + 1;
            o->ask_password = false;
        } else {
            o->password = NULL;
            o->ask_password = true;
        }
        o->password_file = NULL;
        return 0;
    case 'y':
        if (s[1])
            return not_taken(p, s, arg);
        o->yes = true;
        return 0;
    case 'a':
        if (tolower((unsigned char)s[1]) == 'i' || tolower((unsigned char)s[1]) == 'x')
            return parse_selection(p, arg, s + 2, tolower((unsigned char)s[1]) == 'x', true);
        if (tolower((unsigned char)s[1]) == 'n') {
            if (s[2])
                return usage_error(p, 7, "Too long switch:", arg);
            o->no_archive_name = true;
            return 0;
        }
        if (tolower((unsigned char)s[1]) != 'o')
            return usage_error(p, 7, "Unknown switch:", arg);
        if (!s[2] || s[3])
            return usage_error(p, 7, s[2] ? "Incorrect switch postfix:" : "Too short switch:", arg);
        switch (tolower((unsigned char)s[2])) {
        case 'a': o->overwrite = FZ7_OVERWRITE_ALL; return 0;
        case 's': o->overwrite = FZ7_OVERWRITE_SKIP; return 0;
        case 'u': o->overwrite = FZ7_OVERWRITE_RENAME_NEW; return 0;
        case 't': o->overwrite = FZ7_OVERWRITE_RENAME_OLD; return 0;
        }
        return usage_error(p, 7, "Incorrect switch postfix:", arg);
    case 'r':
        if (!s[1] || !strcmp(s + 1, "0")) {
            o->recurse = FZ7_ON;
            o->recurse_wildcards_only = s[1] == '0';
        }
        else if (!strcmp(s + 1, "-"))
            o->recurse = FZ7_OFF;
        else
            return usage_error(p, 7, "Incorrect switch postfix:", arg);
        return 0;
    case 'x':
    case 'i':
        return parse_selection(p, arg, s + 1, tolower((unsigned char)s[0]) == 'x', false);
    case 't':
        if (!s[1])
            return usage_error(p, 7, "Too short switch:", arg);
        if (!strcmp(s + 1, "*")) {   /* 7zz's "any type": by name to write, by signature to read */
            o->type = FZ7_TYPE_AUTO;
            return 0;
        }
        o->type = fz7_type_parse(s + 1, &o->type_name);
        return 0;
    case 'm':
        return parse_method(p, arg, s + 1);
    case 'u':
    case 'v': {
        /* -u{rules}, -v{size}: kept as given; update_rules.c and
         * archive_out.c read them once the banner is out, as 7zz does. */
        if (!s[1])
            return usage_error(p, 7, "Too short switch:", arg);
        bool u = tolower((unsigned char)s[0]) == 'u';
        const char ***list = u ? &o->update_rules : &o->volume_sizes;
        size_t *n = u ? &o->n_update_rules : &o->n_volume_sizes;
        const char **grown = realloc(*list, (*n + 1) * sizeof *grown);
        if (!grown)
            return usage_error(p, 8, "Can't allocate required memory", NULL);
        *list = grown;
        grown[(*n)++] = s + 1;
        return 0;
    }
    case 'w':
        o->work_dir = s + 1;
        return 0;
    case 'b':
        if (!strncasecmp(s, "bb", 2)) {
            if (!s[2]) {
                o->bb = 1;
                return 0;
            }
            if (strspn(s + 2, "0123456789") == strlen(s + 2)) {
                /* 7zz takes any number; above 3 it logs as -bb3 */
                o->bb = strlen(s + 2) > 1 || s[2] > '3' ? 3 : s[2] - '0';
                return 0;
            }
            return usage_error(p, 7, "Incorrect switch postfix:", arg);
        }
        if (!strncasecmp(s, "bsp", 3) || !strncasecmp(s, "bso", 3) || !strncasecmp(s, "bse", 3)) {
            const char *v = s + 3;
            if (!v[0])
                return usage_error(p, 7, "Too short switch:", arg);
            if (v[0] < '0' || v[0] > '2' || v[1])
                return usage_error(p, 7, "Incorrect switch postfix:", arg);
            if (tolower((unsigned char)s[2]) == 'p')
                o->bsp = v[0] ? v[0] - '0' : 1;
            else if (tolower((unsigned char)s[2]) == 'o')
                o->bso = v;
            else
                o->bse = v;
            return 0;
        }
        if (!strcasecmp(s, "ba")) {
            o->ba = true;
            return 0;
        }
        if (!strcasecmp(s, "bt")) {
            o->bt = true;
            return 0;
        }
        if (!strcasecmp(s, "bd"))
            return 0; /* no progress bar: fz7 draws one only on a terminal (-bsp) */
        return not_taken(p, s, arg);
    case 's':
        if (!strncasecmp(s, "spf", 3)) {
            /* -spf: fully qualified paths; -spf2: the same without the
             * root ('/'), as 7-Zip names them on Linux. */
            if (s[3] && strcmp(s + 3, "2"))
                return usage_error(p, 7, "Unsupported -spf:", s + 3);
            o->full_paths = s[3] ? 2 : 1;
            return 0;
        }
        if (!strcasecmp(s, "spe") || !strcasecmp(s, "spe-")) {
            o->eliminate_root = s[3] == 0;
            return 0;
        }
        if (!strncasecmp(s, "stx", 3)) {
            if (!s[3])
                return usage_error(p, 7, "Too short switch:", arg);
            const char **t = realloc(o->excluded_types, (o->n_excluded_types + 1) * sizeof *t);
            if (!t)
                return usage_error(p, 8, "Can't allocate required memory", NULL);
            o->excluded_types = t;
            o->excluded_types[o->n_excluded_types++] = s + 3;
            return 0;
        }
        if (!strncasecmp(s, "sa", 2)) {
            /* -sa{a|e|s}: when `a` adds the type's extension to the name. */
            char m = (char)tolower((unsigned char)s[2]);
            if (!m)
                return usage_error(p, 7, "Too short switch:", arg);
            if (s[3])
                return usage_error(p, 7, "Too long switch:", arg);
            if (m != 'a' && m != 'e' && m != 's')
                return usage_error(p, 7, "Incorrect switch postfix:", arg);
            o->name_mode = m;
            return 0;
        }
        if (!strcasecmp(s, "slt")) {
            o->slt = true;
            return 0;
        }
        if (!strcasecmp(s, "snl") || !strcasecmp(s, "snl-")) {
            o->store_symlinks = s[3] == 0;
            return 0;
        }
        if (!strcasecmp(s, "snoi") || !strcasecmp(s, "snoi-")) {
            o->store_owner_id = s[4] == 0;
            return 0;
        }
        if (!strcasecmp(s, "snon") || !strcasecmp(s, "snon-")) {
            o->store_owner_name = s[4] == 0;
            return 0;
        }
        if (!strcasecmp(s, "snh-")) {
            o->store_hardlinks = false;
            return 0;
        }
        if (!strcasecmp(s, "snh")) {
            /* Store hard links as links: 7-Zip 26 does so only in tar and
             * wim; a 7z or xz archive is the same with or without it, so
             * each name of a hard-linked file is stored with its data. */
            o->store_hardlinks = true;
            return 0;
        }
        if (!strncasecmp(s, "snld", 4)) {
            /* -snld{N}: 7zz 26 makes a link out of the output folder with
             * -snld20; fz7 never does (EXTRACTION in the man page), so the
             * number (32 bits, as 7zz reads it) changes nothing. */
            p->links = s + 4;
            o->allow_dangerous_links = true;
            return 0;
        }
        if (!strcasecmp(s, "so")) {
            o->to_stdout = true;
            return 0;
        }
        if (!strncasecmp(s, "si", 2)) {
            o->from_stdin = true;
            o->stdin_name = s[2] ? s + 2 : NULL;
            return 0;
        }
        if (!strcasecmp(s, "ssc")) {
            o->case_sensitive = true;
            return 0;
        }
        if (!strcasecmp(s, "ssc-")) {
            o->case_sensitive = false;
            return 0;
        }
        if (!strncasecmp(s, "sfx", 3)) {
            o->sfx = s + 3;
            return 0;
        }
        if (!strcasecmp(s, "sdel")) {
            o->delete_after = true;
            return 0;
        }
        if (!strcasecmp(s, "stl")) {
            o->stamp_newest = true;
            return 0;
        }
        if (!strcasecmp(s, "spd")) {
            o->no_wildcards = true;
            return 0;
        }
        if (!strcasecmp(s, "ssp")) {
            o->no_atime = true;
            return 0;
        }
        /* -slp, -slp-, -slp{N}: large pages. fz7 offers its big tables as huge pages
         * (THP) either way, so there is nothing to change. */
        if (!strncasecmp(s, "slp", 3)) {
            if (strcmp(s + 3, "-") && !digits_u32(s + 3))
                return usage_error(p, 7, "Unsupported switch postfix for -slp", s + 3);
            return 0;
        }
        if (!strncasecmp(s, "stm", 3)) {
            /* -stm{HexMask}: as 7zz, one to 16 hex digits. */
            const char *h = s + 3;
            size_t len = strlen(h);
            bool ok = len >= 1 && len <= 16;
            for (size_t i = 0; ok && i < len; i++)
                ok = isxdigit((unsigned char)h[i]) != 0;
            if (!ok)
                return usage_error(p, 7, "Unsupported switch postfix -stm", h);
            o->affinity = h;
            return 0;
        }
        /* Windows's switches as 7zz on Linux takes them: -sns (NTFS
         * streams) and -sni (NT security) make a/u/d/rn fail as they start
         * writing (E_NOTIMPL), -sns- asks for nothing, and -seml (send by
         * e-mail) has no mail program to give the archive to. */
        if (!strcasecmp(s, "sns") || !strcasecmp(s, "sni")) {
            o->nt_streams = true;
            return 0;
        }
        if (!strcasecmp(s, "sns-"))
            return 0;
        /* More of Windows's, which 7zz 26 on Linux takes and does nothing
         * with (x/a give the same output with and without them): -snc and
         * -snr (a ':' in a name as an alternate stream, or replaced), -snt
         * and -snt-, -spm-, and -snz (Zone.Identifier streams). */
        if (!strcasecmp(s, "snc") || !strcasecmp(s, "snr") || !strcasecmp(s, "snt") || !strcasecmp(s, "snt-"))
            return 0;
        /* -spm (7zz's undocumented path mode: 2, nothing or '-'; on Linux
         * 7zz then refuses a folder named with errno=22, fz7 adds it) */
        if (!strncasecmp(s, "spm", 3)) {
            p->path_mode = s + 3;
            return 0;
        }
        if (!strncasecmp(s, "snz", 3)) {
            p->zone = s + 3;
            return 0;
        }
        if (!strncasecmp(s, "seml", 4)) {
            o->email = true;
            return 0;
        }
        if (!strcasecmp(s, "sse")) {
            /* 7zz 26.02 stops on a file it cannot open; a name missing at
             * the scan stays a warning (exit 1, archive written). */
            o->stop_on_open_error = true;
            return 0;
        }
        /* Accepted as 7-Zip accepts them, with nothing to change here:
         * -scs/-scc name charsets (fz7 reads and prints UTF-8), -ssw reads
         * files open for writing (always so on Linux). -scrc chooses the
         * hashes of the h command. */
        if (!strncasecmp(s, "scrc", 4)) {
            const char **h = realloc(o->hashes, (o->n_hashes + 1) * sizeof *h);
            if (!h)
                return usage_error(p, 8, "Can't allocate required memory", NULL);
            o->hashes = h;
            o->hashes[o->n_hashes++] = s + 4;
            return 0;
        }
        if (!strncasecmp(s, "scs", 3) || !strncasecmp(s, "scc", 3)) {
            /* the charsets 7zz knows (UTF-16 for list files only), its
             * message in lower case for another */
            const char *cs = s + 3;
            bool known = !strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "WIN") || !strcasecmp(cs, "DOS") ||
                         (cs[0] && strspn(cs, "0123456789") == strlen(cs)) ||
                         ((s[2] == 's' || s[2] == 'S') &&
                          (!strcasecmp(cs, "UTF-16LE") || !strcasecmp(cs, "UTF-16BE")));
            if (known)
                return 0;
            char lower[64];
            size_t k = 0;
            for (; cs[k] && k < sizeof lower - 1; k++)
                lower[k] = (char)tolower((unsigned char)cs[k]);
            lower[k] = 0;
            return usage_error(p, 7, "Unsupported charset:", lower);
        }
        if (!strcasecmp(s, "ssw"))
            return 0;
        return not_taken(p, s, arg);
    }
    return not_taken(p, s, arg);
}

static fz7_command command_of(const char *s)
{
    if (strcasecmp(s, "rn") == 0)
        return FZ7_CMD_RENAME;
    if (strlen(s) != 1)
        return FZ7_CMD_NONE;
    switch (tolower((unsigned char)s[0])) {
    case 'a': return FZ7_CMD_ADD;
    case 'x': return FZ7_CMD_EXTRACT;
    case 'e': return FZ7_CMD_EXTRACT_FLAT;
    case 'l': return FZ7_CMD_LIST;
    case 't': return FZ7_CMD_TEST;
    case 'b': return FZ7_CMD_BENCH;
    case 'u': return FZ7_CMD_UPDATE;
    case 'd': return FZ7_CMD_DELETE;
    case 'h': return FZ7_CMD_HASH;
    case 'i': return FZ7_CMD_INFO;
    }
    return FZ7_CMD_NONE;
}

/* Moves the pending wildcards into o->names / o->excludes and the archive
 * lists. -ai/-ax wildcards do not take the -r state: they recurse only
 * when they say so. */
static int finish_wildcards(parser *p)
{
    struct fz7_options *o = p->o;
    size_t count[4] = {0};
    for (size_t i = 0; i < p->n_wc; i++)
        count[p->wc[i].archive * 2 + p->wc[i].exclude]++;
    fz7_wildcard **lists[4] = {&o->names, &o->excludes, &o->archive_names, &o->archive_excludes};
    size_t *lens[4] = {&o->n_names, &o->n_excludes, &o->n_archive_names, &o->n_archive_excludes};
    for (int k = 0; k < 4; k++) {
        *lists[k] = calloc(count[k] ? count[k] : 1, sizeof **lists[k]);
        if (!*lists[k])
            return usage_error(p, 8, "Can't allocate required memory", NULL);
    }
    for (size_t i = 0; i < p->n_wc; i++) {
        const pending_wildcard *pw = &p->wc[i];
        bool wild = !pw->literal && strpbrk(pw->pattern, "*?");
        bool recursive = pw->rmode < 0 ? !pw->archive && fz7_options_name_recursive(o, pw->pattern, pw->literal)
                         : pw->rmode == 1 || (pw->rmode == 2 && wild);
        fz7_wildcard w = {pw->pattern, recursive, pw->literal, pw->mark};
        p->wc[i].pattern = NULL;
        int k = pw->archive * 2 + pw->exclude;
        (*lists[k])[(*lens[k])++] = w;
    }
    return 0;
}

bool fz7_options_name_recursive(const struct fz7_options *o, const char *pattern, bool literal)
{
    return o->recurse == FZ7_ON && (!o->recurse_wildcards_only || (!literal && strpbrk(pattern, "*?")));
}

/* -an: the name after the command is the first file name. */
static int archive_name_to_names(parser *p)
{
    const pending_wildcard plain = {.rmode = -1};
    if (add_wildcard(p, p->o->archive, &plain) != 0)
        return usage_error(p, 8, "Can't allocate required memory", NULL);
    pending_wildcard last = p->wc[p->n_wc - 1];
    memmove(p->wc + 1, p->wc, (p->n_wc - 1) * sizeof *p->wc);
    p->wc[0] = last;
    p->o->archive = NULL;
    return 0;
}

int fz7_options_parse(int argc, char **argv, struct fz7_options *o, char *err_kind,
                      size_t kind_len, char *err_arg, size_t arg_len)
{
    memset(o, 0, sizeof *o);
    o->recurse = FZ7_UNSET;
    o->case_sensitive = true;
    o->bsp = -1;
    o->level = -1;
    o->threads = -1;
    o->header_encrypt = FZ7_UNSET;
    o->header_compress = FZ7_UNSET;
    parser p = {.o = o, .kind = err_kind, .arg = err_arg, .kind_len = kind_len, .arg_len = arg_len};
    if (kind_len)
        err_kind[0] = 0;
    if (arg_len)
        err_arg[0] = 0;

    bool switches = true, have_command = false;
    const pending_wildcard plain = {.rmode = -1};
    int rc = 0;
    /* -scs names the list files' charset wherever it stands */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strncasecmp(argv[i], "-scsUTF-16", 10))
            p.list_charset = !strcasecmp(argv[i] + 10, "LE") ? LIST_UTF16LE
                             : !strcasecmp(argv[i] + 10, "BE") ? LIST_UTF16BE : p.list_charset;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (switches && !strcmp(a, "--")) {
            switches = false;
            continue;
        }
        if (switches && a[0] == '-' && a[1]) {
            bool was_info = o->command == FZ7_CMD_VERSION || o->command == FZ7_CMD_HELP;
            rc = parse_switch(&p, a);
            if ((o->command == FZ7_CMD_VERSION || o->command == FZ7_CMD_HELP) && !was_info &&
                !have_command)
                have_command = true;
            continue;
        }
        if (!have_command) {
            o->command = command_of(a);
            if (o->command == FZ7_CMD_NONE)
                rc = usage_error(&p, 7, "Unsupported command:", a);
            have_command = true;
        } else if (!o->archive && !(o->command == FZ7_CMD_HASH && a[0] == '@' && a[1] && switches)) {
            o->archive = a;   /* h has no archive: its first name sits here */
        } else if (a[0] == '@' && a[1] && switches) {
            rc = read_listfile(&p, a + 1, &plain);
        } else if (add_wildcard(&p, a, &plain) != 0) {
            rc = usage_error(&p, 8, "Can't allocate required memory", NULL);
        }
    }
    if (rc == 0 && o->no_archive_name && o->archive)
        rc = archive_name_to_names(&p);
    if (rc == 0)
        rc = finish_wildcards(&p);
    if (rc == 0 && o->password_file)
        rc = read_password_file(&p);
    for (size_t i = 0; i < p.n_wc; i++)
        free(p.wc[i].pattern);
    free(p.wc);
    if (rc != 0)
        return rc;
    if (o->yes && o->overwrite == FZ7_OVERWRITE_ASK)
        o->overwrite = FZ7_OVERWRITE_ALL;
    if (!have_command)
        return usage_error(&p, 7, "Cannot find command", NULL);
    bool extracts = o->command == FZ7_CMD_EXTRACT || o->command == FZ7_CMD_EXTRACT_FLAT ||
                    o->command == FZ7_CMD_TEST || o->command == FZ7_CMD_LIST;
    /* x, e, t and l read the archive itself from stdin with -si (it then
     * has no name: "" in messages, as 7-Zip prints it). */
    bool reads_stdin = o->from_stdin && extracts;
    if (reads_stdin && !o->archive)
        o->archive = "";
    /* x, e, t and l take -p alone as the empty password and never ask, as
     * 7zz does (a script's `7zz x -p` fails at once on an encrypted
     * archive instead of waiting for a terminal); a, u, d and rn ask. */
    if (o->ask_password && extracts) {
        o->password = "";
        o->ask_password = false;
    }
    /* With -an the archives come from -ai (none: "Cannot find archive" once
     * the scan has run, as 7zz). */
    if (o->command != FZ7_CMD_VERSION && o->command != FZ7_CMD_HELP &&
        o->command != FZ7_CMD_BENCH && !o->archive
        && o->command != FZ7_CMD_HASH && o->command != FZ7_CMD_INFO && !o->no_archive_name)
        return usage_error(&p, 7, "Cannot find archive name", NULL);
    /* a, u, d and rn work on one archive: -ai is 7zz's command line error
     * there (-ax it takes, and nothing comes of it). */
    if ((o->n_archive_names || p.archive_list) && (o->command == FZ7_CMD_ADD || o->command == FZ7_CMD_UPDATE ||
                               o->command == FZ7_CMD_DELETE || o->command == FZ7_CMD_RENAME))
        return usage_error(&p, 7, "-ai switch is not supported for this command", NULL);
    if (p.archive_list) {
        char msg[4200];
        snprintf(msg, sizeof msg, "errno=%d : %s\n%s", p.archive_list_errno, strerror(p.archive_list_errno),
                 p.archive_list);
        return usage_error(&p, 7, "The file operation error for listfile", msg);
    }
    /* Where files are extracted or tested, -snld takes a number and -snz
     * 0, 1 or 2 (or nothing); a/u/d/rn take anything, as 7zz. */
    if (p.links && extracts && !digits_u32(p.links))
        return usage_error(&p, 7, "Unsupported switch postfix -snld", p.links);
    if (p.path_mode && p.path_mode[0] && strcmp(p.path_mode, "-") && strcmp(p.path_mode, "2"))
        return usage_error(&p, 7, "Unsupported -spm:", p.path_mode);
    if (p.zone && extracts && strcmp(p.zone, "") && strcmp(p.zone, "0") && strcmp(p.zone, "1")
        && strcmp(p.zone, "2"))
        return usage_error(&p, 7, "Unsupported -snz:", p.zone);
    /* a, u, d, rn, x, e, t, l refuse it as 7zz does, as they open or
     * write the archive; the others at once */
    bool writes = o->command == FZ7_CMD_ADD || o->command == FZ7_CMD_UPDATE || o->command == FZ7_CMD_DELETE ||
                  o->command == FZ7_CMD_RENAME;
    if (o->bad_method && !writes && !extracts)
        return usage_error(&p, 2, "E_INVALIDARG : One or more arguments are invalid", o->bad_method);
    if (writes && o->to_stdout && o->bso && o->bso[0] == '1')
        return usage_error(&p, 7, "I won't write data and program's messages to same stream", NULL);
    if (o->email && o->to_stdout && writes)
        return usage_error(&p, 7, "stdout mode and email mode cannot be combined", NULL);
    /* rn: the names come in old/new pairs, as 7-Zip requires. */
    if (o->command == FZ7_CMD_RENAME && o->n_names % 2)
        return usage_error(&p, 7, "There is no second file name for rename pair:",
                           o->names[o->n_names - 1].pattern);
    /* An old name with a wildcard is 7zz's command line error (the new
     * one may hold '*' and '?' as plain characters). */
    for (size_t i = 0; o->command == FZ7_CMD_RENAME && i + 1 < o->n_names; i += 2) {
        const char *from = o->names[i].pattern;
        if (strpbrk(from, "*?")) {
            usage_error(&p, 7, "Unsupported rename command:", NULL);
            snprintf(p.arg, p.arg_len, "%s\n%s\n", from, o->names[i + 1].pattern);   /* the pair, a line each, and 7zz's blank line */
            return 7;
        }
    }
    return 0;
}

void fz7_options_free(struct fz7_options *o)
{
    for (size_t i = 0; i < o->n_names; i++)
        free(o->names[i].pattern);
    for (size_t i = 0; i < o->n_excludes; i++)
        free(o->excludes[i].pattern);
    for (size_t i = 0; i < o->n_archive_names; i++)
        free(o->archive_names[i].pattern);
    for (size_t i = 0; i < o->n_archive_excludes; i++)
        free(o->archive_excludes[i].pattern);
    free(o->names);
    free(o->excludes);
    free(o->archive_names);
    free(o->archive_excludes);
    free(o->excluded_types);
    free(o->methods);
    free(o->hashes);
    free(o->update_rules);
    free(o->volume_sizes);
    if (o->password_buf) {
        explicit_bzero(o->password_buf, strlen(o->password_buf));
        free(o->password_buf);
    }
    memset(o, 0, sizeof *o);
}
