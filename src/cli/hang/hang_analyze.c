/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_analyze.c — who is behind: for every (communicator,
 * function) in which some rank has a hung operation, the status of each
 * rank, who waits on whom, and the culprit.
 *
 * The rules (docs/hang.md explains them for users):
 *  - a rank's position: from its snapshot's progress (or, without one, its
 *    trace): it never started the newest collective the others started
 *    (behind), is stuck in it, is progressing, or finished it;
 *  - what a stuck rank waits on: the head of each ProxyStep pipeline (the
 *    lowest step in flight of a channel, direction and peer) in its last
 *    NCCL state (nccl-behaviour §6.9): RecvWait and SendPeerWait wait on
 *    the peer; SendWait on the network; SendGPUWait, RecvFlushWait and
 *    RecvGPUWait on the rank's own GPU. A rank that waits on a peer is not
 *    a cause: its GPU waits are the consequence (a collective's kernel
 *    waits for its inputs and for room to send);
 *  - candidates are the ranks that wait on no peer, strongest evidence
 *    first: never started < no snapshot < data arrived and the GPU does not
 *    take it < a send the network does not complete < the GPU does not
 *    produce < finished yet waited on < no step detail. Among equals, the
 *    one most stuck ranks wait on (directly or through others) comes first,
 *    then the one that stopped first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"
#include "nccl_names.h"

#define MAX_RANKS (1 << 22) /* a communicator larger than this is bad data */

typedef struct {
  uint64_t comm;
  int64_t rank;
  const hang_op *op;
} pxn_attr;

typedef struct {
  const hang_db *db;
  pxn_attr *pxn;
  size_t npxn;
} actx;

static bool is_p2p(const hang_op *op) {
  return nccl_event_from_json_str(op->type) == NCCL_EV_P2P;
}

static const char *group_func(const hang_op *op) {
  return is_p2p(op) ? "Send/Recv" : op->func;
}

static bool in_group(const hang_group *g, const hang_op *op) {
  return !op->pxn && strcmp(group_func(op), g->func) == 0;
}

/* ---- PXN: a ProxyOp run for another process belongs to its origin ---- */

static void attribute_pxn(actx *a) {
  const hang_db *db = a->db;
  for (size_t s = 0; s < db->nsources; s++) {
    const hang_source *src = &db->sources[s];
    for (size_t i = 0; i < src->norphans; i++) {
      const hang_op *op = &src->orphans[i];
      if (!op->pxn || !op->hung || op->rank < 0)
        continue;
      /* PXN stays inside a node: the origin is a process of this host. */
      uint64_t comm = 0;
      size_t found = 0;
      for (size_t m = 0; m < db->nmembers; m++) {
        const hang_member *mem = &db->members[m];
        const hang_source *ms = &db->sources[mem->source];
        if (ms->is_trace || ms->pid != op->origin_pid ||
            strcmp(ms->hostname, src->hostname) != 0 || mem->rank != op->rank)
          continue;
        if (found == 0 || mem->comm_id != comm)
          found++;
        comm = mem->comm_id;
      }
      if (found != 1)
        continue; /* unknown or ambiguous communicator */
      pxn_attr *p = realloc(a->pxn, (a->npxn + 1) * sizeof *p);
      if (!p)
        return;
      a->pxn = p;
      a->pxn[a->npxn++] = (pxn_attr){comm, op->rank, op};
    }
  }
}

/* ---- groups ---- */

static hang_group *group_for(hang_report *r, uint64_t comm, const char *func) {
  for (size_t i = 0; i < r->ngroups; i++)
    if (r->groups[i].comm_id == comm && strcmp(r->groups[i].func, func) == 0)
      return &r->groups[i];
  hang_group *g = realloc(r->groups, (r->ngroups + 1) * sizeof *g);
  if (!g)
    return NULL;
  r->groups = g;
  g = &r->groups[r->ngroups++];
  memset(g, 0, sizeof *g);
  g->comm_id = comm;
  snprintf(g->func, sizeof g->func, "%s", func);
  return g;
}

