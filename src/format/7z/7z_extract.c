/* 7z_extract.c - extraction of a 7z archive: walks the entries in archive
 * order, decodes each folder that holds a selected entry once, front to
 * back, splits its output into substreams and checks every CRC. With
 * several folders (non-solid archives), worker threads decode the next
 * folders into bounded buffers while this thread hands out the current
 * one; larger folders stream in fixed chunks. */
#include "format/7z/7z_internal.h"

#include "check/check.h"
#include "format/decode_pool.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The piece read, checked and handed to data() at a time. `t` copies each
 * piece out of the decoder's dictionary and CRCs it: at 64 KiB the piece
 * buffer stays in L1/L2 and takes little of the L2 that holds the recent
 * dictionary (far matches' sources), which a larger piece would evict. */
#define CHUNK_BYTES ((size_t)64 << 10)
#define MT_FOLDER_MAX ((uint64_t)256 << 20)   /* largest folder output buffered */

/* A folder's output decoded ahead by a worker: the bytes, then how the
 * stream went on after them (FZ7_OK: it ended; else its error). Read back
 * as an istream, it yields what the folder's own chain would have. */
typedef struct {
    fz7_istream base;
    uint8_t *buf;
    size_t len, pos;
    fz7_status end;
} folder_buffer;

static fz7_status folder_buffer_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    folder_buffer *b = (folder_buffer *)s;
    size_t n = b->len - b->pos < cap ? b->len - b->pos : cap;
    *got = n;
    if (n == 0)
        return b->end;
    memcpy(buf, b->buf + b->pos, n);
    b->pos += n;
    return FZ7_OK;
}

static void folder_buffer_destroy(fz7_istream *s)
{
    folder_buffer *b = (folder_buffer *)s;
    free(b->buf);
    free(b);
}

/* ---- Read-ahead of a folder this thread streams -----------------------
 * A folder not decoded ahead by the pool (one solid folder, or one too
 * large for a job's buffer) is decoded on a second thread into a ring of
 * RA_SLOTS chunks while this thread checks CRCs and hands bytes to the
 * callbacks (writes to disk for `x`): the decoder then never waits for
 * them. The ring yields exactly what the folder's chain would have: the
 * bytes, then the chain's end or error. The decoding thread copies into
 * the slots: 256 KiB slots keep that copy's footprint in its L2 small
 * and hand the first bytes over sooner than larger ones; 16 of them keep
 * 4 MiB of slack for writes that block. */
#define RA_SLOTS 16
#define RA_CHUNK ((size_t)256 << 10)
#define RA_MIN ((uint64_t)4 << 20)   /* smaller folders are read directly */
/* A folder of RA_MIN or more is first read directly for RA_PROBE bytes,
 * timing the decoder's read() (thread CPU time: other processes running
 * meanwhile do not count) against the consumer, CRC and data() (wall
 * time: a write that blocks counts); the read-ahead thread starts only if
 * the consumer took at least 1 / RA_USE_SHARE of the decoder's time.
 * Writing files (`x`) takes well over that share and gains from the
 * overlap; testing (`t`) takes well under it, and there the thread only
 * costs (its slots evict part of the decoder's cache, and it is one more
 * thread competing for the cores). */
#define RA_PROBE ((uint64_t)1 << 20)
#define RA_USE_SHARE 32

typedef struct {
    fz7_istream base;
    fz7_istream *inner;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled;  /* a slot was filled, or the producer ended */
    pthread_cond_t emptied; /* a slot was emptied, or stop */
    uint8_t *buf[RA_SLOTS];
    size_t len[RA_SLOTS];
    size_t head, count;     /* the oldest filled slot; filled slots */
    size_t pos;             /* bytes of buf[head] already read */
    bool ended;             /* the producer is done: no slot follows the filled ones */
    fz7_status end;         /* then: FZ7_OK at the stream's end, else its error */
    bool stop;              /* destroy: the producer must quit */
} readahead;

