/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/line_inputs.c — event and timing lines back into the
 * formatter's inputs (see line_inputs.h). Each function below reads what
 * its namesake in src/plugin/trace/trace_fmt.c writes, in the same order.
 */
#include "convert/line_inputs.h"

#include <stdlib.h>
#include <string.h>

/* A line being read: the next byte, the end; `bad` once it is not what
 * the formatter writes (every reader below then does nothing). */
typedef struct {
  const char *p, *end;
  bool bad;
  li_scratch *s;
} lp;

/* ---- tokens ---- */

/* The text `s` next (else the line is refused). */
static void expect(lp *r, const char *s, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n || memcmp(r->p, s, n) != 0) {
    r->bad = true;
    return;
  }
  r->p += n;
}
#define EXPECT(r, lit) expect((r), (lit), sizeof(lit) - 1)

/* Is the text `s` next? Taken if so. */
static bool take(lp *r, const char *s, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n || memcmp(r->p, s, n) != 0)
    return false;
  r->p += n;
  return true;
}
#define TAKE(r, lit) take((r), (lit), sizeof(lit) - 1)

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Decimal digits (1 to 20; wrapping is caught when the line is formatted
 * again and differs). */
static uint64_t read_u64(lp *r) {
  uint64_t v = 0;
  int n = 0;
  while (!r->bad && r->p < r->end && is_digit(*r->p) && n < 21) {
    v = v * 10 + (uint64_t)(*r->p++ - '0');
    n++;
  }
  if (n == 0 || n > 20)
    r->bad = true;
  return r->bad ? 0 : v;
}

static int64_t read_i64(lp *r) {
  bool negative = TAKE(r, "-");
  uint64_t v = read_u64(r);
  return (int64_t)(negative ? (uint64_t)0 - v : v);
}

/* "0x1f" (cs_cur_hex). */
static uint64_t read_hex(lp *r) {
  EXPECT(r, "\"0x");
  uint64_t v = 0;
  int n = 0;
  while (!r->bad && r->p < r->end && *r->p != '"' && n < 17) {
    char c = *r->p++;
    unsigned d = is_digit(c)              ? (unsigned)(c - '0')
                 : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a' + 10)
                                          : 16;
    if (d == 16)
      r->bad = true;
    v = v << 4 | d;
    n++;
  }
  if (n == 0 || n > 16)
    r->bad = true;
  EXPECT(r, "\"");
  return r->bad ? 0 : v;
}

static bool read_bool(lp *r) {
  if (TAKE(r, "true"))
    return true;
  EXPECT(r, "false");
  return false;
}

/* Microseconds with three decimals (cs_cur_epoch_us, cs_cur_ns_as_us)
 * back into nanoseconds. */
static int64_t read_us(lp *r) {
  bool negative = TAKE(r, "-");
  uint64_t us = read_u64(r);
  EXPECT(r, ".");
  uint64_t frac = 0;
  for (int i = 0; i < 3 && !r->bad; i++) {
    if (r->p >= r->end || !is_digit(*r->p)) {
      r->bad = true;
      break;
    }
    frac = frac * 10 + (uint64_t)(*r->p++ - '0');
  }
  uint64_t ns = us * 1000 + frac;
  return r->bad ? 0 : (int64_t)(negative ? (uint64_t)0 - ns : ns);
}

/* A JSON string as cs_cur_str writes it (NULL for null), unescaped into
 * the scratch area, which li_begin made room for (a line's strings never
 * take more than the line). */
