/*
 * src/cli/ordered_reader.h — the records of many files as one stream.
 *
 * Two modes:
 *
 *  ORD_LOCKSTEP  records in the order of the time they were written (an
 *                event's stop or endTs, other records' ts), files read in
 *                lock step. Nothing is copied or buffered beyond one
 *                current line per file, each line is decoded once. Used by
 *                `summary`: files advance together, so state that waits for
 *                all ranks (collective instances) stays small.
 *
 *  ORD_START     records by start time (events' start.ts, timing records'
 *                start, others' ts). A file is written as events END, not
 *                as they start, so each file gets a reorder window: a heap
 *                of up to `window_bytes / nfiles` bytes of lines (at least
 *                one line), always emitting its earliest start. A record
 *                that starts before something already emitted (an event
 *                longer than the window covers) is still emitted, at once,
 *                and counted in `late` — the output is then not strictly
 *                sorted and the caller says so. Used by merge, perfetto,
 *                otf2.
 *
 *  ORD_END       like ORD_START but by the time each record was written
 *                (as ORD_LOCKSTEP): files are nearly in that order already,
 *                so the window makes the output exactly sorted in practice.
 *
 * Lines that are not JSON objects are skipped and counted (`invalid`);
 * `pad` records are skipped. The first `process` record of each file gives
 * the file's identity (host, pid, handleTag).
 */
#ifndef CCLSCOPE_CLI_ORDERED_READER_H
#define CCLSCOPE_CLI_ORDERED_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "record.h"
#include "trace_reader.h"

typedef enum { ORD_LOCKSTEP, ORD_START, ORD_END } ord_mode;

/* One buffered line of a file's reorder window (ORD_START). */
typedef struct {
  int64_t key;
  uint64_t seq; /* read order: ties keep file order */
  uint64_t line_no;
  size_t len;
  char text[]; /* len bytes + NUL */
} ord_item;

typedef struct {
  char host[128];
  int64_t pid;
  bool has_tag;
  uint32_t handle_tag;
  bool has_process; /* its first record was a process record */
  bool has_process_end;
} ord_identity;

typedef struct {
  const char *path;
  tr_file tf;
  bool opened;
  bool eof;
  ord_identity id;
  /* ORD_LOCKSTEP: the current line, decoded in `scratch` */
  rec_scratch *scratch;
  rec cur;
  bool has_cur;
  int64_t cur_key;
  /* ORD_START: the window */
  ord_item **heap;
  size_t nheap, cap_heap;
  size_t window_used;
  int64_t last_key;       /* keys of records without a time inherit this */
  uint64_t bytes_counted; /* of tf.bytes_read, already in bytes_done */
} ord_file;

typedef struct {
  ord_mode mode;
  ord_file *files;
  size_t n;
  size_t *heap; /* file indexes, ordered by their next key */
  size_t nheap;
  size_t window_per_file;
  uint64_t seq;
  rec_scratch *out_scratch; /* ORD_START: decoding the emitted line */
  ord_item *out_item;       /* ORD_START: freed on the next call */
  rec out;
  size_t pending_advance; /* ORD_LOCKSTEP: file to advance on next call */
  bool has_pending;
  int64_t last_emitted;
  /* statistics */
  uint64_t records;
  uint64_t late;    /* ORD_START: emitted after a later-starting record */
  uint64_t invalid; /* lines that are not JSON objects (skipped) */
  uint64_t unreadable_files;
  uint64_t bytes_done; /* read from all files so far (progress) */
  progress prog;
} ord_reader;

/* Where the record returned by ord_next comes from. */
typedef struct {
  size_t file;
  uint64_t line_no;
  int64_t key;
} ord_where;

/* Open every input. `window_bytes` is the total reorder budget (ORD_START).
 * Files that cannot be opened are reported on stderr and skipped. False
 * only when out of memory. */
bool ord_open(ord_reader *o, const tr_inputs *in, ord_mode mode,
              size_t window_bytes, const char *progress_label);
/* Next record, or NULL at the end. Valid until the next call. */
const rec *ord_next(ord_reader *o, ord_where *where);
void ord_close(ord_reader *o);

#endif
