/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_network.c — rank pairs and channels from ProxyStep
 * events (network proxies; intra-node transports have no steps), and what
 * a slow pair points to.
 *
 * Definitions (docs/cli.md "Network"):
 *   send step  (details.isSend true):  bytes = SendWait.transSize,
 *              transfer = SendWait.ts -> stop.ts (posted to the network
 *              until NCCL saw it complete); pair = rank -> peer. This is
 *              the link measurement.
 *   recv step  (isSend false): counted, not fitted: RecvWait -> data there
 *              includes waiting for the sender to post, so it measures the
 *              sender as much as the link.
 * Each pair direction gets the model time = latency + bytes / bandwidth
 * fitted on the fastest transfer of each distinct size and validated by
 * src/common/net_fit.c (the plugin's metrics use the same code), and the
 * median of the transfers' own bandwidths. PXN steps carry no communicator:
 * they are kept under a placeholder (proxy file, origin pid) and resolved
 * at the end to the origin process's communicator in which the sending
 * rank and its peer exist. Channels: bytes and busy time of send steps per
 * (comm, rank, channel). Each send step also goes to the per-step test
 * (summary_link_steps.c), which finds a slow link where no fit can be
 * made; its verdicts join the fits' (evidence slow-steps).
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
  rec_states_iter it;
  rec_state e;
  if (!rec_states_begin(&it, r, &sc->state))
    return;
  while (rec_states_next(&it, &e)) {
    if (!e.has_id || !e.has_ts)
      continue;
    switch (e.id) {
    case NCCL_STATE_STEP_SEND_WAIT:
      st->have_send = true;
      st->send_ts = e.ts;
      st->send_size = e.size;
      break;
    case NCCL_STATE_STEP_RECV_WAIT:
      if (!st->have_recv_wait) {
        st->have_recv_wait = true;
        st->recv_wait_ts = e.ts;
      }
      break;
    case NCCL_STATE_STEP_RECV_FLUSH_WAIT:
      st->have_flush = true;
      st->flush_ts = e.ts;
      st->flush_size = e.size;
      break;
    default:
      break;
    }
  }
}

static link_row *link_for(network_state *n, uint64_t comm, int32_t from,
                          int32_t to, bool pxn, size_t *index) {
  /* ranks are below 2^31: `to` shifted by one leaves room for the PXN bit,
   * which keeps placeholders apart from real communicator ids */
  uint64_t key = ((uint64_t)(uint32_t)from << 32) |
                 ((uint64_t)((uint32_t)to & 0x7FFFFFFFu) << 1) | (uint64_t)pxn;
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
    l->pxn = pxn;
    lhist_init(&l->step_mbps);
    *idx = n->nlinks;
  }
  *index = *idx - 1;
  return &n->links[*idx - 1];
}

