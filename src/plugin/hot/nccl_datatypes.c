/*
 * src/plugin/hot/nccl_datatypes.c — NCCL datatype names and their sizes.
 */
#include "nccl_datatypes.h"

#include <stddef.h>
#include <string.h>

typedef struct {
  const char *name;
  unsigned size;
} datatype_size;

static const datatype_size sizes[] = {
    {"ncclInt8", 1},       {"ncclUint8", 1},     {"ncclChar", 1},
    {"ncclInt32", 4},      {"ncclUint32", 4},    {"ncclInt", 4},
    {"ncclInt64", 8},      {"ncclUint64", 8},    {"ncclFloat16", 2},
    {"ncclHalf", 2},       {"ncclFloat32", 4},   {"ncclFloat", 4},
    {"ncclFloat64", 8},    {"ncclDouble", 8},    {"ncclBfloat16", 2},
    {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1}};

unsigned cs_datatype_size(const char *datatype) {
  if (!datatype)
    return 0;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    if (strcmp(datatype, sizes[i].name) == 0)
      return sizes[i].size;
  return 0;
}
