/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/host_info.h — facts about the library that loaded us: NCCL or
 * RCCL, and which version. Looked up at run time (never linked): the version
 * decides which descriptor fields exist (v7 userTag, RCCL extras).
 */
#ifndef CCLSCOPE_HOST_INFO_H
#define CCLSCOPE_HOST_INFO_H

#include <stdbool.h>

typedef enum {
  CS_HOST_UNKNOWN = 0,
  CS_HOST_NCCL = 1,
  CS_HOST_RCCL = 2
} cs_host_kind;

typedef struct {
  cs_host_kind kind;
  int version_code; /* as ncclGetVersion reports it, 0 if unknown */
  char version[32]; /* "2.30.7" or "unknown" */
} cs_host_info;

/* `preference` is CCLSCOPE_HOST: "auto", "nccl" or "rccl". */
void cs_host_info_probe(cs_host_info *info, const char *preference);

/* Major*10000 + minor*100 + patch, from either encoding NCCL has used. */
int cs_host_version_normalise(int code);

/* May v7 descriptors be read up to userTag? (NVIDIA NCCL >= 2.31 only.) */
bool cs_host_has_user_tag(const cs_host_info *info);

const char *cs_host_kind_name(cs_host_kind kind);

#endif
