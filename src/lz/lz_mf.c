/* lz_mf.c - sliding window, hash chains (hc4) and binary trees (bt2/3/4).
 *
 * Every position is recorded once, in order. hc4 links each position to
 * the previous one with the same 4-byte hash; bt keeps, per root hash, a
 * binary search tree of earlier positions ordered by the bytes that follow
 * them, re-rooted at each new position so the nearest candidates sit on top.
 * The 2- and 3-byte heads (and bt4's 4- and 5-byte heads) find short near
 * matches that the root would miss. Match lengths are extended with the dispatched
 * match_len. */
#include "lz/lz_mf.h"
#include "lz/lz_mf_impl.h"
#include "lz/lz_radix.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The binary trees' 2- and 3-byte heads are hashed into 1024 slots each
 * too (2 x 65536 slots would take 512 KiB that competes with the trees
 * for L2). Only recent positions survive in so few slots, and
 * those are the near matches worth their price; the far ones the 4-byte
 * tree finds anyway, so the archives stay about the same size. */
#define BT_HASH2_BITS 10u
#define BT_HASH3_BITS 10u
#define HASH2_SIZE (1u << BT_HASH2_BITS)
#define HASH3_SIZE (1u << BT_HASH3_BITS)
/* bt4's trees are rooted on a hash of 6 bytes, not 4: each tree holds
 * fewer positions, so a walk visits fewer nodes (each a likely cache
 * miss) before it reaches its place. The 4- and 5-byte matches those
 * trees no longer hold come from two heads of 2^18 hashed slots (1 MiB
 * each, after the 3-byte heads): the last position with those 4 (5)
 * bytes is the nearest 4- (5-) byte match, all a tree would have offered
 * for that length. The ratio stays about that of 4-byte roots; fewer or
 * more head slots did no better. */
#define BT_HEAD_BITS 18u
#define HEAD_SIZE (1u << BT_HEAD_BITS)
/* The hash chains' 2- and 3-byte heads are hashed into 512 slots each:
 * 4 KiB that stay in L1, where 2 x 65536 slots would take 512 KiB of
 * the ~2 MiB the fast levels keep hot. A slot's position may start with
 * other bytes (checked), and a small 3-byte table remembers only recent
 * positions, which suits the fast parser: it has no prices, and a far
 * 3-byte match costs more bits than its literals. So the small tables
 * give smaller archives than large exact ones at -mx1..4, and 512 slots
 * do as well as 1024. */
#define HC_HASH2_BITS FZ7_LZ_HC_HASH2_BITS
#define HC_HASH2_SIZE (1u << HC_HASH2_BITS)
#define HC_HASH3_BITS FZ7_LZ_HC_HASH3_BITS
#define HC_HASH3_SIZE (1u << HC_HASH3_BITS)
#define GOLDEN FZ7_LZ_GOLDEN

/* rdx (lz_radix.h): the table covers blocks of rdx_block positions on a
 * fixed grid of stream positions, each built from the rdx_prefix
 * positions before it too, so a block's first positions reach at least
 * that far back and its last ones a prefix and a block. Half the
 * dictionary each, and at most 4 MiB: the table takes 12 bytes and the
 * sort 9 bytes a position, and longer blocks cost more time than the
 * bytes they save (at two threads the sort falls behind the coder). A
 * block and its prefix fit in the dictionary,
 * which the window always keeps before pos: a block entered late (after
 * a pass) still finds its prefix there. The table's distances fit 24
 * bits: the reach is at most 16 MiB. */
#define RDX_REACH_MAX ((uint32_t)1 << 24)
#define RDX_BLOCK_MAX ((uint32_t)4 << 20)
#define RDX_DEPTH_MIN 12u
#define RDX_DEPTH_MAX 255u
/* The head of anchors (rdx_heads_set) has 2^RDX_FAR_BITS slots: with
 * fewer, the anchors of a 32 MiB dictionary (one in 16 positions) evict
 * each other. */
#define RDX_FAR_BITS 20u
#define RDX_FAR_SIZE (1u << RDX_FAR_BITS)

static uint32_t rdx_block(uint32_t dict_size)
{
    uint32_t b = dict_size / 2;
    return b > RDX_BLOCK_MAX ? RDX_BLOCK_MAX : b;
}

static uint32_t rdx_prefix(uint32_t dict_size)
{
    return rdx_block(dict_size);
}

/* The sort's depth cut: nice_len within the table's length byte. */
static uint32_t rdx_depth(uint32_t nice_len)
{
    return nice_len < RDX_DEPTH_MIN ? RDX_DEPTH_MIN : nice_len > RDX_DEPTH_MAX ? RDX_DEPTH_MAX : nice_len;
}

/* A block's table is built from the positions [t0 - prefix, t1) and the
 * bytes up to t1 + depth + 1 (or the input's end): the same table however
 * the input arrived and whichever thread builds it. */
typedef struct fz7_lz_rdx {
    fz7_lz_radix_work work;
    fz7_lz_radix_entry *table;   /* positions [t0, t1) */
    uint64_t base;               /* stream position of buf[0] */
    uint64_t t0, t1;             /* stream positions the table covers */
    uint32_t block, prefix, depth, reach;
    int ended;                   /* the input has ended (fz7_lz_mf_input_end) */
    /* The builder thread (fz7_lz_mf_rdx_thread): it builds the block after
     * the coder's from its own copy of the bytes, so the window may move
     * meanwhile. job: 0 none, 1 posted, 2 built. A coder that waits for
     * the job sorts parts of it too (sorting: the job while its parts are
     * handed out; helpers: coders inside fz7_lz_radix_sort). */
    int threaded, job, quit, helpers;
    fz7_lz_radix_job *sorting;
    uint64_t post_at;            /* 0, or the block to post once its bytes are in */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    fz7_lz_radix_entry *next;    /* the job's table */
    uint8_t *copy;               /* the job's bytes from job_lo */
    uint32_t copy_len;
    uint64_t job_lo, job_t0, job_t1;
} fz7_lz_rdx;

static void rdx_thread_stop(fz7_lz_rdx *r);
static void rdx_restart(fz7_lz_rdx *r);

/* Extra window room beyond keep_before: the block filled between moves.
 * A move copies keep_before bytes, so a quarter of the dictionary costs
 * four bytes copied per input byte (little beside the match finder's
 * work) and keeps a long input's window a quarter of the
 * dictionary smaller than half a dictionary would. (An eighth is
 * worse on an input just longer than the dictionary: one move at the end
 * pins the whole window, where release_dead would have trimmed it.) */
static uint32_t block_size(int kind, uint32_t dict_size)
{
    /* Two blocks and their max_len, with room to spare: with the builder
     * thread the coder keeps the next block's bytes in while it reads
     * this one's. */
    if (kind == FZ7_LZ_RDX)
        return 2 * rdx_block(dict_size) + ((uint32_t)1 << 20);
    uint32_t b = dict_size / 4;
    return b < (1u << 20) ? (1u << 20) : b;
}

/* The tables are read at random, one TLB miss per access with 4 KiB
 * pages: large ones are mapped 2 MiB-aligned and offered to the kernel as
 * huge pages (THP in madvise mode). Only the whole 2 MiB pages are
 * offered: the tail (the son array's one extra slot pair, the 2- and
 * 3-byte heads past the 4-byte ones) stays in 4 KiB pages, else each
 * table would pin up to 2 MiB more than it uses. Anonymous maps arrive
 * zeroed. */
#define HUGE_PAGE ((size_t)2 << 20)
#if defined(__linux__) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 /* Linux 6.1 uapi; older glibc headers lack it */
#endif
#define SMALL_PAGE ((size_t)4096)

static size_t map_len(size_t n)
{
    return (n + SMALL_PAGE - 1) & ~(SMALL_PAGE - 1);
}

/* used: bytes from the start expected to be touched (the rest of a
 * table that fills from the front stays in 4 KiB pages too). */
static void *big_alloc(size_t n, size_t used)
{
    if (n < HUGE_PAGE)
        return calloc(1, n);
    size_t len = map_len(n);
    uint8_t *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (p + len < raw + len + HUGE_PAGE)
        munmap(p + len, (size_t)(raw + len + HUGE_PAGE - (p + len)));
#ifdef MADV_HUGEPAGE
    size_t huge = (used < n ? used : n) & ~(HUGE_PAGE - 1);
    if (huge > 0)
        (void)madvise(p, huge, MADV_HUGEPAGE);
#endif
    return p;
}

static void big_free(void *p, size_t n)
{
    if (!p)
        return;
    if (n < HUGE_PAGE)
        free(p);
    else
        munmap(p, map_len(n));
}

/* Bits of the root table: half the dictionary's positions, 2^16..2^24.
 * bt4 stops at 2^23 (32 MiB): its roots hash 6 bytes, and a tree is
 * ordered by the bytes, so two 6-byte contexts sharing a root still give
 * the same matches until the depth cut: stopping there saves peak
 * memory for about the same archive. */
static uint32_t root_bits(int kind, uint32_t dict_size)
{
    if (kind == FZ7_LZ_BT2)
        return 16;
    if (kind == FZ7_LZ_RDX)
        return 0;   /* no roots: one unused slot */
    return fz7_lz_head_bits(dict_size, kind == FZ7_LZ_BT4 ? 23 : 24);
}

/* Bytes a position needs ahead of it to be hashed. */
static uint32_t hash_bytes(int kind)
{
    return kind == FZ7_LZ_BT2 ? 2 : kind == FZ7_LZ_BT3 ? 3 : kind == FZ7_LZ_HC5 ? 5
           : kind == FZ7_LZ_BT4 || kind == FZ7_LZ_RDX ? 6 : 4;
}

/* Entries of the 2-byte head table (the first of the heads). */
static uint32_t hash2_entries(int kind)
{
    return fz7_lz_is_hc(kind) ? HC_HASH2_SIZE : HASH2_SIZE;
}

/* Entries of the 3-byte head table (after the 2-byte one); bt4's 4- and
 * 5-byte heads follow it inside this count (at hash3 + HASH3_SIZE and
 * hash3 + HASH3_SIZE + HEAD_SIZE), and rdx's head of anchors. */
static uint32_t hash3_entries(int kind)
{
    return fz7_lz_is_hc(kind)     ? HC_HASH3_SIZE
           : kind == FZ7_LZ_BT4 ? HASH3_SIZE + 2 * HEAD_SIZE
           : kind == FZ7_LZ_RDX ? HASH3_SIZE + RDX_FAR_SIZE
                                : HASH3_SIZE;
}

static uint64_t son_entries(int kind, uint32_t dict_size)
{
    if (kind == FZ7_LZ_RDX)
        return 0;
    return (uint64_t)(dict_size + 1u) * (fz7_lz_is_hc(kind) ? 1u : 2u);
}

/* True when a hash chain's heads and links (together more than half of
 * 2 MiB, at most 2 MiB: dict 256 KiB at -mx1, 1.5 MiB) share one huge
 * page, and likewise its window (1.3 MiB at -mx1): every chain step,
 * head access and candidate's bytes then hit one of two TLB entries
 * instead of walking ~450 small pages. Not for an input known to be
 * small (size_hint below half of `fill`, the bytes the input would fill). */
static int hc_one_page(int kind, size_t a_bytes, size_t b_bytes, uint64_t size_hint, uint32_t fill)
{
    size_t total = a_bytes + b_bytes;
    return (fz7_lz_is_hc(kind) || kind == FZ7_LZ_HB5) && total <= HUGE_PAGE && total > HUGE_PAGE / 2
           && (size_hint == 0 || size_hint >= fill / 2);
}

