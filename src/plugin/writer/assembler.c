/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/assembler.c — turning ring records into complete events.
 *
 * Data: `live` finds the cs_event of an id started and not yet ended: a
 * direct-mapped table by id (ids come in dense per-thread blocks, so this
 * almost never collides) with a hash map for the ids whose slot was taken;
 * `steps` maps (ProxyOp id, step % 8) -> the open ProxyStep, which is how a
 * restarted recv step is recognised (NCCL reuses the handle slot
 * sub->pHandles[step % 8]); `ended` remembers recently ended events
 * (owner, type, end time) in a fixed, set-associative table: the id's
 * hash picks a set of ENDED_WAYS entries, and a set replaces its oldest
 * entry; `early` holds stops that arrived before their start (a start and
 * stop on different threads).
 */
#include "assembler.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "debug_check.h"
#include "event_types.h"
#include "handle.h"
#include "nccl_names.h"
#include "u64map.h"

/* 8192 sets of 8: an ended event stays findable until 8 later ones land
 * in its set. Ids come in per-thread blocks of 4096, so ids equal in their
 * low bits end at the same time on different threads: each block of ids
 * starts at its own pseudo-random set (a hash of the block number), and
 * the ids of one block take consecutive sets (the writer touches memory
 * in order, as it did when the low bits alone picked the slot). */
/* The record handlers and their rare paths stay out of line:
 * cs_asm_record then only dispatches, jumping to the handler, and the
 * common path of each saves only the registers it uses. Inlined into one
 * function, every record paid for the start's register saves. */
#define NOINLINE_HANDLER __attribute__((noinline))

#define ENDED_SETS 8192 /* power of two */
#define ENDED_WAYS 8
#define ENDED_BLOCK_SHIFT 12
#define LIVE_DIRECT 65536 /* power of two */
#define EVENTS_PER_CHUNK 1024
#define EARLY_STOP_MAX_TICKS 8 /* ticks an early stop waits for its start */

typedef struct {
  uint64_t end_raw;
  uint32_t ctx;
  int32_t rank;
  int32_t origin_pid;
  uint8_t etype;
  bool foreign_owner;
  bool dropped; /* its start was dropped here (in-flight cap): not written */
} ended_info;

/* One set: the ids side by side (one cache line to search), the oldest
 * way to replace next. */
typedef struct {
  _Alignas(64) uint64_t ids[ENDED_WAYS];
} ended_set;

typedef struct {
  ended_set *sets;   /* ENDED_SETS */
  ended_info *info;  /* ENDED_SETS * ENDED_WAYS, by set * ENDED_WAYS + way */
  uint8_t *next_way; /* ENDED_SETS: the way replaced next (round robin) */
} ended_cache;

typedef struct {
  uint64_t raw;
  int32_t tid;
  uint32_t ticks_waited;
} early_stop;

/* The live index. Ids come from per-thread blocks, so the events alive at
 * one time have nearby ids: a table indexed by the low bits holds nearly
 * all of them, with the id beside the pointer so that a lookup never
 * touches a cold event. An event still alive when an id 65536 later needs
 * its slot (a long collective; a stop lost to a full ring) moves to the
 * overflow map, so the table keeps serving the recent ones. */
typedef struct {
  uint64_t id;
  cs_event *e;
} live_slot;

typedef struct {
  live_slot *direct; /* LIVE_DIRECT slots, by id & (LIVE_DIRECT - 1) */
  cs_u64map overflow;
} live_index;

struct cs_assembler {
  cs_asm_config cfg;
  live_index live;
  ended_cache ended;
  cs_u64map early;
  cs_event *free_list;
  void **chunks;
  size_t nchunks;
  size_t cap_chunks;
  cs_asm_counters c;
};

/* ---- the live index ---- */

/* The event with this id if the table holds it (the overflow map is not
 * looked at). Enough to reject a duplicate start: ids are never reused,
 * and one that has moved to the overflow map is 65536 ids old. */
static cs_event *live_recent(const cs_assembler *a, uint64_t id) {
  const live_slot *slot = &a->live.direct[id & (LIVE_DIRECT - 1)];
  return slot->e && slot->id == id ? slot->e : NULL;
}

static cs_event *live_get(const cs_assembler *a, uint64_t id) {
  cs_event *e = live_recent(a, id);
  if (e)
    return e;
  return a->live.overflow.count ? cs_u64map_get(&a->live.overflow, id) : NULL;
}

/* The table's slot for `id`. */
static live_slot *live_slot_of(const cs_assembler *a, uint64_t id) {
  return &a->live.direct[id & (LIVE_DIRECT - 1)];
}

/* Put e in its slot (live_slot_of(a, e->id)), moving an older event there
 * to the overflow map. */
