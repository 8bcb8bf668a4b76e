/* progress.c - draws the progress line of progress.h with '\r' and spaces
 * (no terminal escape codes, so a forced -bsp1 into a file stays readable
 * text), rate-limited by a monotonic clock. */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define FIRST_DRAW_SECONDS 0.3
#define REDRAW_SECONDS 0.2
#define ITEM_MAX 512

struct fz7_progress {
    FILE *out;
    uint64_t total, done;
    double start, last_draw;
    size_t drawn;            /* characters on the line now */
    char item[ITEM_MAX];
};

static double now_sec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

fz7_progress *fz7_progress_start(const struct fz7_options *o, uint64_t total)
{
    FILE *out;
    switch (o->bsp) {
    case 0:
        return NULL;
    case 1:
        out = o->to_stdout ? stderr : stdout;
        break;
    case 2:
        out = stderr;
        break;
    default:
        if (!isatty(STDERR_FILENO))
            return NULL;
        out = stderr;
        break;
    }
    fz7_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->out = out;
    p->total = total;
    p->start = now_sec();
    return p;
}

void fz7_progress_set_total(fz7_progress *p, uint64_t total)
{
    if (p)
        p->total = total;
}

/* "12.3 MiB" style: bytes in the largest unit that keeps the number short. */
static void human(char *buf, size_t cap, double v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%.0f %s", v, units[u]);
    else
        snprintf(buf, cap, "%.*f %s", v < 10 ? 1 : 0, v, units[u]);
}

static unsigned columns(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

static void draw(fz7_progress *p, double now)
{
    double elapsed = now - p->start;
    double speed = elapsed > 0 ? (double)p->done / elapsed : 0;
    char line[ITEM_MAX + 128], done[24], sp[24], left[48] = "";
    human(done, sizeof done, (double)p->done);
    human(sp, sizeof sp, speed);
    int n;
    if (p->total > 0) {
        uint64_t d = p->done < p->total ? p->done : p->total;
        unsigned pct = (unsigned)(d * 100 / p->total);
        if (speed > 0 && d < p->total) {
            unsigned long s = (unsigned long)((double)(p->total - d) / speed + 0.5);
            snprintf(left, sizeof left, "  %lu:%02lu left", s / 60, s % 60);
        }
        n = snprintf(line, sizeof line, "%3u%%  %s  %s/s%s", pct, done, sp, left);
    } else {
        n = snprintf(line, sizeof line, "%s  %s/s", done, sp);
    }
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    size_t width = columns(p->out) - 1;
    if (len > width)
        len = width;
    /* The item after the numbers; a long one keeps its end, which names
     * the file ("...dir/name.txt"). */
    size_t item_len = strlen(p->item);
    if (item_len && len + 8 < width) {
        size_t room = width - len - 4;
        const char *tail = p->item;
        const char *dots = "";
        if (item_len > room) {
            tail += item_len - (room - 3);
            dots = "...";
        }
        len += (size_t)snprintf(line + len, sizeof line - len, "  - %s%s", dots, tail);
        if (len > width)
            len = width;
    }
    line[len] = 0;
    fputc('\r', p->out);
    fputs(line, p->out);
    for (size_t i = len; i < p->drawn; i++)
        fputc(' ', p->out);
    fflush(p->out);
    p->drawn = len;
    p->last_draw = now;
}

void fz7_progress_add(fz7_progress *p, uint64_t n)
{
    if (!p)
        return;
    p->done += n;
    double now = now_sec();
    if (now - p->start < FIRST_DRAW_SECONDS || now - p->last_draw < REDRAW_SECONDS)
        return;
    draw(p, now);
}

void fz7_progress_item(fz7_progress *p, const char *name)
{
    if (!p)
        return;
    snprintf(p->item, sizeof p->item, "%s", name ? name : "");
}

void fz7_progress_clear(fz7_progress *p)
{
    if (!p || p->drawn == 0)
        return;
    fputc('\r', p->out);
    for (size_t i = 0; i < p->drawn; i++)
        fputc(' ', p->out);
    fputc('\r', p->out);
    fflush(p->out);
    p->drawn = 0;
    p->last_draw = 0; /* draw again at the next update */
}

void fz7_progress_end(fz7_progress *p)
{
    if (!p)
        return;
    fz7_progress_clear(p);
    free(p);
}
