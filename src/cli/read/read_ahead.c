/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/read_ahead.c — reading and decoding trace files on a pool of
 * threads, ahead of the one thread that consumes the records (see
 * read_ahead.h).
 *
 * A chunk is made in two steps by the thread that takes it: filling (the
 * file's next lines copied into it: one thread per file at a time, as a
 * file is read in order) and decoding them (any number of a file's chunks
 * at once). A file's chunks join its queue in file order when filling
 * starts, and the consumer takes the queue's head once it is decoded, so
 * the decoding of one file spreads over every thread while its lines keep
 * their order.
 *
 * A binary file (.cst) is read by lines like any other: its codec
 * (trace_codec.h) makes its frames' records text a piece at a time as
 * filling asks for lines, and the decoding of those lines is spread over
 * the threads. Its event lines come decoded: filling copies their record
 * and marks, and decoding finds their members from the marks instead of
 * parsing them.
 *
 * One lock guards the shared state: which file is being filled, the
 * queues, which chunks are decoded, the free chunks. Threads fill and
 * decode without it; the consumer replays a decoded line without it.
 */
#include "read/read_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/trace_reader.h"

/* One line of a chunk: where its text is (filling), and what rec_decode
 * left (decoding; r.line and r.f are set again when it is handed out). */
typedef struct {
  rec r;
  size_t off, len; /* the text in the chunk */
  uint64_t line_no;
  size_t first_member, nmembers;
  const char *error; /* not parsed: the scanner's reason (a literal) */
  size_t error_at;
  bool parsed;
  bool unterminated;
  bool given; /* it came decoded (tr_file's decoded: r is set): decoding
                 finds its members from `marks` */
  line_marks marks;
} ra_line;

typedef struct ra_chunk ra_chunk;
struct ra_chunk {
  ra_chunk *next; /* in its file's queue or the free list */
  bool decoded;   /* under the lock: its lines can be handed out */
  char *text;
  size_t text_used, text_cap;
  ra_line *lines;
  size_t nlines, cap_lines;
  js_member_at *members;        /* each line's at its first_member (room made
                                   when it was appended); a line longer than
                                   4 GiB is not decoded ahead: see decode_chunk */
  size_t nmembers, cap_members; /* room taken by the lines so far */
  uint64_t bytes_read;          /* the file's, after this chunk */
  uint64_t text_bytes;          /* the file's text, after this chunk */
  uint64_t last_line_no;        /* the file's line number after this chunk */
  int end; /* after its lines: RA_LINE (more to come), RA_END,
              RA_READ_ERROR or RA_OPEN_ERROR */
  int error;
  char *notices; /* what reading it had to say on stderr (tr_say) */
};

typedef struct {
  const char *path;
  /* the filling side: used by one thread at a time (filling) */
  tr_file tf;
  bool opened;
  /* shared, under the lock */
  bool filling;    /* a thread is copying its next lines into a chunk */
  bool finished;   /* its last chunk has been filled */
  unsigned chunks; /* alive: consumed or queued */
  ra_chunk *queue; /* its chunks in file order, decoded or being decoded */
  ra_chunk *queue_tail;
  unsigned nqueued;
  /* the consumer's */
  ra_chunk *cur;
  size_t at; /* next line of cur */
  /* how the file ended, once it has (read_direct, and ra_next once the
   * consumer has reached the end: its last chunk is released) */
  bool ended;
  ra_line_info end;
  int end_code;
} ra_file;

struct ra_reader {
  pthread_mutex_t lock;
  pthread_cond_t work;  /* workers: a file can be filled */
  pthread_cond_t ready; /* the consumer: a chunk is decoded, or a file
                           can be filled */
  ra_file *files;
  size_t n;
  unsigned depth; /* chunks per file at most */
  size_t chunk_bytes;
  size_t buf_bytes;
  bool stop;
  /* counts every change a waiting thread may be waiting for (written
   * under the lock, read while spinning without it) */
  atomic_uint changes;
  ra_chunk *pool; /* `depth` chunks per file, allocated once */
  ra_chunk *free_chunks;
  struct ra_worker *workers;
  unsigned nthreads;
  rec_scratch *inline_scratch; /* the consumer's, for decoding chunks */
  ra_decoder decode;           /* rec_decode, or ra_open_decoding's */
};