static bool live_put(cs_assembler *a, live_slot *slot, cs_event *e) {
  if (slot->e && !cs_u64map_put(&a->live.overflow, slot->id, slot->e))
    return false; /* no room to move the older one out */
  slot->id = e->id;
  slot->e = e;
  return true;
}

static void live_remove(cs_assembler *a, cs_event *e) {
  live_slot *slot = &a->live.direct[e->id & (LIVE_DIRECT - 1)];
  if (slot->e == e)
    slot->e = NULL;
  else
    cs_u64map_remove(&a->live.overflow, e->id);
}

/* Every live event, into `out` (at most `max`); returns how many. */
static size_t live_collect(const cs_assembler *a, cs_event **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < LIVE_DIRECT && n < max; i++)
    if (a->live.direct[i].e)
      out[n++] = a->live.direct[i].e;
  size_t cap = cs_u64map_capacity(&a->live.overflow);
  for (size_t i = 0; i < cap && n < max; i++)
    if (a->live.overflow.slots[i].key)
      out[n++] = a->live.overflow.slots[i].value;
  return n;
}

/* Types whose descriptor `rank` is meaningful (others carry 0). */
static bool descriptor_rank_meaningful(uint8_t etype) {
  switch (etype) {
  case CS_EV_COLL:
  case CS_EV_P2P:
  case CS_EV_PROXY_OP:
  case CS_EV_PROXY_STEP:
  case CS_EV_NET_PLUGIN:
  case CS_EV_CE_COLL:
    return true;
  default:
    return false;
  }
}

const char *cs_reclaim_reason_name(cs_reclaim_reason r) {
  switch (r) {
  case CS_RECLAIM_ABANDONED:
    return "abandoned";
  case CS_RECLAIM_PARENT_STOPPED:
    return "parent-stopped";
  case CS_RECLAIM_NO_PROGRESS:
    return "no-progress";
  case CS_RECLAIM_FINALIZE:
    return "finalize";
  default:
    return "none";
  }
}

/* ---- event allocation (free list over chunks) ---- */

static cs_event *event_alloc(cs_assembler *a) {
  if (!a->free_list) {
    if (a->nchunks == a->cap_chunks) {
      size_t cap = a->cap_chunks ? a->cap_chunks * 2 : 16;
      void **chunks = realloc(a->chunks, cap * sizeof *chunks);
      if (!chunks)
        return NULL;
      a->chunks = chunks;
      a->cap_chunks = cap;
    }
    cs_event *chunk = malloc(EVENTS_PER_CHUNK * sizeof *chunk);
    if (!chunk)
      return NULL;
    a->chunks[a->nchunks++] = chunk;
    for (size_t i = EVENTS_PER_CHUNK; i-- > 0;) {
      chunk[i].next_free = a->free_list;
      a->free_list = &chunk[i];
    }
  }
  cs_event *e = a->free_list;
  a->free_list = e->next_free;
  return e; /* on_start sets every field before the payload */
}

static void event_free(cs_assembler *a, cs_event *e) {
  if (e->states != e->inline_states)
    free(e->states);
  e->next_free = a->free_list;
  a->free_list = e;
}

/* ---- the ended-event cache ---- */

static size_t ended_set_of(uint64_t id) {
  /* Fibonacci hashing of the block number: its top bits. */
  uint64_t block_start =
      ((id >> ENDED_BLOCK_SHIFT) * UINT64_C(0x9E3779B97F4A7C15)) >> 40;
  return (size_t)(id + block_start) & (ENDED_SETS - 1);
}

static bool ended_init(ended_cache *c) {
  c->sets = aligned_alloc(64, ENDED_SETS * sizeof *c->sets);
  c->info = malloc((size_t)ENDED_SETS * ENDED_WAYS * sizeof *c->info);
  c->next_way = calloc(ENDED_SETS, 1);
  if (!c->sets || !c->info || !c->next_way)
    return false;
  memset(c->sets, 0, ENDED_SETS * sizeof *c->sets);
  return true;
}

static void ended_free(ended_cache *c) {
  free(c->sets);
  free(c->info);
  free(c->next_way);
}

static const ended_info *ended_lookup(const cs_assembler *a, uint64_t id) {
  if (id == 0)
    return NULL;
  size_t set = ended_set_of(id);
  const uint64_t *ids = a->ended.sets[set].ids;
  for (size_t way = 0; way < ENDED_WAYS; way++)
    if (ids[way] == id)
      return &a->ended.info[set * ENDED_WAYS + way];
  return NULL;
}

/* A new entry for `id`, replacing the oldest of its set. Inline, with
 * ended_remember: once per ended event, into the ending (cs_asm's STOP
 * path), not a call. */