/* rdx's table and the sort's scratch. */
static uint64_t rdx_bytes(uint32_t dict_size)
{
    uint32_t block = rdx_block(dict_size);
    return sizeof(fz7_lz_rdx) + (uint64_t)block * sizeof(fz7_lz_radix_entry)
           + fz7_lz_radix_work_bytes(block + rdx_prefix(dict_size));
}

uint64_t fz7_lz_mf_memusage(int kind, uint32_t dict_size, uint32_t keep_extra)
{
    uint64_t window = (uint64_t)dict_size + keep_extra + block_size(kind, dict_size);
    uint64_t heads = hash2_entries(kind) + hash3_entries(kind) + ((uint64_t)1 << root_bits(kind, dict_size));
    if (hc_one_page(kind, (size_t)window, 0, 0, (uint32_t)window))
        window = HUGE_PAGE;
    if (kind == FZ7_LZ_HB5)
        return window + fz7_lz_hb_table_bytes(dict_size);
    if (hc_one_page(kind, (size_t)heads * 4, (size_t)son_entries(kind, dict_size) * 4, 0, dict_size + 1))
        return window + HUGE_PAGE;
    if (kind == FZ7_LZ_RDX)
        window += rdx_bytes(dict_size);
    return window + 4 * (heads + son_entries(kind, dict_size));
}

int fz7_lz_mf_init(fz7_lz_mf *mf, int kind, uint32_t dict_size, uint32_t keep_extra,
                   uint32_t nice_len, uint32_t depth, uint32_t ways, uint64_t size_hint)
{
    memset(mf, 0, sizeof(*mf));
    if (depth == 0 || (kind == FZ7_LZ_HB5 && ways != 8 && ways != 16))
        return -1;
    uint64_t window = (uint64_t)dict_size + keep_extra + block_size(kind, dict_size);
    if (window > 0xC0000000u)
        return -1;
    mf->kind = kind;
    mf->dict_size = dict_size;
    mf->cyclic_size = dict_size + 1;
    mf->keep_before = dict_size + keep_extra;
    mf->buf_size = (uint32_t)window;
    mf->nice_len = nice_len;
    mf->depth = depth;
    mf->ways = ways;
    uint32_t bits = root_bits(kind, dict_size);
    mf->hash4_mask = (1u << bits) - 1;
    mf->hash4_shift = 32 - bits;
    size_t heads = hash2_entries(kind) + hash3_entries(kind) + ((size_t)1 << bits);
    /* The son array fills from the front, one slot per position: with a
     * known input size only what it will use is offered as huge pages. */
    size_t son_bytes = (size_t)son_entries(kind, dict_size) * sizeof(uint32_t);
    size_t son_used = son_bytes;
    if (size_hint > 0 && size_hint < mf->cyclic_size)
        son_used = (size_t)((size_hint + 1) * (son_entries(kind, dict_size) / mf->cyclic_size) * sizeof(uint32_t));
    if (hc_one_page(kind, mf->buf_size, 0, size_hint, mf->buf_size)) {
        mf->buf_mapped = HUGE_PAGE;
        mf->buf = big_alloc(HUGE_PAGE, HUGE_PAGE);
    } else {
        mf->buf = big_alloc(mf->buf_size, 0);
    }
    if (kind == FZ7_LZ_HB5) {
        if (!mf->buf || fz7_lz_hb_alloc(mf) != 0) {
            fz7_lz_mf_free(mf);
            return -1;
        }
        goto tables_done;
    }
    if (kind == FZ7_LZ_RDX) {
        mf->hash2 = big_alloc(heads * sizeof(uint32_t), heads * sizeof(uint32_t));
        mf->rdx = calloc(1, sizeof(*mf->rdx));
        if (!mf->buf || !mf->hash2 || !mf->rdx) {
            fz7_lz_mf_free(mf);
            return -1;
        }
        fz7_lz_rdx *r = mf->rdx;
        r->block = rdx_block(dict_size);
        r->prefix = rdx_prefix(dict_size);
        r->depth = rdx_depth(nice_len);
        r->reach = dict_size < RDX_REACH_MAX ? dict_size : RDX_REACH_MAX;
        r->table = malloc((size_t)r->block * sizeof(*r->table));
        if (!r->table || fz7_lz_radix_work_init(&r->work, r->block + r->prefix) != 0) {
            fz7_lz_mf_free(mf);
            return -1;
        }
    } else if (hc_one_page(kind, heads * sizeof(uint32_t), son_bytes, size_hint, mf->cyclic_size)) {
        mf->hash2 = big_alloc(HUGE_PAGE, HUGE_PAGE);
        mf->son = mf->hash2 ? mf->hash2 + heads : NULL;
    } else {
        mf->hash2 = big_alloc(heads * sizeof(uint32_t), heads * sizeof(uint32_t));
        mf->son = big_alloc(son_bytes, son_used);
    }
    if (!mf->buf || !mf->hash2 || (!mf->son && kind != FZ7_LZ_RDX)) {
        fz7_lz_mf_free(mf);
        return -1;
    }
    mf->hash3 = mf->hash2 + hash2_entries(kind);
    mf->hash4 = mf->hash3 + hash3_entries(kind);
tables_done:
    /* Empty heads (0) must always be at least cyclic_size away: out of
     * reach. Stored positions start high, so the first streams longer than
     * the window already normalise (that path is then tested by every long
     * stream, not only by those past 4 GiB); they restart at cyclic_size. */
    mf->offset = mf->cyclic_size;
    if ((uint64_t)mf->buf_size * 2 + mf->cyclic_size < 0xFFFFFFFFu)
        mf->offset = 0xFFFFFFFFu - 2 * mf->buf_size;
    mf->match_len = fz7_match_len_pick()->fn;
    mf->hash_mask = fz7_hash_mask_pick()->fn;
    mf->record_max = UINT32_MAX;
    return 0;
}

void fz7_lz_mf_free(fz7_lz_mf *mf)
{
    if (mf->own_buf) {
        mf->buf = mf->own_buf;
        mf->buf_size = mf->own_size;
    }
    size_t heads = hash2_entries(mf->kind) + hash3_entries(mf->kind) + (size_t)mf->hash4_mask + 1;
    big_free(mf->buf, mf->buf_mapped ? mf->buf_mapped : mf->buf_size);
    if (mf->kind == FZ7_LZ_HB5)
        fz7_lz_hb_free(mf);
    else if (mf->hash2 && mf->son == mf->hash2 + heads) {
        big_free(mf->hash2, HUGE_PAGE);   /* hc_one_page */
    } else {
        big_free(mf->hash2, heads * sizeof(uint32_t));
        big_free(mf->son, (size_t)son_entries(mf->kind, mf->dict_size) * sizeof(uint32_t));
    }
    if (mf->rdx) {
        rdx_thread_stop(mf->rdx);
        fz7_lz_radix_work_free(&mf->rdx->work);
        free(mf->rdx->table);
        free(mf->rdx);
        mf->rdx = NULL;
    }
    mf->buf = NULL;
    mf->hash2 = mf->hash3 = mf->hash4 = mf->son = NULL;
}

/* Lowers every stored position so that offset returns to cyclic_size;
 * values that would go below 1 are out of reach anyway and become 0. */
static void normalise(fz7_lz_mf *mf)
{
    uint32_t sub = mf->offset - mf->cyclic_size;
    mf->repeat_len = 0;
    if (mf->kind == FZ7_LZ_HB5) {
        fz7_lz_hb_normalise(mf, sub);
        mf->offset -= sub;
        return;
    }
    size_t heads = hash2_entries(mf->kind) + hash3_entries(mf->kind) + (size_t)mf->hash4_mask + 1;
    size_t sons = (size_t)son_entries(mf->kind, mf->dict_size);
    for (size_t i = 0; i < heads; i++)
        mf->hash2[i] = mf->hash2[i] > sub ? mf->hash2[i] - sub : 0;
    for (size_t i = 0; i < sons && mf->son; i++)
        mf->son[i] = mf->son[i] > sub ? mf->son[i] - sub : 0;
    mf->offset -= sub;
}

/* Bytes more than keep_before behind pos are never read again (the next
 * move of the window drops them): their whole 2 MiB pages are given back
 * as pos advances, so an input somewhat longer than the dictionary does
 * not pin all it has read. Only until the first move: the next move
 * writes over every dead page (they lie within keep_before of the
 * start), so a stream would fault, zero and collapse them again each
 * block for nothing. */
static void release_dead(fz7_lz_mf *mf)
{
#ifdef MADV_DONTNEED
    if (mf->own_buf || mf->buf_size < HUGE_PAGE || mf->pos <= mf->keep_before || mf->moved)
        return;
    uint32_t dead = (mf->pos - mf->keep_before) & ~(uint32_t)(HUGE_PAGE - 1);
    if (dead > mf->released) {
        (void)madvise(mf->buf + mf->released, dead - mf->released, MADV_DONTNEED);
        mf->released = dead;
    }
#else
    (void)mf;
#endif
}

/* The window's bytes are read at random too (huge pages save TLB misses
 * there as well), but a huge page faulted in at the write front pins 2 MiB
 * ahead of the data. So the window is written in 4 KiB pages and each
 * 2 MiB page, once full, is collapsed into a huge one (a copy of 2 MiB;
 * kernels without MADV_COLLAPSE keep the small pages). */
static void collapse_full(fz7_lz_mf *mf)
{
#ifdef MADV_COLLAPSE
    if (mf->own_buf || mf->buf_size < HUGE_PAGE)
        return;
    uint32_t full = mf->end & ~(uint32_t)(HUGE_PAGE - 1);
    uint32_t from = mf->huge_end > mf->released ? mf->huge_end : mf->released;
    if (full > from)
        (void)madvise(mf->buf + from, full - from, MADV_COLLAPSE);
    if (full > mf->huge_end)
        mf->huge_end = full;
#else
    (void)mf;
#endif
}

size_t fz7_lz_mf_append(fz7_lz_mf *mf, const uint8_t *data, size_t n)
{
    if (mf->own_buf) {
        if (data != mf->buf + mf->end)
            return 0;
        if (n > mf->buf_size - mf->end)
            n = mf->buf_size - mf->end;
        mf->end += (uint32_t)n;
        return n;
    }
    if (mf->end == mf->buf_size && mf->pos > mf->keep_before) {
        uint32_t drop = mf->pos - mf->keep_before;
        memmove(mf->buf, mf->buf + drop, mf->end - drop);
        mf->pos -= drop;
        mf->end -= drop;
        mf->offset += drop;
        mf->moved = 1;
        if (mf->rdx)
            mf->rdx->base += drop;
        /* The move rewrites pages but does not remap them: those already
         * collapsed stay huge, unless pages were given back (those come
         * back small). Collapsing them again would copy 2 MiB per move,
         * and with several encoders the kernel's compaction for it took
         * most of the process's system time. */
        if (mf->released > 0)
            mf->huge_end = 0;
        mf->released = 0;
        if (mf->offset > 0xFFFFFFFFu - mf->buf_size - 1)
            normalise(mf);
    } else {
        release_dead(mf);
    }
    size_t room = mf->buf_size - mf->end;
    if (n > room)
        n = room;
    memcpy(mf->buf + mf->end, data, n);
    mf->end += (uint32_t)n;
    collapse_full(mf);
    return n;
}

