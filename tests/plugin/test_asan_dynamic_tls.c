/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_asan_dynamic_tls.c — the ASan build's programs survive
 * LeakSanitizer's check with a dlopen'ed library's thread-local block
 * placed where gcc 12's runtime misreads it (src/common/
 * sanitizer_default_options.c says why): 16 bytes after a 4 KiB boundary,
 * on a live thread — what plugin.test_lifecycle's main thread met by chance
 * with the plugin's cs_tls.
 *
 * The main thread holds 8-byte blocks until it has one 16 bytes after a
 * 4 KiB boundary, frees it and then touches the library's variable: glibc
 * allocates the variable's 8 bytes with malloc, and with the quarantine off
 * (the test's ASAN_OPTIONS) the runtime's per-thread cache hands back the
 * block just freed. The test checks that it did (else it proved nothing),
 * stores in the variable the only pointer to a fresh allocation, and runs
 * the leak check: with the runtime's __tls_get_addr guess on, the check
 * dies scanning a range read from the block's chunk header; with it off,
 * it must still find the allocation through the thread-local block (no
 * leak reported).
 * usage: test_asan_dynamic_tls MODULE.so
 */
#include <dlfcn.h>
#include <sanitizer/lsan_interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dynamic_tls_load.h"

#define MAX_BLOCKS 8192 /* 8-byte blocks held while looking */
#define PAGE 4096

/* An allocation whose address this function's caller never holds: once
 * stored in the thread-local variable, only that block points to it. */
static __attribute__((noinline)) void store_fresh_allocation(long *slot) {
  *slot = (long)(uintptr_t)malloc(64);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODULE.so\n", argv[0]);
    return 2;
  }
  void *module;
  dynamic_tls_address_fn module_address = dynamic_tls_load(argv[1], &module);

  static void *held[MAX_BLOCKS];
  long n = 0;
  void *target = NULL;
  while (n < MAX_BLOCKS && target == NULL) {
    void *block = malloc(8);
    if (block == NULL) {
      fprintf(stderr, "FAIL: malloc(8) failed after %ld blocks\n", n);
      return 1;
    }
    held[n++] = block;
    if ((uintptr_t)block % PAGE == 16)
      target = block;
  }
  if (target == NULL) {
    fprintf(stderr,
            "FAIL: none of %ld 8-byte blocks is 16 bytes after a page "
            "boundary (is this the ASan build's allocator?)\n",
            n);
    return 1;
  }
  uintptr_t target_address = (uintptr_t)target;
  free(target);
  long *value = module_address(); /* glibc mallocs the library's block here */
  int landed = (uintptr_t)value == target_address;
  for (long i = 0; i < n - 1; i++)
    free(held[i]);
  if (!landed) {
    fprintf(stderr,
            "FAIL: the library's thread-local block is at %p, not at the "
            "freed block %#lx (is ASAN_OPTIONS' quarantine off?): the "
            "test did not set up what it tests\n",
            (void *)value, (unsigned long)target_address);
    return 1;
  }
  store_fresh_allocation(value);

  /* With the guess on, the process dies here. */
  if (__lsan_do_recoverable_leak_check() != 0) {
    fprintf(stderr, "FAIL: the allocation held only by the library's "
                    "thread-local block was reported as a leak\n");
    return 1;
  }
  free((void *)(uintptr_t)*value);
  dlclose(module);
  printf("PASS: the thread-local block sat 16 bytes after a page boundary, "
         "the leak check lived and found what the block points to\n");
  return 0;
}
