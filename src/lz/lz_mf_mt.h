/* lz_mf_mt.h - the match finder on a thread of its own: a searcher thread
 * runs fz7_lz_mf_find at every position in order and hands each result to
 * the LZMA coder through a ring, so searching (most of -mx5's time) and
 * parsing overlap on two cores.
 *
 * The coder keeps its fz7_lz_mf (the "view": window, pos, end) and reads
 * results instead of searching. A position is searched only when at least
 * nice_len bytes follow it, when the input is finished, or when the coder
 * is waiting for it (then no more bytes can arrive before it is read), so
 * every result is the one the coder's own fz7_lz_mf_find would return, and
 * since skipping records a position as searching does, the tables end the
 * same too: the output does not change. */
#ifndef FZ7_LZ_MF_MT_H
#define FZ7_LZ_MF_MT_H

#include <stddef.h>
#include <stdint.h>

#include "lz/lz_mf.h"

typedef struct fz7_lz_mf_mt fz7_lz_mf_mt;

/* Bytes fz7_lz_mf_mt_start allocates besides the match finder itself (the
 * ring of results and the searcher's state). */
uint64_t fz7_lz_mf_mt_memusage(void);

/* A test of the searcher's for pieces of input not worth searching (LZMA2
 * stores them as they are): called with f at a position t that nothing
 * from t on is recorded for, and n (at most the piece size, fewer only
 * when no more input can come first) bytes from t in the window. Returns
 * 0 to search them, or m (at most n) after moving f past the next m
 * positions, recording what it likes of them: the coder then reads them
 * as a pass (fz7_lz_mf_mt_pass_at). It must depend only on f and those
 * bytes, so that the output does not depend on timing. */
typedef uint32_t (*fz7_lz_piece_test)(fz7_lz_mf *f, uint32_t n);

/* Starts the searcher for view, a match finder fresh from fz7_lz_mf_init
 * (nothing appended yet); the searcher shares its window and tables, which
 * stay owned by the caller (fz7_lz_mf_free after fz7_lz_mf_mt_stop). From
 * then on the caller uses the fz7_lz_mf_mt_* calls below instead of
 * fz7_lz_mf_append/find/skip, and reads view->buf, pos and end as before.
 * test (NULL: none) gets up to piece bytes; it is made at the first
 * position with nothing recorded ahead of it from the start, at the end
 * of a pass, and retest positions after a failed test. The caller keeps
 * piece bytes appended past the positions it reads, so that tests see
 * whole pieces. Returns 0, or -1 if allocation or the thread failed
 * (nothing started; view is unchanged and usable on its own). */
int fz7_lz_mf_mt_start(fz7_lz_mf *view, fz7_lz_piece_test test, uint32_t piece, uint32_t retest,
                       fz7_lz_mf_mt **out);

/* fz7_lz_mf_append for the threaded finder: copies up to n bytes into the
 * window (pausing the searcher when the window has to move down first) and
 * lets the searcher see them. Returns the bytes taken, as fz7_lz_mf_append. */
size_t fz7_lz_mf_mt_append(fz7_lz_mf_mt *mt, const uint8_t *data, size_t n);

/* No more input: the searcher then searches the last positions with what
 * is left (as fz7_lz_mf_find does near the end). */
void fz7_lz_mf_mt_finish(fz7_lz_mf_mt *mt);

/* The result of fz7_lz_mf_find for view->pos (waiting for the searcher if
 * needed); advances view->pos. matches: FZ7_LZ_MATCHES_MAX entries. */
uint32_t fz7_lz_mf_mt_find(fz7_lz_mf_mt *mt, fz7_lz_match *matches);

/* No piece test before stream position pos (bytes the caller only skips,
 * such as an LZMA2 block's prefix). Before the first append. */
void fz7_lz_mf_mt_tests_from(fz7_lz_mf_mt *mt, uint64_t pos);

/* fz7_lz_mf_skip: drops the results of the next n positions. */
void fz7_lz_mf_mt_skip(fz7_lz_mf_mt *mt, uint32_t n);

/* The length of the pass (a piece the test took; its positions read as no
 * matches) that starts behind positions before view->pos, or 0 when none
 * starts there. behind: positions already read past that point (the
 * coder's look-ahead). May wait for the searcher's next record. */
uint32_t fz7_lz_mf_mt_pass_at(fz7_lz_mf_mt *mt, uint32_t behind);

/* Stops and joins the searcher in any state and frees the ring (NULL is
 * fine). The view's window and tables are left to fz7_lz_mf_free. */
void fz7_lz_mf_mt_stop(fz7_lz_mf_mt *mt);

#endif
