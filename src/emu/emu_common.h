/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_common.h — small things every part of ncclemu shares: the
 * deterministic random generator, clocks, event/state names, NCCL function
 * and datatype tables, hex formatting of ids, and fatal-error helpers.
 *
 * Nothing here calls the plugin; it is plain data and arithmetic.
 */
#ifndef NCCLEMU_COMMON_H
#define NCCLEMU_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nccl/profiler.h"

/* ---------- limits (static sizes: the hot path never allocates) ---------- */
#define EMU_MAX_RANKS 1024     /* global ranks of one run */
#define EMU_MAX_WORKERS 1024   /* processes */
#define EMU_MAX_LOCAL_RANKS 16 /* ranks emulated by one process */
#define EMU_MAX_COMMS 1040     /* communicators (world + splits) */
#define EMU_MAX_CHANNELS 32
#define EMU_NCCL_STEPS 8 /* NCCL_STEPS: handle slots per proxy sub */
#define EMU_MAX_SIZES 32
#define EMU_MAX_APP_THREADS 16

/* Byte used to fill memory NCCL leaves uninitialised (v4/v5 shim locals,
 * RCCL's missing v7 userTag). A plugin reading it sees 0xA5A5... */
#define EMU_POISON_BYTE 0xA5
#define EMU_POISON_U64 0xA5A5A5A5A5A5A5A5ULL

/* ---------- deterministic random numbers (splitmix64) ---------- */
typedef struct emu_rng {
  uint64_t state;
} emu_rng;

uint64_t emu_mix64(uint64_t x);
uint64_t emu_hash_str(uint64_t seed, const char *s);
void emu_rng_seed(emu_rng *rng, uint64_t seed, const char *stream_name);
uint64_t emu_rng_next(emu_rng *rng);
/* Uniform integer in [0, n) (n > 0). */
uint64_t emu_rng_below(emu_rng *rng, uint64_t n);
/* True with probability p (0..1). */
bool emu_rng_chance(emu_rng *rng, double p);

/* ---------- clocks ---------- */
uint64_t emu_now_ns(void);      /* CLOCK_MONOTONIC */
uint64_t emu_realtime_ns(void); /* CLOCK_REALTIME */
uint64_t emu_coarse_ns(void);   /* CLOCK_MONOTONIC_COARSE (cheap) */
void emu_sleep_ns(uint64_t ns);
void emu_sleep_until_ns(uint64_t monotonic_deadline_ns);

/* ---------- names ---------- */
/* Event type name for one bit ("Coll"), or "Unknown". */
const char *emu_event_type_name(uint64_t type);
/* Bit index of a single-bit type (0..15), -1 if not a single bit. */
int emu_event_type_bit(uint64_t type);
const char *emu_state_name(int state);

/* NCCL functions as the core names them (ncclFuncToString). */
typedef enum {
  EMU_FUNC_BROADCAST = 0,
  EMU_FUNC_REDUCE,
  EMU_FUNC_ALLGATHER,
  EMU_FUNC_REDUCESCATTER,
  EMU_FUNC_ALLREDUCE,
  EMU_FUNC_SENDRECV,
  EMU_FUNC_SEND,
  EMU_FUNC_RECV,
  EMU_FUNC_ALLTOALL, /* only as a CE collective name */
  EMU_FUNC_GATHER,
  EMU_FUNC_SCATTER,
  EMU_FUNC_COUNT
} emu_func;
const char *emu_func_name(emu_func f);

typedef enum {
  EMU_DT_INT8 = 0,
  EMU_DT_UINT8,
  EMU_DT_INT32,
  EMU_DT_UINT32,
  EMU_DT_INT64,
  EMU_DT_UINT64,
  EMU_DT_FLOAT16,
  EMU_DT_FLOAT32,
  EMU_DT_FLOAT64,
  EMU_DT_BFLOAT16,
  EMU_DT_COUNT
} emu_datatype;
/* ncclDatatypeToString: note ncclUint8 -> "Unknown" (nccl-behaviour §6.6). */
const char *emu_datatype_name(emu_datatype d);
size_t emu_datatype_size(emu_datatype d);

/* ---------- formatting ---------- */
/* Writes "0x" + 16 hex digits (fixed width) and a NUL; buf >= 19 bytes. */
void emu_hex64(char *buf, uint64_t v);
/* Parses a size such as "4096", "64K", "1M", "2G". Returns false if bad. */
bool emu_parse_size(const char *s, uint64_t *out);

/* ---------- errors ---------- */
void emu_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void emu_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------- relaxed atomics on plain objects (NCCL uses the same) ------- */
#define EMU_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define EMU_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define EMU_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define EMU_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif
