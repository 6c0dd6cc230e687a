/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/nccl_names.h — NCCL's profiler vocabulary, spelled once for
 * the plugin, the CLI and ncclemu: event type names, the parents each type
 * may have, state names, function and datatype names and datatype sizes.
 *
 * Event types are numbered by their bit index in NCCL's type mask
 * (ncclProfileGroup = 1 << 0 ... ncclProfileKernelPhase = 1 << 15, and
 * RCCL's ncclProfileProxyDiag as 16, the bit its later releases use); states
 * by NCCL's ncclProfilerEventState_t values; functions and datatypes by
 * NCCL's ncclFunc_t and ncclDataType_t values (as the v1 ABI passes them).
 * Everything here is pure (no allocation, no locks): safe on NCCL's threads.
 * docs/nccl-behaviour.md says where NCCL defines each value.
 */
#ifndef CCLSCOPE_NCCL_NAMES_H
#define CCLSCOPE_NCCL_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- event types (bit index 0..16) ---- */
enum {
  NCCL_EV_GROUP = 0,
  NCCL_EV_COLL,
  NCCL_EV_P2P,
  NCCL_EV_PROXY_OP,
  NCCL_EV_PROXY_STEP,
  NCCL_EV_PROXY_CTRL,
  NCCL_EV_KERNEL_CH,
  NCCL_EV_NET_PLUGIN,
  NCCL_EV_GROUP_API,
  NCCL_EV_COLL_API,
  NCCL_EV_P2P_API,
  NCCL_EV_KERNEL_LAUNCH,
  NCCL_EV_CE_COLL,
  NCCL_EV_CE_SYNC,
  NCCL_EV_CE_BATCH,
  NCCL_EV_KERNEL_PHASE,
  NCCL_EV_PROXY_DIAG, /* RCCL: 1 << 16 (1 << 15 in RCCL's v6 builds) */
  NCCL_EVENT_TYPES
};

/* "ncclProfileColl", as the trace's "type" spells it; NULL out of range. */
const char *nccl_event_json_name(int type);
/* "Coll": the JSON name without "ncclProfile"; NULL out of range. */
const char *nccl_event_name(int type);
/* The type whose JSON name is s[0..n), or -1. */
int nccl_event_from_json_name(const char *s, size_t n);
/* The same for a NUL-terminated name (NULL: -1). */
int nccl_event_from_json_str(const char *s);
/* The type whose short name equals `s` ignoring case ("proxystep" as
 * CCLSCOPE_MASK spells it), or -1. */
int nccl_event_from_mask_name(const char *s);
/* The short name in lower case ("proxystep") into out[cap]; "" out of
 * range. */
void nccl_event_mask_name(int type, char *out, size_t cap);
/* Bit set of the types an event of `type` may have as parent (bit index
 * as above); 0 for types that have none, all ones for types whose parents
 * NCCL does not document (KernelPhase) or out of range. Inline: the
 * plugin's writer asks once per event. */
extern const uint32_t nccl_event_legal_parents_table[NCCL_EVENT_TYPES];
static inline uint32_t nccl_event_legal_parents(int type) {
  return type >= 0 && type < NCCL_EVENT_TYPES
             ? nccl_event_legal_parents_table[type]
             : 0xFFFFFFFFu;
}

/* ---- states ---- */
/* NCCL's ncclProfilerEventState_t values that code outside the plugin's
 * ABI adapters reasons about (the adapters use NCCL's own names). */
enum {
  NCCL_STATE_STEP_SEND_GPU_WAIT = 8,
  NCCL_STATE_STEP_SEND_WAIT = 9,
  NCCL_STATE_STEP_RECV_WAIT = 10,
  NCCL_STATE_STEP_RECV_FLUSH_WAIT = 11,
  NCCL_STATE_STEP_RECV_GPU_WAIT = 12,
  NCCL_STATE_OP_IN_PROGRESS = 19,
  NCCL_STATE_STEP_SEND_PEER_WAIT = 20,
};
/* The state as the trace names it ("SendGPUWait", "ProxyCtrlIdle"), or
 * NULL for a value not known. 31 means KernelPhaseStop in v7 (NVIDIA and
 * RCCL 2.31) and ProxyDiagUpdate in RCCL before 2.31 (v6 and older); RCCL
 * 2.31 sends its ProxyDiagUpdate as 32 (to v6 and v7): `abi` and `rccl`
 * decide. */
const char *nccl_state_name(int state, int abi, bool rccl);
/* Whose numbers the state names take. Names are the same for every host,
 * numbers are not: 0..30 are shared, 31 and 32 differ. */
typedef enum {
  NCCL_NUMBERING_NVIDIA = 0, /* NVIDIA NCCL: 31 KernelPhaseStop (v7) */
  NCCL_NUMBERING_RCCL,       /* RCCL before 2.31: 31 ProxyDiagUpdate */
  NCCL_NUMBERING_RCCL_231    /* RCCL 2.31: 31 KernelPhaseStop (v7), 32
                                ProxyDiagUpdate (v6 and v7) */
} nccl_numbering;
/* The state named s[0..n) as `numbering` numbers it, or -1 (also for a
 * state that host does not have: ProxyDiagUpdate under NVIDIA NCCL,
 * KernelPhaseStop under RCCL before 2.31). */
int nccl_state_from_name(const char *s, size_t n, nccl_numbering numbering);
/* The same for a name as NCCL's enum spells it, which other tracers write:
 * "ncclProfilerProxyStepSendWait", "ncclProfilerProxyOpInProgress_v4",
 * "ProxyStepSendGPUWait" (prefix ncclProfiler, the ProxyStep prefix of
 * step states and a _v4 suffix are dropped); our names too; -1 if
 * unknown. */
int nccl_state_from_any_name(const char *s, size_t n, nccl_numbering numbering);
/* One past the highest state number nccl_state_name knows. */
#define NCCL_STATES 33

/* ---- functions and datatypes ---- */
/* ncclFunc_t value -> "AllReduce" etc.; NULL out of range. Values 0..7
 * are NCCL's (v1 ABI); 8.. are names later versions pass as strings
 * (AlltoAll, Gather, Scatter, AllGatherV), numbered here for ncclemu. */
const char *nccl_func_name(int func);
#define NCCL_FUNCS 12
/* ncclDataType_t value -> "ncclFloat32" etc.; NULL out of range. */
const char *nccl_datatype_name(int datatype);
#define NCCL_DATATYPES 12
/* Bytes per element of the datatype named `name` ("ncclFloat32", also
 * the aliases ncclChar, ncclInt, ncclHalf, ncclFloat, ncclDouble); 0 when
 * unknown or NULL. */
unsigned nccl_datatype_size(const char *name);

#endif
