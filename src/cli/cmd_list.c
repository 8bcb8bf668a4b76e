/* cmd_list.c - `fz7 l`: 7-Zip's listing table, and with -slt its technical
 * listing ("Path = ", "Size = ", ...) so scripts that parse 7-Zip's output
 * keep working. */
#include "cli/archive_out.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ATTR_READONLY 0x01
#define ATTR_HIDDEN 0x02
#define ATTR_SYSTEM 0x04
#define ATTR_DIRECTORY 0x10
#define ATTR_ARCHIVE 0x20
#define ATTR_UNIX_EXTENSION 0x8000

/* The 5-character Attr column: D R H S A or '.'. */
static void attr_column(const fz7_entry *e, char out[6])
{
    uint32_t a = e->has_attrib ? e->attrib : 0;
    out[0] = (e->is_dir || (a & ATTR_DIRECTORY)) ? 'D' : '.';
    out[1] = (a & ATTR_READONLY) ? 'R' : '.';
    out[2] = (a & ATTR_HIDDEN) ? 'H' : '.';
    out[3] = (a & ATTR_SYSTEM) ? 'S' : '.';
    out[4] = (a & ATTR_ARCHIVE) ? 'A' : '.';
    out[5] = 0;
}

/* Packed size is shown on the first entry of a folder only, and not at
 * all where it is known only on decoding (.lzma, a salvaged .xz). An entry
 * without data (a folder, an empty file) that stands between two files of
 * the same solid block counts as part of that block, so 7-Zip leaves its
 * packed size blank too (it lists 0 elsewhere). */
static bool packed_blank(const fz7_archive *a, const fz7_entry *e, bool in_block)
{
    if (e->packed_known)
        return false;
    return (e->is_dir && !e->has_size) || (e->has_stream && e->packed_size == 0) || (!e->has_stream && in_block)
           || fz7_archive_get_info(a)->sizes_unknown;
}

/* For each entry i: true when it has no data and the nearest entries with
 * data before and after it are in the same folder. NULL if there are none
 * or memory is short (then every such entry lists 0). Free with free(). */
static bool *entries_in_block(const fz7_archive *a, size_t n)
{
    if (n == 0 || fz7_archive_get_info(a)->format != FZ7_FORMAT_7Z)
        return NULL;
    bool *in = calloc(n, sizeof *in);
    if (!in)
        return NULL;
    int64_t prev = -1; /* folder of the nearest entry with data before i */
    for (size_t i = 0; i < n; i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        if (e->has_stream) {
            prev = e->folder;
            continue;
        }
        size_t j = i + 1; /* the next entry with data */
        while (j < n && !fz7_archive_entry(a, j)->has_stream)
            j++;
        bool inside = prev >= 0 && j < n && fz7_archive_entry(a, j)->folder == prev;
        for (size_t k = i; k < j; k++)
            in[k] = inside;
        i = j - 1;
    }
    return in;
}

/* Archive-wide: which optional lines `l -slt` prints for every entry (7-Zip
 * prints a property's line, blank where an entry lacks it, once any entry
 * of the archive has it). */
typedef struct {
    bool crc, ctime, atime, anti, attrib;
} slt_lines;

/* One "Created = " / "Accessed = " line (or its blank form). */
static void time_line(FILE *out, const char *label, bool has, int64_t sec, uint32_t nsec)
{
    char t[32] = "";
    if (has) {
        fz7_format_time(t, sizeof t, sec);
        fprintf(out, "%s = %s.%07u\n", label, t, nsec / 100);
    } else {
        fprintf(out, "%s = \n", label);
    }
}

/* One entry of `l -slt`, with the optional lines `any` asks for. xz and
 * lzma entries have no Path line, as in 7-Zip. */
