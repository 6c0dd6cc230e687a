/*
 * src/cli/read/trace_reader.h — where trace lines come from.
 *
 * Owns: turning the command line's DIR|FILE... into a sorted list of trace
 * files, and reading one file line by line with a bounded buffer, keeping
 * the line number (for file:line messages) and noticing a last line that
 * has no newline (a truncated write). Records are decoded by trace_record.h;
 * `pad` lines are returned like any other (callers skip RT_PAD).
 */
#ifndef CCLSCOPE_CLI_TRACE_READER_H
#define CCLSCOPE_CLI_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  char **paths;
  size_t n;
  uint64_t total_bytes;
} tr_inputs;

/* Collect the inputs: each argument is a folder (its *.jsonl files, sorted
 * by name) or a file. On failure prints "cclscope: ..." to stderr and
 * returns false. An empty result is an error too. */
bool tr_inputs_collect(tr_inputs *in, int argc, char **argv);
void tr_inputs_free(tr_inputs *in);

typedef struct {
  const char *path;
  int fd;
  char *buf;
  size_t cap;
  size_t pos;  /* start of the unread part of buf */
  size_t fill; /* bytes in buf */
  bool eof;
  uint64_t line_no;    /* of the line last returned (1-based) */
  uint64_t bytes_read; /* from the file so far (for progress) */
  /* the line last returned, without its '\n' */
  const char *line;
  size_t line_len;
  bool line_unterminated; /* the file ended without a '\n' after it */
  int error;              /* errno of a failed read, else 0 */
} tr_file;

/* Open `path` with a read buffer of `bufsize` bytes (grown for longer
 * lines). Returns 0 or an errno value. */
int tr_open(tr_file *f, const char *path, size_t bufsize);
/* Next line: 1 when f->line is set, 0 at the end, -1 on a read error. */
int tr_next(tr_file *f);
void tr_close(tr_file *f);

#endif