/* One send transfer on its link; false when out of memory. */
static bool add_transfer(network_state *n, uint64_t comm, int32_t from,
                         int32_t to, bool pxn, uint64_t bytes, int64_t ns,
                         size_t *index_out) {
  size_t index;
  link_row *l = link_for(n, comm, from, to, pxn, &index);
  if (!l)
    return false;
  *index_out = index;
  l->transfers++;
  l->bytes += bytes;
  l->busy_ns += ns;
  if (ns > 0)
    lhist_add(&l->step_mbps, (int64_t)((double)bytes * 1e3 / (double)ns));
  bool inserted;
  uint64_t *m =
      pair_map_put(&n->min_by_size, index, bytes, (uint64_t)ns, &inserted);
  if (m && !inserted && (uint64_t)ns < *m)
    *m = (uint64_t)ns;
  return true;
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

/* A PXN step's placeholder communicator: the proxy's file and the pid of
 * the process the operation came from (resolved in resolve_pxn). */
static uint64_t pxn_placeholder(size_t file, int64_t origin_pid) {
  return ((uint64_t)file << 32) | (uint32_t)origin_pid;
}

void net_add_step(summary *s, const rec *r, rec_scratch *sc, size_t file) {
  if (r->end != END_STOPPED || !r->stop.present || r->rank < 0)
    return;
  rec_step_link how;
  if (!rec_step_link_decode(r, &sc->sub, &how))
    return;
  if (!how.has_peer || !how.has_is_send) {
    s->net.steps_without_size++;
    return;
  }
  if (!how.is_send) {
    s->net.recv_steps++;
    return;
  }
  int64_t peer = how.peer;
  int64_t channel = how.channel;
  step_states st;
  read_states(r, sc, &st);
  bool pxn = false;
  int64_t origin_pid = -1;
  js_to_bool(js_get(r->f, K_isPxn), &pxn);
  js_to_i64(js_get(r->f, K_originPid), &origin_pid);
  pxn = pxn && !r->has_comm && origin_pid >= 0;
  uint64_t comm = pxn           ? pxn_placeholder(file, origin_pid)
                  : r->has_comm ? r->comm_id
                                : 0;
  int32_t rank = (int32_t)r->rank;
  if (!st.have_send || st.send_size == 0 || r->stop.ts < st.send_ts) {
    s->net.steps_without_size++;
    return;
  }
  int64_t ns = r->stop.ts - st.send_ts;
  size_t link;
  if (add_transfer(&s->net, comm, rank, (int32_t)peer, pxn, st.send_size, ns,
                   &link) &&
      r->parent == PAR_LOCAL) /* its ProxyOp: the per-step test's unit */
    net_step_add(&s->net, file, r->parent_id, link, st.send_size, ns);
  if (channel >= 0 && !pxn)
    add_channel(&s->net, comm, rank, (int32_t)channel, st.send_size, ns);
  s->net.steps_used++;
}

/* The origin process's communicator of a PXN row: the one in which the
 * sending rank exists (ProfilerInit records of the origin file) and which
 * has room for the peer. Left at 0 ("(unknown)") when there is none or
 * more than one. */
static void resolve_pxn(summary *s, link_row *l) {
  size_t proxy_file = (size_t)(l->comm_id >> 32);
  int64_t origin_pid = (int64_t)(uint32_t)l->comm_id;
  l->comm_id = 0;
  if (proxy_file >= s->files)
    return;
  const file_health *proxy = &s->health[proxy_file];
  size_t origin = SIZE_MAX;
  for (size_t f = 0; f < s->files && origin == SIZE_MAX; f++)
    if (s->health[f].pid == origin_pid &&
        strcmp(s->health[f].host, proxy->host) == 0)
      origin = f;
  if (origin == SIZE_MAX)
    return;
  uint64_t found = 0;
  int candidates = 0;
  for (size_t i = 0; i < s->gpu_index.cap; i++) {
    const pair_map_slot *sl = &s->gpu_index.slots[i];
    if (!sl->used || (sl->value & 0xffffffffu) != origin + 1 ||
        sl->b != (uint64_t)l->from)
      continue;
    const uint64_t *ci = pair_map_get(&s->comm_index, sl->a, 0);
    int nranks = ci ? s->comms[*ci - 1].nranks : 0;
    if (nranks > 0 && l->to >= nranks)
      continue;
    found = sl->a;
    candidates++;
  }
  if (candidates == 1)
    l->comm_id = found;
  else
    l->comm_ambiguous = candidates > 1;
}

/* ---- what a slow pair points to ---- */

#define SLOW_FRACTION 0.5       /* slow: below half the comm's median */
#define LATE_FRACTION 0.75      /* late: last in at least 3/4 of instances */
#define LATE_MIN_INSTANCES 4    /* ... of at least this many */
#define LATE_MIN_WAIT_NS 100000 /* ... and >= 100 us of own wait per time */

/* A fitted link's bandwidth, sorted by communicator then bandwidth. */
typedef struct {
  uint64_t comm_id;
  double bandwidth;
} comm_bw;

static int cmp_comm_bw(const void *a, const void *b) {
  const comm_bw *x = a, *y = b;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  return x->bandwidth < y->bandwidth ? -1 : x->bandwidth > y->bandwidth;
}

static bool add_verdict(network_state *n, size_t *cap, net_verdict v) {
  if (n->nverdicts == *cap) {
    size_t ncap = *cap ? *cap * 2 : 8;
    net_verdict *nv = realloc(n->verdicts, ncap * sizeof *nv);
    if (!nv)
      return false;
    n->verdicts = nv;
    *cap = ncap;
  }
  n->verdicts[n->nverdicts++] = v;
  return true;
}

/* Is every fitted link that touches `rank` in `comm` slow (at least 2)? */
static bool all_links_slow(const network_state *n, uint64_t comm,
                           int32_t rank) {
  int touched = 0, slow = 0;
  for (size_t i = 0; i < n->nlinks; i++) {
    const link_row *l = &n->links[i];
    if (l->comm_id != comm || l->fit.status != NET_FIT_OK ||
        (l->from != rank && l->to != rank))
      continue;
    touched++;
    slow += l->slow;
  }
  return touched >= 2 && slow == touched;
}

/* Does `comm` move anything over the network (a verdict about it here)? */
static bool has_links(const network_state *n, uint64_t comm) {
  for (size_t i = 0; i < n->nlinks; i++)
    if (n->links[i].comm_id == comm)
      return true;
  return false;
}

/* A rank at the end of a slow link is late because of it. */
static bool receives_slow_link(const network_state *n, uint64_t comm,
                               int32_t rank) {
  for (size_t i = 0; i < n->nlinks; i++)
    if (n->links[i].comm_id == comm && n->links[i].to == rank &&
        (n->links[i].slow || n->links[i].slow_steps))
      return true;
  return false;
}

/* The median fitted bandwidth of `comm` (0 when none) and how many
 * fitted links it has, from the sorted table. */
static double median_bandwidth(const comm_bw *v, size_t n, uint64_t comm,
                               size_t *count) {
  size_t lo = 0, hi = n;
  while (lo < hi) { /* first entry of comm */
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].comm_id < comm)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < n && v[end].comm_id == comm)
    end++;
  size_t k = end - lo;
  *count = k;
  if (k == 0)
    return 0;
  const comm_bw *c = v + lo;
  return k % 2 ? c[k / 2].bandwidth
               : (c[k / 2 - 1].bandwidth + c[k / 2].bandwidth) / 2;
}

