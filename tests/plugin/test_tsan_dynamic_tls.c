/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_tsan_dynamic_tls.c — the TSan build's programs survive
 * a dlopen'ed library's thread-local block placed where clang 14's runtime
 * misreads it (src/common/sanitizer_default_options.c says why): 16 bytes
 * after a 4 KiB boundary, just after a block holding {pointer, length} — what
 * ncclemu's replay workers met by chance with the plugin's cs_tls.
 *
 * The thread holds 16-byte blocks until it has one 16 bytes after a 4 KiB
 * boundary whose preceding block is also its own, writes a pointer and a
 * length there, frees the first block and then touches the library's
 * variable: glibc allocates the variable's 8 bytes with malloc, and the
 * runtime's per-thread cache hands back the block just freed. The test
 * checks that it did (else it proved nothing) and that the process lives:
 * with the runtime's __tls_get_addr guess on, it dies mapping the shadow of
 * a 127 TiB range. Built and run in the TSan build only: another allocator
 * puts no two 16-byte blocks 16 bytes apart.
 * usage: test_tsan_dynamic_tls MODULE.so
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_tls_load.h"

#define MAX_BLOCKS 8192 /* 16-byte blocks held while looking (128 KiB) */
#define PAGE 4096

/* The library's dynamic_tls_address, found by main before the thread. */
static dynamic_tls_address_fn module_address;

static int compare_addresses(const void *a, const void *b) {
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

/* Index in held[] (sorted) of a block 16 bytes after a page boundary whose
 * preceding 16 bytes are the block before it in held[], or -1. */
static long find_misread_spot(const uintptr_t *held, long n) {
  for (long i = 1; i < n; i++)
    if (held[i] % PAGE == 16 && held[i - 1] == held[i] - 16)
      return i;
  return -1;
}

static void *touch_thread_local(void *unused) {
  static uintptr_t held[MAX_BLOCKS];
  long n = 0, spot = -1;
  while (n < MAX_BLOCKS && spot < 0) {
    void *block = malloc(16);
    if (block == NULL) {
      fprintf(stderr, "FAIL: malloc(16) failed after %ld blocks\n", n);
      exit(1);
    }
    held[n++] = (uintptr_t)block;
    if (n % 256 == 0) {
      qsort(held, (size_t)n, sizeof held[0], compare_addresses);
      spot = find_misread_spot(held, n);
    }
  }
  if (spot < 0) {
    fprintf(stderr,
            "FAIL: no two of %ld 16-byte blocks 16 bytes apart after a page "
            "boundary (is this the TSan build's allocator?)\n",
            n);
    exit(1);
  }
  uintptr_t target = held[spot];
  /* A live block's {data pointer, length}, as a truth buffer holds: read as
   * glibc 2.19's {size, start}, the range [length, length + pointer). */
  uintptr_t before[2] = {(uintptr_t)0x7f0000000000ULL, 0x6000};
  memcpy((void *)held[spot - 1], before, sizeof before);
  free((void *)target);
  long *value = module_address(); /* glibc mallocs the library's block here */
  *value = 42;
  int landed = (uintptr_t)value == target;
  for (long i = 0; i < n; i++)
    if (i != spot)
      free((void *)held[i]);
  if (!landed) {
    fprintf(stderr,
            "FAIL: the library's thread-local block is at %p, not at the "
            "freed block %p: the test did not set up what it tests\n",
            (void *)value, (void *)target);
    exit(1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODULE.so\n", argv[0]);
    return 2;
  }
  void *module;
  module_address = dynamic_tls_load(argv[1], &module);
  pthread_t thread;
  if (pthread_create(&thread, NULL, touch_thread_local, NULL) != 0) {
    fprintf(stderr, "FAIL: pthread_create\n");
    return 1;
  }
  pthread_join(thread, NULL);
  dlclose(module);
  printf("PASS: the thread-local block sat 16 bytes after a page boundary, "
         "after a {pointer, length} block, and the process lived\n");
  return 0;
}
