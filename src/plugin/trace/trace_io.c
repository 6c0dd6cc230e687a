/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_io.c — the trace file's I/O thread (see trace_io.h).
 */
#include "trace_io.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "clock.h"
#include "trace_binary.h"
#include "trace_zstd.h"

/* How far below the process the I/O thread runs (lower_own_priority). */
#define CS_IO_NICE_STEPS 10

struct cs_io_job {
  cs_io_job *next;
  char *data;
  size_t cap;
  size_t len;
  uint64_t offset;
  uint64_t lines;
  size_t text_len; /* bytes of lines it holds (len, unless compressed) */
  bool compressed; /* data is a finished frame (the queueing thread's) */
  bool direct;
  bool head;        /* the file's first bytes (cs_io_write_head) */
  uint64_t acct_at; /* head: where its accounting record's text starts */
};

/* Write all of data[0, len) at `offset`. False (errno set) when a write
 * fails; `*done` bytes reached the file either way. */
static bool write_fully(const cs_trace_io *io, int fd, const char *data,
                        size_t len, uint64_t offset, size_t *done) {
  *done = 0;
  while (*done < len) {
    ssize_t n =
        io->write(fd, data + *done, len - *done, (off_t)(offset + *done));
    if (n > 0) {
      *done += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0)
      errno = ENOSPC; /* no progress: treat as a full disk */
    return false;
  }
  return true;
}

/* a[0, a_len) then b[0, b_len) at `offset`: one pwritev where the file
 * is written with pwrite (a kill leaves what one write leaves), the same
 * bytes in order through io->write where a test put another in its
 * place; the rest of a short write goes through write_fully. */
static bool write_two(const cs_trace_io *io, int fd, const char *a,
                      size_t a_len, const char *b, size_t b_len,
                      uint64_t offset, size_t *done) {
  *done = 0;
  if (io->write == pwrite) {
    struct iovec parts[2] = {{(void *)a, a_len}, {(void *)b, b_len}};
    ssize_t n;
    do
      n = pwritev(fd, parts, 2, (off_t)offset);
    while (n < 0 && errno == EINTR);
    if (n < 0)
      return false;
    *done = (size_t)n;
  }
  size_t more = 0;
  if (*done < a_len) {
    bool ok =
        write_fully(io, fd, a + *done, a_len - *done, offset + *done, &more);
    *done += more;
    if (!ok)
      return false;
  }
  size_t in_b = *done - a_len;
  bool ok = write_fully(io, fd, b + in_b, b_len - in_b, offset + *done, &more);
  *done += more;
  return ok;
}

uint64_t cs_io_count_lines(const char *p, size_t n) {
  uint64_t lines = 0;
  const char *end = p + n;
  while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
    lines++;
    p++;
  }
  return lines;
}

/* How one job went, for the bookkeeping under the lock. */
typedef struct {
  bool failed;
  bool compress_failed; /* ... because the compressor failed, not a write */
  int error;
  uint64_t end;        /* file size after truncating a failed write */
  uint64_t lines_lost; /* lines of the job that did not reach the file */
  uint64_t bytes_lost; /* ... their text */
  bool refused;        /* the file system refused O_DIRECT */
  int refused_error;
  uint64_t direct_bytes;
  bool head_written; /* the file's head, with its accounting record */
} job_result;

/* Compressed or binary: the job as one frame, in one write at the end of
 * the file.
 * On failure the file is cut back to its last whole frame and the whole
 * job is lost. Called without the lock (the I/O thread is the only one
 * that moves file_end, or the caller when there is no thread). */
