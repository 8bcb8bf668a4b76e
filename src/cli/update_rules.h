/* update_rules.h - 7-Zip's update rules, -u[-][p#][q#][r#][x#][y#][z#][w#][!name]:
 * what a/u/d do with each item by its state (in the archive and on disk,
 * which is newer), and which archives they write: the archive itself
 * unless -u-, and one more for each -u...!name. */
#ifndef FZ7_CLI_UPDATE_RULES_H
#define FZ7_CLI_UPDATE_RULES_H

#include "cli/options.h"
#include "format/archive.h"
#include "fsio/read_tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An item's state, in the order of the -u letters p q r x y z w. */
typedef enum fz7_pair_state {
    FZ7_PAIR_UNMATCHED = 0, /* p: in the archive, not selected by the command's names */
    FZ7_PAIR_ARCHIVE_ONLY,  /* q: in the archive, selected, not on disk */
    FZ7_PAIR_DISK_ONLY,     /* r: on disk, not in the archive */
    FZ7_PAIR_ARCHIVE_NEWER, /* x: both; the archive's mtime is later (or it has none) */
    FZ7_PAIR_ARCHIVE_OLDER, /* y: both; the file on disk is later */
    FZ7_PAIR_SAME,          /* z: both; the same mtime and size */
    FZ7_PAIR_UNKNOWN,       /* w: both; the same mtime, another size */
    FZ7_PAIR_STATES
} fz7_pair_state;

/* What becomes of an item in a state (the -u digits). */
typedef enum fz7_pair_action {
    FZ7_ACT_IGNORE = 0,   /* the item is not in the new archive */
    FZ7_ACT_COPY = 1,     /* the archive's entry is kept */
    FZ7_ACT_COMPRESS = 2, /* the file is read from disk */
    FZ7_ACT_ANTI = 3,     /* an anti-item of the name (7z) */
} fz7_pair_action;

/* One archive to write: path NULL is the archive itself. */
typedef struct fz7_update_target {
    uint8_t act[FZ7_PAIR_STATES];   /* fz7_pair_action per fz7_pair_state */
    const char *path;               /* -u...!path (argv storage), or NULL */
} fz7_update_target;

/* The archives a command writes, the archive itself first when it is. */
typedef struct fz7_update_targets {
    fz7_update_target *t;
    size_t n;
} fz7_update_targets;

/* Reads o's -u switches for o->command (a: p1q1r2x2y2z2w2, u:
 * p1q1r2x1y2z1w2, d: p1q0r0x0y0z0w0; each -u starts from these, the last
 * one without !name sets the archive's own rules, -u- drops the archive
 * itself, rn takes no rules). Returns 0; 7 after
 * printing 7-Zip's "Command Line Error" on stderr for a bad spelling (or a
 * second archive for rn); 8 out of memory. */
int fz7_update_targets_parse(const struct fz7_options *o, fz7_update_targets *ts);

/* Whether t needs the files on disk: some state is compressed, or some
 * state but p is not ignored (d's own rules need no scan, so d deletes the
 * selected entries as q items; d -uq1 scans, as 7zz does). */
bool fz7_update_target_needs_scan(const fz7_update_target *t);

/* The state of an archive entry and the item on disk of its name: which
 * is newer, by the time precision the entry has (an entry without a time
 * counts as newer, as in 7zz), or w when the times agree and the sizes do
 * not. */
fz7_pair_state fz7_pair_state_of(const fz7_entry *e, const fz7_tree_item *it);

/* Frees ts's list. */
void fz7_update_targets_free(fz7_update_targets *ts);

/* True when o has a -u switch (a then goes the update way). */
static inline bool fz7_has_update_rules(const struct fz7_options *o)
{
    return o->n_update_rules != 0;
}

#endif
