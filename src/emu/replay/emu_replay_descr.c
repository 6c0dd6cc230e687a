/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay_descr.c — owns the way back from a trace line to a
 * plugin call's arguments: `details` → ncclProfilerEventDescr_v7_t (every
 * field docs/trace-format.md lists per type), a `states` entry → state
 * value and ncclProfilerEventStateArgs_v7_t, and the string pool that
 * gives func/datatype/algo/proto/... stable pointers, as NCCL's are.
 * Members are matched by name while iterating the object once, so any
 * key order and unknown keys are fine.
 */
#include "replay/emu_replay_descr.h"

#include <stdlib.h>
#include <string.h>

/* ---------- strings ---------- */

/* Few distinct strings appear in a trace (function, datatype, algorithm,
 * protocol, phase names), so a list searched linearly is enough. */
typedef struct pool_entry {
  struct pool_entry *next;
  char text[];
} pool_entry;

static pool_entry *pool;

const char *emu_rp_intern_text(const char *s) {
  for (pool_entry *e = pool; e != NULL; e = e->next)
    if (strcmp(e->text, s) == 0)
      return e->text;
  size_t n = strlen(s);
  pool_entry *e = malloc(sizeof *e + n + 1);
  if (e == NULL)
    emu_die("out of memory for replay strings");
  memcpy(e->text, s, n + 1);
  e->next = pool;
  pool = e;
  return e->text;
}

const char *emu_rp_intern(const js_value *v) {
  char buf[256];
  if (v == NULL || v->type != JS_STRING || !js_str_copy(v, buf, sizeof buf))
    return NULL;
  return emu_rp_intern_text(buf);
}

/* ---------- member access ---------- */

static bool key_is(const js_value *k, const char *name) {
  size_t n = strlen(name);
  return k->len == n && memcmp(k->ptr, name, n) == 0;
}

static int64_t as_i64(const js_value *v) {
  int64_t x = 0;
  if (!js_to_i64(v, &x)) {
    bool b = false;
    if (js_to_bool(v, &b))
      x = b ? 1 : 0;
  }
  return x;
}

static uint64_t as_u64(const js_value *v) {
  uint64_t x = 0;
  if (!js_to_u64(v, &x))
    js_to_hex_u64(v, &x);
  return x;
}

static uint64_t as_hex(const js_value *v) {
  uint64_t x = 0;
  js_to_hex_u64(v, &x);
  return x;
}

static bool as_bool(const js_value *v) {
  bool b = false;
  if (!js_to_bool(v, &b))
    b = as_i64(v) != 0;
  return b;
}

static void *as_ptr(const js_value *v) {
  return (void *)(uintptr_t)as_hex(v);
}

/* ---------- details per type ---------- */

static void coll_api_member(ncclProfilerEventDescr_v7_t *d, const js_value *k,
                            const js_value *v) {
  if (key_is(k, "count"))
    d->collApi.count = as_u64(v);
  else if (key_is(k, "datatype"))
    d->collApi.datatype = emu_rp_intern(v);
  else if (key_is(k, "root"))
    d->collApi.root = (int)as_i64(v);
  else if (key_is(k, "stream"))
    d->collApi.stream = as_ptr(v);
  else if (key_is(k, "graphCaptured"))
    d->collApi.graphCaptured = as_bool(v);
  else if (key_is(k, "userTag"))
    d->collApi.userTag = as_hex(v);
}

static void p2p_api_member(ncclProfilerEventDescr_v7_t *d, const js_value *k,
                           const js_value *v) {
  if (key_is(k, "count"))
    d->p2pApi.count = as_u64(v);
  else if (key_is(k, "datatype"))
    d->p2pApi.datatype = emu_rp_intern(v);
  else if (key_is(k, "stream"))
    d->p2pApi.stream = as_ptr(v);
  else if (key_is(k, "graphCaptured"))
    d->p2pApi.graphCaptured = as_bool(v);
  else if (key_is(k, "userTag"))
    d->p2pApi.userTag = as_hex(v);
}

