/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/check/timing_check.h — what `cclscope check` verifies in timing
 * records (docs/trace-format.md): in format version 2, the integer-ns
 * times (durationNs = stopNs - startNs), no version 1 time key, and the
 * identity every timing record repeats (runId, globalRank, hostname, pid
 * as the process record says; device and commName as its communicator's
 * ProfilerInit says); in version 1, start, stop and duration = stop -
 * start. Owns the facts of one file that those checks compare against.
 */
#ifndef CCLSCOPE_CLI_TIMING_CHECK_H
#define CCLSCOPE_CLI_TIMING_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/trace_record.h"
#include "util/pair_map.h"

/* A communicator as its ProfilerInit describes it. */
typedef struct {
  bool device_known; /* "device" is a number (else null) */
  int64_t device;
  char name[256]; /* "commName", "" when null */
} timing_comm;

/* What one file's process and lifecycle records say. */
typedef struct {
  bool has_process;
  int64_t format_version; /* 1 when the process record says none */
  char run_id[256];
  char hostname[256];
  int64_t pid;
  bool global_rank_known; /* "globalRank" is a number (else null) */
  int64_t global_rank;
  pair_map comm_of; /* ctx -> index + 1 in comms */
  timing_comm *comms;
  size_t ncomms, cap_comms;
} timing_facts;

/* Kinds of problem, mapped to check's finding codes by the caller. */
typedef enum {
  TIMING_MISSING_KEY, /* a key is missing, of the wrong type or version */
  TIMING_DURATION,    /* the duration is not stop - start */
  TIMING_IDENTITY     /* the identity differs from the process/lifecycle */
} timing_problem;

typedef void (*timing_report_fn)(void *arg, timing_problem kind,
                                 const char *message);

void timing_facts_init(timing_facts *t);
void timing_facts_free(timing_facts *t);
/* Learn from the file's process record and from each ProfilerInit. */
void timing_facts_process(timing_facts *t, const rec *r);
void timing_facts_init_record(timing_facts *t, const rec *r);

/* Check one RT_TIMING record; `sub` is scratch for nested objects. Each
 * problem is handed to `report` (with `arg`). */
void timing_check(const timing_facts *t, const rec *r, js_fields *sub,
                  timing_report_fn report, void *arg);

#endif
