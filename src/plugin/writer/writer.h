/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/writer.h — the background writer thread: the only consumer
 * of the per-thread rings, and the only place where records are assembled,
 * formatted and written. NCCL's threads never wait for it.
 *
 * One writer per process and session. Lifecycle messages (a context began or
 * ended, a user mark, a flush request) reach it through a small locked queue
 * (cold path only).
 */
#ifndef CCLSCOPE_WRITER_H
#define CCLSCOPE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "trace_jsonl.h"

typedef struct {
  cs_trace_env env; /* env.cal is filled in by the writer */
  cs_clock_kind clock;
  unsigned max_live_events;
  double reclaim_timeout_s;
  double timing_timeout_s;
  /* Metrics (docs/metrics.md). Aggregated in every mode (for the summary);
   * exported only when env.mode_metrics. */
  double metrics_window_s;
  unsigned metrics_max_series;
  unsigned metrics_window_events; /* a window also closes after these, 0 */
  bool prom_keep;                 /* leave the textfile at exit */
  const char *prom_file; /* "" = default: a file in env.dir, metrics mode */
  const char *prom_addr;
  int prom_port;            /* 0 = no HTTP endpoint */
  int local_rank;           /* -1 = unknown: the HTTP port is searched for */
  bool metrics_global_rank; /* label metrics with env.global_rank */
  long otlp_timeout_ms;     /* each OTLP push */
  double exit_deadline_s;   /* the longest the stop waits for network peers */
  const char *summary;      /* off | log | stderr */
  double hang_timeout_s;    /* 0 = no hang watchdog */
} cs_writer_opts;

typedef enum {
  CS_CTL_CTX_INIT,
  CS_CTL_CTX_FINALIZE,
  CS_CTL_MARK,
  CS_CTL_FLUSH,
  CS_CTL_DUMP
} cs_ctl_kind;

typedef struct {
  cs_ctl_kind kind;
  int mark; /* CS_CTL_MARK: cs_mark_kind (src/plugin/session.h) */
  uint32_t serial;
  int32_t tid;
  uint64_t raw_ts;
  int64_t step;
  char label[64];
} cs_ctl_msg;

/* Start the thread (opens the trace file when env.mode_trace). False if the
 * thread could not be created. */
bool cs_writer_start(const cs_writer_opts *opts);

/* Queue a lifecycle message. Never blocks for long (a mutex, no I/O). */
void cs_writer_post(const cs_ctl_msg *msg);

/* Stop: drain everything, end what is in flight, write the process end
 * record, close the file, join the thread. `at_exit`: events still open are
 * written as "inflight" (the process is exiting); otherwise as reclaimed
 * (the last finalize: NCCL will never stop them). */
void cs_writer_stop(bool at_exit);

bool cs_writer_running(void);

/* Flush the trace and write the in-flight snapshot, waiting at most
 * `timeout_ms` for the writer to do it. False on timeout. */
bool cs_writer_dump(int timeout_ms);

/* Path of the trace file being written ("" if none). */
const char *cs_writer_trace_path(void);

/* fork() support (see src/plugin/session.c). */
void cs_writer_atfork_prepare(void);
void cs_writer_atfork_parent(void);
void cs_writer_atfork_child(void);

#endif