static bool find_groups(const hang_db *db, hang_report *r) {
  for (size_t i = 0; i < db->nmembers; i++) {
    const hang_member *m = &db->members[i];
    for (size_t k = 0; k < m->nops; k++) {
      const hang_op *op = &m->ops[k];
      if (!op->hung || op->pxn)
        continue;
      hang_group *g = group_for(r, m->comm_id, group_func(op));
      if (!g)
        return false;
      g->has_seq = op->has_seq;
    }
  }
  return true;
}

/* A snapshot beats a trace; of two snapshots the newer one. */
static bool better(const hang_db *db, const hang_member *a,
                   const hang_member *b) {
  const hang_source *sa = &db->sources[a->source];
  const hang_source *sb = &db->sources[b->source];
  if (sa->is_trace != sb->is_trace)
    return !sa->is_trace;
  return sa->ts_ns > sb->ts_ns;
}

static bool place_members(const hang_db *db, hang_group *g) {
  int64_t n = 0;
  for (size_t i = 0; i < db->nmembers; i++) {
    const hang_member *m = &db->members[i];
    if (m->comm_id != g->comm_id)
      continue;
    if (m->nranks > n)
      n = m->nranks;
    if (m->rank + 1 > n)
      n = m->rank + 1;
    if (!g->comm_name[0] && m->comm_name[0])
      memcpy(g->comm_name, m->comm_name, sizeof g->comm_name);
  }
  if (n <= 0 || n > MAX_RANKS)
    return false;
  g->nranks = n;
  g->ranks = calloc((size_t)n, sizeof *g->ranks);
  if (!g->ranks)
    return false;
  for (int64_t r = 0; r < n; r++)
    g->ranks[r].rank = r;
  for (size_t i = 0; i < db->nmembers; i++) {
    const hang_member *m = &db->members[i];
    if (m->comm_id != g->comm_id || m->rank < 0 || m->rank >= n)
      continue;
    hang_rank *hr = &g->ranks[m->rank];
    if (!hr->m || better(db, m, hr->m)) {
      hr->m = m;
      hr->src = &db->sources[m->source];
    }
  }
  return true;
}

static bool add_head(hang_rank *hr, const hang_head *h) {
  const hang_head **p = realloc(hr->heads, (hr->nheads + 1) * sizeof *p);
  if (!p)
    return false;
  hr->heads = p;
  hr->heads[hr->nheads++] = h;
  return true;
}

static void add_op_heads(hang_rank *hr, const hang_op *op) {
  for (size_t h = 0; h < op->nheads; h++)
    add_head(hr, &op->heads[h]);
}

/* Position, stuck operations and waits of one rank. */
static void read_rank(const actx *a, hang_group *g, hang_rank *hr,
                      bool *moving) {
  const hang_member *m = hr->m;
  *moving = false;
  if (!m)
    return;
  for (size_t i = 0; i < m->nprogress && g->has_seq; i++) {
    const hang_progress *p = &m->progress[i];
    if (strcmp(p->func, g->func) != 0)
      continue;
    hr->has_started = p->has_started_seq;
    hr->last_started = p->last_started;
    hr->has_finished = p->has_finished_seq;
    hr->last_finished = p->last_finished;
  }
  for (size_t k = 0; k < m->nops; k++) {
    const hang_op *op = &m->ops[k];
    if (!in_group(g, op))
      continue;
    if (op->has_seq && (!hr->has_started || op->seq > hr->last_started)) {
      hr->has_started = true;
      hr->last_started = op->seq;
    }
    if (!op->hung) {
      *moving = true;
      continue;
    }
    hr->nstuck++;
    if (op->idle_s > g->max_idle_s)
      g->max_idle_s = op->idle_s;
    if (!op->has_seq) {
      /* P2p: every stuck Send and Recv says something */
      if (!hr->stuck || op->idle_s > hr->stuck->idle_s)
        hr->stuck = op;
      add_op_heads(hr, op);
    } else if (!hr->stuck || op->seq < hr->stuck->seq) {
      hr->stuck = op; /* later collectives queue behind the oldest */
    }
  }
  if (hr->stuck && hr->stuck->has_seq)
    add_op_heads(hr, hr->stuck);
  if (hr->nstuck)
    for (size_t i = 0; i < a->npxn; i++)
      if (a->pxn[i].comm == g->comm_id && a->pxn[i].rank == hr->rank)
        add_op_heads(hr, a->pxn[i].op);
}

