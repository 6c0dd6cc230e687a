/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/write_behind.c — buffers filled by the command and written
 * in turn by a thread (see write_behind.h).
 *
 * The buffers are used round robin: the command fills `cur`, hands it over
 * (FULL) and waits only if the next one is still being written; the thread
 * writes them in the same round, so the file gets the bytes in order.
 */
#include "util/write_behind.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *data;
  size_t len;
  bool full; /* handed to the thread, not written yet (under the lock) */
} wb_buffer;

struct write_behind {
  int fd;
  bool threaded; /* a thread writes the full buffers */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t filled;  /* the thread: a buffer is full, or stop */
  pthread_cond_t written; /* the command: a buffer was written */
  wb_buffer buf[WB_BUFFERS];
  size_t cur; /* the buffer the command fills */
  bool stop;  /* under the lock */
  int error;  /* the first write's errno (under the lock when threaded) */
};

/* All of it, or the errno why not. */
static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t got = write(fd, p, n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return errno;
    if (got == 0)
      return EIO;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

static void *writer(void *arg) {
  write_behind *wb = arg;
  size_t at = 0;
  pthread_mutex_lock(&wb->lock);
  for (;;) {
    while (!wb->buf[at].full && !wb->stop)
      pthread_cond_wait(&wb->filled, &wb->lock);
    if (!wb->buf[at].full)
      break; /* stopped, nothing left */
    bool failed = wb->error != 0;
    pthread_mutex_unlock(&wb->lock);
    int err = failed ? 0 : write_all(wb->fd, wb->buf[at].data, wb->buf[at].len);
    pthread_mutex_lock(&wb->lock);
    if (err && !wb->error)
      wb->error = err;
    wb->buf[at].full = false;
    wb->buf[at].len = 0;
    pthread_cond_signal(&wb->written);
    at = (at + 1) % WB_BUFFERS;
  }
  pthread_mutex_unlock(&wb->lock);
  return NULL;
}

write_behind *wb_open(int fd, bool threaded) {
  write_behind *wb = calloc(1, sizeof *wb);
  if (!wb)
    return NULL;
  wb->fd = fd;
  size_t nbuf = threaded ? WB_BUFFERS : 1;
  for (size_t i = 0; i < nbuf; i++) {
    wb->buf[i].data = malloc(WB_BUFFER_BYTES);
    if (!wb->buf[i].data) {
      for (size_t k = 0; k < i; k++)
        free(wb->buf[k].data);
      free(wb);
      return NULL;
    }
  }
  if (!threaded)
    return wb;
  pthread_mutex_init(&wb->lock, NULL);
  pthread_cond_init(&wb->filled, NULL);
  pthread_cond_init(&wb->written, NULL);
  wb->threaded = pthread_create(&wb->thread, NULL, writer, wb) == 0;
  if (!wb->threaded) { /* write them here, one buffer is enough */
    pthread_cond_destroy(&wb->filled);
    pthread_cond_destroy(&wb->written);
    pthread_mutex_destroy(&wb->lock);
  }
  return wb;
}

/* Hand the buffer being filled over (threaded) or write it (not). */
static void hand_over(write_behind *wb) {
  wb_buffer *b = &wb->buf[wb->cur];
  if (b->len == 0)
    return;
  if (!wb->threaded) {
    if (!wb->error)
      wb->error = write_all(wb->fd, b->data, b->len);
    b->len = 0;
    return;
  }
  pthread_mutex_lock(&wb->lock);
  b->full = true;
  pthread_cond_signal(&wb->filled);
  wb->cur = (wb->cur + 1) % WB_BUFFERS;
  while (wb->buf[wb->cur].full)
    pthread_cond_wait(&wb->written, &wb->lock);
  pthread_mutex_unlock(&wb->lock);
}

void wb_put(write_behind *wb, const void *bytes, size_t len) {
  const char *p = bytes;
  while (len > 0) {
    wb_buffer *b = &wb->buf[wb->cur];
    size_t room = WB_BUFFER_BYTES - b->len;
    size_t n = len < room ? len : room;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    p += n;
    len -= n;
    if (b->len == WB_BUFFER_BYTES)
      hand_over(wb);
  }
}

void wb_wait(write_behind *wb) {
  if (!wb->threaded)
    return;
  pthread_mutex_lock(&wb->lock);
  for (size_t i = 0; i < WB_BUFFERS; i++)
    while (wb->buf[i].full)
      pthread_cond_wait(&wb->written, &wb->lock);
  pthread_mutex_unlock(&wb->lock);
}

int wb_flush(write_behind *wb) {
  hand_over(wb);
  wb_wait(wb);
  if (!wb->threaded)
    return wb->error;
  pthread_mutex_lock(&wb->lock);
  int err = wb->error;
  pthread_mutex_unlock(&wb->lock);
  return err;
}

int wb_close(write_behind *wb) {
  if (!wb)
    return 0;
  int err = wb_flush(wb);
  if (wb->threaded) {
    pthread_mutex_lock(&wb->lock);
    wb->stop = true;
    pthread_cond_signal(&wb->filled);
    pthread_mutex_unlock(&wb->lock);
    pthread_join(wb->thread, NULL);
    pthread_cond_destroy(&wb->filled);
    pthread_cond_destroy(&wb->written);
    pthread_mutex_destroy(&wb->lock);
  }
  for (size_t i = 0; i < WB_BUFFERS; i++)
    free(wb->buf[i].data);
  free(wb);
  return err;
}
