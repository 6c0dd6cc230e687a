/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_reader.c — input listing and buffered line reading;
 * a file in the minimal_profiler format is handed to its converter
 * (seed_format.h).
 */
#include "read/trace_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/input_walk.h"
#include "read/seed_format.h"
#include "read/trace_codec.h"

bool tr_format_notices = true;
unsigned tr_jobs = 0;

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool tr_is_trace_name(const char *name) {
  return name[0] != '.' &&
         (ends_with(name, ".jsonl") || ends_with(name, ".jsonl.zst") ||
          ends_with(name, ".jsonl.gz") || ends_with(name, ".cst"));
}

const char *tr_strerror(int err) {
  switch (err) {
  case TR_ERR_NOT_TRACE:
    return "not a cclscope trace (its first line is not a trace record)";
  case TR_ERR_EMPTY:
    return "not a cclscope trace: it holds no record (empty, or blank lines "
           "only: its process wrote nothing?)";
  case TC_ERR_NO_LIBRARY:
    return "compressed, and the library to read it (libzstd.so.1 or "
           "libz.so.1) could not be loaded";
  case TC_ERR_CORRUPT:
    return "corrupt compressed data";
  default:
    return strerror(err);
  }
}

/* Standard input ("-"), readable again from its start: the descriptor of a
 * regular file given as stdin, or of an unlinked copy of the stream. */
static int stdin_fd = -1;

/* Copy standard input into an unlinked temporary file; its size in
 * *size. False (with a message) on failure. */
static bool spool_stdin(uint64_t *size) {
  struct stat st;
  if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
      lseek(STDIN_FILENO, 0, SEEK_CUR) == 0) {
    stdin_fd = STDIN_FILENO;
    *size = (uint64_t)st.st_size;
    return true;
  }
  const char *tmp = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/cclscope-stdin-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    fprintf(stderr, "cclscope: cannot keep standard input in '%s': %s\n", path,
            strerror(errno));
    return false;
  }
  unlink(path);
  static char buf[1 << 16];
  *size = 0;
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      fprintf(stderr, "cclscope: error reading standard input: %s\n",
              strerror(errno));
      close(fd);
      return false;
    }
    if (n == 0)
      break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(fd, buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        fprintf(stderr, "cclscope: cannot keep standard input in '%s': %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(w < 0 ? errno : ENOSPC));
        close(fd);
        return false;
      }
      done += w;
    }
    *size += (uint64_t)n;
  }
  stdin_fd = fd;
  return true;
}

/* Standard input as an input: a regular file redirected with '<' is
 * that file (taken once, like any other); a stream is kept in an unlinked
 * file that nothing else can name. */
static bool collect_stdin(input_walk *w) {
  if (stdin_fd >= 0) {
    fprintf(stderr, "cclscope: '-' (standard input) is given twice\n");
    return false;
  }
  uint64_t size;
  if (!spool_stdin(&size))
    return false;
  struct stat st;
  if (stdin_fd == STDIN_FILENO && fstat(STDIN_FILENO, &st) == 0)
    return iw_file(w, "-", &st, 0);
  return iw_push(w, 0, "-", size);
}

static int trace_kind(const char *name) {
  return tr_is_trace_name(name) ? 0 : -1;
}

/* A file named on the command line that is not a trace (an image, a
 * report, a compressed file of something else) stops the command before
 * it prints anything, with one message. Files found in a folder are
 * judged when read, like any unreadable file there. */
bool tr_inputs_named_must_be_traces = true;

static bool named_file_is_trace(const char *path) {
  if (!tr_inputs_named_must_be_traces)
    return true;
  tr_file f;
  int err = tr_open(&f, path, 64 << 10);
  if (err == 0) {
    tr_close(&f);
    return true;
  }
  fprintf(stderr, "cclscope: cannot open '%s': %s\n", path, tr_strerror(err));
  return false;
}

