/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_file.c — see trace_file.h for the guarantees. The file
 * is created in its folder through out_dir.h (never through a link).
 */
#include "trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cst_format.h"
#include "debug_check.h"
#include "log.h"
#include "trace_binary.h"
#include "trace_zstd.h"

#define PAD_RECORD_HEAD "{\"recordType\":\"pad\""
#define PAD_MIN (sizeof(PAD_RECORD_HEAD) - 1 + 2) /* head + "}\n" */
#define PAUSE_AFTER_ERROR_NS INT64_C(10000000000)
#define ACCOUNT_EVERY_NS INT64_C(1000000000) /* cs_tf_account_if_due */

/* statx's answer, where the kernel and file system give one: can this file
 * take direct writes of 4 KiB-aligned pages from 4 KiB-aligned memory? */
static bool direct_alignment_fits(int fd, const char **why) {
#ifdef STATX_DIOALIGN
  struct statx sx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
      (sx.stx_mask & STATX_DIOALIGN)) {
    if (sx.stx_dio_offset_align == 0) {
      *why = "the file system does not support it";
      return false;
    }
    if (sx.stx_dio_offset_align > CS_TF_PAGE ||
        sx.stx_dio_mem_align > CS_TF_PAGE) {
      *why = "the file system needs more than 4 KiB alignment";
      return false;
    }
  }
#endif
  /* tmpfs takes O_DIRECT without doing it (the pages stay in memory). */
  struct statfs fs;
  if (fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
    *why = "the file is in memory (tmpfs)";
    return false;
  }
  return true; /* unknown: the first direct write will tell */
}

static void say_no_direct(const cs_trace_file *f, const char *why) {
  if (f->direct_requested)
    cs_log_warn("CCLSCOPE_DIRECT_IO=on but '%s' cannot be written with "
                "O_DIRECT (%s); using ordinary writes",
                f->path, why);
  else
    cs_log_info("'%s': ordinary writes (no O_DIRECT: %s)", f->path, why);
}

/* cs_tf_bulk_due's threshold: compressed or binary frames, O_DIRECT pages
 * or ordinary writes. Called whenever f->zstd, f->bin or f->direct
 * change. */
static void set_bulk_bytes(cs_trace_file *f) {
  f->bulk_bytes = cs_tf_framed(f)   ? CS_TF_BULK_COMPRESSED
                  : cs_tf_direct(f) ? CS_TF_BULK_DIRECT
                                    : CS_TF_BULK_BUFFERED;
}

/* The O_DIRECT descriptor is a second open of the file, by name in the
 * same folder: it is used only if it is the very file `fd` created (never
 * a link or another file put at that name in between). */
static void open_direct(cs_trace_file *f, cs_out_dir *dir, const char *name,
                        cs_tf_direct_mode mode) {
  f->direct_requested = mode == CS_TF_DIRECT_ON;
  if (mode == CS_TF_DIRECT_OFF)
    return;
  const char *why = NULL;
  if (!direct_alignment_fits(f->fd, &why)) {
    say_no_direct(f, why);
    return;
  }
  f->direct_fd = cs_out_dir_reopen(dir, name, f->fd, O_WRONLY | O_DIRECT);
  if (f->direct_fd < 0)
    say_no_direct(f, errno == ESTALE ? "its name now belongs to another file"
                                     : strerror(errno));
  f->direct = f->direct_fd >= 0;
  set_bulk_bytes(f);
}

/* CCLSCOPE_COMPRESS=zstd: a context for the I/O thread, or NULL (plain
 * JSONL, said once) when libzstd is missing or out of memory. */
static cs_trace_zstd *start_compression(int level, bool binary) {
  char why[600];
  const char *instead =
      binary ? "writing uncompressed binary frames" : "writing plain JSONL";
  if (!cs_tz_load(why, sizeof why)) {
    cs_log_warn_once(CS_ONCE_COMPRESS, "CCLSCOPE_COMPRESS=zstd: %s; %s", why,
                     instead);
    return NULL;
  }
  cs_trace_zstd *z = cs_tz_new(level);
  if (!z)
    cs_log_warn_once(CS_ONCE_COMPRESS,
                     "CCLSCOPE_COMPRESS=zstd: no memory for a compression "
                     "context; %s",
                     instead);
  return z;
}

