/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge.h — bridges: NCCL's host-side events handed to another
 * tool while they happen, on the thread that issues them. This header is
 * what every bridge shares (the flag of active bridges, the per-thread
 * stack); each bridge declares its own functions in its own header:
 *
 *   bridge_nvtx.h/.c   CCLSCOPE_NVTX=1: NVTX ranges and marks in the domain
 *                      "cclscope" (Nsight Systems, Score-P, any NVTX tool)
 *   bridge_cupti.h/.c  CCLSCOPE_CUPTI=1: a CUPTI external correlation id
 *                      (= the trace id) around each KernelLaunch
 *   bridge_roctx.h/.c  CCLSCOPE_ROCTX=1 under RCCL: the NVTX bridge's
 *                      ranges and marks through ROCm's ROCTX (rocprofv3,
 *                      rocprof-sys), libroctx64 found with dlopen
 *
 * Hooks. Nothing new runs on the fast path while no bridge is active:
 *
 *   start  session.c sets the start policy (CS_QUIET_POLICY, mode.h) of
 *          the types a bridge handles, as sampling does for all types, so
 *          their starts take the adapter's slow twin, which calls
 *          cs_policy_admit (emit_slow.c) once the record is filled; when
 *          the event is kept, cs_policy_admit hands it to each active
 *          bridge that handles its type (cs_nvtx_start, cs_cupti_start,
 *          cs_roctx_start).
 *          Other types (the proxy's events) keep the fast path.
 *   stop   cs_emit_stop (emit.h) checks the flag cs_bridges; while it is
 *          set, a stop on a thread with something pushed takes
 *          cs_emit_stop_slow (emit_slow.c), which records the stop and
 *          then calls each active bridge's stop. Threads that pushed nothing
 *          (NCCL's proxy threads) keep the fast path.
 *   marks  cs_session_mark (session.c; cclscope_step, cclscope_mark)
 *          calls cs_nvtx_mark and cs_roctx_mark on the caller's thread.
 *
 * Threads. NVTX and ROCTX push/pop and CUPTI's external ids are
 * per-thread stacks, but NCCL stops events out of LIFO order (it starts
 * every Coll/P2p of a kernel plan before it stops any, nccl-behaviour
 * §6.6), and nothing guarantees that an event is stopped on the thread
 * that started it (host-side events are, in every sequence of §5/§8 —
 * graph replays run both on the CUDA callback thread — but the plugin
 * must not depend on it). So each bridge keeps, per thread, the handles
 * it pushed (cs_bridge_stack): a stop pops only what is on the calling
 * thread's stack, closing whatever lies above it first, and a thread that
 * pushed nothing never pops. A handle stopped on another thread stays open
 * until something below it on its own thread closes.
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
 * (NVTX domain, registered strings, categories; the CUPTI and ROCTX
 * libraries and their functions) is set up at session start, on the thread
 * calling init.
 */
#ifndef CCLSCOPE_BRIDGE_H
#define CCLSCOPE_BRIDGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Which bridges are active (bits below), 0 = none. Set at session start
 * before any event is recorded, cleared at session end (session.c). */
extern _Atomic uint32_t cs_bridges;
#define CS_BRIDGE_NVTX 1u
#define CS_BRIDGE_CUPTI 2u
#define CS_BRIDGE_ROCTX 4u

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
  cs_bridge_stack roctx;
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

#endif
