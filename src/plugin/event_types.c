/*
 * src/plugin/event_types.c — name tables for event types and states.
 * Cold code: used by the writer thread and by configuration parsing.
 */
#include "event_types.h"

#include <stddef.h>

static const char *const json_names[CS_EV_COUNT] = {"ncclProfileGroup",
                                                    "ncclProfileColl",
                                                    "ncclProfileP2p",
                                                    "ncclProfileProxyOp",
                                                    "ncclProfileProxyStep",
                                                    "ncclProfileProxyCtrl",
                                                    "ncclProfileKernelCh",
                                                    "ncclProfileNetPlugin",
                                                    "ncclProfileGroupApi",
                                                    "ncclProfileCollApi",
                                                    "ncclProfileP2pApi",
                                                    "ncclProfileKernelLaunch",
                                                    "ncclProfileCeColl",
                                                    "ncclProfileCeSync",
                                                    "ncclProfileCeBatch",
                                                    "ncclProfileKernelPhase",
                                                    "unknown"};

static const char *const mask_names[CS_EV_COUNT] = {
    "group",       "coll",         "p2p",       "proxyop",  "proxystep",
    "proxyctrl",   "kernelch",     "netplugin", "groupapi", "collapi",
    "p2papi",      "kernellaunch", "cecoll",    "cesync",   "cebatch",
    "kernelphase", "unknown"};

static const char *const state_names[] = {"ProxyOpSendPosted",
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

const char *cs_etype_json_name(cs_etype t) {
  return (unsigned)t < CS_EV_COUNT ? json_names[t] : "unknown";
}

const char *cs_etype_mask_name(cs_etype t) {
  return (unsigned)t < CS_EV_COUNT ? mask_names[t] : "unknown";
}

const char *cs_state_name(int state, int abi, int is_rccl) {
  if (state >= 0 && state < (int)(sizeof state_names / sizeof *state_names))
    return state_names[state];
  if (state == 31) {
    if (is_rccl && abi <= 6)
      return "ProxyDiagUpdate";
    if (abi >= 7 && !is_rccl)
      return "KernelPhaseStop";
  }
  return NULL;
}
