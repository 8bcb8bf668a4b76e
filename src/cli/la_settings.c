/* la_settings.c - the -m switches of `a` and `u` for a tar, zip, gzip or
 * bzip2 archive, read as 7zz 26 reads them for each of those formats
 * (settings.h). What 7zz takes, fz7 does; what fz7's writers for these
 * formats cannot do is refused with a reason, never taken and ignored. */
#include "cli/settings.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One -m entry split: name (letters, or a coder's number), value (after
 * '=', or the rest: "-mtc-" has "-"). */
typedef struct la_param {
    char name[16];
    const char *value;
} la_param;

static bool split_param(const char *m, la_param *p)
{
    size_t n = 0;
    if (isdigit((unsigned char)m[0]))
        while (isdigit((unsigned char)m[n]))
            n++;
    else
        while (isalpha((unsigned char)m[n]))
            n++;
    if (n == 0 || n >= sizeof p->name)
        return false;
    memcpy(p->name, m, n);
    p->name[n] = 0;
    p->value = m[n] == '=' ? m + n + 1 : m + n;
    return true;
}

/* on/off as 7zz spells them: "", "+", "on" or "-", "off". -1 otherwise. */
static int onoff(const char *v)
{
    if (!*v || !strcmp(v, "+") || !strcasecmp(v, "on"))
        return 1;
    if (!strcmp(v, "-") || !strcasecmp(v, "off"))
        return 0;
    return -1;
}

static fz7_status refuse(char *why, size_t whylen, const char *fmt, const char *arg)
{
    snprintf(why, whylen, fmt, arg);
    return FZ7_E_ARG;
}

/* A coder's parameter as 7zz reads its value: 's' a size, 'n' a number or nothing,
 * 'b' on/off, 't' any text; 0 for a name that is no coder's parameter. */
static char coder_param_type(const char *name)
{
    static const struct {
        const char *name;
        char type;
    } params[] = {{"d", 's'},  {"mem", 's'}, {"c", 's'},  {"o", 'n'}, {"pb", 'n'},  {"lc", 'n'},
                  {"lp", 'n'}, {"fb", 'n'},  {"mc", 'n'}, {"a", 'n'}, {"eos", 'b'}, {"mf", 't'}};
    for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
        if (!strcasecmp(name, params[k].name))
            return params[k].type;
    return 0;
}

/* True when p is a coder's parameter with a value 7zz refuses as it reads
 * the switch (before any coder sees it). */
static bool coder_value_bad(const la_param *p)
{
    uint64_t bytes;
    uint32_t n;
    switch (coder_param_type(p->name)) {
    case 's': return !fz7_settings_parse_size(p->value, &bytes);
    case 'n': return p->value[0] && !fz7_settings_parse_u32(p->value, &n);   /* empty: the default */
    case 'b': return onoff(p->value) < 0;
    default: return false;
    }
}

/* A time switch: tm, tc, ta take on/off, tp a number. gzip stores only
 * an mtime: 7zz refuses tc and ta turned on there; a zip keeps tc and ta
 * in its NTFS field. */
