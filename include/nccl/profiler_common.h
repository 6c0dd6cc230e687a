/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_common.h — the parts of NCCL's profiler plugin ABI that
 * every version shares: result codes, the logger callback, event-type bits,
 * the state enum and the network-plugin id encoding.
 *
 * Written by the cclscope authors from the facts in
 * docs/nccl-behaviour.md §1 (values are ABI; names follow
 * NCCL's so that users recognise them). Nothing here is NCCL source.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_COMMON_H
#define CCLSCOPE_NCCL_PROFILER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ncclResult_t: an int-sized enum. Only ncclSuccess matters to a plugin. */
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

/* Logger handed to init() from v4 on. Levels and subsystem flags. */
typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

enum { NCCL_LOG_SUBSYS_INIT = 0x1, NCCL_LOG_SUBSYS_PROFILE = 0x4000 };

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags,
                                  const char *file, int line, const char *fmt,
                                  ...);

/* Process id as carried in proxyOp descriptors. */
typedef pid_t ncclPid_t;

/* Event-type bits (the activation mask uses the same bits). */
enum {
  ncclProfileGroup = (1 << 0),
  ncclProfileColl = (1 << 1),
  ncclProfileP2p = (1 << 2),
  ncclProfileProxyOp = (1 << 3),
  ncclProfileProxyStep = (1 << 4),
  ncclProfileProxyCtrl = (1 << 5),
  ncclProfileKernelCh = (1 << 6),      /* v3+ */
  ncclProfileNetPlugin = (1 << 7),     /* v3+ */
  ncclProfileGroupApi = (1 << 8),      /* v5+ */
  ncclProfileCollApi = (1 << 9),       /* v5+ */
  ncclProfileP2pApi = (1 << 10),       /* v5+ */
  ncclProfileKernelLaunch = (1 << 11), /* v5+ */
  ncclProfileCeColl = (1 << 12),       /* v6+ */
  ncclProfileCeSync = (1 << 13),       /* v6+ */
  ncclProfileCeBatch = (1 << 14),      /* v6+ */
  ncclProfileKernelPhase =
      (1 << 15) /* v7 (NVIDIA); RCCL v6 ProxyDiag in some releases */
};

/* RCCL-private event bit in releases after upstream took 1<<15. */
enum {
  rcclProfileProxyDiag_v7 = (1 << 16),
  rcclProfileProxyDiag_v6 = (1 << 15)
};

/* State values are ABI (numeric). */
typedef enum {
  ncclProfilerProxyOpSendPosted = 0, /* 0..7: deprecated, never emitted */
  ncclProfilerProxyOpSendRemFifoWait = 1,
  ncclProfilerProxyOpSendTransmitted = 2,
  ncclProfilerProxyOpSendDone = 3,
  ncclProfilerProxyOpRecvPosted = 4,
  ncclProfilerProxyOpRecvReceived = 5,
  ncclProfilerProxyOpRecvTransmitted = 6,
  ncclProfilerProxyOpRecvDone = 7,
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendWait = 9,
  ncclProfilerProxyStepRecvWait = 10,
  ncclProfilerProxyStepRecvFlushWait = 11,
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerProxyCtrlIdle = 13,
  ncclProfilerProxyCtrlActive = 14,
  ncclProfilerProxyCtrlSleep = 15,
  ncclProfilerProxyCtrlWakeup = 16,
  ncclProfilerProxyCtrlAppend = 17,
  ncclProfilerProxyCtrlAppendEnd = 18,
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,
  ncclProfilerNetPluginUpdate = 21,
  ncclProfilerKernelChStop = 22,
  ncclProfilerGroupStartApiStop = 23,
  ncclProfilerGroupEndApiStart = 24,
  ncclProfilerCeCollStart = 25, /* 25..30: defined for v6, never emitted */
  ncclProfilerCeCollComplete = 26,
  ncclProfilerCeSyncStart = 27,
  ncclProfilerCeSyncComplete = 28,
  ncclProfilerCeBatchStart = 29,
  ncclProfilerCeBatchComplete = 30,
  ncclProfilerKernelPhaseStop = 31 /* v7 (NVIDIA); RCCL v6: ProxyDiagUpdate */
} ncclProfilerEventState_t;

typedef ncclProfilerEventState_t ncclProfilerEventState_v1_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v2_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v3_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v4_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v5_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v6_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v7_t;

/* netPlugin.id: low 16 bits descriptor version, next 16 bits plugin type. */
#define NCCL_PROFILER_NET_VER_MASK (~0U >> 16)
#define NCCL_PROFILER_NET_TYPE_MASK (~0U << 16)
#define NCCL_PROFILER_NET_TYPE_IB (1U << 16)
#define NCCL_PROFILER_NET_TYPE_SOCK (2U << 16)

/* Callback NCCL hands to network plugins (v9+ net ABI). */
enum {
  ncclProfilerNetEventStart = 0,
  ncclProfilerNetEventStop = 1,
  ncclProfilerNetEventUpdate = 2,
  ncclProfilerNetEventUpdateAndStop = 3
};

/* v1 descriptors carry enums instead of strings (NVIDIA NCCL values). */
enum {
  ncclFuncBroadcast = 0,
  ncclFuncReduce = 1,
  ncclFuncAllGather = 2,
  ncclFuncReduceScatter = 3,
  ncclFuncAllReduce = 4,
  ncclFuncSendRecv = 5,
  ncclFuncSend = 6,
  ncclFuncRecv = 7
};
enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
  ncclFloat8e4m3 = 10,
  ncclFloat8e5m2 = 11
};
enum {
  NCCL_ALGO_TREE = 0,
  NCCL_ALGO_RING = 1,
  NCCL_ALGO_COLLNET_DIRECT = 2,
  NCCL_ALGO_COLLNET_CHAIN = 3,
  NCCL_ALGO_NVLS = 4,
  NCCL_ALGO_NVLS_TREE = 5,
  NCCL_ALGO_PAT = 6
};
enum { NCCL_PROTO_LL = 0, NCCL_PROTO_LL128 = 1, NCCL_PROTO_SIMPLE = 2 };

#endif
