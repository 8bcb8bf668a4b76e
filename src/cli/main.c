/* main.c - fz7's entry point: parses the 7-Zip-style command line, prints
 * "Command Line Error:" messages (exit 7) and runs the command. */
#include "cli/archive_out.h"
#include "cli/archive_type.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "check/check_kernels.h"
#include "cpu/cpu.h"
#include "crypto/aes.h"
#include "crypto/aes7z.h"
#include "lz/hash_mask.h"
#include "lz/match_len.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void print_version(void)
{
    const fz7_cpu_features *f = fz7_cpu_features_get();
    printf("fz7 %s : 7z/xz archiver (7-Zip compatible command line)\n", FZ7_VERSION);
    printf("CPU: %s\n", f->brand[0] ? f->brand : "unknown");
    printf("Dispatch level: %s (highest supported: %s)\n", fz7_cpu_level_name(fz7_cpu_level_get()),
           fz7_cpu_level_name(fz7_cpu_max_level()));
    printf("crc32: %s\ncrc64: %s\nsha256: %s\naes_cbc_dec: %s\naes_cbc_enc: %s\nmatch_len: %s\nhash_mask: %s\n",
           fz7_crc32_pick()->info.name, fz7_crc64_pick()->info.name,
           fz7_sha256_pick()->info.name, fz7_aes_cbc_dec_pick()->info.name,
           fz7_aes_cbc_enc_pick()->info.name, fz7_match_len_pick()->info.name, fz7_hash_mask_pick()->info.name);
}

static void print_usage(void)
{
    printf("Usage: fz7 <command> [<switches>...] <archive_name> [<file_names>...] [@listfile]\n"
           "\n<Commands>\n"
           "  a : Add files to archive\n"
           "  b : Benchmark [passes] [-mm={LZMA|CRC32|CRC64|SHA256|AES256CBC|*}] [-md{N}] [-mmt{N}]\n"
           "  d : Delete files from archive\n"
           "  e : Extract files from archive (without using directory names)\n"
           "  h : Calculate hash values for files\n"
           "  i : Show information about supported formats\n"
           "  l : List contents of archive\n"
           "  rn : Rename files in archive\n"
           "  t : Test integrity of archive\n"
           "  u : Update files to archive\n"
           "  x : eXtract files with full paths\n"
           "\n<Switches>\n"
           "  -- : Stop switches parsing\n"
           "  @listfile : set path to listfile that contains file names\n"
           "  -ao{a|s|t|u} : set Overwrite mode\n"
           "  -ba : suppress headers; l lists the entries only\n"
           "  -bb[0-3] : set output log level\n"
           "  -bt : print CPU and wall-clock times at the end\n"
           "  -bsp{0|1|2} : progress line: off, on stdout, on stderr (default: on a terminal)\n"
           "  -bso{N}, -bse{N} : standard / error messages to 0 nowhere, 1 stdout, 2 stderr\n"
           "  -i[r[-|0]]{@listfile|!wildcard} : Include filenames\n"
           "  -m{Parameters} : set compression Method (-mx{N}, -m0={method}, -mmt[N], -mhe, ...)\n"
           "  -o{Directory} : set Output directory\n"
           "  -p{Password} : set Password (-p alone: ask)\n"
           "  --password-file={file} : read the Password from the first line of file (-: stdin)\n"
           "  -r[-|0] : Recurse subdirectories for name search\n"
           "  -sdel : delete files after compression\n"
           "  -sse : a/u: end with exit 2, writing nothing, when an input cannot be opened\n"
           "  -si[{name}] : read data from stdin (x/e/t/l: the archive; xz from a pipe)\n"
           "  -slt : show technical information for l (List) command\n"
           "  -spf[2] : use fully qualified file paths (-spf2: without the leading /)\n"
           "  -snl : store symbolic links as links\n"
           "  -so : write data to stdout\n"
           "  -ssc[-] : set sensitive case mode\n"
           "  -scrc[CRC32|CRC64|SHA256|SHA1|MD5|XXH64|SHA384|SHA512|SHA3-256|*] : set hash function for h\n"
           "  -t{Type} : Set type of archive (7z, xz, tar, zip, gzip, bzip2; lzma read only)\n"
           "  -w[{path}] : assign Work directory\n"
           "  -x[r[-|0]]{@listfile|!wildcard} : eXclude filenames\n"
           "  -y : assume Yes on all queries\n"
           "  --version : version, CPU and kernel paths\n"
           "  -h, --help : this help\n");
}