static fz7_status time_param(fz7_la_kind kind, const la_param *p, fz7_la_opts *w, bool *known)
{
    *known = true;
    uint32_t n;
    if (!strcasecmp(p->name, "tp")) {
        /* the time's precision: a zip takes 1 (Unix seconds) and 2 (DOS
         * time alone); a tar's headers hold seconds whatever it is */
        if (!p->value[0])
            return FZ7_OK;   /* 7zz: the default */
        if (!fz7_settings_parse_u32(p->value, &n))
            return FZ7_E_ARG;
        if (kind == FZ7_LA_GZIP && n != 0 && n != 1 && n != 3)
            return FZ7_E_ARG;   /* 7zz's gzip: Windows, Unix or Linux time (its mtime is Unix seconds) */
        w->zip_time_prec = n == 1 ? FZ7_ZIP_TIME_UNIX : n == 2 ? FZ7_ZIP_TIME_DOS : FZ7_ZIP_TIME_NTFS;
        w->tar_time_unit = n == 0 ? 100 : n == 3 ? 1 : 0;
        return FZ7_OK;
    }
    int on = onoff(p->value);
    bool m = !strcasecmp(p->name, "tm"), c = !strcasecmp(p->name, "tc"), a = !strcasecmp(p->name, "ta");
    if (!m && !c && !a) {
        *known = false;
        return FZ7_OK;
    }
    if (on < 0 || (kind == FZ7_LA_GZIP && !m && on))
        return FZ7_E_ARG;
    if (m)
        w->no_mtime = !on;
    /* tar: 7zz's GNU headers keep the mtime alone, whatever tc and ta say;
     * zip: the NTFS field holds them */
    if (c)
        w->zip_ctime = (kind == FZ7_LA_ZIP || kind == FZ7_LA_TAR) && on;
    if (a)
        w->zip_atime = (kind == FZ7_LA_ZIP || kind == FZ7_LA_TAR) && on;
    return FZ7_OK;
}

/* gzip's and zip's Deflate parameters (settings.c reads fb=, mc= and
 * pass= for both 7z's Deflate and these); false for another name. */
static bool deflate_param(const la_param *p, fz7_deflate_enc_opts *d, fz7_status *st)
{
    bool bad = false;
    if (fz7_settings_deflate_param(d, p->name, strlen(p->name), p->value, &bad)) {
        *st = bad ? FZ7_E_ARG : FZ7_OK;
        return true;
    }
    if (strcasecmp(p->name, "a") != 0)
        return false;
    uint32_t n;
    *st = fz7_settings_parse_u32(p->value, &n) ? FZ7_OK : FZ7_E_ARG;
    if (*st == FZ7_OK)
        d->parse = n ? FZ7_DEFLATE_PARSE_OPTIMAL : FZ7_DEFLATE_PARSE_FAST;
    return true;
}

/* LZMA's parameters in a zip: kept, one slot a name, for the LZMA and xz
 * methods (checked once the method is known). */
static bool zip_lzma_param(const la_param *p, fz7_la_opts *w)
{
    static const char *const names[] = {"lc", "lp", "pb", "mf", "fb", "mc", "a"};
    unsigned k = 0;
    while (k < sizeof names / sizeof *names && strcasecmp(p->name, names[k]) != 0)
        k++;
    if (k == sizeof names / sizeof *names)
        return false;
    unsigned slot = 0;
    while (slot < w->n_zip_lzma_params && strncasecmp(w->zip_lzma_params[slot], p->name, strlen(p->name)) != 0)
        slot++;
    snprintf(w->zip_lzma_params[slot], sizeof w->zip_lzma_params[slot], "%s=%s", names[k], p->value);
    if (slot == w->n_zip_lzma_params)
        w->n_zip_lzma_params++;
    return true;
}

/* The kept LZMA parameters against the zip's method, as 7zz's coders take
 * them as they start: LZMA takes them all, xz (LZMA2) with lc + lp <= 4,
 * Copy ignores them, Deflate takes fb, mc and a, BZip2 none. */
static fz7_status zip_lzma_params_check(const fz7_la_opts *w, bool eos_given, bool *late, char *why,
                                        size_t whylen)
{
    fz7_zip_method m = w->zip_method;
    if (m == FZ7_ZIP_COPY || w->level == 0)
        return FZ7_OK;
    fz7_lzma_enc_opts o;
    fz7_lzma_enc_preset(&o, 5);
    for (unsigned k = 0; k < w->n_zip_lzma_params; k++) {
        const char *kv = w->zip_lzma_params[k];
        bool deflate_too = !strncmp(kv, "fb=", 3) || !strncmp(kv, "mc=", 3) || !strncmp(kv, "a=", 2);
        if ((m == FZ7_ZIP_DEFLATE || m == FZ7_ZIP_DEFLATE64) && deflate_too)
            continue;
        *late = true;
        if (m != FZ7_ZIP_LZMA && m != FZ7_ZIP_XZ)
            return refuse(why, whylen, "unsupported parameter: -m%s", kv);
        if (fz7_lzma_enc_parse_param(&o, kv) != FZ7_OK)
            return refuse(why, whylen, "unsupported value: -m%s", kv);
    }
    *late = true;
    if (m == FZ7_ZIP_XZ && o.lc + o.lp > 4)
        return refuse(why, whylen, "%s", "lc + lp above 4: xz's LZMA2 cannot take it");
    if (eos_given && m != FZ7_ZIP_LZMA)
        return refuse(why, whylen, "%s", "unsupported parameter: -meos");
    *late = false;
    return FZ7_OK;
}

