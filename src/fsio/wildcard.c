/* wildcard.c - one path part against a 7-Zip wildcard (wildcard.h). */
#include "fsio/wildcard.h"

#include <ctype.h>

static bool byte_eq(char a, char b, bool cs)
{
    return cs ? a == b : tolower((unsigned char)a) == tolower((unsigned char)b);
}

bool fz7_glob_part(const char *pat, size_t plen, const char *s, size_t slen, bool case_sensitive)
{
    const char *p = pat, *pe = pat + plen, *se = s + slen;
    /* The last '*' seen and where its run started: on a mismatch the run
     * takes one byte more (one '*' back at a time is enough: a later '*'
     * can take whatever an earlier one would). */
    const char *star_p = NULL, *star_s = NULL;
    while (s < se) {
        if (p < pe && *p == '*') {
            star_p = ++p;
            star_s = s;
        } else if (p < pe && (*p == '?' || byte_eq(*p, *s, case_sensitive))) {
            p++;
            s++;
        } else if (star_p) {
            p = star_p;
            s = ++star_s;
        } else {
            return false;
        }
    }
    while (p < pe && *p == '*')
        p++;
    return p == pe;
}