/* The head that says most about a rank that waits on no peer. */
static hang_evidence own_evidence(hang_rank *hr) {
  static const struct {
    hang_wait wait;
    hang_evidence ev;
  } order[] = {{HW_GPU_CONSUME, HE_GPU_CONSUME},
               {HW_GPU_FLUSH, HE_GPU_CONSUME},
               {HW_NETWORK, HE_NETWORK},
               {HW_GPU_PRODUCE, HE_GPU_PRODUCE}};
  for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
    const hang_head *best = NULL;
    for (size_t i = 0; i < hr->nheads; i++)
      if (hr->heads[i]->wait == order[o].wait &&
          (!best || hr->heads[i]->idle_s > best->idle_s))
        best = hr->heads[i];
    if (best) {
      hr->evidence_head = best;
      return order[o].ev;
    }
  }
  return HE_NO_DETAIL;
}

static void classify(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].has_started &&
        (!g->has_newest || g->ranks[r].last_started > g->newest)) {
      g->newest = g->ranks[r].last_started;
      g->has_newest = true;
    }
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].has_finished &&
        (!g->has_done || g->ranks[r].last_finished > g->newest_done)) {
      g->newest_done = g->ranks[r].last_finished;
      g->has_done = true;
    }
}

static void set_status(const hang_db *db, hang_group *g, hang_rank *hr,
                       bool moving) {
  if (!hr->m)
    hr->status = HS_NO_DATA;
  else if (hr->nstuck)
    hr->status = HS_STUCK;
  else if (g->has_seq && g->has_newest &&
           (!hr->has_started || hr->last_started < g->newest))
    hr->status = HS_BEHIND;
  else if (moving)
    hr->status = HS_MOVING;
  else if ((g->has_seq && hr->has_finished && g->has_newest &&
            hr->last_finished >= g->newest) ||
           (!g->has_seq && !hr->src->is_trace))
    hr->status = HS_DONE; /* P2p: a snapshot with nothing in flight */
  else
    hr->status = HS_STARTED;
  switch (hr->status) {
  case HS_NO_DATA:
    g->nno_data++;
    hr->evidence = HE_SILENT;
    break;
  case HS_STUCK:
    g->nstuck++;
    for (size_t i = 0; i < hr->nheads; i++)
      if (hang_waits_on_peer(hr->heads[i], hr->rank, g->nranks))
        hr->waits_on_peer = true;
    hr->evidence = hr->waits_on_peer ? HE_NONE : own_evidence(hr);
    break;
  case HS_BEHIND:
    g->nbehind++;
    hr->evidence = HE_NEVER_STARTED;
    break;
  case HS_MOVING:
    g->nmoving++;
    break;
  case HS_DONE:
    g->ndone++;
    break;
  case HS_STARTED:
    if (hr->src->is_trace) {
      /* In it by its trace, yet no snapshot: was it still alive when the
       * others had hung? (then its watchdog is probably off) */
      g->nsilent++;
      hr->evidence = hr->src->last_ts_ns != INT64_MIN && db->snapshots &&
                             hr->src->last_ts_ns >= db->oldest_ts_ns
                         ? HE_QUIET
                         : HE_SILENT;
    }
    break;
  }
  if (g->has_done && (!hr->has_finished || hr->last_finished < g->newest_done))
    g->nnot_finished++;
}

static const hang_group *sort_group; /* qsort has no context argument */