static fz7_status settings_make(const struct fz7_options *o, fz7_la_kind kind, fz7_la_opts *w, bool *late,
                                char *why, size_t whylen)
{
    memset(w, 0, sizeof *w);
    w->level = o->level;
    *late = false;
    why[0] = 0;
    /* -mhe, -mhc and -ms are 7z's; -mf (filters) only zip takes, and
     * has none to apply. */
    if (o->header_encrypt != FZ7_UNSET || o->header_compress != FZ7_UNSET || o->solid)
        return refuse(why, whylen, "%s", "-mhe, -mhc and -ms are 7z switches");
    if (o->filters && kind != FZ7_LA_ZIP)
        return refuse(why, whylen, "%s", "-mf is a 7z and zip switch");
    const char *em = NULL, *method = NULL, *dict = NULL;
    bool eos_given = false, pass_given = false;
    unsigned ppmd_given = 0;   /* bit 0: o=, bit 1: mem= */
    uint32_t ppmd_order = 0;
    uint64_t ppmd_mem = 0;
    const char *deflate_bad = NULL;   /* a zip's Deflate parameter Deflate cannot take */
    bool deflate_bad_empty = false;   /* ... given with no value */
    for (size_t i = 0; i < o->n_methods; i++) {
        la_param p;
        if (!split_param(o->methods[i], &p)) {
            *late = !o->methods[i][0];   /* an empty one after a zip's method: its coder's to refuse */
            return refuse(why, whylen, "unsupported parameter: -m%s", o->methods[i]);
        }
        bool known = false;
        fz7_status st = FZ7_OK;
        uint32_t n;
        if (kind != FZ7_LA_BZIP2)
            st = time_param(kind, &p, w, &known);
        if (known) {
            if (st != FZ7_OK)
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            continue;
        }
        if (kind == FZ7_LA_ZIP && !strcasecmp(p.name, "x")) {
            /* a level after the method (-m0=Deflate:x=9), 7zz's -mx9 */
            if (!fz7_settings_parse_u32(p.value, &n))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            w->level = n > 9 ? 9 : (int)n;
            continue;
        }
        if (kind == FZ7_LA_ZIP && !strcasecmp(p.name, "mt")) {
            /* the method's threads (-m0=Deflate:mt=2): the output does not depend on them */
            if (!fz7_settings_parse_u32(p.value, &n))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            continue;
        }
        if (kind == FZ7_LA_ZIP && (!strcasecmp(p.name, "o") || !strcasecmp(p.name, "mem"))) {
            /* PPMd's order and model size; empty o= is 0, a bare mem=N 2^N */
            uint64_t bytes = 0;
            bool order = !strcasecmp(p.name, "o");
            if (order ? p.value[0] && !fz7_settings_parse_u32(p.value, &n) : !fz7_settings_parse_size(p.value, &bytes))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            if (order)
                ppmd_order = p.value[0] ? n : 0;
            else
                ppmd_mem = bytes;
            ppmd_given |= order ? 1u : 2u;
            continue;
        }
        if (kind == FZ7_LA_ZIP && !strcasecmp(p.name, "eos")) {
            int on = onoff(p.value);
            if (on < 0)
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            w->zip_lzma_no_eos = !on;
            eos_given = true;
            continue;
        }
        if (kind == FZ7_LA_ZIP && zip_lzma_param(&p, w)) {
            if (coder_value_bad(&p))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            if (strcasecmp(p.name, "fb") != 0 && strcasecmp(p.name, "mc") != 0 && strcasecmp(p.name, "a") != 0)
                continue;   /* (fb, mc and a are Deflate's too: read for it below) */
        }
        if ((kind == FZ7_LA_GZIP || kind == FZ7_LA_ZIP) && deflate_param(&p, &w->deflate, &st)) {
            if (kind == FZ7_LA_ZIP) {
                /* whether the method takes it is known at the end */
                if (!strcasecmp(p.name, "pass"))
                    pass_given = true;
                if (st != FZ7_OK && !deflate_bad) {
                    deflate_bad = o->methods[i];
                    deflate_bad_empty = !p.value[0];
                }
                continue;
            }
            if (st != FZ7_OK) {
                *late = !p.value[0];   /* empty: read as the default, which Deflate refuses */
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            }
            continue;
        }
        if (kind == FZ7_LA_BZIP2 && !strcasecmp(p.name, "pass")) {
            /* taken as for the 7z BZip2 method: libbz2 has no such setting (man fz7) */
            if (!fz7_settings_parse_u32(p.value, &n))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            continue;
        }
        if (kind == FZ7_LA_BZIP2 && !strcasecmp(p.name, "d")) {
            uint64_t bytes;
            if (!fz7_settings_parse_size(p.value, &bytes))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            w->bzip2_block = fz7_settings_bzip2_block(bytes);
            continue;
        }
        /* 7zz takes -mm= for gzip and bzip2 and keeps to the format's own */
        if ((kind == FZ7_LA_GZIP || kind == FZ7_LA_BZIP2) && !strcasecmp(p.name, "m"))
            continue;
        if (kind == FZ7_LA_TAR && !strcasecmp(p.name, "m")) {
            /* 7zz's two tar kinds: GNU's headers (its default), POSIX's with pax records */
            if (!strcasecmp(p.value, "gnu"))
                w->tar_posix = false;
            else if (!strcasecmp(p.value, "posix") || !strcasecmp(p.value, "pax"))
                w->tar_posix = true;
            else
                return refuse(why, whylen, "unsupported tar format: -m%s (GNU or POSIX)", o->methods[i]);
            continue;
        }
        if ((kind == FZ7_LA_TAR || kind == FZ7_LA_ZIP) && !strcasecmp(p.name, "cp")) {
            /* 7zz on Linux writes names in UTF-8 whatever the code page (it
             * converts to none other), and so does fz7; nothing is OEM's */
            if (p.value[0] && !fz7_settings_parse_u32(p.value, &n))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            continue;
        }
        if (kind == FZ7_LA_ZIP) {
            if (!strcasecmp(p.name, "m") || !strcmp(p.name, "0")) {
                method = p.value;
                continue;
            }
            if (!strcasecmp(p.name, "em")) {
                em = p.value;
                continue;
            }
            if (!strcasecmp(p.name, "cu") || !strcasecmp(p.name, "cl")) {
                int on = onoff(p.value);
                if (on < 0)
                    return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
                /* names are UTF-8 (the local code page here); cl: without
                 * the flag that says so, as 7zz writes them */
                if (!strcasecmp(p.name, "cl"))
                    w->zip_local_names = on;
                continue;
            }
            if (!strcasecmp(p.name, "yx")) {   /* the filter's level: no filter in a zip */
                if (!fz7_settings_parse_u32(p.value, &n))
                    return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
                continue;
            }
        }
        if (kind == FZ7_LA_ZIP && !strcasecmp(p.name, "d")) {
            dict = o->methods[i];   /* the method's, once it is known */
            continue;
        }
        /* Taken and unused, as 7zz takes them: xz's check (a number) by
         * zip, gzip and bzip2, and mtf (any value) by tar, gzip and bzip2. */
        if (kind != FZ7_LA_TAR && !strcasecmp(p.name, "check")) {
            if (p.value[0] && !fz7_settings_parse_u32(p.value, &n))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            continue;
        }
        if (kind != FZ7_LA_ZIP && !strcasecmp(p.name, "mtf"))
            continue;
        /* A coder's parameter that gzip's, bzip2's or zip's coder does not
         * take: 7zz reads its value, and the coder refuses it as it starts. */
        if (kind != FZ7_LA_TAR && coder_param_type(p.name)) {
            if (coder_value_bad(&p))
                return refuse(why, whylen, "unsupported value: -m%s", o->methods[i]);
            *late = true;
        }
        return refuse(why, whylen, "unsupported parameter: -m%s", o->methods[i]);
    }
    if (method) {
        if (!strcasecmp(method, "Copy") || !strcasecmp(method, "Store")) {
            w->zip_method = FZ7_ZIP_COPY;
        } else if (!strcasecmp(method, "Deflate64")) {
            w->zip_method = FZ7_ZIP_DEFLATE64;
        } else if (!strcasecmp(method, "BZip2")) {
            w->zip_method = FZ7_ZIP_BZIP2;
        } else if (!strcasecmp(method, "LZMA")) {
            w->zip_method = FZ7_ZIP_LZMA;
        } else if (!strcasecmp(method, "xz")) {
            w->zip_method = FZ7_ZIP_XZ;
        } else if (!strcasecmp(method, "PPMd")) {
            w->zip_method = FZ7_ZIP_PPMD;
        } else if (strcasecmp(method, "Deflate") != 0) {
            *late = true;   /* 7zz: after "Add new data", E_NOTIMPL for an unknown one */
            refuse(why, whylen, "unknown method: %s", method);
            return FZ7_E_UNSUPPORTED;   /* 7zz: E_NOTIMPL */
        }
    }
    /* -mx0 stores, but a method named with -mm is still used, at the
     * settings of its lowest level (7zz's coders take 0 as they take 1) */
    if (method && kind == FZ7_LA_ZIP && w->level == 0 && w->zip_method != FZ7_ZIP_COPY)
        w->level = 1;
    if (dict) {
        /* a zip's d=: LZMA's and xz's dictionary, BZip2's block; Deflate
         * has none (7zz refuses it as its encoder starts) */
        uint64_t bytes;
        if (!fz7_settings_parse_size(dict + 1 + (dict[1] == '='), &bytes) || bytes > UINT32_MAX)
            return refuse(why, whylen, "unsupported value: -m%s", dict);
        if (w->zip_method != FZ7_ZIP_LZMA && w->zip_method != FZ7_ZIP_XZ && w->zip_method != FZ7_ZIP_BZIP2) {
            *late = true;
            return refuse(why, whylen, "unsupported parameter: -m%s", dict);
        }
        if (w->zip_method == FZ7_ZIP_BZIP2)
            w->bzip2_block = fz7_settings_bzip2_block(bytes);
        else
            w->zip_dict = (uint32_t)bytes;
    }
    if (kind == FZ7_LA_ZIP) {
        bool deflate = w->zip_method == FZ7_ZIP_DEFLATE || w->zip_method == FZ7_ZIP_DEFLATE64;
        if (deflate && deflate_bad) {
            *late = deflate_bad_empty;   /* empty: as in gzip */
            return refuse(why, whylen, "unsupported value: -m%s", deflate_bad);
        }
        if (pass_given && w->level != 0 && (w->zip_method == FZ7_ZIP_LZMA || w->zip_method == FZ7_ZIP_XZ)) {
            *late = true;
            return refuse(why, whylen, "%s", "unsupported parameter: -mpass (LZMA has no passes)");
        }
        fz7_status st = zip_lzma_params_check(w, eos_given, late, why, whylen);
        if (st != FZ7_OK)
            return st;
        /* o= and mem=: PPMd's (its coder refuses them out of range), ignored by Copy */
        if (ppmd_given && w->zip_method != FZ7_ZIP_COPY && w->level != 0) {
            *late = true;
            if (w->zip_method != FZ7_ZIP_PPMD)
                return refuse(why, whylen, "%s", "unsupported parameter: -mo / -mmem (PPMd's)");
            if (((ppmd_given & 1) && (ppmd_order < FZ7_PPMD8_ORDER_MIN || ppmd_order > FZ7_PPMD8_ORDER_MAX)) ||
                ((ppmd_given & 2) && (ppmd_mem < ((uint64_t)1 << 20) || ppmd_mem > FZ7_PPMD8_MEM_MAX)))
                return refuse(why, whylen, "%s", "unsupported value: PPMd takes o=2..16 and mem=1m..256m");
            *late = false;
            if (ppmd_given & 1)
                w->zip_ppmd_order = ppmd_order;
            if (ppmd_given & 2)
                w->zip_ppmd_mem = (uint32_t)(ppmd_mem >> 20 << 20);   /* whole MiB, as the props keep it */
        }
    }
    if (em) {
        /* 7zz's spellings: AES alone is AES-256 */
        static const struct { const char *name; fz7_la_crypt c; } ciphers[] = {
            {"ZipCrypto", FZ7_LA_CRYPT_ZIPCRYPTO}, {"AES256", FZ7_LA_CRYPT_AES256},
            {"AES192", FZ7_LA_CRYPT_AES192},       {"AES128", FZ7_LA_CRYPT_AES128},
            {"AES-256", FZ7_LA_CRYPT_AES256},      {"AES-192", FZ7_LA_CRYPT_AES192},
            {"AES-128", FZ7_LA_CRYPT_AES128},      {"AES", FZ7_LA_CRYPT_AES256}};
        for (size_t k = 0; k < sizeof ciphers / sizeof *ciphers && !w->crypt; k++)
            if (!strcasecmp(em, ciphers[k].name))
                w->crypt = ciphers[k].c;
        if (!w->crypt)
            return refuse(why, whylen, "unknown cipher: -mem=%s", em);
    }
    return FZ7_OK;
}