static void *readahead_main(void *arg)
{
    readahead *r = arg;
    size_t tail = 0;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        while (r->count == RA_SLOTS && !r->stop)
            pthread_cond_wait(&r->emptied, &r->lock);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop)
            break;
        /* The slot at tail is free: only this thread touches it now. */
        size_t n = 0;
        fz7_status st = FZ7_OK;
        bool eof = false;
        while (n < RA_CHUNK) {
            size_t got = 0;
            st = r->inner->read(r->inner, r->buf[tail] + n, RA_CHUNK - n, &got);
            if (st != FZ7_OK || got == 0) {
                eof = true;
                break;
            }
            n += got;
        }
        pthread_mutex_lock(&r->lock);
        if (n) {
            r->len[tail] = n;
            r->count++;
            tail = (tail + 1) % RA_SLOTS;
        }
        if (eof) {
            r->ended = true;
            r->end = st;
        }
        pthread_cond_signal(&r->filled);
        pthread_mutex_unlock(&r->lock);
        if (eof)
            break;
    }
    return NULL;
}

static fz7_status readahead_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    readahead *r = (readahead *)s;
    size_t done = 0;
    fz7_status st = FZ7_OK;
    pthread_mutex_lock(&r->lock);
    while (done < cap) {
        while (r->count == 0 && !r->ended)
            pthread_cond_wait(&r->filled, &r->lock);
        if (r->count == 0) {
            /* Bytes first, the end status on the next call. */
            if (done == 0)
                st = r->end;
            break;
        }
        size_t h = r->head, n = r->len[h] - r->pos;
        if (n > cap - done)
            n = cap - done;
        pthread_mutex_unlock(&r->lock);
        memcpy(buf + done, r->buf[h] + r->pos, n);
        pthread_mutex_lock(&r->lock);
        done += n;
        r->pos += n;
        if (r->pos == r->len[h]) {
            r->pos = 0;
            r->head = (h + 1) % RA_SLOTS;
            r->count--;
            pthread_cond_signal(&r->emptied);
        }
    }
    pthread_mutex_unlock(&r->lock);
    *got = done;
    return st;
}

/* The next n bytes as a pointer into the ring, when the oldest filled
 * slot holds all of them (waits for the producer first); NULL otherwise
 * (then read them with readahead_read, which also reports the end). The
 * bytes stay valid until readahead_release(r, n). */
static const uint8_t *readahead_peek(readahead *r, size_t n)
{
    const uint8_t *p = NULL;
    pthread_mutex_lock(&r->lock);
    while (r->count == 0 && !r->ended)
        pthread_cond_wait(&r->filled, &r->lock);
    if (r->count > 0 && r->len[r->head] - r->pos >= n)
        p = r->buf[r->head] + r->pos;
    pthread_mutex_unlock(&r->lock);
    return p;
}

/* Consumes the n bytes readahead_peek() handed out. */
static void readahead_release(readahead *r, size_t n)
{
    pthread_mutex_lock(&r->lock);
    r->pos += n;
    if (r->pos == r->len[r->head]) {
        r->pos = 0;
        r->head = (r->head + 1) % RA_SLOTS;
        r->count--;
        pthread_cond_signal(&r->emptied);
    }
    pthread_mutex_unlock(&r->lock);
}

static void readahead_destroy(fz7_istream *s)
{
    readahead *r = (readahead *)s;
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_signal(&r->emptied);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->emptied);
    pthread_cond_destroy(&r->filled);
    pthread_mutex_destroy(&r->lock);
    fz7_istream_free(r->inner);
    free(r->buf[0]);
    free(r);
}

/* Puts a read-ahead thread in front of *in; on any failure *in stays as
 * it was (read directly). */
static void readahead_wrap(fz7_istream **in)
{
    readahead *r = calloc(1, sizeof *r);
    uint8_t *mem = malloc(RA_SLOTS * RA_CHUNK);
    if (!r || !mem) {
        free(r);
        free(mem);
        return;
    }
    for (size_t i = 0; i < RA_SLOTS; i++)
        r->buf[i] = mem + i * RA_CHUNK;
    r->base.read = readahead_read;
    r->base.destroy = readahead_destroy;
    r->inner = *in;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->filled, NULL);
    pthread_cond_init(&r->emptied, NULL);
    if (pthread_create(&r->thread, NULL, readahead_main, r) != 0) {
        pthread_cond_destroy(&r->emptied);
        pthread_cond_destroy(&r->filled);
        pthread_mutex_destroy(&r->lock);
        free(mem);
        free(r);
        return;
    }
    *in = &r->base;
}

