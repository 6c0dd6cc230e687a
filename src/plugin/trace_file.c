/*
 * src/plugin/trace_file.c — see trace_file.h for the guarantees.
 */
#include "trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define PAD_RECORD_HEAD "{\"recordType\":\"pad\""
#define PAD_MIN (sizeof(PAD_RECORD_HEAD) - 1 + 2) /* head + "}\n" */
#define PAUSE_AFTER_ERROR_NS INT64_C(10000000000)

bool cs_tf_mkdirs(const char *dir) {
  char path[PATH_MAX];
  struct stat st;
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
    return false;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
      *p = '/';
      return false;
    }
    *p = '/';
  }
  if (mkdir(path, 0755) != 0 && errno != EEXIST)
    return false;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cs_tf_open(cs_trace_file *f, const char *dir, const char *stem) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  cs_jbuf_init(&f->buf);
  if (!cs_tf_mkdirs(dir)) {
    cs_log_warn_once(CS_ONCE_DIR,
                     "cannot create the trace folder '%s' (%s); tracing is "
                     "off for this process (set CCLSCOPE_DIR to a writable "
                     "folder)",
                     dir, strerror(errno));
    f->failed = true;
    return false;
  }
  for (int n = 0; n < 1000; n++) {
    if (n == 0)
      snprintf(f->path, sizeof f->path, "%s/%s.jsonl", dir, stem);
    else
      snprintf(f->path, sizeof f->path, "%s/%s.%d.jsonl", dir, stem, n);
    f->fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd >= 0 || errno != EEXIST)
      break;
  }
  if (f->fd < 0) {
    cs_log_warn_once(CS_ONCE_DIR,
                     "cannot create trace file '%s' (%s); tracing is off for "
                     "this process",
                     f->path, strerror(errno));
    f->failed = true;
    return false;
  }
  return true;
}

size_t cs_tf_line_begin(cs_trace_file *f) {
  return f->buf.len;
}

/* Insert `pad` spaces before the "}\n" that ends the buffer at `end`. */
static bool pad_line_ending_at(cs_trace_file *f, size_t end, size_t pad) {
  if (end < 2 || f->buf.data[end - 1] != '\n' || f->buf.data[end - 2] != '}')
    return false;
  if (!cs_jbuf_reserve(&f->buf, pad))
    return false;
  memmove(f->buf.data + end - 2 + pad, f->buf.data + end - 2,
          f->buf.len - (end - 2));
  memset(f->buf.data + end - 2, ' ', pad);
  f->buf.len += pad;
  f->pad_bytes += pad;
  return true;
}

/* Insert a padding record of exactly `pad` bytes at buffer offset `at`. */
static bool insert_pad_record(cs_trace_file *f, size_t at, size_t pad) {
  if (pad < PAD_MIN || !cs_jbuf_reserve(&f->buf, pad))
    return false;
  memmove(f->buf.data + at + pad, f->buf.data + at, f->buf.len - at);
  char *p = f->buf.data + at;
  memcpy(p, PAD_RECORD_HEAD, PAD_MIN - 2);
  memset(p + PAD_MIN - 2, ' ', pad - PAD_MIN);
  p[pad - 2] = '}';
  p[pad - 1] = '\n';
  f->buf.len += pad;
  f->pad_bytes += pad;
  return true;
}

void cs_tf_line_end(cs_trace_file *f, size_t start, int64_t now_ns) {
  cs_jbuf_putc(&f->buf, '\n');
  if (f->buf.failed || f->failed || now_ns < f->paused_until_ns) {
    f->buf.len = start; /* drop this line */
    f->buf.failed = false;
    f->lines_lost++;
    return;
  }
  f->lines++;
  size_t len = f->buf.len - start;
  uint64_t off = f->written + start;
  size_t room = CS_TF_PAGE - (size_t)(off % CS_TF_PAGE);
  if (len <= room || room == CS_TF_PAGE)
    return; /* fits in this page, or already starts on a boundary */
  /* The line would cross a page boundary: move it to the boundary. */
  if (start > 0 && pad_line_ending_at(f, start, room))
    return;
  insert_pad_record(f, start, room);
}

static void pad_tail_if_needed(cs_trace_file *f) {
  /* Never leave the file ending so close to a boundary that the next line
   * could neither fit nor be preceded by a padding record. */
  size_t room = CS_TF_PAGE - (size_t)((f->written + f->buf.len) % CS_TF_PAGE);
  if (room < PAD_MIN && room != CS_TF_PAGE && f->buf.len > 0)
    pad_line_ending_at(f, f->buf.len, room);
}

/* Truncate a partially written chunk back to its last complete line. */
static void recover_short_write(cs_trace_file *f, size_t done) {
  size_t keep = done;
  while (keep > 0 && f->buf.data[keep - 1] != '\n')
    keep--;
  if (keep < done && ftruncate(f->fd, (off_t)(f->written + keep)) != 0)
    keep = done; /* cannot repair; count what we know is lost */
  f->written += keep;
  for (size_t i = keep; i < f->buf.len; i++)
    if (f->buf.data[i] == '\n')
      f->lines_lost++;
  if (lseek(f->fd, (off_t)f->written, SEEK_SET) < 0)
    f->failed = true;
}

void cs_tf_flush(cs_trace_file *f, int64_t now_ns) {
  if (f->fd < 0 || f->buf.len == 0) {
    f->buf.len = 0;
    return;
  }
  pad_tail_if_needed(f);
  size_t done = 0;
  while (done < f->buf.len) {
    ssize_t n = write(f->fd, f->buf.data + done, f->buf.len - done);
    if (n > 0) {
      done += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    f->write_errors++;
    cs_log_warn_once(CS_ONCE_WRITE,
                     "writing '%s' failed (%s); lines are being dropped and "
                     "counted, retrying every 10 s",
                     f->path, n < 0 ? strerror(errno) : "short write");
    recover_short_write(f, done);
    f->paused_until_ns = now_ns + PAUSE_AFTER_ERROR_NS;
    f->buf.len = 0;
    return;
  }
  f->written += done;
  f->buf.len = 0;
}

void cs_tf_close(cs_trace_file *f, int64_t now_ns) {
  cs_tf_flush(f, now_ns);
  if (f->fd >= 0)
    close(f->fd);
  f->fd = -1;
  cs_jbuf_free(&f->buf);
}

void cs_tf_abandon(cs_trace_file *f) {
  if (f->fd >= 0)
    close(f->fd);
  f->fd = -1;
  cs_jbuf_free(&f->buf);
}
