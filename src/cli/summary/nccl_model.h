/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/nccl_model.h — NCCL facts the analyses need: nccl-tests'
 * bus-bandwidth factors and message sizes (datatype sizes come from the
 * shared vocabulary, src/common/nccl_names.h).
 *
 *   algBw = bytes / duration;  busBw = algBw * factor(func, nranks)
 *   AllReduce 2(n-1)/n; AllGather, ReduceScatter, AlltoAll, Gather,
 *   Scatter (n-1)/n; Broadcast, Reduce, Send, Recv, SendRecv 1.
 * Message size as the plugin's timing records define it
 * (src/plugin/writer/completion.c): count x sizeof(datatype), times nranks for
 * AllGather, ReduceScatter, AlltoAll, Gather and Scatter (nccl-tests report the
 * whole buffer; NCCL's count is one rank's part).
 */
#ifndef CCLSCOPE_CLI_NCCL_MODEL_H
#define CCLSCOPE_CLI_NCCL_MODEL_H

#include <stdint.h>

#include "nccl_names.h"

/* Bus-bandwidth factor; 1 for unknown functions or nranks < 2. */
double nccl_bus_factor(const char *func, int nranks);
/* Message size in bytes (see above); `count` alone when the datatype is
 * unknown; nranks <= 0 counts as 1. */
uint64_t nccl_collective_bytes(const char *func, uint64_t count,
                               const char *datatype, int nranks);

#endif
