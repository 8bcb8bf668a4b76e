/* settings.c - the -m switches read once into fz7_settings, and the
 * folders new files go into, for `a`, `u` and `d` alike (so an updated
 * archive is compressed as `a` would compress it). */
#include "cli/settings.h"

#include "cli/cli.h"
#include "codec/codec.h"
#include "format/archive.h"
#include "lzma/lzma_presets.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the switches ------------------------------------------------------- */

/* The -mx level from which x86 executables get BCJ2 instead of BCJ: 5,
 * three levels before 7zz 26 (which switches at -mx8). It pays there:
 * BCJ2 gives smaller archives than BCJ in less CPU time, and 7zz reads
 * them. */
#define BCJ2_FROM_LEVEL 5

/* 7zz 26's level for BCJ2 by default, kept for PPMd and Deflate. */
#define OTHER_BCJ2_FROM_LEVEL 8

/* The smallest PPMd model 7zz writes (mem=16: 64 KiB). */
#define FZ7_PPMD_MEM_MIN ((uint32_t)1 << 16)

/* The branch filters by 7-Zip's names: 7z method ID and instruction set. */
static const struct { const char *name; uint32_t id; fz7_bcj_arch arch; } branch_filters[] = {
    {"PPC", 0x03030205, FZ7_BCJ_PPC}, {"IA64", 0x03030401, FZ7_BCJ_IA64},
    {"ARM", 0x03030501, FZ7_BCJ_ARM}, {"ARMT", 0x03030701, FZ7_BCJ_ARMT},
    {"SPARC", 0x03030805, FZ7_BCJ_SPARC}, {"ARM64", 0x0A, FZ7_BCJ_ARM64},
    {"RISCV", 0x0B, FZ7_BCJ_RISCV},
};

/* The 7z method ID of a branch filter named name[0..n) (PPC, IA64, ARM,
 * ARMT, SPARC, ARM64, RISCV), 0 for any other name. */
static uint32_t fz7_branch_filter_id(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof branch_filters / sizeof branch_filters[0]; i++)
        if (strlen(branch_filters[i].name) == n && strncasecmp(name, branch_filters[i].name, n) == 0)
            return branch_filters[i].id;
    return 0;
}

/* A branch filter with 7zz's start offset after its name ("ARM64",
 * "RISCV:4096"): its method ID, 0 when spec names none (a name alone,
 * or with any other parameter). *start gets the offset, 0 without one;
 * *bad is set for an offset 7zz's coder refuses: only ARM64 and RISCV
 * take one, decimal, a multiple of the instruction size. */
static uint32_t branch_with_start(const char *spec, uint32_t *start, bool *bad)
{
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    uint32_t id = fz7_branch_filter_id(spec, n);
    *start = 0;
    *bad = false;
    if (!id || !colon)
        return colon ? 0 : id;
    const char *v = colon + 1;
    size_t digits = strspn(v, "0123456789");
    if (digits == 0 || v[digits] != 0)
        return 0;
    unsigned long long x = strtoull(v, NULL, 10);
    fz7_bcj_arch arch = fz7_settings_branch_arch(id);
    *bad = (arch != FZ7_BCJ_ARM64 && arch != FZ7_BCJ_RISCV) || x > UINT32_MAX ||
           x % fz7_bcj_risc_alignment(arch) != 0;
    *start = *bad ? 0 : (uint32_t)x;
    return id;
}

fz7_bcj_arch fz7_settings_branch_arch(uint32_t id)
{
    for (size_t i = 0; i < sizeof branch_filters / sizeof branch_filters[0]; i++)
        if (branch_filters[i].id == id)
            return branch_filters[i].arch;
    return FZ7_BCJ_ARM64;
}

static bool method_named(const char *name, size_t n, const char *want)
{
    return strlen(want) == n && strncasecmp(name, want, n) == 0;
}

/* The LZMA/LZMA2 parameters 7zz knows (a bad value for one is the
 * coder's refusal; an unknown name is refused before). */
static bool lzma_param_name(const char *name, size_t n)
{
    static const char *const names[] = {"d", "fb", "lc", "lp", "pb", "mc", "a", "eos", "mf"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (method_named(name, n, names[i]))
            return true;
    return false;
}

/* A size as 7zz's -m parameters take it (d=, mem=, c=): bytes with a b,
 * k, m or g suffix (powers of 1024), or a bare number N for 2^N bytes (as
 * 7-Zip documents it). false when the value does not fit in 64 bits (a
 * bare N above 63): 7zz refuses those as it reads the switch, and leaves
 * sizes too large for a coder to the coder. */
bool fz7_settings_parse_size(const char *val, uint64_t *bytes)
{
    char *end;
    if (val[0] < '0' || val[0] > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno == ERANGE || strlen(end) > 1)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 0:
        if (v > 63)
            return false;
        *bytes = 1ull << v;
        return true;
    case 'b': case 'B': shift = 0; break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return false;
    }
    if (v > UINT64_MAX >> shift)
        return false;
    *bytes = (uint64_t)v << shift;
    return true;
}

int fz7_settings_bzip2_block(uint64_t bytes)
{
    uint64_t block = bytes / 100000;
    return block < 1 ? 1 : block > 9 ? 9 : (int)block;
}

/* A PPMd parameter as 7zz takes it: o=2..32 (model order) and mem= (model
 * memory: bytes with a b/k/m/g suffix, or a bare N for 2^N; at
 * least 64 KiB). FZ7_E_ARG for a bad value; *known false for another name. */
static fz7_status parse_ppmd_param(fz7_settings *s, const char *name, size_t nlen, const char *val,
                                   bool *known)
{
    char *end;
    unsigned long long v = strtoull(val, &end, 10);
    bool number = end != val && val[0] >= '0' && val[0] <= '9';
    *known = true;
    if (method_named(name, nlen, "o")) {
        if (!number || *end || v < FZ7_PPMD7_ENC_ORDER_MIN || v > FZ7_PPMD7_ENC_ORDER_MAX)
            return FZ7_E_ARG;
        s->ppmd_order = (unsigned)v;
    } else if (method_named(name, nlen, "mem")) {
        uint64_t bytes;
        if (!fz7_settings_parse_size(val, &bytes) || bytes < FZ7_PPMD_MEM_MIN || bytes > FZ7_PPMD7_ENC_MEM_MAX ||
            bytes % 4)   /* 7zz's PPMd takes whole 32-bit words */
            return FZ7_E_ARG;
        s->ppmd_mem = (uint32_t)bytes;
    } else {
        *known = false;
        return FZ7_OK;
    }
    s->ppmd_param = true;
    return FZ7_OK;
}

/* A decimal number of 32 bits, as 7zz reads a numeric parameter: false
 * for anything else (nothing, a sign, a suffix, 2^32 or more). */