static const char *read_str(lp *r) {
  if (TAKE(r, "null"))
    return NULL;
  EXPECT(r, "\"");
  if (r->bad)
    return NULL;
  li_scratch *s = r->s;
  char *out = s->strings + s->strings_used, *q = out;
  while (r->p < r->end && *r->p != '"') {
    unsigned char c = (unsigned char)*r->p++;
    if (c < 0x20) {
      r->bad = true;
      return NULL;
    }
    if (c != '\\') {
      *q++ = (char)c;
      continue;
    }
    if (r->p >= r->end)
      break;
    char k = *r->p++;
    if (k == '"' || k == '\\') {
      *q++ = k;
    } else if (k == 'n') {
      *q++ = '\n';
    } else if (k == 't') {
      *q++ = '\t';
    } else if (k == 'u' && r->end - r->p >= 4 && r->p[0] == '0' &&
               r->p[1] == '0') {
      unsigned v = 0;
      for (int i = 2; i < 4; i++) {
        char h = r->p[i];
        unsigned d = is_digit(h)              ? (unsigned)(h - '0')
                     : (h >= 'a' && h <= 'f') ? (unsigned)(h - 'a' + 10)
                                              : 16;
        if (d == 16) {
          r->bad = true;
          return NULL;
        }
        v = v << 4 | d;
      }
      if (v == 0) { /* a C string cannot hold it */
        r->bad = true;
        return NULL;
      }
      *q++ = (char)v;
      r->p += 4;
    } else {
      r->bad = true; /* an escape the formatter never writes */
      return NULL;
    }
  }
  EXPECT(r, "\"");
  if (r->bad)
    return NULL;
  *q++ = '\0';
  s->strings_used += (size_t)(q - out);
  return out;
}

/* ---- the scratch area ---- */

void li_scratch_free(li_scratch *s) {
  free(s->strings);
  free(s->states);
  free(s->state_ns);
  memset(s, 0, sizeof *s);
}

/* Room for the strings of a line of `len` bytes: each takes at most its
 * quoted text, NUL included. */
static bool li_begin(lp *r, li_scratch *s, const char *line, size_t len) {
  *r = (lp){.p = line, .end = line + len, .bad = false, .s = s};
  s->strings_used = 0;
  if (s->strings_cap >= len + 1)
    return true;
  size_t cap = len + 1 > 4096 ? len + 1 : 4096;
  char *p = realloc(s->strings, cap);
  if (!p)
    return false;
  s->strings = p;
  s->strings_cap = cap;
  return true;
}

/* Room for state `i`. */
static bool state_room(li_scratch *s, uint32_t i) {
  if (i < s->states_cap)
    return true;
  uint32_t cap = s->states_cap ? 2 * s->states_cap : 16;
  cs_state_rec *st = realloc(s->states, cap * sizeof *st);
  if (st)
    s->states = st;
  int64_t *ns = realloc(s->state_ns, 2 * (size_t)cap * sizeof *ns);
  if (ns)
    s->state_ns = ns;
  if (!st || !ns)
    return false;
  s->states_cap = cap;
  return true;
}

/* ---- events ---- */

static uint8_t read_etype(lp *r) {
  const char *name = r->p;
  while (r->p < r->end && *r->p != '"')
    r->p++;
  size_t n = (size_t)(r->p - name);
  for (int t = 0; t < CS_EV_COUNT; t++) {
    const char *s = cs_etype_json_name((cs_etype)t);
    if (strlen(s) == n && memcmp(s, name, n) == 0)
      return (uint8_t)t;
  }
  r->bad = true;
  return 0;
}

/* cur_parent */
static void read_parent(lp *r, cs_event *e) {
  EXPECT(r, "\"parentId\":");
  if (!TAKE(r, "null")) {
    e->parent_kind = CS_PARENT_LOCAL;
    e->parent = read_hex(r);
  } else if (TAKE(r, ",\"parentStatus\":\"unknown\",\"parentHint\":")) {
    e->parent_kind = CS_PARENT_LOCAL;
    e->parent_hint = true;
    e->parent = read_hex(r);
  } else if (TAKE(r, ",\"parentStatus\":\"foreign\",\"parentRaw\":")) {
    e->parent_kind = CS_PARENT_FOREIGN;
    e->parent = read_hex(r);
  } else if (TAKE(r, ",\"parentStatus\":\"unknown\",\"parentRaw\":")) {
    e->parent_kind = CS_PARENT_UNKNOWN;
    e->parent = read_hex(r);
  } else if (TAKE(r, ",\"parentStatus\":\"dropped\"")) {
    e->parent_kind = CS_PARENT_DROPPED;
  } else {
    e->parent_kind = CS_PARENT_NONE;
  }
}