static inline __attribute__((always_inline)) ended_info *
ended_slot(cs_assembler *a, uint64_t id) {
  size_t set = ended_set_of(id);
  size_t way = a->ended.next_way[set];
  a->ended.next_way[set] = (uint8_t)((way + 1) % ENDED_WAYS);
  a->ended.sets[set].ids[way] = id;
  return &a->ended.info[set * ENDED_WAYS + way];
}

static inline __attribute__((always_inline)) void
ended_remember(cs_assembler *a, const cs_event *e, uint64_t end_raw) {
  ended_info *x = ended_slot(a, e->id);
  x->end_raw = end_raw;
  x->ctx = e->ctx;
  x->rank = e->rank;
  x->origin_pid = e->origin_pid;
  x->etype = e->etype;
  x->foreign_owner = e->foreign_owner;
  x->dropped = false;
}

/* A start the assembler could not take (in-flight cap, no memory): its
 * children, stop and states are told apart from a parent long gone. */
static void ended_remember_dropped(cs_assembler *a, const cs_rec_start *s) {
  ended_info *x = ended_slot(a, s->h.id);
  memset(x, 0, sizeof *x);
  x->end_raw = s->h.ts;
  x->etype = s->h.etype < CS_EV_COUNT ? s->h.etype : CS_EV_UNKNOWN;
  x->dropped = true;
}

/* ---- lifecycle ---- */

cs_assembler *cs_asm_create(const cs_asm_config *cfg) {
  cs_assembler *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  a->cfg = *cfg;
  a->live.direct = calloc(LIVE_DIRECT, sizeof *a->live.direct);
  if (!ended_init(&a->ended) || !a->live.direct ||
      !cs_u64map_init(&a->live.overflow, 256) ||
      !cs_u64map_init(&a->early, 64)) {
    cs_asm_destroy(a);
    return NULL;
  }
  return a;
}

void cs_asm_destroy(cs_assembler *a) {
  if (!a)
    return;
  if (a->live.direct && a->live.overflow.slots && a->c.live_now) {
    cs_event **all = malloc(a->c.live_now * sizeof *all);
    size_t n = all ? live_collect(a, all, a->c.live_now) : 0;
    for (size_t i = 0; i < n; i++)
      if (all[i]->states != all[i]->inline_states)
        free(all[i]->states);
    free(all);
  }
  if (a->early.slots) {
    for (size_t i = 0; i < cs_u64map_capacity(&a->early); i++)
      if (a->early.slots[i].key)
        free(a->early.slots[i].value);
  }
  free(a->live.direct);
  cs_u64map_free(&a->live.overflow);
  cs_u64map_free(&a->early);
  for (size_t i = 0; i < a->nchunks; i++)
    free(a->chunks[i]);
  free(a->chunks);
  ended_free(&a->ended);
  free(a);
}

const cs_asm_counters *cs_asm_get_counters(const cs_assembler *a) {
  return &a->c;
}

size_t cs_asm_live_events(const cs_assembler *a, const cs_event **out,
                          size_t max) {
  return live_collect(a, (cs_event **)out, max);
}

const cs_event *cs_asm_live_get(const cs_assembler *a, uint64_t id) {
  return live_get(a, id);
}

bool cs_asm_lookup_owner(const cs_assembler *a, uint64_t id, uint32_t *ctx,
                         int32_t *rank) {
  const cs_event *e = live_get(a, id);
  if (e) {
    *ctx = e->ctx;
    *rank = e->rank;
    return true;
  }
  const ended_info *x = ended_lookup(a, id);
  if (x) {
    *ctx = x->ctx;
    *rank = x->rank;
    return true;
  }
  return false;
}

/* ---- ending events ---- */

static void end_event(cs_assembler *a, cs_event *e, cs_end_kind end,
                      cs_reclaim_reason reason, uint64_t end_raw);

/* A ProxyOp ended: its steps still open can no longer be stopped. A
 * stopped op's steps are reclaimed as "parent-stopped"; the steps of an op
 * that was itself reclaimed share its reason (at a finalize, the op and its
 * steps are the communicator's leftovers alike, whichever is ended first). */
static void reclaim_open_steps(cs_assembler *a, cs_event *op,
                               uint64_t now_raw) {
  if (!op->has_children)
    return;
  cs_reclaim_reason why = op->end == CS_END_RECLAIMED
                              ? (cs_reclaim_reason)op->reclaim
                              : CS_RECLAIM_PARENT_STOPPED;
  cs_end_kind end =
      op->end == CS_END_INFLIGHT ? CS_END_INFLIGHT : CS_END_RECLAIMED;
  for (int s = 0; s < 8; s++) {
    cs_event *step = op->open_steps[s];
    op->open_steps[s] = NULL;
    if (!step)
      continue;
    step->op = NULL; /* its op is no longer live */
    end_event(a, step, end, end == CS_END_INFLIGHT ? CS_RECLAIM_NONE : why,
              now_raw);
  }
}

