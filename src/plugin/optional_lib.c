/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/optional_lib.c — finding an optional library at run time
 * (see optional_lib.h). Runs at session begin, never on NCCL's hot path.
 */
#include "optional_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

bool cs_optional_lib_find(const char *env_var, const char *const *names,
                          size_t n_names, cs_optional_lib_resolve resolve,
                          char *tried, size_t tried_len) {
  const char *forced = env_var != NULL ? getenv(env_var) : NULL;
  if (forced != NULL && forced[0] != '\0') {
    names = &forced;
    n_names = 1;
  }
  if (tried_len > 0)
    tried[0] = '\0';
  for (size_t i = 0; i < n_names; i++) {
    size_t used = strnlen(tried, tried_len);
    snprintf(tried + used, tried_len - used, "%s%s", i ? ", " : "", names[i]);
    cs_log_printable(tried + used); /* the environment's name is the user's */
  }
  /* pass 0: only what the process already has; pass 1: load */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n_names; i++) {
      void *lib = dlopen(names[i],
                         RTLD_NOW | RTLD_LOCAL | (pass == 0 ? RTLD_NOLOAD : 0));
      if (lib == NULL)
        continue;
      if (resolve(lib, names[i]))
        return true;
      dlclose(lib);
    }
  }
  return false;
}
