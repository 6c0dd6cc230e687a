/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/abi_rccl.c — RCCL's extensions of v6 (and, from RCCL 2.31,
 * of v7), on NCCL's (RCCL's) threads: the ProxyOp start that copies RCCL's
 * eight extra proxyOp fields into a 2-unit record, and ProxyDiagUpdate
 * (state 31; 32 from RCCL 2.31) with its 24-byte proxyDiag args. Both take the
 * slow half's path (emit_slow.c): they are RCCL-only, and the NVIDIA fast path
 * stays as it is.
 */
#include "abi_rccl.h"

/* Both halves of RCCL's ProxyOp START record. */
static void fill_rccl_proxy_op(cs_rec_start *rec, void *context,
                               const rcclProfilerEventDescr_v6_t *d) {
  cs_start_common(rec, context, d->parentObj, d->rank, CS_EV_PROXY_OP,
                  d->proxyOp.pid);
  cs_p_proxy_op *p = &rec->p.proxy_op;
  p->pid = d->proxyOp.pid;
  p->channel_id = d->proxyOp.channelId;
  p->peer = d->proxyOp.peer;
  p->n_steps = d->proxyOp.nSteps;
  p->chunk_size = d->proxyOp.chunkSize;
  p->is_send = d->proxyOp.isSend;
  p->has_rccl = 1;
  p->rccl.comm_hash = d->proxyOp.commHash;
  p->rccl.op_count = d->proxyOp.opCount;
  p->rccl.trace_func_idx = d->proxyOp.traceFuncIdx;
  p->rccl.trace_protocol = d->proxyOp.traceProtocol;
  p->rccl.trace_pattern = d->proxyOp.tracePattern;
  p->rccl.trace_total_bytes = d->proxyOp.traceTotalBytes;
  p->rccl.proxy_nbytes = d->proxyOp.proxyNbytes;
  p->rccl.raw_proxy_nsteps = d->proxyOp.rawProxyNsteps;
}

ncclResult_t cs_rccl_proxy_op_start(void *context, void **eHandle,
                                    const rcclProfilerEventDescr_v6_t *d) {
  if (!eHandle)
    return ncclSuccess;
  uint32_t policy;
  cs_gate gate = cs_start_gate(eHandle, CS_EV_PROXY_OP, d->parentObj,
                               /*slow_twin=*/true, &policy);
  if (gate != CS_GATE_RECORD)
    return ncclSuccess;
  cs_ring *r;
  unsigned units = CS_START_UNITS(sizeof(cs_p_proxy_op));
  cs_rec_start *rec =
      cs_start_slow_begin_units(eHandle, CS_EV_PROXY_OP, units, &r);
  if (!rec)
    return ncclSuccess;
  fill_rccl_proxy_op(rec, context, d);
  if (policy && !cs_policy_admit(rec, r, eHandle))
    return ncclSuccess;
  cs_start_commit(r, rec);
  return ncclSuccess;
}

/* The same gates as cs_emit_state (emit.h), then the slow half's checks. */
void cs_rccl_emit_diag_state(void *eHandle, int state, const void *args) {
  if (!atomic_load_explicit(&cs_session_host_rccl, memory_order_relaxed)) {
    cs_emit_state(eHandle, state, args);
    return;
  }
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if ((atomic_load_explicit(&cs_quiet_states, memory_order_relaxed) >> state) &
      1u)
    return;
  if (cs_handle_is_quiet(v))
    return;
  cs_ring *r = cs_ring_for_thread();
  if (!r)
    return;
  unsigned units = args ? CS_STATE_DIAG_UNITS : CS_STATE_UNITS;
  cs_unit *u = cs_state_unit_reserve(r, v, units);
  if (!u)
    return;
  cs_fill_state(u, v, (uint32_t)state, 0, cs_clock_now());
  if (args) {
    /* RCCL's union is 24 bytes: copied as such here, and only here. */
    const rcclProfilerEventStateArgs_v6_t *a = args;
    cs_rec_state *rec = (cs_rec_state *)u;
    rec->arg = (uint64_t)a->proxyDiag.counterKind | (uint64_t)a->proxyDiag.flags
                                                        << 16;
    rec->arg2 = (uint64_t)a->proxyDiag.value;
    rec->arg3 = (uint64_t)a->proxyDiag.value2;
    rec->h.units = CS_STATE_DIAG_UNITS;
    rec->h.flags = CS_STATE_HAS_DIAG;
  }
  cs_ring_commit(r, units);
}
