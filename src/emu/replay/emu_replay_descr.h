/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay_descr.h — a recorded event's `details` and `states`
 * (docs/trace-format.md) turned back into what NCCL passed: the v7
 * descriptor with every field the trace records, strings as NCCL passes
 * them (pointers that stay valid for the whole process), and the state
 * arguments. emu_replay_descr.c; used by emu_replay_load.c.
 */
#ifndef NCCLEMU_REPLAY_DESCR_H
#define NCCLEMU_REPLAY_DESCR_H

#include "read/trace_record.h"
#include "replay/emu_replay_load.h"

/* Fills e->d (type, rank, fields), e->net/e->has_net and e->group_id from
 * the event record `r`. Returns false when the record has no details
 * object (nothing can be rebuilt). */
bool emu_rp_descr_from_record(emu_rp_event *e, const rec *r);

/* One entry of a "states" array (or a late state record's "state"):
 * its call (id, args), when it happened, and how many identical calls it
 * stands for (`count`, the last at `last_ts`). Returns false when the
 * entry has no id or no ts. */
typedef struct emu_rp_state_entry {
  emu_rp_state state;
  int64_t ts;
  int64_t last_ts;
  uint32_t count;
} emu_rp_state_entry;
bool emu_rp_state_from_json(const js_value *v, const char *base,
                            emu_rp_state_entry *out);

/* A string kept for the life of the process (the same text, the same
 * pointer). NULL for a JSON null or a non-string. */
const char *emu_rp_intern(const js_value *v);
const char *emu_rp_intern_text(const char *s);

#endif
