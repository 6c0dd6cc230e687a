/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/nccl_model.c — see nccl_model.h.
 */
#include "summary/nccl_model.h"

#include <stdbool.h>
#include <string.h>

#include "nccl_names.h"

/* Functions whose nccl-tests size is the whole buffer of all ranks. */
static bool whole_buffer(const char *func) {
  return strcmp(func, "AllGather") == 0 || strcmp(func, "ReduceScatter") == 0 ||
         strcmp(func, "AlltoAll") == 0 || strcmp(func, "AllToAll") == 0 ||
         strcmp(func, "Gather") == 0 || strcmp(func, "Scatter") == 0;
}

double nccl_bus_factor(const char *func, int nranks) {
  if (nranks < 2)
    return 1.0;
  double n = (double)nranks;
  if (strcmp(func, "AllReduce") == 0)
    return 2.0 * (n - 1.0) / n;
  if (whole_buffer(func))
    return (n - 1.0) / n;
  return 1.0;
}

uint64_t nccl_collective_bytes(const char *func, uint64_t count,
                               const char *datatype, int nranks) {
  int size = (int)nccl_datatype_size(datatype);
  uint64_t bytes = size ? count * (uint64_t)size : count;
  if (whole_buffer(func) && nranks > 1)
    bytes *= (uint64_t)nranks;
  return bytes;
}
