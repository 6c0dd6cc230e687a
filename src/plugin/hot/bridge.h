/*
 * src/plugin/hot/bridge.h — bridges: NCCL's host-side events handed to another
 * tool while they happen, on the thread that issues them.
 *
 *   bridge_nvtx.c   CCLSCOPE_NVTX=1: NVTX ranges and marks in the domain
 *                   "cclscope" (Nsight Systems, Score-P, any NVTX tool)
 *   bridge_cupti.c  CCLSCOPE_CUPTI=1: a CUPTI external correlation id
 *                   (= the trace id) around each KernelLaunch
 *
 * Hooks. Nothing new runs on the fast path while no bridge is active:
 *
 *   start  session.c sets the start policy (CS_QUIET_POLICY, mode.h) of
 *          the types a bridge handles, as sampling does for all types, so
 *          their starts take the adapter's slow twin, which calls
 *          cs_policy_admit (emit_slow.c) once the record is filled; when
 *          the event is kept, cs_policy_admit calls cs_bridge_start below.
 *          Other types (the proxy's events) keep the fast path.
 *   stop   cs_emit_stop (emit.h) checks the flag cs_bridges; while it is
 *          set, a stop on a thread with something pushed takes
 *          cs_emit_stop_slow (emit_slow.c), which records the stop and
 *          then calls cs_bridge_stop below. Threads that pushed nothing
 *          (NCCL's proxy threads) keep the fast path.
 *   marks  cs_session_mark (session.c; cclscope_step, cclscope_mark)
 *          calls cs_nvtx_mark on the caller's thread.
 *
 * Threads. NVTX push/pop and CUPTI's external ids are per-thread stacks,
 * but NCCL stops events out of LIFO order (it starts every Coll/P2p of a
 * kernel plan before it stops any, nccl-behaviour §6.6), and nothing
 * guarantees that an event is stopped on the thread that started it
 * (host-side events are, in every sequence of §5/§8 — graph replays run
 * both on the CUDA callback thread — but the plugin must not depend on
 * it). So each bridge keeps, per thread, the handles it pushed
 * (cs_bridge_stack): a stop pops only what is on the calling thread's
 * stack, closing whatever lies above it first, and a thread that pushed
 * nothing never pops. A handle stopped on another thread stays open until
 * something below it on its own thread closes.
 *
 * Where that per-thread state lives: in the thread's ring (ring.h), which
 * every thread already has, not in thread-local storage. The plugin's
 * own TLS must stay tiny: glibc gives a dlopen'ed library fast (static)
 * TLS only while its TLS fits in a small reserve (512 bytes by default);
 * past that, every callback's TLS access takes a slower call — measured:
 * +3 ns per callback with the bridges off (docs/benchmarks.md).
 *
 * Rules on NCCL's threads (invariant 3, docs/invariants.md): no lock, no
 * allocation, no system call, no formatting. Everything a bridge needs
 * (NVTX domain, registered strings, categories; the CUPTI library and its
 * functions) is set up at session start, on the thread calling init.
 */
#ifndef CCLSCOPE_BRIDGE_H
#define CCLSCOPE_BRIDGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "event_types.h"
#include "handle.h"
#include "record.h"

/* Which bridges are active (bits below), 0 = none. Set at session start
 * before any event is recorded, cleared at session end (session.c). */
extern _Atomic uint32_t cs_bridges;
#define CS_BRIDGE_NVTX 1u
#define CS_BRIDGE_CUPTI 2u

/* Event types each bridge handles: the host-side events (§5, §6), all
 * started and normally stopped on the thread that issues the operation. */
#define CS_BRIDGE_NVTX_TYPES                                                   \
  ((1u << CS_EV_GROUP_API) | (1u << CS_EV_COLL_API) | (1u << CS_EV_P2P_API) |  \
   (1u << CS_EV_KERNEL_LAUNCH) | (1u << CS_EV_GROUP) | (1u << CS_EV_COLL) |    \
   (1u << CS_EV_P2P) | (1u << CS_EV_CE_COLL))
