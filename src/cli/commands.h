/* commands.h - one entry point per command; each returns the exit code
 * (0 ok, 1 warning, 2 fatal or data errors, 7 command line, 8 memory,
 * 255 stopped by the user). */
#ifndef FZ7_COMMANDS_H
#define FZ7_COMMANDS_H

#include "cli/options.h"

struct fz7_options;

/* `a`: create or add to a .7z/.xz archive (cmd_add.c); with -u switches
 * it is fz7_cmd_update with a's rules. */
int fz7_cmd_add(const struct fz7_options *o);
/* a as it is, -u's rules included: a or u with rules for an xz, gzip or
 * bzip2 file itself (cmd_update.c sends them; the file holds one). */
int fz7_cmd_add_ruled(const struct fz7_options *o);

/* `u`, `d` and `rn` on a .7z (and `a` with -u), chosen by o->command and
 * the -u rules: each result goes to a temporary file renamed into place;
 * folders whose entries all stay unchanged are copied without
 * re-compressing (cmd_update.c). */
int fz7_cmd_update(const struct fz7_options *o);

/* `l` (with -slt: technical listing) (cmd_list.c). */
int fz7_cmd_list(const struct fz7_options *o);

/* `x`, `e` and `t`, chosen by o->command (cmd_extract.c). */
int fz7_cmd_extract(const struct fz7_options *o);

/* `b`: LZMA speeds per dictionary size and kernel speeds at every CPU
 * level (-mm=LZMA|CRC32|CRC64|SHA256|AES256CBC|*, -md{N}, -mmt{N}, and an
 * optional number of passes in place of the archive) (cmd_bench.c). */
int fz7_cmd_bench(const struct fz7_options *o);

/* `h`: hashes of the named files (every file below the current folder
 * without names) in 7-Zip's table, -scrc{method} choosing the hashes
 * (cmd_hash.c). */
int fz7_cmd_hash(const struct fz7_options *o);

/* `i`: the formats, codecs and hashers fz7 supports, in 7-Zip's layout
 * (cmd_info.c). */
int fz7_cmd_info(const struct fz7_options *o);

#endif