/* The folder being decoded. */
typedef struct {
    uint64_t index;         /* UINT64_MAX: none */
    fz7_istream *in;        /* main output; NULL once done or failed */
    folder_buffer *mem;     /* in, when it is a buffer decoded ahead */
    fz7_status status;      /* FZ7_OK, or the error every later entry gets */
    bool folder_crc;        /* the folder CRC is checked (several files) */
    uint64_t probe_left;    /* bytes to read before deciding on a read-ahead; 0: decided */
    uint64_t ns_read, ns_use; /* during the probe: time in read(), in CRC and data() */
    uint32_t crc;           /* CRC32 of the output so far */
    char detail[160];
} folder_state;

static void folder_close(folder_state *fs)
{
    fz7_istream_free(fs->in);
    fs->in = NULL;
    fs->mem = NULL;
}

/* 7-Zip reports data errors inside encrypted folders as a probable wrong
 * password; a stream that decodes past its packed bytes there is the same
 * garbage of a wrong key (which error a wrong key gives depends on the
 * salt). A CRC mismatch stays one: 7-Zip's "CRC Failed in encrypted file"
 * (a stored entry's, where nothing else checks the bytes). */
static fz7_status password_hint(const fz7_7z_folder *f, fz7_status st, char *detail, size_t len)
{
    if (f->encrypted && (st == FZ7_E_DATA || st == FZ7_E_TRUNCATED)) {
        snprintf(detail, len, "%s", fz7_status_str(FZ7_E_PASSWORD));
        return FZ7_E_PASSWORD;
    }
    return st;
}

/* Nanoseconds on clock id (CLOCK_THREAD_CPUTIME_ID: this thread's CPU
 * time, user and system; CLOCK_MONOTONIC: wall); 0 if unavailable. */
static uint64_t now_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The bytes of a substream decoded before its error, passed on for the
 * file to keep (7zz keeps them too); the error is the one reported. */
static void salvage(const fz7_extract_cb *cb, bool wanted, const uint8_t *p, size_t n)
{
    if (wanted && n)
        (void)cb->data(cb->ctx, p, n);
}

/* Reads one substream of `size` bytes, passing it to data() when wanted.
 * Returns the decoding status; *cb_st gets a callback's failure. */
static fz7_status read_substream(folder_state *fs, uint64_t size, uint8_t *buf, bool wanted,
                                 const fz7_extract_cb *cb, uint32_t *crc, fz7_status *cb_st)
{
    *crc = 0;
    /* A read-ahead ring hands out its slots in place (no copy into buf)
     * whenever a chunk lies whole in one slot; the other chunks, and the
     * end of the stream, go through its read(). */
    readahead *ra = fs->in && fs->in->read == readahead_read ? (readahead *)fs->in : NULL;
    while (size > 0) {
        size_t n = size < CHUNK_BYTES ? (size_t)size : CHUNK_BYTES;
        const uint8_t *p = buf;
        const uint8_t *slot = ra ? readahead_peek(ra, n) : NULL;
        if (slot) {
            p = slot;
        } else if (fs->mem) {
            /* Decoded ahead: hand out the buffer itself, no copy. */
            folder_buffer *m = fs->mem;
            if (m->len - m->pos < n) {   /* what came before the error still goes out */
                size_t have = m->len - m->pos;
                m->pos = m->len;
                salvage(cb, wanted, m->buf + m->pos - have, have);
                return m->end != FZ7_OK ? m->end : FZ7_E_TRUNCATED;
            }
            p = m->buf + m->pos;
            m->pos += n;
        } else {
            uint64_t t0 = fs->probe_left ? now_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
            size_t have;
            fz7_status st = fz7_istream_read_upto(fs->in, buf, n, &have);
            if (st == FZ7_OK && have < n)
                st = FZ7_E_TRUNCATED;
            if (st != FZ7_OK) {
                salvage(cb, wanted, buf, have);
                return st;
            }
            if (fs->probe_left)
                fs->ns_read += now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
        }
        uint64_t t1 = fs->probe_left ? now_ns(CLOCK_MONOTONIC) : 0;
        *crc = fz7_crc32(*crc, p, n);
        if (fs->folder_crc)
            fs->crc = fz7_crc32(fs->crc, p, n);
        fz7_status cs = wanted ? cb->data(cb->ctx, p, n) : FZ7_OK;
        if (slot)
            readahead_release(ra, n);
        if (fs->probe_left) {
            fs->ns_use += now_ns(CLOCK_MONOTONIC) - t1;
            fs->probe_left = fs->probe_left > n ? fs->probe_left - n : 0;
            if (!fs->probe_left && fs->ns_use * RA_USE_SHARE >= fs->ns_read) {
                readahead_wrap(&fs->in);
                if (fs->in->read == readahead_read)
                    ra = (readahead *)fs->in;
            }
        }
        if (cs != FZ7_OK) {
            *cb_st = cs;
            return FZ7_OK;
        }
        size -= n;
    }
    return FZ7_OK;
}