static job_result write_frame(cs_trace_io *io, const cs_io_job *j) {
  job_result r = {0};
  const char *frame, *body = NULL;
  size_t frame_len, body_len = 0, done = 0;
  uint64_t at = io->file_end;
  bool made = true, compress_failed = true;
  if (j->compressed) { /* the queueing thread made the frame */
    frame = j->data;
    frame_len = j->len;
  } else {
    pthread_mutex_lock(&io->zstd_lock); /* never half-made across a fork */
    made = io->bin ? cs_tb_frame(io->bin, j->data, j->len, (uint32_t)j->lines,
                                 &frame, &frame_len, &body, &body_len,
                                 &compress_failed)
                   : cs_tz_frame(io->zstd, j->data, j->len, &frame, &frame_len);
    pthread_mutex_unlock(&io->zstd_lock);
  }
  if (!made) {
    r.failed = true; /* nothing was written */
    r.compress_failed = compress_failed;
    r.error = errno;
    r.end = at;
    r.lines_lost = j->lines;
    r.bytes_lost = j->text_len;
    return r;
  }
  bool written =
      body_len
          ? write_two(io, io->fd, frame, frame_len, body, body_len, at, &done)
          : write_fully(io, io->fd, frame, frame_len, at, &done);
  if (written) {
    io->file_end = at + frame_len + body_len;
    return r;
  }
  r.failed = true;
  r.error = errno;
  r.end = at;
  /* Cut off whatever part of the frame reached the file (a failing write
   * may have written some before it failed). */
  if (ftruncate(io->fd, (off_t)at) != 0 && done > 0)
    r.end = at + done; /* cannot repair: readers drop the torn frame */
  io->file_end = r.end;
  r.lines_lost = j->lines;
  r.bytes_lost = j->text_len;
  return r;
}

/* The file's first bytes, the ordinary way (never compressed: they are
 * raw frames already, or plain lines). On failure the file is cut back to
 * empty and all of it is lost. */
static job_result write_head(cs_trace_io *io, const cs_io_job *j) {
  job_result r = {0};
  size_t done = 0;
  if (write_fully(io, io->fd, j->data, j->len, j->offset, &done)) {
    io->file_end = j->offset + j->len;
    r.head_written = true;
    return r;
  }
  r.failed = true;
  r.error = errno;
  r.end = j->offset;
  if (ftruncate(io->fd, (off_t)j->offset) != 0 && done > 0)
    r.end = j->offset + done; /* cannot repair */
  io->file_end = r.end;
  r.lines_lost = j->lines;
  r.bytes_lost = j->len;
  return r;
}

/* Write one job; on failure keep the complete lines that reached the file
 * and cut a partial one off. Called without the lock. */
static job_result write_job(cs_trace_io *io, const cs_io_job *j,
                            bool direct_refused) {
  if (j->head)
    return write_head(io, j);
  if (io->zstd || io->bin)
    return write_frame(io, j);
  job_result r = {0};
  bool direct = j->direct && !direct_refused && io->direct_fd >= 0;
  size_t done = 0;
  if (direct) {
    if (write_fully(io, io->direct_fd, j->data, j->len, j->offset, &done)) {
      r.direct_bytes = j->len;
      return r;
    }
    if (done > 0 || (errno != EINVAL && errno != EOPNOTSUPP))
      goto failed;
    r.refused = true; /* write it the ordinary way, from the start */
    r.refused_error = errno;
  }
  if (write_fully(io, io->fd, j->data, j->len, j->offset, &done))
    return r;
failed:
  r.failed = true;
  r.error = errno;
  size_t keep = done;
  while (keep > 0 && j->data[keep - 1] != '\n')
    keep--;
  if (keep < done && ftruncate(io->fd, (off_t)(j->offset + keep)) != 0)
    keep = done; /* cannot repair; count what we know is lost */
  r.end = j->offset + keep;
  r.lines_lost = cs_io_count_lines(j->data + keep, j->len - keep);
  r.bytes_lost = j->len - keep;
  return r;
}

/* Keep a finished buffer for reuse, or free it. Under the lock. */
static void retire_buffer(cs_trace_io *io, char *data, size_t cap) {
  if (io->nspare < CS_IO_SPARES && cap >= CS_IO_SPARE_MIN) {
    io->spare[io->nspare] = data;
    io->spare_cap[io->nspare] = cap;
    io->nspare++;
    return;
  }
  free(data);
}

/* Lines lost: counted, and the accounting record is to say so. Under the
 * lock. */
static void count_lost(cs_trace_io *io, uint64_t lines, uint64_t bytes) {
  io->lines_lost += lines;
  io->bytes_lost += bytes;
  io->acct_dirty = io->acct_kept;
}

