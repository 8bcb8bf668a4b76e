/* delta.c - the Delta filter: each byte stored as its difference from the
 * byte `distance` positions earlier, which helps sampled data such as
 * images and audio (xz-file-format.txt 5.3.3, Methods.txt 03). */
#include "filter/filter.h"

#include <string.h>

fz7_status fz7_delta_init(fz7_delta_state *s, unsigned distance)
{
    if (distance < 1 || distance > 256)
        return FZ7_E_ARG;
    s->distance = distance;
    s->pos = 0;
    memset(s->history, 0, sizeof s->history);
    return FZ7_OK;
}

/* history is a ring of the last 256 original bytes; the byte `distance`
 * back from ring index pos is at pos - distance (mod 256). */
void fz7_delta_encode(fz7_delta_state *s, uint8_t *buf, size_t n)
{
    uint8_t pos = s->pos;
    const uint8_t back = (uint8_t)s->distance; /* 256 wraps to 0: same slot */
    for (size_t i = 0; i < n; i++) {
        uint8_t orig = buf[i];
        buf[i] = (uint8_t)(orig - s->history[(uint8_t)(pos - back)]);
        s->history[pos++] = orig;
    }
    s->pos = pos;
}

void fz7_delta_decode(fz7_delta_state *s, uint8_t *buf, size_t n)
{
    uint8_t pos = s->pos;
    const uint8_t back = (uint8_t)s->distance;
    for (size_t i = 0; i < n; i++) {
        uint8_t orig = (uint8_t)(buf[i] + s->history[(uint8_t)(pos - back)]);
        buf[i] = orig;
        s->history[pos++] = orig;
    }
    s->pos = pos;
}

static size_t delta_decode_fn(void *state, uint8_t *buf, size_t n)
{
    fz7_delta_decode(state, buf, n);
    return n;
}

fz7_status fz7_delta_istream_new(fz7_istream *src, unsigned distance, fz7_istream **out)
{
    *out = NULL;
    fz7_delta_state s;
    fz7_status st = fz7_delta_init(&s, distance);
    if (st != FZ7_OK)
        return st;
    return fz7_filter_istream_new(src, delta_decode_fn, &s, sizeof s, out);
}
