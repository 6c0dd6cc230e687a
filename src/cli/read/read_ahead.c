/*
 * src/cli/read/read_ahead.c — reading and decoding trace files on a pool of
 * threads, ahead of the one thread that consumes the records (see
 * read_ahead.h).
 *
 * One lock guards the shared state: which file each worker reads, the
 * queues of decoded chunks, the free chunks. Workers read and decode
 * without it; the consumer replays a decoded line without it.
 */
#include "read/read_ahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/trace_reader.h"

/* One top-level member of a decoded line, its value as an offset into the
 * line (a line longer than 4 GiB is not decoded ahead: see append_line). */
typedef struct {
  uint32_t off;
  uint32_t len;
  uint8_t key;
  uint8_t type;
  bool escaped;
} ra_member;

/* One line of a chunk, as rec_decode left it (r.line and r.f are set again
 * when it is handed out). */
typedef struct {
  rec r;
  size_t off, len; /* the text in the chunk */
  uint64_t line_no;
  size_t first_member, nmembers;
  const char *error; /* not parsed: the scanner's reason (a literal) */
  size_t error_at;
  bool parsed;
  bool unterminated;
} ra_line;

typedef struct ra_chunk ra_chunk;
struct ra_chunk {
  ra_chunk *next; /* in a ready queue or the free list */
  char *text;
  size_t text_used, text_cap;
  ra_line *lines;
  size_t nlines, cap_lines;
  ra_member *members;
  size_t nmembers, cap_members;
  uint64_t bytes_read;   /* the file's, after this chunk */
  uint64_t last_line_no; /* the file's line number after this chunk */
  int end;               /* after its lines: RA_LINE (more to come), RA_END,
                            RA_READ_ERROR or RA_OPEN_ERROR */
  int error;
  char *notices; /* what reading it had to say on stderr (tr_say) */
};

typedef struct {
  const char *path;
  /* the reading side: used by one worker at a time (busy) */
  tr_file tf;
  bool opened;
  /* shared, under the lock */
  bool busy;       /* a worker is reading its next chunk */
  bool finished;   /* its last chunk has been read */
  unsigned chunks; /* alive: consumed, ready or being read */
  ra_chunk *ready; /* queue of decoded chunks, oldest first */
  ra_chunk *ready_tail;
  unsigned nready;
  /* the consumer's */
  ra_chunk *cur;
  size_t at; /* next line of cur */
  /* without workers (read_direct): how the file ended, once it has */
  bool ended;
  ra_line_info end;
  int end_code;
} ra_file;