static void list_technical(FILE *out, const fz7_archive *a, size_t i, slt_lines any,
                           bool in_block)
{
    const fz7_entry *e = fz7_archive_entry(a, i);
    fz7_prop props[FZ7_PROPS_MAX];
    char buf[512];
    size_t np = fz7_archive_entry_props(a, i, props, buf, sizeof buf);
    if (np) {   /* the format's own lines (tar, zip, gzip) */
        for (size_t k = 0; k < np; k++) {
            if (!props[k].value) {
                fz7_print_time_prop(out, &props[k]);
                continue;
            }
            /* a name stored empty: the archive's base name, as 7-Zip shows it */
            bool noname = strcmp(props[k].name, "Path") == 0 && !props[k].value[0];
            fprintf(out, "%s = ", props[k].name);
            fz7_print_name(out, noname ? fz7_entry_path(e) : props[k].value);
            fputc('\n', out);
        }
        fputc('\n', out);
        return;
    }
    fz7_format f = fz7_archive_get_info(a)->format;
    bool is7z = f == FZ7_FORMAT_7Z || f == FZ7_FORMAT_OTHER;   /* per-entry fields */
    if (is7z) {
        fputs("Path = ", out);
        fz7_print_name(out, fz7_entry_path(e));
        fputc('\n', out);
    }
    if (e->has_size || is7z)
        fprintf(out, "Size = %llu\n", (unsigned long long)e->size);
    else
        fprintf(out, "Size = \n");
    if (packed_blank(a, e, in_block))
        fprintf(out, "Packed Size = \n");
    else
        fprintf(out, "Packed Size = %llu\n", (unsigned long long)e->packed_size);
    if (is7z) {
        char t[32] = "";
        if (e->has_mtime) {
            fz7_format_time(t, sizeof t, e->mtime);
            fprintf(out, "Modified = %s.%07u\n", t, e->mtime_nsec / 100);
        } else {
            fprintf(out, "Modified = \n");
        }
        if (any.anti)
            fprintf(out, "Anti = %c\n", e->is_anti ? '+' : '-');
        static const fz7_entry_more none;
        const fz7_entry_more *more = e->more ? e->more : &none;
        if (any.ctime)
            time_line(out, "Created", e->has_ctime, more->ctime, more->ctime_nsec);
        if (any.atime)
            time_line(out, "Accessed", e->has_atime, more->atime, more->atime_nsec);
        char attrs[64];
        fz7_attrib_string(e, attrs, sizeof attrs);
        if (any.attrib)
            fprintf(out, "Attributes = %s\n", attrs);
        if (e->has_crc)
            fprintf(out, "CRC = %08X\n", e->crc);
        else if (any.crc)
            fprintf(out, "CRC = \n");
        fprintf(out, "Encrypted = %c\n", e->encrypted ? '+' : '-');
        fprintf(out, "Method = %s\n", e->method ? e->method : "");
        if (e->folder >= 0)
            fprintf(out, "Block = %lld\n", (long long)e->folder);
        else
            fprintf(out, "Block = \n");
    } else {
        const fz7_archive_info *in = fz7_archive_get_info(a);
        const char *m = e->method && e->method[0] ? e->method : in->method ? in->method : "";
        if (in->check && !strstr(m, in->check))
            fprintf(out, "Method = %s%s%s\n", m, m[0] ? " " : "", in->check);
        else
            fprintf(out, "Method = %s\n", m);
    }
    fputc('\n', out);
}

static const char DASHES[] =
    "------------------- ----- ------------ ------------  ------------------------\n";

/* What l adds up over several archives, for the totals after the last. */
typedef struct list_totals {
    uint64_t files, dirs, size, packed;
    int64_t newest;
    bool have_newest, size_blank;
    unsigned long ok, errors, warnings;
    uint64_t volumes;       /* files of the listed archives (a volume set: all) */
    uint64_t more_bytes;    /* volumes after the first ones named, for the size total */
} list_totals;

static void print_total_line(FILE *out, bool have_newest, int64_t newest, const char *tsize,
                             const char *tpacked, uint64_t files, uint64_t dirs)
{
    char t[32] = "";
    if (have_newest)
        fz7_format_time(t, sizeof t, newest);
    fprintf(out, "%s%-19s       %12s %12s  %llu files", DASHES, t, tsize, tpacked,
            (unsigned long long)files);
    if (dirs)
        fprintf(out, ", %llu folders", (unsigned long long)dirs);
    fputc('\n', out);
}