typedef struct ra_worker {
  ra_reader *ra;
  pthread_t thread;
  rec_scratch scratch;
} ra_worker;

unsigned ra_default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

/* ---- making one chunk (a worker, or the consumer) ---- */

static bool grow(void **p, size_t *cap, size_t need, size_t elem,
                 size_t first) {
  if (need <= *cap)
    return true;
  size_t ncap = *cap ? *cap : first;
  while (ncap < need)
    ncap *= 2;
  void *np = realloc(*p, ncap * elem);
  if (!np)
    return false;
  *p = np;
  *cap = ncap;
  return true;
}

/* Most members a decoded line of `len` bytes can have: each known key at
 * most once, and each takes 6 bytes at least ("id":0). */
static size_t members_bound(size_t len) {
  size_t n = len / 6 + 1;
  return n < K_KEY_COUNT ? n : K_KEY_COUNT;
}

/* Append the text of line tf->line to the chunk, with room for its
 * decoded members, so that decoding allocates nothing (the members that
 * came with it are copied now). The arrays are allocated once, big enough
 * for any chunk of `chunk_bytes` (a chunk ends as soon as its text and
 * lines hold that much), so that they are not moved while threads run:
 * growing or freeing mapped memory makes the kernel interrupt every CPU
 * that runs one of them. Only a line longer than a chunk grows them. */
static bool append_text(ra_chunk *c, size_t chunk_bytes, const tr_file *tf) {
  bool given = tf->decoded != NULL;
  size_t room = members_bound(tf->line_len);
  if (!grow((void **)&c->text, &c->text_cap, c->text_used + tf->line_len + 1, 1,
            chunk_bytes) ||
      !grow((void **)&c->lines, &c->cap_lines, c->nlines + 1, sizeof *c->lines,
            chunk_bytes / sizeof *c->lines + 1) ||
      !grow((void **)&c->members, &c->cap_members, c->nmembers + room,
            sizeof *c->members, chunk_bytes / sizeof *c->members))
    return false;
  ra_line *l = &c->lines[c->nlines++];
  l->off = c->text_used;
  l->len = tf->line_len;
  l->line_no = tf->line_no;
  l->unterminated = tf->line_unterminated;
  l->first_member = c->nmembers;
  l->nmembers = 0;
  l->given = given;
  if (given) {
    l->r = *tf->decoded;
    l->r.len = tf->line_len;
    l->marks = *tf->marks;
  }
  c->nmembers += room;
  memcpy(c->text + c->text_used, tf->line, tf->line_len);
  c->text_used += tf->line_len;
  return true;
}

/* Copy the next lines of `f` (which the caller fills: f->filling) into
 * chunk `c`, until it holds chunk_bytes of text and lines or the file
 * ends. */
static void fill_chunk(ra_reader *ra, ra_file *f, ra_chunk *c) {
  c->text_used = c->nlines = c->nmembers = 0;
  c->end = RA_LINE;
  c->error = 0;
  if (!f->opened) {
    int err = tr_open_deferring(&f->tf, f->path, ra->buf_bytes);
    if (err) {
      c->end = RA_OPEN_ERROR;
      c->error = err;
      return;
    }
    f->opened = true;
  }
  tr_file *tf = &f->tf;
  while (c->text_used + c->nlines * sizeof *c->lines < ra->chunk_bytes) {
    int got = tr_next(tf);
    if (got <= 0) {
      c->end = got == 0 ? RA_END : RA_READ_ERROR;
      c->error = got == 0 ? 0 : tf->error;
      break;
    }
    if (!append_text(c, ra->chunk_bytes, tf)) {
      c->end = RA_READ_ERROR;
      c->error = ENOMEM;
      break;
    }
  }
  c->bytes_read = tf->bytes_read;
  c->text_bytes = tf->text_bytes;
  c->last_line_no = tf->line_no;
  c->notices = tf->deferred; /* said by the consumer when it gets there */
  tf->deferred = NULL;
  if (c->end != RA_LINE) {
    tr_close(tf);
    f->opened = false;
  }
}

