/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/emit_slow.c — the out-of-line halves of emit.h's start,
 * state and stop, taken when the inline fast path cannot finish: a
 * thread's first callback (no ring yet), a new session, a refill of ids,
 * NULL or foreign handles, a full ring (drop and count), and the start
 * policy (sampling, bridges). Still on NCCL's thread: no lock, no wait.
 */
#include "bridge_cupti.h"
#include "bridge_nvtx.h"
#include "bridge_roctx.h"
#include "emit.h"
#include "sampling.h"

cs_rec_start *cs_start_slow_begin(void **eHandle, cs_etype et, cs_ring **ring) {
  return cs_start_slow_begin_units(eHandle, et, cs_start_units_for[et], ring);
}

cs_rec_start *cs_start_slow_begin_units(void **eHandle, cs_etype et,
                                        unsigned units, cs_ring **ring) {
  cs_ring *r = cs_ring_for_thread();
  if (!r) {
    *eHandle = NULL; /* no session: nothing is recorded */
    return NULL;
  }
  /* A handle is always written: NCCL reuses unwritten slots. */
  cs_unit *u = cs_ring_reserve(r, units);
  if (!u) {
    *eHandle = cs_handle_dropped();
    cs_ring_count(&r->dropped_starts);
    return NULL;
  }
  uint64_t id = cs_ring_next_id(r);
  *eHandle = cs_handle_from_id(id);
  cs_rec_start *rec = (cs_rec_start *)u;
  cs_start_head(rec, et, units, id, cs_clock_now());
  *ring = r;
  return rec;
}

/* ---- bridges (bridge.h): called while cs_bridges != 0, with the
 * calling thread's state in its ring ---- */

static void bridges_start(cs_bridge_thread *t, const cs_rec_start *rec,
                          uint64_t handle) {
  uint32_t b = atomic_load_explicit(&cs_bridges, memory_order_acquire);
  uint32_t bit = 1u << rec->h.etype;
  if ((b & CS_BRIDGE_NVTX) && (bit & CS_BRIDGE_NVTX_TYPES))
    cs_nvtx_start(t, rec, handle);
  if ((b & CS_BRIDGE_CUPTI) && (bit & CS_BRIDGE_CUPTI_TYPES))
    cs_cupti_start(t, handle);
  if ((b & CS_BRIDGE_ROCTX) && (bit & CS_BRIDGE_ROCTX_TYPES))
    cs_roctx_start(t, rec, handle);
}

static void bridges_stop(cs_bridge_thread *t, uint64_t handle) {
  uint32_t b = atomic_load_explicit(&cs_bridges, memory_order_acquire);
  if (b & CS_BRIDGE_CUPTI)
    cs_cupti_stop(t, handle);
  if (b & CS_BRIDGE_NVTX)
    cs_nvtx_stop(t, handle);
  if (b & CS_BRIDGE_ROCTX)
    cs_roctx_stop(t, handle);
}

bool cs_policy_admit(cs_rec_start *rec, cs_ring *r, void **eHandle) {
  if (!cs_sampling_keep(rec, r)) {
    *eHandle = cs_handle_sampled_out();
    return false;
  }
  if (atomic_load_explicit(&cs_bridges, memory_order_relaxed))
    bridges_start(&r->bridge, rec, (uint64_t)(uintptr_t)*eHandle);
  return true;
}

cs_unit *cs_state_unit_reserve(cs_ring *r, uint64_t v, unsigned units) {
  if (v == 0) {
    cs_ring_count(&r->null_handles);
    return NULL;
  }
  if (!cs_handle_is_our_event(v)) {
    cs_ring_count(&r->foreign_handles);
    return NULL;
  }
  cs_unit *u = cs_ring_reserve(r, units);
  if (!u)
    cs_ring_count(&r->dropped_states);
  return u;
}

void cs_emit_state_slow(void *eHandle, int state, const void *args) {
  cs_ring *r = cs_ring_for_thread();
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if (!r)
    return;
  cs_unit *u = cs_state_unit_reserve(r, v, CS_STATE_UNITS);
  if (!u)
    return;
  cs_fill_state(u, v, state, cs_state_arg(state, args), cs_clock_now());
  cs_ring_commit(r, CS_STATE_UNITS);
}

/* Records the stop; true when `v` is one of our events (then the bridges
 * may have pushed something for it). */
static bool record_stop_slow(cs_ring *r, uint64_t v) {
  if (v == 0) {
    cs_ring_count(&r->null_handles); /* NetPlugin completions: §3.2 */
    return false;
  }
  if (!cs_handle_is_our_event(v)) {
    cs_ring_count(&r->foreign_handles);
    return false;
  }
  cs_unit *u = cs_ring_reserve(r, 1);
  if (!u) {
    cs_ring_count(&r->dropped_stops);
    return true;
  }
  cs_fill_stop(u, v, cs_clock_now());
  cs_ring_commit(r, 1);
  return true;
}

ncclResult_t cs_emit_stop_slow(void *eHandle) {
  cs_ring *r = cs_ring_for_thread();
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if (!r)
    return ncclSuccess;
  /* Bridges after the stop is recorded (also when its record was
   * dropped: the range was pushed all the same). */
  if (record_stop_slow(r, v) &&
      CS_UNLIKELY(atomic_load_explicit(&cs_bridges, memory_order_relaxed)))
    bridges_stop(&r->bridge, v);
  return ncclSuccess;
}