/* Compressed frames are not whole pages: no O_DIRECT. */
static cs_tf_direct_mode direct_with_compression(cs_tf_direct_mode direct) {
  if (direct == CS_TF_DIRECT_ON)
    cs_log_warn("CCLSCOPE_DIRECT_IO=on is ignored with CCLSCOPE_COMPRESS=zstd "
                "(compressed frames are not whole pages); using ordinary "
                "writes");
  return CS_TF_DIRECT_OFF;
}

bool cs_tf_open(cs_trace_file *f, cs_out_dir *dir, const char *stem,
                cs_tf_direct_mode direct, int zstd_level) {
  return cs_tf_open_as(f, dir, stem, direct, zstd_level, false);
}

/* Binary frames are not whole pages either. */
static cs_tf_direct_mode direct_with_binary(cs_tf_direct_mode direct) {
  if (direct == CS_TF_DIRECT_ON)
    cs_log_warn("CCLSCOPE_DIRECT_IO=on is ignored with CCLSCOPE_FORMAT=binary "
                "(its frames are not whole pages); using ordinary writes");
  return CS_TF_DIRECT_OFF;
}

bool cs_tf_open_as(cs_trace_file *f, cs_out_dir *dir, const char *stem,
                   cs_tf_direct_mode direct, int zstd_level, bool binary) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  f->direct_fd = -1;
  set_bulk_bytes(f);
  cs_jbuf_init_aligned(&f->buf, CS_TF_PAGE);
  if (!cs_out_dir_open(dir)) { /* it said why */
    f->failed = true;
    return false;
  }
  if (zstd_level != 0) /* 0: plain; negative: zstd's fast levels */
    f->zstd = start_compression(zstd_level, binary);
  set_bulk_bytes(f);
  if (binary) {
    f->bin = cs_tb_new(f->zstd);
    if (!f->bin) {
      cs_log_warn_once(CS_ONCE_DIR,
                       "no memory for the binary trace's buffers; tracing is "
                       "off for this process");
      cs_tz_free(f->zstd);
      f->zstd = NULL;
      set_bulk_bytes(f);
      f->failed = true;
      return false;
    }
    set_bulk_bytes(f);
  }
  const char *suffix = binary ? ".cst" : f->zstd ? ".jsonl.zst" : ".jsonl";
  if (binary)
    direct = direct_with_binary(direct);
  else if (f->zstd)
    direct = direct_with_compression(direct);
  /* Anything already at a name (a file, or a link planted there) is left
   * alone: the next number is tried. */
  char name[NAME_MAX + 1];
  for (int n = 0; n < 1000; n++) {
    if (n == 0)
      snprintf(name, sizeof name, "%s%s", stem, suffix);
    else
      snprintf(name, sizeof name, "%s.%d%s", stem, n, suffix);
    snprintf(f->path, sizeof f->path, "%s/%s", dir->path, name);
    f->fd = cs_out_dir_create(dir, name);
    if (f->fd >= 0 || errno != EEXIST)
      break;
  }
  if (f->fd < 0) {
    cs_log_warn_once(CS_ONCE_DIR,
                     "cannot create trace file '%s' (%s); tracing is off for "
                     "this process",
                     f->path, strerror(errno));
    cs_tb_free(f->bin);
    f->bin = NULL;
    cs_tz_free(f->zstd);
    f->zstd = NULL;
    set_bulk_bytes(f);
    f->failed = true;
    return false;
  }
  open_direct(f, dir, name, direct);
  cs_io_start(&f->io, f->fd, f->direct_fd, f->zstd);
  if (f->bin)
    cs_io_set_binary(&f->io, f->bin);
  f->io_started = true;
  if (f->zstd) { /* without it (no memory), the writer waits for room */
    f->zstd_mine = cs_tz_new(zstd_level);
    if (f->zstd_mine && f->bin) {
      f->bin_mine = cs_tb_new(f->zstd_mine);
      if (!f->bin_mine) {
        cs_tz_free(f->zstd_mine);
        f->zstd_mine = NULL;
      }
    }
    if (f->zstd_mine)
      cs_io_set_helper(&f->io, f->zstd_mine, f->bin_mine);
  }
  return true;
}