/* The links the per-step test finds slow that no fit found slow
 * (summary_link_steps.c), each at its most significant step size. */
static void step_verdicts(network_state *n, size_t *cap) {
  for (size_t i = 0; i < n->nlinks; i++) {
    const link_row *l = &n->links[i];
    if (!l->slow_steps || l->slow)
      continue;
    const link_size_row *best = NULL;
    for (size_t j = 0; j < n->nsized; j++) {
      const link_size_row *r = &n->sized[j];
      if (r->link == i && r->result.slow &&
          (!best || r->result.log10p < best->result.log10p))
        best = r;
    }
    if (!best)
      continue;
    const link_step_result *t = &best->result;
    net_verdict v = {
        .kind = VERDICT_LINK_STEPS,
        .comm_id = l->comm_id,
        .from = l->from,
        .to = l->to,
        .rank = -1,
        .bandwidth_gbs = (double)best->step_bytes / (double)t->median_ns,
        .median_gbs = t->reference_ns > 0
                          ? (double)best->step_bytes / (double)t->reference_ns
                          : 0.0,
        .step_bytes = best->step_bytes,
        .steps = *t};
    if (!add_verdict(n, cap, v))
      return;
  }
}

/* Slow pairs: a link whose fitted send-side bandwidth is below half the
 * median of its communicator's fitted links. It is the rank's fault when
 * every link of one of its ranks is slow, else the link's. A rank that
 * arrives last most of the time (stragglers) with links that are not slow
 * is a late rank: its peers' receives wait for it, the network does not
 * (unless it receives over a slow link: then the link made it late). */
