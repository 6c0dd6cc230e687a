/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_file.h — one per-process JSONL file, written so that
 * it only ever contains complete lines, even if the process is killed:
 *
 *  - every write covers whole lines;
 *  - no line crosses a 4 KiB file boundary (the kernel may cut a write
 *    interrupted by SIGKILL at a page boundary): a line that would cross
 *    starts at the next boundary, and the gap is filled either by spaces
 *    inside the previous line's object (still buffered) or by a padding
 *    record {"recordType":"pad"} (valid JSON, ignored by readers);
 *  - a short write (disk full) is truncated back to the last complete line,
 *    and output is paused and retried later; losses are counted, in the
 *    accounting record (trace_accounting.h) that cs_tf_begin writes after
 *    the file's first line: rewritten in place, it needs no new space.
 *
 * Lines longer than 4 KiB start on a boundary and are the only exception.
 *
 * Writing. Lines are formatted into a page-aligned buffer; whole chunks of
 * lines go to the I/O thread (trace_io.h), which writes them in order while
 * the writer thread goes on. Where the file system accepts O_DIRECT with
 * 4 KiB alignment (CCLSCOPE_DIRECT_IO=auto, the default), whole 4 KiB
 * pages are written with O_DIRECT: no copy into the page cache, which is
 * most of a buffered write's cost at high event rates, and no trace pages
 * pushing the job's own data out of memory. The periodic flush writes the
 * last, partial page the ordinary way (every byte is written once); the
 * next bulk write first completes that page the ordinary way, then goes on
 * with whole pages. A file system that refuses a direct write gets
 * ordinary writes from then on (said once through NCCL's logger).
 *
 * Compressed (CCLSCOPE_COMPRESS=zstd[:level], trace_zstd.h): the file is
 * `<stem>.jsonl.zst`, each chunk handed over becomes one zstd frame on the
 * I/O thread, written with one write; the page rule and its padding do
 * not apply (the frames, not the pages, are the unit), chunks are handed
 * over at CS_TF_BULK_COMPRESSED or at the periodic flush, and O_DIRECT is
 * never used (CCLSCOPE_DIRECT_IO=on gets a warning). The file's first
 * lines (cs_tf_begin) are raw frames, stored uncompressed, so that a file
 * begun is never empty and its accounting record needs no compressor.
 * Without libzstd the file is plain `<stem>.jsonl`, with one warning.
 *
 * Binary (CCLSCOPE_FORMAT=binary, trace_binary.h): the file is
 * `<stem>.cst`; cs_tf_line_begin leaves room for each line's record head
 * and cs_tf_line_end fills it in, so the buffer holds records; chunks
 * become frames as in a compressed file (stored, or zstd with
 * CCLSCOPE_COMPRESS), with no padding and no O_DIRECT.
 *
 * Writer thread only.
 */
#ifndef CCLSCOPE_TRACE_FILE_H
#define CCLSCOPE_TRACE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cst_format.h"
#include "json_writer.h"
#include "out_dir.h"
#include "trace_accounting.h"
#include "trace_io.h"

#define CS_TF_PAGE 4096

/* When to write whole pages without waiting for the periodic flush. */
#define CS_TF_BULK_BUFFERED (256u * 1024u)
#define CS_TF_BULK_DIRECT (1024u * 1024u) /* larger writes: faster devices */
#define CS_TF_BULK_COMPRESSED                                                  \
  (1024u * 1024u) /* larger frames compress better */

typedef enum {
  CS_TF_DIRECT_AUTO = 0, /* where the file system takes it */
  CS_TF_DIRECT_ON,       /* the same, and warn where it does not */
  CS_TF_DIRECT_OFF,      /* ordinary (page-cache) writes only */
} cs_tf_direct_mode;

typedef struct {
  int fd;                             /* ordinary writes */
  int direct_fd;                      /* O_DIRECT on the same file, or -1 */
  char path[PATH_MAX + NAME_MAX + 2]; /* folder/name: for messages */
  cs_jbuf buf;        /* lines not yet handed to the I/O thread */
  uint64_t buf_lines; /* lines (records, binary) in buf */
  uint64_t frames;    /* moves whenever buf's records begin a new chunk (frame):
                         compact records tell their frame everything again */
  uint64_t written;   /* file offset of buf[0]: bytes handed over so far */
  uint64_t lines;     /* lines accepted */
  uint64_t lines_lost;      /* every line lost (dropped here or by the I/O
                               thread), as of the last flush */
  uint64_t lines_dropped;   /* lost on this side (paused, no memory) */
  uint64_t bytes_lost;      /* the text of lines_lost, as of the last flush */
  uint64_t bytes_dropped;   /* ... of lines_dropped */
  uint64_t pad_bytes;       /* alignment padding written */
  uint64_t write_errors;    /* as of the last flush */
  uint64_t compress_errors; /* ... chunks the compressor failed on */
  uint64_t lines_lost_compressing; /* ... of lines_lost, in those chunks */
  uint64_t direct_bytes; /* written with O_DIRECT, as of the last flush */
  uint64_t disk_wait_ns; /* the writer waited for the disk, as of then */
  uint64_t disk_waits;
  int64_t paused_until_ns; /* after an error: drop lines until then */
  bool failed;       /* could not open or begin: every line is counted lost */
  bool direct;       /* hand whole pages over for O_DIRECT */
  size_t bulk_bytes; /* cs_tf_bulk_due's threshold for the mode above and
                        zstd/bin: set again whenever they change */
  bool direct_requested; /* CCLSCOPE_DIRECT_IO=on: warn if unavailable */
  bool io_started;
  bool accounted;           /* cs_tf_begin wrote the accounting record */
  cs_acct_closing closing;  /* its closing fields (cs_tf_set_closing) */
  uint64_t acct_told_lines; /* lines_dropped as last told to the I/O side */
  int64_t acct_told_ns;     /* ... when (cs_tf_account_if_due's clock) */
  cs_trace_zstd *zstd;      /* compressed: the I/O thread's context, or NULL */
  cs_trace_bin *bin;        /* CCLSCOPE_FORMAT=binary: frames, or NULL */
  cs_trace_zstd *zstd_mine; /* ... and this thread's, when the I/O thread is
                               behind (cs_io_set_helper), or NULL */
  cs_trace_bin *bin_mine;   /* ... binary and compressed: the frames
                               made with zstd_mine, or NULL */
  cs_trace_io io;
} cs_trace_file;

/* Open `dir` (created if needed, see out_dir.h) and create a new file
 * `<stem>.jsonl` in it, or `<stem>.<n>.jsonl` if that name is taken (by a
 * file or a link: never opened); `.jsonl.zst` when `zstd_level` is not 0 (0:
 * plain) and libzstd is found. False (with a warning) on failure. */
bool cs_tf_open(cs_trace_file *f, cs_out_dir *dir, const char *stem,
                cs_tf_direct_mode direct, int zstd_level);

/* After the caller buffered the file's first line(s) (the process record):
 * write them and the accounting record after them, and wait until they
 * are in the file. From then on every loss is counted there. False when
 * they could not be written: the file stays empty, tracing to it is off
 * (every later line is counted as lost) and a warning says so. */
bool cs_tf_begin(cs_trace_file *f, int64_t now_ns);

/* The accounting record's closing fields; written when the file closes. */
void cs_tf_set_closing(cs_trace_file *f, const cs_acct_closing *closing);

/* The writer's periodic call (`mono_ns`: a monotonic clock): lines
 * dropped on this side since the accounting record last heard of them
 * (while paused after a failure) are told to it, once a second at most. */
void cs_tf_account_if_due(cs_trace_file *f, int64_t mono_ns);

/* The same, and `binary`: the lines in the binary container
 * (CCLSCOPE_FORMAT=binary, `<stem>.cst`, trace_binary.h): frames like the
 * compressed file's, compressed only with `zstd_level` not 0. */
bool cs_tf_open_as(cs_trace_file *f, cs_out_dir *dir, const char *stem,
                   cs_tf_direct_mode direct, int zstd_level, bool binary);

/* True when frames, not pages, are the unit (compressed or binary). */
static inline bool cs_tf_framed(const cs_trace_file *f) {
  return f->zstd != NULL || f->bin != NULL;
}

/* True when the file is in the binary container. */
static inline bool cs_tf_binary(const cs_trace_file *f) {
  return f->bin != NULL;
}

/* True when the file is written compressed. */
static inline bool cs_tf_compressed(const cs_trace_file *f) {
  return f->zstd != NULL;
}

/* True when the file writes whole pages with O_DIRECT. */
static inline bool cs_tf_direct(const cs_trace_file *f) {
  return f->direct;
}

/* Build a line: append its text to f->buf after cs_tf_line_begin, then
 * cs_tf_line_end adds the newline and applies the alignment rule. */
size_t cs_tf_line_begin(cs_trace_file *f);
void cs_tf_line_end(cs_trace_file *f, size_t start, int64_t now_ns);

/* Binary files: a compact record (trace_compact.h) instead of a line.
 * cs_tf_rec_begin makes room for its head and `max` bytes of body and
 * returns where the record starts; the body goes at f->buf.len (the start
 * plus the 2 bytes of a short record's head), and cs_tf_rec_end, told the
 * body's end in f->buf.len, puts the head (`kind`, the length) before it,
 * moving a body of 128 bytes or more forward to make room for a longer
 * length. Dropped and
 * counted like a line when the file is paused or failed or the buffer out
 * of memory (then f->buf.failed): false. */
#define CS_TF_REC_HEAD1 2 /* kind, one byte of length */
static inline size_t cs_tf_rec_begin(cs_trace_file *f, size_t max) {
  size_t start = f->buf.len;
  if (cs_jbuf_reserve(&f->buf, CS_TF_REC_HEAD1 + max))
    f->buf.len += CS_TF_REC_HEAD1;
  return start;
}
bool cs_tf_rec_end_slow(cs_trace_file *f, size_t start, unsigned kind,
                        int64_t now_ns);
static inline bool cs_tf_rec_end(cs_trace_file *f, size_t start, unsigned kind,
                                 int64_t now_ns) {
  size_t body = f->buf.len - start - CS_TF_REC_HEAD1;
  if (f->buf.failed || f->failed || now_ns < f->paused_until_ns || body >= 0x80)
    return cs_tf_rec_end_slow(f, start, kind, now_ns);
  unsigned char *head = (unsigned char *)f->buf.data + start;
  head[0] = (unsigned char)kind; /* most: a one-byte length */
  head[1] = (unsigned char)body;
  f->lines++;
  f->buf_lines++;
  return true;
}
/* `n` lines (records) lost before they were made, counted as dropped. */
void cs_tf_count_lost(cs_trace_file *f, uint64_t n);

/* True when enough is buffered for cs_tf_write_bulk to be worth it. */
/* Once per record: one compare against the threshold the file keeps. */
static inline bool cs_tf_bulk_due(const cs_trace_file *f) {
  return f->buf.len >= f->bulk_bytes;
}

/* Hand over what can be written cheaply: the whole pages (direct I/O), or
 * everything (ordinary writes). What is left is less than a page. */
void cs_tf_write_bulk(cs_trace_file *f, int64_t now_ns);

/* Hand over everything buffered: the file is up to date as soon as the
 * I/O thread has written it (it does not wait for that). */
void cs_tf_flush(cs_trace_file *f, int64_t now_ns);

/* cs_tf_flush, then wait until it is in the file; counters up to date. */
void cs_tf_sync(cs_trace_file *f, int64_t now_ns);

/* Sync, bring the accounting record up to date, stop the I/O thread and
 * close. */
void cs_tf_close(cs_trace_file *f, int64_t now_ns);

/* fork(): around the fork in the parent, and in the child, which forgets
 * the parent's file without writing to it. */
void cs_tf_atfork_prepare(cs_trace_file *f);
void cs_tf_atfork_parent(cs_trace_file *f);
void cs_tf_abandon(cs_trace_file *f);

#endif