size_t cs_tf_line_begin(cs_trace_file *f) {
  size_t start = f->buf.len;
  if (f->bin) { /* room for the line record's head (cs_tf_line_end) */
    static const char room[CST_REC_HEAD_MAX];
    cs_jbuf_put(&f->buf, room, sizeof room);
  }
  return start;
}

void cs_tf_count_lost(cs_trace_file *f, uint64_t n) {
  f->lines_dropped += n;
  f->lines_lost += n;
}

bool cs_tf_rec_end_slow(cs_trace_file *f, size_t start, unsigned kind,
                        int64_t now_ns) {
  if (f->buf.failed || f->failed || now_ns < f->paused_until_ns) {
    f->bytes_dropped += f->buf.len - start;
    f->buf.len = start; /* drop this record */
    f->buf.failed = false;
    cs_tf_count_lost(f, 1);
    return false;
  }
  /* A body of 128 bytes or more: a longer length, the body moved forward. */
  size_t body = f->buf.len - start - CS_TF_REC_HEAD1;
  unsigned char wide[CST_REC_HEAD_MAX];
  size_t n = cst_rec_head(wide, kind, (uint32_t)body);
  if (!cs_jbuf_reserve(&f->buf, n - CS_TF_REC_HEAD1)) {
    f->bytes_dropped += f->buf.len - start;
    f->buf.len = start;
    f->buf.failed = false;
    cs_tf_count_lost(f, 1);
    return false;
  }
  unsigned char *head = (unsigned char *)f->buf.data + start;
  memmove(head + n, head + CS_TF_REC_HEAD1, body);
  memcpy(head, wide, n);
  f->buf.len += n - CS_TF_REC_HEAD1;
  f->lines++;
  f->buf_lines++;
  return true;
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
  f->buf_lines++;
  f->pad_bytes += pad;
  return true;
}

void cs_tf_line_end(cs_trace_file *f, size_t start, int64_t now_ns) {
  cs_jbuf_putc(&f->buf, '\n');
  if (f->buf.failed || f->failed || now_ns < f->paused_until_ns) {
    f->bytes_dropped += f->buf.len - start;
    f->buf.len = start; /* drop this line */
    f->buf.failed = false;
    f->lines_dropped++;
    f->lines_lost++;
    return;
  }
  f->lines++;
  f->buf_lines++;
  if (f->bin)
    cst_rec_head_wide((unsigned char *)f->buf.data + start, CST_REC_LINE,
                      (uint32_t)(f->buf.len - start - CST_REC_HEAD_MAX));
  if (cs_tf_framed(f))
    return; /* frames, not pages, are what a kill leaves whole */
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
  if (cs_tf_framed(f))
    return;
  size_t room = CS_TF_PAGE - (size_t)((f->written + f->buf.len) % CS_TF_PAGE);
  if (room < PAD_MIN && room != CS_TF_PAGE && f->buf.len > 0)
    pad_line_ending_at(f, f->buf.len, room);
}

/* Totals from both sides, and the I/O thread's verdict on O_DIRECT. */
static void refresh_counters(cs_trace_file *f) {
  if (!f->io_started)
    return;
  cs_io_counters c;
  cs_io_get_counters(&f->io, &c);
  f->lines_lost = f->lines_dropped + c.lines_lost;
  f->bytes_lost = f->bytes_dropped + c.bytes_lost;
  f->write_errors = c.write_errors;
  f->compress_errors = c.compress_errors;
  f->lines_lost_compressing = c.lines_lost_compressing;
  f->direct_bytes = c.direct_bytes;
  f->disk_wait_ns = c.disk_wait_ns;
  f->disk_waits = c.disk_waits;
  if (c.direct_refused && f->direct) {
    f->direct = false;
    set_bulk_bytes(f);
    say_no_direct(f, strerror(c.refused_error));
  }
}

/* Tell the accounting record what this side lost and the closing fields
 * (the I/O thread adds its own counts and rewrites it if that changed). */
static void tell_accounting(cs_trace_file *f) {
  if (!f->accounted)
    return;
  cs_acct w;
  memset(&w, 0, sizeof w);
  w.lines_lost = f->lines_dropped;
  w.bytes_lost = f->bytes_dropped;
  w.closing = f->closing;
  cs_io_account(&f->io, &w);
  f->acct_told_lines = f->lines_dropped;
}