/* Book a finished job. Under the lock. */
static void finish_job(cs_trace_io *io, cs_io_job *j, bool discarded,
                       const job_result *r) {
  io->queued_bytes -= j->len;
  if (discarded) {
    count_lost(io, j->lines, j->text_len);
  } else {
    io->direct_bytes += r->direct_bytes;
    if (r->refused && !io->direct_refused) {
      io->direct_refused = true;
      io->refused_error = r->refused_error;
    }
    if (r->head_written) {
      io->acct_kept = true;
      io->acct_at = j->acct_at;
    }
    if (r->failed) {
      if (r->compress_failed) {
        io->compress_errors++;
        io->lines_lost_compressing += r->lines_lost;
      } else {
        io->write_errors++;
        io->write_errno = r->error;
      }
      count_lost(io, r->lines_lost, r->bytes_lost);
      io->discarding = true;
      io->failure_pending = true;
      io->failure.end = r->end;
      io->failure.error = r->error;
    }
  }
  retire_buffer(io, j->data, j->cap);
  free(j);
}

/* Take the next job (under the lock); whether to discard it is decided
 * here, atomically with the pop. */
static cs_io_job *pop_job(cs_trace_io *io, bool *discard) {
  cs_io_job *j = io->head;
  if (!j)
    return NULL;
  io->head = j->next;
  if (!io->head)
    io->tail = NULL;
  *discard = io->discarding;
  return j;
}

/* The accounting record as of now: the writer's side plus this thread's
 * counts. Under the lock. */
static void accounting_now(const cs_trace_io *io, cs_acct *a) {
  *a = io->acct_writer;
  a->lines_lost += io->lines_lost;
  a->bytes_lost += io->bytes_lost;
  a->write_errors = io->write_errors;
  a->write_errno = io->write_errno;
  a->compress_errors = io->compress_errors;
  a->lines_lost_compressing = io->lines_lost_compressing;
}

/* Rewrite the accounting record in place: the same bytes of the file, so
 * no new space. Called under the lock, which it releases for the write
 * (marking the thread busy, so that a sync waits for it). A write that
 * fails is not retried: the next loss tries again. */
static void rewrite_accounting(cs_trace_io *io) {
  cs_acct a;
  accounting_now(io, &a);
  uint64_t at = io->acct_at;
  io->acct_dirty = false;
  bool was_busy = io->busy;
  io->busy = true;
  pthread_mutex_unlock(&io->lock);
  /* A binary file's record is its compact body (trace_binary.h). */
  char text[CS_ACCT_LINE];
  size_t size = CS_ACCT_LINE;
  if (io->bin) {
    cs_acct_pack(&a, (unsigned char *)text);
    size = CS_ACCT_BODY;
  } else {
    cs_acct_format(&a, text);
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(io->fd, text + done, size - done, (off_t)(at + done));
    if (n > 0)
      done += (size_t)n;
    else if (!(n < 0 && errno == EINTR))
      break;
  }
  pthread_mutex_lock(&io->lock);
  io->busy = was_busy;
}

/* Without a thread, the caller rewrites the record itself. Under the
 * lock. */
static void settle_accounting(cs_trace_io *io) {
  if (!io->acct_dirty)
    return;
  if (io->running)
    pthread_cond_signal(&io->work);
  else
    rewrite_accounting(io);
}

/* This thread runs CS_IO_NICE_STEPS below the process. Compressing a chunk
 * keeps a CPU for milliseconds; on a machine with no spare CPU the writer,
 * woken meanwhile, would wait for the end of it while NCCL's threads fill
 * its rings. Below the writer, this thread gives it the CPU at once. When
 * the application leaves it no CPU at all, its queue fills and the writer
 * compresses chunks itself (cs_io_set_helper): nothing waits for it. */
static void lower_own_priority(void) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  errno = 0;
  int nice_now = getpriority(PRIO_PROCESS, (id_t)tid);
  if (errno == 0)
    setpriority(PRIO_PROCESS, (id_t)tid, nice_now + CS_IO_NICE_STEPS);
}

