/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/handle.c — the per-session process tag behind every handle.
 */
#include "handle.h"

#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint16_t cs_handle_tag;
uint64_t cs_handle_event_prefix;
uint64_t cs_handle_ctx_prefix;

void cs_handle_new_tag(void) {
  uint16_t tag = 0;
  if (getrandom(&tag, sizeof tag, GRND_NONBLOCK) != (ssize_t)sizeof tag) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    tag = (uint16_t)((uint32_t)getpid() * 2654435761u ^ (uint32_t)ts.tv_nsec);
  }
  if (tag == 0 || tag == cs_handle_tag)
    tag = (uint16_t)(cs_handle_tag + 0x9e37u);
  if (tag == 0)
    tag = 1;
  cs_handle_tag = tag;
  cs_handle_event_prefix = (uint64_t)tag << 1;
  cs_handle_ctx_prefix = ((uint64_t)tag << 1) | 1;
}