#define CS_BRIDGE_CUPTI_TYPES (1u << CS_EV_KERNEL_LAUNCH)

/* ---- per-thread stack of pushed handles ---- */

/* NCCL nests GroupApi > Group > Coll/P2p, but starts every Coll/P2p of a
 * kernel plan before it stops any (§6.6): an AlltoAll on N ranks stacks
 * 2N P2p. Beyond this depth a range is skipped and counted. */
#define CS_BRIDGE_DEPTH 128

typedef struct {
  uint32_t depth;
  uint64_t handle[CS_BRIDGE_DEPTH];
} cs_bridge_stack;

/* NVTX: which registered string a function-name pointer stands for (NCCL
 * passes the same static strings every time). */
#define CS_BRIDGE_NAME_SLOTS 8
typedef struct {
  const char *name;
  void *handle; /* nvtxStringHandle_t; NULL: pass the text */
} cs_bridge_name;

/* A thread's bridge state (a member of its ring, producer side). */
typedef struct {
  cs_bridge_stack nvtx;
  cs_bridge_stack cupti;
  cs_bridge_name names[CS_BRIDGE_NAME_SLOTS];
} cs_bridge_thread;

/* Push `h`; false when full (the caller then pushes nothing). */
static inline bool cs_bridge_stack_push(cs_bridge_stack *s, uint64_t h) {
  if (s->depth == CS_BRIDGE_DEPTH)
    return false;
  s->handle[s->depth++] = h;
  return true;
}

/* How many entries to pop so that `h` is gone: 0 if `h` is not on this
 * thread's stack, else 1 + the number of entries above it. */
static inline uint32_t cs_bridge_stack_unwind(cs_bridge_stack *s, uint64_t h) {
  for (uint32_t i = s->depth; i-- > 0;) {
    if (s->handle[i] == h) {
      uint32_t n = s->depth - i;
      s->depth = i;
      return n;
    }
  }
  return 0;
}

/* ---- NVTX (bridge_nvtx.c) ---- */

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

/* ---- CUPTI external correlation (bridge_cupti.c) ---- */

/* Session start: find libcupti (dlopen) and its two functions. False (with
 * one info line) when there is none. */
bool cs_cupti_session_begin(void);
/* KernelLaunch start: push the external id = the event's trace id. */
void cs_cupti_start(cs_bridge_thread *t, uint64_t handle);
/* KernelLaunch stop: pop it, if this thread pushed it. */
void cs_cupti_stop(cs_bridge_thread *t, uint64_t handle);
/* Session end: one summary line if any CUPTI call failed. */
void cs_cupti_session_end(void);

/* ---- dispatch (emit_slow.c calls these while cs_bridges != 0, with
 * the calling thread's ring's state) ---- */

static inline void cs_bridge_start(cs_bridge_thread *t, const cs_rec_start *rec,
                                   uint64_t handle) {
  uint32_t b = atomic_load_explicit(&cs_bridges, memory_order_acquire);
  uint32_t bit = 1u << rec->h.etype;
  if ((b & CS_BRIDGE_NVTX) && (bit & CS_BRIDGE_NVTX_TYPES))
    cs_nvtx_start(t, rec, handle);
  if ((b & CS_BRIDGE_CUPTI) && (bit & CS_BRIDGE_CUPTI_TYPES))
    cs_cupti_start(t, handle);
}

static inline void cs_bridge_stop(cs_bridge_thread *t, uint64_t handle) {
  uint32_t b = atomic_load_explicit(&cs_bridges, memory_order_acquire);
  if (b & CS_BRIDGE_CUPTI)
    cs_cupti_stop(t, handle);
  if (b & CS_BRIDGE_NVTX)
    cs_nvtx_stop(t, handle);
}

#endif