typedef fz7_match_len_fn match_len_fn;
#define extend_by fz7_lz_extend_by

static inline uint32_t extend(const fz7_lz_mf *mf, const uint8_t *a, const uint8_t *b, uint32_t start, uint32_t lim)
{
    return extend_by(mf->match_len, a, b, start, lim);
}

static inline void advance(fz7_lz_mf *mf)
{
    mf->pos++;
    if (++mf->cyclic_pos == mf->cyclic_size)
        mf->cyclic_pos = 0;
}

/* Slot in the binary trees' 3-byte head table of the 3 bytes at p. */
static inline uint32_t hash3_of(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (v * GOLDEN) >> (32 - BT_HASH3_BITS);
}

/* Slot in bt4's 4-byte head table (hashed, 2^18 slots) of the 4 bytes at p. */
static inline uint32_t head4_of(const uint8_t *p)
{
    return (fz7_get32le(p) * GOLDEN) >> (32 - BT_HEAD_BITS);
}

/* Slot in bt4's 5-byte head table (hashed, 2^18 slots) of the 5 bytes at p. */
static inline uint32_t head5_of(const uint8_t *p)
{
    return fz7_lz_hash5(p, 32 - BT_HEAD_BITS);
}

/* bt4's root hash of the 6 bytes at p, in the top 32 - shift bits. */
static inline uint32_t hash6_of(const uint8_t *p, uint32_t shift)
{
    uint32_t tail = (uint32_t)p[4] | ((uint32_t)p[5] << 8);
    return ((fz7_get32le(p) * GOLDEN) ^ (tail * 0x2545F491u)) >> shift;
}

/* Slot in the binary trees' 2-byte head table of the 2 bytes at p. */
static inline uint32_t bt_hash2_of(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
    return (v * GOLDEN) >> (32 - BT_HASH2_BITS);
}

/* Index into hash4 of the tree/chain root for the bytes at p, for a
 * match finder of the given kind (the hash-chain paths pass a constant,
 * so the switch folds away instead of running at every position). */
__attribute__((always_inline)) static inline uint32_t root_kind(const fz7_lz_mf *mf, const uint8_t *p, int kind)
{
    switch (kind) {
    case FZ7_LZ_BT2:
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
    case FZ7_LZ_BT3: {
        uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
        return (v * GOLDEN) >> mf->hash4_shift;
    }
    case FZ7_LZ_HC5:
        /* Fewer candidates fail on 5-byte chains (7-Zip's fast levels
         * use hc5 as well). */
        return fz7_lz_hash5(p, mf->hash4_shift);
    case FZ7_LZ_BT4:
        return hash6_of(p, mf->hash4_shift);   /* smaller trees (BT_HEAD_BITS) */
    default: {
        uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        return (v * GOLDEN) >> mf->hash4_shift;
    }
    }
}

static inline uint32_t root_of(const fz7_lz_mf *mf, const uint8_t *p)
{
    return root_kind(mf, p, mf->kind);
}

static inline uint32_t slot_of(const fz7_lz_mf *mf, uint32_t delta)
{
    return mf->cyclic_pos >= delta ? mf->cyclic_pos - delta : mf->cyclic_pos - delta + mf->cyclic_size;
}

/* The 3-byte head's candidate, d3 bytes back (0 or out of reach: none),
 * after the 2-byte one at d2: appended to m[n] when its 3 bytes are equal
 * and it extends past *best. Returns the new count. Both kinds' near
 * matches end here. */
__attribute__((always_inline)) static inline uint32_t near3(const fz7_lz_mf *mf, const uint8_t *cur, uint32_t d2,
                                                           uint32_t d3, uint32_t lim, fz7_lz_match *m, uint32_t n,
                                                           uint32_t *best)
{
    if (d3 != d2 && d3 - 1 < mf->dict_size && *best < lim && cur[-(ptrdiff_t)d3] == cur[0]
        && cur[1 - (ptrdiff_t)d3] == cur[1] && cur[2 - (ptrdiff_t)d3] == cur[2]) {
        uint32_t len = extend(mf, cur, cur - d3, 3, lim);
        if (len > *best) {
            m[n].len = len;
            m[n].dist = d3;
            n++;
            *best = len;
        }
    }
    return n;
}

/* The 2-byte head's candidate d2 bytes back (its 2 bytes compared: the
 * head may be hashed), then near3's: the first matches of m, nearest
 * and shortest first. */
__attribute__((always_inline)) static inline uint32_t near23(const fz7_lz_mf *mf, const uint8_t *cur, uint32_t d2,
                                                            uint32_t d3, uint32_t lim, fz7_lz_match *m,
                                                            uint32_t *best)
{
    uint32_t n = 0;
    if (d2 - 1 < mf->dict_size && cur[-(ptrdiff_t)d2] == cur[0] && cur[1 - (ptrdiff_t)d2] == cur[1]) {
        uint32_t len = extend(mf, cur, cur - d2, 2, lim);
        m[n].len = len;
        m[n].dist = d2;
        n++;
        *best = len;
    }
    return near3(mf, cur, d2, d3, lim, m, n, best);
}

/* bt4's head of `bytes` (4 or 5) bytes, its candidate d bytes back: like
 * near3, appended when its first `bytes` bytes are equal and it extends
 * past *best. d_prev: the shorter head's candidate, just tried (a
 * candidate tried before cannot extend past *best again; skipping the
 * repeat only saves the compare). */
__attribute__((always_inline)) static inline uint32_t near_head(const fz7_lz_mf *mf, const uint8_t *cur, uint32_t d,
                                                               uint32_t d_prev, uint32_t bytes, uint32_t lim,
                                                               fz7_lz_match *m, uint32_t n, uint32_t *best)
{
    if (d != d_prev && d - 1 < mf->dict_size && *best < lim && fz7_get32le(cur - d) == fz7_get32le(cur)
        && (bytes == 4 || cur[4 - (ptrdiff_t)d] == cur[4])) {
        fz7_lz_keep_longer(m, &n, best, extend(mf, cur, cur - d, bytes, lim), d, lim);
    }
    return n;
}

/* The binary trees' near heads for the bytes at p, the slots every bt
 * path updates: bt3 the 2-byte one, bt4 those of 2, 3, 4 and 5 bytes (the
 * last two in hash3's tail); NULL where the kind has none. */
typedef struct bt_heads {
    uint32_t *h2, *h3, *h4, *h5;
} bt_heads;

__attribute__((always_inline)) static inline bt_heads bt_heads_of(const fz7_lz_mf *mf, const uint8_t *p, int kind)
{
    bt_heads h = {NULL, NULL, NULL, NULL};
    if (kind != FZ7_LZ_BT2) {
        h.h2 = &mf->hash2[bt_hash2_of(p)];
        if (kind == FZ7_LZ_BT4) {
            h.h3 = &mf->hash3[hash3_of(p)];
            h.h4 = &mf->hash3[HASH3_SIZE + head4_of(p)];
            h.h5 = &mf->hash3[HASH3_SIZE + HEAD_SIZE + head5_of(p)];
        }
    }
    return h;
}

/* Sets the heads of bt_heads_of to v. */
__attribute__((always_inline)) static inline void bt_heads_set(bt_heads h, uint32_t v, int kind)
{
    if (kind != FZ7_LZ_BT2) {
        *h.h2 = v;
        if (kind == FZ7_LZ_BT4)
            *h.h3 = *h.h4 = *h.h5 = v;
    }
}

/* The binary trees' 2- and 3-byte heads: the last earlier position whose
 * 2 bytes hash to the same slot (counted when they are equal) and
 * likewise for 3 bytes, and for bt4 4 and 5 bytes (its trees hold 6-byte
 * repeats). Updates the heads and appends matches longer than *best. The
 * heads' distances grow with their byte count, so the matches stay the
 * nearest of their lengths. kind:
 * mf->kind (a constant on each bt path, which inlines it). The hash
 * chains have their own, hc_near_matches. */
__attribute__((always_inline)) static inline uint32_t near_matches_kind(fz7_lz_mf *mf, const uint8_t *cur,
                                                                       uint32_t stored, uint32_t lim,
                                                                       fz7_lz_match *m, uint32_t *best,
                                                                       int kind)
{
    bt_heads h = bt_heads_of(mf, cur, kind);
    uint32_t d2 = stored - *h.h2;
    uint32_t d3 = 0, d4 = 0, d5 = 0;
    if (kind == FZ7_LZ_BT4) {
        d3 = stored - *h.h3;
        d4 = stored - *h.h4;
        d5 = stored - *h.h5;
    }
    bt_heads_set(h, stored, kind);
    uint32_t n = near23(mf, cur, d2, d3, lim, m, best);
    if (kind == FZ7_LZ_BT4) {
        n = near_head(mf, cur, d4, d3, 4, lim, m, n, best);
        n = near_head(mf, cur, d5, d4, 5, lim, m, n, best);
    }
    return n;
}

/* Slot in the hash chains' 3-byte head table of the 3 bytes at p. */
static inline uint32_t hc_hash3_of(const uint8_t *p) { return fz7_lz_hc_hash3(p); }

/* Slot in the hash chains' 2-byte head table of the 2 bytes at p. */
static inline uint32_t hc_hash2_of(const uint8_t *p) { return fz7_lz_hc_hash2(p); }

/* near_matches for the hash-chain kinds, whose 2-byte heads are hashed:
 * the candidate's first 2 bytes are compared before it counts. */
__attribute__((always_inline)) static inline uint32_t hc_near_matches(fz7_lz_mf *mf, const uint8_t *cur,
                                                                     uint32_t stored, uint32_t lim,
                                                                     fz7_lz_match *m, uint32_t *best)
{
    uint32_t h2 = hc_hash2_of(cur), h3 = hc_hash3_of(cur);
    uint32_t d2 = stored - mf->hash2[h2];
    uint32_t d3 = stored - mf->hash3[h3];
    mf->hash2[h2] = stored;
    mf->hash3[h3] = stored;
    return near23(mf, cur, d2, d3, lim, m, best);
}

static uint32_t hc_find(fz7_lz_mf *mf, const uint8_t *cur, uint32_t lim, fz7_lz_match *m, int collect)
{
    uint32_t stored = mf->pos + mf->offset;
    uint32_t best = 1, n = 0;
    if (collect) {
        n = hc_near_matches(mf, cur, stored, lim, m, &best);
    } else {
        mf->hash2[hc_hash2_of(cur)] = stored;
        mf->hash3[hc_hash3_of(cur)] = stored;
    }
    uint32_t r = root_of(mf, cur);
    uint32_t cand = mf->hash4[r];
    mf->hash4[r] = stored;
    mf->son[mf->cyclic_pos] = cand;
    if (!collect || best >= lim)
        return n;
    for (uint32_t depth = mf->depth; depth > 0; depth--) {
        uint32_t delta = stored - cand;
        if (delta == 0 || delta > mf->dict_size)
            break;
        const uint8_t *p = cur - delta;
        if (p[best] == cur[best] && p[0] == cur[0]) {
            uint32_t len = extend(mf, p, cur, 0, lim);
            if (fz7_lz_keep_longer(m, &n, &best, len, delta, lim))
                break;
        }
        cand = mf->son[slot_of(mf, delta)];
    }
    return n;
}

/* One hash-chain search in progress (hc_find_pair). */
typedef struct hc_walk {
    const uint8_t *cur;
    uint32_t stored, cyclic, cand, depth, lim, best, n;
    fz7_lz_match *m;
} hc_walk;