/* Every accepted start ends exactly once or is still live; every reclaimed
 * event has one reason (debug builds only, debug_check.h). */
static void check_accounting(const cs_assembler *a) {
  CS_DEBUG_CHECK(a->c.starts ==
                 a->c.ended[CS_END_STOPPED] + a->c.ended[CS_END_RECLAIMED] +
                     a->c.ended[CS_END_INFLIGHT] + a->c.live_now);
  uint64_t reasons = 0;
  for (int i = 0; i < CS_RECLAIM_COUNT; i++)
    reasons += a->c.reclaimed[i];
  CS_DEBUG_CHECK(reasons == a->c.ended[CS_END_RECLAIMED]);
  CS_DEBUG_CHECK(a->c.live_now <= a->c.live_high_water);
}

/* Ending an event, inline in on_stop: a STOP (most events end so) then
 * pays one call's register saves, cs_asm_stop's, not two, and the tests of the
 * kind fold away. Everywhere else through end_event. */
static inline __attribute__((always_inline)) void
end_event_as(cs_assembler *a, cs_event *e, cs_end_kind end,
             cs_reclaim_reason reason, uint64_t end_raw) {
  CS_DEBUG_CHECK(a->c.live_now > 0);
  CS_DEBUG_CHECK(live_get(a, e->id) == e); /* ends once, while live */
  e->end = (uint8_t)end;
  e->reclaim = (uint8_t)reason;
  if (end != CS_END_STOPPED)
    e->end_raw = end_raw;
  live_remove(a, e);
  a->c.live_now--;
  a->c.ended[end]++;
  if (end == CS_END_RECLAIMED)
    a->c.reclaimed[reason]++;
  check_accounting(a); /* before its open steps end (below) */
  if (e->etype == CS_EV_PROXY_STEP && e->parent_kind == CS_PARENT_LOCAL) {
    /* The op linked at the start is the live event with the parent's id
     * (ids are never reused); a step not linked looks it up. */
    cs_event *op = e->op ? e->op : live_get(a, e->parent);
    if (op && op->etype == CS_EV_PROXY_OP) {
      if (op->open_steps[e->p.proxy_step.step & 7] == e)
        op->open_steps[e->p.proxy_step.step & 7] = NULL;
      if (end == CS_END_STOPPED && e->stop_raw > op->activity_raw)
        op->activity_raw = e->stop_raw; /* a step finished: progress */
    }
  }
  if (e->etype == CS_EV_PROXY_OP)
    reclaim_open_steps(a, e, end == CS_END_STOPPED ? e->stop_raw : end_raw);
  if (a->cfg.on_event)
    a->cfg.on_event(a->cfg.arg, e);
  ended_remember(a, e, end == CS_END_STOPPED ? e->stop_raw : end_raw);
  event_free(a, e);
}

static void end_event(cs_assembler *a, cs_event *e, cs_end_kind end,
                      cs_reclaim_reason reason, uint64_t end_raw) {
  end_event_as(a, e, end, reason, end_raw);
}

/* ---- START ---- */

/* The parent of a new event, looked up once: live, or recently ended. */
typedef struct {
  cs_event *live;
  const ended_info *ended;
} parent_ref;

/* A parent dropped here (in-flight cap) is never written: the link
 * becomes "dropped", as for a parent dropped on NCCL's thread. */
static parent_ref find_parent(const cs_assembler *a, cs_event *e) {
  parent_ref r = {NULL, NULL};
  if (e->parent_kind == CS_PARENT_LOCAL) {
    r.live = live_get(a, e->parent);
    if (!r.live)
      r.ended = ended_lookup(a, e->parent);
    if (r.ended && r.ended->dropped) {
      r.ended = NULL;
      e->parent_kind = CS_PARENT_DROPPED;
      e->parent = 0;
    }
  }
  return r;
}

static void resolve_owner(cs_event *e, const cs_rec_start *s,
                          parent_ref parent) {
  uint8_t flags = s->h.flags;
  if (flags & CS_CTX_INHERIT) {
    /* ProxyStep / NetPlugin: the context argument may be foreign under PXN
     * even though the parent is ours; ownership follows the parent. */
    if (parent.live) {
      e->ctx = parent.live->ctx;
      e->foreign_owner = parent.live->foreign_owner;
      e->origin_pid = parent.live->origin_pid;
    } else if (parent.ended) {
      e->ctx = parent.ended->ctx;
      e->foreign_owner = parent.ended->foreign_owner;
      e->origin_pid = parent.ended->origin_pid;
    } else {
      e->ctx = 0;
    }
    return;
  }
  if (flags & CS_CTX_FOREIGN) {
    e->foreign_owner = true;
    if (e->etype == CS_EV_PROXY_OP)
      e->origin_pid = s->p.proxy_op.pid;
    return;
  }
  e->ctx = s->h.aux;
}

