/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_common.c — owns the shared helpers declared in emu_common.h:
 * splitmix64 random numbers, clocks, name tables, size parsing, messages.
 */
#include "emu_common.h"
#include "nccl_names.h"
#include "size_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t emu_mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t emu_hash_str(uint64_t seed, const char *s) {
  uint64_t h = emu_mix64(seed ^ 0x6E63636C656D75ULL);
  for (; *s; s++)
    h = emu_mix64(h ^ (uint8_t)*s);
  return h;
}

void emu_rng_seed(emu_rng *rng, uint64_t seed, const char *stream_name) {
  rng->state = emu_hash_str(seed, stream_name);
}

uint64_t emu_rng_next(emu_rng *rng) {
  rng->state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = rng->state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t emu_rng_below(emu_rng *rng, uint64_t n) {
  if (n <= 1)
    return 0;
  return emu_rng_next(rng) % n;
}

bool emu_rng_chance(emu_rng *rng, double p) {
  if (p <= 0.0)
    return false;
  if (p >= 1.0)
    return true;
  /* 53 random bits -> [0,1) */
  double u = (double)(emu_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
  return u < p;
}

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t emu_now_ns(void) {
  return clock_ns(CLOCK_MONOTONIC);
}
uint64_t emu_realtime_ns(void) {
  return clock_ns(CLOCK_REALTIME);
}
uint64_t emu_coarse_ns(void) {
  return clock_ns(CLOCK_MONOTONIC_COARSE);
}

void emu_sleep_ns(uint64_t ns) {
  struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ULL),
                        .tv_nsec = (long)(ns % 1000000000ULL)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Sleep most of the way, then spin: the kernel's timer slack and wake-up
 * latency (tens of microseconds on a VM) would otherwise add to every
 * modelled duration the plugin measures. */
#define EMU_SPIN_NS 200000u

void emu_sleep_until_ns(uint64_t deadline) {
  uint64_t now = emu_now_ns();
  if (deadline > now + EMU_SPIN_NS) {
    uint64_t wake = deadline - EMU_SPIN_NS;
    struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ULL),
                          .tv_nsec = (long)(wake % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
           EINTR) {
    }
  }
  while (emu_now_ns() < deadline) {
  }
}

int emu_event_type_bit(uint64_t type) {
  if (type == 0 || (type & (type - 1)) != 0)
    return -1;
  return __builtin_ctzll(type);
}

const char *emu_event_type_name(uint64_t type) {
  const char *name = nccl_event_name(emu_event_type_bit(type));
  return name ? name : "Unknown";
}

const char *emu_state_name(int state) {
  /* As the trace names it; 31 is NCCL's v7 KernelPhaseStop. */
  const char *name = nccl_state_name(state, 7, false);
  return name ? name : "Unknown";
}

const char *emu_func_name(emu_func f) {
  const char *name = (int)f < EMU_FUNC_COUNT ? nccl_func_name((int)f) : NULL;
  return name ? name : "Unknown";
}

const char *emu_datatype_name(emu_datatype d) {
  if ((int)d < 0 || d >= EMU_DT_COUNT || d == EMU_DT_UINT8)
    return "Unknown"; /* NCCL's datatype-to-string has no ncclUint8 case */
  return nccl_datatype_name((int)d);
}

size_t emu_datatype_size(emu_datatype d) {
  if ((int)d < 0 || d >= EMU_DT_COUNT)
    return 1;
  return nccl_datatype_size(nccl_datatype_name((int)d));
}

void emu_hex64(char *buf, uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  buf[0] = '0';
  buf[1] = 'x';
  for (int i = 0; i < 16; i++)
    buf[2 + i] = digits[(v >> (60 - 4 * i)) & 0xF];
  buf[18] = '\0';
}

bool emu_parse_size(const char *s, uint64_t *out) {
  return size_text_parse(s, out);
}

void emu_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ncclemu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

void emu_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("ncclemu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