/* Heads and near matches for w->cur; returns the old head of root r (the
 * chain link the new position gets). */
__attribute__((always_inline)) static inline uint32_t hc_start(fz7_lz_mf *mf, hc_walk *w, uint32_t r)
{
    w->best = 1;
    w->n = hc_near_matches(mf, w->cur, w->stored, w->lim, w->m, &w->best);
    w->cand = mf->hash4[r];
    mf->hash4[r] = w->stored;
    w->depth = w->best >= w->lim ? 0 : mf->depth;
    return w->cand;
}

/* Visits one chain entry as hc_find does; 0 once the search is over. */
static inline int hc_step(const fz7_lz_mf *mf, hc_walk *w)
{
    uint32_t delta = w->stored - w->cand;
    if (w->depth == 0 || delta - 1 >= mf->dict_size)   /* delta 0 wraps: out of reach too */
        return 0;
    w->depth--;
    /* The next link is loaded before the bytes are compared, and the
     * empty asm keeps it there: a mispredicted compare then no longer
     * throws the load away, so the chain walk does not wait for the
     * candidate's bytes and the link one after the other. */
    uint32_t slot = w->cyclic >= delta ? w->cyclic - delta : w->cyclic - delta + mf->cyclic_size;
    uint32_t next = mf->son[slot];
    __asm__("" : "+r"(next));
    const uint8_t *cur = w->cur, *p = cur - delta;
    if (p[w->best] == cur[w->best] && p[0] == cur[0]) {
        uint32_t len = extend(mf, p, cur, 0, w->lim);
        if (len > w->best) {
            w->m[w->n].len = len;
            w->m[w->n].dist = delta;
            w->n++;
            w->best = len;
            if (len == w->lim)
                return 0;
        }
    }
    w->cand = next;
    return 1;
}

/* hc4/hc5 search of pos and pos + 1 together when their roots differ (the
 * chains are then disjoint), walks interleaved; pos + 1's link is stored
 * last since its slot is the one exactly dict_size before pos, which the
 * search of pos may still read. Same results as two hc_find calls; both
 * positions need lim = nice_len. 0 (nothing done) if the roots are equal. */
__attribute__((always_inline)) static inline int hc_find_pair(fz7_lz_mf *mf, fz7_lz_match *ma, uint32_t *na,
                                                             fz7_lz_match *mb, uint32_t *nb, int kind)
{
    const uint8_t *cur = mf->buf + mf->pos;
    uint32_t ra = root_kind(mf, cur, kind), rb = root_kind(mf, cur + 1, kind);
    if (ra == rb)
        return 0;
    hc_walk a, b;
    a.cur = cur;
    a.stored = mf->pos + mf->offset;
    a.cyclic = mf->cyclic_pos;
    a.lim = mf->nice_len;
    a.m = ma;
    b.cur = cur + 1;
    b.stored = a.stored + 1;
    b.cyclic = a.cyclic + 1 == mf->cyclic_size ? 0 : a.cyclic + 1;
    b.lim = mf->nice_len;
    b.m = mb;
    mf->son[a.cyclic] = hc_start(mf, &a, ra);
    uint32_t link_b = hc_start(mf, &b, rb);
    int go_a, go_b;
    do {
        go_a = hc_step(mf, &a);
        go_b = hc_step(mf, &b);
    } while (go_a && go_b);
    while (go_a)
        go_a = hc_step(mf, &a);
    while (go_b)
        go_b = hc_step(mf, &b);
    mf->son[b.cyclic] = link_b;
    *na = a.n;
    *nb = b.n;
    return 1;
}

/* One binary-tree walk: inserts a position as the new root of its tree
 * while searching it. Candidates that sort below cur hang on the new
 * node's left (son pair[0]), those above on its right (pair[1]); side 1
 * is the left, side 0 the right: link[side] points at the link still to
 * be filled on that side, len[side] is how many bytes the candidates hung
 * there share with cur. m: where matches go (NULL: none collected). */
typedef struct bt_walk {
    const uint8_t *cur;
    uint32_t stored, cyclic;  /* the position (stored value) and its slot */
    uint32_t cand, depth, lim, best, n;
    uint32_t full;            /* the distance where the walk reached lim, or 0 */
    uint32_t len[2];
    uint32_t *link[2];
    fz7_lz_match *m;
} bt_walk;

/* Updates the heads for w->cur (collecting the 2-/3-byte matches if
 * w->m) and makes the root's old head the first candidate. links: where
 * the new node's two children go (normally its son pair). */
__attribute__((always_inline)) static inline void bt_start(fz7_lz_mf *mf, bt_walk *w, uint32_t r,
                                                         uint32_t *links, int kind)
{
    const uint8_t *cur = w->cur;
    w->best = 1;
    w->n = 0;
    if (kind != FZ7_LZ_BT2) {
        if (w->m) {
            uint32_t best = 1;   /* a local: &w->best would keep w out of registers */
            w->n = near_matches_kind(mf, cur, w->stored, w->lim, w->m, &best, kind);
            w->best = best;
        } else {
            bt_heads_set(bt_heads_of(mf, cur, kind), w->stored, kind);
        }
    }
    w->cand = mf->hash4[r];
    mf->hash4[r] = w->stored;
    w->link[1] = links;
    w->link[0] = links + 1;
    w->len[0] = w->len[1] = 0;
    w->depth = mf->depth;
    w->full = 0;
}

/* The tables as a walk reads them, copied into locals: the walk's stores
 * go through uint32_t pointers, which the compiler must otherwise assume
 * may change mf's fields, reloading them at every step. */
typedef struct bt_tables {
    uint32_t *son;
    uint32_t dict_size, cyclic_size;
    uint32_t (*match_len)(const uint8_t *a, const uint8_t *b, uint32_t limit);
} bt_tables;

static inline bt_tables bt_tables_of(const fz7_lz_mf *mf)
{
    bt_tables t = {mf->son, mf->dict_size, mf->cyclic_size, mf->match_len};
    return t;
}

/* extend with the kernel from t (same result). */
static inline uint32_t bt_extend(const bt_tables t, const uint8_t *a, const uint8_t *b, uint32_t start, uint32_t lim)
{
    return extend_by(t.match_len, a, b, start, lim);
}

/* Visits one candidate; returns 0 once the walk is over (both links of
 * the last node written). The side is a branch on purpose: a
 * branch-free select makes the next node's load wait for this node's
 * bytes, a predicted branch issues it at once. */
__attribute__((always_inline)) static inline int bt_step(const bt_tables t, bt_walk *w)
{
    uint32_t delta = w->stored - w->cand;
    if (w->depth == 0 || delta - 1 >= t.dict_size) {   /* delta 0 wraps: out of reach too */
        *w->link[0] = 0;
        *w->link[1] = 0;
        return 0;
    }
    w->depth--;
    uint32_t slot = w->cyclic >= delta ? w->cyclic - delta : w->cyclic - delta + t.cyclic_size;
    uint32_t *pair = &t.son[2 * (size_t)slot];
    const uint8_t *cur = w->cur, *p = cur - delta;
    /* Both children are likely next: start loading them while this
     * candidate's bytes are compared. A child is pair[k] - cand positions
     * from this candidate, so its node and bytes lie that far from pair
     * and p. No test that the child exists or is in reach and no slot
     * wrap: for those the address is off and the prefetch is lost, which
     * costs less than the branches (only the address is used, never the
     * load). */
    uint32_t len = w->len[0] < w->len[1] ? w->len[0] : w->len[1];
    for (int k = 0; k < 2; k++) {
        intptr_t x = (int32_t)(pair[k] - w->cand);
        __builtin_prefetch((const void *)((uintptr_t)pair + (uintptr_t)(x * 2 * (intptr_t)sizeof(*pair))), 1);
        __builtin_prefetch((const void *)((uintptr_t)p + (uintptr_t)(x + (intptr_t)len)), 0);
    }
    if (p[len] == cur[len]) {
        len = bt_extend(t, p, cur, len, w->lim);
        if (w->m && len > w->best) {
            w->m[w->n].len = len;
            w->m[w->n].dist = delta;
            w->n++;
            w->best = len;
        }
        if (len == w->lim) {
            /* Equal as far as we look: cand's subtrees become ours. */
            w->full = delta;
            *w->link[1] = pair[0];
            *w->link[0] = pair[1];
            return 0;
        }
    }
    if (p[len] < cur[len]) {
        *w->link[1] = w->cand;
        w->link[1] = pair + 1;
        w->cand = pair[1];
        w->len[1] = len;
    } else {
        *w->link[0] = w->cand;
        w->link[0] = pair;
        w->cand = pair[0];
        w->len[0] = len;
    }
    return 1;
}

/* kind: mf->kind, a constant in the bt4 copies (bt_find_bt4 and
 * bt_find_group_bt4), so their hashes need no switch on the kind. */
__attribute__((always_inline)) static inline uint32_t bt_find_kind(fz7_lz_mf *mf, const uint8_t *cur, uint32_t lim,
                                                                  fz7_lz_match *m, int collect, int kind)
{
    bt_walk w;
    w.cur = cur;
    w.stored = mf->pos + mf->offset;
    w.cyclic = mf->cyclic_pos;
    w.lim = lim;
    w.m = collect ? m : NULL;
    bt_start(mf, &w, root_kind(mf, cur, kind), &mf->son[2 * (size_t)mf->cyclic_pos], kind);
    const bt_tables t = bt_tables_of(mf);
    while (bt_step(t, &w))
        ;
    mf->repeat_dist = lim == mf->nice_len ? w.full : 0;
    return w.n;
}

/* Searches and inserts g positions from pos together when their roots
 * all differ: the trees then share no reachable node, so the walks can
 * run interleaved (g cache misses in flight instead of one) with the
 * result of running them one after the other. One exception is handled:
 * position pos + k reuses the slot of the node exactly dict_size - k + 1
 * before pos, which an earlier position's walk may still visit, so the
 * later positions' links are kept aside until all walks end (pos's slot
 * is out of everyone's reach and is linked during its walk). collect:
 * pos's matches go to m (count in *n), the later positions' to the
 * pending queue; else none are kept. Returns 0 (nothing done) unless
 * every root differs and every position gets lim = nice_len. g: 2 up to
 * FZ7_LZ_GROUP, a constant in each copy. */
__attribute__((always_inline)) static inline int bt_find_group_kind(fz7_lz_mf *mf, fz7_lz_match *m, uint32_t *n,
                                                                   int collect, int kind, int g)
{
    if (mf->end - mf->pos <= mf->nice_len + (uint32_t)g - 1)
        return 0;
    const uint8_t *cur = mf->buf + mf->pos;
    uint32_t r[FZ7_LZ_GROUP];
    for (int k = 0; k < g; k++) {
        r[k] = root_kind(mf, cur + k, kind);
        for (int j = 0; j < k; j++)
            if (r[j] == r[k])
                return 0;
    }
    bt_walk w[FZ7_LZ_GROUP];
    uint32_t links[FZ7_LZ_GROUP][2];
    uint32_t cyclic = mf->cyclic_pos;
    for (int k = 0; k < g; k++) {
        w[k].cur = cur + k;
        w[k].stored = mf->pos + mf->offset + (uint32_t)k;
        w[k].cyclic = cyclic;
        w[k].lim = mf->nice_len;
        w[k].m = !collect ? NULL : k == 0 ? m : mf->pending_matches[k - 1];
        bt_start(mf, &w[k], r[k], k == 0 ? &mf->son[2 * (size_t)cyclic] : links[k], kind);
        cyclic = cyclic + 1 == mf->cyclic_size ? 0 : cyclic + 1;
    }
    const bt_tables t = bt_tables_of(mf);
    unsigned live = (1u << g) - 1;
    do {
        for (int k = 0; k < g; k++)
            if ((live >> k & 1) && !bt_step(t, &w[k]))
                live &= ~(1u << k);
    } while (live);
    for (int k = 1; k < g; k++) {
        mf->son[2 * (size_t)w[k].cyclic] = links[k][0];
        mf->son[2 * (size_t)w[k].cyclic + 1] = links[k][1];
        mf->pending_count[k - 1] = w[k].n;
    }
    mf->repeat_dist = w[g - 1].full;
    if (n)
        *n = w[0].n;
    return 1;
}

