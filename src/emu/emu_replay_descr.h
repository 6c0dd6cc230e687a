/*
 * src/emu/emu_replay_descr.h — a recorded event's `details` and `states`
 * (docs/trace-format.md) turned back into what NCCL passed: the v7
 * descriptor with every field the trace records, strings as NCCL passes
 * them (pointers that stay valid for the whole process), and the state
 * arguments. emu_replay_descr.c; used by emu_replay_load.c.
 */
#ifndef NCCLEMU_REPLAY_DESCR_H
#define NCCLEMU_REPLAY_DESCR_H

#include "emu_replay_load.h"
#include "read/trace_record.h"

/* Fills e->d (type, rank, fields), e->net/e->has_net and e->group_id from
 * the event record `r`. Returns false when the record has no details
 * object (nothing can be rebuilt). */
bool rp_descr_from_record(rp_event *e, const rec *r);

/* One entry of a "states" array (or a late state record's "state"):
 * its call (id, args), when it happened, and how many identical calls it
 * stands for (`count`, the last at `last_ts`). Returns false when the
 * entry has no id or no ts. */
typedef struct rp_state_entry {
  rp_state state;
  int64_t ts;
  int64_t last_ts;
  uint32_t count;
} rp_state_entry;
bool rp_state_from_json(const js_value *v, const char *base,
                        rp_state_entry *out);

/* A string kept for the life of the process (the same text, the same
 * pointer). NULL for a JSON null or a non-string. */
const char *rp_intern(const js_value *v);
const char *rp_intern_text(const char *s);

#endif