static void *io_main(void *arg) {
  cs_trace_io *io = arg;
  /* Signals are the host's business, not this thread's. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_setname_np(pthread_self(), "cclscope-io");
  lower_own_priority();
  pthread_mutex_lock(&io->lock);
  io->started = true; /* see cs_io_start */
  pthread_cond_broadcast(&io->idle);
  for (;;) {
    if (io->acct_dirty) { /* a loss reaches the file before anything else */
      rewrite_accounting(io);
      pthread_cond_broadcast(&io->idle);
      continue;
    }
    bool discard = false;
    cs_io_job *j = pop_job(io, &discard);
    if (!j) {
      if (io->stop)
        break;
      pthread_cond_wait(&io->work, &io->lock);
      continue;
    }
    io->busy = true;
    io->writing = j; /* reachable while unlocked, for a fork child */
    bool refused = io->direct_refused;
    pthread_mutex_unlock(&io->lock);
    job_result r = {0};
    if (!discard)
      r = write_job(io, j, refused);
    pthread_mutex_lock(&io->lock);
    io->writing = NULL;
    finish_job(io, j, discard, &r);
    io->busy = false;
    pthread_cond_broadcast(&io->idle);
  }
  pthread_mutex_unlock(&io->lock);
  return NULL;
}

void cs_io_start(cs_trace_io *io, int fd, int direct_fd, cs_trace_zstd *zstd) {
  memset(io, 0, sizeof *io);
  io->fd = fd;
  io->direct_fd = zstd ? -1 : direct_fd;
  io->zstd = zstd;
  io->write = pwrite;
  pthread_mutex_init(&io->lock, NULL);
  pthread_mutex_init(&io->zstd_lock, NULL);
  pthread_cond_init(&io->work, NULL);
  pthread_cond_init(&io->idle, NULL);
  io->running = pthread_create(&io->thread, NULL, io_main, io) == 0;
  /* Return once the thread runs our code: a fork() from now on finds it
   * parked on our lock (held across fork by cs_io_atfork_prepare), never
   * inside the C library's or a sanitizer's thread start-up, whose locks
   * (malloc's, under ASan) a child would inherit held. */
  pthread_mutex_lock(&io->lock);
  while (io->running && !io->started)
    pthread_cond_wait(&io->idle, &io->lock);
  pthread_mutex_unlock(&io->lock);
}

/* Drop every queued job, counting its lines as lost. Under the lock. */
static void discard_queued(cs_trace_io *io) {
  while (io->head) {
    bool unused;
    cs_io_job *j = pop_job(io, &unused);
    finish_job(io, j, true, NULL);
  }
}

/* The failure, once, to the writer thread; the queue behind it is
 * dropped. Under the lock. */
static void take_failure(cs_trace_io *io, cs_io_failure *failure) {
  *failure = io->failure;
  discard_queued(io);
  io->failure_pending = false;
  io->discarding = false;
  settle_accounting(io);
}

/* Must `len` more bytes wait for the disk to make room, the queue
 * holding at most `limit`? Under the lock. */
static bool no_room_for(const cs_trace_io *io, size_t len, size_t limit) {
  return io->running && !io->failure_pending && io->queued_bytes > 0 &&
         io->queued_bytes + len > limit;
}

void cs_io_set_helper(cs_trace_io *io, cs_trace_zstd *helper,
                      cs_trace_bin *helper_bin) {
  io->helper = helper;
  io->helper_bin = helper_bin;
}

/* Compress the chunk data[0, *len) into a frame in its own memory (`cap`
 * bytes) with the helper context; *len becomes the frame's length. False,
 * data untouched, when the library fails or the frame would not fit.
 * Called without the lock: the context is the queueing thread's. */
static bool compress_here(cs_trace_io *io, char *data, size_t cap, size_t *len,
                          uint64_t lines) {
  const char *frame, *body;
  size_t frame_len, body_len;
  bool compress_failed;
  bool made =
      io->helper_bin
          ? cs_tb_frame(io->helper_bin, data, *len, (uint32_t)lines, &frame,
                        &frame_len, &body, &body_len, &compress_failed) &&
                body_len == 0
          : cs_tz_frame(io->helper, data, *len, &frame, &frame_len);
  if (!made || frame_len > cap)
    return false;
  memcpy(data, frame, frame_len);
  *len = frame_len;
  return true;
}