static uint32_t bt_find(fz7_lz_mf *mf, const uint8_t *cur, uint32_t lim, fz7_lz_match *m, int collect)
{
    if (mf->kind == FZ7_LZ_BT4)
        return bt_find_kind(mf, cur, lim, m, collect, FZ7_LZ_BT4);
    return bt_find_kind(mf, cur, lim, m, collect, mf->kind);
}

/* The group search from pos of FZ7_LZ_GROUP positions when max is that
 * and they qualify, else of 2 (bt_find_group_kind); returns how many
 * positions were searched, 0 if none. */
__attribute__((always_inline)) static inline int bt_find_group_any(fz7_lz_mf *mf, fz7_lz_match *m, uint32_t *n,
                                                                  int collect, int max, int kind)
{
    if (max == FZ7_LZ_GROUP && bt_find_group_kind(mf, m, n, collect, kind, FZ7_LZ_GROUP))
        return FZ7_LZ_GROUP;
    return bt_find_group_kind(mf, m, n, collect, kind, 2) ? 2 : 0;
}

static __attribute__((noinline)) int bt_find_group_bt4(fz7_lz_mf *mf, fz7_lz_match *m, uint32_t *n, int collect,
                                                       int max)
{
    return bt_find_group_any(mf, m, n, collect, max, FZ7_LZ_BT4);
}

static int bt_find_group(fz7_lz_mf *mf, fz7_lz_match *m, uint32_t *n, int collect, int max)
{
    if (mf->kind == FZ7_LZ_BT4)
        return bt_find_group_bt4(mf, m, n, collect, max);
    return bt_find_group_any(mf, m, n, collect, max, mf->kind);
}

/* Prefetch distances (positions ahead of pos): the heads are requested
 * PREFETCH_HEADS positions early (the 4-byte one: the 2- and 3-byte
 * heads stay in L1); PREFETCH_NODE positions early the head
 * (by then in cache, though possibly about to be replaced) names the first
 * candidate, whose tree node and bytes are requested too. Only loads are
 * started here, so stale values cost time at worst, never output.
 * always_inline: GCC takes a static function that only prefetches for
 * pure and deletes its calls (the old prefetch_next never ran). */
#define PREFETCH_HEADS 16u
#define PREFETCH_NODE 4u

__attribute__((always_inline)) static inline void prefetch_kind(const fz7_lz_mf *mf, int kind)
{
    if (mf->end - mf->pos < PREFETCH_HEADS + 6)
        return;
    const uint8_t *far = mf->buf + mf->pos + PREFETCH_HEADS;
    __builtin_prefetch(&mf->hash4[root_kind(mf, far, kind)], 1);
    if (kind == FZ7_LZ_BT4) {
        /* bt4's 4- and 5-byte heads (2 MiB together) miss L2 too. */
        __builtin_prefetch(&mf->hash3[HASH3_SIZE + head4_of(far)], 1);
        __builtin_prefetch(&mf->hash3[HASH3_SIZE + HEAD_SIZE + head5_of(far)], 1);
    }
    const uint8_t *near = mf->buf + mf->pos + PREFETCH_NODE;
    uint32_t delta = mf->pos + PREFETCH_NODE + mf->offset - mf->hash4[root_kind(mf, near, kind)];
    if (fz7_lz_is_hc(kind)) {
        if (delta - 1 < mf->dict_size) {
            uint32_t slot = mf->cyclic_pos + PREFETCH_NODE;
            slot = slot >= mf->cyclic_size ? slot - mf->cyclic_size : slot;
            slot = slot >= delta ? slot - delta : slot - delta + mf->cyclic_size;
            __builtin_prefetch(&mf->son[slot], 1);
            __builtin_prefetch(near - delta, 0);
        }
        return;
    }
    /* The trees: as in bt_step, the candidate's node lies PREFETCH_NODE -
     * delta slots from pos's, with no in-reach test and no wrap fix-up (a
     * wrong address only loses the prefetch). */
    intptr_t x = (intptr_t)PREFETCH_NODE - (intptr_t)delta;
    __builtin_prefetch((const void *)((uintptr_t)&mf->son[2 * (size_t)mf->cyclic_pos]
                                      + (uintptr_t)(x * 2 * (intptr_t)sizeof(mf->son[0]))), 1);
    __builtin_prefetch((const void *)((uintptr_t)mf->buf + mf->pos + (uintptr_t)x), 0);
}

/* prefetch_kind for the hash chains (their 2- and 3-byte heads stay in
 * L1): the 4-/5-byte head PREFETCH_HEADS ahead; PREFETCH_NODE ahead the first candidate's chain
 * link and bytes. (Also requesting the second candidate two positions
 * ahead, or the first ones of the search after a skip run, costs more
 * than it saves.) */
__attribute__((always_inline)) static inline void hc_prefetch(const fz7_lz_mf *mf, int kind)
{
    if (mf->end - mf->pos < PREFETCH_HEADS + 5)
        return;
    const uint8_t *far = mf->buf + mf->pos + PREFETCH_HEADS;
    __builtin_prefetch(&mf->hash4[root_kind(mf, far, kind)], 1);
    const uint32_t ahead = PREFETCH_NODE;
    const uint8_t *p = mf->buf + mf->pos + ahead;
    uint32_t stored = mf->pos + ahead + mf->offset;
    uint32_t cyclic = mf->cyclic_pos + ahead;
    cyclic = cyclic >= mf->cyclic_size ? cyclic - mf->cyclic_size : cyclic;
    uint32_t delta = stored - mf->hash4[root_kind(mf, p, kind)];
    if (delta - 1 >= mf->dict_size)
        return;
    uint32_t slot = cyclic >= delta ? cyclic - delta : cyclic - delta + mf->cyclic_size;
    __builtin_prefetch(&mf->son[slot], 1);
    __builtin_prefetch(p - delta, 0);
}

__attribute__((always_inline)) static inline void prefetch_ahead(const fz7_lz_mf *mf)
{
    prefetch_kind(mf, mf->kind);
}

/* Advances pos by n (n below cyclic_size). */
static inline void advance_by(fz7_lz_mf *mf, uint32_t n)
{
    mf->pos += n;
    mf->cyclic_pos += n;
    if (mf->cyclic_pos >= mf->cyclic_size)
        mf->cyclic_pos -= mf->cyclic_size;
}

/* Binary trees at positions inside a run of one byte value: at such a
 * position q the root's head is q - 1 and the bytes up to lim are equal,
 * so the walk stops at its first candidate, q's node takes q - 1's
 * children, every head of the run's bytes becomes q, and the only match
 * is lim bytes at distance 1 (the 2-byte head finds it first). bt_run
 * records up to count positions from pos that satisfy it as those walks
 * would, without hashing each, and returns how many (0 unless pos is such
 * a position; pos itself is not moved); *lim: pos's lim. full: only
 * positions with lim = nice_len (their result does not depend on how
 * much input follows). A 9-byte run at pos - 1 is checked first, so
 * other data pays one compare. */
static uint32_t bt_run(fz7_lz_mf *mf, uint32_t count, uint32_t *lim, int full)
{
    uint32_t pos = mf->pos, end = mf->end, hb = hash_bytes(mf->kind);
    const uint8_t *b = mf->buf;
    if (pos == 0 || end - pos < 8 || count == 0)
        return 0;
    uint64_t x, y;
    memcpy(&x, b + pos - 1, 8);
    memcpy(&y, b + pos, 8);
    if (x != y || mf->depth == 0)
        return 0;
    uint32_t stored = pos + mf->offset;
    uint32_t r = root_of(mf, b + pos);
    if (mf->hash4[r] != stored - 1)
        return 0;
    /* b[pos - 1 .. run_end) hold one value; looked at no further than
     * count positions need. */
    uint64_t need = (uint64_t)count + mf->nice_len;
    uint32_t scan = need < end - pos ? (uint32_t)need : end - pos;
    /* b[pos .. pos + 8) are known to be in the run; a short look (small
     * nice_len and count) needs no compare at all. */
    uint32_t run_end = scan <= 8 ? pos + scan
                                 : pos + 8 + mf->match_len(b + pos + 8, b + pos + 7, scan - 8);
    /* q qualifies while q + lim <= run_end, lim = min(end - q, nice_len) >= hb. */
    uint32_t last;   /* one past the last qualifying position */
    if (run_end == end && !full)
        last = end - hb + 1;
    else if (run_end - pos >= mf->nice_len)
        last = run_end - mf->nice_len + 1;
    else
        return 0;
    uint32_t n = last - pos < count ? last - pos : count;
    uint32_t prev = mf->cyclic_pos == 0 ? mf->cyclic_size - 1 : mf->cyclic_pos - 1;
    uint32_t c0 = mf->son[2 * (size_t)prev], c1 = mf->son[2 * (size_t)prev + 1];
    uint32_t cyc = mf->cyclic_pos;
    for (uint32_t k = 0; k < n; k++) {
        mf->son[2 * (size_t)cyc] = c0;
        mf->son[2 * (size_t)cyc + 1] = c1;
        if (++cyc == mf->cyclic_size)
            cyc = 0;
    }
    uint32_t top = stored + n - 1;
    const uint8_t *cur = b + pos;
    mf->hash4[r] = top;
    bt_heads_set(bt_heads_of(mf, cur, mf->kind), top, mf->kind);
    *lim = end - pos < mf->nice_len ? end - pos : mf->nice_len;
    return n;
}

/* Positions a search records ahead in a run (bt_run): the run is scanned
 * once per this many, not once per position. */
#define BT_RUN_AHEAD 4096u

/* Positions bt_repeat records at most in one call. */
#define BT_REPEAT_MAX 65536u

/* Collecting near matches at a repeat position (bt_repeat) whose bytes
 * equal those d back for lim: 1 if the near candidate e back, which the
 * search tries before reaching d (in the order of near_matches_kind),
 * matches lim bytes, making that the longest match; 0 if it does not or
 * e is d (the longest is then lim bytes at d, whatever follows). e: a
 * candidate whose first `bytes` bytes (2 to 5) are to be compared; prev:
 * the one tried before it (the same distance is not tried again). *done:
 * set once e is d. */
