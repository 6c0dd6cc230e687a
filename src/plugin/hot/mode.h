/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/mode.h — what the session publishes for NCCL's threads to
 * read on every callback: which event types and states the current mode
 * leaves out, which types take a start policy, this process's pid, and
 * whether v7 descriptors may be read up to userTag. session.c writes them
 * (at session start, and the pid again in a fork child); the hot path only
 * loads them, so it needs none of the lifecycle (session.h) to do so.
 */
#ifndef CCLSCOPE_MODE_H
#define CCLSCOPE_MODE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "event_types.h"

/* What the current mode leaves out: an event type whose bit (0..16) is
 * set gets the quiet handle and is not recorded; a state whose bit is set
 * is not recorded. Neither reads the clock. */
extern _Atomic uint64_t cs_quiet_types;
extern _Atomic uint64_t cs_quiet_states;

/* Bits 32..48 of cs_quiet_types: a start policy applies to that event
 * type: its starts take the adapter's slow twin, which applies it. Sampling
 * and the size filter set every type (children of left-out events are
 * left out too); a bridge sets the types it handles (bridge.h). */
#define CS_QUIET_POLICY_SHIFT 32
#define CS_QUIET_POLICY(types) ((uint64_t)(types) << CS_QUIET_POLICY_SHIFT)
#define CS_QUIET_POLICY_ALL CS_QUIET_POLICY((UINT32_C(1) << CS_EV_COUNT) - 1)

/* This process's pid (updated in a fork child): a ProxyOp from another
 * pid is a PXN operation. */
extern _Atomic pid_t cs_session_pid;

/* Whether v7 descriptors may be read up to `userTag` (host NCCL >= 2.31). */
extern _Atomic bool cs_session_user_tag_ok;

/* Whether the host library is RCCL: its v6 descriptor and state args (and
 * from 2.31 its v7 ones) carry more (include/nccl/profiler_rccl_v6.h,
 * profiler_rccl_v7.h), and before 2.31 bit 15 / state 31 mean ProxyDiag,
 * not KernelPhase; from 2.31 ProxyDiag is bit 16 / state 32
 * (docs/nccl-behaviour.md §12). */
extern _Atomic bool cs_session_host_rccl;

#endif
