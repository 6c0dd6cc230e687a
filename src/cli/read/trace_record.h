/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_record.h — one trace line as typed fields
 * (docs/trace-format.md).
 *
 * Owns: record and event type names, and decoding the fields that every
 * command needs (record type, event identity, parent, owner, start/stop,
 * end) from a line. Everything else stays as js_value spans in `top`, read
 * on demand (details, states, counters...). A record is only valid until
 * the next line is decoded with the same scratch.
 */
#ifndef CCLSCOPE_CLI_TRACE_RECORD_H
#define CCLSCOPE_CLI_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/jsonl_scan.h"
#include "read/line_members.h"

typedef enum {
  RT_UNKNOWN = 0, /* a recordType this build does not know (or none) */
  RT_PROCESS,
  RT_THREAD,
  RT_EVENT, /* NCCL events and ProfilerLifecycle records */
  RT_TIMING,
  RT_STATE,
  RT_MARK,
  RT_PAD,
  RT_PROCESS_END,
  RT_ACCOUNTING, /* what the file lost (docs/trace-format.md): the second
                   line of files written since 2026-11 */
  /* a GPU activity (kernel, copy) measured by a tool beside NCCL: CUPTI
   * records of a minimal_profiler file (docs/trace-format.md) */
  RT_GPU_ACTIVITY
} rec_type;

/* Event types: the numbering of NCCL's type bits (bit index), as in the
 * plugin, so that parent-type tables can be bit masks. */
typedef enum {
  ET_GROUP = 0,
  ET_COLL = 1,
  ET_P2P = 2,
  ET_PROXY_OP = 3,
  ET_PROXY_STEP = 4,
  ET_PROXY_CTRL = 5,
  ET_KERNEL_CH = 6,
  ET_NET_PLUGIN = 7,
  ET_GROUP_API = 8,
  ET_COLL_API = 9,
  ET_P2P_API = 10,
  ET_KERNEL_LAUNCH = 11,
  ET_CE_COLL = 12,
  ET_CE_SYNC = 13,
  ET_CE_BATCH = 14,
  ET_KERNEL_PHASE = 15,
  ET_PROXY_DIAG = 16, /* RCCL (its bit 16; bit 15 in RCCL's v6 builds) */
  ET_UNKNOWN = 17,    /* "unknown" or a name this build does not know */
  ET_LIFECYCLE = 18,
  ET_COUNT = 19
} ev_type;

typedef enum {
  END_NONE = 0, /* no "end" key */
  END_STOPPED,
  END_RECLAIMED,
  END_INFLIGHT,
  END_BAD /* a value this build does not know */
} end_kind;

typedef enum {
  PAR_NONE = 0, /* parentId null, no parentStatus */
  PAR_LOCAL,    /* parentId names an event of this file */
  PAR_FOREIGN,  /* PXN: parentRaw names an event of another process */
  PAR_UNKNOWN,  /* parentStatus "unknown" */
  PAR_DROPPED,  /* parentStatus "dropped": the parent's record was dropped */
  PAR_BAD       /* malformed parent fields */
} parent_kind;

/* {ts, pid, tid} of start/stop. */
typedef struct {
  int64_t ts; /* ns since the epoch */
  int64_t pid;
  int64_t tid;
  bool present; /* an object with a valid ts */
} rec_point;

/* Scratch space reused from line to line (one per reader). */
typedef struct {
  js_fields top;
  js_fields point;
  js_fields sub; /* details, counters, timing sub-objects */
  js_fields state;
} rec_scratch;

typedef struct {
  rec_type rt;
  const char *line;
  size_t len;
  js_fields *f; /* top-level members */
  /* RT_EVENT (and RT_GPU_ACTIVITY: ctx, comm_id, rank, start, stop) */
  ev_type et;
  bool has_id;
  uint64_t id;
  parent_kind parent;
  uint64_t parent_id;  /* PAR_LOCAL */
  uint64_t parent_raw; /* PAR_FOREIGN, PAR_UNKNOWN (raw or hint) */
  bool has_ctx;
  int64_t ctx;
  bool has_comm;
  uint64_t comm_id;
  int64_t rank; /* -1 when absent */
  rec_point start;
  rec_point stop;
  end_kind end;
  bool has_end_ts;
  int64_t end_ts;
  /* RT_PROCESS, RT_THREAD, RT_MARK, RT_PROCESS_END: "ts" if present */
  bool has_ts;
  int64_t ts;
} rec;

/* The fields of an RT_ACCOUNTING record. */
typedef struct {
  uint64_t lines_lost; /* every line that did not reach the file */
  uint64_t bytes_lost;
  uint64_t write_errors;
  int64_t write_errno; /* of the last failed write, 0 = none */
  uint64_t compress_errors;
  uint64_t lines_lost_compressing; /* of lines_lost */
  bool closed;                     /* "reason" is set: the file was closed */
  char reason[16];
  uint64_t events_written; /* as processEnd's, when closed */
  uint64_t dropped_starts, dropped_states, dropped_stops;
} rec_accounting;

void rec_scratch_init(rec_scratch *s);

/* A line that came decoded (a binary trace's event lines:
 * trace_reader.h's decoded and marks): *r becomes `given` for line[0,
 * len), and s->top its top-level members, found from the marks
 * (line_members.h), as rec_decode would have left them. False when the
 * marks do not fit the line (then rec_decode it). */