struct ra_reader {
  pthread_mutex_t lock;
  pthread_cond_t work;  /* workers: a file can be read */
  pthread_cond_t ready; /* the consumer: a chunk is ready */
  ra_file *files;
  size_t n;
  size_t chunk_bytes;
  size_t buf_bytes;
  bool stop;
  ra_chunk *pool; /* RA_DEPTH chunks per file, allocated once */
  ra_chunk *free_chunks;
  struct ra_worker *workers;
  unsigned nthreads;
  rec_scratch *inline_scratch; /* no threads: the consumer reads */
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

/* ---- reading one chunk (a worker, or the consumer when there is none) ---- */

static size_t chunk_size(const ra_chunk *c) {
  return c->text_used + c->nlines * sizeof(ra_line) +
         c->nmembers * sizeof(ra_member);
}

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

/* Append the line tf->line (decoded into s, or not) to the chunk. The
 * arrays are allocated once, big enough for any chunk of `chunk_bytes`
 * (a chunk ends as soon as it holds that much), so that they are not moved
 * while threads run: growing or freeing mapped memory makes the kernel
 * interrupt every CPU that runs one of them. Only a line longer than a
 * chunk grows the text. */
static bool append_line(ra_chunk *c, size_t chunk_bytes, const tr_file *tf,
                        rec_scratch *s, const rec *r, bool parsed) {
  size_t nmembers = parsed ? s->top.nfound : 0;
  if (!grow((void **)&c->text, &c->text_cap, c->text_used + tf->line_len + 1, 1,
            chunk_bytes) ||
      !grow((void **)&c->lines, &c->cap_lines, c->nlines + 1, sizeof *c->lines,
            chunk_bytes / sizeof *c->lines + 1) ||
      !grow((void **)&c->members, &c->cap_members, c->nmembers + nmembers,
            sizeof *c->members, chunk_bytes / sizeof *c->members + K_KEY_COUNT))
    return false;
  ra_line *l = &c->lines[c->nlines++];
  l->r = *r;
  l->off = c->text_used;
  l->len = tf->line_len;
  l->line_no = tf->line_no;
  l->unterminated = tf->line_unterminated;
  l->parsed = parsed;
  l->error = parsed ? NULL : s->top.error;
  l->error_at = parsed ? 0 : s->top.error_at;
  l->first_member = c->nmembers;
  l->nmembers = nmembers;
  for (size_t i = 0; i < nmembers; i++) {
    js_key k = (js_key)s->top.found[i];
    const js_value *v = &s->top.v[k];
    ra_member *m = &c->members[c->nmembers++];
    m->off = (uint32_t)(v->ptr - tf->line);
    m->len = (uint32_t)v->len;
    m->key = (uint8_t)k;
    m->type = (uint8_t)v->type;
    m->escaped = v->escaped;
  }
  memcpy(c->text + c->text_used, tf->line, tf->line_len);
  c->text_used += tf->line_len;
  return true;
}

/* Read and decode the next chunk of `f` (which the caller owns: busy). */
static void read_chunk(ra_reader *ra, ra_file *f, ra_chunk *c, rec_scratch *s) {
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
  while (chunk_size(c) < ra->chunk_bytes) {
    int got = tr_next(tf);
    if (got <= 0) {
      c->end = got == 0 ? RA_END : RA_READ_ERROR;
      c->error = got == 0 ? 0 : tf->error;
      break;
    }
    rec r;
    bool parsed;
    if (tf->line_len <= UINT32_MAX) {
      parsed = rec_decode(&r, s, tf->line, tf->line_len);
    } else { /* members are kept as 32-bit offsets */
      rec_decode(&r, s, "", 0);
      r.len = tf->line_len;
      s->top.error = "line longer than 4 GiB";
      parsed = false;
    }
    if (!append_line(c, ra->chunk_bytes, tf, s, &r, parsed)) {
      c->end = RA_READ_ERROR;
      c->error = ENOMEM;
      break;
    }
  }
  c->bytes_read = tf->bytes_read;
  c->last_line_no = tf->line_no;
  c->notices = tf->deferred; /* said by the consumer when it gets there */
  tf->deferred = NULL;
  if (c->end != RA_LINE) {
    tr_close(tf);
    f->opened = false;
  }
}

/* ---- the pool ---- */

/* A file to read a chunk of ahead, or NULL: the one with the fewest
 * chunks ready (the first of those) among those nobody reads and that
 * have room. */
static ra_file *pick_file(ra_reader *ra) {
  ra_file *best = NULL;
  for (size_t i = 0; i < ra->n; i++) {
    ra_file *f = &ra->files[i];
    if (f->busy || f->finished || f->chunks >= RA_DEPTH)
      continue;
    if (!best || f->nready < best->nready)
      best = f;
    if (best->nready == 0)
      break;
  }
  return best;
}

/* Under the lock: a free chunk for reading `f` now (never none: RA_DEPTH
 * chunks per file exist). */
static ra_chunk *start_reading(ra_reader *ra, ra_file *f) {
  ra_chunk *c = ra->free_chunks;
  ra->free_chunks = c->next;
  c->next = NULL;
  f->busy = true;
  f->chunks++;
  return c;
}

/* Under the lock: chunk `c` of `f` has been read; queue it. */
static void queue_chunk(ra_reader *ra, ra_file *f, ra_chunk *c) {
  if (f->ready_tail)
    f->ready_tail->next = c;
  else
    f->ready = c;
  f->ready_tail = c;
  f->nready++;
  f->busy = false;
  f->finished = c->end != RA_LINE;
  pthread_cond_signal(&ra->ready); /* the one consumer */
}

static void *worker(void *arg) {
  ra_worker *w = arg;
  ra_reader *ra = w->ra;
  pthread_mutex_lock(&ra->lock);
  while (!ra->stop) {
    ra_file *f = pick_file(ra);
    if (!f) {
      pthread_cond_wait(&ra->work, &ra->lock);
      continue;
    }
    ra_chunk *c = start_reading(ra, f);
    pthread_mutex_unlock(&ra->lock);
    read_chunk(ra, f, c, &w->scratch);
    pthread_mutex_lock(&ra->lock);
    queue_chunk(ra, f, c);
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
  pthread_cond_signal(&ra->work); /* f may be read further */
  pthread_mutex_unlock(&ra->lock);
}

/* The next chunk of `f` for the consumer: the oldest ready one; else, when
 * nobody reads `f`, read here (without workers, that is every chunk);
 * else, while a worker reads it, read ahead for another file rather than
 * sleep, and sleep only when there is nothing to read. */
static ra_chunk *take_chunk(ra_reader *ra, ra_file *f) {
  pthread_mutex_lock(&ra->lock);
  for (;;) {
    if (f->ready) {
      ra_chunk *c = f->ready;
      f->ready = c->next;
      if (!f->ready)
        f->ready_tail = NULL;
      f->nready--;
      c->next = NULL;
      pthread_mutex_unlock(&ra->lock);
      return c;
    }
    ra_file *g = !f->busy && !f->finished ? f : pick_file(ra);
    if (!g) {
      pthread_cond_wait(&ra->ready, &ra->lock);
      continue;
    }
    ra_chunk *c = start_reading(ra, g);
    pthread_mutex_unlock(&ra->lock);
    read_chunk(ra, g, c, ra->inline_scratch);
    pthread_mutex_lock(&ra->lock);
    queue_chunk(ra, g, c); /* f's own: taken from the queue right away */
  }
}

static size_t clamp(size_t v, size_t lo, size_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

ra_reader *ra_open(char *const *paths, size_t n, unsigned jobs) {
  ra_reader *ra = calloc(1, sizeof *ra);
  if (!ra)
    return NULL;
  ra->n = n;
  ra->files = calloc(n ? n : 1, sizeof *ra->files);
  ra->pool = calloc(n ? n * RA_DEPTH : 1, sizeof *ra->pool);
  ra->inline_scratch = malloc(sizeof *ra->inline_scratch);
  if (!ra->files || !ra->pool || !ra->inline_scratch ||
      pthread_mutex_init(&ra->lock, NULL) != 0) {
    free(ra->files);
    free(ra->pool);
    free(ra->inline_scratch);
    free(ra);
    return NULL;
  }
  pthread_cond_init(&ra->work, NULL);
  pthread_cond_init(&ra->ready, NULL);
  rec_scratch_init(ra->inline_scratch);
  for (size_t i = 0; i < n; i++) {
    ra->files[i].path = paths[i];
    ra->files[i].tf.fd = -1;
  }
  for (size_t i = 0; i < n * RA_DEPTH; i++) {
    ra->pool[i].next = ra->free_chunks;
    ra->free_chunks = &ra->pool[i];
  }
  ra->chunk_bytes =
      clamp(RA_BUDGET / (RA_DEPTH * (n ? n : 1)), RA_CHUNK_MIN, RA_CHUNK_MAX);
  ra->buf_bytes = clamp(ra->chunk_bytes, 64 << 10, 1 << 20);
  if (jobs == 0)
    jobs = ra_default_jobs();
  /* the consumer reads too: jobs - 1 workers, at most one per file */
  unsigned workers = jobs - 1 < n ? jobs - 1 : (unsigned)n;
  if (workers == 0)
    return ra; /* no thread: the consumer reads each chunk itself */
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
  return ra; /* without any thread, the consumer reads each chunk itself */
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
      info->error = 0;
      *parsed = rec_decode(r, s, tf->line, tf->line_len);
      return RA_LINE;
    }
    err = got < 0 ? tf->error : 0;
    got = got < 0 ? RA_READ_ERROR : RA_END;
    f->end.line_no = tf->line_no;
    f->end.bytes_read = tf->bytes_read;
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
  while (!f->cur || f->at == f->cur->nlines) {
    ra_chunk *done = f->cur;
    if (done && done->end != RA_LINE) {
      /* the file's last chunk stays until ra_close: it says how it ended */
      info->line = NULL;
      info->line_len = 0;
      info->line_no = done->last_line_no;
      info->line_unterminated = false;
      info->bytes_read = done->bytes_read;
      info->error = done->error;
      return done->end;
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
  for (size_t i = 0; i < l->nmembers; i++) {
    const ra_member *m = &c->members[l->first_member + i];
    js_value v = {info->line + m->off, m->len, (js_type)m->type, m->escaped};
    js_fields_set(&s->top, (js_key)m->key, &v);
  }
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
  for (size_t i = 0; i < ra->n * RA_DEPTH; i++) {
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
