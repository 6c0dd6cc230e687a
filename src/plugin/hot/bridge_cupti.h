/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_cupti.h — the CUPTI bridge (bridge_cupti.c;
 * CCLSCOPE_CUPTI=1): a CUPTI external correlation id (= the trace id)
 * around each KernelLaunch. The rules every bridge follows are in
 * bridge.h.
 */
#ifndef CCLSCOPE_BRIDGE_CUPTI_H
#define CCLSCOPE_BRIDGE_CUPTI_H

#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "event_types.h"

/* Event types this bridge handles. */
#define CS_BRIDGE_CUPTI_TYPES (1u << CS_EV_KERNEL_LAUNCH)

/* Session start: find libcupti (dlopen) and its two functions. False (with
 * one info line) when there is none. */
bool cs_cupti_session_begin(void);
/* KernelLaunch start: push the external id = the event's trace id. */
void cs_cupti_start(cs_bridge_thread *t, uint64_t handle);
/* KernelLaunch stop: pop it, if this thread pushed it. */
void cs_cupti_stop(cs_bridge_thread *t, uint64_t handle);
/* Session end: one summary line if any CUPTI call failed. */
void cs_cupti_session_end(void);

#endif
