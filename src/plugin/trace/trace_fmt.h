/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_fmt.h — the text of an event line and of a timing
 * line (docs/trace-format.md), made from an assembled event (cs_event) or a
 * timing record (cs_timing) and a small formatting context, without the
 * plugin's globals.
 *
 * Owns: the two hot formatters and the pieces they cache. The plugin's JSONL
 * sink (trace_jsonl.c) calls them with its clock's conversions and the
 * context it looked up in its table (inline, in its own file); the CLI
 * (src/cli/read/cst_records.c) calls the same code with what a compact
 * binary record holds and the context its frame described, so that a binary
 * trace reads back as exactly the lines a JSONL run writes. One context per
 * file; not thread-safe.
 */
#ifndef CCLSCOPE_TRACE_FMT_H
#define CCLSCOPE_TRACE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "assembler.h"
#include "completion.h"
#include "cursor.h"
#include "event_types.h"

/* The room a context's name may take, its NUL included (hot/context.h's
 * comm_name); a timing line's size bound counts on it. */
#define CS_FMT_COMM_NAME_MAX 128

/* What the formatters read of a communicator's context. */
typedef struct {
  bool has_comm_info; /* v4+: NCCL passed commId, ranks, name */
  uint64_t comm_id;
  int abi;               /* profiler ABI version (state names) */
  int device;            /* device ordinal, -1 = unknown */
  const char *comm_name; /* "" when none (read only with has_comm_info) */
} cs_fmt_comm;

/* Pre-formatted pieces that repeat on every line (writer-side speed). */
#define CS_TRACE_TID_CACHE 256
#define CS_TRACE_CTX_CACHE 64
typedef struct {
  int32_t tid;
  uint8_t len;
  char text[48]; /* ,"pid":P,"tid":T} */
} cs_tid_piece;
typedef struct {
  uint32_t ctx; /* 0 = empty */
  bool has_comm;
  uint8_t len;
  uint8_t comm_id_at; /* where "commId" begins in text */
  char text[64];      /* "ctx":N,"commId":"0x..." */
} cs_ctx_piece;
typedef struct {
  cs_cur_ts_cache ts;
  cs_tid_piece tids[CS_TRACE_TID_CACHE];
  cs_ctx_piece ctxs[CS_TRACE_CTX_CACHE];
  char event_head[CS_EV_COUNT][80]; /* {"recordType":"event","type":"…","id": */
  uint8_t event_head_len[CS_EV_COUNT];
  char state_head[31][64]; /* {"name":"…","id":N,"ts": */
  uint8_t state_head_len[31];
  /* "runId":…,"globalRank":…,"hostname":…,"pid":… of timing records;
   * identity_len 0 when it did not fit (then formatted on each record). */
  char identity[768];
  uint16_t identity_len;
} cs_fmt_pieces;

/* The keys of an event line's top-level members, in the order the
 * formatter writes them (a line has each at most once). */
typedef enum {
  CS_FK_RECORD_TYPE,
  CS_FK_TYPE,
  CS_FK_ID,
  CS_FK_PARENT_ID,
  CS_FK_PARENT_STATUS,
  CS_FK_PARENT_HINT,
  CS_FK_PARENT_RAW,
  CS_FK_CTX,
  CS_FK_COMM_ID,
  CS_FK_RANK,
  CS_FK_IS_PXN,
  CS_FK_ORIGIN_PID,
  CS_FK_FUNC,
  CS_FK_START,
  CS_FK_STOP,
  CS_FK_DURATION,
  CS_FK_END,
  CS_FK_RECLAIM_REASON,
  CS_FK_END_TS,
  CS_FK_DETAILS,
  CS_FK_STATES,
  CS_FK_COUNT
} cs_fmt_key;

/* The key's name as the line spells it ("recordType", "parentId", ...). */
const char *cs_fmt_key_name(cs_fmt_key k);

/* Where each top-level member of an event line begins, as
 * cs_fmt_event_members wrote it: member i's key is key[i] (a cs_fmt_key)
 * and its key's opening quote is at[i] bytes into the line; its value runs
 * from past the ':' to the ',' before member i + 1 (the last: to the
 * closing brace). Bit i of `escaped`: member i is a string with an escape
 * in it. A reader that made the line (src/cli/read/line_members.h) takes
 * its members from this without scanning the line. */
typedef struct {
  const char *line; /* where the line begins */
  uint32_t n;
  uint32_t escaped;
  uint8_t key[CS_FK_COUNT];
  uint32_t at[CS_FK_COUNT];
} cs_fmt_members;

/* The formatting context: who writes. Each caller looks an event's context
 * up in its own table and passes it in (NULL when there is none: unknown,
 * finalized), so that the plugin's lookup stays inline in its sink. */
