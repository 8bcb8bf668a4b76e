/* update_rules.c - parsing 7-Zip's -u switches into the archives to write
 * and the action for each item state. */
#include "cli/update_rules.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char STATE_LETTERS[] = "pqrxyzw";

static void defaults(fz7_command cmd, uint8_t act[FZ7_PAIR_STATES])
{
    /* p q r x y z w */
    static const uint8_t add[FZ7_PAIR_STATES] = {1, 1, 2, 2, 2, 2, 2};
    static const uint8_t upd[FZ7_PAIR_STATES] = {1, 1, 2, 1, 2, 1, 2};
    static const uint8_t del[FZ7_PAIR_STATES] = {1, 0, 0, 0, 0, 0, 0};   /* d: the selected go */
    memcpy(act, cmd == FZ7_CMD_ADD ? add : cmd == FZ7_CMD_DELETE ? del : upd, FZ7_PAIR_STATES);
}

/* Letter-digit pairs, then nothing or "!name". False for anything else,
 * an action a state cannot take (p2, q2: no file to read; r1: nothing to
 * copy) or an empty name. */
static bool parse_one(const char *s, uint8_t act[FZ7_PAIR_STATES], const char **name)
{
    *name = NULL;
    while (*s) {
        const char *l = strchr(STATE_LETTERS, tolower((unsigned char)*s));
        if (!l) {
            if (*s != '!' || !s[1])
                return false;
            *name = s + 1;
            return true;
        }
        unsigned state = (unsigned)(l - STATE_LETTERS);
        if (s[1] < '0' || s[1] > '3')
            return false;
        unsigned a = (unsigned)(s[1] - '0');
        if ((state <= FZ7_PAIR_ARCHIVE_ONLY && a == FZ7_ACT_COMPRESS) ||
            (state == FZ7_PAIR_DISK_ONLY && a == FZ7_ACT_COPY))
            return false;
        act[state] = (uint8_t)a;
        s += 2;
    }
    return true;
}

static int cmdline_error(const char *kind, const char *arg)
{
    fflush(stdout);
    fprintf(stderr, "\n\nCommand Line Error:\n%s\n%s%s", kind, arg ? arg : "", arg ? "\n" : "");
    return 7;
}

int fz7_update_targets_parse(const struct fz7_options *o, fz7_update_targets *ts)
{
    ts->t = calloc(o->n_update_rules + 1, sizeof *ts->t);
    ts->n = 0;
    if (!ts->t)
        return 8;
    bool itself = true;
    fz7_update_target main_t = {{0}, NULL};
    defaults(o->command, main_t.act);
    size_t n_extra = 0;
    for (size_t i = 0; i < o->n_update_rules; i++) {
        const char *s = o->update_rules[i];
        if (strcmp(s, "-") == 0) {
            itself = false;
            continue;
        }
        fz7_update_target t = {{0}, NULL};
        defaults(o->command, t.act);
        if (!parse_one(s, t.act, &t.path))
            return cmdline_error("incorrect update switch command", s);
        if (t.path)
            ts->t[1 + n_extra++] = t;   /* slot 0 is the archive's own */
        else if (itself)
            main_t = t;
    }
    if (o->command == FZ7_CMD_RENAME && (!itself || n_extra))
        return cmdline_error("Only one archive can be created with rename command", NULL);
    if (itself) {
        ts->t[0] = main_t;
        ts->n = 1 + n_extra;
    } else {
        memmove(ts->t, ts->t + 1, n_extra * sizeof *ts->t);
        ts->n = n_extra;
    }
    return 0;
}

bool fz7_update_target_needs_scan(const fz7_update_target *t)
{
    for (unsigned i = 0; i < FZ7_PAIR_STATES; i++)
        if (t->act[i] == FZ7_ACT_COMPRESS || (i != FZ7_PAIR_UNMATCHED && t->act[i] != FZ7_ACT_IGNORE))
            return true;
    return false;
}

void fz7_update_targets_free(fz7_update_targets *ts)
{
    free(ts->t);
    ts->t = NULL;
    ts->n = 0;
}

/* FILETIME precision (100 ns), the precision a .7z keeps. */
static int64_t ticks_of(int64_t sec, uint32_t nsec)
{
    return sec * 10000000 + (int64_t)(nsec / 100u);
}

/* A file's mtime (sec, nsec) and an entry's, in the units the entry's
 * time has (FZ7_MTIME_*), as 7zz compares them: FILETIME ticks, whole
 * seconds (the file's cut down), or DOS time (the file's rounded up to an
 * even second, as 7-Zip writes it). */
static void comparable_times(const fz7_entry *e, int64_t sec, uint32_t nsec, int64_t *disk, int64_t *arc)
{
    switch (e->mtime_prec) {
    case FZ7_MTIME_SECONDS:
        *disk = sec;
        *arc = e->mtime;
        return;
    case FZ7_MTIME_DOS:
        *disk = (sec + (nsec != 0) + 1) & ~(int64_t)1;
        *arc = e->mtime;
        return;
    default:
        *disk = ticks_of(sec, nsec);
        *arc = ticks_of(e->mtime, e->mtime_nsec);
    }
}

fz7_pair_state fz7_pair_state_of(const fz7_entry *e, const fz7_tree_item *it)
{
    if (!e->has_mtime)
        return FZ7_PAIR_ARCHIVE_NEWER;
    int64_t disk, arc;
    comparable_times(e, it->mtime, it->mtime_nsec, &disk, &arc);
    return disk < arc ? FZ7_PAIR_ARCHIVE_NEWER : disk > arc ? FZ7_PAIR_ARCHIVE_OLDER
           : it->size == e->size ? FZ7_PAIR_SAME : FZ7_PAIR_UNKNOWN;
}
