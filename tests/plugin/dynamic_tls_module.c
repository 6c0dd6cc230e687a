/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/dynamic_tls_module.c — a library with one thread-local
 * variable, loaded with dlopen by test_tsan_dynamic_tls.c and
 * test_asan_dynamic_tls.c as NCCL loads the plugin (whose ring state,
 * cs_tls, is thread-local): each thread's first access makes glibc
 * allocate the library's block for that thread.
 */
long *dynamic_tls_address(void);

static _Thread_local long dynamic_tls_value; /* 8 bytes: a 16-byte block */

long *dynamic_tls_address(void) {
  return &dynamic_tls_value;
}