static void coll_member(emu_rp_event *e, const js_value *k, const js_value *v) {
  ncclProfilerEventDescr_v7_t *d = &e->d;
  if (key_is(k, "seqNumber"))
    d->coll.seqNumber = as_u64(v);
  else if (key_is(k, "count"))
    d->coll.count = as_u64(v);
  else if (key_is(k, "datatype"))
    d->coll.datatype = emu_rp_intern(v);
  else if (key_is(k, "root"))
    d->coll.root = (int)as_i64(v);
  else if (key_is(k, "sendBuff"))
    d->coll.sendBuff = as_ptr(v);
  else if (key_is(k, "recvBuff"))
    d->coll.recvBuff = as_ptr(v);
  else if (key_is(k, "nChannels"))
    d->coll.nChannels = (uint8_t)as_u64(v);
  else if (key_is(k, "nWarps"))
    d->coll.nWarps = (uint8_t)as_u64(v);
  else if (key_is(k, "algo"))
    d->coll.algo = emu_rp_intern(v);
  else if (key_is(k, "proto"))
    d->coll.proto = emu_rp_intern(v);
  else if (key_is(k, "parentGroupId"))
    e->group_id = as_hex(v);
  else if (key_is(k, "kernelVariant"))
    d->coll.kernelVariant = emu_rp_intern(v);
  else if (key_is(k, "isSymColl"))
    d->coll.isSymColl = as_bool(v);
  else if (key_is(k, "userTag"))
    d->coll.userTag = as_hex(v);
}

static void p2p_member(emu_rp_event *e, const js_value *k, const js_value *v) {
  ncclProfilerEventDescr_v7_t *d = &e->d;
  if (key_is(k, "peer"))
    d->p2p.peer = (int)as_i64(v);
  else if (key_is(k, "count"))
    d->p2p.count = as_u64(v);
  else if (key_is(k, "datatype"))
    d->p2p.datatype = emu_rp_intern(v);
  else if (key_is(k, "buff"))
    d->p2p.buff = as_ptr(v);
  else if (key_is(k, "nChannels"))
    d->p2p.nChannels = (uint8_t)as_u64(v);
  else if (key_is(k, "parentGroupId"))
    e->group_id = as_hex(v);
  else if (key_is(k, "userTag"))
    d->p2p.userTag = as_hex(v);
}

/* RCCL's v6 proxyOp extras (docs/trace-format.md, ProxyOp under RCCL). */
static bool rccl_proxy_member(emu_rccl_proxy_extras *x, const js_value *k,
                              const js_value *v) {
  if (key_is(k, "commHash"))
    x->comm_hash = as_u64(v);
  else if (key_is(k, "opCount"))
    x->op_count = as_i64(v);
  else if (key_is(k, "traceFuncIdx"))
    x->trace_func_idx = (int32_t)as_i64(v);
  else if (key_is(k, "traceProtocol"))
    x->trace_protocol = (int32_t)as_i64(v);
  else if (key_is(k, "tracePattern"))
    x->trace_pattern = (int32_t)as_i64(v);
  else if (key_is(k, "traceTotalBytes"))
    x->trace_total_bytes = (uint32_t)as_u64(v);
  else if (key_is(k, "proxyNbytes"))
    x->proxy_nbytes = (uint32_t)as_u64(v);
  else if (key_is(k, "rawProxyNsteps"))
    x->raw_proxy_nsteps = (int32_t)as_i64(v);
  else
    return false;
  return true;
}

static void proxy_op_member(emu_rp_event *e, const js_value *k,
                            const js_value *v) {
  ncclProfilerEventDescr_v7_t *d = &e->d;
  if (rccl_proxy_member(&e->rccl, k, v))
    e->has_rccl = true;
  else if (key_is(k, "channelId"))
    d->proxyOp.channelId = (uint8_t)as_u64(v);
  else if (key_is(k, "peer"))
    d->proxyOp.peer = (int)as_i64(v);
  else if (key_is(k, "nSteps"))
    d->proxyOp.nSteps = (int)as_i64(v);
  else if (key_is(k, "chunkSize"))
    d->proxyOp.chunkSize = (int)as_i64(v);
  else if (key_is(k, "isSend"))
    d->proxyOp.isSend = as_bool(v) ? 1 : 0;
  else if (key_is(k, "pid"))
    d->proxyOp.pid = (ncclPid_t)as_i64(v);
}