static void resolve_rank(cs_event *e, const cs_rec_start *s) {
  e->rank = s->rank;
  if (descriptor_rank_meaningful(e->etype) || e->foreign_owner)
    return;
  const cs_context *c = cs_ctx_get(e->ctx);
  if (c && c->has_comm_info)
    e->rank = c->rank;
}

/* A local parent of an impossible type is downgraded to unknown. Returns
 * false when that happened (the parent must not be used any further). */
static bool check_parent(cs_assembler *a, cs_event *e, parent_ref parent) {
  if (e->parent_kind != CS_PARENT_LOCAL)
    return true;
  uint8_t parent_type;
  if (parent.live)
    parent_type = parent.live->etype;
  else if (parent.ended)
    parent_type = parent.ended->etype;
  else
    return true; /* not seen (dropped or long gone): the id is still exact */
  if (nccl_event_legal_parents(e->etype) & (1u << parent_type))
    return true;
  e->parent_kind = CS_PARENT_UNKNOWN;
  e->parent = (cs_handle_event_prefix << CS_ID_BITS) | e->parent;
  a->c.parents_unknown++;
  return false;
}

static void note_step_start(cs_assembler *a, cs_event *e, cs_event *op) {
  if (!op || op->etype != CS_EV_PROXY_OP)
    return;
  e->op = op;
  op->has_children = true;
  if (e->start_raw > op->activity_raw)
    op->activity_raw = e->start_raw;
  /* Make each step line self-contained: which peer and channel. */
  e->has_link = true;
  e->link.peer = op->p.proxy_op.peer;
  e->link.channel_id = op->p.proxy_op.channel_id;
  e->link.is_send = op->p.proxy_op.is_send != 0;
  cs_event *old = op->open_steps[e->p.proxy_step.step & 7];
  op->open_steps[e->p.proxy_step.step & 7] = e;
  if (old) {
    /* NCCL started this slot again: the earlier handle was overwritten
     * without a stop (restarted recv step, nccl-behaviour §6.9) and can never
     * stop. */
    end_event(a, old, CS_END_RECLAIMED, CS_RECLAIM_ABANDONED, e->start_raw);
  }
}

static void apply_stop(cs_assembler *a, cs_event *e, uint64_t raw,
                       int32_t tid) {
  e->stop_raw = raw;
  e->stop_tid = tid;
  end_event(a, e, CS_END_STOPPED, CS_RECLAIM_NONE, raw);
}

/* Every field before the payload, from the START record: a reused event
 * keeps nothing of its previous life. Stores of the values themselves,
 * not a clearing of the whole head followed by the stores. `ctx`,
 * `foreign_owner`, `origin_pid` and `rank` are then resolved (below). */
static void event_init(cs_event *e, const cs_rec_start *s, int32_t tid) {
  _Static_assert(offsetof(cs_event, p) == 120,
                 "a field was added to cs_event: set it in event_init");
  e->next_free = NULL;
  e->id = s->h.id;
  e->parent = s->parent;
  e->start_raw = s->h.ts;
  e->stop_raw = 0;
  e->end_raw = 0;
  e->activity_raw = s->h.ts;
  e->ctx = 0;
  e->rank = 0;
  e->origin_pid = 0;
  e->start_tid = tid;
  e->stop_tid = 0;
  e->etype = s->h.etype < CS_EV_COUNT ? s->h.etype : CS_EV_UNKNOWN;
  e->parent_kind = s->h.flags & CS_PARENT_MASK;
  e->end = 0;
  e->reclaim = 0;
  e->foreign_owner = false;
  e->parent_hint = (s->h.flags & CS_PARENT_HINT_ONLY) != 0;
  e->has_children = false;
  e->progressed = false;
  e->has_link = false;
  e->link.peer = 0;
  e->link.channel_id = 0;
  e->link.is_send = 0;
  e->nstates = 0;
  e->cap_states = CS_INLINE_STATES;
  e->states = e->inline_states;
  e->op = NULL;
}

/* The record's payload: what its units hold, at most the payload's size.
 * One constant-size copy per record length (2 to 5 units), never a copy
 * of a length computed per record. */
