/* xz_stub.c - placeholder for the xz and .lzma readers until they land (delete then). */
#include "format/archive_impl.h"

fz7_status fz7_xz_open(fz7_archive *a, char *err, size_t errlen) { (void)a; (void)err; (void)errlen; return FZ7_E_FORMAT; }
fz7_status fz7_lzma_alone_open(fz7_archive *a, char *err, size_t errlen) { (void)a; (void)err; (void)errlen; return FZ7_E_FORMAT; }