/* A write failed: the I/O thread cut the file back to its last complete
 * line and dropped what was queued behind it. Carry on from there after
 * a pause; what this side still held is lost too. */
static void after_failure(cs_trace_file *f, const cs_io_failure *x,
                          int64_t now_ns) {
  cs_log_warn_once(CS_ONCE_WRITE,
                   "writing '%s' failed (%s); lines are being dropped and "
                   "counted, retrying every 10 s",
                   f->path, strerror(x->error));
  f->lines_dropped += f->buf_lines;
  f->bytes_dropped += f->buf.len;
  f->buf.len = 0;
  f->buf_lines = 0;
  f->frames++;
  f->written = x->end;
  f->paused_until_ns = now_ns + PAUSE_AFTER_ERROR_NS;
  tell_accounting(f);
  refresh_counters(f);
}

/* The file's head as it goes to the disk: buf[0, len), whose last
 * CS_ACCT_LINE bytes are the accounting record; for a compressed file
 * two raw frames (the lines before the record, then the record). Sets
 * *acct_at to where the record's text starts. NULL without memory. */
static char *head_bytes(const cs_trace_file *f, size_t *len, size_t *cap,
                        uint64_t *acct_at) {
  size_t before = f->buf.len - CS_ACCT_LINE;
  const char *record = f->buf.data + before;
  size_t first = 0, second = CS_ACCT_LINE;
  if (f->zstd) {
    first = before > 0 ? cs_tz_raw_frame_size(before) : 0;
    second = cs_tz_raw_frame_size(CS_ACCT_LINE);
  } else {
    first = before;
  }
  *len = first + second;
  /* Page-aligned, like every buffer the I/O thread may keep for reuse. */
  *cap = (*len + CS_TF_PAGE - 1) / CS_TF_PAGE * CS_TF_PAGE;
  char *p = aligned_alloc(CS_TF_PAGE, *cap);
  if (!p)
    return NULL;
  if (!f->zstd) {
    memcpy(p, f->buf.data, *len);
  } else {
    if (before > 0)
      cs_tz_raw_frame(f->buf.data, before, p);
    cs_tz_raw_frame(record, CS_ACCT_LINE, p + first);
  }
  *acct_at = *len - CS_ACCT_LINE; /* last (one raw block: its text is last) */
  return p;
}

/* The same for a binary file (trace_binary.h): the lines in buf become
 * the first frame, compressed by the writer's own compressor when there
 * is one (the I/O thread's otherwise: it has no job before the head), and
 * the accounting record is a compact record whose body is last. */
static char *binary_head_bytes(const cs_trace_file *f, size_t *len, size_t *cap,
                               uint64_t *acct_at) {
  cs_acct nothing_lost;
  memset(&nothing_lost, 0, sizeof nothing_lost);
  cs_trace_bin *packer = f->bin_mine ? f->bin_mine : f->bin;
  size_t at;
  char *head =
      cs_tb_head(packer, f->buf.data, f->buf.len, (uint32_t)f->buf_lines,
                 &nothing_lost, f->zstd != NULL, len, &at);
  if (!head)
    return NULL;
  /* Page-aligned, like every buffer the I/O thread may keep for reuse. */
  *cap = (*len + CS_TF_PAGE - 1) / CS_TF_PAGE * CS_TF_PAGE;
  char *p = aligned_alloc(CS_TF_PAGE, *cap);
  if (p)
    memcpy(p, head, *len);
  free(head);
  *acct_at = at;
  return p;
}

