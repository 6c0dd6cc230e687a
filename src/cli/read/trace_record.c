/*
 * src/cli/read/trace_record.c — decoding trace lines into `rec` (see
 * trace_record.h).
 */
#include "read/trace_record.h"

#include <string.h>

static const char *const json_names[ET_COUNT] = {
    [ET_GROUP] = "ncclProfileGroup",
    [ET_COLL] = "ncclProfileColl",
    [ET_P2P] = "ncclProfileP2p",
    [ET_PROXY_OP] = "ncclProfileProxyOp",
    [ET_PROXY_STEP] = "ncclProfileProxyStep",
    [ET_PROXY_CTRL] = "ncclProfileProxyCtrl",
    [ET_KERNEL_CH] = "ncclProfileKernelCh",
    [ET_NET_PLUGIN] = "ncclProfileNetPlugin",
    [ET_GROUP_API] = "ncclProfileGroupApi",
    [ET_COLL_API] = "ncclProfileCollApi",
    [ET_P2P_API] = "ncclProfileP2pApi",
    [ET_KERNEL_LAUNCH] = "ncclProfileKernelLaunch",
    [ET_CE_COLL] = "ncclProfileCeColl",
    [ET_CE_SYNC] = "ncclProfileCeSync",
    [ET_CE_BATCH] = "ncclProfileCeBatch",
    [ET_KERNEL_PHASE] = "ncclProfileKernelPhase",
    [ET_UNKNOWN] = "unknown",
    [ET_LIFECYCLE] = "ProfilerLifecycle",
};

const char *ev_type_json_name(ev_type t) {
  return (unsigned)t < ET_COUNT ? json_names[t] : "unknown";
}

const char *ev_type_short_name(ev_type t) {
  const char *n = ev_type_json_name(t);
  return strncmp(n, "ncclProfile", 11) == 0 ? n + 11 : n;
}

ev_type ev_type_from_json(const js_value *v) {
  if (!v || v->type != JS_STRING)
    return ET_UNKNOWN;
  const char *p = v->ptr;
  size_t n = v->len;
  if (n > 11 && memcmp(p, "ncclProfile", 11) == 0) {
    for (int t = 0; t < ET_UNKNOWN; t++) {
      const char *name = json_names[t] + 11;
      if (strlen(name) == n - 11 && memcmp(name, p + 11, n - 11) == 0)
        return (ev_type)t;
    }
    return ET_UNKNOWN;
  }
  if (js_str_eq(v, "ProfilerLifecycle"))
    return ET_LIFECYCLE;
  return ET_UNKNOWN;
}

#define BIT(t) (1u << (t))
uint32_t ev_legal_parents(ev_type child) {
  switch (child) {
  case ET_COLL:
    return BIT(ET_COLL_API) | BIT(ET_GROUP);
  case ET_P2P:
    return BIT(ET_P2P_API) | BIT(ET_GROUP);
  case ET_PROXY_OP:
  case ET_KERNEL_CH:
    return BIT(ET_COLL) | BIT(ET_P2P);
  case ET_PROXY_STEP:
    return BIT(ET_PROXY_OP);
  case ET_NET_PLUGIN:
    return BIT(ET_PROXY_STEP);
  case ET_COLL_API:
  case ET_P2P_API:
  case ET_KERNEL_LAUNCH:
    return BIT(ET_GROUP_API);
  case ET_CE_COLL:
    return BIT(ET_COLL_API);
  case ET_CE_SYNC:
  case ET_CE_BATCH:
    return BIT(ET_CE_COLL);
  case ET_KERNEL_PHASE:
  case ET_UNKNOWN:
    return 0xFFFFFFFFu; /* not documented: anything goes */
  default:
    return 0; /* Group, ProxyCtrl, GroupApi, lifecycle: no parent */
  }
}
#undef BIT

void rec_scratch_init(rec_scratch *s) {
  js_fields_init(&s->top);
  js_fields_init(&s->point);
  js_fields_init(&s->sub);
  js_fields_init(&s->state);
}

