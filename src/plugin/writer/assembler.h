/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/assembler.h — the writer thread's model of events in
 * flight.
 *
 * The assembler consumes ring records (START, STATE, STOP) in per-thread
 * order and produces complete events: one cs_event per started event, handed
 * to the sinks exactly once, when it is stopped, reclaimed (NCCL will never
 * stop it: abandoned recv steps, never-stopped ProxyOps, leftovers at the
 * last finalize) or still in flight at process exit. It resolves each event's
 * owner (context or foreign process) and checks each parent link, so that a
 * link is either exact or marked unknown. Single-threaded (writer only).
 *
 * Memory is bounded: at most `max_live` events in flight (beyond that, new
 * starts are counted and dropped), plus a fixed cache of recently ended
 * events used to resolve parents, late states and double stops.
 */
#ifndef CCLSCOPE_ASSEMBLER_H
#define CCLSCOPE_ASSEMBLER_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

typedef enum {
  CS_END_STOPPED = 0,
  CS_END_RECLAIMED = 1,
  CS_END_INFLIGHT = 2
} cs_end_kind;

typedef enum {
  CS_RECLAIM_NONE = 0,
  CS_RECLAIM_ABANDONED,      /* recv step restarted: old handle dropped */
  CS_RECLAIM_PARENT_STOPPED, /* parent ended first and this can't stop now */
  CS_RECLAIM_NO_PROGRESS,    /* ProxyOp never progressed (CollNet, SHM...) */
  CS_RECLAIM_FINALIZE,       /* still open when its communicator ended */
  CS_RECLAIM_COUNT
} cs_reclaim_reason;

typedef struct {
  uint32_t state;
  uint32_t repeat; /* consecutive identical states collapsed: total count */
  uint64_t raw_ts;
  uint64_t last_raw_ts;
  uint64_t arg;
  /* RCCL's ProxyDiagUpdate (has_diag): arg = counterKind | flags << 16,
   * arg2 = value, arg3 = value2 (record.h). Zero otherwise. */
  uint64_t arg2;
  uint64_t arg3;
  bool has_diag;
} cs_state_rec;

#define CS_INLINE_STATES 3

typedef struct cs_event {
  struct cs_event *next_free;
  uint64_t id;
  uint64_t parent; /* our id (LOCAL) or the raw value */
  uint64_t start_raw;
  uint64_t stop_raw; /* STOPPED */
  uint64_t end_raw;  /* RECLAIMED / INFLIGHT: when we gave up */
  /* Last sign of life: its start, its latest state, or (ProxyOp) the
   * latest start or end of one of its steps. The hang watchdog's clock. */
  uint64_t activity_raw;
  uint32_t ctx; /* owning context serial, 0 = unknown */
  int32_t rank;
  int32_t origin_pid; /* PXN: the other process */
  int32_t start_tid;
  int32_t stop_tid;
  uint8_t etype;
  uint8_t parent_kind; /* CS_PARENT_NONE/LOCAL/FOREIGN/UNKNOWN */
  uint8_t end;         /* cs_end_kind */
  uint8_t reclaim;     /* cs_reclaim_reason */
  bool foreign_owner;  /* owned by another process (PXN) */
  bool parent_hint;    /* NCCL's parent value unreliable (socket net) */
  bool has_children;   /* ProxyOp: a step started under it */
  bool progressed;     /* ProxyOp: InProgress seen */
  bool has_link;       /* ProxyStep: `link` copied from its ProxyOp */
  struct {
    int32_t peer;
    uint8_t channel_id;
    uint8_t is_send;
  } link;
  uint32_t nstates;
  uint32_t cap_states;
  cs_state_rec *states;
  /* ProxyStep: the live ProxyOp it was linked to at its start (`link`),
   * which it stays in (open_steps) until one of them ends; NULL when none
   * or once the op is ending. Saves looking the op up by id again. */
  struct cs_event *op;
  /* Not cleared when the event is reused (the fields above are): copied
   * in from the record, and `nstates` says how many states are set. */
  cs_payload p;
  cs_state_rec inline_states[CS_INLINE_STATES];
  /* ProxyOp only (set at its start): its open steps by step % 8, the slot
   * NCCL reuses (sub->pHandles[step % 8]). */
  struct cs_event *open_steps[8];
} cs_event;

typedef struct {
  uint64_t starts;   /* accepted: each ends exactly once, or is still live */
  uint64_t ended[3]; /* by cs_end_kind */
  uint64_t reclaimed[CS_RECLAIM_COUNT];
  uint64_t double_stops;    /* stop of an event that already ended */
  uint64_t unmatched_stops; /* stop of an id never started here */
  uint64_t late_states;     /* state after the event ended */
  uint64_t orphan_states;   /* state of an id never started here */
  uint64_t parents_unknown; /* links downgraded to unknown */
  uint64_t parents_dropped; /* events whose parent's start was dropped */
  uint64_t live_cap_drops;
  uint64_t live_now;
  uint64_t live_high_water;
} cs_asm_counters;

typedef struct {
  /* Called once per started event (after its parent and owner resolved). */
  void (*on_start)(void *arg, const cs_event *e);
  /* Called once per ended event; the event is valid only during the call. */
  void (*on_event)(void *arg, const cs_event *e);
  /* A state that arrived after its event ended (written on its own). */
  void (*on_late_state)(void *arg, uint64_t id, const cs_state_rec *s,
                        int32_t tid, uint8_t etype);
  void *arg;
  unsigned max_live;
  uint64_t reclaim_ticks; /* never-stopped timeout, in raw clock ticks */
} cs_asm_config;

typedef struct cs_assembler cs_assembler;

cs_assembler *cs_asm_create(const cs_asm_config *cfg);
void cs_asm_destroy(cs_assembler *a);

/* One ring record (START/STATE/STOP) from the thread `tid`. */
void cs_asm_record(cs_assembler *a, const cs_unit *rec, int32_t tid);

/* Periodic work: expire early stops, reclaim what will never stop. */
void cs_asm_tick(cs_assembler *a, uint64_t now_raw);

/* A context was finalized: reclaim its leftovers (not its ProxyCtrl). */
void cs_asm_context_finalized(cs_assembler *a, uint32_t ctx, uint64_t now_raw);

/* End every event still in flight (session end or process exit). */
void cs_asm_end_all(cs_assembler *a, cs_end_kind end, cs_reclaim_reason reason,
                    uint64_t now_raw);

const cs_asm_counters *cs_asm_get_counters(const cs_assembler *a);

/* Events in flight (for the hang watchdog and snapshots): up to `max`
 * pointers into `out`, valid until the next record or tick. */
size_t cs_asm_live_events(const cs_assembler *a, const cs_event **out,
                          size_t max);
/* The live event with this id, or NULL. */
const cs_event *cs_asm_live_get(const cs_assembler *a, uint64_t id);

/* Owner of a recently seen event (for late states), false if unknown. */
bool cs_asm_lookup_owner(const cs_assembler *a, uint64_t id, uint32_t *ctx,
                         int32_t *rank);

const char *cs_reclaim_reason_name(cs_reclaim_reason r);

#endif