bool tr_inputs_collect(tr_inputs *in, int argc, char **argv) {
  memset(in, 0, sizeof *in);
  input_walk w;
  iw_init(&w, in, 1, trace_kind);
  bool ok = true;
  for (int i = 0; ok && i < argc; i++) {
    struct stat st;
    size_t matched;
    if (strcmp(argv[i], "-") == 0) {
      ok = collect_stdin(&w);
    } else if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", argv[i],
              strerror(errno));
      ok = false;
    } else if (S_ISDIR(st.st_mode)) {
      ok = iw_folder(&w, argv[i], &matched);
      if (ok && matched == 0) {
        fprintf(stderr,
                "cclscope: no trace files (*.jsonl, *.jsonl.zst, *.jsonl.gz, "
                "*.cst) "
                "in '%s' or its subfolders\n",
                argv[i]);
        ok = false;
      }
    } else {
      ok = named_file_is_trace(argv[i]) && iw_file(&w, argv[i], &st, 0);
    }
  }
  iw_free(&w);
  if (!ok) {
    tr_inputs_free(in);
    return false;
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

/* A cclscope record: a JSON object with a "recordType" member (the first
 * line of a trace; a broken one is still recognisably a record). */
static bool looks_like_record(const char *line, size_t len) {
  size_t i = 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
    i++;
  static const char key[] = "\"recordType\"";
  return i < len && line[i] == '{' &&
         memmem(line + i, len - i, key, sizeof key - 1) != NULL;
}

/* The first non-blank line decides the file's format, or that the file is
 * not a trace; then back to the start. */
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
  if (got == 0) /* nothing but blank lines, or nothing at all */
    return TR_ERR_EMPTY;
  bool seed = seed_line_is_seed(f->line, f->line_len);
  if (!seed && !looks_like_record(f->line, f->line_len))
    return TR_ERR_NOT_TRACE;
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
  if (f->codec) {
    int err = tc_rewind(f->codec);
    if (err)
      return err;
  } else if (lseek(f->fd, 0, SEEK_SET) < 0) {
    return errno;
  }
  f->text_bytes = 0;
  f->pos = 0;
  f->fill = 0;
  f->eof = false;
  f->line_no = 0;
  f->bytes_read = 0;
  f->line = NULL;
  f->line_len = 0;
  f->line_unterminated = false;
  f->decoded = NULL;
  f->piece = NULL;
  f->piece_len = f->piece_pos = 0;
  f->error = 0;
  return 0;
}

/* A new descriptor of its own (offset included) for `path`; "-" is
 * standard input as tr_inputs_collect kept it. */
static int open_path(const char *path) {
  if (strcmp(path, "-") != 0 || stdin_fd < 0)
    return open(path, O_RDONLY | O_CLOEXEC);
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", stdin_fd);
  return open(self, O_RDONLY | O_CLOEXEC);
}

/* A compressed file (told by its first bytes) gets a decompressing
 * reader. 0 or an error. */
static int open_codec(tr_file *f) {
  unsigned char head[8];
  ssize_t n = pread(f->fd, head, sizeof head, 0);
  if (n < 0)
    return errno;
  tc_kind kind = tc_sniff(head, (size_t)n);
  if (kind == TC_PLAIN)
    return 0;
  f->by_pieces = kind == TC_CST;
  return tc_open(&f->codec, kind, f->fd);
}

static int open_file(tr_file *f, const char *path, size_t bufsize,
                     bool defer_notices) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->defer_notices = defer_notices;
  f->fd = open_path(path);
  if (f->fd < 0)
    return errno;
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  int codec_err = open_codec(f);
  if (codec_err) {
    tr_close(f);
    return codec_err;
  }
  /* a binary file's lines are read in place (next_piece_line) */
  f->cap = bufsize < 4096 || f->by_pieces ? 4096 : bufsize;
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

/* refill() for a compressed file. */
static ssize_t refill_decompressed(tr_file *f) {
  int err = 0;
  ssize_t n = tc_read(f->codec, f->buf + f->fill, f->cap - f->fill, &err);
  f->bytes_read = tc_file_bytes(f->codec);
  if (n < 0) {
    f->error = err;
    return -1;
  }
  f->fill += (size_t)n;
  f->text_bytes += (uint64_t)n;
  return n;
}

/* At the end of a compressed file whose last frame has no end (a writer
 * killed mid-write): say what was read of it, once. Its complete blocks
 * were decoded and their lines read like any other; only what the missing
 * end held is lost (the last line may be cut: the readers say so). */
static void say_torn(tr_file *f) {
  tc_torn_info t;
  if (!f->codec || !tc_torn(f->codec, &t) ||
      !tr_notice_once(f->path, TR_NOTICE_TORN))
    return;
  const char *unit = t.kind == TC_GZIP ? "member" : "frame";
  char where[160], text[160];
  if (t.unit_start > 0)
    snprintf(where, sizeof where,
             "its last complete %s ends at byte %llu, the %llu bytes after "
             "it are a %s without its end",
             unit, (unsigned long long)t.unit_start,
             (unsigned long long)t.unit_bytes, unit);
  else
    snprintf(where, sizeof where,
             "no %s of it is complete: its %llu bytes are one %s without its "
             "end",
             unit, (unsigned long long)t.unit_bytes, unit);
  if (t.unit_text > 0)
    snprintf(text, sizeof text,
             "%llu bytes of text were decoded from that %s and are read",
             (unsigned long long)t.unit_text, unit);
  else
    snprintf(text, sizeof text, "nothing could be decoded from that %s", unit);
  tr_say(f,
         "cclscope: '%s' ends inside %s %s (its writer was killed "
         "while writing it?): %s; %s; %llu line%s read in all%s\n",
         f->path, t.kind == TC_CST ? "a binary trace" : "a compressed", unit,
         where, text, (unsigned long long)f->line_no,
         f->line_no == 1 ? "" : "s",
         f->line_unterminated ? ", the last one cut short" : "");
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
  if (f->codec)
    return refill_decompressed(f);
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
    f->text_bytes += (uint64_t)n;
    return n;
  }
}

int tr_next(tr_file *f) {
  if (!f->seed)
    return tr_next_raw(f);
  int got = seed_conv_next(f->seed, f);
  f->decoded = NULL; /* a converted line is not the file's */
  return got;
}

/* tr_next_raw for a binary file: its next line where the codec made it
 * (a piece is whole lines), with what the codec knows of it decoded. */
static int next_piece_line(tr_file *f) {
  while (f->piece_pos == f->piece_len) {
    int err = 0;
    const char *text;
    ssize_t n = tc_read_piece(f->codec, &text, &err);
    f->bytes_read = tc_file_bytes(f->codec);
    if (n < 0) {
      f->error = err;
      return -1;
    }
    if (n == 0) {
      f->eof = true;
      say_torn(f);
      return 0;
    }
    f->piece = text;
    f->piece_len = (size_t)n;
    f->piece_pos = 0;
    f->text_bytes += (uint64_t)n;
  }
  const char *start = f->piece + f->piece_pos;
  size_t avail = f->piece_len - f->piece_pos;
  /* a decoded line's end is known; any other's is searched for */
  size_t len;
  const char *nl = NULL;
  if (tc_line_decoded(f->codec, start, &f->decoded, &f->marks, &len) &&
      len < avail && start[len] == '\n')
    nl = start + len;
  else
    f->decoded = NULL;
  if (!nl)
    nl = memchr(start, '\n', avail);
  f->line = start;
  f->line_len = nl ? (size_t)(nl - start) : avail;
  f->line_unterminated = nl == NULL;
  f->piece_pos += f->line_len + (nl != NULL);
  f->line_no++;
  return 1;
}

int tr_next_raw(tr_file *f) {
  if (f->by_pieces)
    return next_piece_line(f);
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
      f->decoded = NULL; /* only a binary file's lines come decoded */
      f->pos += f->line_len + 1;
      f->line_no++;
      return 1;
    }
    scanned = avail;
    if (f->eof) {
      if (avail == 0) {
        say_torn(f);
        return 0;
      }
      f->line = start;
      f->line_len = avail;
      f->line_unterminated = true;
      f->decoded = NULL;
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
  tc_close(f->codec);
  f->codec = NULL;
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
