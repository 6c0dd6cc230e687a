/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_record.c — decoding trace lines into `rec` (see
 * trace_record.h).
 */
#include "read/trace_record.h"

#include <string.h>

#include "nccl_names.h"

/* NCCL's types are the shared vocabulary's (src/common/nccl_names.h, same
 * numbering); "unknown" and the plugin's own lifecycle record are ours. */
const char *ev_type_json_name(ev_type t) {
  if (t == ET_LIFECYCLE)
    return "ProfilerLifecycle";
  const char *name = nccl_event_json_name((int)t);
  return name ? name : "unknown";
}

const char *ev_type_short_name(ev_type t) {
  if (t == ET_LIFECYCLE)
    return "ProfilerLifecycle";
  const char *name = nccl_event_name((int)t);
  return name ? name : "unknown";
}

ev_type ev_type_from_json(const js_value *v) {
  if (!v || v->type != JS_STRING)
    return ET_UNKNOWN;
  int t = nccl_event_from_json_name(v->ptr, v->len);
  if (t >= 0)
    return (ev_type)t;
  if (js_str_eq(v, "ProfilerLifecycle"))
    return ET_LIFECYCLE;
  return ET_UNKNOWN;
}

uint32_t ev_legal_parents(ev_type child) {
  if (child == ET_LIFECYCLE)
    return 0;                                  /* no parent */
  return nccl_event_legal_parents((int)child); /* unknown: anything goes */
}

void rec_scratch_init(rec_scratch *s) {
  js_fields_init(&s->top);
  js_fields_init(&s->point);
  js_fields_init(&s->sub);
  js_fields_init(&s->state);
}

bool rec_take_decoded(rec *r, rec_scratch *s, const rec *given,
                      const line_marks *marks, const char *line, size_t len) {
  js_member_at m[K_KEY_COUNT];
  int n = line_members_of_event(line, len, marks, m, K_KEY_COUNT);
  if (n < 0)
    return false;
  js_fields_reset(&s->top);
  for (int i = 0; i < n; i++)
    js_fields_add_member(&s->top, &m[i], line);
  *r = *given;
  r->line = line;
  r->len = len;
  r->f = &s->top;
  return true;
}

