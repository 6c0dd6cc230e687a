/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/session.h — the plugin's lifecycle, shared by every ABI:
 *
 *   first init        -> a session starts: configuration, host facts, clock,
 *                        handle tag, writer thread, output file
 *   every init        -> a context (communicator) is registered; the
 *                        activation mask is written; never an error
 *   finalize          -> the context is tombstoned (still resolvable)
 *   last finalize     -> the session ends: writer joined, file closed, every
 *                        allocation freed (NCCL dlcloses us next)
 *   process exit      -> if a session is running: everything in flight is
 *                        written as "inflight", the file is closed
 *   fork()            -> the child drops the parent's pending records and
 *                        file, and starts its own session on its first event
 *
 * init/finalize take a mutex (never on the hot path).
 */
#ifndef CCLSCOPE_SESSION_H
#define CCLSCOPE_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "nccl/profiler_common.h"

typedef struct {
  int abi;            /* 1..7 */
  bool has_comm_info; /* v4+ */
  uint64_t comm_id;
  const char *comm_name; /* the user's pointer: copied */
  int nnodes;
  int nranks;
  int rank;
  int *mask; /* NCCL's process-global activation mask */
  ncclDebugLogger_t logger;
} cs_init_args;

/* Register a communicator; returns the context value for NCCL. Never fails:
 * a plugin that cannot record disables itself (mask 0) and says so once. */
void *cs_session_init(const cs_init_args *args);

/* Unregister a communicator (NULL, foreign and repeated values are ignored). */
void cs_session_finalize(void *context);

/* Is a session recording right now? (tests, control API) */
bool cs_session_active(void);

/* The trace file of the running session, "" if none (tests, messages). */
const char *cs_session_trace_path(void);

/* Control API (src/plugin/control.c; include/cclscope/control.h). */
typedef enum {
  CS_MARK_STEP = 0,
  CS_MARK_LABEL = 1,
  CS_MARK_PAUSE = 2,
  CS_MARK_RESUME = 3,
  CS_MARK_DUMP = 4
} cs_mark_kind;
/* Pause (NCCL's mask 0) or resume; remembered for the next session when
 * none runs (then -1 is returned). */
int cs_session_set_paused(bool paused);
bool cs_session_recording(void);
/* A mark in the trace and metrics; step < 0 = the previous step + 1. */
int cs_session_mark(cs_mark_kind kind, int64_t step, const char *label);
/* Flush the trace and write the in-flight snapshot; 0 when done. */
int cs_session_dump(int timeout_ms);

#endif
