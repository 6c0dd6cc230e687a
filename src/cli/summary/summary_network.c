/*
 * src/cli/summary/summary_network.c — rank pairs and channels from ProxyStep
 * events (network proxies; intra-node transports have no steps).
 *
 * Definitions (docs/cli.md "Network"):
 *   send step  (details.isSend true):  bytes = SendWait.transSize,
 *              transfer = SendWait.ts -> stop.ts (posted to the network
 *              until NCCL saw it complete); pair = rank -> peer.
 *   recv step  (isSend false): bytes = RecvFlushWait.transSize,
 *              transfer = RecvWait.ts -> RecvFlushWait.ts (receive posted
 *              until the data was there; includes waiting for the sender);
 *              pair = peer -> rank, measured on the receiving side.
 * Each pair direction and side gets a least-squares fit of
 * time = latency + bytes / bandwidth: AVG over every transfer, MIN over the
 * fastest transfer of each distinct size (robust to queueing), and the
 * median of the transfers' own bandwidths (robust to a few stalls). Channels:
 * bytes and busy time of send steps per (comm, rank, channel).
 */
#include <stdlib.h>
#include <string.h>

#include "nccl_names.h"
#include "summary/summary.h"

typedef struct {
  bool have_send, have_recv_wait, have_flush;
  int64_t send_ts, recv_wait_ts, flush_ts;
  uint64_t send_size, flush_size;
} step_states;

static void read_states(const rec *r, rec_scratch *sc, step_states *st) {
  memset(st, 0, sizeof *st);
  const js_value *states = js_get(r->f, K_states);
  js_iter it;
  js_value v;
  if (!states ||
      !js_array_begin(&it, states->ptr, states->ptr + states->len, r->line))
    return;
  while (js_array_next(&it, &v)) {
    if (v.type != JS_OBJECT ||
        !js_fields_decode(&sc->state, v.ptr, v.ptr + v.len, r->line, false))
      continue;
    int64_t id, ts;
    if (!js_to_i64(js_get(&sc->state, K_id), &id) ||
        !js_to_ns(js_get(&sc->state, K_ts), &ts))
      continue;
    uint64_t size = 0;
    switch (id) {
    case NCCL_STATE_STEP_SEND_WAIT:
      js_to_u64(js_get(&sc->state, K_transSize), &size);
      st->have_send = true;
      st->send_ts = ts;
      st->send_size = size;
      break;
    case NCCL_STATE_STEP_RECV_WAIT:
      if (!st->have_recv_wait) {
        st->have_recv_wait = true;
        st->recv_wait_ts = ts;
      }
      break;
    case NCCL_STATE_STEP_RECV_FLUSH_WAIT:
      js_to_u64(js_get(&sc->state, K_transSize), &size);
      st->have_flush = true;
      st->flush_ts = ts;
      st->flush_size = size;
      break;
    default:
      break;
    }
  }
}

static link_row *link_for(network_state *n, uint64_t comm, int32_t from,
                          int32_t to, bool send_side, size_t *index) {
  /* ranks are below 2^31: `to` shifted by one leaves room for the side */
  uint64_t key = ((uint64_t)(uint32_t)from << 32) |
                 ((uint64_t)((uint32_t)to & 0x7FFFFFFFu) << 1) |
                 (uint64_t)send_side;
  bool inserted;
  uint64_t *idx = pair_map_put(&n->link_index, comm, key, 0, &inserted);
  if (!idx)
    return NULL;
  if (inserted) {
    if (n->nlinks == n->cap_links) {
      size_t ncap = n->cap_links ? n->cap_links * 2 : 64;
      link_row *nl = realloc(n->links, ncap * sizeof *nl);
      if (!nl) {
        pair_map_remove(&n->link_index, comm, key);
        return NULL;
      }
      n->links = nl;
      n->cap_links = ncap;
    }
    link_row *l = &n->links[n->nlinks++];
    memset(l, 0, sizeof *l);
    l->comm_id = comm;
    l->from = from;
    l->to = to;
    l->send_side = send_side;
    lsq_init(&l->avg);
    lsq_init(&l->min);
    lhist_init(&l->step_mbps);
    *idx = n->nlinks;
  }
  *index = *idx - 1;
  return &n->links[*idx - 1];
}