bool cs_tf_begin(cs_trace_file *f, int64_t now_ns) {
  if (f->fd < 0 || f->failed || !f->io_started)
    return false;
  uint64_t dropped = f->lines_dropped;
  size_t len = 0, cap = 0;
  uint64_t acct_at = 0;
  char *head = NULL;
  if (f->bin) {
    head = binary_head_bytes(f, &len, &cap, &acct_at);
    f->lines++; /* the accounting record, made by binary_head_bytes */
    f->buf_lines++;
  } else {
    cs_acct nothing_lost;
    memset(&nothing_lost, 0, sizeof nothing_lost);
    char record[CS_ACCT_LINE];
    cs_acct_format(&nothing_lost, record);
    size_t start = cs_tf_line_begin(f);
    cs_jbuf_put(&f->buf, record, CS_ACCT_LINE - 1); /* line_end adds '\n' */
    cs_tf_line_end(f, start, now_ns); /* plain: the page rule may move it */
    if (f->lines_dropped == dropped)
      head = head_bytes(f, &len, &cap, &acct_at);
  }
  uint64_t lines = f->buf_lines;
  f->written += f->buf.len;
  f->buf.len = 0;
  f->buf_lines = 0;
  f->frames++;
  cs_io_failure failure = {.end = 0, .error = ENOMEM};
  if (head &&
      cs_io_write_head(&f->io, head, cap, len, lines, acct_at, &failure)) {
    f->accounted = true;
    return true;
  }
  if (!head) /* no memory: the lines never reached the I/O thread */
    f->lines_dropped += lines;
  cs_log_warn("cannot write the first lines of trace file '%s' (%s); "
              "tracing is off for this process",
              f->path, strerror(failure.error));
  f->failed = true;
  refresh_counters(f);
  return false;
}

void cs_tf_set_closing(cs_trace_file *f, const cs_acct_closing *closing) {
  f->closing = *closing;
}

void cs_tf_account_if_due(cs_trace_file *f, int64_t mono_ns) {
  if (f->accounted && f->lines_dropped != f->acct_told_lines &&
      mono_ns - f->acct_told_ns >= ACCOUNT_EVERY_NS) {
    tell_accounting(f);
    f->acct_told_ns = mono_ns;
  }
}

/* Hand buf[0, n) (whole lines) to the I/O thread, as one direct write
 * (page-aligned offset and length) or an ordinary one, and keep buf[n, len)
 * at the front of the buffer, whose memory stays page-aligned. */
static void hand_off(cs_trace_file *f, size_t n, bool direct, int64_t now_ns) {
  /* Whole lines only; a direct write is whole pages at a page offset. */
  CS_DEBUG_CHECK(n > 0 && n <= f->buf.len);
  CS_DEBUG_CHECK(f->bin || f->buf.data[n - 1] == '\n');
  CS_DEBUG_CHECK(!direct ||
                 (f->written % CS_TF_PAGE == 0 && n % CS_TF_PAGE == 0));
  size_t rest = f->buf.len - n;
  uint64_t rest_lines = cs_io_count_lines(f->buf.data + n, rest);
  CS_DEBUG_CHECK(rest_lines <= f->buf_lines);
  uint64_t lines = f->buf_lines - rest_lines;
  char *job;
  size_t job_cap;
  if (rest < n) {
    /* The job takes the buffer; the rest moves to a spare one. */
    size_t cap = 0;
    char *fresh = cs_io_take_spare(&f->io, &cap);
    if (fresh && cap < rest + CS_TF_PAGE) {
      free(fresh);
      fresh = NULL;
    }
    if (!fresh) {
      cap = f->buf.cap;
      fresh = aligned_alloc(CS_TF_PAGE, cap);
    }
    if (!fresh)
      goto no_memory;
    memcpy(fresh, f->buf.data + n, rest);
    job = f->buf.data;
    job_cap = f->buf.cap;
    f->buf.data = fresh;
    f->buf.cap = cap;
  } else {
    /* A small piece: copy it out. */
    job_cap = (n + CS_TF_PAGE - 1) / CS_TF_PAGE * CS_TF_PAGE;
    job = aligned_alloc(CS_TF_PAGE, job_cap);
    if (!job)
      goto no_memory;
    memcpy(job, f->buf.data, n);
    memmove(f->buf.data, f->buf.data + n, rest);
  }
  f->buf.len = rest;
  f->buf_lines = rest_lines;
  f->frames++;
  uint64_t offset = f->written;
  f->written += n;
  cs_io_failure failure;
  if (!cs_io_queue(&f->io, job, job_cap, n, offset, lines, direct, &failure))
    after_failure(f, &failure, now_ns);
  return;

no_memory: /* everything buffered is lost; the file goes on from here */
  f->lines_dropped += f->buf_lines;
  f->lines_lost += f->buf_lines;
  f->bytes_dropped += f->buf.len;
  f->bytes_lost += f->buf.len;
  f->buf.len = 0;
  f->buf_lines = 0;
  f->frames++;
  tell_accounting(f);
}