/* cur_comm: "ctx":N,"commId":… */
static void read_comm(lp *r, li_comm *c) {
  EXPECT(r, "\"ctx\":");
  if (TAKE(r, "null,\"commId\":null")) {
    c->present = false;
    return;
  }
  c->present = true;
  c->serial = (uint32_t)read_u64(r);
  EXPECT(r, ",\"commId\":");
  c->has_comm_info = !TAKE(r, "null");
  if (c->has_comm_info)
    c->comm_id = read_hex(r);
}

/* cur_endpoint: {"ts":…,"pid":P,"tid":T} */
static void read_endpoint(lp *r, int64_t *ns, int32_t *pid, int32_t *tid) {
  EXPECT(r, "{\"ts\":");
  *ns = read_us(r);
  EXPECT(r, ",\"pid\":");
  *pid = (int32_t)read_i64(r);
  EXPECT(r, ",\"tid\":");
  *tid = (int32_t)read_i64(r);
  EXPECT(r, "}");
}

/* The optional ,"userTag":… of several payloads. */
static void read_user_tag(lp *r, uint8_t *has, uint64_t *tag) {
  *has = TAKE(r, ",\"userTag\":");
  if (*has)
    *tag = read_hex(r);
}

static void details_coll_api(lp *r, cs_event *e) {
  cs_p_coll_api *c = &e->p.coll_api;
  EXPECT(r, "\"count\":");
  c->count = read_u64(r);
  EXPECT(r, ",\"datatype\":");
  c->datatype = read_str(r);
  if (e->etype == CS_EV_COLL_API) {
    EXPECT(r, ",\"root\":");
    c->root = (int32_t)read_i64(r);
  }
  EXPECT(r, ",\"stream\":");
  c->stream = read_hex(r);
  EXPECT(r, ",\"graphCaptured\":");
  c->graph_captured = read_bool(r);
  read_user_tag(r, &c->has_user_tag, &c->user_tag);
}

static void details_coll(lp *r, cs_event *e) {
  cs_p_coll *c = &e->p.coll;
  EXPECT(r, "\"seqNumber\":");
  c->seq = read_u64(r);
  EXPECT(r, ",\"count\":");
  c->count = read_u64(r);
  EXPECT(r, ",\"datatype\":");
  c->datatype = read_str(r);
  EXPECT(r, ",\"root\":");
  c->root = (int32_t)read_i64(r);
  EXPECT(r, ",\"sendBuff\":");
  c->send_buff = read_hex(r);
  EXPECT(r, ",\"recvBuff\":");
  c->recv_buff = read_hex(r);
  EXPECT(r, ",\"nChannels\":");
  c->n_channels = (uint8_t)read_u64(r);
  EXPECT(r, ",\"nWarps\":");
  c->n_warps = (uint8_t)read_u64(r);
  EXPECT(r, ",\"algo\":");
  c->algo = read_str(r);
  EXPECT(r, ",\"proto\":");
  c->proto = read_str(r);
  if (TAKE(r, ",\"parentGroupId\":"))
    c->parent_group = read_hex(r);
  if (TAKE(r, ",\"kernelVariant\":")) {
    c->has_kernel_variant = true;
    c->kernel_variant = read_str(r);
    EXPECT(r, ",\"isSymColl\":");
    c->is_sym_coll = read_bool(r);
  }
  uint8_t has_tag = 0;
  read_user_tag(r, &has_tag, &c->user_tag);
  c->has_user_tag = has_tag != 0;
  if (TAKE(r, ",\"commHash\":"))
    c->comm_hash = read_hex(r);
  if (TAKE(r, ",\"trafficBytes\":"))
    c->traffic_bytes = read_u64(r);
  if (TAKE(r, ",\"op\":")) {
    c->op = (uint32_t)read_u64(r);
    EXPECT(r, ",\"isCollnet\":");
    c->is_collnet = read_bool(r);
    EXPECT(r, ",\"isNvls\":");
    c->is_nvls = read_bool(r);
  }
}