bool cs_io_queue(cs_trace_io *io, char *data, size_t cap, size_t len,
                 uint64_t offset, uint64_t lines, bool direct,
                 cs_io_failure *failure) {
  cs_io_job *j = malloc(sizeof *j);
  size_t text_len = len, limit = CS_IO_MAX_QUEUED;
  bool compressed = false;
  pthread_mutex_lock(&io->lock);
  if (io->helper && io->zstd && no_room_for(io, len, limit)) {
    /* The I/O thread is behind with its compressing: share the work. */
    pthread_mutex_unlock(&io->lock);
    compressed = compress_here(io, data, cap, &len, lines);
    pthread_mutex_lock(&io->lock);
    if (compressed) {
      io->helped++;
      limit = 2 * CS_IO_MAX_QUEUED;
    }
  }
  if (no_room_for(io, len, limit)) {
    /* The disk is behind: wait (NCCL's threads never do), and say how
     * long in the counters. */
    uint64_t since = cs_clock_monotonic_ns();
    while (no_room_for(io, len, limit))
      pthread_cond_wait(&io->idle, &io->lock);
    io->disk_wait_ns += cs_clock_monotonic_ns() - since;
    io->disk_waits++;
  }
  if (io->failure_pending || !j) {
    if (io->failure_pending) {
      take_failure(io, failure);
    } else { /* no memory for the job: as if the write had failed */
      failure->end = offset;
      failure->error = ENOMEM;
    }
    count_lost(io, lines, text_len);
    settle_accounting(io);
    pthread_mutex_unlock(&io->lock);
    free(data);
    free(j);
    return false;
  }
  *j = (cs_io_job){.data = data,
                   .cap = cap,
                   .len = len,
                   .offset = offset,
                   .lines = lines,
                   .text_len = text_len,
                   .compressed = compressed,
                   .direct = direct};
  io->queued_bytes += len;
  if (!io->running) {
    /* No thread: write it now. */
    bool refused = io->direct_refused;
    pthread_mutex_unlock(&io->lock);
    job_result r = write_job(io, j, refused);
    pthread_mutex_lock(&io->lock);
    finish_job(io, j, false, &r);
    bool ok = !io->failure_pending;
    if (!ok)
      take_failure(io, failure);
    settle_accounting(io);
    pthread_mutex_unlock(&io->lock);
    return ok;
  }
  if (io->tail)
    io->tail->next = j;
  else
    io->head = j;
  io->tail = j;
  pthread_cond_signal(&io->work);
  pthread_mutex_unlock(&io->lock);
  return true;
}

char *cs_io_take_spare(cs_trace_io *io, size_t *cap) {
  char *p = NULL;
  pthread_mutex_lock(&io->lock);
  if (io->nspare > 0) {
    io->nspare--;
    p = io->spare[io->nspare];
    *cap = io->spare_cap[io->nspare];
  }
  pthread_mutex_unlock(&io->lock);
  return p;
}

bool cs_io_write_head(cs_trace_io *io, char *data, size_t cap, size_t len,
                      uint64_t lines, uint64_t acct_at,
                      cs_io_failure *failure) {
  cs_io_job *j = malloc(sizeof *j);
  if (!j) {
    free(data);
    pthread_mutex_lock(&io->lock);
    count_lost(io, lines, len);
    pthread_mutex_unlock(&io->lock);
    failure->end = 0;
    failure->error = ENOMEM;
    return false;
  }
  *j = (cs_io_job){.data = data,
                   .cap = cap,
                   .len = len,
                   .lines = lines,
                   .text_len = len,
                   .head = true,
                   .acct_at = acct_at};
  pthread_mutex_lock(&io->lock);
  io->queued_bytes += len;
  if (io->tail)
    io->tail->next = j;
  else
    io->head = j;
  io->tail = j;
  if (io->running) {
    pthread_cond_signal(&io->work);
  } else { /* no thread: write it now */
    bool unused;
    pop_job(io, &unused);
    pthread_mutex_unlock(&io->lock);
    job_result r = write_job(io, j, io->direct_refused);
    pthread_mutex_lock(&io->lock);
    finish_job(io, j, false, &r);
  }
  pthread_mutex_unlock(&io->lock);
  return cs_io_sync(io, failure);
}

