/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/sampling.h — which operations are recorded when the user asks
 * for less than everything (docs/configuration.md, "Sampling"):
 *
 *   CCLSCOPE_SAMPLE=N        1 in N Coll and CeColl instances, chosen by
 *                            (communicator, function, seqNumber): every rank
 *                            keeps the same instances, so cross-rank
 *                            analysis still works on what was kept;
 *   CCLSCOPE_SAMPLE_P2P=N    1 in N P2p operations, chosen by
 *                            (communicator, sender, receiver, k) where k
 *                            counts the operations between that pair: the
 *                            k-th send and the matching k-th receive agree;
 *   CCLSCOPE_SAMPLE_STEPS=N  ProxySteps whose step number is a multiple of N;
 *   CCLSCOPE_MIN_BYTES=B     Coll/CeColl/P2p moving fewer bytes are left out.
 *
 * A left-out operation gets the sampled-out handle (src/plugin/hot/handle.h):
 * no record, and its children (KernelCh, ProxyOp, ProxyStep, NetPlugin) see
 * that parent and are left out before they read the clock. The decision
 * runs in the adapters' slow twin, which every start takes while a
 * selection is active (CS_QUIET_POLICY_ALL in src/plugin/hot/mode.h).
 */
#ifndef CCLSCOPE_SAMPLING_H
#define CCLSCOPE_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

typedef struct {
  uint32_t coll_every; /* 1 = all */
  uint32_t p2p_every;
  uint32_t step_every;
  uint64_t min_bytes; /* 0 = no minimum */
} cs_sampling_config;

/* Set at session start, before any event is recorded. */
void cs_sampling_configure(const cs_sampling_config *cfg);

/* Does the configuration leave anything out? */
bool cs_sampling_active(void);

struct cs_ring;

/* Decide for a filled START record (context serial in rec->h.aux):
 * true = record it; a left-out operation is counted in its thread's ring.
 * Called on NCCL's thread; no lock, no allocation. */
bool cs_sampling_keep(const cs_rec_start *rec, struct cs_ring *ring);

/* The documented choice functions (also used by tests): keep when
 * key % every == 0, with these keys. */
uint64_t cs_sampling_coll_key(uint64_t comm_id, const char *func, uint64_t seq);
uint64_t cs_sampling_p2p_key(uint64_t comm_id, int32_t sender, int32_t receiver,
                             uint64_t k);

/* Per-context point-to-point counters (sender x receiver direction per
 * peer), allocated at init when P2P sampling is on; freed at session end. */
void cs_sampling_context_added(uint32_t serial, int nranks);
void cs_sampling_forget_contexts(void);

#endif