static void payload_copy(cs_event *e, const cs_rec_start *s) {
  enum {
    TWO_UNITS = 2 * CS_UNIT_BYTES - CS_START_FIXED_BYTES,
    THREE_UNITS = 3 * CS_UNIT_BYTES - CS_START_FIXED_BYTES,
    FOUR_UNITS = 4 * CS_UNIT_BYTES - CS_START_FIXED_BYTES
  };
  _Static_assert(CS_START_FIXED_BYTES > CS_UNIT_BYTES &&
                     CS_START_FIXED_BYTES <= 2 * CS_UNIT_BYTES,
                 "a START record takes two units or more");
  _Static_assert(FOUR_UNITS < sizeof e->p && CS_START_MAX_UNITS == 5,
                 "the largest START record, 5 units, holds the largest "
                 "payload");
  switch (s->h.units) {
  case 0: /* never written (read as one unit, as the drain does), */
  case 1: /* or too short for a payload: none */
    memset(&e->p, 0, sizeof e->p);
    break;
  case 2:
    memcpy(&e->p, &s->p, TWO_UNITS);
    break;
  case 3:
    memcpy(&e->p, &s->p, THREE_UNITS);
    break;
  case 4:
    memcpy(&e->p, &s->p, FOUR_UNITS);
    break;
  default:
    memcpy(&e->p, &s->p, sizeof e->p);
    break;
  }
}

NOINLINE_HANDLER static void on_start(cs_assembler *a, const cs_rec_start *s,
                                      int32_t tid) {
  /* The slot is found once, for the duplicate test and the insertion
   * (nothing in between changes the table). */
  live_slot *slot = live_slot_of(a, s->h.id);
  if (slot->e && slot->id == s->h.id)
    return; /* ids are never reused: a duplicate is noise */
  cs_event *e = a->c.live_now < a->cfg.max_live ? event_alloc(a) : NULL;
  if (!e) {
    a->c.live_cap_drops++;
    ended_remember_dropped(a, s);
    return;
  }
  event_init(e, s, tid);
  payload_copy(e, s);

  parent_ref parent = find_parent(a, e);
  if (!check_parent(a, e, parent)) {
    parent.live = NULL;
    parent.ended = NULL;
  }
  resolve_owner(e, s, parent);
  resolve_rank(e, s);
  if (e->etype == CS_EV_PROXY_OP)
    memset(e->open_steps, 0, sizeof e->open_steps);

  if (!live_put(a, slot, e)) {
    event_free(a, e);
    a->c.live_cap_drops++;
    ended_remember_dropped(a, s);
    return;
  }
  a->c.starts++;
  a->c.live_now++;
  if (e->parent_kind == CS_PARENT_DROPPED)
    a->c.parents_dropped++;
  if (a->c.live_now > a->c.live_high_water)
    a->c.live_high_water = a->c.live_now;
  check_accounting(a);
  if (e->etype == CS_EV_PROXY_STEP)
    note_step_start(a, e, parent.live);
  if (a->cfg.on_start)
    a->cfg.on_start(a->cfg.arg, e);

  early_stop *early =
      a->early.count ? cs_u64map_remove(&a->early, e->id) : NULL;
  if (early) {
    apply_stop(a, e, early->raw, early->tid);
    free(early);
  }
}

/* ---- STATE ---- */

/* A STATE record as the event keeps it: RCCL's two extra words only when
 * the record says it carries them (otherwise they were never written). */
static cs_state_rec state_from_record(const cs_rec_state *r) {
  bool diag = (r->h.flags & CS_STATE_HAS_DIAG) != 0;
  cs_state_rec s = {.state = r->h.aux,
                    .repeat = 1,
                    .raw_ts = r->h.ts,
                    .last_raw_ts = r->h.ts,
                    .arg = r->arg,
                    .arg2 = diag ? r->arg2 : 0,
                    .arg3 = diag ? r->arg3 : 0,
                    .has_diag = diag};
  return s;
}

/* Twice the room for states (out of line: most events keep to the
 * inline ones). False when there is no memory. */
NOINLINE_HANDLER static bool states_grow(cs_event *e) {
  uint32_t cap = e->cap_states * 2;
  cs_state_rec *s = malloc(cap * sizeof *s);
  if (!s)
    return false;
  memcpy(s, e->states, e->nstates * sizeof *s);
  if (e->states != e->inline_states)
    free(e->states);
  e->states = s;
  e->cap_states = cap;
  return true;
}

/* The state `r` added to e's array, or counted as a repeat of the last
 * one (its fields compared with the record's directly: a state without
 * RCCL's words keeps them 0, so they need comparing only with them).
 * False when the array is full: the caller grows it, out of line. */
static inline bool state_append_in_place(cs_event *e, const cs_rec_state *r) {
  uint32_t n = e->nstates;
  bool diag = (r->h.flags & CS_STATE_HAS_DIAG) != 0;
  if (n > 0) {
    cs_state_rec *last = &e->states[n - 1];
    if (last->state == r->h.aux && last->arg == r->arg &&
        last->has_diag == diag &&
        (!diag || (last->arg2 == r->arg2 && last->arg3 == r->arg3))) {
      last->repeat++;
      last->last_raw_ts = r->h.ts;
      return true;
    }
  }
  if (n == e->cap_states)
    return false;
  /* Stored field by field from the record (as state_from_record makes
   * it): no copy built in registers first, none to save. */
  cs_state_rec *s = &e->states[n];
  s->state = r->h.aux;
  s->repeat = 1;
  s->raw_ts = r->h.ts;
  s->last_raw_ts = r->h.ts;
  s->arg = r->arg;
  s->arg2 = 0;
  s->arg3 = 0;
  if (diag) {
    s->arg2 = r->arg2;
    s->arg3 = r->arg3;
  }
  s->has_diag = diag;
  e->nstates = n + 1;
  return true;
}