/* "qp":{device, wrId, opcode, qpNum, length} or "sock":{fd, op, length}. */
static void net_sub_object(emu_rp_event *e, const js_value *obj,
                           const char *base, bool ib) {
  js_iter it;
  js_value k, v;
  if (!js_object_begin(&it, obj->ptr, obj->ptr + obj->len, base))
    return;
  e->has_net = true;
  if (ib)
    e->net.ib.type = ncclProfileQp;
  else
    e->net.sock.type = ncclProfileSocket;
  while (js_object_next(&it, &k, &v)) {
    if (ib) {
      if (key_is(&k, "device"))
        e->net.ib.qp.device = (int)as_i64(&v);
      else if (key_is(&k, "wrId"))
        e->net.ib.qp.wr_id = as_u64(&v);
      else if (key_is(&k, "opcode"))
        e->net.ib.qp.opcode = (int)as_i64(&v);
      else if (key_is(&k, "qpNum"))
        e->net.ib.qp.qpNum = (int)as_i64(&v);
      else if (key_is(&k, "length"))
        e->net.ib.qp.length = as_u64(&v);
    } else {
      if (key_is(&k, "fd"))
        e->net.sock.sock.fd = (int)as_i64(&v);
      else if (key_is(&k, "op"))
        e->net.sock.sock.op = (int)as_i64(&v);
      else if (key_is(&k, "length"))
        e->net.sock.sock.length = as_u64(&v);
    }
  }
}

static void net_member(emu_rp_event *e, const js_value *k, const js_value *v,
                       const char *base) {
  if (key_is(k, "pluginId"))
    e->d.netPlugin.id = (int64_t)as_hex(v);
  else if (key_is(k, "qp") && v->type == JS_OBJECT)
    net_sub_object(e, v, base, true);
  else if (key_is(k, "sock") && v->type == JS_OBJECT)
    net_sub_object(e, v, base, false);
}

static void ce_coll_member(ncclProfilerEventDescr_v7_t *d, const js_value *k,
                           const js_value *v) {
  if (key_is(k, "seqNumber"))
    d->ceColl.seqNumber = as_u64(v);
  else if (key_is(k, "count"))
    d->ceColl.count = as_u64(v);
  else if (key_is(k, "datatype"))
    d->ceColl.datatype = emu_rp_intern(v);
  else if (key_is(k, "root"))
    d->ceColl.root = (int)as_i64(v);
  else if (key_is(k, "sendBuff"))
    d->ceColl.sendBuff = as_ptr(v);
  else if (key_is(k, "recvBuff"))
    d->ceColl.recvBuff = as_ptr(v);
  else if (key_is(k, "syncStrategy"))
    d->ceColl.syncStrategy = emu_rp_intern(v);
  else if (key_is(k, "intraBatchSync"))
    d->ceColl.intraBatchSync = as_bool(v);
  else if (key_is(k, "batchSize"))
    d->ceColl.batchSize = (uint32_t)as_u64(v);
  else if (key_is(k, "numBatches"))
    d->ceColl.numBatches = (uint32_t)as_u64(v);
  else if (key_is(k, "ceSeqNum"))
    d->ceColl.ceSeqNum = (uint32_t)as_u64(v);
  else if (key_is(k, "stream"))
    d->ceColl.stream = as_ptr(v);
  else if (key_is(k, "userTag"))
    d->ceColl.userTag = as_hex(v);
}

static void other_member(ncclProfilerEventDescr_v7_t *d, const js_value *k,
                         const js_value *v) {
  switch (d->type) {
  case ncclProfileGroupApi:
    if (key_is(k, "groupDepth"))
      d->groupApi.groupDepth = (int)as_i64(v);
    else if (key_is(k, "graphCaptured"))
      d->groupApi.graphCaptured = as_bool(v);
    break;
  case ncclProfileKernelLaunch:
    if (key_is(k, "stream"))
      d->kernelLaunch.stream = as_ptr(v);
    break;
  case ncclProfileProxyStep:
    if (key_is(k, "step"))
      d->proxyStep.step = (int)as_i64(v);
    break;
  case ncclProfileKernelCh:
    if (key_is(k, "channelId"))
      d->kernelCh.channelId = (uint8_t)as_u64(v);
    else if (key_is(k, "pTimer"))
      d->kernelCh.pTimer = as_u64(v);
    break;
  case ncclProfileCeSync:
    if (key_is(k, "isComplete"))
      d->ceCollSync.isComplete = as_bool(v);
    else if (key_is(k, "nRanks"))
      d->ceCollSync.nRanks = (int)as_i64(v);
    break;
  case ncclProfileCeBatch:
    if (key_is(k, "numOps"))
      d->ceCollBatch.numOps = (int)as_i64(v);
    else if (key_is(k, "totalBytes"))
      d->ceCollBatch.totalBytes = as_u64(v);
    else if (key_is(k, "useIntraSync"))
      d->ceCollBatch.useIntraSync = as_bool(v);
    break;
  case ncclProfileKernelPhase:
    if (key_is(k, "channelId"))
      d->kernelPhase.channelId = (uint8_t)as_u64(v);
    else if (key_is(k, "phaseId"))
      d->kernelPhase.phaseId = (uint8_t)as_u64(v);
    else if (key_is(k, "phaseName"))
      d->kernelPhase.phaseName = emu_rp_intern(v);
    else if (key_is(k, "pTimer"))
      d->kernelPhase.pTimer = as_u64(v);
    break;
  default:
    break; /* Group, ProxyCtrl: no fields */
  }
}

