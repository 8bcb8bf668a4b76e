/* wildcard.h - 7-Zip's wildcards in one part of a path (between '/'s):
 * '*' stands for any run of bytes, '?' for one byte, and every other byte,
 * '[', ']' and '\' too, for itself (7-Zip has no classes or escapes, so
 * "report[2024].pdf" names that file). The one matcher of fz7's names on
 * the command line, -i/-x rules and list files, on disk and in archives. */
#ifndef FZ7_FSIO_WILDCARD_H
#define FZ7_FSIO_WILDCARD_H

#include <stdbool.h>
#include <stddef.h>

/* True when the part s (slen bytes) matches pattern pat (plen bytes);
 * case_sensitive false compares ASCII letters without case (-ssc-). */
bool fz7_glob_part(const char *pat, size_t plen, const char *s, size_t slen, bool case_sensitive);

#endif