/* Decode every line of a filled chunk, as rec_decode does, keeping what
 * ra_next replays: the record, and the top-level members as offsets (a
 * line that came decoded has its record: its members are found from its
 * marks, without parsing it). */
static void decode_chunk(ra_chunk *c, rec_scratch *s, ra_decoder decode) {
  for (size_t i = 0; i < c->nlines; i++) {
    ra_line *l = &c->lines[i];
    const char *line = c->text + l->off;
    bool parsed;
    if (l->given) { /* its record is there: its members from its marks */
      int n = line_members_of_event(line, l->len, &l->marks,
                                    c->members + l->first_member,
                                    (uint32_t)members_bound(l->len));
      if (n >= 0) {
        l->nmembers = (size_t)n;
        l->parsed = true;
        l->error = NULL;
        l->error_at = 0;
        continue;
      }
    }
    if (l->len <= UINT32_MAX) {
      parsed = decode(&l->r, s, line, l->len);
    } else { /* members are kept as 32-bit offsets */
      rec_decode(&l->r, s, "", 0);
      l->r.len = l->len;
      s->top.error = "line longer than 4 GiB";
      parsed = false;
    }
    /* room for them was made when the line was appended */
    size_t nmembers = parsed ? s->top.nfound : 0;
    l->parsed = parsed;
    l->error = parsed ? NULL : s->top.error;
    l->error_at = parsed ? 0 : s->top.error_at;
    l->nmembers = nmembers;
    for (size_t k = 0; k < nmembers; k++)
      c->members[l->first_member + k] =
          js_member_at_of(&s->top, (uint32_t)k, line);
  }
}

/* ---- the pool ---- */

/* Under the lock: may a chunk of `f` be filled now? Not while another
 * thread fills one, and when it has room: `depth` chunks. */
static bool can_fill(const ra_reader *ra, const ra_file *f) {
  return !f->filling && !f->finished && f->chunks < ra->depth;
}

/* A file to fill a chunk of, or NULL: the one with the fewest chunks
 * queued (the first of those) among those nobody fills and that have
 * room. */
static ra_file *pick_file(ra_reader *ra) {
  ra_file *best = NULL;
  for (size_t i = 0; i < ra->n; i++) {
    ra_file *f = &ra->files[i];
    if (!can_fill(ra, f))
      continue;
    if (!best || f->nqueued < best->nqueued)
      best = f;
    if (best->nqueued == 0)
      break;
  }
  return best;
}

/* Under the lock: a free chunk to fill for `f` now (never none: `depth`
 * chunks per file exist), queued at once so that the file's chunks stay
 * in order whichever is decoded first. */
static ra_chunk *start_filling(ra_reader *ra, ra_file *f) {
  ra_chunk *c = ra->free_chunks;
  ra->free_chunks = c->next;
  c->next = NULL;
  c->decoded = false;
  if (f->queue_tail)
    f->queue_tail->next = c;
  else
    f->queue = c;
  f->queue_tail = c;
  f->nqueued++;
  f->filling = true;
  f->chunks++;
  return c;
}

/* Fill chunk `c` of `f` (started with start_filling), let the next chunk
 * of `f` be filled by anyone, decode `c`, and say it is ready. Called and
 * returns with the lock held. */
static void make_chunk(ra_reader *ra, ra_file *f, ra_chunk *c, rec_scratch *s) {
  pthread_mutex_unlock(&ra->lock);
  fill_chunk(ra, f, c);
  pthread_mutex_lock(&ra->lock);
  f->filling = false;
  f->finished = c->end != RA_LINE;
  atomic_fetch_add_explicit(&ra->changes, 1, memory_order_relaxed);
  if (!f->finished) {
    pthread_cond_signal(&ra->work);  /* a worker may fill the next */
    pthread_cond_signal(&ra->ready); /* or the consumer */
  }
  pthread_mutex_unlock(&ra->lock);
  decode_chunk(c, s, ra->decode);
  pthread_mutex_lock(&ra->lock);
  c->decoded = true;
  atomic_fetch_add_explicit(&ra->changes, 1, memory_order_relaxed);
  pthread_cond_signal(&ra->ready); /* the one consumer */
}