/* After the folder's last substream: no bytes may follow, and the folder
 * CRC (when given for several files) must match. */
static fz7_status finish_folder(folder_state *fs, const fz7_7z_folder *f)
{
    uint8_t probe;
    size_t got = 0;
    fz7_status st = fs->in->read(fs->in, &probe, 1, &got);
    if (st == FZ7_OK && got)
        st = FZ7_E_DATA;
    if (st == FZ7_OK && f->has_crc && f->num_substreams > 1 && fs->crc != f->crc) {
        snprintf(fs->detail, sizeof fs->detail, "folder CRC mismatch (expected %08" PRIX32 ", got %08" PRIX32 ")",
                 f->crc, fs->crc);
        return FZ7_E_CRC;
    }
    return st;
}

/* ---- Folders decoded ahead ----------------------------------------------
 * The folders are opened in an order known before extraction starts (one
 * job each time the entry walk below reaches a new folder). Workers decode
 * a job's folder up to the end of its last selected substream (one byte
 * more when that is the folder's last, for the end check) into a buffer;
 * jobs larger than the per-job budget are left to this thread, which
 * opens and streams them itself. */

typedef struct {
    uint64_t folder;
    uint64_t need;          /* bytes up to the end of the last selected substream */
    bool probe;             /* that substream is the folder's last */
} mt_job_info;

typedef struct {
    bool skipped;           /* not decoded ahead: open it here */
    fz7_status open_status;
    folder_buffer *out;     /* NULL when the open failed */
    char detail[160];
} mt_slot;

typedef struct {
    fz7_archive *a;
    mt_job_info *jobs;
    size_t njobs, next;     /* next: the job the next folder open takes */
    uint64_t budget;        /* bytes one job's buffer may take */
    size_t window;
    mt_slot *slots;
    fz7_decode_pool *pool;  /* NULL: one thread */
} mt_state;

static void mt_run_job(void *ctx, size_t j, size_t slot)
{
    mt_state *m = ctx;
    const fz7_7z_db *db = m->a->priv;
    const mt_job_info *job = &m->jobs[j];
    mt_slot *r = &m->slots[slot];
    memset(r, 0, sizeof *r);
    if (job->need > m->budget) {
        r->skipped = true;
        return;
    }
    size_t cap = (size_t)job->need + (job->probe ? 1 : 0);
    folder_buffer *b = calloc(1, sizeof *b);
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!b || !buf) {
        free(b);
        free(buf);
        r->skipped = true;
        return;
    }
    b->base.read = folder_buffer_read;
    b->base.destroy = folder_buffer_destroy;
    b->buf = buf;
    fz7_istream *in = NULL;
    r->open_status = fz7_7z_folder_istream_new(m->a->vol, &db->main, job->folder,
                                               m->a->opts.password, m->a->opts.mem_limit, &in,
                                               r->detail, sizeof r->detail);
    if (r->open_status != FZ7_OK) {
        folder_buffer_destroy(&b->base);
        return;
    }
    while (b->len < cap) {
        size_t got = 0;
        fz7_status st = in->read(in, buf + b->len, cap - b->len, &got);
        if (st != FZ7_OK) {
            b->end = st;
            break;
        }
        if (got == 0)
            break;
        b->len += got;
    }
    fz7_istream_free(in);
    r->out = b;
}

