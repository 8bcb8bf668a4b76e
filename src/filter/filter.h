/* filter.h - decoding filters as pull streams (x86 BCJ, Delta), and the
 * in-place encoders the archive writers use.
 *
 * Methods.txt: 03030103 (BCJ x86), 03 (Delta, property = distance - 1);
 * xz-file-format.txt 5.3.2 (Delta), 5.3.3 (BCJ). Streams do not own src. */
#ifndef FZ7_FILTER_H
#define FZ7_FILTER_H

#include "fz7_common.h"

/* x86 BCJ decoder; start_offset: the stream's position for the
 * relative-to-absolute conversion (0 in 7z; xz's start offset property). */
fz7_status fz7_bcj_x86_istream_new(fz7_istream *src, uint32_t start_offset, fz7_istream **out);

/* Delta decoder, distance in bytes 1..256. */
fz7_status fz7_delta_istream_new(fz7_istream *src, unsigned distance, fz7_istream **out);

#endif
