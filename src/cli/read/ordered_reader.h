/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/ordered_reader.h — the records of many files as one stream.
 *
 * Modes:
 *
 *  ORD_LOCKSTEP  records in the order of the time they were written (an
 *                event's stop or endTs, other records' ts), files read in
 *                lock step. Nothing is copied or buffered beyond one
 *                current line per file, each line is decoded once. The
 *                order is only approximate (files are not strictly sorted
 *                by write time); used by `summary`, which needs no order,
 *                only that files advance together so that state waiting
 *                for all ranks (collective instances) stays small.
 *
 *  ORD_START     records exactly by start time (events' start.ts, timing
 *                records' start, others' ts; ties keep input order: files
 *                by name, then lines). Used by merge, perfetto, otf2.
 *  ORD_END       exactly by the time each record was written (events'
 *                stop.ts or endTs, timing records' stop, others' ts).
 *
 * A file is written as events end (and the plugin's writer batches work),
 * so no window of bounded size sorts it in general. ORD_START and ORD_END
 * therefore sort externally: ord_open reads every input once, sorting
 * chunks of at most `memory_bytes` (lines plus 40 bytes each, and, unless
 * ord_open_lines, what was decoded of each: ~220 bytes and 12 per
 * top-level key, so that no line is decoded twice) and spilling
 * each full chunk to an unlinked temporary file in $TMPDIR (or /tmp); the
 * last chunk stays in memory, so a trace that fits needs no disk at all.
 * ord_next then merges the sorted chunks. Memory: `memory_bytes` plus one
 * 256 KiB read buffer per spilled chunk; disk: at most the input's size
 * with ord_open_lines, else that and the decoded fields.
 *
 * Every mode reads the files through read_ahead.h: `tr_jobs` threads read
 * and decode lines ahead of ord_next, which hands them out in the same
 * order as with one thread (memory: read_ahead.h's chunks on top of the
 * above).
 *
 * Lines that are not JSON objects are skipped and counted (`invalid`);
 * `pad` records are skipped. The first `process` record of each file gives
 * the file's identity (host, pid, handleTag). Records without a time take
 * the key of the record before them in their file.
 */
#ifndef CCLSCOPE_CLI_ORDERED_READER_H
#define CCLSCOPE_CLI_ORDERED_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/read_ahead.h"
#include "read/reorder_window.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "util/progress.h"

typedef enum { ORD_LOCKSTEP, ORD_START, ORD_END } ord_mode;

typedef struct {
  char host[128];
  int64_t pid;
  bool has_tag;
  uint32_t handle_tag;
  int64_t global_rank; /* the launcher's job rank (process record), -1 */
  bool has_process;    /* its first record was a process record */
  bool has_process_end;
} ord_identity;

typedef struct {
  const char *path;
  ra_line_info line; /* the line last read (read_ahead.h) */
  bool eof;
  ord_identity id;
  int64_t last_key;       /* keys of records without a time inherit this */
  uint64_t bytes_counted; /* of line.bytes_read, already in bytes_done */
  /* ORD_LOCKSTEP: the current line, decoded in `scratch` */
  rec_scratch *scratch;
  rec cur;
  bool has_cur;
  int64_t cur_key;
  /* ord_open_window, a plain JSONL file: its timing records, read by a
   * second reader ahead of the first (ord_open_window) */
  tr_file *late;
  bool late_eof;
  uint64_t late_lines; /* at late_eof: the lines it read (its timing
                          records; a file that grew after is the first
                          reader's beyond them) */
} ord_file;

/* One record of a sorted chunk. */
typedef struct {
  int64_t key;
  uint64_t seq; /* global read order: ties keep input order */
  uint64_t line_no;
  uint32_t file;
  uint32_t len;
  size_t off; /* in memory: offset of the text in the arena */
} ord_item;

/* A sorted chunk being merged: in memory (the last one) or spilled. */
typedef struct {
  bool in_memory;
  /* in memory */
  ord_item *items;
  size_t n, pos;
  /* spilled: a temporary file of [ord_item][text] in order */
  int fd;
  char *buf;
  size_t cap, fill, at;
  bool eof;
  /* the current record */
  ord_item cur;
  const char *cur_text;
} ord_run;

typedef struct {
  ord_mode mode;
  ra_reader *ra; /* reads and decodes the files ahead (tr_jobs threads) */
  ord_file *files;
  size_t n;
  /* ORD_LOCKSTEP: heap of file indexes; ORD_START/END: heap of runs */
  size_t *heap;
  size_t nheap;
  size_t pending;   /* index (file or run) to advance on the next call */
  bool has_pending; /* its record was handed out last time */
  /* ORD_START/ORD_END: sorting */
  char *arena;
  size_t arena_cap, arena_used;
  ord_item *items;
  size_t nitems, cap_items;
  size_t memory_bytes;
  ord_run *runs;
  size_t nruns, cap_runs;
  uint64_t seq;
  uint64_t spilled_bytes;
  rec_scratch *out_scratch;
  rec out;
  /* statistics */
  uint64_t records;
  uint64_t invalid;    /* lines that are not JSON objects (skipped) */
  uint64_t text_bytes; /* of the files read to their end (decompressed) */
  uint64_t unreadable_files;
  uint64_t bytes_done; /* read from all files so far (progress) */
  bool failed;         /* a temporary file could not be written or read */
  bool lines_only;     /* ORD_START/END: records keep only their line
                          (ord_open_lines) */
  /* ord_open_window: no sort, a reorder window (reorder_window.h); o->heap
   * holds the files not read to their end, by the largest key read */
  reorder_window *window;
  int64_t *frontier;  /* per stream (files, then their late readers): the
                         largest key read */
  bool out_of_window; /* ord_next met a record that belonged before one it
                         had handed out: start again with ord_open_lines */
  bool has_staged;    /* a record read that the window had no room for */
  size_t staged_file;
  uint64_t staged_line;
  int64_t staged_key;
  rec staged;
  char *staged_kept; /* unless lines_only: its kept_head, rec, members */
  size_t staged_kept_len, staged_kept_cap;
  bool has_last; /* the last record handed out (window) */
  int64_t last_key;
  uint32_t last_file;
  uint64_t last_line;
  progress prog;
} ord_reader;

/* Where the record returned by ord_next comes from. */
typedef struct {
  size_t file;
  uint64_t line_no;
  int64_t key;
} ord_where;

/* True when no input holds a record: every file is empty, not a trace
 * (TR_ERR_EMPTY, TR_ERR_NOT_TRACE) or has only blank, invalid or pad lines
 * (*invalid_lines counts the blank and invalid ones). Reads each file only
 * up to its first record, so it is cheap on a real trace. A file that
 * cannot be opened or read for another reason counts as holding records:
 * the reading pass (ord_open) reports it. */
bool ord_inputs_empty(const tr_inputs *in, uint64_t *invalid_lines);

/* Open every input (ORD_START/ORD_END: read and sort them all, see above).
 * Files that cannot be opened are reported on stderr and skipped. False
 * when out of memory or a temporary file fails (with a message). */
bool ord_open(ord_reader *o, const tr_inputs *in, ord_mode mode,
              size_t memory_bytes, const char *progress_label);
/* ord_open for a caller that only copies lines, such as merge
 * (o->lines_only): ORD_START/ORD_END records keep only their line, and
 * ord_next sets only rt (RT_UNKNOWN), line and len. */
bool ord_open_lines(ord_reader *o, const tr_inputs *in, ord_mode mode,
                    size_t memory_bytes, const char *progress_label);
/* ord_open_lines without sorting first, for inputs that are nearly in
 * order (each file is written nearly in time order): the files are read
 * together, each next from the one whose largest key read so far is the
 * smallest, every record goes into a reorder window of `memory_bytes`
 * (reorder_window.h), and ord_next hands out the smallest record when the
 * next one does not fit. The order is the external sort's, exactly, as
 * long as no record comes after one bigger than it was handed out: then
 * ord_next returns NULL with o->out_of_window set, and the caller throws
 * away what it got and starts again with ord_close and ord_open_lines.
 * The plugin writes a collective's timing record after its children
 * end, long after the events that start after it: the timing records of a
 * plain (uncompressed) JSONL file are read by a second reader of their
 * own, ahead in the same file (the first one passes over them), so that
 * they do not hold the window open. Nothing goes to disk; memory:
 * `memory_bytes`, and a 64 KiB read buffer per plain JSONL file. */
bool ord_open_window(ord_reader *o, const tr_inputs *in, ord_mode mode,
                     size_t memory_bytes, const char *progress_label);
/* ord_open_window keeping each record's decoding (as ord_open does, so
 * ord_next gives the records, not only lines; perfetto): the ring holds
 * that with each line (about 1.8 times the line). It also gives up when
 * a record would go out before every file's identity is known (its first
 * process record read), which the caller may use from the first record
 * on. */
bool ord_open_window_records(ord_reader *o, const tr_inputs *in, ord_mode mode,
                             size_t memory_bytes, const char *progress_label);
/* Whether ord_open_window is worth trying: every input is a plain JSONL
 * file (whose timing records a second reader reads cheaply; in a
 * compressed or binary file they would come too late for the window, and
 * reading it twice would cost its decoding twice), and the limit of open
 * files allows two per input. */
bool ord_window_suits(const tr_inputs *in);
/* Next record, or NULL at the end (check o->failed and o->out_of_window). Valid
 * until the next call. ORD_START/ORD_END: the record as the reading pass
 * decoded it (kept with its line in the sort, so no line is decoded twice), or
 * with o->lines_only (ord_open_lines) only its line. */
const rec *ord_next(ord_reader *o, ord_where *where);
void ord_close(ord_reader *o);

#endif
