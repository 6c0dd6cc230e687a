/*
 * src/plugin/hot/emit_slow.c — the out-of-line halves of emit.h's start,
 * state and stop, taken when the inline fast path cannot finish: a
 * thread's first callback (no ring yet), a new session, a refill of ids,
 * NULL or foreign handles, a full ring (drop and count), and the start
 * policy (sampling, bridges). Still on NCCL's thread: no lock, no wait.
 */
#include "emit.h"
#include "sampling.h"

cs_rec_start *cs_start_slow_begin(void **eHandle, cs_etype et, cs_ring **ring) {
  cs_ring *r = cs_ring_for_thread();
  if (!r) {
    *eHandle = NULL; /* no session: nothing is recorded */
    return NULL;
  }
  /* A handle is always written: NCCL reuses unwritten slots. */
  unsigned units = cs_start_units_for[et];
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

bool cs_policy_admit(cs_rec_start *rec, cs_ring *r, void **eHandle) {
  if (!cs_sampling_keep(rec, r)) {
    *eHandle = cs_handle_sampled_out();
    return false;
  }
  if (atomic_load_explicit(&cs_bridges, memory_order_relaxed))
    cs_bridge_start(&r->bridge, rec, (uint64_t)(uintptr_t)*eHandle);
  return true;
}

void cs_emit_state_slow(void *eHandle, int state, const void *args) {
  cs_ring *r = cs_ring_for_thread();
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if (!r)
    return;
  if (v == 0) {
    cs_ring_count(&r->null_handles);
    return;
  }
  if (!cs_handle_is_our_event(v)) {
    cs_ring_count(&r->foreign_handles);
    return;
  }
  cs_unit *u = cs_ring_reserve(r, 1);
  if (!u) {
    cs_ring_count(&r->dropped_states);
    return;
  }
  cs_fill_state(u, v, state, cs_state_arg(state, args), cs_clock_now());
  cs_ring_commit(r, 1);
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
    cs_bridge_stop(&r->bridge, v);
  return ncclSuccess;
}