/* A zip's -m0=Name:p1:p2 (or -mm=): 7zz reads each parameter after the
 * method as the -m switch of that name (-m0=Deflate:x=1 is -mm=Deflate
 * -mx1), so the list is spelled out that way first. */
static char **spell_out(const struct fz7_options *o, size_t *n)
{
    size_t cap = o->n_methods, k = 0;
    for (size_t i = 0; i < o->n_methods; i++)
        for (const char *c = strchr(o->methods[i], ':'); c; c = strchr(c + 1, ':'))
            cap++;
    char **out = calloc(cap ? cap : 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < o->n_methods; i++) {
        const char *m = o->methods[i];
        la_param p;
        const char *colon = strchr(m, ':');
        bool method = split_param(m, &p) && (!strcasecmp(p.name, "m") || !strcmp(p.name, "0")) && colon &&
                      colon > p.value;
        if (!method) {
            out[k++] = strdup(m);
            continue;
        }
        out[k++] = strndup(m, (size_t)(colon - m));
        if (!colon[1])
            continue;   /* 7zz takes "Name:", not "Name:x=1:" nor "Name::x=1" */
        while (colon) {
            const char *next = strchr(colon + 1, ':');
            out[k++] = next ? strndup(colon + 1, (size_t)(next - colon - 1)) : strdup(colon + 1);
            colon = next;
        }
    }
    *n = k;
    for (size_t i = 0; i < k; i++)
        if (!out[i]) {
            for (size_t j = 0; j < k; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
    return out;
}

fz7_status fz7_la_settings_make(const struct fz7_options *o, fz7_la_kind kind, fz7_la_opts *w, bool *late,
                                char *why, size_t whylen)
{
    if (kind != FZ7_LA_ZIP)
        return settings_make(o, kind, w, late, why, whylen);
    struct fz7_options spelled = *o;
    spelled.methods = spell_out(o, &spelled.n_methods);
    if (!spelled.methods) {
        *late = false;
        return refuse(why, whylen, "%s", "out of memory");
    }
    fz7_status st = settings_make(&spelled, kind, w, late, why, whylen);
    for (size_t i = 0; i < spelled.n_methods; i++)
        free(spelled.methods[i]);
    free(spelled.methods);
    return st;
}