static int by_likelihood(const void *x, const void *y) {
  const hang_rank *a = &sort_group->ranks[*(const int64_t *)x];
  const hang_rank *b = &sort_group->ranks[*(const int64_t *)y];
  if (a->inside_node != b->inside_node) /* the evidence that says more */
    return a->inside_node ? 1 : -1;
  if (a->behind_briefly != b->behind_briefly)
    return a->behind_briefly ? 1 : -1;
  if (a->reach != b->reach)
    return a->reach > b->reach ? -1 : 1;
  int64_t sa = a->evidence_head ? a->evidence_head->since_ns : INT64_MAX;
  int64_t sb = b->evidence_head ? b->evidence_head->since_ns : INT64_MAX;
  if (sa != sb)
    return sa < sb ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int by_host(const void *x, const void *y) {
  const hang_rank *a = &sort_group->ranks[*(const int64_t *)x];
  const hang_rank *b = &sort_group->ranks[*(const int64_t *)y];
  return strcmp(a->src->hostname, b->src->hostname);
}

/* Ranks of the communicator that share a host (sorted by host name). */
static void mark_node_mates(hang_group *g) {
  int64_t *idx = malloc((size_t)g->nranks * sizeof *idx);
  if (!idx)
    return;
  size_t n = 0;
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].src)
      idx[n++] = r;
  sort_group = g;
  qsort(idx, n, sizeof *idx, by_host);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && by_host(&idx[i], &idx[j]) == 0)
      j++;
    for (size_t k = i; k < j && j - i > 1; k++)
      g->ranks[idx[k]].node_mates = true;
    i = j;
  }
  free(idx);
}

/* Whether anything of the process of snapshot `src` hangs. */
static bool process_hangs(const hang_db *db, const hang_source *src) {
  for (size_t i = 0; i < db->nmembers; i++) {
    const hang_member *m = &db->members[i];
    if (&db->sources[m->source] != src)
      continue;
    for (size_t k = 0; k < m->nops; k++)
      if (m->ops[k].hung)
        return true;
  }
  for (size_t i = 0; i < src->norphans; i++)
    if (src->orphans[i].hung)
      return true;
  return false;
}

/* A rank that never started the collective by a snapshot in which its
 * process hangs nowhere (written when something it reported moved again,
 * or by cclscope_dump()) was between collectives at that moment. When that
 * moment came less than a hang timeout after the others started this one
 * (their stuck operations' start), it may simply have been slow to get
 * there (a loaded machine), and went on after: not evidence enough for
 * `high`. A trace covers the rank to its end; a snapshot in which the
 * process hangs elsewhere shows where it is held. */
static void mark_behind_briefly(const hang_db *db, hang_group *g) {
  int64_t first_start = INT64_MAX;
  double timeout_s = 0;
  for (int64_t r = 0; r < g->nranks; r++) {
    const hang_rank *hr = &g->ranks[r];
    if (hr->status != HS_STUCK || !hr->stuck || !hr->stuck->has_seq ||
        !g->has_newest || hr->stuck->seq != g->newest || hr->src->is_trace)
      continue;
    int64_t start = hr->src->ts_ns - (int64_t)(hr->stuck->age_s * 1e9);
    if (start < first_start)
      first_start = start;
    if (hr->src->timeout_s > timeout_s)
      timeout_s = hr->src->timeout_s;
  }
  if (first_start == INT64_MAX)
    return;
  for (int64_t r = 0; r < g->nranks; r++) {
    hang_rank *hr = &g->ranks[r];
    if (hr->evidence != HE_NEVER_STARTED || !hr->src || hr->src->is_trace ||
        process_hangs(db, hr->src))
      continue;
    hr->behind_briefly =
        (double)(hr->src->ts_ns - first_start) < timeout_s * 1e9;
  }
}

/* Whether several culprits that never started the collective are all
 * ranks of one process (one snapshot or trace names them all). */