void cs_io_account(cs_trace_io *io, const cs_acct *w) {
  pthread_mutex_lock(&io->lock);
  cs_acct *have = &io->acct_writer;
  if (have->lines_lost != w->lines_lost || have->bytes_lost != w->bytes_lost ||
      memcmp(&have->closing, &w->closing, sizeof w->closing) != 0) {
    have->lines_lost = w->lines_lost;
    have->bytes_lost = w->bytes_lost;
    have->closing = w->closing;
    io->acct_dirty = io->acct_kept;
    settle_accounting(io);
  }
  pthread_mutex_unlock(&io->lock);
}

bool cs_io_sync(cs_trace_io *io, cs_io_failure *failure) {
  pthread_mutex_lock(&io->lock);
  while (io->running && (io->head || io->busy || io->acct_dirty) &&
         !io->failure_pending)
    pthread_cond_wait(&io->idle, &io->lock);
  bool ok = !io->failure_pending;
  if (!ok)
    take_failure(io, failure);
  pthread_mutex_unlock(&io->lock);
  return ok;
}

void cs_io_get_counters(cs_trace_io *io, cs_io_counters *c) {
  pthread_mutex_lock(&io->lock);
  c->lines_lost = io->lines_lost;
  c->bytes_lost = io->bytes_lost;
  c->write_errors = io->write_errors;
  c->compress_errors = io->compress_errors;
  c->lines_lost_compressing = io->lines_lost_compressing;
  c->direct_bytes = io->direct_bytes;
  c->disk_wait_ns = io->disk_wait_ns;
  c->disk_waits = io->disk_waits;
  c->direct_refused = io->direct_refused;
  c->refused_error = io->refused_error;
  pthread_mutex_unlock(&io->lock);
}

static void free_spares(cs_trace_io *io) {
  for (int i = 0; i < io->nspare; i++)
    free(io->spare[i]);
  io->nspare = 0;
}

void cs_io_stop(cs_trace_io *io) {
  if (io->running) {
    pthread_mutex_lock(&io->lock);
    io->stop = true;
    pthread_cond_signal(&io->work);
    pthread_mutex_unlock(&io->lock);
    pthread_join(io->thread, NULL);
    io->running = false;
  }
  pthread_mutex_lock(&io->lock);
  discard_queued(io);    /* none: the thread finishes every job first */
  settle_accounting(io); /* done by the thread, unless there was none */
  free_spares(io);
  pthread_mutex_unlock(&io->lock);
}

void cs_io_set_binary(cs_trace_io *io, cs_trace_bin *bin) {
  io->direct_fd = -1;
  io->bin = bin;
}

void cs_io_atfork_prepare(cs_trace_io *io) {
  pthread_mutex_lock(&io->lock);
  pthread_mutex_lock(&io->zstd_lock);
}

void cs_io_atfork_parent(cs_trace_io *io) {
  pthread_mutex_unlock(&io->zstd_lock);
  pthread_mutex_unlock(&io->lock);
}

void cs_io_abandon_in_child(cs_trace_io *io) {
  /* The thread is the parent's; the queue and the compression context
   * are consistent (the parent held both locks across fork) and the
   * queue's bytes are the parent's to write. The chunk its thread was
   * writing is ours to free too: nothing else here points at it once
   * that thread is gone. */
  if (io->writing) {
    free(io->writing->data);
    free(io->writing);
    io->writing = NULL;
  }
  while (io->head) {
    cs_io_job *j = io->head;
    io->head = j->next;
    free(j->data);
    free(j);
  }
  io->tail = NULL;
  free_spares(io);
  io->running = false;
  io->busy = false;
  io->queued_bytes = 0;
  pthread_mutex_init(&io->lock, NULL);
  pthread_mutex_init(&io->zstd_lock, NULL);
  pthread_cond_init(&io->work, NULL);
  pthread_cond_init(&io->idle, NULL);
}