static void details_p2p(lp *r, cs_event *e) {
  cs_p_p2p *c = &e->p.p2p;
  EXPECT(r, "\"peer\":");
  c->peer = (int32_t)read_i64(r);
  EXPECT(r, ",\"count\":");
  c->count = read_u64(r);
  EXPECT(r, ",\"datatype\":");
  c->datatype = read_str(r);
  EXPECT(r, ",\"buff\":");
  c->buff = read_hex(r);
  EXPECT(r, ",\"nChannels\":");
  c->n_channels = (uint8_t)read_u64(r);
  if (TAKE(r, ",\"parentGroupId\":"))
    c->parent_group = read_hex(r);
  read_user_tag(r, &c->has_user_tag, &c->user_tag);
  if (TAKE(r, ",\"commHash\":"))
    c->comm_hash = read_hex(r);
}

static void details_proxy_op(lp *r, cs_event *e) {
  cs_p_proxy_op *c = &e->p.proxy_op;
  EXPECT(r, "\"channelId\":");
  c->channel_id = (uint8_t)read_u64(r);
  EXPECT(r, ",\"peer\":");
  c->peer = (int32_t)read_i64(r);
  EXPECT(r, ",\"nSteps\":");
  c->n_steps = (int32_t)read_i64(r);
  EXPECT(r, ",\"chunkSize\":");
  c->chunk_size = (int32_t)read_i64(r);
  EXPECT(r, ",\"isSend\":");
  c->is_send = read_bool(r);
  EXPECT(r, ",\"pid\":");
  c->pid = (int32_t)read_i64(r);
  if (!TAKE(r, ",\"commHash\":"))
    return;
  cs_p_rccl_proxy_op *x = &c->rccl;
  c->has_rccl = 1;
  x->comm_hash = read_hex(r);
  EXPECT(r, ",\"opCount\":");
  x->op_count = read_i64(r);
  EXPECT(r, ",\"traceFuncIdx\":");
  x->trace_func_idx = (int32_t)read_i64(r);
  EXPECT(r, ",\"traceProtocol\":");
  x->trace_protocol = (int32_t)read_i64(r);
  EXPECT(r, ",\"tracePattern\":");
  x->trace_pattern = (int32_t)read_i64(r);
  EXPECT(r, ",\"traceTotalBytes\":");
  x->trace_total_bytes = (uint32_t)read_u64(r);
  EXPECT(r, ",\"proxyNbytes\":");
  x->proxy_nbytes = (uint32_t)read_u64(r);
  EXPECT(r, ",\"rawProxyNsteps\":");
  x->raw_proxy_nsteps = (int32_t)read_i64(r);
}

static void details_proxy_step(lp *r, cs_event *e) {
  EXPECT(r, "\"step\":");
  e->p.proxy_step.step = (int32_t)read_i64(r);
  if (!TAKE(r, ",\"peer\":"))
    return;
  e->has_link = true;
  e->link.peer = (int32_t)read_i64(r);
  EXPECT(r, ",\"channelId\":");
  e->link.channel_id = (uint8_t)read_u64(r);
  EXPECT(r, ",\"isSend\":");
  e->link.is_send = read_bool(r);
}

static void details_net(lp *r, cs_event *e) {
  cs_p_net_plugin *c = &e->p.net_plugin;
  EXPECT(r, "\"pluginId\":");
  c->plugin_id = (int64_t)read_hex(r);
  if (TAKE(r, ",\"net\":\"ib\""))
    c->net_kind = CS_NET_IB;
  else if (TAKE(r, ",\"net\":\"socket\""))
    c->net_kind = CS_NET_SOCK;
  else {
    EXPECT(r, ",\"net\":\"other\"");
    c->net_kind = CS_NET_OTHER;
  }
  EXPECT(r, ",\"version\":");
  (void)read_u64(r); /* the plugin id's low bits: checked by formatting */
  if (c->net_kind == CS_NET_IB && TAKE(r, ",\"qp\":{\"device\":")) {
    c->has_descr = 1;
    c->u.ib.device = (int32_t)read_i64(r);
    EXPECT(r, ",\"wrId\":");
    c->u.ib.wr_id = read_hex(r);
    EXPECT(r, ",\"opcode\":");
    c->u.ib.opcode = (int32_t)read_i64(r);
    EXPECT(r, ",\"qpNum\":");
    c->u.ib.qp_num = (int32_t)read_i64(r);
    EXPECT(r, ",\"length\":");
    c->u.ib.length = read_u64(r);
    EXPECT(r, "}");
  } else if (c->net_kind == CS_NET_SOCK && TAKE(r, ",\"sock\":{\"fd\":")) {
    c->has_descr = 1;
    c->u.sock.fd = (int32_t)read_i64(r);
    EXPECT(r, ",\"op\":");
    c->u.sock.op = (int32_t)read_i64(r);
    EXPECT(r, ",\"length\":");
    c->u.sock.length = read_u64(r);
    EXPECT(r, "}");
  }
}

