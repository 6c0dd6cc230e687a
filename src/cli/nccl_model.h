/*
 * src/cli/nccl_model.h — NCCL facts the analyses need: datatype sizes and
 * nccl-tests' bus-bandwidth factors.
 *
 *   algBw = bytes / duration;  busBw = algBw * factor(func, nranks)
 *   AllReduce 2(n-1)/n; AllGather, ReduceScatter, AlltoAll (n-1)/n;
 *   Broadcast, Reduce, Send, Recv, SendRecv 1.
 */
#ifndef CCLSCOPE_CLI_NCCL_MODEL_H
#define CCLSCOPE_CLI_NCCL_MODEL_H

#include <stdint.h>

/* Size in bytes of "ncclFloat32" etc.; 0 when unknown. */
int nccl_datatype_size(const char *name);
/* Bus-bandwidth factor; 1 for unknown functions or nranks < 2. */
double nccl_bus_factor(const char *func, int nranks);

#endif
