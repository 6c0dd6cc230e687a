/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_nvtx.h — the NVTX bridge (bridge_nvtx.c;
 * CCLSCOPE_NVTX=1): NVTX ranges and marks in the domain "cclscope". The
 * rules every bridge follows are in bridge.h.
 */
#ifndef CCLSCOPE_BRIDGE_NVTX_H
#define CCLSCOPE_BRIDGE_NVTX_H

#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "event_types.h"
#include "record.h"

/* Event types this bridge handles: the host-side events (§5, §6), all
 * started and normally stopped on the thread that issues the operation. */
#define CS_BRIDGE_NVTX_TYPES                                                   \
  ((1u << CS_EV_GROUP_API) | (1u << CS_EV_COLL_API) | (1u << CS_EV_P2P_API) |  \
   (1u << CS_EV_KERNEL_LAUNCH) | (1u << CS_EV_GROUP) | (1u << CS_EV_COLL) |    \
   (1u << CS_EV_P2P) | (1u << CS_EV_CE_COLL))

/* Session start, on the init thread: create the domain, register strings
 * and categories (NVTX loads the tool here, if one is attached). False
 * (with one warning) when this build has no NVTX headers. */
bool cs_nvtx_session_begin(void);
/* The event is kept and its record filled: push its range. `t` is the
 * calling thread's state. */
void cs_nvtx_start(cs_bridge_thread *t, const cs_rec_start *rec,
                   uint64_t handle);
/* Pop `handle`'s range if this thread pushed it (and anything above). */
void cs_nvtx_stop(cs_bridge_thread *t, uint64_t handle);
/* A step mark (step >= 0) or a named mark (label), on the caller's thread. */
void cs_nvtx_mark(int64_t step, const char *label);
/* Session end: one line if ranges were skipped (full stack). */
void cs_nvtx_session_end(void);

#endif
