/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_jsonl.h — the JSONL trace sink: where an ended event
 * (a ProxyStep, a Coll, ...) becomes one line of the per-process trace file.
 * The format is documented in docs/trace-format.md; keep them in step.
 * Writer thread only.
 */
#ifndef CCLSCOPE_TRACE_JSONL_H
#define CCLSCOPE_TRACE_JSONL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "assembler.h"
#include "clock.h"
#include "completion.h"
#include "cursor.h"
#include "event_types.h"
#include "host_info.h"
#include "out_dir.h"
#include "trace_compact.h"
#include "trace_file.h"
#include "trace_fmt.h"

/* What the sink needs to know about the process it writes for. */
typedef struct {
  pid_t pid;
  pid_t ppid;
  bool forked_child;
  const char *hostname;
  const char *run_id;
  const char *run_id_source; /* run_name.h: where the run id came from */
  int file_rank;             /* the rank in file names, -1 = none */
  const char *dir;
  cs_out_dir *out_dir; /* `dir`, opened once (filled in by the writer) */
  const cs_host_info *host;
  /* The launcher's view of this process (cs_config), -1 when none says. */
  int global_rank;
  const char *global_rank_source;
  int local_rank;
  int world_size;
  const cs_clock_cal *cal;
  int mask;
  const char *mask_source;
  bool mode_trace;
  bool mode_metrics;
  uint64_t ring_bytes;
  uint16_t handle_tag;
  cs_tf_direct_mode direct_io; /* CCLSCOPE_DIRECT_IO */
  int zstd_level;              /* CCLSCOPE_COMPRESS=zstd[:level], 0 = plain */
  bool binary; /* CCLSCOPE_FORMAT=binary: the lines in a .cst container */
  double flush_interval_s; /* CCLSCOPE_FLUSH_INTERVAL */
} cs_trace_env;

/* Process-wide counters shown in finalize and end records. */
typedef struct {
  const cs_asm_counters *asm_counters;
  uint64_t dropped_starts;
  uint64_t dropped_states;
  uint64_t dropped_stops;
  uint64_t null_handles;
  uint64_t foreign_handles;
  uint64_t sampled_out;        /* left out by CCLSCOPE_SAMPLE* */
  uint64_t too_small;          /* left out by CCLSCOPE_MIN_BYTES */
  uint64_t ring_high_water;    /* units (CS_UNIT_BYTES each) */
  uint64_t ring_inline_allocs; /* first callbacks that found no spare ring */
  uint64_t threads;
} cs_trace_counters;

/* A context as the formatter reads it, by serial (0 = empty). */
typedef struct {
  uint32_t serial;
  cs_fmt_comm comm;
} cs_sink_comm;

typedef struct {
  cs_trace_file file;
  cs_trace_env env;
  uint64_t events_written;
  int64_t last_flush_ns; /* cs_clock_monotonic_ns of the last flush */
  /* The formatter; its default_abi is the newest context's (state names). */
  cs_fmt fmt;
  cs_sink_comm comms[CS_TRACE_CTX_CACHE]; /* sink_comm's answers */
  cs_clock_past_cache clock_past; /* the segment of the last older stamp */
  int64_t *state_ns;        /* an event's state stamps, converted (2 each) */
  uint32_t state_ns_cap;    /* ... states they have room for */
  cs_trace_compact compact; /* CCLSCOPE_FORMAT=binary: the record encoder */
} cs_trace_sink;

/* Open `<dir>/trace_<run>_<host>_pid<PID>.jsonl` and write the process
 * record. False when the file cannot be created (warned once). */
bool cs_trace_open(cs_trace_sink *t, const cs_trace_env *env);

void cs_trace_event(cs_trace_sink *t, const cs_event *e);
/* The derived `timing` record of a Coll/P2p/CeColl. */
void cs_trace_timing(cs_trace_sink *t, const cs_timing *r);
void cs_trace_late_state(cs_trace_sink *t, uint64_t id, const cs_state_rec *s,
                         int32_t tid, uint8_t etype, uint32_t ctx,
                         int32_t rank);
void cs_trace_thread(cs_trace_sink *t, int32_t tid, const char *name,
                     uint64_t raw_ts);
void cs_trace_ctx_init(cs_trace_sink *t, uint32_t serial);
void cs_trace_ctx_finalize(cs_trace_sink *t, uint32_t serial, uint64_t raw_ts,
                           int32_t tid, const cs_trace_counters *c);
void cs_trace_mark(cs_trace_sink *t, uint64_t raw_ts, int32_t tid,
                   const char *kind, const char *label, int64_t step);
/* The last line: why the file ends and every counter. */
void cs_trace_process_end(cs_trace_sink *t, const char *reason,
                          const cs_trace_counters *c);

/* ---- when the lines go to the file ----
 *
 * Lines collect in the file's buffer; the sink decides when they are
 * handed to the I/O thread. */

/* Write whole pages (all of it without direct I/O) to the I/O thread. */
void cs_trace_write_bulk(cs_trace_sink *t);

/* While the writer drains the rings, after each record: write whole pages
 * as soon as enough is buffered, so the buffer stays small. Inline
 * because it runs once per record. */
static inline void cs_trace_write_if_due(cs_trace_sink *t) {
  if (cs_tf_bulk_due(&t->file))
    cs_trace_write_bulk(t);
}

/* The writer's periodic call, `now_ns` from cs_clock_monotonic_ns: bring
 * the file up to date (without waiting for the disk) when `force_flush`,
 * or when lines have waited CCLSCOPE_FLUSH_INTERVAL since the last flush;
 * otherwise write whole pages if enough is buffered. */
void cs_trace_tick(cs_trace_sink *t, int64_t now_ns, bool force_flush);

/* Bring the file up to date and wait until it is in the file. */
void cs_trace_sync(cs_trace_sink *t);
/* The same when the application asks for it (cclscope_flush,
 * cclscope_dump): the flush interval starts again from now. */
void cs_trace_sync_requested(cs_trace_sink *t);
void cs_trace_close(cs_trace_sink *t);

/* The file's path, for messages. */
const char *cs_trace_path(const cs_trace_sink *t);

/* fork(): cs_trace_atfork_prepare and _parent around the fork in the
 * parent (the I/O thread's queue stays consistent); in the child
 * cs_trace_abandon forgets the parent's file without writing to it. */
void cs_trace_atfork_prepare(cs_trace_sink *t);
void cs_trace_atfork_parent(cs_trace_sink *t);
void cs_trace_abandon(cs_trace_sink *t);

#endif