static bool one_process(const hang_group *g) {
  if (g->top != HE_NEVER_STARTED || !g->has_seq || g->nculprits < 2)
    return false;
  const hang_source *src = g->ranks[g->culprits[0]].src;
  for (size_t i = 1; i < g->nculprits; i++)
    if (src == NULL || g->ranks[g->culprits[i]].src != src)
      return false;
  return true;
}

static hang_confidence confidence_of(const hang_group *g) {
  if (g->nculprits == 0)
    return HC_NONE;
  const hang_rank *first = &g->ranks[g->culprits[0]];
  bool single = g->nculprits == 1;
  bool ahead = single || first->reach > g->ranks[g->culprits[1]].reach;
  switch (g->top) {
  case HE_NEVER_STARTED: /* one rank, or one process; else which first? */
    if (first->behind_briefly)
      return HC_MEDIUM; /* maybe only slow to get there */
    return single || g->culprit_process ? HC_HIGH : HC_MEDIUM;
  case HE_SILENT:
    return HC_MEDIUM;
  case HE_LINK: /* both ends of one link say it */
    return single ? HC_HIGH : HC_LOW;
  case HE_GPU_IDLE: /* nothing taken: no node-mate holds it up; its proxy
                       may have stopped right after the data arrived */
    if (!single)
      return HC_LOW;
    return first->proxy_quiet ? HC_MEDIUM : HC_HIGH;
  case HE_PROXY: /* indirect: step counters of two ranks */
    return single ? HC_MEDIUM : HC_LOW;
  case HE_GPU_HELD: /* a GPU of the node or a link between two of them:
                       nothing inside a node is profiled */
    return HC_NONE;
  case HE_GPU_CONSUME:
    if (first->inside_node)
      return HC_NONE; /* held up inside its node, maybe */
    if (!ahead)
      return HC_LOW;
    return single && !first->node_mates ? HC_HIGH : HC_MEDIUM;
  case HE_NETWORK:
    return ahead ? HC_MEDIUM : HC_LOW;
  case HE_GPU_PRODUCE:
    if (first->inside_node)
      return HC_NONE; /* its input comes from inside its node */
    return single && !first->node_mates ? HC_MEDIUM : HC_LOW;
  case HE_QUIET: /* every stuck rank waits on it: medium */
    return single && first->reach == g->nstuck ? HC_MEDIUM : HC_LOW;
  case HE_WAITED_DONE:
    return HC_LOW;
  default: /* HE_NO_DETAIL */
    return single && g->nstuck > 1 ? HC_LOW : HC_NONE;
  }
}

static bool pick_culprits(hang_group *g) {
  /* Finished or progressing ranks that others wait on are candidates. */
  for (int64_t r = 0; r < g->nranks; r++) {
    hang_rank *hr = &g->ranks[r];
    if (hr->evidence != HE_NONE || !hr->waited_by)
      continue;
    if (!g->has_seq && hr->status == HS_DONE)
      hr->evidence = HE_NEVER_STARTED; /* P2p: no matching Send/Recv posted */
    else if (hr->status == HS_DONE || hr->status == HS_MOVING ||
             hr->status == HS_STARTED)
      hr->evidence = HE_WAITED_DONE;
  }
  g->top = HE_COUNT;
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].evidence != HE_NONE && g->ranks[r].evidence < g->top)
      g->top = g->ranks[r].evidence;
  if (g->top == HE_COUNT) {
    g->top = HE_NONE;
    hang_graph_cycle(g);
    return true;
  }
  for (int64_t r = 0; r < g->nranks; r++)
    g->nculprits += g->ranks[r].evidence == g->top;
  g->culprits = malloc(g->nculprits * sizeof *g->culprits);
  if (!g->culprits)
    return false;
  size_t k = 0;
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].evidence == g->top)
      g->culprits[k++] = r;
  return true;
}