/* Lists the jobs the entry walk will make and starts the workers when
 * there are at least two and threads allow. No pool on any failure. */
static void mt_start(mt_state *m, fz7_archive *a, const uint64_t *last_wanted)
{
    fz7_7z_db *db = a->priv;
    const fz7_7z_streams *s = &db->main;
    memset(m, 0, sizeof *m);
    m->a = a;
    if (fz7_decode_threads(a->opts.threads, 2) < 2 || s->num_folders < 2)
        return;
    m->jobs = malloc(a->count * sizeof *m->jobs);
    if (!m->jobs)
        return;
    uint64_t cur = UINT64_MAX;
    for (size_t i = 0; i < a->count; i++) {
        const fz7_entry *e = &a->entries[i];
        if (!e->has_stream)
            continue;
        uint64_t fi = (uint64_t)e->folder, sub = db->entry_substream[i];
        if (last_wanted[fi] == UINT64_MAX || sub > last_wanted[fi] || fi == cur)
            continue;
        cur = fi;
        const fz7_7z_folder *f = &s->folders[fi];
        mt_job_info *job = &m->jobs[m->njobs++];
        job->folder = fi;
        job->need = 0;
        for (uint64_t k = f->first_substream; k <= last_wanted[fi]; k++)
            job->need = s->sub_sizes[k] > UINT64_MAX - job->need ? UINT64_MAX
                                                                  : job->need + s->sub_sizes[k];
        job->probe = last_wanted[fi] + 1 == f->first_substream + f->num_substreams;
    }
    unsigned threads = fz7_decode_threads(a->opts.threads, m->njobs);
    if (threads < 2)
        return;
    m->window = (size_t)threads * 2;
    m->budget = a->opts.mem_limit / 2 / m->window;
    if (m->budget > MT_FOLDER_MAX)
        m->budget = MT_FOLDER_MAX;
    m->slots = calloc(m->window, sizeof *m->slots);
    if (m->slots)
        m->pool = fz7_decode_pool_start(m->njobs, threads, m->window, mt_run_job, m);
}

static void mt_stop(mt_state *m)
{
    fz7_decode_pool_stop(m->pool);
    for (size_t i = 0; m->slots && i < m->window; i++)
        if (m->slots[i].out)
            folder_buffer_destroy(&m->slots[i].out->base);
    free(m->slots);
    free(m->jobs);
}

/* Opens folder fi as the entry walk reaches it: the buffer a worker
 * decoded, or the folder's own decoding chain. */
static fz7_status open_folder(fz7_archive *a, mt_state *m, uint64_t fi, folder_state *fs)
{
    fz7_7z_db *db = a->priv;
    if (m->pool && m->next < m->njobs && m->jobs[m->next].folder == fi) {
        size_t j = m->next++;
        mt_slot *r = &m->slots[fz7_decode_pool_wait(m->pool, j)];
        bool ahead = !r->skipped;
        fz7_status st = r->open_status;
        if (ahead) {
            memcpy(fs->detail, r->detail, sizeof fs->detail);
            if (r->out) {
                fs->mem = r->out;
                fs->in = &r->out->base;
                r->out = NULL;
            }
        }
        fz7_decode_pool_release(m->pool, j);
        if (ahead)
            return st;
    }
    fz7_status st = fz7_7z_folder_istream_new(a->vol, &db->main, fi, a->opts.password,
                                              a->opts.mem_limit, &fs->in, fs->detail, sizeof fs->detail);
    const fz7_7z_folder *f = &db->main.folders[fi];
    if (st == FZ7_OK && f->unpack_sizes[f->main_out] >= RA_MIN &&
        fz7_decode_threads(a->opts.threads, 2) >= 2) {
        fs->probe_left = RA_PROBE;
        fs->ns_read = fs->ns_use = 0;
    }
    return st;
}