static rec_type rec_type_from_json(const js_value *v) {
  if (!v || v->type != JS_STRING)
    return RT_UNKNOWN;
  static const struct {
    const char *name;
    rec_type rt;
  } names[] = {{"event", RT_EVENT},   {"process", RT_PROCESS},
               {"thread", RT_THREAD}, {"timing", RT_TIMING},
               {"state", RT_STATE},   {"mark", RT_MARK},
               {"pad", RT_PAD},       {"processEnd", RT_PROCESS_END}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (js_str_eq(v, names[i].name))
      return names[i].rt;
  return RT_UNKNOWN;
}

bool rec_point_decode(const js_value *v, js_fields *scratch, const char *base,
                      rec_point *out) {
  out->present = false;
  out->ts = 0;
  out->pid = -1;
  out->tid = -1;
  if (!v || v->type != JS_OBJECT)
    return false;
  if (!js_fields_decode(scratch, v->ptr, v->ptr + v->len, base, false))
    return false;
  if (!js_to_ns(js_get(scratch, K_ts), &out->ts))
    return false;
  js_to_i64(js_get(scratch, K_pid), &out->pid);
  js_to_i64(js_get(scratch, K_tid), &out->tid);
  out->present = true;
  return true;
}

static end_kind end_from_json(const js_value *v) {
  if (!v)
    return END_NONE;
  if (js_str_eq(v, "stopped"))
    return END_STOPPED;
  if (js_str_eq(v, "reclaimed"))
    return END_RECLAIMED;
  if (js_str_eq(v, "inflight"))
    return END_INFLIGHT;
  return END_BAD;
}

static void decode_parent(rec *r, const js_fields *f) {
  const js_value *pid = js_get(f, K_parentId);
  const js_value *status = js_get(f, K_parentStatus);
  r->parent = PAR_NONE;
  r->parent_id = 0;
  r->parent_raw = 0;
  if (pid && pid->type != JS_NULL) {
    r->parent =
        js_to_hex_u64(pid, &r->parent_id) && !status ? PAR_LOCAL : PAR_BAD;
    return;
  }
  if (!status)
    return;
  const js_value *raw = js_get(f, K_parentRaw);
  if (js_str_eq(status, "foreign")) {
    r->parent = js_to_hex_u64(raw, &r->parent_raw) ? PAR_FOREIGN : PAR_BAD;
  } else if (js_str_eq(status, "unknown")) {
    if (!raw)
      raw = js_get(f, K_parentHint);
    r->parent = js_to_hex_u64(raw, &r->parent_raw) ? PAR_UNKNOWN : PAR_BAD;
  } else if (js_str_eq(status, "dropped")) {
    r->parent = PAR_DROPPED;
  } else {
    r->parent = PAR_BAD;
  }
}

static void decode_event(rec *r, rec_scratch *s) {
  js_fields *f = &s->top;
  r->et = ev_type_from_json(js_get(f, K_type));
  r->has_id = js_to_hex_u64(js_get(f, K_id), &r->id);
  decode_parent(r, f);
  r->has_ctx = js_to_i64(js_get(f, K_ctx), &r->ctx);
  r->has_comm = js_to_hex_u64(js_get(f, K_commId), &r->comm_id);
  if (!js_to_i64(js_get(f, K_rank), &r->rank))
    r->rank = -1;
  rec_point_decode(js_get(f, K_start), &s->point, r->line, &r->start);
  rec_point_decode(js_get(f, K_stop), &s->point, r->line, &r->stop);
  r->end = end_from_json(js_get(f, K_end));
  r->has_end_ts = js_to_ns(js_get(f, K_endTs), &r->end_ts);
  if (r->et == ET_LIFECYCLE && r->end == END_NONE && r->stop.present)
    r->end = END_STOPPED; /* lifecycle records carry no "end" */
}

bool rec_decode(rec *r, rec_scratch *s, const char *line, size_t len) {
  memset(r, 0, sizeof *r);
  r->line = line;
  r->len = len;
  r->f = &s->top;
  r->rank = -1;
  if (!js_fields_decode(&s->top, line, line + len, line, true))
    return false;
  r->rt = rec_type_from_json(js_get(&s->top, K_recordType));
  if (r->rt == RT_EVENT)
    decode_event(r, s);
  r->has_ts = js_to_ns(js_get(&s->top, K_ts), &r->ts);
  return true;
}

int64_t rec_end_time(const rec *r) {
  if (r->stop.present)
    return r->stop.ts;
  if (r->has_end_ts)
    return r->end_ts;
  return INT64_MIN;
}

static int64_t timing_field(const rec *r, js_key k) {
  int64_t v;
  if (js_to_ns(js_get(r->f, k), &v))
    return v;
  return INT64_MIN;
}

int64_t rec_write_time(const rec *r) {
  switch (r->rt) {
  case RT_EVENT: {
    int64_t t = rec_end_time(r);
    return t != INT64_MIN ? t : (r->start.present ? r->start.ts : INT64_MIN);
  }
  case RT_TIMING: {
    int64_t t = timing_field(r, K_stop);
    return t != INT64_MIN ? t : timing_field(r, K_start);
  }
  case RT_STATE:
    return INT64_MIN; /* its ts is inside "state" */
  default:
    return r->has_ts ? r->ts : INT64_MIN;
  }
}

int64_t rec_start_time(const rec *r) {
  switch (r->rt) {
  case RT_EVENT:
    return r->start.present ? r->start.ts : INT64_MIN;
  case RT_TIMING:
    return timing_field(r, K_start);
  default:
    return r->has_ts ? r->ts : INT64_MIN;
  }
}
