/*
 * src/plugin/trace_file.h — one per-process JSONL file, written so that it
 * only ever contains complete lines, even if the process is killed:
 *
 *  - every write() covers whole lines;
 *  - no line crosses a 4 KiB file boundary (the kernel may cut a write
 *    interrupted by SIGKILL at a page boundary): a line that would cross
 *    starts at the next boundary, and the gap is filled either by spaces
 *    inside the previous line's object (still buffered) or by a padding
 *    record {"recordType":"pad"} (valid JSON, ignored by readers);
 *  - a short write (disk full) is truncated back to the last complete line,
 *    and output is paused and retried later; losses are counted.
 *
 * Lines longer than 4 KiB start on a boundary and are the only exception.
 * Writer thread only.
 */
#ifndef CCLSCOPE_TRACE_FILE_H
#define CCLSCOPE_TRACE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "json_writer.h"

#define CS_TF_PAGE 4096

typedef struct {
  int fd;
  char path[PATH_MAX];
  cs_jbuf buf;         /* bytes not yet written; buf[0] is at `written` */
  uint64_t written;    /* file size */
  uint64_t lines;      /* lines accepted */
  uint64_t lines_lost; /* lines dropped (write errors, paused output) */
  uint64_t pad_bytes;  /* alignment padding written */
  uint64_t write_errors;
  int64_t paused_until_ns; /* after an error: drop lines until then */
  bool failed;             /* could not open: every line is counted lost */
} cs_trace_file;

/* Create `dir` (and parents) and a new file `<dir>/<stem>.jsonl`, or
 * `<stem>.<n>.jsonl` if that exists. False (with a warning) on failure. */
bool cs_tf_open(cs_trace_file *f, const char *dir, const char *stem);

/* Build a line: append its text to f->buf after cs_tf_line_begin, then
 * cs_tf_line_end adds the newline and applies the alignment rule. */
size_t cs_tf_line_begin(cs_trace_file *f);
void cs_tf_line_end(cs_trace_file *f, size_t start, int64_t now_ns);

/* Write everything buffered (whole lines). */
void cs_tf_flush(cs_trace_file *f, int64_t now_ns);

/* Flush and close. */
void cs_tf_close(cs_trace_file *f, int64_t now_ns);

/* In a fork child: forget the parent's file without writing to it. */
void cs_tf_abandon(cs_trace_file *f);

/* mkdir -p; true if the folder exists afterwards. */
bool cs_tf_mkdirs(const char *dir);

#endif