static void details_ce_coll(lp *r, cs_event *e) {
  cs_p_ce_coll *c = &e->p.ce_coll;
  EXPECT(r, "\"seqNumber\":");
  c->seq = read_u64(r);
  EXPECT(r, ",\"count\":");
  c->count = read_u64(r);
  EXPECT(r, ",\"datatype\":");
  c->datatype = read_str(r);
  EXPECT(r, ",\"root\":");
  c->root = (int32_t)read_i64(r);
  EXPECT(r, ",\"sendBuff\":");
  c->send_buff = read_hex(r);
  EXPECT(r, ",\"recvBuff\":");
  c->recv_buff = read_hex(r);
  EXPECT(r, ",\"syncStrategy\":");
  c->sync_strategy = read_str(r);
  EXPECT(r, ",\"intraBatchSync\":");
  c->intra_batch_sync = read_bool(r);
  EXPECT(r, ",\"batchSize\":");
  c->batch_size = (uint32_t)read_u64(r);
  EXPECT(r, ",\"numBatches\":");
  c->num_batches = (uint32_t)read_u64(r);
  EXPECT(r, ",\"ceSeqNum\":");
  c->ce_seq_num = (uint32_t)read_u64(r);
  EXPECT(r, ",\"stream\":");
  c->stream = read_hex(r);
  read_user_tag(r, &c->has_user_tag, &c->user_tag);
}

/* cur_details, and the event's func (on the event, before its start)
 * into the payload that holds it. */
static void read_details(lp *r, cs_event *e, const char *func) {
  EXPECT(r, "\"details\":{");
  cs_payload *p = &e->p;
  switch (e->etype) {
  case CS_EV_GROUP_API:
    EXPECT(r, "\"groupDepth\":");
    p->group_api.group_depth = (int32_t)read_i64(r);
    EXPECT(r, ",\"graphCaptured\":");
    p->group_api.graph_captured = read_bool(r);
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    p->coll_api.func = func;
    details_coll_api(r, e);
    break;
  case CS_EV_KERNEL_LAUNCH:
    EXPECT(r, "\"stream\":");
    p->kernel_launch.stream = read_hex(r);
    break;
  case CS_EV_COLL:
    p->coll.func = func;
    details_coll(r, e);
    break;
  case CS_EV_P2P:
    p->p2p.func = func;
    details_p2p(r, e);
    break;
  case CS_EV_PROXY_OP:
    details_proxy_op(r, e);
    break;
  case CS_EV_PROXY_STEP:
    details_proxy_step(r, e);
    break;
  case CS_EV_KERNEL_CH:
    EXPECT(r, "\"channelId\":");
    p->kernel_ch.channel_id = (uint8_t)read_u64(r);
    p->kernel_ch.has_ptimer = TAKE(r, ",\"pTimer\":");
    if (p->kernel_ch.has_ptimer)
      p->kernel_ch.ptimer = read_u64(r);
    break;
  case CS_EV_NET_PLUGIN:
    details_net(r, e);
    break;
  case CS_EV_CE_COLL:
    p->ce_coll.func = func;
    details_ce_coll(r, e);
    break;
  case CS_EV_CE_SYNC:
    EXPECT(r, "\"isComplete\":");
    p->ce_sync.is_complete = read_bool(r);
    EXPECT(r, ",\"nRanks\":");
    p->ce_sync.n_ranks = (int32_t)read_i64(r);
    break;
  case CS_EV_CE_BATCH:
    EXPECT(r, "\"numOps\":");
    p->ce_batch.num_ops = (int32_t)read_i64(r);
    EXPECT(r, ",\"totalBytes\":");
    p->ce_batch.total_bytes = read_u64(r);
    EXPECT(r, ",\"useIntraSync\":");
    p->ce_batch.use_intra_sync = read_bool(r);
    break;
  case CS_EV_KERNEL_PHASE:
    EXPECT(r, "\"channelId\":");
    p->kernel_phase.channel_id = (uint8_t)read_u64(r);
    EXPECT(r, ",\"phaseId\":");
    p->kernel_phase.phase_id = (uint8_t)read_u64(r);
    EXPECT(r, ",\"phaseName\":");
    p->kernel_phase.phase_name = read_str(r);
    EXPECT(r, ",\"pTimer\":");
    p->kernel_phase.ptimer = read_u64(r);
    break;
  case CS_EV_PROXY_DIAG:
  case CS_EV_UNKNOWN:
    EXPECT(r, "\"typeValue\":");
    p->unknown.raw_type = read_u64(r);
    break;
  default:
    break; /* Group, ProxyCtrl: no fields */
  }
  EXPECT(r, "}");
}

