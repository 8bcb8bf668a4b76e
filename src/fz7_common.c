/* fz7_common.c - status strings and the generic istream helpers. */
#include "fz7_common.h"

#include <stdlib.h>
#include <string.h>

const char *fz7_status_str(fz7_status st)
{
    switch (st) {
    case FZ7_OK: return "OK";
    case FZ7_E_MEM: return "Can't allocate required memory";
    case FZ7_E_MEMLIMIT: return "Memory usage limit reached";
    case FZ7_E_FORMAT: return "Headers Error";
    case FZ7_E_DATA: return "Data Error";
    case FZ7_E_CRC: return "CRC Failed";
    case FZ7_E_TRUNCATED: return "Unexpected end of data";
    case FZ7_E_UNSUPPORTED: return "Unsupported Method";
    case FZ7_E_PASSWORD: return "Data Error in encrypted file. Wrong password?";
    case FZ7_E_NEED_PASSWORD: return "Cannot open encrypted archive. Wrong password?";
    case FZ7_E_IO: return "I/O error";
    case FZ7_E_ARG: return "Invalid argument";
    case FZ7_E_TAIL: return "There are some data after the end of the payload data";
    case FZ7_E_WRONG_PASSWORD: return "Wrong password";
    }
    return "Unknown error";
}

fz7_status fz7_istream_read_upto(fz7_istream *s, uint8_t *buf, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        size_t k = 0;
        fz7_status st = s->read(s, buf + *got, n - *got, &k);
        if (st != FZ7_OK)
            return st;
        if (k == 0)
            break;
        *got += k;
    }
    return FZ7_OK;
}

fz7_status fz7_istream_read_full(fz7_istream *s, uint8_t *buf, size_t n)
{
    size_t got;
    fz7_status st = fz7_istream_read_upto(s, buf, n, &got);
    return st != FZ7_OK ? st : got < n ? FZ7_E_TRUNCATED : FZ7_OK;
}

void fz7_istream_free(fz7_istream *s)
{
    if (s)
        s->destroy(s);
}

typedef struct {
    fz7_istream base;
    const uint8_t *p;
    size_t left;
} mem_istream;

static fz7_status mem_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    mem_istream *m = (mem_istream *)s;
    size_t n = cap < m->left ? cap : m->left;
    if (n)
        memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    *got = n;
    return FZ7_OK;
}

static void mem_destroy(fz7_istream *s) { free(s); }

fz7_istream *fz7_istream_from_memory(const uint8_t *buf, size_t n)
{
    mem_istream *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    m->base.read = mem_read;
    m->base.destroy = mem_destroy;
    m->p = buf;
    m->left = n;
    return &m->base;
}

void fz7_membuf_init(fz7_membuf *m)
{
    *m = (fz7_membuf){{fz7_membuf_write}, NULL, 0, 0};
}

fz7_status fz7_membuf_write(fz7_ostream *s, const uint8_t *buf, size_t n)
{
    fz7_membuf *m = (fz7_membuf *)s;
    if (n > m->cap - m->n) {
        size_t cap = m->cap ? m->cap : 256;
        while (cap - m->n < n) {
            if (cap > SIZE_MAX / 2)
                return FZ7_E_MEM;
            cap *= 2;
        }
        uint8_t *p = realloc(m->p, cap);
        if (!p)
            return FZ7_E_MEM;
        m->p = p;
        m->cap = cap;
    }
    if (n > 0)
        memcpy(m->p + m->n, buf, n);
    m->n += n;
    return FZ7_OK;
}

void fz7_membuf_free(fz7_membuf *m)
{
    free(m->p);
    m->p = NULL;
    m->n = m->cap = 0;
}

size_t fz7_utf8_put(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}
