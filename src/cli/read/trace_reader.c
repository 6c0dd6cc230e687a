/*
 * src/cli/read/trace_reader.c — input listing and buffered line reading;
 * a file in the minimal_profiler format is handed to its converter
 * (seed_format.h).
 */
#include "read/trace_reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/seed_format.h"

bool tr_format_notices = true;
unsigned tr_jobs = 0;

static bool push_path(tr_inputs *in, size_t *cap, const char *path,
                      uint64_t size) {
  if (in->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    char **p = realloc(in->paths, ncap * sizeof *p);
    if (!p)
      return false;
    in->paths = p;
    *cap = ncap;
  }
  in->paths[in->n] = strdup(path);
  if (!in->paths[in->n])
    return false;
  in->n++;
  in->total_bytes += size;
  return true;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool collect_dir(tr_inputs *in, size_t *cap, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cclscope: cannot open '%s': %s\n", dir, strerror(errno));
    return false;
  }
  size_t first = in->n;
  struct dirent *e;
  bool ok = true;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || !ends_with(e->d_name, ".jsonl"))
      continue;
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
        (int)sizeof path)
      continue;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (!push_path(in, cap, path, (uint64_t)st.st_size)) {
      ok = false;
      break;
    }
  }
  closedir(d);
  if (!ok) {
    fprintf(stderr, "cclscope: out of memory listing '%s'\n", dir);
    return false;
  }
  if (in->n == first) {
    fprintf(stderr, "cclscope: no *.jsonl trace files in '%s'\n", dir);
    return false;
  }
  qsort(in->paths + first, in->n - first, sizeof *in->paths, cmp_str);
  return true;
}

bool tr_inputs_collect(tr_inputs *in, int argc, char **argv) {
  size_t cap = 0;
  memset(in, 0, sizeof *in);
  for (int i = 0; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", argv[i],
              strerror(errno));
      tr_inputs_free(in);
      return false;
    }
    bool ok = S_ISDIR(st.st_mode)
                  ? collect_dir(in, &cap, argv[i])
                  : push_path(in, &cap, argv[i], (uint64_t)st.st_size);
    if (!ok) {
      tr_inputs_free(in);
      return false;
    }
  }
  if (in->n == 0) {
    fprintf(stderr, "cclscope: no input (give a trace folder or files)\n");
    return false;
  }
  return true;
}

void tr_inputs_free(tr_inputs *in) {
  for (size_t i = 0; i < in->n; i++)
    free(in->paths[i]);
  free(in->paths);
  memset(in, 0, sizeof *in);
}

/* What has been said about which file (a command may open a file several
 * times, and should say each thing once). Files are opened by
 * read_ahead.c's threads too: the list is locked. */
typedef struct {
  char *path;
  unsigned said;
} notice;
static notice *notices;
static size_t nnotices;
static pthread_mutex_t notices_lock = PTHREAD_MUTEX_INITIALIZER;

static bool notice_once_locked(const char *path, unsigned what) {
  for (size_t i = 0; i < nnotices; i++)
    if (strcmp(notices[i].path, path) == 0) {
      bool first = !(notices[i].said & what);
      notices[i].said |= what;
      return first;
    }
  notice *nn = realloc(notices, (nnotices + 1) * sizeof *nn);
  if (!nn)
    return true; /* said again rather than never */
  notices = nn;
  char *copy = strdup(path);
  if (!copy)
    return true;
  notices[nnotices++] = (notice){copy, what};
  return true;
}

bool tr_notice_once(const char *path, unsigned what) {
  if (!tr_format_notices)
    return false;
  pthread_mutex_lock(&notices_lock);
  bool first = notice_once_locked(path, what);
  pthread_mutex_unlock(&notices_lock);
  return first;
}

void tr_say(tr_file *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!f->defer_notices) {
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    return;
  }
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t had = f->deferred ? strlen(f->deferred) : 0, add = strlen(msg);
  char *all = realloc(f->deferred, had + add + 1);
  if (!all) {
    fputs(msg, stderr); /* said now rather than never */
    return;
  }
  memcpy(all + had, msg, add + 1);
  f->deferred = all;
}

static void announce(tr_file *f) {
  if (tr_notice_once(f->path, TR_NOTICE_FORMAT))
    tr_say(f,
           "cclscope: '%s' is in the minimal_profiler format: read as "
           "cclscope records (ids assigned, parents and states resolved)\n",
           f->path);
}

