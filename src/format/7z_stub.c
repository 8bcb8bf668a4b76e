/* 7z_stub.c - placeholder for the 7z reader until it lands (delete then). */
#include "format/archive_impl.h"

fz7_status fz7_7z_open(fz7_archive *a, char *err, size_t errlen) { (void)a; (void)err; (void)errlen; return FZ7_E_FORMAT; }