static bool analyze_group(const actx *a, hang_group *g) {
  if (!place_members(a->db, g))
    return false;
  bool *moving = calloc((size_t)g->nranks, sizeof *moving);
  if (!moving)
    return false;
  for (int64_t r = 0; r < g->nranks; r++)
    read_rank(a, g, &g->ranks[r], &moving[r]);
  classify(g);
  for (int64_t r = 0; r < g->nranks; r++)
    set_status(a->db, g, &g->ranks[r], moving[r]);
  free(moving);
  mark_node_mates(g);
  mark_behind_briefly(a->db, g);
  hang_ring_evidence(g);
  hang_graph gr = {NULL, NULL};
  bool ok = hang_graph_build(g, &gr) && pick_culprits(g);
  bool *seen = ok ? malloc((size_t)g->nranks * sizeof *seen) : NULL;
  int64_t *queue = ok ? malloc((size_t)g->nranks * sizeof *queue) : NULL;
  if (seen && queue) {
    for (size_t i = 0; i < g->nculprits; i++)
      g->ranks[g->culprits[i]].reach =
          hang_graph_reach(g, &gr, g->culprits[i], seen, queue);
    sort_group = g;
    if (g->nculprits > 1)
      qsort(g->culprits, g->nculprits, sizeof *g->culprits, by_likelihood);
    g->culprit_process = one_process(g);
    g->confidence = confidence_of(g);
    g->hclass = hang_class_of(g);
  } else {
    ok = false;
  }
  free(seen);
  free(queue);
  hang_graph_free(&gr);
  return ok;
}

/* Groups in a stable order: by communicator id, then function. */
static int by_comm(const void *x, const void *y) {
  const hang_group *a = x, *b = y;
  if (a->comm_id != b->comm_id)
    return a->comm_id < b->comm_id ? -1 : 1;
  return strcmp(a->func, b->func);
}

bool hang_analyze(const hang_db *db, hang_report *r) {
  memset(r, 0, sizeof *r);
  actx a = {db, NULL, 0};
  attribute_pxn(&a);
  bool ok = find_groups(db, r);
  if (ok && r->ngroups > 1)
    qsort(r->groups, r->ngroups, sizeof *r->groups, by_comm);
  for (size_t i = 0; ok && i < r->ngroups; i++)
    ok = analyze_group(&a, &r->groups[i]);
  ok = ok && hang_find_mismatches(db, r);
  free(a.pxn);
  return ok;
}

void hang_report_free(hang_report *r) {
  for (size_t i = 0; i < r->ngroups; i++) {
    hang_group *g = &r->groups[i];
    for (int64_t k = 0; k < g->nranks && g->ranks; k++)
      free(g->ranks[k].heads);
    free(g->ranks);
    free(g->culprits);
    free(g->cycle);
  }
  free(r->groups);
  memset(r, 0, sizeof *r);
}

const char *hang_evidence_name(hang_evidence e) {
  static const char *const names[HE_COUNT] = {
      [HE_NONE] = "none",
      [HE_MISMATCH] = "mismatch",
      [HE_NEVER_STARTED] = "never-started",
      [HE_SILENT] = "no-snapshot",
      [HE_LINK] = "network-link-stalled",
      [HE_PROXY] = "proxy-stopped",
      [HE_GPU_IDLE] = "gpu-took-nothing",
      [HE_GPU_CONSUME] = "gpu-not-consuming",
      [HE_GPU_HELD] = "node-holds-data",
      [HE_NETWORK] = "network-send-stuck",
      [HE_GPU_PRODUCE] = "gpu-not-producing",
      [HE_WAITED_DONE] = "finished-but-waited-on",
      [HE_QUIET] = "no-snapshot-but-alive",
      [HE_NO_DETAIL] = "no-step-detail"};
  return (unsigned)e < HE_COUNT ? names[e] : "none";
}

const char *hang_confidence_name(hang_confidence c) {
  static const char *const names[] = {"none", "low", "medium", "high"};
  return (unsigned)c <= HC_HIGH ? names[c] : "none";
}

const char *hang_status_name(hang_status s) {
  static const char *const names[] = {"no-data", "stuck",   "behind",
                                      "moving",  "started", "done"};
  return (unsigned)s <= HS_DONE ? names[s] : "no-data";
}