bool emu_rp_descr_from_record(emu_rp_event *e, const rec *r) {
  ncclProfilerEventDescr_v7_t *d = &e->d;
  memset(d, 0, sizeof *d);
  e->has_net = false;
  e->group_id = 0;
  d->type = (uint64_t)1 << r->et;
  d->rank = r->rank >= 0 ? (int)r->rank : 0;
  const char *func = emu_rp_intern(js_get(r->f, K_func));
  switch (d->type) {
  case ncclProfileCollApi:
    d->collApi.func = func;
    break;
  case ncclProfileP2pApi:
    d->p2pApi.func = func;
    break;
  case ncclProfileColl:
    d->coll.func = func;
    break;
  case ncclProfileP2p:
    d->p2p.func = func;
    break;
  case ncclProfileCeColl:
    d->ceColl.func = func;
    break;
  default:
    break;
  }
  const js_value *details = js_get(r->f, K_details);
  js_iter it;
  if (details == NULL || details->type != JS_OBJECT ||
      !js_object_begin(&it, details->ptr, details->ptr + details->len, r->line))
    return false;
  js_value k, v;
  while (js_object_next(&it, &k, &v)) {
    switch (d->type) {
    case ncclProfileCollApi:
      coll_api_member(d, &k, &v);
      break;
    case ncclProfileP2pApi:
      p2p_api_member(d, &k, &v);
      break;
    case ncclProfileColl:
      coll_member(e, &k, &v);
      break;
    case ncclProfileP2p:
      p2p_member(e, &k, &v);
      break;
    case ncclProfileProxyOp:
      proxy_op_member(e, &k, &v);
      break;
    case ncclProfileNetPlugin:
      net_member(e, &k, &v, r->line);
      break;
    case ncclProfileCeColl:
      ce_coll_member(d, &k, &v);
      break;
    default:
      other_member(d, &k, &v);
      break;
    }
  }
  return it.error == NULL;
}

/* ---------- states ---------- */

bool emu_rp_state_from_json(const js_value *obj, const char *base,
                            emu_rp_state_entry *out) {
  memset(out, 0, sizeof *out);
  out->count = 1;
  js_iter it;
  if (obj == NULL || obj->type != JS_OBJECT ||
      !js_object_begin(&it, obj->ptr, obj->ptr + obj->len, base))
    return false;
  bool has_id = false, has_ts = false, has_last = false;
  js_value k, v;
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "id")) {
      int64_t id;
      has_id = js_to_i64(&v, &id) && id >= 0 && id < 1024;
      out->state.id = (int)id;
    } else if (key_is(&k, "ts")) {
      has_ts = js_to_ns(&v, &out->ts);
    } else if (key_is(&k, "lastTs")) {
      has_last = js_to_ns(&v, &out->last_ts);
    } else if (key_is(&k, "count")) {
      uint64_t c = 1;
      if (js_to_u64(&v, &c) && c >= 1 && c <= 1000000)
        out->count = (uint32_t)c;
    } else if (key_is(&k, "transSize")) {
      out->state.args.proxyStep.transSize = as_u64(&v);
    } else if (key_is(&k, "appendedProxyOps")) {
      out->state.args.proxyCtrl.appendedProxyOps = (int)as_i64(&v);
    } else if (key_is(&k, "pTimer")) {
      out->state.args.kernelCh.pTimer = as_u64(&v);
    } else if (key_is(&k, "counterKind")) { /* RCCL's ProxyDiagUpdate */
      out->state.has_diag = true;
      out->state.diag.counter_kind = (uint8_t)as_u64(&v);
    } else if (key_is(&k, "flags")) {
      out->state.has_diag = true;
      out->state.diag.flags = (uint16_t)as_u64(&v);
    } else if (key_is(&k, "value")) {
      out->state.has_diag = true;
      out->state.diag.value = as_i64(&v);
    } else if (key_is(&k, "value2")) {
      out->state.has_diag = true;
      out->state.diag.value2 = as_i64(&v);
    }
  }
  if (!has_id || !has_ts || it.error != NULL)
    return false;
  if (!has_last)
    out->last_ts = out->ts;
  out->state.args_null = out->state.id == ncclProfilerGroupStartApiStop ||
                         out->state.id == ncclProfilerGroupEndApiStart;
  return true;
}