/* One archive's block, entries and total line; its counts go to *lt. */
static int list_one(const struct fz7_options *o, const char *path, list_totals *lt)
{
    FILE *out = fz7_list_stream();
    bool bare = o->ba; /* -ba: the entries alone, as 7-Zip */
    fz7_archive *a;
    char *password;
    bool cant_open;
    int rc = fz7_open_for_read(o, path, out, "Listing", false, &a, &password, &cant_open);
    if (rc == FZ7_EXIT_BREAK)
        return rc;
    if (rc) { /* l counts every archive that did not open as an error */
        (void)cant_open;
        lt->errors++;
        if (!o->ba && o->from_stdin)   /* else printed before the error (open_error) */
            fputc('\n', out);
        return -rc;
    }
    if (bare)
        ;
    else if (fz7_archive_get_info(a)->piped) {   /* sizes unknown until read */
        fputc('\n', out);
        fz7_print_archive_block(out, "", a, NULL);
        fputc('\n', out);
    } else {
        if (!password) /* after a question the empty line came before it */
            fputc('\n', out);
        fz7_print_archive_block(out, path, a, fz7_unexpected_type(o, path, a));
        fputc('\n', out);
    }

    size_t n = fz7_archive_count(a);
    slt_lines any = {false, false, false, false, false};
    for (size_t i = 0; i < n; i++) {
        const fz7_entry *e = fz7_archive_entry(a, i);
        any.crc |= e->has_crc;
        any.ctime |= e->has_ctime;
        any.atime |= e->has_atime;
        any.anti |= e->is_anti;
        any.attrib |= e->has_attrib;
    }
    bool *in_blocks = entries_in_block(a, n);
    uint64_t files = 0, dirs = 0, total_size = 0, total_packed = 0;
    bool any_packed = false; /* a listed entry shows its packed size */
    bool size_blank = false; /* an entry without a size blanks the total, as 7-Zip */
    int64_t newest = 0;
    bool have_newest = false;
    if (bare)
        ;
    else if (o->slt)
        fprintf(out, "----------\n");
    else
        fprintf(out, "   Date      Time    Attr         Size   Compressed  Name\n%s", DASHES);
    for (size_t k = 0; k < n; k++) {
        size_t i = fz7_archive_listed(a, k);
        const fz7_entry *e = fz7_archive_entry(a, i);
        if (!fz7_selected_item(o, fz7_entry_path(e), e->is_dir))   /* anti-items too, as 7-Zip lists them */
            continue;
        if (e->is_dir)
            dirs++;
        else
            files++;
        total_size += e->size;
        bool in_block = in_blocks && in_blocks[i];
        if (!packed_blank(a, e, in_block)) {
            total_packed += e->packed_size;
            any_packed = true;
        }
        /* (a folder without a size: an ISO's, which 7-Zip counts as 0) */
        size_blank |= !e->has_size && !e->is_dir && fz7_archive_get_info(a)->format != FZ7_FORMAT_7Z &&
                      !fz7_archive_get_info(a)->no_size_is_empty;
        if (e->has_mtime && (!have_newest || e->mtime > newest)) {
            newest = e->mtime;
            have_newest = true;
        }
        if (o->slt) {
            list_technical(out, a, i, any, in_block);
            continue;
        }
        char t[32] = "", attr[6], size[24] = "", packed[24] = "";
        if (e->has_mtime)
            fz7_format_time(t, sizeof t, e->mtime);
        attr_column(e, attr);
        if (e->has_size || fz7_archive_get_info(a)->format == FZ7_FORMAT_7Z)
            snprintf(size, sizeof size, "%llu", (unsigned long long)e->size);
        if (!packed_blank(a, e, in_block))
            snprintf(packed, sizeof packed, "%llu", (unsigned long long)e->packed_size);
        fprintf(out, "%-19s %s %12s %12s  ", t, attr, size, packed);
        fz7_print_name(out, fz7_entry_path(e));
        fputc('\n', out);
    }
    if (!o->slt && !bare) {
        /* When no listed entry shows a packed size (later files of a solid
         * block, .lzma, a salvaged .xz), 7-Zip totals the whole archive; folders
         * alone (an ISO or UDF image of folders) total 0, as in 7-Zip. */
        const fz7_archive_info *in = fz7_archive_get_info(a);
        if (!any_packed && files > 0)   /* a .deb: the whole package */
            total_packed = fz7_archive_get_info(fz7_archive_outermost(a))->phy_size;
        char tsize[24] = "", tpacked[24] = "";
        if (!size_blank)
            snprintf(tsize, sizeof tsize, "%llu", (unsigned long long)total_size);
        if (!in->piped) /* a pipe: not read yet */
            snprintf(tpacked, sizeof tpacked, "%llu", (unsigned long long)total_packed);
        print_total_line(out, have_newest, newest, tsize, tpacked, files, dirs);
    }
    lt->files += files;
    lt->dirs += dirs;
    lt->size += total_size;
    lt->packed += total_packed;
    lt->size_blank |= size_blank;
    if (have_newest && (!lt->have_newest || newest > lt->newest)) {
        lt->newest = newest;
        lt->have_newest = true;
    }
    lt->ok++;
    uint64_t first, all;
    if (fz7_volume_set_sizes(path, a, &first, &all)) {
        lt->volumes += fz7_archive_get_info(a)->volumes;
        lt->more_bytes += all > first ? all - first : 0;
    } else if (fz7_archive_get_info(a)->multivolume) {
        lt->volumes += fz7_archive_get_info(a)->volumes - fz7_archive_get_info(a)->volumes_missing;
        lt->more_bytes += fz7_archive_get_info(a)->file_size - fz7_archive_get_info(a)->volume_size;
    } else {
        lt->volumes++;
    }
    if (fz7_archive_warning(a) || fz7_unexpected_type(o, path, a)) /* exit code 0 (7-Zip 26), after the totals */
        lt->warnings++;
    bool open_error = fz7_archive_open_error_in(a, NULL) != NULL;
    lt->errors += open_error;   /* listed, but cut short: exit 2, as 7-Zip */
    free(in_blocks);
    fz7_archive_close(a);
    fz7_keep_password(NULL, &password);
    return open_error ? FZ7_EXIT_FATAL : FZ7_EXIT_OK;
}

