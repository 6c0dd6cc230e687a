/*
 * src/emu/emu_common.c — owns the shared helpers declared in emu_common.h:
 * splitmix64 random numbers, clocks, name tables, size parsing, messages.
 */
#include "emu_common.h"
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

static const char *const event_type_names[] = {
    "Group",     "Coll",      "P2p",      "ProxyOp",
    "ProxyStep", "ProxyCtrl", "KernelCh", "NetPlugin",
    "GroupApi",  "CollApi",   "P2pApi",   "KernelLaunch",
    "CeColl",    "CeSync",    "CeBatch",  "KernelPhase"};

int emu_event_type_bit(uint64_t type) {
  if (type == 0 || (type & (type - 1)) != 0)
    return -1;
  return __builtin_ctzll(type);
}

const char *emu_event_type_name(uint64_t type) {
  int bit = emu_event_type_bit(type);
  if (bit < 0 ||
      bit >= (int)(sizeof event_type_names / sizeof *event_type_names))
    return "Unknown";
  return event_type_names[bit];
}

static const char *const state_names[] = {"ProxyOpSendPosted",
                                          "ProxyOpSendRemFifoWait",
                                          "ProxyOpSendTransmitted",
                                          "ProxyOpSendDone",
                                          "ProxyOpRecvPosted",
                                          "ProxyOpRecvReceived",
                                          "ProxyOpRecvTransmitted",
                                          "ProxyOpRecvDone",
                                          "ProxyStepSendGPUWait",
                                          "ProxyStepSendWait",
                                          "ProxyStepRecvWait",
                                          "ProxyStepRecvFlushWait",
                                          "ProxyStepRecvGPUWait",
                                          "ProxyCtrlIdle",
                                          "ProxyCtrlActive",
                                          "ProxyCtrlSleep",
                                          "ProxyCtrlWakeup",
                                          "ProxyCtrlAppend",
                                          "ProxyCtrlAppendEnd",
                                          "ProxyOpInProgress_v4",
                                          "ProxyStepSendPeerWait_v4",
                                          "NetPluginUpdate",
                                          "KernelChStop",
                                          "GroupStartApiStop",
                                          "GroupEndApiStart",
                                          "CeCollStart",
                                          "CeCollComplete",
                                          "CeSyncStart",
                                          "CeSyncComplete",
                                          "CeBatchStart",
                                          "CeBatchComplete",
                                          "KernelPhaseStop"};

const char *emu_state_name(int state) {
  if (state < 0 || state >= (int)(sizeof state_names / sizeof *state_names))
    return "Unknown";
  return state_names[state];
}

static const char *const func_names[EMU_FUNC_COUNT] = {
    "Broadcast", "Reduce",   "AllGather", "ReduceScatter",
    "AllReduce", "SendRecv", "Send",      "Recv",
    "AlltoAll",  "Gather",   "Scatter"};

const char *emu_func_name(emu_func f) {
  if ((int)f < 0 || f >= EMU_FUNC_COUNT)
    return "Unknown";
  return func_names[f];
}

static const char *const datatype_names[EMU_DT_COUNT] = {
    "ncclInt8",    "Unknown" /* ncclUint8 has no case in NCCL */,
    "ncclInt32",   "ncclUint32",
    "ncclInt64",   "ncclUint64",
    "ncclFloat16", "ncclFloat32",
    "ncclFloat64", "ncclBfloat16"};
static const size_t datatype_sizes[EMU_DT_COUNT] = {1, 1, 4, 4, 8,
                                                    8, 2, 4, 8, 2};

const char *emu_datatype_name(emu_datatype d) {
  if ((int)d < 0 || d >= EMU_DT_COUNT)
    return "Unknown";
  return datatype_names[d];
}

size_t emu_datatype_size(emu_datatype d) {
  if ((int)d < 0 || d >= EMU_DT_COUNT)
    return 1;
  return datatype_sizes[d];
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