/* -bso{N} / -bse{N} as 7-Zip reads them: where standard messages (N: 0
 * nowhere, 1 standard output, 2 standard error) and error messages go.
 * With -so standard output carries data and messages share standard error
 * with errors, so -bso has no effect there. */
static void apply_output_streams(const struct fz7_options *o)
{
    int bso = o->bso ? (o->bso[0] ? o->bso[0] - '0' : 1) : 1;
    int bse = o->bse ? (o->bse[0] ? o->bse[0] - '0' : 1) : 2;
    if (o->to_stdout)
        bso = 1;   /* fd 1 is the data's */
    if (bso == 1 && bse == 2)
        return;
    /* Each stream goes where its switch says, to the streams as they were
     * (-bso2 -bse1 swaps them, as in 7zz). */
    int orig[3] = {-1, dup(STDOUT_FILENO), dup(STDERR_FILENO)};
    int null_fd = bso == 0 || bse == 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
    if (o->command == FZ7_CMD_LIST && bso != 1 && orig[1] >= 0) {
        /* l: the listing stays on standard output, as in 7zz */
        int fd = dup(orig[1]);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (f)
            fz7_keep_list_stream(f);
        else if (fd >= 0)
            close(fd);
    }
    if (bso == 0)
        fz7_set_messages_off();
    int to_out = bso == 0 ? null_fd : orig[bso], to_err = bse == 0 ? null_fd : orig[bse];
    if (to_out >= 0 && bso != 1)
        dup2(to_out, STDOUT_FILENO);
    if (to_err >= 0 && bse != 2)
        dup2(to_err, STDERR_FILENO);
    /* Messages and errors may now share a file: whole lines, in order. */
    if (bso == 2 || bse == 1)
        setvbuf(stdout, NULL, _IOLBF, 0);
    for (int k = 1; k < 3; k++)
        if (orig[k] >= 0)
            close(orig[k]);
    if (null_fd >= 0)
        close(null_fd);
}

static double seconds_of(struct timeval tv) { return (double)tv.tv_sec + tv.tv_usec / 1e6; }

/* -bt: 7-Zip's times block, every thread's CPU time against the wall
 * clock since start. */
static void print_times(FILE *out, const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double global = (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_SELF, &ru);
    double kernel = seconds_of(ru.ru_stime), user = seconds_of(ru.ru_utime);
    const char *name[4] = {"Kernel ", "User   ", "Process", "Global "};
    double t[4] = {kernel, user, kernel + user, global};
    fputc('\n', out);
    for (int i = 0; i < 4; i++)
        fprintf(out, "%s Time = %9.3f = %4u%%\n", name[i], t[i],
                i == 3 ? 100u : global >= 0.01 ? (unsigned)(t[i] * 100 / global) : 0u);
}

/* The command-line errors 7zz finds only after it has read every switch
 * (its banner is out by then). */