/* The whole pages at the front of the buffer that end with a line: what
 * one direct write may take (a line longer than a page waits until it is
 * complete). */
static size_t whole_pages(const cs_trace_file *f) {
  size_t n = f->buf.len - f->buf.len % CS_TF_PAGE;
  while (n > 0 && f->buf.data[n - 1] != '\n')
    n -= CS_TF_PAGE;
  return n;
}

/* Hand the whole pages over for one direct write, if there are any. The
 * file must end on a page boundary. */
static void hand_off_whole_pages(cs_trace_file *f, int64_t now_ns) {
  size_t n = whole_pages(f);
  if (n > 0)
    hand_off(f, n, true, now_ns);
}

/* Direct I/O: hand over the whole pages. After a periodic flush or a
 * failure the file ends inside a page: an ordinary write up to the next
 * boundary comes first. */
static void hand_off_pages(cs_trace_file *f, int64_t now_ns) {
  size_t misaligned = (size_t)(f->written % CS_TF_PAGE);
  if (misaligned) {
    size_t p = CS_TF_PAGE - misaligned;
    while (p <= f->buf.len && f->buf.data[p - 1] != '\n')
      p += CS_TF_PAGE; /* a line longer than a page crosses this one */
    if (p > f->buf.len)
      return;
    hand_off(f, p, false, now_ns);
    if (f->written % CS_TF_PAGE != 0)
      return; /* a failure moved the end of the file */
  }
  hand_off_whole_pages(f, now_ns);
}

void cs_tf_write_bulk(cs_trace_file *f, int64_t now_ns) {
  if (f->fd < 0 || f->buf.len == 0)
    return;
  if (f->direct) {
    hand_off_pages(f, now_ns);
    return; /* the rest waits for more lines or the periodic flush */
  }
  pad_tail_if_needed(f);
  hand_off(f, f->buf.len, false, now_ns);
}

void cs_tf_flush(cs_trace_file *f, int64_t now_ns) {
  if (f->fd < 0)
    return;
  refresh_counters(f);
  if (f->direct && f->written % CS_TF_PAGE == 0)
    hand_off_whole_pages(f, now_ns);
  if (f->buf.len == 0)
    return;
  pad_tail_if_needed(f);
  hand_off(f, f->buf.len, false, now_ns);
}

void cs_tf_sync(cs_trace_file *f, int64_t now_ns) {
  cs_tf_flush(f, now_ns);
  if (!f->io_started)
    return;
  cs_io_failure failure;
  if (!cs_io_sync(&f->io, &failure))
    after_failure(f, &failure, now_ns);
  refresh_counters(f);
}

static void close_both(cs_trace_file *f) {
  cs_tb_free(f->bin); /* the I/O thread is stopped */
  f->bin = NULL;
  cs_tz_free(f->zstd);
  f->zstd = NULL;
  cs_tb_free(f->bin_mine);
  f->bin_mine = NULL;
  cs_tz_free(f->zstd_mine);
  f->zstd_mine = NULL;
  if (f->direct_fd >= 0)
    close(f->direct_fd);
  if (f->fd >= 0)
    close(f->fd);
  f->direct_fd = -1;
  f->fd = -1;
  cs_jbuf_free(&f->buf);
  f->buf_lines = 0;
  set_bulk_bytes(f);
}

void cs_tf_close(cs_trace_file *f, int64_t now_ns) {
  cs_tf_sync(f, now_ns);
  tell_accounting(f); /* the closing fields, and the last losses */
  if (f->io_started) {
    cs_io_stop(&f->io);
    refresh_counters(f);
    f->io_started = false;
  }
  close_both(f);
}

void cs_tf_atfork_prepare(cs_trace_file *f) {
  if (f->io_started)
    cs_io_atfork_prepare(&f->io);
}

void cs_tf_atfork_parent(cs_trace_file *f) {
  if (f->io_started)
    cs_io_atfork_parent(&f->io);
}

void cs_tf_abandon(cs_trace_file *f) {
  if (f->io_started) {
    cs_io_abandon_in_child(&f->io);
    f->io_started = false;
  }
  close_both(f);
}
