/*
 * src/plugin/trace/trace_io.c — the trace file's I/O thread (see trace_io.h).
 */
#include "trace_io.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "trace_zstd.h"

struct cs_io_job {
  cs_io_job *next;
  char *data;
  size_t cap;
  size_t len;
  uint64_t offset;
  uint64_t lines;
  bool direct;
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
  int error;
  uint64_t end;        /* file size after truncating a failed write */
  uint64_t lines_lost; /* lines of the job that did not reach the file */
  bool refused;        /* the file system refused O_DIRECT */
  int refused_error;
  uint64_t direct_bytes;
} job_result;

/* Compressed: the job as one frame, in one write at the end of the file.
 * On failure the file is cut back to its last whole frame and the whole
 * job is lost. Called without the lock (the I/O thread is the only one
 * that moves file_end, or the caller when there is no thread). */
static job_result write_frame(cs_trace_io *io, const cs_io_job *j) {
  job_result r = {0};
  const char *frame;
  size_t frame_len, done = 0;
  uint64_t at = io->file_end;
  pthread_mutex_lock(&io->zstd_lock); /* never half-made across a fork */
  bool made = cs_tz_frame(io->zstd, j->data, j->len, &frame, &frame_len);
  pthread_mutex_unlock(&io->zstd_lock);
  if (made) {
    if (write_fully(io, io->fd, frame, frame_len, at, &done)) {
      io->file_end = at + frame_len;
      return r;
    }
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
  return r;
}

/* Write one job; on failure keep the complete lines that reached the file
 * and cut a partial one off. Called without the lock. */
static job_result write_job(cs_trace_io *io, const cs_io_job *j,
                            bool direct_refused) {
  if (io->zstd)
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

/* Book a finished job. Under the lock. */
static void finish_job(cs_trace_io *io, cs_io_job *j, bool discarded,
                       const job_result *r) {
  io->queued_bytes -= j->len;
  if (discarded) {
    io->lines_lost += j->lines;
  } else {
    io->direct_bytes += r->direct_bytes;
    if (r->refused && !io->direct_refused) {
      io->direct_refused = true;
      io->refused_error = r->refused_error;
    }
    if (r->failed) {
      io->write_errors++;
      io->lines_lost += r->lines_lost;
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

static void *io_main(void *arg) {
  cs_trace_io *io = arg;
  /* Signals are the host's business, not this thread's. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_setname_np(pthread_self(), "cclscope-io");
  pthread_mutex_lock(&io->lock);
  io->started = true; /* see cs_io_start */
  pthread_cond_broadcast(&io->idle);
  for (;;) {
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
}

/* Must `len` more bytes wait for the disk to make room? Under the lock. */
static bool no_room_for(const cs_trace_io *io, size_t len) {
  return io->running && !io->failure_pending && io->queued_bytes > 0 &&
         io->queued_bytes + len > CS_IO_MAX_QUEUED;
}

bool cs_io_queue(cs_trace_io *io, char *data, size_t cap, size_t len,
                 uint64_t offset, uint64_t lines, bool direct,
                 cs_io_failure *failure) {
  cs_io_job *j = malloc(sizeof *j);
  pthread_mutex_lock(&io->lock);
  if (no_room_for(io, len)) {
    /* The disk is behind: wait (NCCL's threads never do), and say how
     * long in the counters. */
    uint64_t since = cs_clock_monotonic_ns();
    while (no_room_for(io, len))
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
    io->lines_lost += lines;
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

bool cs_io_sync(cs_trace_io *io, cs_io_failure *failure) {
  pthread_mutex_lock(&io->lock);
  while (io->running && (io->head || io->busy) && !io->failure_pending)
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
  c->write_errors = io->write_errors;
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
  discard_queued(io); /* none: the thread finishes every job first */
  free_spares(io);
  pthread_mutex_unlock(&io->lock);
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
