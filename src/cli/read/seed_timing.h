/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_timing.h — when the collectives of a minimal_profiler
 * file really ran: the `timing` records (docs/trace-format.md) that
 * cclscope's plugin would have written, derived by the conversion
 * (seed_format.c) from the best GPU-side evidence the file has.
 *
 * Per operation (Coll, P2p) the conversion hands over, as it streams the
 * file: the operation itself (st_op), its KernelCh children with their
 * pTimer stamps (st_channel), its ProxyOps (st_proxy_op); and the file's
 * CUPTI kernel records (st_kernel), tied to operations through the
 * KernelLaunch whose `extCorrId` they carry. At the end (st_finish) the
 * GPU stamps are put on the host clock (ptimer_fit.h, the CUPTI kernels
 * anchoring it) and one timing record per operation comes out (st_next),
 * in the operations' order, with its source:
 *
 *   gpu    first KernelCh start stamp -> last KernelCh stop stamp
 *   cupti  the CUPTI kernel span of its KernelLaunch (no KernelCh stamps)
 *   proxy  first ProxyOp start -> last ProxyOp stop (host clock)
 *   host   the operation's own enqueue span: no bandwidth from it
 *
 * Memory: about 200 bytes per operation until the end of the file (the
 * records are written after the last line, since a CUPTI record may come
 * any time after its kernel), 64 per CUPTI kernel.
 */
#ifndef CCLSCOPE_CLI_SEED_TIMING_H
#define CCLSCOPE_CLI_SEED_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "read/seed_text.h"

typedef struct seed_timing seed_timing;

/* What the operation's own record says. */
typedef struct {
  uint32_t ordinal; /* the operation's id - 1 */
  uint8_t type;     /* ET_COLL or ET_P2P */
  uint32_t ctx;
  uint64_t comm_id;
  int64_t rank;
  int32_t nranks; /* 0: unknown */
  bool has_seq;
  uint64_t seq;
  bool has_peer; /* P2p */
  int64_t peer;
  bool has_count;
  uint64_t count;     /* NCCL's count: elements of `datatype` */
  char func[32];      /* "" when absent */
  char algo[24];      /* Coll */
  char proto[16];     /* Coll */
  char datatype[32];  /* "" when absent */
  int64_t api_ts;     /* its CollApi/P2pApi's start, INT64_MIN none */
  int64_t enq_start;  /* its own start (ns) */
  int64_t enq_stop;   /* its own stop, INT64_MIN none */
  bool has_launch;    /* tied to a KernelLaunch with an extCorrId */
  int64_t launch_ext; /* that extCorrId */
  uint64_t line_no;   /* its line (the timing record's) */
} st_op_info;

/* A CUPTI kernel record (host clock). */
typedef struct {
  int64_t ext_corr; /* extCorrId: names the KernelLaunch */
  int64_t corr;     /* CUPTI's correlation id, -1 none */
  int64_t device;   /* deviceId, -1 none */
  char stream[24];  /* as written, "" none */
  int64_t start, stop;
} st_kernel_info;

seed_timing *st_new(void);
void st_free(seed_timing *t);

/* The operation's record. False when out of memory. */
bool st_op(seed_timing *t, const st_op_info *op);
/* A KernelCh of operation `op` (its id - 1) on GPU `gpu` (a key of the
 * GPU's identity): its start stamp, seen by the host at `start_seen`, and
 * when it had one its stop stamp, seen at `stop_seen`. */
void st_channel(seed_timing *t, uint32_t op, uint64_t gpu, int64_t start_seen,
                uint64_t pt_start, bool has_stop, int64_t stop_seen,
                uint64_t pt_stop);
/* A ProxyOp of operation `op` (stop INT64_MIN: it never stopped). */
void st_proxy_op(seed_timing *t, uint32_t op, int64_t start, int64_t stop);
/* A CUPTI kernel. */
void st_kernel(seed_timing *t, const st_kernel_info *k);

/* The file was read: tie, fit, sort. False when out of memory. */
bool st_finish(seed_timing *t);
/* The next timing record into `out` (its line number in *line_no); false
 * when there is none left. */
bool st_next(seed_timing *t, seed_text *out, uint64_t *line_no);

#endif