/* cur_state: one {"name":…} entry; its stamps into ns[0..1]. */
static void read_state(lp *r, cs_state_rec *s, int64_t *ns) {
  memset(s, 0, sizeof *s);
  EXPECT(r, "{\"name\":");
  (void)read_str(r); /* the name follows from the id: checked by formatting */
  EXPECT(r, ",\"id\":");
  s->state = (uint32_t)read_u64(r);
  EXPECT(r, ",\"ts\":");
  ns[0] = read_us(r);
  switch (s->state) {
  case 9:
  case 11:
    EXPECT(r, ",\"transSize\":");
    s->arg = read_u64(r);
    break;
  case 18:
    EXPECT(r, ",\"appendedProxyOps\":");
    s->arg = (uint32_t)(int32_t)read_i64(r);
    break;
  case 22:
    EXPECT(r, ",\"pTimer\":");
    s->arg = read_u64(r);
    break;
  case 31:
  case 32:
    if (TAKE(r, ",\"counterKind\":")) {
      s->has_diag = true;
      uint64_t kind = read_u64(r);
      EXPECT(r, ",\"flags\":");
      uint64_t flags = read_u64(r);
      s->arg = kind | flags << 16;
      EXPECT(r, ",\"value\":");
      s->arg2 = (uint64_t)read_i64(r);
      EXPECT(r, ",\"value2\":");
      s->arg3 = (uint64_t)read_i64(r);
    } else if (s->state == 31 && TAKE(r, ",\"pTimer\":")) {
      s->arg = read_u64(r);
    }
    break;
  default:
    break;
  }
  s->repeat = 1;
  ns[1] = 0;
  if (TAKE(r, ",\"count\":")) {
    s->repeat = (uint32_t)read_u64(r);
    EXPECT(r, ",\"lastTs\":");
    ns[1] = read_us(r);
  }
  EXPECT(r, "}");
}

static void read_states(lp *r, cs_event *e, cs_fmt_times *t, bool *oom) {
  li_scratch *s = r->s;
  uint32_t n = 0;
  do {
    if (!state_room(s, n)) {
      *oom = r->bad = true;
      return;
    }
    read_state(r, &s->states[n], &s->state_ns[2 * n]);
    n++;
  } while (!r->bad && TAKE(r, ","));
  EXPECT(r, "]");
  e->nstates = n;
  e->states = s->states;
  t->state_ns = s->state_ns;
}

