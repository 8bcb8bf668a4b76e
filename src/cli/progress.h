/* progress.h - the one progress line of x, t and a: percentage, bytes,
 * speed and time left, redrawn in place a few times a second.
 *
 * It is shown on stderr when stderr is a terminal and is silent otherwise,
 * so scripts and logs never see it; -bsp0 turns it off, -bsp1 forces it on
 * stdout (stderr when -so sends data to stdout), -bsp2 forces it on stderr
 * (7-Zip's -bsp{N} stream numbers). Every function accepts NULL (progress
 * off), so callers need no checks of their own. */
#ifndef FZ7_PROGRESS_H
#define FZ7_PROGRESS_H

#include "cli/options.h"

#include <stdint.h>

typedef struct fz7_progress fz7_progress;

/* Starts a progress line for an operation over total bytes (the unpacked
 * bytes for x and t, the input bytes for a; 0 when not known: only bytes
 * and speed are shown then). Returns NULL when progress is off (see
 * above) or memory is short. */
fz7_progress *fz7_progress_start(const struct fz7_options *o, uint64_t total);

/* Changes the total when it becomes known (or grows). */
void fz7_progress_set_total(fz7_progress *p, uint64_t total);

/* Adds n bytes done. Cheap: redraws at most every 200 ms, the first time
 * after 300 ms, so short operations print nothing. */
void fz7_progress_add(fz7_progress *p, uint64_t n);

/* Names the item in progress (an archive path, UTF-8), shown after the
 * numbers and cut to the terminal width. The string is copied. */
void fz7_progress_item(fz7_progress *p, const char *name);

/* Erases the line (before other output goes to the same terminal); the
 * next update draws it again. */
void fz7_progress_clear(fz7_progress *p);

/* Erases the line and frees p. */
void fz7_progress_end(fz7_progress *p);

#endif