bool rec_take_decoded(rec *r, rec_scratch *s, const rec *given,
                      const line_marks *marks, const char *line, size_t len);

/* Read an RT_ACCOUNTING record's fields. False when one of its numbers is
 * missing or not a number (*a then holds what was read). */
bool rec_accounting_decode(const rec *r, rec_accounting *a);

/* Decode one line (without its newline). Returns false when the line is
 * not a JSON object; s->top.error/error_at say why. A valid object with an
 * unknown recordType decodes as RT_UNKNOWN. */
bool rec_decode(rec *r, rec_scratch *s, const char *line, size_t len);

/* rec_decode for a reader that only orders lines (merge): the same answer
 * (false for a line that is not a JSON object), the same rt, top-level
 * members, start, stop, endTs and ts, so rec_start_time and
 * rec_write_time give what they give after rec_decode; an event's other
 * fields (type, ids, parent, ctx, comm, rank, end) are left unset. */
bool rec_decode_times(rec *r, rec_scratch *s, const char *line, size_t len);
/* rec_decode_times without the stop and endTs: only rec_start_time gives
 * what it gives after rec_decode (for a reader that orders by start). */
bool rec_decode_start_time(rec *r, rec_scratch *s, const char *line,
                           size_t len);

/* One entry of an event's "states" (docs/trace-format.md): what the
 * readers use of it. */
typedef struct {
  js_value name; /* JS_NONE when absent */
  bool has_id;
  int64_t id;
  bool has_ts;
  int64_t ts; /* ns since the epoch */
  bool has_size;
  uint64_t size;       /* "transSize", as js_to_u64 leaves it */
  js_value size_value; /* "transSize" as written (JS_NONE when absent) */
} rec_state;

/* The entries of an event's "states", one at a time. The plugin writes
 * each as {"name":"…","id":N,"ts":T} with "transSize" after some: that
 * form is read in one pass; any other entry goes through the scanner
 * (`scratch`), with the same answers. Entries that are not objects are
 * skipped. */
typedef struct {
  js_iter it;
  js_fields *scratch;
} rec_states_iter;

/* False when the record has no "states" array. */
bool rec_states_begin(rec_states_iter *it, const rec *r, js_fields *scratch);
bool rec_states_next(rec_states_iter *it, rec_state *out);

/* A ProxyStep's link, as its "details" hold it. */
typedef struct {
  bool has_peer;
  int64_t peer;
  int64_t channel; /* "channelId", -1 when absent */
  bool has_is_send;
  bool is_send;
} rec_step_link;

/* Read it: the plugin's form {"step":N,"peer":N,"channelId":N,
 * "isSend":B} in one pass, any other through `scratch`, with the same
 * answers. False when the record has no "details" object. */
bool rec_step_link_decode(const rec *r, js_fields *scratch, rec_step_link *out);

/* Decode a {ts,pid,tid} object. */
bool rec_point_decode(const js_value *v, js_fields *scratch, const char *base,
                      rec_point *out);

/* The times of a timing record, ns since the epoch; INT64_MIN when absent
 * or null. Format version 2 writes them as integers under "apiNs",
 * "enqueueStartNs", "enqueueStopNs", "startNs", "stopNs", "durationNs";
 * version 1 as fractional microseconds under "apiTs", "enqueue":{"start",
 * "stop"}, "start", "stop", "duration". Both decode to the same numbers
 * (docs/trace-format.md). */
typedef struct {
  int64_t api;       /* CollApi/P2pApi start: the rank's arrival */
  int64_t enq_start; /* the Coll/P2p event's own start and stop */
  int64_t enq_stop;
  int64_t start; /* the span "source" names */
  int64_t stop;
  int64_t duration; /* as written */
} rec_timing;

/* Decode an RT_TIMING record's times; `sub` is scratch for the version 1
 * "enqueue" object. */
void rec_timing_decode(const rec *r, js_fields *sub, rec_timing *out);

/* The start and stop (ns) of a span object inside a timing record ("gpu",
 * "proxy", a phase of "phases"): "startNs"/"stopNs" (version 2) or
 * "start"/"stop" (version 1). False when either is missing. */
bool rec_timing_span(const js_value *obj, js_fields *scratch, const char *base,
                     int64_t *start, int64_t *stop);

/* Time the record was written (events: stop or endTs; others: ts) and the
 * time it starts (events: start; timing: start; others: ts). INT64_MIN when
 * the record has no time. */
int64_t rec_write_time(const rec *r);
int64_t rec_start_time(const rec *r);

/* End time of an event: stop.ts, else endTs, else INT64_MIN. */
int64_t rec_end_time(const rec *r);

ev_type ev_type_from_json(const js_value *v);
const char *ev_type_json_name(ev_type t);  /* "ncclProfileColl" */
const char *ev_type_short_name(ev_type t); /* "Coll" */

/* Legal parent types of a child type, as bits of ev_type: the shared table
 * of src/common/nccl_names.c, which the plugin's assembler
 * (src/plugin/writer/assembler.c) checks too. */
uint32_t ev_legal_parents(ev_type child);

#endif
