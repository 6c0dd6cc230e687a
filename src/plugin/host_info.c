/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/host_info.c — finding ncclGetVersion and telling NCCL from RCCL.
 *
 * ncclGetVersion is looked up in the global scope first (NCCL linked by the
 * application or PyTorch), then in libnccl/librccl if they were loaded
 * RTLD_LOCAL (RTLD_NOLOAD: we never load them ourselves). RCCL is recognised
 * by a loaded module whose name contains "librccl", or CCLSCOPE_HOST=rccl.
 */
#include "host_info.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef int (*get_version_fn)(int *version);

static const char *const candidate_libs[] = {
    "libnccl.so.2", "libnccl.so", "librccl.so.1", "librccl.so", NULL};

static int lookup_version(void) {
  int code = 0;
  get_version_fn fn = (get_version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion");
  if (fn && fn(&code) == 0 && code > 0)
    return code;
  for (int i = 0; candidate_libs[i]; i++) {
    void *lib = dlopen(candidate_libs[i], RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
      continue;
    fn = (get_version_fn)dlsym(lib, "ncclGetVersion");
    code = 0;
    int ok = fn && fn(&code) == 0 && code > 0;
    dlclose(lib);
    if (ok)
      return code;
  }
  return 0;
}

static int find_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  cs_host_kind *kind = data;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strncmp(base, "librccl", 7) == 0) {
    *kind = CS_HOST_RCCL;
    return 1;
  }
  if (strncmp(base, "libnccl.so", 10) == 0 ||
      strncmp(base, "libnccl_static", 14) == 0)
    *kind = CS_HOST_NCCL;
  return 0;
}

int cs_host_version_normalise(int code) {
  if (code <= 0)
    return 0;
  if (code < 10000) /* old encoding: major*1000 + minor*100 + patch */
    return (code / 1000) * 10000 + ((code % 1000) / 100) * 100 + code % 100;
  return code;
}

void cs_host_info_probe(cs_host_info *info, const char *preference) {
  memset(info, 0, sizeof *info);
  info->version_code = cs_host_version_normalise(lookup_version());
  if (preference && strcasecmp(preference, "rccl") == 0)
    info->kind = CS_HOST_RCCL;
  else if (preference && strcasecmp(preference, "nccl") == 0)
    info->kind = CS_HOST_NCCL;
  else {
    dl_iterate_phdr(find_module, &info->kind);
    if (info->kind == CS_HOST_UNKNOWN && info->version_code)
      info->kind = CS_HOST_NCCL; /* ncclGetVersion without a librccl module */
  }
  if (info->version_code)
    snprintf(info->version, sizeof info->version, "%d.%d.%d",
             info->version_code / 10000, (info->version_code / 100) % 100,
             info->version_code % 100);
  else
    snprintf(info->version, sizeof info->version, "unknown");
}

bool cs_host_has_user_tag(const cs_host_info *info) {
  return info->kind == CS_HOST_NCCL && info->version_code >= 23100;
}

const char *cs_host_kind_name(cs_host_kind kind) {
  switch (kind) {
  case CS_HOST_NCCL:
    return "nccl";
  case CS_HOST_RCCL:
    return "rccl";
  default:
    return "unknown";
  }
}
