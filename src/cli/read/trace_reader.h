/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_reader.h — where trace lines come from.
 *
 * Owns: turning the command line's DIR|FILE... into a sorted list of trace
 * files, and reading one file line by line with a bounded buffer, keeping
 * the line number (for file:line messages) and noticing a last line that
 * has no newline (a truncated write). Records are decoded by trace_record.h;
 * `pad` lines are returned like any other (callers skip RT_PAD).
 *
 * Compressed files (.jsonl.zst, .jsonl.gz; told by their first bytes, not
 * their names) are read through trace_codec.h: lines, line numbers and
 * records are the same as for the plain file. "-" names standard input,
 * copied once into an unlinked temporary file so that it can be read
 * again (formats, converters and several passes read a file twice).
 *
 * A file whose first non-blank line is not a cclscope record (a JSON
 * object with a "recordType") nor a minimal_profiler one is not a trace:
 * tr_open refuses it (TR_ERR_NOT_TRACE) rather than reading it as a trace
 * of invalid lines; so is a file without a line that is not blank
 * (TR_ERR_EMPTY: an empty file is no trace of zero records).
 *
 * Formats are detected per file from its first line: a file written in the
 * minimal_profiler format (seed_format.h) is converted while it is read,
 * so tr_next returns cclscope's records for it too (and says so on stderr,
 * once per file, unless tr_format_notices is false).
 */
#ifndef CCLSCOPE_CLI_TRACE_READER_H
#define CCLSCOPE_CLI_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/line_members.h"
#include "read/trace_record.h"

typedef struct {
  char **paths;
  size_t n;
  uint64_t total_bytes;
} tr_inputs;

/* Collect the inputs: each argument is a folder (the trace files in it
 * and in its subfolders, see tr_is_trace_name and read/input_walk.h: in
 * name order, each file once), a file, or "-" (standard input, at most
 * once). A file reached twice is read once, said on stderr. On failure
 * prints "cclscope: ..." to stderr and returns false. An empty result is
 * an error too. */
bool tr_inputs_collect(tr_inputs *in, int argc, char **argv);
/* Whether a file named as an argument must be a trace (true, the CLI: it
 * stops before any output) or may be left for the reader to refuse
 * (false: ncclemu --replay replays the good files beside a bad one). */
extern bool tr_inputs_named_must_be_traces;
void tr_inputs_free(tr_inputs *in);

/* Is a folder entry a trace file: *.jsonl, *.jsonl.zst or *.jsonl.gz, not
 * hidden (hidden folders are not entered either)? */
bool tr_is_trace_name(const char *name);

/* Errors beyond errno's that tr_open and tr_next give (with trace_codec.h's
 * TC_ERR_*), and the words for any of them or an errno value. */
enum {
  TR_ERR_NOT_TRACE = 0x10010, /* its first line is not a record */
  TR_ERR_EMPTY = 0x10011      /* no line but blank ones: not a trace either */
};
const char *tr_strerror(int err);

/* The format a file was found to be in (tr_open). */
typedef enum {
  TR_FORMAT_CCLSCOPE = 0,
  TR_FORMAT_MINIMAL_PROFILER /* converted while read (seed_format.h) */
} tr_format;

/* Say on stderr, once per file, that a file is read as minimal_profiler
 * format (cleared by the CLI's --quiet). */
extern bool tr_format_notices;

/* Threads that read and decode ahead (read_ahead.h) for ordered_reader.h
 * and `check`: 0 = one per online CPU, 1 = none (the CLI's --jobs). */
extern unsigned tr_jobs;

/* Whether `what` (a TR_NOTICE_ bit) should be said about `path` now: true
 * the first time for that file, false afterwards and when notices are
 * off. */
enum {
  TR_NOTICE_FORMAT = 1,
  TR_NOTICE_ORPHAN_STATES = 2,
  TR_NOTICE_TORN = 4 /* ends inside a compressed frame */
};
bool tr_notice_once(const char *path, unsigned what);

struct seed_conv;
struct tc_stream;

typedef struct tr_file_s {
  const char *path;
  int fd;
  char *buf;
  size_t cap;
  size_t pos;  /* start of the unread part of buf */
  size_t fill; /* bytes in buf */
  bool eof;
  uint64_t line_no;        /* of the line last returned (1-based) */
  uint64_t bytes_read;     /* from the file so far (for progress) */
  uint64_t text_bytes;     /* of text so far (bytes_read unless compressed) */
  struct tc_stream *codec; /* compressed: the decompressing reader */
  /* a binary file: its lines are taken from the codec's pieces of text
   * in place (tc_read_piece), not copied into buf; the current piece and
   * what of it is read */
  bool by_pieces;
  const char *piece;
  size_t piece_len, piece_pos;
  /* the line last returned, without its '\n' */
  const char *line;
  size_t line_len;
  bool line_unterminated; /* the file ended without a '\n' after it */
  /* The line decoded, when the file's reader knows it without parsing
   * it (a binary trace's event lines: trace_codec.h): the record
   * rec_decode makes of it (line, len and f unset) and where each of its
   * top-level members begins (line_members.h); else NULL. Valid until the next
   * tr_next. */
  const rec *decoded;
  const line_marks *marks;
  int error; /* errno of a failed read, else 0 */
  tr_format format;
  struct seed_conv *seed; /* TR_FORMAT_MINIMAL_PROFILER: the converter */
  /* tr_open_deferring: what would have been said on stderr (tr_say), for
   * the caller to say later (NULL when nothing; the caller frees it) */
  bool defer_notices;
  char *deferred;
} tr_file;

/* Open `path` with a read buffer of `bufsize` bytes (grown for longer
 * lines). Returns 0 or an errno value. */
int tr_open(tr_file *f, const char *path, size_t bufsize);
/* The same, but what reading the file has to say on stderr (its format,
 * converter notices) is collected in f->deferred instead: read_ahead.c
 * reads on other threads and says it when the command reaches that point,
 * so that stderr does not depend on the threads' timing. */
int tr_open_deferring(tr_file *f, const char *path, size_t bufsize);
/* Say a notice about the file on stderr, or keep it in f->deferred. */
void tr_say(tr_file *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Next line: 1 when f->line is set, 0 at the end, -1 on a read error. */
int tr_next(tr_file *f);
void tr_close(tr_file *f);

/* For converters (seed_format.c): the file's own next line, unconverted,
 * and going back to its start (0 or an errno value). */
int tr_next_raw(tr_file *f);
int tr_rewind(tr_file *f);

#endif
