/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/handle.h — what cclscope hands to NCCL as event handles and
 * contexts, and how values coming back from NCCL are recognised.
 *
 *   bits 63..48  process tag (random, non-zero, new for every session)
 *   bit  47      0 = event handle, 1 = context handle
 *   bit  46      "quiet": an event not recorded; its stop and states
 *                cost nothing. Three quiet handles exist: id 0 = a type
 *                the current mode does not need (its children are still
 *                recorded, parentless), id 1 = sampled out (its children
 *                are left out too, src/plugin/hot/sampling.h), id 2 = dropped
 *                because its thread's ring was full (its children are
 *                recorded and say that their parent was dropped)
 *   bits 45..0   event id (never reused) or context serial
 *
 * A handle is a number, never a pointer: nothing is dereferenced to validate
 * it, a stale or double-stopped handle still names exactly the event it was
 * issued for, and a value from another process (PXN) or another session
 * carries another tag. Ids are unique for 2^46 events per session.
 */
#ifndef CCLSCOPE_HANDLE_H
#define CCLSCOPE_HANDLE_H

#include <stdint.h>

#define CS_ID_BITS 47 /* bits below the context bit */
#define CS_ID_MASK ((UINT64_C(1) << 46) - 1)
#define CS_HANDLE_CTX_BIT (UINT64_C(1) << 47)
#define CS_HANDLE_QUIET_BIT (UINT64_C(1) << 46)

/* (tag << 1) for events, (tag << 1 | 1) for contexts: compared with v >> 47. */
extern uint64_t cs_handle_event_prefix;
extern uint64_t cs_handle_ctx_prefix;
extern uint16_t cs_handle_tag;

/* Pick a new tag (called when a session starts). Never 0. */
void cs_handle_new_tag(void);

static inline void *cs_handle_from_id(uint64_t id) {
  return (void *)(uintptr_t)((cs_handle_event_prefix << CS_ID_BITS) | id);
}

static inline int cs_handle_is_our_event(uint64_t v) {
  return (v >> CS_ID_BITS) == cs_handle_event_prefix;
}

/* The handle of events of a type the current mode does not record. */
static inline void *cs_handle_quiet(void) {
  return (void *)(uintptr_t)((cs_handle_event_prefix << CS_ID_BITS) |
                             CS_HANDLE_QUIET_BIT);
}

/* The handle of sampled-out events: their whole subtree is left out. */
static inline void *cs_handle_sampled_out(void) {
  return (void *)(uintptr_t)((cs_handle_event_prefix << CS_ID_BITS) |
                             CS_HANDLE_QUIET_BIT | 1u);
}

/* The handle of an event whose start record did not fit in its ring. */
static inline void *cs_handle_dropped(void) {
  return (void *)(uintptr_t)((cs_handle_event_prefix << CS_ID_BITS) |
                             CS_HANDLE_QUIET_BIT | 2u);
}

/* Any quiet handle (one compare: ids 0..3 differ only in bits 0 and 1;
 * id 3 is never issued). */
static inline int cs_handle_is_quiet(uint64_t v) {
  return (v | 3u) ==
         ((cs_handle_event_prefix << CS_ID_BITS) | CS_HANDLE_QUIET_BIT | 3u);
}

/* A quiet handle that stands for a dropped event (id 2). */
static inline int cs_handle_quiet_is_dropped(uint64_t quiet_v) {
  return (quiet_v & 3u) == 2u;
}

/* A sampled-out handle of any cclscope process: a PXN ProxyOp whose Coll
 * another process sampled out carries that process's value. No pointer
 * has bits 63..48 set together with bit 46 and the value 1 below it. */
static inline int cs_handle_is_any_sampled_out(uint64_t v) {
  return (v >> 48) != 0 && (v & (CS_HANDLE_CTX_BIT | CS_HANDLE_QUIET_BIT |
                                 CS_ID_MASK)) == (CS_HANDLE_QUIET_BIT | 1u);
}

/* A dropped handle of any cclscope process (a PXN ProxyOp whose Coll
 * another process dropped): the same reasoning as above, value 2. */
static inline int cs_handle_is_any_dropped(uint64_t v) {
  return (v >> 48) != 0 && (v & (CS_HANDLE_CTX_BIT | CS_HANDLE_QUIET_BIT |
                                 CS_ID_MASK)) == (CS_HANDLE_QUIET_BIT | 2u);
}

static inline void *cs_handle_from_ctx_serial(uint32_t serial) {
  return (void *)(uintptr_t)((cs_handle_ctx_prefix << CS_ID_BITS) | serial);
}

static inline int cs_handle_is_our_ctx(uint64_t v) {
  return (v >> CS_ID_BITS) == cs_handle_ctx_prefix;
}

#endif