/* Under the lock: wait until something changes (a chunk filled, decoded
 * or released). Spin a little first, without the lock: the other threads
 * change something every few microseconds, and going to sleep and being
 * woken costs more than that on a virtual machine (futex calls were 9 %
 * of check -j 2's samples). Returns with the lock held; the caller looks
 * again. */
static void wait_for_change(ra_reader *ra, pthread_cond_t *cond) {
  unsigned seen = atomic_load_explicit(&ra->changes, memory_order_relaxed);
  pthread_mutex_unlock(&ra->lock);
  for (int i = 0; i < RA_SPIN; i++) {
    if (atomic_load_explicit(&ra->changes, memory_order_relaxed) != seen)
      break;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  pthread_mutex_lock(&ra->lock);
  if (atomic_load_explicit(&ra->changes, memory_order_relaxed) == seen &&
      !ra->stop)
    pthread_cond_wait(cond, &ra->lock);
}

static void *worker(void *arg) {
  ra_worker *w = arg;
  ra_reader *ra = w->ra;
  pthread_mutex_lock(&ra->lock);
  while (!ra->stop) {
    ra_file *f = pick_file(ra);
    if (!f) {
      wait_for_change(ra, &ra->work);
      continue;
    }
    make_chunk(ra, f, start_filling(ra, f), &w->scratch);
  }
  pthread_mutex_unlock(&ra->lock);
  return NULL;
}

/* The consumer is done with chunk `c` of `f`. */
static void release_chunk(ra_reader *ra, ra_file *f, ra_chunk *c) {
  pthread_mutex_lock(&ra->lock);
  f->chunks--;
  c->next = ra->free_chunks;
  ra->free_chunks = c;
  atomic_fetch_add_explicit(&ra->changes, 1, memory_order_relaxed);
  /* a worker is woken when f can take two chunks, not for each one: the
   * consumer makes a chunk itself when it needs one, and waking a thread
   * per chunk cost more than the chunk (lock step over 512 files) */
  if (ra->depth - f->chunks >= 2)
    pthread_cond_signal(&ra->work);
  pthread_mutex_unlock(&ra->lock);
}

/* The next chunk of `f` for the consumer: the head of its queue once
 * decoded. Until then, make a chunk here: the next one of `f` when nobody
 * fills it (while a worker decodes the head, this decodes the chunk after
 * it), else one of another file; wait only when there is nothing to
 * make. */
static ra_chunk *take_chunk(ra_reader *ra, ra_file *f) {
  pthread_mutex_lock(&ra->lock);
  for (;;) {
    ra_chunk *c = f->queue;
    if (c && c->decoded) {
      f->queue = c->next;
      if (!f->queue)
        f->queue_tail = NULL;
      f->nqueued--;
      c->next = NULL;
      pthread_mutex_unlock(&ra->lock);
      return c;
    }
    ra_file *g = can_fill(ra, f) ? f : pick_file(ra);
    if (!g) {
      wait_for_change(ra, &ra->ready);
      continue;
    }
    make_chunk(ra, g, start_filling(ra, g), ra->inline_scratch);
  }
}

static size_t clamp(size_t v, size_t lo, size_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static ra_reader *open_reader(char *const *paths, size_t n, unsigned jobs,
                              size_t chunk_bytes, ra_decoder decode) {
  if (jobs == 0)
    jobs = ra_default_jobs();
  ra_reader *ra = calloc(1, sizeof *ra);
  if (!ra)
    return NULL;
  ra->n = n;
  ra->decode = decode;
  /* every thread may be making a chunk of the same file while the
   * consumer holds one */
  size_t fits = RA_BUDGET / ((n ? n : 1) * RA_CHUNK_MIN);
  ra->depth = (unsigned)clamp(jobs + 3 < fits ? jobs + 3 : fits, RA_DEPTH,
                              RA_DEPTH_MAX);
  ra->files = calloc(n ? n : 1, sizeof *ra->files);
  ra->pool = calloc(n ? n * ra->depth : 1, sizeof *ra->pool);
  ra->inline_scratch = malloc(sizeof *ra->inline_scratch);
  if (!ra->files || !ra->pool || !ra->inline_scratch ||
      pthread_mutex_init(&ra->lock, NULL) != 0) {
    free(ra->files);
    free(ra->pool);
    free(ra->inline_scratch);
    free(ra);
    return NULL;
  }
  atomic_init(&ra->changes, 0);
  pthread_cond_init(&ra->work, NULL);
  pthread_cond_init(&ra->ready, NULL);
  rec_scratch_init(ra->inline_scratch);
  for (size_t i = 0; i < n; i++) {
    ra->files[i].path = paths[i];
    ra->files[i].tf.fd = -1;
  }
  for (size_t i = 0; i < n * ra->depth; i++) {
    ra->pool[i].next = ra->free_chunks;
    ra->free_chunks = &ra->pool[i];
  }
  size_t share = RA_BUDGET / (ra->depth * (n ? n : 1));
  ra->chunk_bytes =
      chunk_bytes ? chunk_bytes : clamp(share, RA_CHUNK_MIN, RA_CHUNK_MAX);
  ra->buf_bytes = clamp(share, 64 << 10, 256 << 10);
  /* the consumer makes chunks too: jobs - 1 workers, at most one per file
   * and chunk */
  size_t most = n * (ra->depth - 1);
  unsigned workers = jobs - 1 < most ? jobs - 1 : (unsigned)most;
  if (workers == 0)
    return ra; /* no thread: the consumer reads each line itself */
  js_keys_prepare();
  ra->workers = calloc(workers, sizeof *ra->workers);
  if (!ra->workers) {
    ra_close(ra);
    return NULL;
  }
  for (unsigned i = 0; i < workers; i++) {
    ra_worker *w = &ra->workers[i];
    w->ra = ra;
    rec_scratch_init(&w->scratch);
    if (pthread_create(&w->thread, NULL, worker, w) != 0)
      break;
    ra->nthreads++;
  }
  return ra; /* without any thread, the consumer reads each line itself */
}

ra_reader *ra_open_sized(char *const *paths, size_t n, unsigned jobs,
                         size_t chunk_bytes) {
  return open_reader(paths, n, jobs, chunk_bytes, rec_decode);
}

ra_reader *ra_open_decoding(char *const *paths, size_t n, unsigned jobs,
                            ra_decoder decode) {
  const char *e = getenv("RA_CHUNK");
  return open_reader(paths, n, jobs, e ? (size_t)atol(e) : 0, decode);
}

ra_reader *ra_open(char *const *paths, size_t n, unsigned jobs) {
  const char *e = getenv("RA_CHUNK");
  return ra_open_sized(paths, n, jobs, e ? (size_t)atol(e) : 0);
}

/* Without workers: straight from tr_next into the caller's scratch, as the
 * commands read before there were threads (no chunk, no copy, and what the
 * file says on stderr is said at once). */
static int read_direct(ra_reader *ra, ra_file *f, rec_scratch *s, rec *r,
                       bool *parsed, ra_line_info *info) {
  if (f->ended) {
    *info = f->end;
    return f->end_code;
  }
  tr_file *tf = &f->tf;
  int got = RA_OPEN_ERROR, err = 0;
  if (!f->opened) {
    err = tr_open(tf, f->path, ra->buf_bytes);
    f->opened = err == 0;
  }
  if (f->opened) {
    got = tr_next(tf);
    if (got == 1) {
      info->line = tf->line;
      info->line_len = tf->line_len;
      info->line_no = tf->line_no;
      info->line_unterminated = tf->line_unterminated;
      info->bytes_read = tf->bytes_read;
      info->text_bytes = tf->text_bytes;
      info->error = 0;
      *parsed = (tf->decoded && rec_take_decoded(r, s, tf->decoded, tf->marks,
                                                 tf->line, tf->line_len)) ||
                ra->decode(r, s, tf->line, tf->line_len);
      return RA_LINE;
    }
    err = got < 0 ? tf->error : 0;
    got = got < 0 ? RA_READ_ERROR : RA_END;
    f->end.line_no = tf->line_no;
    f->end.bytes_read = tf->bytes_read;
    f->end.text_bytes = tf->text_bytes;
    tr_close(tf);
    f->opened = false;
  }
  f->ended = true;
  f->end_code = got;
  f->end.error = err;
  *info = f->end;
  return got;
}

int ra_next(ra_reader *ra, size_t file, rec_scratch *s, rec *r, bool *parsed,
            ra_line_info *info) {
  ra_file *f = &ra->files[file];
  *parsed = false;
  if (ra->nthreads == 0)
    return read_direct(ra, f, s, r, parsed, info);
  if (f->ended) {
    *info = f->end;
    return f->end_code;
  }
  while (!f->cur || f->at == f->cur->nlines) {
    ra_chunk *done = f->cur;
    if (done && done->end != RA_LINE) {
      /* the end, kept here: the last chunk goes back to the pool */
      f->end = (ra_line_info){.line = NULL,
                              .line_len = 0,
                              .line_no = done->last_line_no,
                              .line_unterminated = false,
                              .bytes_read = done->bytes_read,
                              .text_bytes = done->text_bytes,
                              .error = done->error};
      f->end_code = done->end;
      f->ended = true;
      f->cur = NULL;
      release_chunk(ra, f, done);
      *info = f->end;
      return f->end_code;
    }
    f->cur = NULL;
    if (done)
      release_chunk(ra, f, done);
    f->cur = take_chunk(ra, f);
    f->at = 0;
    if (f->cur->notices) {
      fputs(f->cur->notices, stderr);
      free(f->cur->notices);
      f->cur->notices = NULL;
    }
  }
  const ra_chunk *c = f->cur;
  const ra_line *l = &c->lines[f->at++];
  info->line = c->text + l->off;
  info->line_len = l->len;
  info->line_no = l->line_no;
  info->line_unterminated = l->unterminated;
  info->bytes_read = c->bytes_read;
  info->text_bytes = c->text_bytes;
  info->error = 0;
  js_fields_reset(&s->top);
  *r = l->r;
  r->line = info->line;
  r->f = &s->top;
  if (!l->parsed) {
    s->top.error = l->error;
    s->top.error_at = l->error_at;
    return RA_LINE;
  }
  *parsed = true;
  /* the list of keys found too, as the worker's decoding left it (the
   * ordered reader keeps the members of each record from it) */
  for (size_t i = 0; i < l->nmembers; i++)
    js_fields_add_member(&s->top, &c->members[l->first_member + i], info->line);
  return RA_LINE;
}

void ra_close(ra_reader *ra) {
  if (!ra)
    return;
  pthread_mutex_lock(&ra->lock);
  ra->stop = true;
  pthread_cond_broadcast(&ra->work);
  pthread_mutex_unlock(&ra->lock);
  for (unsigned i = 0; i < ra->nthreads; i++)
    pthread_join(ra->workers[i].thread, NULL);
  for (size_t i = 0; i < ra->n; i++)
    if (ra->files[i].opened)
      tr_close(&ra->files[i].tf);
  for (size_t i = 0; i < ra->n * ra->depth; i++) {
    free(ra->pool[i].text);
    free(ra->pool[i].lines);
    free(ra->pool[i].members);
    free(ra->pool[i].notices);
  }
  pthread_cond_destroy(&ra->work);
  pthread_cond_destroy(&ra->ready);
  pthread_mutex_destroy(&ra->lock);
  free(ra->workers);
  free(ra->pool);
  free(ra->files);
  free(ra->inline_scratch);
  free(ra);
}