static void net_verdicts(summary *s) {
  network_state *n = &s->net;
  size_t cap = 0, nbw = 0;
  comm_bw *bw = malloc((n->nlinks + 1) * sizeof *bw);
  if (!bw)
    return;
  for (size_t i = 0; i < n->nlinks; i++)
    if (n->links[i].fit.status == NET_FIT_OK)
      bw[nbw++] = (comm_bw){n->links[i].comm_id, n->links[i].fit.bandwidth_bps};
  qsort(bw, nbw, sizeof *bw, cmp_comm_bw);
  for (size_t i = 0; i < n->nlinks; i++) {
    link_row *l = &n->links[i];
    size_t count;
    double median = median_bandwidth(bw, nbw, l->comm_id, &count);
    l->slow = count >= 2 && l->fit.status == NET_FIT_OK &&
              l->fit.bandwidth_bps < SLOW_FRACTION * median;
  }
  for (size_t i = 0; i < n->nlinks; i++) {
    const link_row *l = &n->links[i];
    if (!l->slow)
      continue;
    size_t count;
    net_verdict v = {.kind = VERDICT_LINK,
                     .comm_id = l->comm_id,
                     .from = l->from,
                     .to = l->to,
                     .rank = -1,
                     .bandwidth_gbs = l->fit.bandwidth_bps / 1e9,
                     .median_gbs =
                         median_bandwidth(bw, nbw, l->comm_id, &count) / 1e9};
    if (all_links_slow(n, l->comm_id, l->from)) {
      v.kind = VERDICT_RANK_LINKS;
      v.rank = l->from;
    } else if (all_links_slow(n, l->comm_id, l->to)) {
      v.kind = VERDICT_RANK_LINKS;
      v.rank = l->to;
    }
    if (!add_verdict(n, &cap, v))
      break;
  }
  step_verdicts(n, &cap);
  bool timing = s->strag.matched[1] > 0;
  for (size_t i = 0; i < s->strag.nranks; i++) {
    const rank_row *r = &s->strag.ranks[i];
    if (r->timing != timing || r->instances < LATE_MIN_INSTANCES ||
        (double)r->times_last < LATE_FRACTION * (double)r->instances ||
        r->own_wait_sum < LATE_MIN_WAIT_NS * (int64_t)r->times_last ||
        !has_links(n, r->comm_id) || receives_slow_link(n, r->comm_id, r->rank))
      continue;
    net_verdict v = {.kind = VERDICT_RANK_LATE,
                     .comm_id = r->comm_id,
                     .from = r->rank,
                     .to = -1,
                     .rank = r->rank,
                     .last_fraction =
                         (double)r->times_last / (double)r->instances};
    if (!add_verdict(n, &cap, v))
      break;
  }
  free(bw);
}

void net_finish(summary *s) {
  network_state *n = &s->net;
  net_fit_acc *acc = calloc(n->nlinks + 1, sizeof *acc);
  if (!acc)
    return;
  for (size_t i = 0; i < n->min_by_size.cap; i++) {
    const pair_map_slot *sl = &n->min_by_size.slots[i];
    if (!sl->used || sl->a >= n->nlinks)
      continue;
    if (sl->value == 0)
      continue;
    net_fit_add(&acc[sl->a], (double)sl->b, (double)sl->value / 1e9);
    n->links[sl->a].distinct_sizes++;
  }
  for (size_t i = 0; i < n->nlinks; i++) {
    link_row *l = &n->links[i];
    l->fit = net_fit_solve(&acc[i]);
    if (l->pxn)
      resolve_pxn(s, l);
  }
  free(acc);
  net_step_tests(n);
  net_verdicts(s);
}