typedef struct {
  int32_t pid;
  bool rccl;            /* the host is RCCL (names of states 31 and up) */
  int default_abi;      /* ABI for states of an event without a context */
  const char *run_id;   /* timing identity (may be NULL) */
  const char *hostname; /* ... (may be NULL) */
  int global_rank;      /* ... -1 = none */
  cs_fmt_pieces pieces;
} cs_fmt;

/* Fill the pieces; call after setting the fields above, and again when
 * pid, run_id, hostname or global_rank change. */
void cs_fmt_init(cs_fmt *f);

/* An event's times as epoch nanoseconds (the plugin converts its raw
 * stamps; a binary trace holds them converted). */
typedef struct {
  int64_t start_ns;
  int64_t end_ns;      /* its stop (STOPPED), or when it was given up */
  const char *reclaim; /* RECLAIMED: the reason's name */
  /* Per state i: state_ns[2i] its stamp, state_ns[2i+1] the last repeat's
   * (read only when repeat > 1). */
  const int64_t *state_ns;
} cs_fmt_times;

/* The line at p (cs_fmt_event_max bytes of room) of event `e`, whose
 * context `comm` is (NULL: none); the end. */
char *cs_fmt_event(cs_fmt *f, char *p, const cs_event *e,
                   const cs_fmt_comm *comm, const cs_fmt_times *t);
/* The same line, and where each of its top-level members begins, in *m.
 * The plugin calls cs_fmt_event, which pays nothing for this. */
char *cs_fmt_event_members(cs_fmt *f, char *p, const cs_event *e,
                           const cs_fmt_comm *comm, const cs_fmt_times *t,
                           cs_fmt_members *m);

/* One state entry {"name":…}, the most it takes, and its stamps in ns. */
#define CS_FMT_STATE_MAX 280
char *cs_fmt_state(cs_fmt *f, char *p, const cs_state_rec *s, int abi,
                   int64_t ts_ns, int64_t last_ns);

/* Bytes the strings of an event's details can need once escaped. */
static inline size_t cs_fmt_strings_max(const cs_event *e) {
  const char *s[4] = {NULL, NULL, NULL, NULL};
  switch (e->etype) {
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    s[0] = e->p.coll_api.func;
    s[1] = e->p.coll_api.datatype;
    break;
  case CS_EV_COLL:
    s[0] = e->p.coll.func;
    s[1] = e->p.coll.datatype;
    s[2] = e->p.coll.algo;
    s[3] = e->p.coll.proto;
    break;
  case CS_EV_P2P:
    s[0] = e->p.p2p.func;
    s[1] = e->p.p2p.datatype;
    break;
  case CS_EV_CE_COLL:
    s[0] = e->p.ce_coll.func;
    s[1] = e->p.ce_coll.datatype;
    s[2] = e->p.ce_coll.sync_strategy;
    break;
  case CS_EV_KERNEL_PHASE:
    s[0] = e->p.kernel_phase.phase_name;
    break;
  default:
    return 0;
  }
  size_t n = 0;
  for (int i = 0; i < 4; i++)
    if (s[i])
      n += CS_CUR_STR_MAX(strlen(s[i]));
  if (e->etype == CS_EV_COLL && e->p.coll.has_kernel_variant &&
      e->p.coll.kernel_variant)
    n += CS_CUR_STR_MAX(strlen(e->p.coll.kernel_variant));
  /* `func` is written twice: on the event and in the strings above. */
  return 2 * n;
}

#define CS_FMT_EVENT_FIXED_MAX 2048 /* everything but strings and states */

/* Bytes an event line can take (without its newline). Inline: the writer
 * asks once per event. */
static inline size_t cs_fmt_event_max(const cs_event *e) {
  return CS_FMT_EVENT_FIXED_MAX + cs_fmt_strings_max(e) +
         (size_t)e->nstates * CS_FMT_STATE_MAX;
}

/* The ABI for an event's states: its context's, else the default. */
static inline int cs_fmt_abi(const cs_fmt *f, const cs_fmt_comm *comm) {
  return comm ? comm->abi : f->default_abi;
}

/* Bytes a timing line can take (without its newline). */
size_t cs_fmt_timing_max(const cs_fmt *f, const cs_timing *r);
/* The line at p (cs_fmt_timing_max bytes of room) of timing record `r`,
 * whose context `comm` is (NULL: none); the end. */
char *cs_fmt_timing(cs_fmt *f, char *p, const cs_timing *r,
                    const cs_fmt_comm *comm);

/* {"ts":…,"pid":P,"tid":T} of an event's start or stop. */
char *cs_fmt_endpoint(cs_fmt *f, char *p, int64_t ns, int32_t tid);

/* "ctx":N,"commId":… of context `ctx` (`comm`, NULL: none; cached per
 * serial). */
char *cs_fmt_comm_piece(cs_fmt *f, char *p, uint32_t ctx,
                        const cs_fmt_comm *comm);

#endif
