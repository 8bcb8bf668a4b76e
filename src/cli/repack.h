/* repack.h - compressing the kept entries of an old .7z again into a new
 * one, fed by the old archive's extraction callbacks: `fz7 a` on an
 * existing archive and `fz7 u/d/rn` both do it for folders that cannot be
 * copied as they are. */
#ifndef FZ7_CLI_REPACK_H
#define FZ7_CLI_REPACK_H

#include "cli/settings.h"
#include "format/7z/7z_write.h"
#include "format/archive.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The new entry's metadata from old entry e (attributes, folder and
 * anti-item flags, times), named name, or e's path when name is NULL. */
void fz7_repack_meta(const fz7_entry *e, const char *name, fz7_7z_entry_meta *m);

/* What a repack did, and the entry whose extraction failed, if one did. */
typedef struct fz7_repack_result {
    uint64_t folders;        /* new folders begun */
    fz7_status failed;       /* the entry's status, FZ7_OK when none failed */
    size_t failed_index;     /* its index in the old archive */
    char detail[256];        /* the reader's reason for it ("" when none) */
} fz7_repack_result;

/* Extracts the entries of old that select marks (NULL: all) into w: an
 * entry without data as an empty entry, the entries of each old folder in
 * one new folder with set's coders (x86 BCJ again when the old folder had
 * it and set allows it; 7zAES with key when not NULL; the dictionary
 * shrunk to size_hint bytes, as fz7_settings_folder_opts says). names[i],
 * when names and names[i] are not NULL, renames entry i. Returns FZ7_OK,
 * or the first error: the writer's, the reader's (why, whylen bytes, gets
 * its message) or a damaged entry's (in res, as the entry is never
 * dropped silently). The last new folder is ended. */
fz7_status fz7_repack_entries(fz7_archive *old, const bool *select, const char *const *names,
                              const fz7_settings *set, const fz7_7zaes_key *key,
                              uint64_t size_hint, fz7_7z_writer *w, fz7_repack_result *res,
                              char *why, size_t whylen);

#endif