/* What a state says besides itself: a sign of life, and a ProxyOp's
 * progress. */
static inline void state_seen(cs_event *e, const cs_rec_state *r) {
  if (r->h.ts > e->activity_raw)
    e->activity_raw = r->h.ts;
  if (e->etype == CS_EV_PROXY_OP &&
      r->h.aux == 19 /* ncclProfilerProxyOpInProgress_v4 */)
    e->progressed = true;
}

/* A state whose event is no longer (or never was) live. */
NOINLINE_HANDLER static void
on_state_not_live(cs_assembler *a, const cs_rec_state *r, int32_t tid) {
  const ended_info *x = ended_lookup(a, r->h.id);
  if (!x || x->dropped) {
    a->c.orphan_states++; /* no event to attach it to in the output */
    return;
  }
  a->c.late_states++;
  if (a->cfg.on_late_state) {
    cs_state_rec s = state_from_record(r);
    a->cfg.on_late_state(a->cfg.arg, r->h.id, &s, tid, x->etype);
  }
}

/* A state whose event is not in the live table (it may be in the
 * overflow map, or not live at all), or whose array is full. */
NOINLINE_HANDLER static void on_state_rare(cs_assembler *a,
                                           const cs_rec_state *r, int32_t tid) {
  cs_event *e = live_get(a, r->h.id);
  if (!e) {
    on_state_not_live(a, r, tid);
    return;
  }
  /* Full: grown, then added (the repeat test fails again: nothing
   * changed); without memory the states kept are what we have. */
  if (!state_append_in_place(e, r) && states_grow(e))
    state_append_in_place(e, r);
  state_seen(e, r);
}

/* The common path makes no call (the rare ones are a jump to
 * on_state_rare), so it saves no registers: states are ~40 % of the
 * records. */
NOINLINE_HANDLER static void on_state(cs_assembler *a, const cs_rec_state *r,
                                      int32_t tid) {
  cs_event *e = live_recent(a, r->h.id);
  if (!e || !state_append_in_place(e, r)) {
    on_state_rare(a, r, tid);
    return;
  }
  state_seen(e, r);
}

/* ---- STOP ---- */

NOINLINE_HANDLER static void on_stop(cs_assembler *a, const cs_rec_stop *r,
                                     int32_t tid) {
  cs_event *e = live_get(a, r->h.id);
  if (e) { /* apply_stop, the ending inline */
    e->stop_raw = r->h.ts;
    e->stop_tid = tid;
    end_event_as(a, e, CS_END_STOPPED, CS_RECLAIM_NONE, r->h.ts);
    return;
  }
  const ended_info *x = ended_lookup(a, r->h.id);
  if (x && x->dropped) {
    a->c.unmatched_stops++; /* its start was dropped here */
    return;
  }
  if (x) {
    a->c.double_stops++; /* e.g. CollApi stopped twice (§10.6) */
    return;
  }
  if (cs_u64map_get(&a->early, r->h.id)) {
    a->c.double_stops++;
    return;
  }
  early_stop *early = malloc(sizeof *early);
  if (!early || !cs_u64map_put(&a->early, r->h.id, early)) {
    free(early);
    a->c.unmatched_stops++;
    return;
  }
  early->raw = r->h.ts;
  early->tid = tid;
  early->ticks_waited = 0;
}

void cs_asm_record(cs_assembler *a, const cs_unit *rec, int32_t tid) {
  switch (rec->h.kind) {
  case CS_REC_START:
    on_start(a, (const cs_rec_start *)rec, tid);
    break;
  case CS_REC_STATE:
    on_state(a, (const cs_rec_state *)rec, tid);
    break;
  case CS_REC_STOP:
    on_stop(a, (const cs_rec_stop *)rec, tid);
    break;
  default:
    break;
  }
}

/* ---- periodic reclaim ---- */

static bool parent_ended_long_ago(const cs_assembler *a, const cs_event *e,
                                  uint64_t now_raw) {
  if (e->parent_kind != CS_PARENT_LOCAL || live_get(a, e->parent))
    return false;
  const ended_info *x = ended_lookup(a, e->parent);
  return x && now_raw - x->end_raw > a->cfg.reclaim_ticks;
}

