/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_shims.h — what NCCL's version adapters deliver to a
 * v1..v7 plugin (nccl-behaviour §7). The core always builds a v7 descriptor;
 * these functions convert it down, drop what a version cannot receive, fill the
 * bytes NCCL leaves uninitialised with EMU_POISON_BYTE, and report what
 * happened so the truth can say "delivered" or "dropped". emu_shims.c.
 */
#ifndef NCCLEMU_SHIMS_H
#define NCCLEMU_SHIMS_H

#include "profiler/emu_loader.h"

/* Sentinel pre-filled into *eHandle right before the plugin's startEvent:
 * still there afterwards means the plugin left the slot unwritten. It is
 * non-canonical, so a plugin can never return it as a real pointer. */
#define EMU_UNWRITTEN_SENTINEL ((void *)0xE3E3E3E3E3E3E3E0ULL)

typedef enum {
  EMU_DELIVERED = 0, /* the plugin's function was called */
  EMU_DROPPED_SHIM,  /* the adapter returned without calling the plugin */
  EMU_DROPPED_NULLED /* adapter wrote *eHandle = NULL and returned */
} emu_delivery_kind;

typedef struct emu_delivery {
  emu_delivery_kind kind;
  bool unwritten; /* plugin was called and left *eHandle untouched */
  int rc;         /* plugin's return code (0 if not called) */
} emu_delivery;

/* Exact detection of unwritten *eHandle (sentinel pre-fill); set for
 * --check and --truth. */
void emu_shims_detect_unwritten(bool exact);

/* init: adapts the argument order of v1..v4 and clears CE bits for v5.
 * `forced_mask` (--mask) is stored right after the plugin's own init, as if
 * the plugin had written it, before the adapter's clearing. */
int emu_shim_init(const emu_plugin *p, void **context, uint64_t commId,
                  int *mask, const char *commName, int nNodes, int nranks,
                  int rank, ncclDebugLogger_t logfn, const int *forced_mask);
/* startEvent through the adapter of p->abi. */
emu_delivery emu_shim_start(const emu_plugin *p, void *context, void **eHandle,
                            ncclProfilerEventDescr_v7_t *d);
/* recordEventState: args may be NULL (GroupApi states, §3.4). */
emu_delivery emu_shim_record(const emu_plugin *p, void *eHandle, int state,
                             ncclProfilerEventStateArgs_v7_t *args);
emu_delivery emu_shim_stop(const emu_plugin *p, void *eHandle);
int emu_shim_finalize(const emu_plugin *p, void *context);

/* RCCL's own layouts (p->rccl_layout: its v6, profiler_rccl_v6.h, and from
 * 2.31 its v7, profiler_rccl_v7.h; §12): the proxyOp fields RCCL appends,
 * filled from the model ... */
typedef struct emu_rccl_proxy_extras {
  uint64_t comm_hash;
  int64_t op_count;
  int32_t trace_func_idx;
  int32_t trace_protocol;
  int32_t trace_pattern;
  uint32_t trace_total_bytes;
  uint32_t proxy_nbytes;
  int32_t raw_proxy_nsteps;
} emu_rccl_proxy_extras;
/* ... and the proxyDiag arm of its 24-byte state args (state 31, 32 from
 * RCCL 2.31). */
typedef struct emu_rccl_proxy_diag {
  uint8_t counter_kind;
  uint16_t flags;
  int64_t value;
  int64_t value2;
} emu_rccl_proxy_diag;

/* startEvent in RCCL's layout of p->abi; `extras` only for ProxyOp (else
 * NULL). */
emu_delivery emu_shim_start_rccl(const emu_plugin *p, void *context,
                                 void **eHandle,
                                 const ncclProfilerEventDescr_v7_t *d,
                                 const emu_rccl_proxy_extras *extras);
/* recordEventState with RCCL's 24-byte args (NULL stays NULL); `diag`
 * fills the proxyDiag arm. */
emu_delivery emu_shim_record_rccl(const emu_plugin *p, void *eHandle, int state,
                                  const ncclProfilerEventStateArgs_v7_t *args,
                                  const emu_rccl_proxy_diag *diag);

/* Pure conversions, exposed for unit tests (tests/emu/test_emu_units.c).
 * Each returns false when that version's adapter drops the event. */
bool emu_convert_v1(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v1_t *out);
bool emu_convert_v2(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v2_t *out);
bool emu_convert_v3(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v3_t *out);
bool emu_convert_v4(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v4_t *out);
bool emu_convert_v5(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v5_t *out);
/* Which states an adapter passes (true) or drops (false). */
bool emu_state_delivered(int abi, int state);
/* v1 string -> enum conversions with NCCL's fallbacks. */
uint8_t emu_v1_func(const char *s);
uint8_t emu_v1_datatype(const char *s);
uint8_t emu_v1_algo(const char *s);
uint8_t emu_v1_proto(const char *s);

#endif
