/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/watchdog_verdict.h — what one process can say, on its
 * own, about why one of its operations hangs (the "verdict" of the live
 * warning and the snapshot's `localVerdict`).
 *
 * `cclscope hang` reads every rank's snapshot and decides across them; the
 * watchdog sees only this process. From that it can still tell:
 *   - another rank of the same communicator in this process never started
 *     the collective (its host thread stopped calling NCCL): never-called;
 *   - its proxy thread stopped: the GPU finished a channel (its KernelCh
 *     ended: every send produced, every receive taken), yet a head of that
 *     channel still waits on the GPU; a live proxy would have seen it;
 *   - the head of a pipeline (the lowest ProxyStep in flight per channel,
 *     direction and peer) waits on this GPU (data arrived and is not taken:
 *     RecvGPUWait, RecvFlushWait; or data not produced: SendGPUWait), on the
 *     network (SendWait), or on a peer (RecvWait, SendPeerWait).
 * A GPU that took none of the data that arrived (its head is step 0) is
 * itself stuck; one that took some steps first may be held up by a rank of
 * its node, whose transfers no profiler event shows.
 * Without ProxySteps nothing says what a transfer waits on: no verdict.
 */
#ifndef CCLSCOPE_WATCHDOG_VERDICT_H
#define CCLSCOPE_WATCHDOG_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "watchdog.h"

/* Strongest first: the first one found among the pipelines is the verdict. */
typedef enum {
  CS_WD_VERDICT_NONE = 0,
  CS_WD_VERDICT_NEVER_CALLED, /* a rank of this process never started it */
  CS_WD_VERDICT_PROXY,        /* its GPU finished a channel whose steps still
                                 wait on the GPU: the proxy stopped */
  CS_WD_VERDICT_GPU_TAKE,     /* its GPU took none of the data that arrived */
  CS_WD_VERDICT_NETWORK,      /* a send handed to the network never ends */
  CS_WD_VERDICT_PEER,         /* waits on one or more peers */
  CS_WD_VERDICT_GPU_HELD,     /* its GPU took some steps, then stopped taking:
                                 it, or a node-mate its kernel waits on */
  CS_WD_VERDICT_GPU_PRODUCE,  /* this GPU has not produced data to send */
} cs_wd_verdict_kind;

#define CS_WD_VERDICT_MAX_PEERS 4

typedef struct {
  cs_wd_verdict_kind kind;
  int32_t suspect;  /* the rank (of the communicator) it points at, -1 none */
  uint32_t channel; /* of the deciding pipeline, if any */
  int32_t step;     /* ... and its head's step */
  int32_t peers[CS_WD_VERDICT_MAX_PEERS]; /* PEER: the ranks waited on */
  size_t npeers;
  const char *state; /* the deciding NCCL state name, NULL for NEVER_CALLED */
} cs_wd_verdict;

/* The verdict on one operation of a picture (see watchdog.h). */
void cs_wd_verdict_of(const cs_wd_picture *pic, const cs_wd_root *root,
                      cs_wd_verdict *out);

/* Its hang class, as `cclscope hang` names classes: "never-called",
 * "proxy", "gpu", "network", "peer"; NULL for none. */
const char *cs_wd_verdict_class(const cs_wd_verdict *v);

/* One sentence for the warning and the snapshot ("waits on rank 5 (RecvWait
 * on channel 1): look at rank 5"); "" for none. */
void cs_wd_verdict_text(const cs_wd_verdict *v, char *out, size_t outlen);

#endif