static cs_reclaim_reason reclaim_reason(const cs_assembler *a,
                                        const cs_event *e, uint64_t now_raw) {
  switch (e->etype) {
  case CS_EV_PROXY_OP:
    /* Started at append but never progressed and never got a step: the
     * transports without profiler calls (CollNet, SHM/P2P memcpy, §6.8). */
    if (!e->progressed && !e->has_children &&
        now_raw - e->start_raw > a->cfg.reclaim_ticks)
      return CS_RECLAIM_NO_PROGRESS;
    return CS_RECLAIM_NONE;
  case CS_EV_PROXY_STEP:
  case CS_EV_NET_PLUGIN:
    return parent_ended_long_ago(a, e, now_raw) ? CS_RECLAIM_PARENT_STOPPED
                                                : CS_RECLAIM_NONE;
  default:
    return CS_RECLAIM_NONE;
  }
}

typedef enum {
  RECLAIM_STALE,     /* what will never stop (periodic) */
  RECLAIM_CONTEXT,   /* leftovers of one finalized context */
  RECLAIM_EVERYTHING /* session end or exit */
} reclaim_mode;

/* Collect first, end afterwards: ending mutates the live map. */
static void reclaim_matching(cs_assembler *a, uint64_t now_raw,
                             uint32_t only_ctx, reclaim_mode mode,
                             cs_end_kind everything_end,
                             cs_reclaim_reason everything_reason) {
  size_t n = 0, max = a->c.live_now;
  if (max == 0)
    return;
  cs_event **victims = malloc(max * sizeof *victims);
  cs_reclaim_reason *why = malloc(max * sizeof *why);
  if (!victims || !why) {
    free(victims);
    free(why);
    return;
  }
  size_t nlive = live_collect(a, victims, max);
  for (size_t i = 0; i < nlive; i++) {
    cs_event *e = victims[i];
    cs_reclaim_reason r;
    if (mode == RECLAIM_EVERYTHING) {
      r = everything_reason;
    } else if (mode == RECLAIM_CONTEXT) {
      /* A shared proxy keeps using a finalized context for ProxyCtrl. */
      if (e->ctx != only_ctx || e->foreign_owner ||
          e->etype == CS_EV_PROXY_CTRL)
        continue;
      r = CS_RECLAIM_FINALIZE;
    } else {
      r = reclaim_reason(a, e, now_raw);
      if (r == CS_RECLAIM_NONE)
        continue;
    }
    victims[n] = e;
    why[n] = r;
    n++;
  }
  /* Ending a ProxyOp reclaims its steps, which may be later victims:
   * re-check liveness by id before ending each one. */
  for (size_t i = 0; i < n; i++) {
    cs_event *e = live_get(a, victims[i]->id);
    if (e != victims[i])
      continue;
    cs_end_kind end =
        mode == RECLAIM_EVERYTHING ? everything_end : CS_END_RECLAIMED;
    end_event(a, e, end, why[i], now_raw);
  }
  free(victims);
  free(why);
}

void cs_asm_tick(cs_assembler *a, uint64_t now_raw) {
  /* Stops whose start never came: the start was dropped (ring full) or the
   * handle was never ours. Collect first: removal reshuffles the map. */
  uint64_t expired[64];
  size_t n = 0, cap = cs_u64map_capacity(&a->early);
  for (size_t i = 0; i < cap && n < 64; i++) {
    if (!a->early.slots[i].key)
      continue;
    early_stop *s = a->early.slots[i].value;
    if (++s->ticks_waited > EARLY_STOP_MAX_TICKS)
      expired[n++] = a->early.slots[i].key;
  }
  for (size_t i = 0; i < n; i++) {
    free(cs_u64map_remove(&a->early, expired[i]));
    a->c.unmatched_stops++;
  }
  reclaim_matching(a, now_raw, 0, RECLAIM_STALE, CS_END_RECLAIMED,
                   CS_RECLAIM_NONE);
}

void cs_asm_context_finalized(cs_assembler *a, uint32_t ctx, uint64_t now_raw) {
  reclaim_matching(a, now_raw, ctx, RECLAIM_CONTEXT, CS_END_RECLAIMED,
                   CS_RECLAIM_FINALIZE);
}

void cs_asm_end_all(cs_assembler *a, cs_end_kind end, cs_reclaim_reason reason,
                    uint64_t now_raw) {
  reclaim_matching(a, now_raw, 0, RECLAIM_EVERYTHING, end, reason);
  size_t cap = cs_u64map_capacity(&a->early);
  for (size_t i = 0; i < cap; i++) {
    if (a->early.slots[i].key) {
      free(a->early.slots[i].value);
      a->c.unmatched_stops++;
      a->early.slots[i].key = 0;
      a->early.slots[i].value = NULL;
    }
  }
  a->early.count = 0;
}
