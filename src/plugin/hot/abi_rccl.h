/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/abi_rccl.h — what RCCL's v6 adds to the v6 adapter, and
 * RCCL 2.31's v7 to the v7 one (include/nccl/profiler_rccl_v6.h,
 * profiler_rccl_v7.h, docs/nccl-behaviour.md §12): the ProxyDiag type on
 * bit 15 (16 from 2.31), the longer proxyOp descriptor and the 24-byte
 * state args of ProxyDiagUpdate (31; 32 from 2.31). Everything here is used
 * only when the host library is RCCL (cs_session_host_rccl); under NVIDIA the
 * v6 adapter never takes these paths. Implemented by abi_rccl.c.
 */
#ifndef CCLSCOPE_ABI_RCCL_H
#define CCLSCOPE_ABI_RCCL_H

#include "emit.h"

/* A v6 type the NVIDIA decoding did not know: RCCL's ProxyDiag when the
 * host is RCCL, else still unknown. */
static inline cs_etype cs_rccl_decode_type(uint64_t type) {
  if ((type == rcclProfileProxyDiag_v6 || type == rcclProfileProxyDiag_v7) &&
      atomic_load_explicit(&cs_session_host_rccl, memory_order_relaxed))
    return CS_EV_PROXY_DIAG;
  return CS_EV_UNKNOWN;
}

/* True for a v6 descriptor that is RCCL's ProxyOp (with its extra fields). */
static inline bool cs_rccl_is_proxy_op(const void *descr) {
  return descr &&
         ((const rcclProfilerEventDescr_v6_t *)descr)->type ==
             ncclProfileProxyOp &&
         atomic_load_explicit(&cs_session_host_rccl, memory_order_relaxed);
}

/* startEvent for RCCL's ProxyOp: a 2-unit record with the extra fields.
 * Out of line: the slow half's sequence (gate, reserve, fill, policy,
 * commit). */
ncclResult_t cs_rccl_proxy_op_start(void *context, void **eHandle,
                                    const rcclProfilerEventDescr_v6_t *d);

/* recordEventState(31 from a v6 host, 32 from RCCL 2.31): under RCCL
 * ProxyDiagUpdate with its 24-byte args; otherwise the generic 8-byte
 * copy. */
void cs_rccl_emit_diag_state(void *eHandle, int state, const void *args);

#endif