bool li_event(li_scratch *s, const char *line, size_t len, cs_event *e,
              cs_fmt_times *t, li_comm *comm, li_writer *w, bool *oom) {
  memset(e, 0, sizeof *e);
  memset(t, 0, sizeof *t);
  memset(comm, 0, sizeof *comm);
  memset(w, 0, sizeof *w);
  comm->device = -1;
  comm->comm_name = "";
  w->global_rank = -1;
  lp r;
  if (!li_begin(&r, s, line, len)) {
    *oom = true;
    return false;
  }
  EXPECT(&r, "{\"recordType\":\"event\",\"type\":\"");
  e->etype = read_etype(&r);
  EXPECT(&r, "\",\"id\":");
  e->id = read_hex(&r);
  EXPECT(&r, ",");
  read_parent(&r, e);
  EXPECT(&r, ",");
  read_comm(&r, comm);
  e->ctx = comm->present ? comm->serial : 0;
  EXPECT(&r, ",\"rank\":");
  e->rank = (int32_t)read_i64(&r);
  if (TAKE(&r, ",\"isPxn\":true,\"originPid\":")) {
    e->foreign_owner = true;
    e->origin_pid = (int32_t)read_i64(&r);
  }
  const char *func = TAKE(&r, ",\"func\":") ? read_str(&r) : NULL;
  EXPECT(&r, ",\"start\":");
  read_endpoint(&r, &t->start_ns, &w->pid, &e->start_tid);
  if (TAKE(&r, ",\"stop\":null,\"duration\":null,\"end\":")) {
    if (TAKE(&r, "\"reclaimed\",\"reclaimReason\":")) {
      e->end = CS_END_RECLAIMED;
      t->reclaim = read_str(&r);
    } else {
      EXPECT(&r, "\"inflight\"");
      e->end = CS_END_INFLIGHT;
    }
    EXPECT(&r, ",\"endTs\":");
    t->end_ns = read_us(&r);
  } else {
    EXPECT(&r, ",\"stop\":");
    e->end = CS_END_STOPPED;
    int32_t stop_pid = 0;
    read_endpoint(&r, &t->end_ns, &stop_pid, &e->stop_tid);
    if (stop_pid != w->pid)
      r.bad = true;
    EXPECT(&r, ",\"duration\":");
    (void)read_us(&r); /* the stop minus the start: checked by formatting */
    EXPECT(&r, ",\"end\":\"stopped\"");
  }
  EXPECT(&r, ",");
  read_details(&r, e, func);
  if (TAKE(&r, ",\"states\":["))
    read_states(&r, e, t, oom);
  EXPECT(&r, "}");
  return !r.bad && r.p == r.end;
}

/* ---- timing records ---- */

/* cur_span: "startNs":N,"stopNs":N */
static void read_span(lp *r, int64_t *start, int64_t *stop) {
  EXPECT(r, "\"startNs\":");
  *start = read_i64(r);
  EXPECT(r, ",\"stopNs\":");
  *stop = read_i64(r);
}

/* cur_ns_or_null */
static int64_t read_ns_or_null(lp *r) {
  return TAKE(r, "null") ? 0 : read_i64(r);
}

/* cur_gbps: GB/s with three decimals back into bytes/s that format the
 * same (null: -1). */
static double read_gbps(lp *r) {
  if (TAKE(r, "null"))
    return -1.0;
  uint64_t whole = read_u64(r);
  EXPECT(r, ".");
  uint64_t frac = 0;
  for (int i = 0; i < 3 && !r->bad; i++) {
    if (r->p >= r->end || !is_digit(*r->p)) {
      r->bad = true;
      break;
    }
    frac = frac * 10 + (uint64_t)(*r->p++ - '0');
  }
  return (double)(whole * 1000 + frac) * 1e6;
}

