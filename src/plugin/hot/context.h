/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/context.h — the table of communicator contexts.
 *
 * NCCL gets a context handle (src/plugin/hot/handle.h) from init, never a
 * pointer. A context stays resolvable after its finalize (tombstoned) until
 * the session ends, because a shared proxy thread keeps emitting ProxyCtrl
 * events with a finalized communicator's context. Entries are written only
 * under the session lock and are immutable once `serial` is published; the
 * hot path and the writer only read them.
 */
#ifndef CCLSCOPE_CONTEXT_H
#define CCLSCOPE_CONTEXT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handle.h"

#define CS_MAX_CONTEXTS 4096 /* power of two */

typedef enum {
  CS_CTX_FREE = 0,
  CS_CTX_ACTIVE = 1,
  CS_CTX_FINALIZED = 2
} cs_ctx_state;

typedef struct {
  _Atomic uint32_t serial; /* 0 = free; published last (release) */
  _Atomic int state;       /* cs_ctx_state */
  int abi;                 /* profiler ABI version NCCL chose (1..7) */
  bool has_comm_info;      /* v4+: NCCL passed commId, ranks, name */
  uint64_t comm_id;
  int nranks;
  int nnodes;
  int rank;
  int mask; /* mask written at init */
  char comm_name[128];
  char gpu_uuid[48];
  int device; /* CUDA/HIP device ordinal of the initialising thread, -1 */
  uint64_t init_raw_ts;
  int32_t init_tid;
  bool inherited; /* a fork child's copy of a parent's context */
} cs_context;

extern cs_context cs_contexts[CS_MAX_CONTEXTS];

/* The serial named by a context value from NCCL, or 0 when the value is not
 * one of ours (foreign, stale, garbage). Never dereferences the value. */
static inline uint32_t cs_ctx_serial_of(void *context) {
  uint64_t v = (uint64_t)(uintptr_t)context;
  if (!cs_handle_is_our_ctx(v))
    return 0;
  uint32_t serial = (uint32_t)(v & 0xFFFFFFFFu);
  if (atomic_load_explicit(&cs_contexts[serial & (CS_MAX_CONTEXTS - 1)].serial,
                           memory_order_acquire) != serial)
    return 0;
  return serial;
}

/* The entry for a valid serial, else NULL. Inline: the writer asks for
 * it several times per event (owner, rank, the trace's comm fields). */
static inline cs_context *cs_ctx_get(uint32_t serial) {
  if (serial == 0)
    return NULL;
  cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
  return atomic_load_explicit(&c->serial, memory_order_acquire) == serial
             ? c
             : NULL;
}

/* Reserve an entry (session lock held). Fills nothing but `serial` state;
 * the caller fills the fields, then calls cs_ctx_publish. 0 when full. */
uint32_t cs_ctx_reserve(void);
void cs_ctx_publish(uint32_t serial);

/* Forget every context (session end). */
void cs_ctx_clear_all(void);

#endif