static bool after_switches(const char *kind)
{
    static const char *const late[] = {"Cannot find archive name", "Unsupported command:",
                                       "Cannot find command",
                                       "There is no second file name for rename pair:", "Unsupported rename command:",
                                       "-ai switch is not supported for this command",
                                       "Unsupported -spf:", "Incorrect wildcard type marker",
                                       "The file operation error for listfile", "Unsupported -snz:",
                                       "Unsupported switch postfix -snld", "Unsupported -spm:",
                                       "Incorrect item in listfile.\nCheck charset encoding and -scs switch."};
    for (size_t i = 0; i < sizeof late / sizeof *late; i++)
        if (!strcmp(kind, late[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (argc < 2) {
        fz7_print_banner(stdout);
        print_usage();
        return 0;
    }
    fz7_catch_signals();
    struct fz7_options o;
    char kind[300], arg[4200];
    int rc = fz7_options_parse(argc, argv, &o, kind, sizeof kind, arg, sizeof arg);
    if (rc != 0) {
        fflush(stdout);
        if (rc == 7) {
            /* Found once the switches are read: 7zz has printed its banner
             * (not with -so: stdout is the data's). */
            bool same_stream = !strcmp(kind, "I won't write data and program's messages to same stream");
            if ((after_switches(kind) && !o.ba && !o.to_stdout && !(o.bso && o.bso[0] == '0')) || same_stream) {
                fz7_print_banner(stdout);
                fflush(stdout);
            }
            fprintf(stderr, "\n\nCommand Line Error:\n%s\n", kind);
            if (arg[0])
                fprintf(stderr, "%s\n", arg);
        }
        else if (rc == 2)
            fprintf(stderr, "\nSystem ERROR:\n%s\n%s\n", kind, arg);
        else
            fprintf(stderr, "\nERROR: %s%s%s\n", kind, arg[0] ? " : " : "", arg);
        fz7_options_free(&o);
        return rc;
    }
    if (o.affinity)
        fz7_set_affinity(o.affinity);
    if (o.command == FZ7_CMD_ADD || o.command == FZ7_CMD_UPDATE) {
        /* The scan of a and u matches names without m and w-: refused
         * rather than ignored. */
        const fz7_wildcard *odd = NULL;
        for (size_t i = 0; !odd && i < o.n_names + o.n_excludes; i++) {
            const fz7_wildcard *w = i < o.n_names ? &o.names[i] : &o.excludes[i - o.n_names];
            if (w->mark || w->literal)
                odd = w;
        }
        if (odd) {
            fprintf(stderr, "\n\nCommand Line Error:\nUnsupported wildcard mode (m, w-) for a and u:\n%s\n",
                    odd->pattern);
            fz7_options_free(&o);
            return FZ7_EXIT_USAGE;
        }
    }
    char named[PATH_MAX + 16];
    if ((o.command == FZ7_CMD_ADD || o.command == FZ7_CMD_UPDATE) && o.archive &&
        !fz7_apply_name_mode(&o, named, sizeof named)) {
        fprintf(stderr, "\nERROR: archive name too long\n");
        fz7_options_free(&o);
        return FZ7_EXIT_USAGE;
    }
    apply_output_streams(&o);
    fz7_set_bare(o.ba);
    if ((o.type == FZ7_TYPE_UNKNOWN || !fz7_excluded_types_known(&o)) && o.command != FZ7_CMD_VERSION && o.command != FZ7_CMD_HELP &&
        o.command != FZ7_CMD_BENCH && o.command != FZ7_CMD_HASH && o.command != FZ7_CMD_INFO) {
        /* A -t name 7-Zip does not know: its error once the command starts. */
        FILE *out = fz7_msg_stream(&o);
        fz7_print_banner(out);
        fflush(out);
        fprintf(stderr, "\n\nERROR:\nUnsupported archive type\n");
        fz7_options_free(&o);
        return FZ7_EXIT_FATAL;
    }
    switch (o.command) {
    case FZ7_CMD_VERSION:
        print_version();
        rc = 0;
        break;
    case FZ7_CMD_HELP:
        /* 7zz -h: its banner, then the usage, exit 0. */
        fz7_print_banner(stdout);
        print_usage();
        rc = 0;
        break;
    case FZ7_CMD_BENCH:
        rc = fz7_cmd_bench(&o);
        break;
    case FZ7_CMD_HASH:
        rc = fz7_cmd_hash(&o);
        break;
    case FZ7_CMD_INFO:
        rc = fz7_cmd_info(&o);
        break;
    case FZ7_CMD_ADD:
        rc = fz7_cmd_add(&o);
        break;
    case FZ7_CMD_LIST:
        rc = fz7_cmd_list(&o);
        break;
    case FZ7_CMD_UPDATE:
    case FZ7_CMD_DELETE:
    case FZ7_CMD_RENAME:
        rc = fz7_cmd_update(&o);
        break;
    case FZ7_CMD_EXTRACT:
    case FZ7_CMD_EXTRACT_FLAT:
    case FZ7_CMD_TEST:
        rc = fz7_cmd_extract(&o);
        break;
    default:
        fprintf(stderr, "\nCommand Line Error:\nUnsupported command\n\n");
        rc = 7;
        break;
    }
    fz7_7zaes_cache_clear();
    if (o.bt)
        print_times(fz7_msg_stream(&o), &start);
    fz7_options_free(&o);
    fflush(stdout);
    return rc;
}