__attribute__((always_inline)) static inline int near_elsewhere(const fz7_lz_mf *mf, const uint8_t *cur,
                                                               uint32_t e, uint32_t prev, uint32_t bytes,
                                                               uint32_t lim, uint32_t d, int *done)
{
    static const uint32_t mask[4] = {0xFFFFu, 0xFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    if (*done || e == prev)
        return 0;
    if (e == d) {
        *done = 1;   /* its bytes are equal: the search would stop there */
        return 0;
    }
    if (e - 1 >= mf->dict_size || ((fz7_get32le(cur - e) ^ fz7_get32le(cur)) & mask[bytes - 2]) != 0
        || (bytes == 5 && cur[4 - (ptrdiff_t)e] != cur[4]))
        return 0;
    return cur[lim - 1] == cur[(ptrdiff_t)lim - 1 - (ptrdiff_t)e] && extend(mf, cur, cur - e, bytes, lim) == lim;
}

/* A repeat position's node takes the children of the node d back: son
 * pair *cyc gets pair *from, and both cyclic indexes move on. */
static inline void son_copy_next(fz7_lz_mf *mf, uint32_t *cyc, uint32_t *from)
{
    uint32_t *son = mf->son;
    son[2 * (size_t)*cyc] = son[2 * (size_t)*from];
    son[2 * (size_t)*cyc + 1] = son[2 * (size_t)*from + 1];
    if (++*cyc == mf->cyclic_size)
        *cyc = 0;
    if (++*from == mf->cyclic_size)
        *from = 0;
}

/* bt_repeat after it recorded two periods (2d positions) from its start
 * s without a break: from there every check it makes at a position q
 * gives what it gave at q - d while the bytes stay periodic (q's heads,
 * near heads and compared bytes are those of q - d moved by d, and all
 * of them lie in the stretch), so only the periodicity is checked: up to
 * max more positions from cur, whose son pairs are copied one period
 * back (from cyclic index cyc, d back at from). Their heads are written
 * only for the last period: q + d overwrites every earlier q's slots.
 * Returns how many positions it recorded. */
__attribute__((always_inline)) static inline uint32_t bt_repeat_tail(fz7_lz_mf *mf, const uint8_t *cur, uint32_t max,
                                                                    uint32_t cyc, uint32_t from, int kind)
{
    uint32_t d = mf->repeat_dist, lim = mf->nice_len;
    /* Position cur + j continues the stretch while byte j + lim - 1 after
     * cur equals the one d before it. */
    uint32_t n = extend(mf, cur + lim - 1, cur + lim - 1 - d, 0, max);
    for (uint32_t j = 0; j < n; j++)
        son_copy_next(mf, &cyc, &from);
    uint32_t stored = mf->pos + mf->offset + (uint32_t)(cur - (mf->buf + mf->pos));
    for (uint32_t j = n > d ? n - d : 0; j < n; j++) {
        mf->hash4[root_kind(mf, cur + j, kind)] = stored + j;
        bt_heads_set(bt_heads_of(mf, cur + j, kind), stored + j, kind);
    }
    return n;
}

/* Binary trees in data that repeats at a distance d (a block copied, a
 * period): when pos's root head is pos - d and the nice_len bytes there
 * equal pos's, the walk stops at that first candidate, pos's node takes
 * its children, and the longest match is nice_len bytes at d unless a
 * near candidate tried first gets as long (near_elsewhere). bt_repeat
 * records up to max such positions from pos as their walks would, with
 * d = mf->repeat_dist (the previous position's, checked here: a stale
 * hint costs only the check), and returns how many (pos is not moved).
 * collect: each of them must have nice_len bytes at d as its longest
 * match (the only one its search then returns: the parsers take a match
 * of nice_len as it is); else (skip) only the tables count. */
__attribute__((always_inline)) static inline uint32_t bt_repeat(fz7_lz_mf *mf, int collect, uint32_t max, int kind)
{
    uint32_t d = mf->repeat_dist, lim = mf->nice_len, avail = mf->end - mf->pos;
    if (d - 1 >= mf->dict_size || avail < lim || mf->depth == 0)
        return 0;
    if (max > avail - lim + 1)
        max = avail - lim + 1;
    if (max > BT_REPEAT_MAX)
        max = BT_REPEAT_MAX;
    const uint8_t *cur = mf->buf + mf->pos;
    uint32_t stored = mf->pos + mf->offset;
    if (mf->hash4[root_kind(mf, cur, kind)] != stored - d || extend(mf, cur, cur - d, 0, lim) != lim) {
        mf->repeat_dist = 0;
        return 0;
    }
    uint32_t cyc = mf->cyclic_pos, from = slot_of(mf, d), k = 0;
    /* Past two periods the rest is periodic (bt_repeat_tail): at once
     * when the last call recorded two periods at d up to here, walked at
     * least as strictly (nothing was recorded since). */
    const int goes_on = mf->repeat_end == stored && mf->repeat_len_dist == d && mf->repeat_len >= 2 * d
                        && mf->repeat_collect >= collect;
    uint32_t walk = goes_on ? 0 : max > 2 * d ? 2 * d : max;
    for (; k < walk; k++, cur++, stored++) {
        if (k + PREFETCH_HEADS < max) {
            /* The heads a few positions on (their tables outgrow L2). */
            const uint8_t *far = cur + PREFETCH_HEADS;
            __builtin_prefetch(&mf->hash4[root_kind(mf, far, kind)], 1);
            if (kind == FZ7_LZ_BT4) {
                __builtin_prefetch(&mf->hash3[HASH3_SIZE + head4_of(far)], 1);
                __builtin_prefetch(&mf->hash3[HASH3_SIZE + HEAD_SIZE + head5_of(far)], 1);
            }
        }
        /* Position k - 1 matched lim bytes at d: one more byte for k. */
        if (k > 0 && cur[lim - 1] != cur[(ptrdiff_t)lim - 1 - (ptrdiff_t)d])
            break;
        uint32_t *head = &mf->hash4[root_kind(mf, cur, kind)];
        if (*head != stored - d)
            break;
        bt_heads h = bt_heads_of(mf, cur, kind);
        if (collect && kind != FZ7_LZ_BT2) {
            int done = 0;
            uint32_t e2 = stored - *h.h2;
            if (near_elsewhere(mf, cur, e2, 0, 2, lim, d, &done))
                break;
            if (kind == FZ7_LZ_BT4) {
                uint32_t e3 = stored - *h.h3, e4 = stored - *h.h4;
                if (near_elsewhere(mf, cur, e3, e2, 3, lim, d, &done)
                    || near_elsewhere(mf, cur, e4, e3, 4, lim, d, &done)
                    || (!done && near_elsewhere(mf, cur, stored - *h.h5, e4, 5, lim, d, &done)))
                    break;
            }
        }
        *head = stored;
        bt_heads_set(h, stored, kind);
        son_copy_next(mf, &cyc, &from);
    }
    if (k == walk && walk < max)
        k += bt_repeat_tail(mf, cur, max - k, cyc, from, kind);
    mf->repeat_len = goes_on ? mf->repeat_len + k : k;
    mf->repeat_collect = goes_on ? mf->repeat_collect : collect;
    mf->repeat_end = mf->pos + mf->offset + k;
    mf->repeat_len_dist = d;
    return k;
}

uint32_t fz7_lz_mf_repeat(fz7_lz_mf *mf, uint32_t max, uint32_t *dist)
{
    if (mf->repeat_dist == 0 || mf->pending || mf->run_left > 0 || fz7_lz_is_hc(mf->kind))
        return 0;
    uint32_t k = mf->kind == FZ7_LZ_BT4 ? bt_repeat(mf, 1, max, FZ7_LZ_BT4) : bt_repeat(mf, 1, max, mf->kind);
    *dist = mf->repeat_dist;
    advance_by(mf, k);
    return k;
}

/* After a search of pos and of count positions after it: pos moves on,
 * and the later positions' matches wait in the queue from its start. */
static inline void pending_push(fz7_lz_mf *mf, uint32_t count)
{
    mf->pending = count;
    mf->pending_first = 0;
    advance(mf);
}

/* Takes (find) or drops (skip) the pending entry of pos; pos moves on. */
static inline void pending_pop(fz7_lz_mf *mf)
{
    mf->pending--;
    mf->pending_first++;
    advance(mf);
}

/* True when pos and pos + 1 can be searched as a pair: enough bytes
 * that both get lim = nice_len. */
static inline int pair_ok(const fz7_lz_mf *mf)
{
    return mf->end - mf->pos > mf->nice_len + 1;
}

/* fz7_lz_mf_find with the kind as a parameter: each hash-chain kind gets
 * its own copy, its hashes without a switch on the kind per position. */
__attribute__((always_inline)) static inline uint32_t find_kind(fz7_lz_mf *mf, fz7_lz_match *matches, int kind)
{
    if (!fz7_lz_is_hc(kind) && !mf->pending) {
        uint32_t lim, n = 1;
        if (mf->run_left > 0)
            mf->run_left--;
        else if ((n = bt_run(mf, mf->record_max < BT_RUN_AHEAD ? mf->record_max : BT_RUN_AHEAD, &lim, 1)) > 0)
            mf->run_left = n - 1;
        if (n > 0) {
            matches[0].len = mf->nice_len;
            matches[0].dist = 1;
            advance(mf);
            return 1;
        }
        if (mf->repeat_dist != 0 && bt_repeat(mf, 1, 1, kind) > 0) {
            matches[0].len = mf->nice_len;
            matches[0].dist = mf->repeat_dist;
            advance(mf);
            return 1;
        }
    }
    if (fz7_lz_is_hc(kind))
        hc_prefetch(mf, kind);
    else
        prefetch_kind(mf, kind);
    uint32_t n = 0;
    if (mf->pending) {
        /* Searched with an earlier position. */
        const fz7_lz_match *q = mf->pending_matches[mf->pending_first];
        n = mf->pending_count[mf->pending_first];
        /* Two matches per step, inline (n is a handful; a libc call per
         * position cost more than the copy). An odd n copies one stale
         * entry past the count: both arrays hold FZ7_LZ_MATCHES_MAX, an
         * even number, so the step stays inside them. */
        _Static_assert(FZ7_LZ_MATCHES_MAX % 2 == 0, "pending matches copy two at a time");
        for (uint32_t i = 0; i < n; i += 2)
            memcpy(&matches[i], &q[i], 2 * sizeof(matches[0]));
        pending_pop(mf);
        return n;
    }
    int g;
    if (!fz7_lz_is_hc(kind)) {
        if (mf->record_max >= 2
            && (g = bt_find_group(mf, matches, &n, 1, mf->record_max < FZ7_LZ_GROUP ? 2 : FZ7_LZ_GROUP)) > 0) {
            pending_push(mf, (uint32_t)g - 1);
            return n;
        }
    } else if (mf->record_max >= 2 && pair_ok(mf) && hc_find_pair(mf, matches, &n, mf->pending_matches[0], &mf->pending_count[0], kind)) {
        pending_push(mf, 1);
        return n;
    }
    uint32_t avail = mf->end - mf->pos;
    uint32_t lim = avail < mf->nice_len ? avail : mf->nice_len;
    if (lim >= hash_bytes(kind) && lim >= 2) {
        const uint8_t *cur = mf->buf + mf->pos;
        if (fz7_lz_is_hc(kind))
            n = hc_find(mf, cur, lim, matches, 1);
        else
            n = bt_find(mf, cur, lim, matches, 1);
    }
    advance(mf);
    return n;
}

/* ---- rdx: the radix match table with bt4's 2- and 3-byte heads --------- */

/* The first position of the grid block after the one holding s. */
static inline uint64_t rdx_next_block(const fz7_lz_rdx *r, uint64_t s)
{
    return s - s % r->block + r->block;
}

/* Waits until no job runs (the thread's table and copy are free again),
 * sorting parts of it meanwhile, and clears it; 1 if a job was built, 0
 * if there was none. */
static int rdx_collect(fz7_lz_rdx *r)
{
    pthread_mutex_lock(&r->lock);
    fz7_lz_radix_job *helped = NULL;
    while (r->job == 1) {
        if (r->sorting && r->sorting != helped) {
            helped = r->sorting;
            r->helpers++;
            pthread_mutex_unlock(&r->lock);
            fz7_lz_radix_sort(helped);
            pthread_mutex_lock(&r->lock);
            r->helpers--;
            pthread_cond_broadcast(&r->cond);
            continue;
        }
        pthread_cond_wait(&r->cond, &r->lock);
    }
    int built = r->job == 2;
    r->job = 0;
    pthread_mutex_unlock(&r->lock);
    return built;
}

static void *rdx_thread_main(void *arg)
{
    fz7_lz_rdx *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (r->job != 1 && !r->quit)
            pthread_cond_wait(&r->cond, &r->lock);
        if (r->quit)
            break;
        pthread_mutex_unlock(&r->lock);
        fz7_lz_radix_job *j = fz7_lz_radix_begin(&r->work, r->copy, r->copy_len, 0, (uint32_t)(r->job_t0 - r->job_lo),
                                                 (uint32_t)(r->job_t1 - r->job_lo), r->reach, r->depth, r->next);
        pthread_mutex_lock(&r->lock);
        if (j) {
            r->sorting = j;
            pthread_cond_broadcast(&r->cond);
            pthread_mutex_unlock(&r->lock);
            fz7_lz_radix_sort(j);
            pthread_mutex_lock(&r->lock);
            while (r->helpers > 0 || !fz7_lz_radix_sorted(j))
                pthread_cond_wait(&r->cond, &r->lock);
            r->sorting = NULL;
            pthread_mutex_unlock(&r->lock);
            fz7_lz_radix_end(j);
            pthread_mutex_lock(&r->lock);
        }
        r->job = 2;
        pthread_cond_broadcast(&r->cond);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void rdx_thread_stop(fz7_lz_rdx *r)
{
    if (!r->threaded)
        return;
    pthread_mutex_lock(&r->lock);
    r->quit = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r->next);
    free(r->copy);
    r->threaded = 0;
}

static void rdx_restart(fz7_lz_rdx *r)
{
    if (r->threaded)
        (void)rdx_collect(r);
    r->base = r->t0 = r->t1 = 0;
    r->post_at = 0;
    r->ended = 0;
}

/* Hands the block from t0 to the thread when its bytes are in (or the
 * input has ended); else keeps it in post_at for later. */
static void rdx_post(fz7_lz_mf *mf, uint64_t t0)
{
    fz7_lz_rdx *r = mf->rdx;
    uint64_t have = r->base + mf->end, t1 = t0 + r->block;
    r->post_at = 0;
    if (have < t1 + r->depth + 1 && !r->ended) {
        r->post_at = t0;
        return;
    }
    if (t1 > have)
        t1 = have;
    if (t1 <= t0)
        return;   /* nothing after the coder's block */
    uint64_t lo = t0 > r->prefix ? t0 - r->prefix : 0;
    uint64_t stop = t1 + r->depth + 1 < have ? t1 + r->depth + 1 : have;
    memcpy(r->copy, mf->buf + (lo - r->base), (size_t)(stop - lo));
    pthread_mutex_lock(&r->lock);
    r->copy_len = (uint32_t)(stop - lo);
    r->job_lo = lo;
    r->job_t0 = t0;
    r->job_t1 = t1;
    r->job = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

/* The thread's table becomes the coder's. */
static void rdx_take(fz7_lz_rdx *r)
{
    fz7_lz_radix_entry *t = r->table;
    r->table = r->next;
    r->next = t;
    r->t0 = r->job_t0;
    r->t1 = r->job_t1;
}

/* Makes the table cover pos: the thread's block when it is this one,
 * else built from [t0 - prefix, t1) (the window always holds prefix
 * bytes before any position of the block: see rdx_prefix), by the thread
 * with this one sorting beside it, or here alone when there is no thread
 * or its bytes are not all in yet; then the next block goes to the
 * thread. */
static void rdx_switch(fz7_lz_mf *mf)
{
    fz7_lz_rdx *r = mf->rdx;
    uint64_t s = r->base + mf->pos, have = r->base + mf->end;
    uint64_t t0 = s - s % r->block, t1 = t0 + r->block;
    if (r->threaded && rdx_collect(r) && r->job_t0 == t0)
        rdx_take(r);
    if ((s < r->t0 || s >= r->t1) && r->threaded) {
        /* Not built ahead (the stream's first block, or one entered after
         * a pass): the thread builds it now, with this one's help. */
        rdx_post(mf, t0);
        if (rdx_collect(r) && r->job_t0 == t0)
            rdx_take(r);
    }
    if (s < r->t0 || s >= r->t1) {
        if (t1 > have)
            t1 = have;
        uint64_t lo = t0 > r->prefix ? t0 - r->prefix : 0;
        uint32_t at = (uint32_t)(lo - r->base);
        fz7_lz_radix_build(&r->work, mf->buf + at, mf->end - at, 0, (uint32_t)(t0 - lo), (uint32_t)(t1 - lo),
                           r->reach, r->depth, r->table);
        r->t0 = t0;
        r->t1 = t1;
    }
    if (r->threaded)
        rdx_post(mf, r->t1);
}

/* The table's entry for pos. */
static inline const fz7_lz_radix_entry *rdx_entry(fz7_lz_mf *mf)
{
    fz7_lz_rdx *r = mf->rdx;
    uint64_t s = r->base + mf->pos;
    if (r->post_at && (r->base + mf->end >= r->post_at + r->block + r->depth + 1 || r->ended))
        rdx_post(mf, r->post_at);
    if (s < r->t0 || s >= r->t1)
        rdx_switch(mf);
    return &r->table[s - r->t0];
}

int fz7_lz_mf_rdx_thread(fz7_lz_mf *mf)
{
    fz7_lz_rdx *r = mf->rdx;
    if (!r || r->threaded)
        return -1;
    r->next = malloc((size_t)r->block * sizeof(*r->next));
    r->copy = malloc((size_t)r->block + r->prefix + r->depth + 1);
    if (!r->next || !r->copy)
        goto fail;
    if (pthread_mutex_init(&r->lock, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&r->cond, NULL) != 0) {
        pthread_mutex_destroy(&r->lock);
        goto fail;
    }
    r->job = r->quit = r->helpers = 0;
    r->sorting = NULL;
    if (pthread_create(&r->thread, NULL, rdx_thread_main, r) != 0) {
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->lock);
        goto fail;
    }
    r->threaded = 1;
    return 0;
fail:
    free(r->next);
    free(r->copy);
    r->next = NULL;
    r->copy = NULL;
    return -1;
}

uint64_t fz7_lz_mf_rdx_thread_memusage(uint32_t dict_size)
{
    uint32_t block = rdx_block(dict_size);
    return (uint64_t)block * sizeof(fz7_lz_radix_entry) + block + rdx_prefix(dict_size) + RDX_DEPTH_MAX + 1;
}

void fz7_lz_mf_input_end(fz7_lz_mf *mf)
{
    if (!mf->rdx || mf->rdx->ended)
        return;
    mf->rdx->ended = 1;
    if (mf->rdx->post_at)
        rdx_post(mf, mf->rdx->post_at);
}

/* Appends len bytes at dist when longer than the last match, after
 * dropping the matches it makes useless (as long or farther). */
static inline uint32_t rdx_keep(fz7_lz_match *m, uint32_t n, uint32_t len, uint32_t dist)
{
    if (n > 0 && len <= m[n - 1].len)
        return n;
    while (n > 0 && m[n - 1].dist >= dist)
        n--;
    m[n].len = len;
    m[n].dist = dist;
    return n + 1;
}

/* rdx's anchors: one position in 2^RDX_ANCHOR_BITS, chosen by
 * fz7_lz_anchor_hash as the store test's are, so that every anchor it
 * probes is one of them. Denser than the store test's: each is a chance
 * to meet a repeat beyond the table's reach. */
#define RDX_ANCHOR_BITS 4u
_Static_assert(RDX_ANCHOR_BITS <= FZ7_LZ_ANCHOR_BITS, "the store test's anchors are rdx anchors");

/* The index in hash3 of the head of anchors' slot for the 6 bytes at p. */
static inline uint32_t rdx_far_index(const uint8_t *p)
{
    return HASH3_SIZE + hash6_of(p, 32 - RDX_FAR_BITS);
}

/* True when the position of the bytes at p is one of rdx's anchors. */
static inline int rdx_anchor(const uint8_t *p)
{
    return fz7_lz_anchor_hash(p) >> (32 - RDX_ANCHOR_BITS) == 0;
}

/* The head of anchors' slot for p when p is an anchor, else NULL. */
static inline uint32_t *rdx_anchor_slot(const fz7_lz_mf *mf, const uint8_t *p)
{
    return rdx_anchor(p) ? &mf->hash3[rdx_far_index(p)] : NULL;
}

/* rdx's heads: bt4's 2- and 3-byte ones (the longer near matches come
 * from the table) and one of anchors only (rdx_anchor_slot), on the hash of 6
 * bytes (4 would keep the newest of common words, rarely the long match).
 * That one reaches the whole dictionary, past the table's blocks: a long
 * repeat from farther back is found at its first anchor (the parser's
 * rep0 goes on from there), and the LZMA2 store test probes it. */
static inline void rdx_heads_set(fz7_lz_mf *mf, const uint8_t *cur, uint32_t stored, uint32_t *anchor_slot)
{
    mf->hash2[bt_hash2_of(cur)] = stored;
    mf->hash3[hash3_of(cur)] = stored;
    if (anchor_slot)
        *anchor_slot = stored;
}

/* The matches of the 2- and 3-byte heads into m, as bt4 finds them;
 * *far: the anchor head's distance (0 when cur is no anchor). */
static inline uint32_t rdx_heads(fz7_lz_mf *mf, const uint8_t *cur, uint32_t stored, uint32_t lim,
                                 fz7_lz_match *m, uint32_t *best, uint32_t *far)
{
    uint32_t d2 = stored - mf->hash2[bt_hash2_of(cur)], d3 = stored - mf->hash3[hash3_of(cur)];
    uint32_t *slot = rdx_anchor_slot(mf, cur);
    *far = slot ? stored - *slot : 0;
    rdx_heads_set(mf, cur, stored, slot);
    return near23(mf, cur, d2, d3, lim, m, best);
}

static uint32_t rdx_find(fz7_lz_mf *mf, fz7_lz_match *m)
{
    const fz7_lz_radix_entry *e = rdx_entry(mf);
    uint32_t avail = mf->end - mf->pos;
    uint32_t lim = avail < mf->nice_len ? avail : mf->nice_len;
    const uint8_t *cur = mf->buf + mf->pos;
    uint32_t n = 0, far = 0;
    /* The heads are recorded where bt4 records its own (6 bytes left)
     * and searched only with 6 to compare, like bt4's. */
    if (lim >= 6) {
        uint32_t best = 1;
        n = rdx_heads(mf, cur, mf->pos + mf->offset, lim, m, &best, &far);
    } else if (avail >= 6) {
        rdx_heads_set(mf, cur, mf->pos + mf->offset, rdx_anchor_slot(mf, cur));
    }
    /* A near head that reaches lim is the nearest match that long (a
     * nearer one would hold its head): the table cannot add to it. */
    if (lim >= 2 && !(n > 0 && m[n - 1].len == lim)) {
        uint32_t prev = 0;
        for (uint32_t t = 0; t < FZ7_LZ_RADIX_NEARS; t++) {
            uint32_t d = e->near[t];
            if (d && d != prev)
                n = rdx_keep(m, n, extend(mf, cur, cur - d, 0, lim), d);
            prev = d;
        }
        uint32_t len = e->longest & 0xFFu, dist = (e->longest >> 8) + 1;
        if (len) {
            len = len < lim ? len : lim;
            if (len == mf->rdx->depth)   /* the sort stopped there: it may go on */
                len = extend(mf, cur, cur - dist, len, lim);
            n = rdx_keep(m, n, len, dist);
        }
        if (far - 1 < mf->dict_size && fz7_get32le(cur - far) == fz7_get32le(cur))
            n = rdx_keep(m, n, extend(mf, cur, cur - far, 4, lim), far);
    }
    advance(mf);
    return n;
}

static void rdx_skip(fz7_lz_mf *mf, uint32_t count)
{
    /* Positions with 6 bytes ahead, with the tables in locals: the stores
     * below could alias mf's fields, so the compiler would reload them at
     * every position (long matches skip most of a repeat here). */
    uint32_t have = mf->end - mf->pos >= 6 ? mf->end - mf->pos - 5 : 0;
    uint32_t n = count < have ? count : have;
    const uint8_t *p = mf->buf + mf->pos;
    uint32_t stored = mf->pos + mf->offset;
    uint32_t *hash2 = mf->hash2, *hash3 = mf->hash3;
    for (uint32_t k = 0; k < n; k++, p++, stored++) {
        hash2[bt_hash2_of(p)] = stored;
        hash3[hash3_of(p)] = stored;
        if (rdx_anchor(p))
            hash3[rdx_far_index(p)] = stored;
    }
    mf->pos += count;
    mf->cyclic_pos = (uint32_t)(((uint64_t)mf->cyclic_pos + count) % mf->cyclic_size);
}

uint32_t fz7_lz_mf_wanted(const fz7_lz_mf *mf, uint32_t ahead)
{
    const fz7_lz_rdx *r = mf->rdx;
    if (!r)
        return 0;
    uint64_t s = r->base + mf->pos, last = s + ahead;
    /* With the thread: the block after the last one searched, so that it
     * can be handed over as the coder enters that one. */
    uint64_t t1 = r->threaded ? rdx_next_block(r, last) + r->block
                : last >= r->t0 && last < r->t1 ? 0 : rdx_next_block(r, last);
    return t1 ? (uint32_t)(t1 + r->depth + 1 - s) : 0;
}

uint32_t fz7_lz_mf_find(fz7_lz_mf *mf, fz7_lz_match *matches)
{
    if (mf->kind == FZ7_LZ_RDX)
        return rdx_find(mf, matches);
    if (mf->kind == FZ7_LZ_HB5)
        return fz7_lz_mf_find_hb5(mf, matches);
    if (mf->kind == FZ7_LZ_HC5)
        return find_kind(mf, matches, FZ7_LZ_HC5);
    if (mf->kind == FZ7_LZ_HC4)
        return find_kind(mf, matches, FZ7_LZ_HC4);
    if (mf->kind == FZ7_LZ_BT4)
        return find_kind(mf, matches, FZ7_LZ_BT4);
    return find_kind(mf, matches, mf->kind);
}

/* hc4/hc5 skipping n positions that all have 5 bytes ahead and no slot
 * wrap: only heads and chain links change (the values hc_find stores).
 * The positions of a run do not wait on each other, so the core overlaps
 * their head loads by itself: only the run's last PREFETCH_HEADS
 * positions request 4-/5-byte heads, those of the positions after the
 * run (the next search's; the 2- and 3-byte heads are in L1). */
__attribute__((always_inline)) static inline void hc_skip_run(fz7_lz_mf *mf, uint32_t n, int kind)
{
    const uint8_t *p = mf->buf + mf->pos;
    uint32_t stored = mf->pos + mf->offset;
    uint32_t *link = &mf->son[mf->cyclic_pos];
    uint32_t from = n > PREFETCH_HEADS ? n - PREFETCH_HEADS : 0;
    if (mf->end - mf->pos < n + PREFETCH_HEADS + 8)
        from = n;   /* too near the end of the data: no prefetch */
    for (uint32_t k = 0; k < n; k++, p++, stored++) {
        if (k >= from)
            __builtin_prefetch(&mf->hash4[root_kind(mf, p + PREFETCH_HEADS, kind)], 1);
        uint32_t v = fz7_get32le(p);
        mf->hash2[((v & 0xFFFFu) * GOLDEN) >> (32 - HC_HASH2_BITS)] = stored;
        mf->hash3[((v & 0xFFFFFFu) * GOLDEN) >> (32 - HC_HASH3_BITS)] = stored;
        uint32_t *head = &mf->hash4[root_kind(mf, p, kind)];
        link[k] = *head;
        *head = stored;
    }
    mf->pos += n;
    mf->cyclic_pos += n;
}

void fz7_lz_mf_skip(fz7_lz_mf *mf, uint32_t count)
{
    if (mf->kind == FZ7_LZ_HB5) {
        fz7_lz_mf_skip_hb5(mf, count);
        return;
    }
    if (mf->kind == FZ7_LZ_RDX) {
        rdx_skip(mf, count);
        return;
    }
    while (count > 0 && mf->pending) {
        /* Already searched and inserted with an earlier position. */
        pending_pop(mf);
        count--;
    }
    if (fz7_lz_is_hc(mf->kind) && count > 0 && mf->end - mf->pos >= count + 5
        && mf->cyclic_size - mf->cyclic_pos > count) {
        if (mf->kind == FZ7_LZ_HC5)
            hc_skip_run(mf, count, FZ7_LZ_HC5);
        else
            hc_skip_run(mf, count, FZ7_LZ_HC4);
        return;
    }
    while (count-- > 0) {
        uint32_t lim, run = mf->run_left;
        if (run > 0) {
            /* Recorded by a search already. */
            run = run < count + 1 ? run : count + 1;
            mf->run_left -= run;
        } else if (!fz7_lz_is_hc(mf->kind)) {
            run = bt_run(mf, count + 1, &lim, 0);
        }
        if (run > 0) {
            advance_by(mf, run);
            count -= run - 1;
            continue;
        }
        if (!mf->pending && mf->repeat_dist != 0 && !fz7_lz_is_hc(mf->kind)
            && (run = mf->kind == FZ7_LZ_BT4 ? bt_repeat(mf, 0, count + 1, FZ7_LZ_BT4)
                                             : bt_repeat(mf, 0, count + 1, mf->kind)) > 0) {
            advance_by(mf, run);
            count -= run - 1;
            continue;
        }
        prefetch_ahead(mf);
        /* A group of FZ7_LZ_GROUP when as many are to be skipped, else
         * of 2; then one position alone. */
        int g = 0;
        if (!fz7_lz_is_hc(mf->kind) && count > 0)
            g = bt_find_group(mf, NULL, NULL, 0, count >= FZ7_LZ_GROUP - 1 ? FZ7_LZ_GROUP : 2);
        if (g > 0) {
            advance_by(mf, (uint32_t)g - 1);
            prefetch_ahead(mf);
            count -= (uint32_t)g - 1;
        } else {
            uint32_t avail = mf->end - mf->pos;
            uint32_t lim = avail < mf->nice_len ? avail : mf->nice_len;
            if (lim >= hash_bytes(mf->kind) && lim >= 2) {
                const uint8_t *cur = mf->buf + mf->pos;
                if (fz7_lz_is_hc(mf->kind))
                    hc_find(mf, cur, lim, NULL, 0);
                else
                    bt_find(mf, cur, lim, NULL, 0);
            }
        }
        advance(mf);
    }
}

/* Nothing links to a position that was never recorded, and a passed
 * position's slot keeps the links of the position cyclic_size earlier,
 * which every walk and chain step already treats as out of reach. */
void fz7_lz_mf_pass(fz7_lz_mf *mf, uint32_t n)
{
    mf->pending = 0;
    mf->run_left = 0;
    mf->pos += n;
    mf->cyclic_pos = (uint32_t)(((uint64_t)mf->cyclic_pos + n) % mf->cyclic_size);
}

uint32_t fz7_lz_mf_probe(const fz7_lz_mf *mf, uint32_t idx, uint32_t lim)
{
    if (mf->kind == FZ7_LZ_HB5)
        return fz7_lz_hb_probe(mf, idx, lim);
    const uint8_t *p = mf->buf + idx;
    uint32_t head = mf->kind == FZ7_LZ_RDX ? mf->hash3[rdx_far_index(p)] : mf->hash4[root_of(mf, p)];
    uint32_t delta = idx + mf->offset - head;
    if (delta - 1 >= mf->dict_size || delta > idx)
        return 0;
    if (lim > mf->end - idx)
        lim = mf->end - idx;
    return mf->match_len(p, p - delta, lim);
}

/* Empties the match finder for a new input, keeping its memory (the
 * tables are neither freed nor cleared). Every stored position is below
 * offset + end, so the new stream's positions start cyclic_size (more
 * than dict_size) past the last one: each old entry is then as far out
 * of reach as an empty (0) one, and every search (which always checks
 * the distance before using an entry) finds what a fresh match finder
 * would. Only when the positions would come near the top of the 32 bits
 * are the tables cleared. */
/* Makes room for buf_size bytes of stored positions from offset: past
 * 2^32, every entry goes (they are all out of reach by now) and stored
 * positions start over at cyclic_size. */
static void fit_offset(fz7_lz_mf *mf)
{
    if ((uint64_t)mf->offset > 0xFFFFFFFFu - (uint64_t)mf->buf_size - 1) {
        if (mf->kind == FZ7_LZ_HB5) {
            fz7_lz_hb_normalise(mf, 0xFFFFFFFFu);   /* every entry to 0 */
        } else {
            size_t heads = hash2_entries(mf->kind) + hash3_entries(mf->kind) + (size_t)mf->hash4_mask + 1;
            memset(mf->hash2, 0, heads * sizeof(uint32_t));
            if (mf->son)
                memset(mf->son, 0, (size_t)son_entries(mf->kind, mf->dict_size) * sizeof(uint32_t));
        }
        mf->offset = mf->cyclic_size;
    }
}

void fz7_lz_mf_borrow(fz7_lz_mf *mf, const uint8_t *buf, uint32_t len)
{
    if (!mf->own_buf) {
        mf->own_buf = mf->buf;
        mf->own_size = mf->buf_size;
    }
    mf->buf = (uint8_t *)buf;   /* read only: append copies nothing */
    mf->buf_size = len;
    if (mf->rdx)
        rdx_restart(mf->rdx);
    fit_offset(mf);
}

void fz7_lz_mf_reset(fz7_lz_mf *mf)
{
    uint64_t next = (uint64_t)mf->offset + mf->end + mf->cyclic_size;
    if (mf->own_buf) {
        mf->buf = mf->own_buf;
        mf->buf_size = mf->own_size;
        mf->own_buf = NULL;
    }
    mf->offset = next > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)next;
    fit_offset(mf);
    mf->pos = mf->end = 0;
    mf->cyclic_pos = 0;
    if (mf->released > 0)
        mf->huge_end = 0;   /* as after a window move */
    mf->released = 0;
    mf->pending = 0;
    mf->pending_first = 0;
    mf->run_left = 0;
    mf->repeat_dist = 0;
    mf->repeat_len = 0;
    if (mf->rdx)
        rdx_restart(mf->rdx);
}