bool fz7_settings_parse_u32(const char *val, uint32_t *v)
{
    uint64_t n = 0;
    for (const char *p = val; *p; p++)
        if (*p < '0' || *p > '9' || (n = n * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
            return false;
    *v = (uint32_t)n;
    return val[0] != 0;
}

bool fz7_settings_deflate_param(fz7_deflate_enc_opts *d, const char *name, size_t nlen, const char *val, bool *bad)
{
    uint32_t *field = method_named(name, nlen, "fb")     ? &d->nice_len
                      : method_named(name, nlen, "mc")   ? &d->depth
                      : method_named(name, nlen, "pass") ? &d->passes
                                                         : NULL;
    *bad = field && !fz7_settings_parse_u32(val, field);
    /* 7zz takes fb=0..2 as the shortest match (0 would mean: by the level) */
    if (field == &d->nice_len && !*bad && *field < 3)
        *field = 3;
    return field != NULL;
}

/* The parameters 7zz knows after -mN=METHOD:, by the kind of value each
 * takes, and the methods whose coder takes it. 7zz reads one in two
 * steps. First, before "Add new data to archive": the name (the letters
 * before '=', or before the first digit: d24 is d=24) must be known and
 * the value of its kind (an empty number is left to the coder). Then the
 * coder, after that line, refuses a name it does not take and a value it
 * cannot. */
enum param_kind {
    PARAM_NUMBER,   /* a decimal number of 32 bits */
    PARAM_SIZE,     /* bytes: 1m, 64k, a bare N for 2^N (parse_7z_size) */
    PARAM_TEXT,     /* any text (mf=) */
    PARAM_SWITCH    /* on, off, + or - (nothing: on) */
};
#define BY(m) (1u << (m))
#define BY_LZMA (BY(FZ7_7Z_LZMA) | BY(FZ7_7Z_LZMA2))
#define BY_DEFLATE (BY(FZ7_7Z_DEFLATE) | BY(FZ7_7Z_DEFLATE64))
#define BY_ANY_CODER (BY_LZMA | BY_DEFLATE | BY(FZ7_7Z_BZIP2) | BY(FZ7_7Z_PPMD))
static const struct coder_param {
    const char *name;
    enum param_kind kind;
    unsigned methods;   /* BY(method) for each method whose coder takes it */
} coder_params[] = {
    {"x", PARAM_NUMBER, BY_ANY_CODER},    {"mt", PARAM_NUMBER, BY_ANY_CODER},
    {"d", PARAM_SIZE, BY_LZMA | BY(FZ7_7Z_BZIP2)},
    {"mem", PARAM_SIZE, BY(FZ7_7Z_PPMD)}, {"o", PARAM_NUMBER, BY(FZ7_7Z_PPMD)},
    {"c", PARAM_SIZE, BY(FZ7_7Z_LZMA2)},
    /* 7zz's coders but Copy take b= and write the same bytes with it */
    {"b", PARAM_SIZE, BY_ANY_CODER},
    {"pass", PARAM_NUMBER, BY_DEFLATE | BY(FZ7_7Z_BZIP2)},
    {"fb", PARAM_NUMBER, BY_LZMA | BY_DEFLATE}, {"mc", PARAM_NUMBER, BY_LZMA | BY_DEFLATE},
    {"a", PARAM_NUMBER, BY_LZMA | BY_DEFLATE},  {"mf", PARAM_TEXT, BY_LZMA},
    {"lc", PARAM_NUMBER, BY_LZMA}, {"lp", PARAM_NUMBER, BY_LZMA}, {"pb", PARAM_NUMBER, BY_LZMA},
    {"eos", PARAM_SWITCH, BY(FZ7_7Z_LZMA)},
};

static const struct coder_param *coder_param_named(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof coder_params / sizeof coder_params[0]; i++)
        if (method_named(name, n, coder_params[i].name))
            return &coder_params[i];
    return NULL;
}

/* True when val is no value of cp's kind (7zz's first step); a number in
 * *n, a size in *bytes. */
static bool param_value_bad(const struct coder_param *cp, const char *val, uint32_t *n, uint64_t *bytes)
{
    switch (cp->kind) {
    case PARAM_NUMBER: return val[0] && !fz7_settings_parse_u32(val, n);
    case PARAM_SIZE: return !fz7_settings_parse_size(val, bytes);
    case PARAM_SWITCH:
        return val[0] && strcasecmp(val, "on") && strcasecmp(val, "off") && strcmp(val, "+") && strcmp(val, "-");
    case PARAM_TEXT: break;
    }
    return false;
}

/* One coder parameter p[0..plen) of the chain (-m0=METHOD:p), for
 * s->method: checked and applied as 7zz's two steps above. */
static fz7_status apply_coder_param(fz7_settings *s, const char *p, size_t plen, char *why, size_t whylen)
{
    char param[64];
    if (plen >= sizeof param) {
        snprintf(why, whylen, "unsupported parameter: %.*s", (int)plen, p);
        return FZ7_E_ARG;
    }
    memcpy(param, p, plen);
    param[plen] = 0;
    /* A bare number is the dictionary, as 7zz reads -m0=LZMA:24; the
     * other coders refuse it when they start. */
    if (plen && isdigit((unsigned char)param[0])) {
        if (s->method != FZ7_7Z_LZMA && s->method != FZ7_7Z_LZMA2) {
            snprintf(why, whylen, "unsupported parameter: %s", param);
            s->refuse_late = true;
            return FZ7_E_ARG;
        }
        if (plen + 2 >= sizeof param) {
            snprintf(why, whylen, "unsupported parameter: %s", param);
            return FZ7_E_ARG;
        }
        memmove(param + 2, param, plen + 1);
        memcpy(param, "d=", 2);
        plen += 2;
    }
    const char *eq = strchr(param, '=');
    size_t nlen = 0;
    while (nlen < plen && ((param[nlen] | 0x20) >= 'a' && (param[nlen] | 0x20) <= 'z'))
        nlen++;
    if (eq && (size_t)(eq - param) != nlen)
        nlen = plen;   /* a name with other characters: no name 7zz knows */
    const char *val = eq ? eq + 1 : param + nlen;
    const struct coder_param *cp = coder_param_named(param, nlen);
    uint32_t n = 0;
    uint64_t bytes = 0;
    bool bad = !cp || param_value_bad(cp, val, &n, &bytes);
    if (bad) {
        snprintf(why, whylen, "%s parameter: %s", cp ? "bad value of a" : "unknown", param);
        return FZ7_E_ARG;
    }
    /* From here on the coder's refusal: after "Add new data". */
    s->refuse_late = true;
    if (!(cp->methods & BY(s->method)) || (cp->kind == PARAM_NUMBER && !val[0])) {
        snprintf(why, whylen, "unsupported parameter: %s", param);
        return FZ7_E_ARG;
    }
    bool lzma = s->method == FZ7_7Z_LZMA || s->method == FZ7_7Z_LZMA2;
    bool deflate = s->method == FZ7_7Z_DEFLATE || s->method == FZ7_7Z_DEFLATE64;
    fz7_status st = FZ7_OK;
    if (method_named(param, nlen, "x")) {
        /* 7zz takes a level above 9 as 9 */
        s->coder_level = n > 9 ? 9 : (int)n;
        if (lzma)
            st = fz7_lzma_enc_preset(&s->lzma, (unsigned)s->coder_level);
    } else if (method_named(param, nlen, "mt")) {
        s->coder_threads = n ? n : 1;   /* the coder's threads, over -mmt */
    } else if (method_named(param, nlen, "c")) {
        s->lzma2_block = bytes;   /* LZMA2's block size */
    } else if (method_named(param, nlen, "b")) {
        /* taken, as 7zz's coders take it: their output does not change */
    } else if (s->method == FZ7_7Z_PPMD) {
        bool known;
        st = parse_ppmd_param(s, param, nlen, val, &known);
    } else if (s->method == FZ7_7Z_BZIP2) {
        /* pass=: 7zz's Huffman table passes; libbz2 has a fixed number of
         * its own (the man page says so) */
        if (method_named(param, nlen, "d"))
            s->bzip2_block = fz7_settings_bzip2_block(bytes);
    } else if (deflate) {
        if (method_named(param, nlen, "a"))
            s->deflate.parse = n ? FZ7_DEFLATE_PARSE_OPTIMAL : FZ7_DEFLATE_PARSE_FAST;
        else
            (void)fz7_settings_deflate_param(&s->deflate, param, nlen, val, &bad);
    } else {
        /* LZMA's own spelling of each value: name=value, eos as 0 or 1 */
        char kv[80];
        if (method_named(param, nlen, "eos"))
            snprintf(kv, sizeof kv, "eos=%d", strcasecmp(val, "off") != 0 && strcmp(val, "-") != 0);
        else
            snprintf(kv, sizeof kv, "%.*s=%s", (int)nlen, param, val);
        st = fz7_lzma_enc_parse_param(&s->lzma, kv);
        s->lzma_param = true;
    }
    if (st != FZ7_OK) {
        snprintf(why, whylen, "unsupported parameter: %s", param);
        return FZ7_E_ARG;
    }
    s->refuse_late = false;
    return FZ7_OK;
}

/* -mcrc=N as 7zz reads it: the check's size in bytes, a decimal number
 * (none: 4). An xz file takes 0, 4, 8 or 32 (none, CRC32, CRC64,
 * SHA-256); another number is refused only when the stream starts, as 7zz
 * refuses it. A 7z archive always has CRC32s: the number is ignored. */
static fz7_status parse_crc_size(fz7_settings *s, const char *val, char *why, size_t whylen)
{
    uint32_t n = 4;
    if (val[0] && !fz7_settings_parse_u32(val, &n)) {
        snprintf(why, whylen, "bad value: -mcrc=%s", val);
        return FZ7_E_ARG;
    }
    s->check_refused = false;
    if (n == 0)
        s->check = FZ7_XZ_CHECK_NONE;
    else if (n == 4)
        s->check = FZ7_XZ_CHECK_CRC32;
    else if (n == 8)
        s->check = FZ7_XZ_CHECK_CRC64;
    else if (n == 32)
        s->check = FZ7_XZ_CHECK_SHA256;
    else
        s->check_refused = s->xz;
    return FZ7_OK;
}

/* A filter's parameters (colon: NULL or the ':' before them; Delta's
 * distance already read). fz7's filters take none: a name no coder has is
 * refused as 7zz refuses it, when it reads the switch; a coder's name or a
 * bare number (a start offset to 7zz, which fz7 does not write) by the
 * coder, after "Add new data". */
static fz7_status filter_params(fz7_settings *s, const char *colon, char *why, size_t whylen)
{
    if (!colon)
        return FZ7_OK;
    const char *p = colon + 1;
    size_t nlen = 0;
    while (isalpha((unsigned char)p[nlen]))
        nlen++;
    snprintf(why, whylen, "the filter takes no parameter: %s", p);
    s->refuse_late = nlen == 0 || coder_param_named(p, nlen) != NULL;
    return FZ7_E_ARG;
}

/* One -m entry: "0=LZMA2:d=64m", "1=BCJ", "d=64m", "d24", "qs+", ...
 * *coder gets 1 for a compressor of the chain, 2 for a filter. */
static fz7_status apply_method_switch(fz7_settings *s, const char *m, int *coder, char *why,
                                      size_t whylen)
{
    const char *eq = strchr(m, '=');
    bool chain = m[0] >= '0' && m[0] <= '9' && eq && (size_t)(eq - m) <= 2;
    if (!chain) {
        /* 7zz reads a name's letters and takes what follows them as the
         * value, '=' or not (-md24, -mfb64, -mqs+): made "d=24" here, the
         * one spelling the code below reads. */
        char canon[96];
        size_t letters = 0;
        while (isalpha((unsigned char)m[letters]))
            letters++;
        if (!eq && letters && m[letters] && strlen(m) < sizeof canon - 1) {
            snprintf(canon, sizeof canon, "%.*s=%s", (int)letters, m, m + letters);
            m = canon;
            eq = m + letters;
        }
        size_t klen = eq ? (size_t)(eq - m) : strlen(m);
        const char *val = eq ? eq + 1 : "";
        if (method_named(m, klen, "crc"))
            return parse_crc_size(s, val, why, whylen);
        /* -mcheck=N: the same size, but nothing is no size at all there */
        if (method_named(m, klen, "check"))
            return parse_crc_size(s, val[0] ? val : "1", why, whylen);
        /* -mmtf: 7z's filters on threads of their own, on or off; fz7
         * runs a folder's filter in the coder's thread either way. */
        if (method_named(m, klen, "mtf") &&
            (s->xz || (val[0] && strcasecmp(val, "on") && strcasecmp(val, "off") && strcmp(val, "+") && strcmp(val, "-")))) {
            snprintf(why, whylen, "bad value: -m%s (7z's on or off)", m);
            return FZ7_E_ARG;
        }
        /* An xz file keeps no names, times or attributes: 7zz refuses
         * the 7z archive's switches for them. */
        static const char *const not_xz[] = {"tp", "tc", "ta", "tm", "tr", "qs"};
        for (size_t i = 0; s->xz && i < sizeof not_xz / sizeof not_xz[0]; i++)
            if (method_named(m, klen, not_xz[i])) {
                snprintf(why, whylen, "-m%s is for 7z archives, not xz", m);
                return FZ7_E_ARG;
            }
        /* -mtp: the timestamps' precision. A 7z archive holds 100 ns
         * (7zz's 0, also taken as 3, its "as the file system has"); 7zz
         * refuses the others for 7z before it starts. */
        if (method_named(m, klen, "tp")) {
            if (val[0] && strcmp(val, "0") && strcmp(val, "3")) {
                snprintf(why, whylen, "a 7z archive keeps timestamps in 100 ns: -m%s", m);
                return FZ7_E_ARG;
            }
            return FZ7_OK;
        }
        if (method_named(m, klen, "qs")) {
            bool off = strcasecmp(val, "off") == 0 || strcmp(val, "-") == 0;
            if (!off && val[0] && strcasecmp(val, "on") && strcmp(val, "+")) {
                snprintf(why, whylen, "bad value: -m%s (on or off)", m);
                return FZ7_E_ARG;
            }
            s->sort_by_type = !off;
            return FZ7_OK;
        }
        /* -myx: 7zz's analysis level for filters, a number; fz7 looks at
         * every file's header whatever it is. */
        if (method_named(m, klen, "yx") && val[0] && strspn(val, "0123456789") != strlen(val)) {
            snprintf(why, whylen, "bad value: -m%s (a number)", m);
            return FZ7_E_ARG;
        }
        /* -mhcf: full header compression, which 7zz takes only as on
         * (on, +, nothing) and fz7 always does. */
        if (method_named(m, klen, "hcf") && val[0] && strcasecmp(val, "on") && strcmp(val, "+")) {
            snprintf(why, whylen, "bad value: -m%s (only on)", m);
            return FZ7_E_ARG;
        }
        static const char *const ignored[] = {"yx", "mt", "mtf", "hcf", "ba"};   /* (mtf: checked above) */
        for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
            if (method_named(m, klen, ignored[i]))
                return FZ7_OK;
        /* -mtc, -mta, -mtm: which times go into FilesInfo. 7zz takes on,
         * off, + and - (and nothing: on), and refuses 0, 1 and the rest. */
        /* -mtr: the attributes, the same way. */
        static const char *const time_switch[FZ7_TIME_KINDS + 1] = {"tc", "ta", "tm", "tr"};
        for (int k = 0; k <= FZ7_TIME_KINDS; k++) {
            if (!method_named(m, klen, time_switch[k]))
                continue;
            bool on = !val[0] || strcasecmp(val, "on") == 0 || strcmp(val, "+") == 0;
            if (!on && strcasecmp(val, "off") != 0 && strcmp(val, "-") != 0) {
                snprintf(why, whylen, "bad value: -m%s", m);
                return FZ7_E_ARG;
            }
            if (k == FZ7_TIME_KINDS) {
                s->no_attrib = !on;
                return FZ7_OK;
            }
            s->store_time[k] = on;
            s->time_given[k] = true;
            return FZ7_OK;
        }
        /* A value of another kind than its name takes (-mlc=x) is
         * refused before "Add new data", as in the chain. */
        const struct coder_param *cp = coder_param_named(m, klen);
        uint32_t n;
        uint64_t bytes;
        if (cp && val[0] && param_value_bad(cp, val, &n, &bytes)) {
            snprintf(why, whylen, "bad value: -m%s", m);
            return FZ7_E_ARG;
        }
        /* -ma: LZMA's or Deflate's parser (0 fast, any other normal). */
        if (method_named(m, klen, "a") && val[0]) {
            s->deflate.parse = n ? FZ7_DEFLATE_PARSE_OPTIMAL : FZ7_DEFLATE_PARSE_FAST;
            if (fz7_lzma_enc_parse_param(&s->lzma, m) != FZ7_OK)
                s->fb_mc_bad = true;
            s->fb_mc_param = true;
            return FZ7_OK;
        }
        /* -mfb, -mmc: LZMA's or Deflate's, whichever the method is;
         * -mpass: Deflate's. A value that is no number is refused here
         * (an empty one, as 7zz, by the coder), one the method cannot take
         * by the coder. */
        bool bad;
        if (fz7_settings_deflate_param(&s->deflate, m, klen, val, &bad)) {
            if (bad) {
                snprintf(why, whylen, "bad value: -m%s", m);
                s->refuse_late = !val[0];
                return FZ7_E_ARG;
            }
            if (method_named(m, klen, "pass"))
                s->pass_param = true;
            else if (fz7_lzma_enc_parse_param(&s->lzma, m) == FZ7_OK)
                s->fb_mc_param = true;   /* LZMA's or Deflate's: known in fz7_settings_make */
            else
                s->fb_mc_bad = true;
            return FZ7_OK;
        }
        bool known;
        if (parse_ppmd_param(s, m, klen, val, &known) != FZ7_OK) {
            snprintf(why, whylen, "bad value: -m%s", m);
            s->refuse_late = true;
            return FZ7_E_ARG;
        }
        if (known)
            return FZ7_OK;
        /* -md: LZMA's dictionary or BZip2's block, whichever the method
         * is; a size LZMA cannot take is the LZMA coder's to refuse.
         * -mc: LZMA2's block size (its c=); the other coders refuse it. */
        bool d = method_named(m, klen, "d");
        if (d || method_named(m, klen, "c")) {
            uint64_t bytes;
            if (!fz7_settings_parse_size(val, &bytes)) {
                snprintf(why, whylen, "bad value: -m%s", m);
                return FZ7_E_ARG;
            }
            if (d) {
                s->d_bytes = bytes;
                s->d_lzma_bad = fz7_lzma_enc_parse_param(&s->lzma, m) != FZ7_OK;
            } else {
                s->lzma2_block = bytes;
                s->c_param = s->lzma_param_other = true;
            }
            s->lzma_param = true;
            return FZ7_OK;
        }
        /* -meos (on, off, +, -): LZMA's end marker, which LZMA2 refuses */
        char kv[16];
        if (method_named(m, klen, "eos")) {
            snprintf(kv, sizeof kv, "eos=%d", strcasecmp(val, "off") != 0 && strcmp(val, "-") != 0);
            s->eos_param = true;
        }
        if (fz7_lzma_enc_parse_param(&s->lzma, s->eos_param ? kv : m) != FZ7_OK) {
            snprintf(why, whylen, "unsupported parameter: -m%s", m);
            s->refuse_late = lzma_param_name(m, klen);
            return FZ7_E_ARG;
        }
        s->lzma_param = s->lzma_param_other = true;
        return FZ7_OK;
    }
    /* A coder of the chain, with its own parameters after ':'. */
    const char *name = eq + 1;
    if (strstr(name, "::") || (name[0] && name[strlen(name) - 1] == ':')) {
        snprintf(why, whylen, "an empty parameter in -m%s", m);
        s->refuse_late = true;   /* 7zz's coder refuses it as it starts */
        return FZ7_E_ARG;
    }
    const char *colon = strchr(name, ':');
    size_t nlen = colon ? (size_t)(colon - name) : strlen(name);
    *coder = 2;
    if (method_named(name, nlen, "LZMA2"))
        s->method = FZ7_7Z_LZMA2;
    else if (method_named(name, nlen, "LZMA"))
        s->method = FZ7_7Z_LZMA;
    else if (method_named(name, nlen, "Copy"))
        s->method = FZ7_7Z_COPY;
    else if (method_named(name, nlen, "BZip2"))
        s->method = FZ7_7Z_BZIP2;
    else if (method_named(name, nlen, "PPMd"))
        s->method = FZ7_7Z_PPMD;
    else if (method_named(name, nlen, "Deflate"))
        s->method = FZ7_7Z_DEFLATE;
    else if (method_named(name, nlen, "Deflate64"))
        s->method = FZ7_7Z_DEFLATE64;
    else if (method_named(name, nlen, "BCJ")) {
        s->bcj = 1;
        s->bcj2 = false;
        return filter_params(s, colon, why, whylen);
    } else if (method_named(name, nlen, "BCJ2")) {
        s->bcj = 1;
        s->bcj2 = s->bcj2_chain = true;
        return filter_params(s, colon, why, whylen);
    } else if (fz7_branch_filter_id(name, nlen)) {
        s->branch_id = fz7_branch_filter_id(name, nlen);
        bool bad = false;
        if (colon && branch_with_start(name, &s->branch_start, &bad)) {
            if (!bad)
                return FZ7_OK;
            snprintf(why, whylen, "bad start offset: %s", name);
            s->refuse_late = true;   /* the coder's refusal, as 7zz's */
            return FZ7_E_ARG;
        }
        return filter_params(s, colon, why, whylen);
    } else if (method_named(name, nlen, "Delta")) {
        /* The distance: a number past 32 bits is refused as 7zz reads
         * the switch, one outside 1..256 by its 7z Delta coder. */
        unsigned long long d = colon ? strtoull(colon + 1, NULL, 10) : 1;
        if (d < 1 || d > 256) {
            snprintf(why, whylen, "bad Delta distance: %s", name);
            s->refuse_late = !s->xz && d <= UINT32_MAX;
            return FZ7_E_ARG;
        }
        s->delta = (unsigned)d;
        return filter_params(s, colon ? strchr(colon + 1, ':') : NULL, why, whylen);
    } else {
        snprintf(why, whylen, "unsupported method: %.*s", (int)nlen, name);
        s->refuse_late = !s->xz;   /* 7zz's xz handler reads the chain before it starts */
        return FZ7_E_UNSUPPORTED;
    }
    *coder = 1;
    /* x= first: the level sets the coder's defaults, the other
     * parameters change them, wherever x= stands. */
    for (int round = 0; round < 2; round++) {
        for (const char *p = colon; p; p = strchr(p + 1, ':')) {
            const char *next = strchr(p + 1, ':');
            size_t plen = next ? (size_t)(next - p - 1) : strlen(p + 1);
            if (plen == 0)
                continue;
            bool level = (p[1] == 'x' || p[1] == 'X') && (plen == 1 || p[2] == '=' || (p[2] >= '0' && p[2] <= '9'));
            if (level == (round == 0)) {
                fz7_status st = apply_coder_param(s, p + 1, plen, why, whylen);
                if (st != FZ7_OK)
                    return st;
            }
        }
    }
    return FZ7_OK;
}

void fz7_settings_times_from(fz7_settings *s, const fz7_archive *old)
{
    size_t n = old ? fz7_archive_count(old) : 0;
    for (int k = 0; k < FZ7_TIME_KINDS; k++) {
        if (s->time_given[k] || !old)
            continue;
        bool any = false;
        for (size_t i = 0; i < n && !any; i++) {
            const fz7_entry *e = fz7_archive_entry(old, i);
            any = k == FZ7_TIME_C ? e->has_ctime : k == FZ7_TIME_A ? e->has_atime : e->has_mtime;
        }
        s->store_time[k] = any;
    }
}

bool fz7_settings_header_encrypted(const struct fz7_options *o, const fz7_archive *old)
{
    if (o->header_encrypt != FZ7_UNSET)
        return o->header_encrypt == FZ7_ON;
    return old && fz7_archive_get_info(old)->header_encrypted;
}

void fz7_settings_item_times(const fz7_settings *s, const fz7_tree_item *it, fz7_7z_entry_meta *m)
{
    m->has_ctime = s->store_time[FZ7_TIME_C];
    m->ctime = it->ctime;
    m->ctime_nsec = it->ctime_nsec;
    m->has_atime = s->store_time[FZ7_TIME_A];
    m->atime = it->atime;
    m->atime_nsec = it->atime_nsec;
    m->has_mtime = s->store_time[FZ7_TIME_M];
    m->no_attrib = s->no_attrib;
    m->mtime = it->mtime;
    m->mtime_nsec = it->mtime_nsec;
}

int fz7_settings_fail(fz7_status st, const char *why)
{
    if (st == FZ7_E_MEM) {
        fprintf(stderr, "\nERROR: %s\n", why);
        return FZ7_EXIT_MEMORY;
    }
    fprintf(stderr, "\nSystem ERROR:\nE_INVALIDARG : One or more arguments are invalid\n%s\n", why);
    return FZ7_EXIT_FATAL;
}

static void method_coder_opts(const fz7_settings *s, uint64_t size_hint, fz7_7z_coder_opts *c);

/* The coder of chain slot `at` (-mN=, N = at) as 7zz builds it: fresh
 * settings at s's level, then the switches without a number when at is 0
 * (7zz gives them to -m0 alone), then the slot's own -mN= switches; an
 * empty slot is LZMA2 at the level's settings. */
static fz7_status chain_coder(const fz7_settings *s, const struct fz7_options *o, long at,
                              fz7_7z_coder_opts *c, char *why, size_t whylen)
{
    fz7_settings t;
    memset(&t, 0, sizeof t);
    t.level = s->level;
    t.coder_level = -1;
    t.method = FZ7_7Z_LZMA2;
    fz7_status st = fz7_lzma_enc_preset(&t.lzma, (unsigned)t.level);
    int coder = 0;
    for (size_t i = 0; st == FZ7_OK && i < o->n_methods; i++) {
        const char *m = o->methods[i];
        const char *eq = strchr(m, '=');
        bool slot = m[0] >= '0' && m[0] <= '9' && eq && eq - m <= 2;   /* as apply_method_switch reads it */
        if (slot ? strtol(m, NULL, 10) == at : at == 0)
            st = apply_method_switch(&t, m, slot ? &coder : &(int){0}, why, whylen);
    }
    if (st != FZ7_OK)
        return st;
    memset(c, 0, sizeof *c);
    if (coder == 2) {
        c->kind = t.bcj2 ? FZ7_7Z_CODER_BCJ2 : t.delta ? FZ7_7Z_CODER_DELTA
                : t.branch_id ? FZ7_7Z_CODER_BRANCH : FZ7_7Z_CODER_BCJ;
        c->delta_distance = t.delta;
        c->branch_id = t.branch_id;
        c->branch_start = t.branch_start;
        return FZ7_OK;
    }
    /* A switch without a number that coder 0's method does not take
     * (-mo=4 for an LZMA2 there, -md for PPMd): refused, as 7zz's coder
     * refuses it. */
    if ((t.method != FZ7_7Z_PPMD && t.ppmd_param) || (t.method == FZ7_7Z_PPMD && t.lzma_param)) {
        snprintf(why, whylen, "parameters of another method for -m%ld", at);
        return FZ7_E_ARG;
    }
    if ((t.method == FZ7_7Z_LZMA || t.method == FZ7_7Z_LZMA2) && fz7_lzma_enc_check(&t.lzma) != FZ7_OK) {
        snprintf(why, whylen, "bad LZMA parameters for -m%ld", at);
        return FZ7_E_ARG;
    }
    if (t.method == FZ7_7Z_BZIP2 && t.d_bytes && !t.bzip2_block)
        t.bzip2_block = fz7_settings_bzip2_block(t.d_bytes);
    method_coder_opts(&t, 0, c);
    return FZ7_OK;
}

/* A chain the single-method fields cannot hold (coder_at: 1 method, 2
 * filter at -mN=; mf: -mf=) goes into s->chain, from the first slot
 * named to the last, as 7zz fills it: a gap is LZMA2, a gap before the
 * first named slot is nothing. */
static fz7_status build_chain(fz7_settings *s, const struct fz7_options *o, const uint8_t coder_at[100],
                              char *why, size_t whylen)
{
    int methods = 0, filters = 0, first = -1, last = -1, gaps = 0;
    for (int i = 0; i < 100; i++) {
        if (!coder_at[i])
            continue;
        methods += coder_at[i] == 1;
        filters += coder_at[i] == 2;
        gaps += last >= 0 && i > last + 1;
        first = first < 0 ? i : first;
        last = i;
    }
    const char *mf = o->filters;
    bool mf_filter = mf && mf[0] && strcasecmp(mf, "on") && strcmp(mf, "+") && strcasecmp(mf, "off") &&
                     strcmp(mf, "-");
    if (!gaps && methods <= 1 && filters <= 1 && !(filters && mf_filter))
        return FZ7_OK;
    if (s->xz) {
        snprintf(why, whylen, "an xz file takes one method and one filter");
        return FZ7_E_UNSUPPORTED;
    }
    if (last - first + 1 > FZ7_7Z_CHAIN_MAX) {   /* more streams than 7zz takes, see below */
        snprintf(why, whylen, "unsupported chain: more than %d coders", FZ7_7Z_CHAIN_MAX);
        return FZ7_E_ARG;
    }
    for (int i = first; i <= last; i++) {
        fz7_status st = chain_coder(s, o, i, &s->chain[s->chain_len++], why, whylen);
        if (st != FZ7_OK)
            return st;
    }
    /* The multi-thread plan and the solid blocks follow the chain's first
     * LZMA2 (the one on the pool of threads), else its first method. */
    const fz7_7z_coder_opts *lead = NULL;
    for (unsigned k = 0; k < s->chain_len; k++) {
        const fz7_7z_coder_opts *c = &s->chain[k];
        if (c->kind == FZ7_7Z_CODER_METHOD && (!lead || (c->method == FZ7_7Z_LZMA2 && lead->method != FZ7_7Z_LZMA2)))
            lead = c;
    }
    s->method = lead ? lead->method : FZ7_7Z_NONE;
    if (lead)
        s->lzma = lead->lzma;
    /* The filter in front: -mf='s for every file, else for x86
     * executables 7zz's automatic one (BCJ2 from its -mx8) when the chain
     * names no filter. */
    s->chain_front = (fz7_7z_coder_opts){.kind = FZ7_7Z_CODER_BCJ};
    s->bcj = filters ? 0 : -1;
    uint32_t mf_branch, mf_start;
    bool mf_bad;
    if (mf_filter) {
        s->bcj = 1;
        if (strcasecmp(mf, "BCJ2") == 0)
            s->chain_front.kind = FZ7_7Z_CODER_BCJ2;
        else if ((mf_branch = branch_with_start(mf, &mf_start, &mf_bad)) != 0 && !mf_bad)
            s->chain_front = (fz7_7z_coder_opts){.kind = FZ7_7Z_CODER_BRANCH,
                                                 .branch_id = mf_branch, .branch_start = mf_start};
        else if (strncasecmp(mf, "Delta:", 6) == 0)
            s->chain_front = (fz7_7z_coder_opts){.kind = FZ7_7Z_CODER_DELTA,
                                                 .delta_distance = (unsigned)strtoul(mf + 6, NULL, 10)};
        else if (strcasecmp(mf, "BCJ")) {
            snprintf(why, whylen, "unsupported filter: %s", mf);
            s->refuse_late = !s->xz;   /* 7zz's 7z coder refuses it as it starts */
            return FZ7_E_UNSUPPORTED;
        }
    } else if ((mf && (strcasecmp(mf, "off") == 0 || strcmp(mf, "-") == 0)) || s->level == 0) {
        s->bcj = 0;   /* -mf=off, or -mx0: no automatic filter, as in 7zz */
    } else if (s->level >= OTHER_BCJ2_FROM_LEVEL) {
        s->chain_front.kind = FZ7_7Z_CODER_BCJ2;
    }
    if (s->chain_front.kind == FZ7_7Z_CODER_DELTA &&
        (s->chain_front.delta_distance < 1 || s->chain_front.delta_distance > 256)) {
        snprintf(why, whylen, "bad filter: %s", mf);
        s->refuse_late = true;   /* 7zz's Delta coder refuses it as it starts */
        return FZ7_E_ARG;
    }
    /* 7zz takes a folder of at most 16 streams out of its coders (BCJ2
     * has four, each pack stream's 7zAES one). */
    unsigned coders = s->chain_len, outs = 0;
    for (unsigned k = 0; k < s->chain_len; k++)
        outs += s->chain[k].kind == FZ7_7Z_CODER_BCJ2 ? 4 : 1;
    if (s->bcj == 1) {
        bool bcj2 = s->chain_front.kind == FZ7_7Z_CODER_BCJ2;
        coders += bcj2 ? 3 : 1;   /* BCJ2 with its LZMA for call and jump */
        outs += bcj2 ? 6 : 1;
    }
    if (o->password || o->ask_password)
        outs += outs - (coders - 1);   /* a 7zAES a pack stream */
    if (outs > 16) {
        snprintf(why, whylen, "unsupported chain: %u streams out of its coders (7zz takes 16)", outs);
        return FZ7_E_ARG;
    }
    return FZ7_OK;
}

/* The coder number of 7zz's -mN<param>=<value> (-m0d=1m, -m12lc=2): N
 * when m is one (one or two digits, a letter, an '=' later), else -1;
 * *param: what follows the digits. */
static long numbered_param(const char *m, const char **param)
{
    size_t nd = 0;
    while (m[nd] >= '0' && m[nd] <= '9')
        nd++;
    bool letter = (m[nd] | 0x20) >= 'a' && (m[nd] | 0x20) <= 'z';
    *param = m + nd;
    return nd >= 1 && nd <= 2 && letter && strchr(m + nd, '=') ? strtol(m, NULL, 10) : -1;
}

/* The coder number of a chain entry N=METHOD, else -1. */
static long chain_entry(const char *m)
{
    const char *eq = strchr(m, '=');
    return m[0] >= '0' && m[0] <= '9' && eq && (size_t)(eq - m) <= 2 ? strtol(m, NULL, 10) : -1;
}

static void free_entries(char **e, size_t n)
{
    for (size_t i = 0; e && i < n; i++)
        free(e[i]);
    free(e);
}

/* o's -m entries with 7zz's numbered parameters folded in: -mN<param>=<value>
 * becomes :<param>=<value> after the last N=METHOD, wherever either stands;
 * a coder named by such parameters alone is LZMA2, as in 7zz (-m2d=1m
 * alone writes one LZMA2:20). *n: the entries; NULL when out of memory. */
/* An entry in the one spelling the parser reads: 7zz takes -mm=NAME as
 * -m0=NAME, a ':' right after a coder's name alone ("LZMA2:"), and in an
 * xz file the method xz as LZMA2. NULL when out of memory. */
static char *canonical_entry(const char *m, bool xz)
{
    bool mm = (m[0] | 0x20) == 'm' && m[1] == '=';
    const char *eq = strchr(m, '=');
    bool chain = mm || (m[0] >= '0' && m[0] <= '9' && eq && eq - m <= 2);
    if (!chain)
        return strdup(m);
    const char *name = eq + 1;
    size_t nlen = strcspn(name, ":");
    bool lone_colon = name[nlen] == ':' && name[nlen + 1] == 0;
    bool xz_name = xz && method_named(name, nlen, "xz");
    size_t len = strlen(m) + 8;
    char *c = malloc(len);
    if (!c)
        return NULL;
    snprintf(c, len, "%.*s=%.*s%s", mm ? 1 : (int)(eq - m), mm ? "0" : m, xz_name ? 5 : (int)nlen,
             xz_name ? "LZMA2" : name, lone_colon ? "" : name + nlen);
    return c;
}

static char **fold_numbered(const struct fz7_options *o, bool xz, size_t *n)
{
    char **e = calloc(o->n_methods + 1, sizeof *e);
    *n = 0;
    const char *param;
    for (size_t i = 0; e && i < o->n_methods; i++)
        if (numbered_param(o->methods[i], &param) < 0 && !(e[(*n)++] = canonical_entry(o->methods[i], xz)))
            goto fail;
    for (size_t i = 0; e && i < o->n_methods; i++) {
        long k = numbered_param(o->methods[i], &param);
        if (k < 0)
            continue;
        size_t at = *n;
        for (size_t j = *n; j-- > 0;)
            if (chain_entry(e[j]) == k) {
                at = j;
                break;
            }
        size_t len = at < *n ? strlen(e[at]) : 0;
        char *x = at < *n ? realloc(e[at], len + strlen(param) + 2) : malloc(strlen(param) + 16);
        if (!x)
            goto fail;
        if (at < *n)
            snprintf(x + len, strlen(param) + 2, ":%s", param);
        else
            snprintf(x, strlen(param) + 16, "%ld=LZMA2:%s", k, param);
        e[at] = x;
        if (at == *n)
            (*n)++;
    }
    return e;
fail:
    free_entries(e, o->n_methods + 1);
    return NULL;
}

static fz7_status settings_make(const struct fz7_options *o, bool xz, fz7_settings *s, char *why, size_t whylen);

fz7_status fz7_settings_make(const struct fz7_options *o, bool xz, fz7_settings *s, char *why,
                             size_t whylen)
{
    struct fz7_options folded = *o;
    folded.methods = fold_numbered(o, xz, &folded.n_methods);
    if (!folded.methods) {
        snprintf(why, whylen, "out of memory");
        return FZ7_E_MEM;
    }
    fz7_status st = settings_make(&folded, xz, s, why, whylen);
    free_entries(folded.methods, folded.n_methods);
    return st;
}

/* fz7_settings_make once 7zz's numbered parameters are folded in. */
static fz7_status settings_make(const struct fz7_options *o, bool xz, fz7_settings *s, char *why, size_t whylen)
{
    memset(s, 0, sizeof *s);
    s->xz = xz;
    s->no_atime = o->no_atime;
    s->level = o->level >= 0 ? o->level : 5;
    if (s->level > 9)
        s->level = 9;
    s->method = s->level == 0 && !xz ? FZ7_7Z_COPY : FZ7_7Z_LZMA2;
    s->check = FZ7_XZ_CHECK_CRC32;   /* 7zz's xz default */
    s->header_compress = o->header_compress != FZ7_OFF;
    s->store_time[FZ7_TIME_M] = true;   /* 7-Zip: -mtm on, -mtc and -mta off */
    s->bcj = -1;
    s->bcj2 = s->level >= BCJ2_FROM_LEVEL;
    s->coder_level = -1;
    fz7_status st = fz7_lzma_enc_preset(&s->lzma, (unsigned)s->level);
    if (st != FZ7_OK) {
        snprintf(why, whylen, "the LZMA encoder is not available");
        return st;
    }
    if (o->bad_method) {
        snprintf(why, whylen, "bad value: %s", o->bad_method);
        return FZ7_E_ARG;
    }
    /* Refused before anything is written, as 7zz refuses them: a bad
     * -ms, and for xz the 7z archive's switches (headers, solid blocks by
     * count or extension). */
    size_t n_blocks;
    bool solid_bad = fz7_7z_plan_solid(o->solid, 0, NULL, NULL, 0, NULL, &n_blocks) != FZ7_OK ||
                     (xz && o->solid && strpbrk(o->solid, "eEfF") && strcasecmp(o->solid, "off"));
    if (solid_bad) {
        snprintf(why, whylen, "bad -ms value%s: %s", xz ? " for xz" : "", o->solid);
        return FZ7_E_ARG;
    }
    if (xz && (o->header_compress != FZ7_UNSET || o->header_encrypt != FZ7_UNSET)) {
        snprintf(why, whylen, "-mhc and -mhe are for 7z archives: an xz file has no headers to compress or encrypt");
        return FZ7_E_ARG;
    }
    bool chain_method = false, chain_filter = false;
    long method_at = -1, filter_at = -1;   /* their places in the chain (-mN=) */
    uint8_t coder_at[100] = {0};            /* 1 method, 2 filter at -mN= (a later -mN= replaces) */
    bool coder_switch = false;   /* a coder's parameter without a number: -md, -mfb, -mo, ... */
    for (size_t i = 0; i < o->n_methods; i++) {
        int coder = 0;
        st = apply_method_switch(s, o->methods[i], &coder, why, whylen);
        if (st != FZ7_OK)
            return st;
        const char *m = o->methods[i];
        size_t klen = 0;
        while ((m[klen] | 0x20) >= 'a' && (m[klen] | 0x20) <= 'z')
            klen++;
        coder_switch |= !coder && coder_param_named(m, klen) && !method_named(m, klen, "mt")
                        && !method_named(m, klen, "x");
        chain_method |= coder == 1;
        chain_filter |= coder == 2;
        if (coder == 1)
            method_at = strtol(o->methods[i], NULL, 10);
        else if (coder == 2)
            filter_at = strtol(o->methods[i], NULL, 10);
        if (coder)
            coder_at[strtol(o->methods[i], NULL, 10)] = (uint8_t)coder;
    }
    /* 7zz gives such a switch to coder 0, which it makes LZMA2 when the
     * chain names other coders only (-m1=BCJ -md=1m: LZMA2 then BCJ). */
    if (coder_switch && !coder_at[0] && (chain_method || chain_filter)) {
        coder_at[0] = 1;
        if (!chain_method)
            s->method = FZ7_7Z_LZMA2;   /* at -mx0 too: not Copy */
        chain_method = true;
        if (method_at < 0)
            method_at = 0;
    }
    s->filter_after = chain_method && chain_filter && filter_at > method_at;
    /* A filter as coder 0 refuses it. */
    if (coder_switch && coder_at[0] == 2) {
        snprintf(why, whylen, "a method's parameter (-md, -mfb, ...) for the filter -m0=");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    /* -mx0 with an LZMA parameter (-mx0 -mfb=64) and no method named:
     * 7zz writes LZMA2 at level 0 rather than Copy. */
    if (s->method == FZ7_7Z_COPY && !chain_method && (s->lzma_param || s->fb_mc_param))
        s->method = FZ7_7Z_LZMA2;
    /* 7zz's xz takes its filter from -mf only: a filter in the chain
     * (-m0=BCJ -m1=LZMA2, -m0=ARM64) is E_INVALIDARG. */
    if (chain_filter && xz) {
        snprintf(why, whylen, "an xz file takes its filter from -mf=, not from -m0=, -m1=...");
        return FZ7_E_ARG;
    }
    st = build_chain(s, o, coder_at, why, whylen);
    if (st != FZ7_OK) {
        s->refuse_late = true;
        return st;
    }
    if (s->chain_len) {
        s->solid = o->solid;
        s->threads = fz7_lzma_threads(s->coder_threads ? s->coder_threads
                                      : o->threads >= 1 ? (uint32_t)o->threads : 0);
        s->mem_limit = fz7_lzma_mem_cap(o->memuse_bytes, o->memuse_percent);
        return FZ7_OK;
    }
    /* A chain of filters alone (-m0=ARM64): 7-Zip writes the filter with
     * no compressor after it. */
    if (chain_filter && !chain_method)   /* BCJ2 alone: its four streams raw */
        s->method = FZ7_7Z_NONE;
    uint32_t mf_branch, mf_start;
    bool mf_bad;
    if (o->filters) {
        if (strcasecmp(o->filters, "off") == 0 || strcmp(o->filters, "-") == 0) {
            if (!chain_filter)   /* 7zz: -mf=off turns off the automatic filter, not the chain's */
                s->bcj = 0;
        }
        else if (strcasecmp(o->filters, "BCJ") == 0)
            s->bcj = 1, s->bcj2 = false;
        else if (strcasecmp(o->filters, "BCJ2") == 0)
            s->bcj = 1, s->bcj2 = true;
        else if ((mf_branch = branch_with_start(o->filters, &mf_start, &mf_bad)) != 0 && (!mf_bad || xz))
            s->branch_id = mf_branch, s->branch_start = xz ? 0 : mf_start;   /* 7zz's xz writes none */
        else if (strncasecmp(o->filters, "Delta:", 6) == 0) {
            unsigned d = (unsigned)strtoul(o->filters + 6, NULL, 10);
            if (d < 1 || d > 256) {
                snprintf(why, whylen, "bad filter: %s", o->filters);
                s->refuse_late = true;   /* 7zz's Delta coder refuses it as it starts */
                return FZ7_E_ARG;
            }
            s->delta = d;
        } else if (!(o->filters[0] == 0 || strcasecmp(o->filters, "on") == 0 ||
                     strcmp(o->filters, "+") == 0)) {
            snprintf(why, whylen, "unsupported filter: %s", o->filters);
            s->refuse_late = !xz;
            return FZ7_E_UNSUPPORTED;
        }
    }
    if (xz && s->bcj == 1 && s->bcj2) {
        snprintf(why, whylen, "BCJ2 is a 7z filter: xz archives cannot hold it");
        return FZ7_E_UNSUPPORTED;
    }
    if (xz)
        s->bcj2 = false;
    if (xz && s->method != FZ7_7Z_LZMA2) {
        snprintf(why, whylen, "xz archives support only the LZMA2 method");
        return FZ7_E_UNSUPPORTED;
    }
    if (s->method == FZ7_7Z_LZMA2 && s->lzma.lc + s->lzma.lp > FZ7_LZMA2_LCLP_MAX) {
        snprintf(why, whylen, "LZMA2 takes lc + lp up to %d", FZ7_LZMA2_LCLP_MAX);
        s->refuse_late = true;   /* 7zz's LZMA2 coder refuses it as it starts */
        return FZ7_E_ARG;
    }
    if (s->branch_id && (s->delta || s->bcj == 1)) {
        snprintf(why, whylen, "one filter per folder: %s with BCJ or Delta is not supported",
                 "a branch filter");
        return FZ7_E_UNSUPPORTED;
    }
    if (s->branch_id)
        s->bcj = 0;   /* the named filter replaces the automatic x86 BCJ */
    if (s->delta && s->bcj == 1) {
        snprintf(why, whylen, "BCJ and Delta together are not supported");
        return FZ7_E_UNSUPPORTED;
    }
    if (s->delta)
        s->bcj = 0;   /* Delta replaces the automatic BCJ */
    if (s->bcj < 0 && s->level == 0)
        s->bcj = 0;   /* -mx0: no automatic filter for any method, as in 7zz (-m0=Copy at another level has one) */
    if (s->method == FZ7_7Z_NONE && s->bcj < 0)
        s->bcj = 0;
    if (xz && s->bcj < 0)
        s->bcj = 0;   /* xz, like 7-Zip's xz, filters only when asked */
    s->solid = o->solid;
    /* 7-Zip stores Copy one folder per file, but for a chain with a
     * filter (-m0=BCJ -m1=Copy, -mx0 -mf=BCJ): that is solid. */
    if (!s->solid && s->method == FZ7_7Z_COPY && s->bcj != 1 && !s->delta && !s->branch_id)
        s->solid = "off";
    /* -mfb and -mmc are LZMA's for every other method (so refused with
     * PPMd below); -mpass is Deflate's alone. */
    bool deflate = s->method == FZ7_7Z_DEFLATE || s->method == FZ7_7Z_DEFLATE64;
    bool pass_bad = s->pass_param && s->method != FZ7_7Z_BZIP2;
    if (!deflate && (s->fb_mc_bad || pass_bad)) {
        snprintf(why, whylen, "unsupported parameter: %s", pass_bad ? "pass= (Deflate and BZip2 only)" : "-mfb or -mmc");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (!deflate && s->fb_mc_param)
        s->lzma_param = s->lzma_param_other = true;
    /* Copy takes no parameter, BZip2 of LZMA's only -md (its block size):
     * 7zz's coders refuse the others. */
    if ((s->method == FZ7_7Z_COPY && s->lzma_param) || (s->method == FZ7_7Z_BZIP2 && s->lzma_param_other)) {
        snprintf(why, whylen, "parameters of another method: an LZMA parameter with %s",
                 s->method == FZ7_7Z_COPY ? "Copy" : "BZip2");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (s->method == FZ7_7Z_BZIP2 && s->d_bytes && !s->bzip2_block)
        s->bzip2_block = fz7_settings_bzip2_block(s->d_bytes);
    /* 7zz refuses the other method's parameters (-md with PPMd, -mo with
     * LZMA2) rather than ignore them. */
    if ((s->method == FZ7_7Z_PPMD && s->lzma_param) || (s->method != FZ7_7Z_PPMD && s->ppmd_param)) {
        snprintf(why, whylen, "parameters of another method: %s",
                 s->method == FZ7_7Z_PPMD ? "an LZMA parameter with PPMd" : "o= or mem= without PPMd");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    bool lzma = s->method == FZ7_7Z_LZMA || s->method == FZ7_7Z_LZMA2;
    /* PPMd's, Deflate's, BZip2's and Copy's executables get BCJ2 where
     * 7zz gives them BCJ2, from -mx8 (fz7 moved that level for LZMA only). */
    if ((s->method == FZ7_7Z_PPMD || s->method == FZ7_7Z_DEFLATE || s->method == FZ7_7Z_DEFLATE64 ||
         s->method == FZ7_7Z_BZIP2 || s->method == FZ7_7Z_COPY) && s->bcj < 0)
        s->bcj2 = s->level >= OTHER_BCJ2_FROM_LEVEL;
    /* Deflate takes no LZMA parameter either. */
    if ((s->method == FZ7_7Z_DEFLATE || s->method == FZ7_7Z_DEFLATE64) && s->lzma_param) {
        snprintf(why, whylen, "parameters of another method: an LZMA parameter with Deflate");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (s->method == FZ7_7Z_LZMA && s->c_param) {
        snprintf(why, whylen, "unsupported parameter: -mc (LZMA2's block size)");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (s->method == FZ7_7Z_LZMA2 && s->eos_param) {
        snprintf(why, whylen, "unsupported parameter: -meos (LZMA2 has no end marker)");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (lzma && s->d_lzma_bad) {
        snprintf(why, whylen, "unsupported parameter: -md (LZMA's dictionary)");
        s->refuse_late = true;
        return FZ7_E_ARG;
    }
    if (lzma && (st = fz7_lzma_enc_check(&s->lzma)) != FZ7_OK) {
        snprintf(why, whylen, "bad LZMA parameters");
        return st;
    }
    /* -mmt: N threads, 1 = off; not given or on = every core. */
    s->threads = fz7_lzma_threads(s->coder_threads ? s->coder_threads
                                  : o->threads >= 1 ? (uint32_t)o->threads : 0);
    s->mem_limit = fz7_lzma_mem_cap(o->memuse_bytes, o->memuse_percent);
    return FZ7_OK;
}

fz7_lzma_plan fz7_settings_pick_mt(const fz7_settings *s, uint64_t bytes)
{
    bool lzma2 = s->method == FZ7_7Z_LZMA2;
    fz7_lzma_plan_in in = {bytes, s->threads, s->mem_limit, lzma2, s->xz, lzma2 ? s->lzma2_block : 0};
    fz7_lzma_plan p = fz7_lzma_plan_threads(&s->lzma, &in);
    /* Said once a run: the archive is written, on fewer threads. */
    static bool told;
    if (p.lowered && !told) {
        told = true;
        fprintf(stderr, "fz7: fewer threads than -mmt%u (%u coder%s%s): the memory limit is %llu MB "
                        "(-mmemuse)\n",
                s->threads, p.threads, p.threads == 1 ? "" : "s", p.mf_thread ? " with match finder threads" : "",
                (unsigned long long)(s->mem_limit / 1000000));
    }
    return p;
}

/* ---- folders ------------------------------------------------------------ */

/* x86 code by its header: ELF for 386/x86-64, PE for i386/AMD64, Mach-O
 * for x86/x86-64. */
static bool is_x86_executable(const char *path, bool no_atime)
{
    int fd = fz7_open_input(path, no_atime);
    if (fd < 0)
        return false;
    uint8_t h[512];
    ssize_t n = pread(fd, h, sizeof h, 0);
    bool yes = false;
    if (n >= 64 && memcmp(h, "\x7f" "ELF", 4) == 0 && h[5] == 1) {
        /* Little-endian ELF for 386 or x86-64 whose section header table
         * lies inside the file: 7-Zip leaves truncated ELF files alone. */
        unsigned machine = fz7_get16le(h + 18);
        bool elf64 = h[4] == 2;
        uint64_t shoff = elf64 ? fz7_get64le(h + 0x28) : fz7_get32le(h + 0x20);
        uint64_t shsize = elf64 ? (uint64_t)fz7_get16le(h + 0x3A) * fz7_get16le(h + 0x3C)
                                : (uint64_t)fz7_get16le(h + 0x2E) * fz7_get16le(h + 0x30);
        struct stat sb;
        yes = (machine == 3 || machine == 62) && fstat(fd, &sb) == 0 && shoff <= UINT64_MAX / 2 &&
              shoff + shsize <= (uint64_t)sb.st_size;
    } else if (n >= 64 && h[0] == 'M' && h[1] == 'Z') {
        uint32_t pe = fz7_get32le(h + 0x3C);
        uint8_t ph[6];
        if (pe < (1u << 20) && pread(fd, ph, 6, pe) == 6 && memcmp(ph, "PE\0\0", 4) == 0) {
            unsigned machine = fz7_get16le(ph + 4);
            yes = machine == 0x14C || machine == 0x8664;
        }
    } else if (n >= 8) {
        uint32_t magic = fz7_get32le(h), cpu = fz7_get32le(h + 4);
        yes = (magic == 0xFEEDFACEu || magic == 0xFEEDFACFu) && (cpu & 0xFFFFFF) == 7;
    }
    close(fd);
    return yes;
}

static const char *ext_of(const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    const char *dot = strrchr(base, '.');
    return dot ? dot + 1 : "";
}

/* -mqs order: extension (alphabetically; 7-Zip uses its own table of file
 * types for the order of the groups), then the path order the tree has. */
static const fz7_tree_item *g_sort_items;

static int cmp_by_type(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int c = strcmp(ext_of(g_sort_items[a].name), ext_of(g_sort_items[b].name));
    if (c)
        return c;
    return a < b ? -1 : a > b;
}


/* PPMd's order and model memory as 7zz picks them: by the level (order 3,
 * 4, 4, 5, 5, 6, 8, 16, 24, 32 for -mx0..9; 2^(19 + level) bytes) unless
 * o= and mem= say. */
static void ppmd_model_size(const fz7_settings *s, fz7_7z_coder_opts *c)
{
    static const uint8_t order_by_level[10] = {3, 4, 4, 5, 5, 6, 8, 16, 24, 32};
    unsigned level = (unsigned)(s->coder_level >= 0 ? s->coder_level : s->level);
    c->ppmd_order = s->ppmd_order ? s->ppmd_order : order_by_level[level];
    c->ppmd_mem = s->ppmd_mem ? s->ppmd_mem : (uint32_t)1 << (19 + level);
}

/* A method's memory fitted to an input of size_hint bytes (0: unknown),
 * as 7zz fits it: the dictionary to the whole archive's bytes; PPMd's
 * model to no more than the smallest 2^k (k >= 16) of at least 16 times
 * the input. */
static void fit_to_input(fz7_7z_coder_opts *c, uint64_t size_hint)
{
    if (!size_hint)
        return;
    if (c->method == FZ7_7Z_LZMA)
        fz7_lzma1_reduce_dict(&c->lzma, size_hint);
    else if (c->method == FZ7_7Z_LZMA2 || c->method == FZ7_7Z_BZIP2)
        fz7_lzma_enc_reduce_dict(&c->lzma, size_hint);
    if (c->method == FZ7_7Z_PPMD && c->ppmd_mem / 16 > size_hint) {
        for (unsigned k = 16; k < 32; k++) {
            if (size_hint <= ((uint64_t)1 << k) / 16) {
                if (c->ppmd_mem > (uint32_t)1 << k)
                    c->ppmd_mem = (uint32_t)1 << k;
                break;
            }
        }
    }
}

static void method_coder_opts(const fz7_settings *s, uint64_t size_hint, fz7_7z_coder_opts *c)
{
    c->kind = FZ7_7Z_CODER_METHOD;
    c->method = s->method;
    c->lzma = s->lzma;
    /* BZip2's block as 7-Zip sizes it: 100 kB at -mx1, 500 kB at -mx3,
     * 900 kB from -mx5. */
    int level = s->coder_level >= 0 ? s->coder_level : s->level;   /* -m0=METHOD:x= or -mx */
    c->bzip2_block = s->bzip2_block ? s->bzip2_block : level <= 2 ? 1 : level <= 4 ? 5 : 9;
    if (s->method == FZ7_7Z_PPMD)
        ppmd_model_size(s, c);
    c->deflate = s->deflate;
    c->deflate.level = level < 1 ? 1 : level;
    fit_to_input(c, size_hint);
}

uint64_t fz7_settings_size_hint(const fz7_settings *s, uint64_t total, uint64_t largest)
{
    uint64_t n = s->solid && strcasecmp(s->solid, "off") == 0 ? largest : total;
    return n ? n : 1;
}

void fz7_settings_folder_opts(const fz7_settings *s, const fz7_7zaes_key *key, uint64_t size_hint,
                              bool bcj, uint64_t folder_bytes, fz7_7z_folder_opts *fo)
{
    memset(fo, 0, sizeof *fo);
    fz7_7z_coder_opts m;
    method_coder_opts(s, size_hint, &m);
    fo->method = s->method;
    fo->lzma = m.lzma;
    fo->key = key;
    fo->delta_distance = s->delta;
    fo->branch_id = s->branch_id;
    fo->branch_start = s->branch_start;
    fo->filter_after = s->filter_after;
    fo->size_hint = size_hint;
    fo->bcj_x86 = bcj;
    /* A chain that names BCJ2 and a method after it: the method takes
     * BCJ2's main stream alone, as 7zz's does (Copy and BZip2 too). */
    fo->bcj2_raw_sides = s->bcj2 && s->bcj2_chain && !s->filter_after && s->method != FZ7_7Z_NONE;
    fo->bcj2 = s->bcj2 && (s->method != FZ7_7Z_NONE || s->bcj == 1);
    fo->bzip2_block = m.bzip2_block;
    fo->ppmd_order = m.ppmd_order;
    fo->ppmd_mem = m.ppmd_mem;
    fo->deflate = m.deflate;
    fo->folder_bytes = folder_bytes;
    if (s->chain_len) {
        /* A longer chain, each method's dictionary fitted the same way. */
        unsigned n = 0;
        /* (-mf's filter always fits: fz7_settings_make counted it; the
         * automatic one is left out of a chain of 16 methods.) */
        bcj = bcj && s->chain_len < FZ7_7Z_CHAIN_MAX;
        if (bcj)
            fo->chain[n++] = s->chain_front;
        fo->bcj2_lzma_sides = bcj && s->chain_front.kind == FZ7_7Z_CODER_BCJ2;
        for (unsigned k = 0; k < s->chain_len; k++) {
            fo->chain[n] = s->chain[k];
            if (fo->chain[n].kind == FZ7_7Z_CODER_METHOD)
                fit_to_input(&fo->chain[n], size_hint);
            n++;
        }
        fo->chain_len = n;
    }
    bool coder = s->method == FZ7_7Z_LZMA || s->method == FZ7_7Z_LZMA2 || s->method == FZ7_7Z_BZIP2;
    if (coder) {
        fz7_lzma_plan p = fz7_settings_pick_mt(s, folder_bytes);
        fo->threads = p.threads;
        fo->mt_block_size = p.block_size;
        fo->lzma.mf_thread = p.mf_thread;
    }
    /* The writer starts a folder's blocks while the last blocks of the one
     * before are still coded when both coders fit in the limit together. */
    fo->mt_mem_limit = s->mem_limit;
}

bool fz7_settings_bcj_again(const fz7_settings *s, const char *old_method)
{
    return s->bcj != 0 && old_method && strstr(old_method, "BCJ") != NULL;
}

void fz7_folder_plan_free(fz7_folder_plan *p)
{
    free(p->order);
    free(p->folders);
    memset(p, 0, sizeof *p);
}

fz7_status fz7_settings_plan(const fz7_settings *s, const fz7_tree *t, const bool *take,
                             bool from_stdin, fz7_folder_plan *p, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    size_t cap = t->count + 1;
    bool *exe = malloc(cap * sizeof *exe);
    uint64_t *sizes = malloc(cap * sizeof *sizes);
    const char **exts = malloc(cap * sizeof *exts);
    size_t *block_of = malloc(cap * sizeof *block_of);
    p->order = malloc(cap * sizeof *p->order);
    p->folders = malloc(cap * sizeof *p->folders);
    fz7_status st = exe && sizes && exts && block_of && p->order && p->folders ? FZ7_OK : FZ7_E_MEM;
    for (size_t i = 0; st == FZ7_OK && i < t->count; i++) {
        const fz7_tree_item *it = &t->items[i];
        exe[i] = s->bcj == 1 ||
                 (s->bcj < 0 && it->kind == FZ7_ITEM_FILE && !from_stdin && it->size &&
                  (!take || take[i]) && is_x86_executable(it->disk_path, s->no_atime));
    }
    /* Default solid block: 256 dictionaries, within 16 MiB..4 GiB (7zz
     * -mx1, 256 KiB dictionary, cuts 1 MiB files into blocks of 64 MiB). */
    uint64_t block_bytes = (uint64_t)s->lzma.dict_size << 8;
    if (block_bytes < ((uint64_t)16 << 20))
        block_bytes = (uint64_t)16 << 20;
    if (block_bytes > ((uint64_t)4 << 30))
        block_bytes = (uint64_t)4 << 30;
    for (int group = 0; group < 2 && st == FZ7_OK; group++) {
        size_t *order = p->order + p->n, n = 0;
        for (size_t i = 0; i < t->count; i++) {
            const fz7_tree_item *it = &t->items[i];
            if ((take && !take[i]) || it->kind == FZ7_ITEM_DIR || (it->size == 0 && !from_stdin))
                continue;
            if (exe[i] == (group == 1))
                order[n++] = i;
        }
        if (n == 0)
            continue;
        if (s->sort_by_type) {
            g_sort_items = t->items;
            qsort(order, n, sizeof *order, cmp_by_type);
        }
        for (size_t k = 0; k < n; k++) {
            sizes[k] = t->items[order[k]].size;
            exts[k] = ext_of(t->items[order[k]].name);
        }
        size_t n_blocks;
        st = fz7_7z_plan_solid(s->solid, block_bytes, sizes, exts, n, block_of, &n_blocks);
        if (st != FZ7_OK) {
            snprintf(why, whylen, "bad -ms value: %s", s->solid ? s->solid : "");
            break;
        }
        /* A folder is a run of files with the same block number. */
        for (size_t k = 0; k < n;) {
            fz7_plan_folder *f = &p->folders[p->n_folders++];
            f->first = p->n + k;
            f->bcj = group == 1;
            f->bytes = 0;
            size_t end = k;
            while (end < n && block_of[end] == block_of[k])
                f->bytes += sizes[end++];
            f->count = end - k;
            k = end;
        }
        p->n += n;
    }
    free(exe);
    free(sizes);
    free(exts);
    free(block_of);
    if (st != FZ7_OK)
        fz7_folder_plan_free(p);
    return st;
}