/* The first non-blank line decides the file's format; then back to the
 * start. */
static int detect_format(tr_file *f) {
  int got;
  while ((got = tr_next_raw(f)) == 1) {
    size_t i = 0;
    while (i < f->line_len &&
           (f->line[i] == ' ' || f->line[i] == '\t' || f->line[i] == '\r'))
      i++;
    if (i < f->line_len)
      break;
  }
  if (got < 0)
    return f->error;
  bool seed = got == 1 && seed_line_is_seed(f->line, f->line_len);
  int err = tr_rewind(f);
  if (err || !seed)
    return err;
  f->seed = seed_conv_new();
  if (!f->seed)
    return ENOMEM;
  f->format = TR_FORMAT_MINIMAL_PROFILER;
  announce(f);
  return 0;
}

int tr_rewind(tr_file *f) {
  if (lseek(f->fd, 0, SEEK_SET) < 0)
    return errno;
  f->pos = 0;
  f->fill = 0;
  f->eof = false;
  f->line_no = 0;
  f->bytes_read = 0;
  f->line = NULL;
  f->line_len = 0;
  f->line_unterminated = false;
  f->error = 0;
  return 0;
}

static int open_file(tr_file *f, const char *path, size_t bufsize,
                     bool defer_notices) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->defer_notices = defer_notices;
  f->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (f->fd < 0)
    return errno;
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  f->cap = bufsize < 4096 ? 4096 : bufsize;
  f->buf = malloc(f->cap);
  if (!f->buf) {
    close(f->fd);
    f->fd = -1;
    return ENOMEM;
  }
  int err = detect_format(f);
  if (err) {
    tr_close(f);
    return err;
  }
  return 0;
}

int tr_open(tr_file *f, const char *path, size_t bufsize) {
  return open_file(f, path, bufsize, false);
}

int tr_open_deferring(tr_file *f, const char *path, size_t bufsize) {
  return open_file(f, path, bufsize, true);
}

/* Make room and read more; returns bytes added, 0 at EOF, -1 on error. */
static ssize_t refill(tr_file *f) {
  if (f->pos > 0) {
    memmove(f->buf, f->buf + f->pos, f->fill - f->pos);
    f->fill -= f->pos;
    f->pos = 0;
  }
  if (f->fill == f->cap) {
    size_t ncap = f->cap * 2;
    char *nb = realloc(f->buf, ncap);
    if (!nb) {
      f->error = ENOMEM;
      return -1;
    }
    f->buf = nb;
    f->cap = ncap;
  }
  for (;;) {
    ssize_t n = read(f->fd, f->buf + f->fill, f->cap - f->fill);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      f->error = errno;
      return -1;
    }
    f->fill += (size_t)n;
    f->bytes_read += (uint64_t)n;
    return n;
  }
}

int tr_next(tr_file *f) {
  if (f->seed)
    return seed_conv_next(f->seed, f);
  return tr_next_raw(f);
}

int tr_next_raw(tr_file *f) {
  size_t scanned = 0; /* bytes after pos already known to hold no '\n' */
  for (;;) {
    char *start = f->buf + f->pos;
    size_t avail = f->fill - f->pos;
    char *nl =
        avail > scanned ? memchr(start + scanned, '\n', avail - scanned) : NULL;
    if (nl) {
      f->line = start;
      f->line_len = (size_t)(nl - start);
      f->line_unterminated = false;
      f->pos += f->line_len + 1;
      f->line_no++;
      return 1;
    }
    scanned = avail;
    if (f->eof) {
      if (avail == 0)
        return 0;
      f->line = start;
      f->line_len = avail;
      f->line_unterminated = true;
      f->pos = f->fill;
      f->line_no++;
      return 1;
    }
    ssize_t n = refill(f);
    if (n < 0)
      return -1;
    if (n == 0)
      f->eof = true;
  }
}

void tr_close(tr_file *f) {
  if (f->fd >= 0)
    close(f->fd);
  free(f->buf);
  seed_conv_free(f->seed);
  free(f->deferred);
  f->seed = NULL;
  f->deferred = NULL;
  f->fd = -1;
  f->buf = NULL;
}