int fz7_cmd_list(const struct fz7_options *o)
{
    FILE *out = stdout;
    if (!o->ba)
        fz7_print_banner(out);
    fz7_archive_list list;
    int rc = fz7_find_archives(o, out, &list);
    if (rc)
        return rc;
    list_totals lt = {0};
    bool cant_open = false;
    for (size_t i = 0; i < list.n; i++) {
        int r = list_one(o, list.paths[i], &lt); /* 7-Zip asks for each archive's headers */
        if (r < 0) { /* did not open: the next one is listed all the same */
            cant_open = true;
            r = -r;
        }
        if (r > rc)
            rc = r;
        if (r == FZ7_EXIT_BREAK)
            break;
    }
    out = fz7_list_stream();
    /* 7-Zip totals again after several archives, or one cut in volumes. */
    bool several = list.n > 1 || lt.volumes > 1;
    uint64_t bytes = list.bytes + lt.more_bytes;
    fz7_archive_list_free(&list);
    if (rc == FZ7_EXIT_BREAK || (!several && !cant_open && !lt.warnings && !lt.errors) || o->ba) {
        fz7_flush_system_error(out);
        return rc;
    }
    if (several && !o->slt) {
        char tsize[24] = "", tpacked[24] = "";
        if (!lt.size_blank && lt.ok) /* none listed: both columns blank */
            snprintf(tsize, sizeof tsize, "%llu", (unsigned long long)lt.size);
        if (lt.ok)
            snprintf(tpacked, sizeof tpacked, "%llu", (unsigned long long)lt.packed);
        fputc('\n', out);
        print_total_line(out, lt.have_newest, lt.newest, tsize, tpacked, lt.files, lt.dirs);
        fprintf(out, "\nArchives: %lu\nVolumes: %llu\nTotal archives size: %llu\n", lt.ok,
                (unsigned long long)lt.volumes, (unsigned long long)bytes);
    }
    if (lt.warnings)
        fprintf(out, "\nWarnings: %lu\n", lt.warnings);
    if (lt.errors)
        fprintf(out, "\nErrors: %lu\n", lt.errors);
    fz7_flush_system_error(out);
    return rc;
}
