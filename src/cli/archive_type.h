/* archive_type.h - 7-Zip's archive type names (-t{Type}) and the types an
 * archive name's extension stands for when `a` creates it. */
#ifndef FZ7_ARCHIVE_TYPE_H
#define FZ7_ARCHIVE_TYPE_H

#include "cli/options.h"
#include "format/archive.h"

#include <stdbool.h>

/* The type -t{name} names (case-insensitive): FZ7_TYPE_OTHER for a type
 * 7-Zip knows that fz7 neither writes nor tells apart, FZ7_TYPE_UNKNOWN
 * for a name 7-Zip does not know. *canon gets 7-Zip's spelling ("zip",
 * "Cab") or NULL. */
fz7_type fz7_type_parse(const char *name, const char **canon);

/* The type 7-Zip creates for an archive name: the first format listing
 * its extension (case-insensitive), FZ7_TYPE_AUTO (7z) when none does.
 * *canon as fz7_type_parse. */
fz7_type fz7_type_of_archive_name(const char *path, const char **canon);

/* The extension `a` appends to a name without one ("7z", "tar", "gz"...). */
/* fz7_type_of_archive_name for a/u: an .exe name is a 7z archive, as
 * 7-Zip writes it (the name of a self-extractor, -sfx). */
fz7_type fz7_type_for_writing(const char *path, const char **canon);

/* The type a, u, d or rn writes o->archive as: -t's, else the name's
 * (fz7_type_for_writing), else, for a name no type claims (x.bin), what
 * the existing file holds, as 7zz opens it by content: FZ7_TYPE_ZIP,
 * FZ7_TYPE_TAR, or FZ7_TYPE_AUTO (7z) for anything else or no file. */
fz7_type fz7_type_to_write(const struct fz7_options *o, const char **canon);

const char *fz7_type_extension(fz7_type t);

/* True when the opened archive is of the type -t asked for (canon: the
 * name fz7_type_parse gave). */
bool fz7_type_matches(fz7_type t, const char *canon, const fz7_archive_info *info);

/* 7-Zip's name of type t for "Cannot open the file as [name] archive". */
const char *fz7_type_display(fz7_type t, const char *canon);

/* -sa{a|e|s} for `a` and `u`: with 'a' the type's extension is added to
 * o->archive whatever it ends with; a name ending in '.' (default mode)
 * loses the dot and gets no extension. The new name goes to buf and
 * o->archive, and o->name_mode becomes 'e' (the name is final). False when
 * it does not fit cap. */
bool fz7_apply_name_mode(struct fz7_options *o, char *buf, size_t cap);

#endif