static void add_transfer(network_state *n, uint64_t comm, int32_t from,
                         int32_t to, bool send_side, uint64_t bytes,
                         int64_t ns) {
  size_t index;
  link_row *l = link_for(n, comm, from, to, send_side, &index);
  if (!l)
    return;
  l->transfers++;
  l->bytes += bytes;
  l->busy_ns += ns;
  lsq_add(&l->avg, (double)bytes, (double)ns / 1e3);
  if (ns > 0)
    lhist_add(&l->step_mbps, (int64_t)((double)bytes * 1e3 / (double)ns));
  bool inserted;
  uint64_t *m =
      pair_map_put(&n->min_by_size, index, bytes, (uint64_t)ns, &inserted);
  if (m && !inserted && (uint64_t)ns < *m)
    *m = (uint64_t)ns;
}

static void add_channel(network_state *n, uint64_t comm, int32_t rank,
                        int32_t channel, uint64_t bytes, int64_t ns) {
  uint64_t key = ((uint64_t)(uint32_t)rank << 32) | (uint32_t)channel;
  bool inserted;
  uint64_t *idx = pair_map_put(&n->channel_index, comm, key, 0, &inserted);
  if (!idx)
    return;
  if (inserted) {
    if (n->nchannels == n->cap_channels) {
      size_t ncap = n->cap_channels ? n->cap_channels * 2 : 64;
      channel_row *nc = realloc(n->channels, ncap * sizeof *nc);
      if (!nc) {
        pair_map_remove(&n->channel_index, comm, key);
        return;
      }
      n->channels = nc;
      n->cap_channels = ncap;
    }
    channel_row *c = &n->channels[n->nchannels++];
    memset(c, 0, sizeof *c);
    c->comm_id = comm;
    c->rank = rank;
    c->channel = channel;
    *idx = n->nchannels;
  }
  channel_row *c = &n->channels[*idx - 1];
  c->bytes += bytes;
  c->busy_ns += ns;
  c->steps++;
}

void net_add_step(summary *s, const rec *r, rec_scratch *sc) {
  if (r->end != END_STOPPED || !r->stop.present || r->rank < 0)
    return;
  const js_value *d = js_get(r->f, K_details);
  if (!d || d->type != JS_OBJECT ||
      !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false))
    return;
  int64_t peer, channel = -1;
  bool is_send;
  if (!js_to_i64(js_get(&sc->sub, K_peer), &peer) ||
      !js_to_bool(js_get(&sc->sub, K_isSend), &is_send)) {
    s->net.steps_without_size++;
    return;
  }
  js_to_i64(js_get(&sc->sub, K_channelId), &channel);
  step_states st;
  read_states(r, sc, &st);
  uint64_t comm = r->has_comm ? r->comm_id : 0;
  int32_t rank = (int32_t)r->rank;
  if (is_send) {
    if (!st.have_send || st.send_size == 0 || r->stop.ts < st.send_ts) {
      s->net.steps_without_size++;
      return;
    }
    int64_t ns = r->stop.ts - st.send_ts;
    add_transfer(&s->net, comm, rank, (int32_t)peer, true, st.send_size, ns);
    if (channel >= 0)
      add_channel(&s->net, comm, rank, (int32_t)channel, st.send_size, ns);
  } else {
    if (!st.have_flush || st.flush_size == 0) {
      s->net.steps_without_size++;
      return;
    }
    int64_t from = st.have_recv_wait ? st.recv_wait_ts : r->start.ts;
    if (st.flush_ts < from) {
      s->net.steps_without_size++;
      return;
    }
    add_transfer(&s->net, comm, (int32_t)peer, rank, false, st.flush_size,
                 st.flush_ts - from);
  }
  s->net.steps_used++;
}

void net_finish(summary *s) {
  network_state *n = &s->net;
  for (size_t i = 0; i < n->min_by_size.cap; i++) {
    const pair_map_slot *sl = &n->min_by_size.slots[i];
    if (!sl->used || sl->a >= n->nlinks)
      continue;
    link_row *l = &n->links[sl->a];
    lsq_add(&l->min, (double)sl->b, (double)sl->value / 1e3);
    l->distinct_sizes++;
  }
}
