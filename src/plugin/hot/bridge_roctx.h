/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_roctx.h — the ROCTX bridge (bridge_roctx.c;
 * CCLSCOPE_ROCTX=1 under RCCL, CCLSCOPE_ROCTX=force on any host): the
 * ranges and marks of the NVTX bridge, named the same, through ROCm's
 * ROCTX for rocprofv3, rocprof-sys and other ROCm tools. The rules every
 * bridge follows are in bridge.h.
 */
#ifndef CCLSCOPE_BRIDGE_ROCTX_H
#define CCLSCOPE_BRIDGE_ROCTX_H

#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "bridge_nvtx.h"
#include "record.h"

/* Event types this bridge handles: the same as the NVTX bridge's. */
#define CS_BRIDGE_ROCTX_TYPES CS_BRIDGE_NVTX_TYPES

/* Session start, on the init thread, when CCLSCOPE_ROCTX asks for the
 * bridge (`forced`: CCLSCOPE_ROCTX=force, whatever the host; else only
 * when `host_is_rccl`; `host_name` is for the message): find ROCTX
 * (dlopen) and its three functions. False, with nothing loaded, when the
 * bridge stays off: CCLSCOPE_ROCTX=1 on a host that is not RCCL (one line
 * per process: info on NVIDIA's NCCL, a warning on an unknown host), or no
 * usable ROCTX library (one warning per process). */
bool cs_roctx_session_begin(bool forced, bool host_is_rccl,
                            const char *host_name);
/* The event is kept and its record filled: push its range. `t` is the
 * calling thread's state. */
void cs_roctx_start(cs_bridge_thread *t, const cs_rec_start *rec,
                    uint64_t handle);
/* Pop `handle`'s range if this thread pushed it (and anything above). */
void cs_roctx_stop(cs_bridge_thread *t, uint64_t handle);
/* A step mark (step >= 0) or a named mark (label), on the caller's thread
 * (the application's, through the control API: never one of NCCL's). */
void cs_roctx_mark(int64_t step, const char *label);
/* Session end: one line if ranges were skipped (full stack) or ROCTX
 * refused a push or a pop. */
void cs_roctx_session_end(void);

#endif