static void read_timing_body(lp *r, cs_timing *t) {
  EXPECT(r, ",\"func\":");
  t->func = read_str(r);
  t->has_seq = TAKE(r, ",\"seqNumber\":");
  if (t->has_seq)
    t->seq = read_u64(r);
  if (t->etype == CS_EV_P2P) {
    EXPECT(r, ",\"peer\":");
    t->peer = (int32_t)read_i64(r);
  }
  if (t->etype == CS_EV_COLL) {
    EXPECT(r, ",\"algo\":");
    t->algo = read_str(r);
    EXPECT(r, ",\"proto\":");
    t->proto = read_str(r);
  }
  EXPECT(r, ",\"count\":");
  t->count = read_u64(r);
  EXPECT(r, ",\"datatype\":");
  t->datatype = read_str(r);
  EXPECT(r, ",\"bytes\":");
  t->bytes = read_u64(r);
  EXPECT(r, ",\"apiNs\":");
  t->api_ns = read_ns_or_null(r);
  EXPECT(r, ",\"enqueueStartNs\":");
  t->enq_start_ns = read_i64(r);
  EXPECT(r, ",\"enqueueStopNs\":");
  t->enq_stop_ns = read_ns_or_null(r);
  if (TAKE(r, ",\"source\":\"host\","))
    t->source = CS_TIMING_HOST;
  else if (TAKE(r, ",\"source\":\"proxy\","))
    t->source = CS_TIMING_PROXY;
  else {
    EXPECT(r, ",\"source\":\"gpu\",");
    t->source = CS_TIMING_GPU;
  }
  read_span(r, &t->start_ns, &t->stop_ns);
  EXPECT(r, ",\"durationNs\":");
  (void)read_i64(r); /* the stop minus the start: checked by formatting */
  if (TAKE(r, ",\"gpu\":{")) {
    t->has_gpu = true;
    read_span(r, &t->gpu_start_ns, &t->gpu_stop_ns);
    EXPECT(r, ",\"channels\":");
    t->gpu_channels = (uint16_t)read_u64(r);
    EXPECT(r, ",\"batched\":");
    t->batched = read_bool(r);
    if (TAKE(r, ",\"rejected\":"))
      t->gpu_rejected = (uint16_t)read_u64(r);
    EXPECT(r, "}");
  }
  if (TAKE(r, ",\"phases\":{")) {
    static const char *const names[CS_TIMING_PHASES] = {
        "\"initial_sync\":{", "\"compute\":{", "\"final_sync\":{"};
    for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
      const char *sep = t->phase_valid ? "," : "";
      size_t seplen = strlen(sep);
      const char *at = r->p;
      if (!take(r, sep, seplen) || !take(r, names[ph], strlen(names[ph]))) {
        r->p = at;
        continue;
      }
      t->phase_valid |= (uint8_t)(1u << ph);
      read_span(r, &t->phase_start_ns[ph], &t->phase_stop_ns[ph]);
      EXPECT(r, "}");
    }
    EXPECT(r, "}");
  }
  if (TAKE(r, ",\"proxy\":{")) {
    t->has_proxy = true;
    read_span(r, &t->proxy_start_ns, &t->proxy_stop_ns);
    EXPECT(r, ",\"ops\":");
    t->proxy_ops = (uint16_t)read_u64(r);
    EXPECT(r, "}");
  }
  t->incomplete = TAKE(r, ",\"incomplete\":true");
  EXPECT(r, ",\"algBw\":");
  t->alg_bw = read_gbps(r);
  EXPECT(r, ",\"busBw\":");
  t->bus_bw = read_gbps(r);
  EXPECT(r, "}");
}

bool li_timing(li_scratch *s, const char *line, size_t len, cs_timing *t,
               li_comm *comm, li_writer *w, bool *oom) {
  memset(t, 0, sizeof *t);
  memset(comm, 0, sizeof *comm);
  memset(w, 0, sizeof *w);
  lp r;
  if (!li_begin(&r, s, line, len)) {
    *oom = true;
    return false;
  }
  /* cur_identity */
  EXPECT(&r, "{\"recordType\":\"timing\",\"runId\":");
  w->has_identity = true;
  w->run_id = read_str(&r);
  EXPECT(&r, ",\"globalRank\":");
  w->global_rank = TAKE(&r, "null") ? -1 : (int)read_i64(&r);
  EXPECT(&r, ",\"hostname\":");
  w->hostname = read_str(&r);
  EXPECT(&r, ",\"pid\":");
  w->pid = (int32_t)read_i64(&r);
  /* cur_device */
  EXPECT(&r, ",\"device\":");
  comm->device = TAKE(&r, "null") ? -1 : (int)read_i64(&r);
  EXPECT(&r, ",\"eventId\":");
  t->event_id = read_hex(&r);
  EXPECT(&r, ",\"type\":\"");
  t->etype = read_etype(&r);
  EXPECT(&r, "\",");
  read_comm(&r, comm);
  t->ctx = comm->present ? comm->serial : 0;
  /* cur_comm_name */
  EXPECT(&r, ",\"commName\":");
  comm->comm_name = read_str(&r);
  EXPECT(&r, ",\"rank\":");
  t->rank = (int32_t)read_i64(&r);
  EXPECT(&r, ",\"nranks\":");
  t->nranks = (int32_t)read_i64(&r);
  read_timing_body(&r, t);
  if (!comm->comm_name)
    r.bad = true; /* the formatter writes "" for none */
  return !r.bad && r.p == r.end;
}
