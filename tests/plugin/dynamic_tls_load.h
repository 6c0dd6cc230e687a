/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/dynamic_tls_load.h — how test_tsan_dynamic_tls.c and
 * test_asan_dynamic_tls.c load dynamic_tls_module.c as NCCL loads the
 * plugin (dlopen, RTLD_LOCAL) and find its dynamic_tls_address.
 */
#ifndef CCLSCOPE_DYNAMIC_TLS_LOAD_H
#define CCLSCOPE_DYNAMIC_TLS_LOAD_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef long *(*dynamic_tls_address_fn)(void);

/* The module at `path`, loaded, and its dynamic_tls_address; exits with
 * the reason when either fails. */
static inline dynamic_tls_address_fn dynamic_tls_load(const char *path,
                                                      void **module) {
  *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (*module == NULL) {
    fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
    exit(1);
  }
  dynamic_tls_address_fn address;
  *(void **)&address = dlsym(*module, "dynamic_tls_address");
  if (address == NULL) {
    fprintf(stderr, "FAIL: dlsym: %s\n", dlerror());
    exit(1);
  }
  return address;
}

#endif