static rec_type rec_type_from_json(const js_value *v) {
  if (!v || v->type != JS_STRING)
    return RT_UNKNOWN;
  static const struct {
    const char *name;
    rec_type rt;
  } names[] = {{"event", RT_EVENT},
               {"process", RT_PROCESS},
               {"thread", RT_THREAD},
               {"timing", RT_TIMING},
               {"state", RT_STATE},
               {"mark", RT_MARK},
               {"pad", RT_PAD},
               {"processEnd", RT_PROCESS_END},
               {"accounting", RT_ACCOUNTING},
               {"gpuActivity", RT_GPU_ACTIVITY}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (js_str_eq(v, names[i].name))
      return names[i].rt;
  return RT_UNKNOWN;
}

/* `*p` starts with `text`: true, and *p moves past it. */
static inline bool literal(const char **p, const char *end, const char *text,
                           size_t text_len) {
  if ((size_t)(end - *p) < text_len || memcmp(*p, text, text_len) != 0)
    return false;
  *p += text_len;
  return true;
}

static inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Could `c` continue a number (a digit, a sign, a point, an exponent)? */
static inline bool continues_number(char c) {
  return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' ||
         c == '-';
}

/* An integer as the plugin writes it: an optional '-' and 1 to 18 digits,
 * not followed by anything that could continue a number. Its value, and
 * *p moves past it; false for any other text (the general path reads it). */
static bool plain_integer(const char **p, const char *end, int64_t *out) {
  const char *q = *p;
  bool neg = q < end && *q == '-';
  q += neg;
  const char *digits = q;
  uint64_t v = 0;
  while (q < end && is_digit(*q) && q - digits < 18)
    v = v * 10 + (uint64_t)(*q++ - '0');
  if (q == digits || (q < end && continues_number(*q)))
    return false;
  *out = neg ? -(int64_t)v : (int64_t)v;
  *p = q;
  return true;
}

/* Eight decimal digits at p (8 bytes readable) as a number: false when
 * one of them is not a digit. The digits are combined in pairs, then
 * fours, then eight, on a little-endian machine (the first byte in the
 * lowest bits); a digit at a time elsewhere. */
static inline bool eight_digits(const char *p, uint64_t *out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t x;
  memcpy(&x, p, 8);
  /* a digit is 0x3N with N <= 9: its high half is 3, and adding 6 keeps
   * it 3 (a byte of 0xFA or more carries, but fails the first test) */
  if (((x & 0xF0F0F0F0F0F0F0F0u) |
       (((x + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
      0x3333333333333333u)
    return false;
  x -= 0x3030303030303030u;
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFu;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFu;
  *out = (x * 10000 + (x >> 32)) & 0xFFFFFFFFu;
  return true;
#else
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) {
    if (!is_digit(p[i]))
      return false;
    v = v * 10 + (uint64_t)(p[i] - '0');
  }
  *out = v;
  return true;
#endif
}

/* A time as the plugin writes it: microseconds as an optional '-', 1 to
 * 18 digits and an optional fraction, not followed by anything that could
 * continue a number. Its value in ns exactly as js_to_ns reads it (the
 * first three digits of the fraction), and *p moves past it; false for any
 * other text and for values js_to_ns's decimal form refuses. */
static bool plain_time_ns(const char **p, const char *end, int64_t *out) {
  const char *q = *p;
  bool neg = q < end && *q == '-';
  q += neg;
  const char *digits = q;
  uint64_t whole = 0, high, low;
  /* the plugin's times (since 1973, until 2286) have 16 digits */
  if (end - q > 16 && !is_digit(q[16]) && eight_digits(q, &high) &&
      eight_digits(q + 8, &low)) {
    whole = high * 100000000u + low;
    q += 16;
  }
  while (q < end && is_digit(*q) && q - digits < 18)
    whole = whole * 10 + (uint64_t)(*q++ - '0');
  if (q == digits || whole > (uint64_t)(INT64_MAX / 1000) - 1)
    return false;
  uint64_t frac = 0;
  if (q < end && *q == '.') {
    const char *first = ++q;
    int kept = 0;
    for (; q < end && is_digit(*q); q++)
      if (kept < 3) {
        frac = frac * 10 + (uint64_t)(*q - '0');
        kept++;
      }
    if (q == first)
      return false;
    for (; kept < 3; kept++)
      frac *= 10;
  }
  if (q < end && continues_number(*q))
    return false;
  int64_t ns = (int64_t)(whole * 1000 + frac);
  *out = neg ? -ns : ns;
  *p = q;
  return true;
}

/* The plugin writes every {ts,pid,tid} as {"ts":N,"pid":N,"tid":N}: read
 * that form in one pass, the numbers' values as they are found (two
 * points in most lines), giving what the general decoding gives. False
 * for any other text, which then goes the general way. */
static bool point_as_written(const js_value *v, rec_point *out) {
  const char *p = v->ptr, *end = v->ptr + v->len;
  int64_t ts, pid, tid;
  if (!literal(&p, end, "{\"ts\":", 6) || !plain_time_ns(&p, end, &ts) ||
      !literal(&p, end, ",\"pid\":", 7) || !plain_integer(&p, end, &pid) ||
      !literal(&p, end, ",\"tid\":", 7) || !plain_integer(&p, end, &tid) ||
      p + 1 != end || *p != '}')
    return false;
  out->ts = ts;
  out->pid = pid;
  out->tid = tid;
  out->present = true;
  return true;
}

bool rec_point_decode(const js_value *v, js_fields *scratch, const char *base,
                      rec_point *out) {
  out->present = false;
  out->ts = 0;
  out->pid = -1;
  out->tid = -1;
  if (!v || v->type != JS_OBJECT)
    return false;
  if (point_as_written(v, out))
    return true;
  if (!js_fields_decode(scratch, v->ptr, v->ptr + v->len, base, false))
    return false;
  if (!js_to_ns(js_get(scratch, K_ts), &out->ts))
    return false;
  js_to_i64(js_get(scratch, K_pid), &out->pid);
  js_to_i64(js_get(scratch, K_tid), &out->tid);
  out->present = true;
  return true;
}

bool rec_states_begin(rec_states_iter *it, const rec *r, js_fields *scratch) {
  const js_value *v = js_get(r->f, K_states);
  it->scratch = scratch;
  return v && js_array_begin(&it->it, v->ptr, v->ptr + v->len, r->line);
}

/* A state entry as the plugin writes it (trace_fmt.c's cur_state): its
 * name without escapes, then "id" and "ts", then nothing or "transSize";
 * *p moves past it. False for any other text (the scanner reads it). */
static bool state_as_written(const char **p, const char *end, rec_state *out) {
  const char *q = *p;
  if (!literal(&q, end, "{\"name\":\"", 9))
    return false;
  const char *name = q;
  while (q < end && *q != '"' && *q != '\\')
    q++;
  out->name = (js_value){name, (size_t)(q - name), JS_STRING, false};
  if (!literal(&q, end, "\",\"id\":", 7) || !plain_integer(&q, end, &out->id) ||
      !literal(&q, end, ",\"ts\":", 6) || !plain_time_ns(&q, end, &out->ts))
    return false;
  int64_t size = 0;
  out->has_size = literal(&q, end, ",\"transSize\":", 13);
  const char *digits = q;
  if (out->has_size &&
      (!plain_integer(&q, end, &size) || size < 0 || *digits == '-'))
    return false; /* "-0" too: js_to_u64 refuses a sign */
  out->size_value =
      out->has_size ? (js_value){digits, (size_t)(q - digits), JS_NUMBER, false}
                    : (js_value){NULL, 0, JS_NONE, false};
  if (q == end || *q != '}')
    return false;
  out->size = (uint64_t)size;
  out->has_id = out->has_ts = true;
  *p = q + 1;
  return true;
}

bool rec_states_next(rec_states_iter *it, rec_state *out) {
  js_iter *ji = &it->it;
  for (;;) {
    /* the next entry where js_array_next would read it: past a comma
     * after the first (the plugin writes no whitespace; the scanner reads
     * any) */
    const char *p = ji->p;
    if (!ji->error && (ji->first || (p < ji->end && *p++ == ',')) &&
        state_as_written(&p, ji->end, out)) {
      ji->p = p;
      ji->first = false;
      return true;
    }
    js_value v;
    if (!js_array_next(ji, &v))
      return false;
    js_fields *f = it->scratch;
    if (v.type != JS_OBJECT ||
        !js_fields_decode(f, v.ptr, v.ptr + v.len, ji->base, false))
      continue;
    const js_value *name = js_get(f, K_name);
    out->name = name ? *name : (js_value){NULL, 0, JS_NONE, false};
    out->has_id = js_to_i64(js_get(f, K_id), &out->id);
    out->has_ts = js_to_ns(js_get(f, K_ts), &out->ts);
    const js_value *size = js_get(f, K_transSize);
    out->size_value = size ? *size : (js_value){NULL, 0, JS_NONE, false};
    out->size = 0;
    out->has_size = js_to_u64(size, &out->size);
    return true;
  }
}

/* A ProxyStep's details as the plugin writes them (trace_fmt.c's
 * details_proxy_step with its link). False for any other text. */
static bool link_as_written(const js_value *d, rec_step_link *out) {
  const char *p = d->ptr, *end = d->ptr + d->len;
  int64_t step;
  if (!literal(&p, end, "{\"step\":", 8) || !plain_integer(&p, end, &step) ||
      !literal(&p, end, ",\"peer\":", 8) ||
      !plain_integer(&p, end, &out->peer) ||
      !literal(&p, end, ",\"channelId\":", 13) ||
      !plain_integer(&p, end, &out->channel) ||
      !literal(&p, end, ",\"isSend\":", 10))
    return false;
  if (literal(&p, end, "true}", 5))
    out->is_send = true;
  else if (literal(&p, end, "false}", 6))
    out->is_send = false;
  else
    return false;
  if (p != end)
    return false;
  out->has_peer = out->has_is_send = true;
  return true;
}

bool rec_step_link_decode(const rec *r, js_fields *scratch,
                          rec_step_link *out) {
  memset(out, 0, sizeof *out);
  out->channel = -1;
  const js_value *d = js_get(r->f, K_details);
  if (!d || d->type != JS_OBJECT)
    return false;
  if (link_as_written(d, out))
    return true;
  memset(out, 0, sizeof *out);
  out->channel = -1;
  if (!js_fields_decode(scratch, d->ptr, d->ptr + d->len, r->line, false))
    return false;
  out->has_peer = js_to_i64(js_get(scratch, K_peer), &out->peer);
  js_to_i64(js_get(scratch, K_channelId), &out->channel);
  out->has_is_send = js_to_bool(js_get(scratch, K_isSend), &out->is_send);
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

/* Where and when a GPU activity ran: its communicator rank (through its
 * KernelLaunch) and its span; it ended (it was measured). */
static void decode_activity(rec *r, rec_scratch *s) {
  js_fields *f = &s->top;
  r->et = ET_UNKNOWN;
  r->has_ctx = js_to_i64(js_get(f, K_ctx), &r->ctx);
  r->has_comm = js_to_hex_u64(js_get(f, K_commId), &r->comm_id);
  if (!js_to_i64(js_get(f, K_rank), &r->rank))
    r->rank = -1;
  rec_point_decode(js_get(f, K_start), &s->point, r->line, &r->start);
  rec_point_decode(js_get(f, K_stop), &s->point, r->line, &r->stop);
  r->end = r->stop.present ? END_STOPPED : END_NONE;
}

/* What every decoding starts with: the line's top-level members and its
 * record type. False when the line is not a JSON object. */
static bool decode_top(rec *r, rec_scratch *s, const char *line, size_t len) {
  memset(r, 0, sizeof *r);
  r->line = line;
  r->len = len;
  r->f = &s->top;
  r->rank = -1;
  if (!js_fields_decode(&s->top, line, line + len, line, true))
    return false;
  r->rt = rec_type_from_json(js_get(&s->top, K_recordType));
  return true;
}

bool rec_decode(rec *r, rec_scratch *s, const char *line, size_t len) {
  if (!decode_top(r, s, line, len))
    return false;
  if (r->rt == RT_EVENT)
    decode_event(r, s);
  else if (r->rt == RT_GPU_ACTIVITY)
    decode_activity(r, s);
  r->has_ts = js_to_ns(js_get(&s->top, K_ts), &r->ts);
  return true;
}

/* rec_decode_times, with the stop and endTs only if `stop`. */
static bool decode_times(rec *r, rec_scratch *s, const char *line, size_t len,
                         bool stop) {
  if (!decode_top(r, s, line, len))
    return false;
  if (r->rt == RT_EVENT || r->rt == RT_GPU_ACTIVITY) {
    /* as decode_event and decode_activity read them */
    rec_point_decode(js_get(&s->top, K_start), &s->point, line, &r->start);
    if (stop)
      rec_point_decode(js_get(&s->top, K_stop), &s->point, line, &r->stop);
    if (stop && r->rt == RT_EVENT)
      r->has_end_ts = js_to_ns(js_get(&s->top, K_endTs), &r->end_ts);
  }
  r->has_ts = js_to_ns(js_get(&s->top, K_ts), &r->ts);
  return true;
}

bool rec_decode_times(rec *r, rec_scratch *s, const char *line, size_t len) {
  return decode_times(r, s, line, len, true);
}

bool rec_decode_start_time(rec *r, rec_scratch *s, const char *line,
                           size_t len) {
  return decode_times(r, s, line, len, false);
}

int64_t rec_end_time(const rec *r) {
  if (r->stop.present)
    return r->stop.ts;
  if (r->has_end_ts)
    return r->end_ts;
  return INT64_MIN;
}

/* A version 2 integer-ns key, else the version 1 microsecond key. */
static int64_t ns_of(const js_fields *f, js_key v2_key, js_key v1_key) {
  int64_t v;
  const js_value *x = js_get(f, v2_key);
  if (x)
    return js_to_i64(x, &v) ? v : INT64_MIN;
  return js_to_ns(js_get(f, v1_key), &v) ? v : INT64_MIN;
}

void rec_timing_decode(const rec *r, js_fields *sub, rec_timing *out) {
  const js_fields *f = r->f;
  out->api = ns_of(f, K_apiNs, K_apiTs);
  out->start = ns_of(f, K_startNs, K_start);
  out->stop = ns_of(f, K_stopNs, K_stop);
  out->duration = ns_of(f, K_durationNs, K_duration);
  out->enq_start = out->enq_stop = INT64_MIN;
  int64_t v;
  if (js_get(f, K_enqueueStartNs)) {
    if (js_to_i64(js_get(f, K_enqueueStartNs), &v))
      out->enq_start = v;
    if (js_to_i64(js_get(f, K_enqueueStopNs), &v))
      out->enq_stop = v;
    return;
  }
  const js_value *enq = js_get(f, K_enqueue);
  if (!enq || enq->type != JS_OBJECT ||
      !js_fields_decode(sub, enq->ptr, enq->ptr + enq->len, r->line, false))
    return;
  if (js_to_ns(js_get(sub, K_start), &v))
    out->enq_start = v;
  if (js_to_ns(js_get(sub, K_stop), &v))
    out->enq_stop = v;
}

bool rec_timing_span(const js_value *obj, js_fields *scratch, const char *base,
                     int64_t *start, int64_t *stop) {
  if (!obj || obj->type != JS_OBJECT ||
      !js_fields_decode(scratch, obj->ptr, obj->ptr + obj->len, base, false))
    return false;
  *start = ns_of(scratch, K_startNs, K_start);
  *stop = ns_of(scratch, K_stopNs, K_stop);
  return *start != INT64_MIN && *stop != INT64_MIN;
}

int64_t rec_write_time(const rec *r) {
  switch (r->rt) {
  case RT_EVENT:
  case RT_GPU_ACTIVITY: {
    int64_t t = rec_end_time(r);
    return t != INT64_MIN ? t : (r->start.present ? r->start.ts : INT64_MIN);
  }
  case RT_TIMING: {
    int64_t t = ns_of(r->f, K_stopNs, K_stop);
    return t != INT64_MIN ? t : ns_of(r->f, K_startNs, K_start);
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
  case RT_GPU_ACTIVITY:
    return r->start.present ? r->start.ts : INT64_MIN;
  case RT_TIMING:
    return ns_of(r->f, K_startNs, K_start);
  default:
    return r->has_ts ? r->ts : INT64_MIN;
  }
}

bool rec_accounting_decode(const rec *r, rec_accounting *a) {
  const js_fields *f = r->f;
  memset(a, 0, sizeof *a);
  const struct {
    js_key key;
    uint64_t *to;
  } counts[] = {{K_linesLost, &a->lines_lost},
                {K_bytesLost, &a->bytes_lost},
                {K_writeErrors, &a->write_errors},
                {K_compressErrors, &a->compress_errors},
                {K_linesLostCompressing, &a->lines_lost_compressing},
                {K_eventsWritten, &a->events_written},
                {K_droppedStarts, &a->dropped_starts},
                {K_droppedStates, &a->dropped_states},
                {K_droppedStops, &a->dropped_stops}};
  bool ok = js_to_i64(js_get(f, K_writeErrno), &a->write_errno);
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    ok = js_to_u64(js_get(f, counts[i].key), counts[i].to) && ok;
  const js_value *reason = js_get(f, K_reason);
  a->closed = reason && reason->type == JS_STRING;
  if (a->closed)
    js_str_copy(reason, a->reason, sizeof a->reason);
  return ok;
}
