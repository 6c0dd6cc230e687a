/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/nccl_names.c — the name tables of nccl_names.h: the only
 * place in the repository where NCCL's event types, states, functions and
 * datatypes are spelled (tests/common/test_nccl_names.c holds the plugin's
 * writer and the CLI's reader to them).
 */
#include "nccl_names.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define JSON_PREFIX "ncclProfile"
#define JSON_PREFIX_LEN 11

/* ---- event types ---- */

static const char *const event_json_names[NCCL_EVENT_TYPES] = {
    "ncclProfileGroup",       "ncclProfileColl",      "ncclProfileP2p",
    "ncclProfileProxyOp",     "ncclProfileProxyStep", "ncclProfileProxyCtrl",
    "ncclProfileKernelCh",    "ncclProfileNetPlugin", "ncclProfileGroupApi",
    "ncclProfileCollApi",     "ncclProfileP2pApi",    "ncclProfileKernelLaunch",
    "ncclProfileCeColl",      "ncclProfileCeSync",    "ncclProfileCeBatch",
    "ncclProfileKernelPhase", "ncclProfileProxyDiag"};

const uint32_t nccl_event_legal_parents_table[NCCL_EVENT_TYPES] = {
    [NCCL_EV_GROUP] = 0,
    [NCCL_EV_COLL] = (1u << NCCL_EV_COLL_API) | (1u << NCCL_EV_GROUP),
    [NCCL_EV_P2P] = (1u << NCCL_EV_P2P_API) | (1u << NCCL_EV_GROUP),
    [NCCL_EV_PROXY_OP] = (1u << NCCL_EV_COLL) | (1u << NCCL_EV_P2P),
    [NCCL_EV_PROXY_STEP] = 1u << NCCL_EV_PROXY_OP,
    [NCCL_EV_PROXY_CTRL] = 0,
    [NCCL_EV_KERNEL_CH] = (1u << NCCL_EV_COLL) | (1u << NCCL_EV_P2P),
    [NCCL_EV_NET_PLUGIN] = 1u << NCCL_EV_PROXY_STEP,
    [NCCL_EV_GROUP_API] = 0,
    [NCCL_EV_COLL_API] = 1u << NCCL_EV_GROUP_API,
    [NCCL_EV_P2P_API] = 1u << NCCL_EV_GROUP_API,
    [NCCL_EV_KERNEL_LAUNCH] = 1u << NCCL_EV_GROUP_API,
    [NCCL_EV_CE_COLL] = 1u << NCCL_EV_COLL_API,
    [NCCL_EV_CE_SYNC] = 1u << NCCL_EV_CE_COLL,
    [NCCL_EV_CE_BATCH] = 1u << NCCL_EV_CE_COLL,
    [NCCL_EV_KERNEL_PHASE] = 0xFFFFFFFFu, /* not documented: trust NCCL */
    [NCCL_EV_PROXY_DIAG] = 0xFFFFFFFFu,   /* not documented: trust RCCL */
};

const char *nccl_event_json_name(int type) {
  return type >= 0 && type < NCCL_EVENT_TYPES ? event_json_names[type] : NULL;
}

const char *nccl_event_name(int type) {
  const char *json = nccl_event_json_name(type);
  return json ? json + JSON_PREFIX_LEN : NULL;
}

int nccl_event_from_json_name(const char *s, size_t n) {
  if (n <= JSON_PREFIX_LEN || memcmp(s, JSON_PREFIX, JSON_PREFIX_LEN) != 0)
    return -1;
  for (int t = 0; t < NCCL_EVENT_TYPES; t++) {
    const char *name = event_json_names[t];
    if (strlen(name) == n && memcmp(name, s, n) == 0)
      return t;
  }
  return -1;
}

int nccl_event_from_json_str(const char *s) {
  return s ? nccl_event_from_json_name(s, strlen(s)) : -1;
}

int nccl_event_from_mask_name(const char *s) {
  for (int t = 0; t < NCCL_EVENT_TYPES; t++)
    if (strcasecmp(s, nccl_event_name(t)) == 0)
      return t;
  return -1;
}

void nccl_event_mask_name(int type, char *out, size_t cap) {
  const char *name = nccl_event_name(type);
  size_t i = 0;
  if (cap == 0)
    return;
  for (; name && name[i] && i + 1 < cap; i++)
    out[i] = (char)tolower((unsigned char)name[i]);
  out[i] = '\0';
}

/* ---- states ---- */

static const char *const state_names[31] = {"ProxyOpSendPosted",
                                            "ProxyOpSendRemFifoWait",
                                            "ProxyOpSendTransmitted",
                                            "ProxyOpSendDone",
                                            "ProxyOpRecvPosted",
                                            "ProxyOpRecvReceived",
                                            "ProxyOpRecvTransmitted",
                                            "ProxyOpRecvDone",
                                            "SendGPUWait",
                                            "SendWait",
                                            "RecvWait",
                                            "RecvFlushWait",
                                            "RecvGPUWait",
                                            "ProxyCtrlIdle",
                                            "ProxyCtrlActive",
                                            "ProxyCtrlSleep",
                                            "ProxyCtrlWakeup",
                                            "ProxyCtrlAppend",
                                            "ProxyCtrlAppendEnd",
                                            "ProxyOpInProgress",
                                            "SendPeerWait",
                                            "NetPluginUpdate",
                                            "KernelChStop",
                                            "GroupStartApiStop",
                                            "GroupEndApiStart",
                                            "CeCollStart",
                                            "CeCollComplete",
                                            "CeSyncStart",
                                            "CeSyncComplete",
                                            "CeBatchStart",
                                            "CeBatchComplete"};
/* 31: one value, two meanings; RCCL 2.31 moves its ProxyDiagUpdate to 32
 * (nccl_names.h). */
static const char *const state_31_nccl = "KernelPhaseStop";
static const char *const state_31_rccl = "ProxyDiagUpdate";

const char *nccl_state_name(int state, int abi, bool rccl) {
  if (state >= 0 && state < (int)(sizeof state_names / sizeof *state_names))
    return state_names[state];
  if (state == 31) {
    if (rccl && abi <= 6)
      return state_31_rccl;
    if (abi >= 7) /* NVIDIA 2.31, RCCL 2.31 (the only RCCL with v7) */
      return state_31_nccl;
  }
  if (state == 32 && rccl && abi >= 6) /* RCCL 2.31's ProxyDiagUpdate */
    return state_31_rccl;
  return NULL;
}

static bool name_is(const char *name, const char *s, size_t n) {
  return strlen(name) == n && memcmp(name, s, n) == 0;
}

int nccl_state_from_name(const char *s, size_t n, nccl_numbering numbering) {
  for (int i = 0; i < (int)(sizeof state_names / sizeof *state_names); i++)
    if (name_is(state_names[i], s, n))
      return i;
  if (name_is(state_31_nccl, s, n)) /* KernelPhaseStop: v7 only */
    return numbering == NCCL_NUMBERING_RCCL ? -1 : 31;
  if (name_is(state_31_rccl, s, n)) { /* ProxyDiagUpdate: RCCL only */
    if (numbering == NCCL_NUMBERING_RCCL_231)
      return 32;
    return numbering == NCCL_NUMBERING_RCCL ? 31 : -1;
  }
  return -1;
}

int nccl_state_from_any_name(const char *s, size_t n,
                             nccl_numbering numbering) {
  static const char suffix[] = "_v4", nccl_prefix[] = "ncclProfiler";
  const char *step_prefix = nccl_event_name(NCCL_EV_PROXY_STEP);
  size_t ls = sizeof suffix - 1, lp = sizeof nccl_prefix - 1;
  size_t lstep = strlen(step_prefix);
  if (n > ls && memcmp(s + n - ls, suffix, ls) == 0)
    n -= ls;
  if (n > lp && memcmp(s, nccl_prefix, lp) == 0) {
    s += lp;
    n -= lp;
  }
  int id = nccl_state_from_name(s, n, numbering);
  if (id < 0 && n > lstep && memcmp(s, step_prefix, lstep) == 0)
    id = nccl_state_from_name(s + lstep, n - lstep, numbering);
  return id;
}

/* ---- functions and datatypes ---- */

static const char *const func_names[NCCL_FUNCS] = {
    "Broadcast", "Reduce",   "AllGather", "ReduceScatter",
    "AllReduce", "SendRecv", "Send",      "Recv",
    "AlltoAll",  "Gather",   "Scatter",   "AllGatherV"};

const char *nccl_func_name(int func) {
  return func >= 0 && func < NCCL_FUNCS ? func_names[func] : NULL;
}

static const struct {
  const char *name;
  unsigned size;
} datatypes[] = {
    /* ncclDataType_t order first (nccl_datatype_name indexes these) */
    {"ncclInt8", 1},
    {"ncclUint8", 1},
    {"ncclInt32", 4},
    {"ncclUint32", 4},
    {"ncclInt64", 8},
    {"ncclUint64", 8},
    {"ncclFloat16", 2},
    {"ncclFloat32", 4},
    {"ncclFloat64", 8},
    {"ncclBfloat16", 2},
    {"ncclFloat8e4m3", 1},
    {"ncclFloat8e5m2", 1},
    /* then NCCL's aliases */
    {"ncclChar", 1},
    {"ncclInt", 4},
    {"ncclHalf", 2},
    {"ncclFloat", 4},
    {"ncclDouble", 8},
};

const char *nccl_datatype_name(int datatype) {
  return datatype >= 0 && datatype < NCCL_DATATYPES ? datatypes[datatype].name
                                                    : NULL;
}

unsigned nccl_datatype_size(const char *name) {
  if (!name)
    return 0;
  for (size_t i = 0; i < sizeof datatypes / sizeof *datatypes; i++)
    if (strcmp(name, datatypes[i].name) == 0)
      return datatypes[i].size;
  return 0;
}
