/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_net.h — descriptors that NCCL's built-in network
 * plugins pass as netPlugin.data (IB QP events, socket events), version 1.
 * Layouts from docs/nccl-behaviour.md §1.6.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_NET_H
#define CCLSCOPE_NCCL_PROFILER_NET_H

#include "profiler_common.h"

#define NCCL_PROFILER_NET_IB_VER 1
enum { ncclProfileQp = (1 << 0) };

typedef struct {
  uint8_t type;
  union {
    struct {
      int device;
      uint64_t wr_id;
      int opcode;
      int qpNum;
      size_t length;
    } qp;
  };
} ncclProfilerNetIbDescr_v1_t;

#define NCCL_PROFILER_NET_SOCKET_VER 1
enum { ncclProfileSocket = (1 << 0) };

typedef struct {
  uint8_t type;
  union {
    struct {
      int fd;
      int op;
      size_t length;
    } sock;
  };
} ncclProfilerNetSockDescr_v1_t;

_Static_assert(sizeof(ncclProfilerNetIbDescr_v1_t) == 40, "IB descr size");
_Static_assert(offsetof(ncclProfilerNetIbDescr_v1_t, qp.device) == 8, "");
_Static_assert(offsetof(ncclProfilerNetIbDescr_v1_t, qp.wr_id) == 16, "");
_Static_assert(offsetof(ncclProfilerNetIbDescr_v1_t, qp.opcode) == 24, "");
_Static_assert(offsetof(ncclProfilerNetIbDescr_v1_t, qp.qpNum) == 28, "");
_Static_assert(offsetof(ncclProfilerNetIbDescr_v1_t, qp.length) == 32, "");
_Static_assert(sizeof(ncclProfilerNetSockDescr_v1_t) == 24,
               "socket descr size");
_Static_assert(offsetof(ncclProfilerNetSockDescr_v1_t, sock.fd) == 8, "");
_Static_assert(offsetof(ncclProfilerNetSockDescr_v1_t, sock.op) == 12, "");
_Static_assert(offsetof(ncclProfilerNetSockDescr_v1_t, sock.length) == 16, "");

#endif
