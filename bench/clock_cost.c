/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/clock_cost.c — what reading a clock costs on this machine: the
 * floor under the plugin's per-callback cost (every callback reads the
 * clock once, invariant 7 of docs/invariants.md). Prints ns per read of
 * the CPU counter (what the plugin uses when it is invariant) and of
 * clock_gettime (CLOCK_MONOTONIC, the fallback), three times each.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define READS 10000000

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(void) {
  for (int round = 0; round < 3; round++) {
    uint64_t sink = 0, t0 = now_ns();
#if defined(__x86_64__) || defined(__i386__)
    for (int i = 0; i < READS; i++)
      sink += __rdtsc();
#endif
    uint64_t t1 = now_ns();
    for (int i = 0; i < READS; i++)
      sink += now_ns();
    uint64_t t2 = now_ns();
    printf("counter (rdtsc) %.2f ns/read   clock_gettime %.2f ns/read   (%d)\n",
           (double)(t1 - t0) / READS, (double)(t2 - t1) / READS,
           (int)(sink & 1));
  }
  return 0;
}