fz7_status fz7_7z_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                          char *err, size_t errlen)
{
    fz7_7z_db *db = a->priv;
    const fz7_7z_streams *s = &db->main;
    uint64_t *last_wanted = malloc((s->num_folders ? (size_t)s->num_folders : 1) * sizeof *last_wanted);
    uint8_t *buf = malloc(CHUNK_BYTES);
    if (!last_wanted || !buf) {
        free(last_wanted);
        free(buf);
        snprintf(err, errlen, "%s", fz7_status_str(FZ7_E_MEM));
        return FZ7_E_MEM;
    }
    /* The last selected substream of each folder: decoding stops there. */
    for (uint64_t f = 0; f < s->num_folders; f++)
        last_wanted[f] = UINT64_MAX;
    for (size_t i = 0; i < a->count; i++)
        if ((!select || select[i]) && a->entries[i].has_stream)
            last_wanted[a->entries[i].folder] = db->entry_substream[i];

    mt_state mt;
    mt_start(&mt, a, last_wanted);
    folder_state fs = {.index = UINT64_MAX};
    fz7_status ret = FZ7_OK;
    for (size_t i = 0; i < a->count && ret == FZ7_OK; i++) {
        const fz7_entry *e = &a->entries[i];
        bool wanted = !select || select[i];
        if (!e->has_stream) {
            if (wanted && (ret = cb->begin(cb->ctx, i, e)) == FZ7_OK)
                ret = cb->end(cb->ctx, i, FZ7_OK, NULL);
            continue;
        }
        uint64_t fi = (uint64_t)e->folder, sub = db->entry_substream[i];
        const fz7_7z_folder *f = &s->folders[fi];
        if (last_wanted[fi] == UINT64_MAX || sub > last_wanted[fi])
            continue;   /* nothing selected from here on in this folder */
        if (fi != fs.index) {
            folder_close(&fs);
            fs.index = fi;
            fs.crc = 0;
            fs.folder_crc = f->has_crc && f->num_substreams > 1;
            fs.detail[0] = 0;
            fs.probe_left = 0;
            fs.status = open_folder(a, &mt, fi, &fs);
        }
        if (wanted && (ret = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status st = fs.status, cb_st = FZ7_OK;
        const char *detail = fs.detail[0] ? fs.detail : NULL;
        char crc_detail[96];
        if (st == FZ7_OK) {
            uint32_t crc;
            st = read_substream(&fs, s->sub_sizes[sub], buf, wanted, cb, &crc, &cb_st);
            if (cb_st != FZ7_OK) {
                ret = cb_st;
                break;
            }
            if (st == FZ7_OK && sub + 1 == f->first_substream + f->num_substreams)
                st = finish_folder(&fs, f);
            if (st == FZ7_OK && e->has_crc && crc != e->crc) {
                snprintf(crc_detail, sizeof crc_detail, "CRC mismatch (expected %08" PRIX32 ", got %08" PRIX32 ")",
                         e->crc, crc);
                detail = crc_detail;
                st = FZ7_E_CRC;
                if (f->encrypted)
                    st = password_hint(f, st, crc_detail, sizeof crc_detail);
            } else if (st != FZ7_OK) {
                /* A decoding error ends the folder: later entries get it too. */
                if (!fs.detail[0] || st != FZ7_E_CRC)
                    snprintf(fs.detail, sizeof fs.detail, "%s", fz7_status_str(st));
                st = password_hint(f, st, fs.detail, sizeof fs.detail);
                fs.status = st;
                detail = fs.detail;
                folder_close(&fs);
            }
        }
        if (wanted)
            ret = cb->end(cb->ctx, i, st, st == FZ7_OK ? NULL : detail);
        if (ret == FZ7_OK && (st == FZ7_E_IO || st == FZ7_E_MEM)) {
            snprintf(err, errlen, "%s", fz7_status_str(st));
            ret = st;
        }
        if (sub == last_wanted[fi])
            folder_close(&fs);
    }
    folder_close(&fs);
    mt_stop(&mt);
    free(last_wanted);
    free(buf);
    if (ret != FZ7_OK && errlen && !err[0])
        snprintf(err, errlen, "%s", fz7_status_str(ret));
    return ret;
}
