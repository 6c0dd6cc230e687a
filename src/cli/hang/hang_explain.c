/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_explain.c — the sentences of `cclscope hang` (see
 * hang_explain.h). The state semantics are NCCL's (docs/nccl-behaviour.md
 * §6.9); docs/hang.md has the same table for users.
 */
#include "hang/hang_explain.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hang_text_init(hang_text *b, char *p, size_t cap) {
  b->p = p;
  b->cap = cap;
  b->len = 0;
  if (cap)
    p[0] = '\0';
}

void hang_text_add(hang_text *b, const char *fmt, ...) {
  if (b->len + 1 >= b->cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if (n > 0)
    b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

void hang_head_meaning(const hang_head *h, char *buf, size_t cap) {
  switch (h->wait) {
  case HW_PEER_DATA:
    snprintf(buf, cap, "data from rank %" PRId64 " has not arrived", h->peer);
    break;
  case HW_PEER_BUFFER:
    snprintf(buf, cap, "rank %" PRId64 " has no buffer free to receive it",
             h->peer);
    break;
  case HW_NETWORK:
    snprintf(buf, cap, "handed to the network, not completed");
    break;
  case HW_GPU_PRODUCE:
    snprintf(buf, cap, "its GPU has not produced the data");
    break;
  case HW_GPU_FLUSH:
    snprintf(buf, cap, "arrived, the flush to its GPU has not completed");
    break;
  case HW_GPU_CONSUME:
    snprintf(buf, cap, "arrived, its GPU has not taken it");
    break;
  case HW_OTHER:
    snprintf(buf, cap, "a state this version does not interpret");
    break;
  default:
    snprintf(buf, cap, "receive not posted yet");
    break;
  }
}

void hang_head_text(const hang_head *h, char *buf, size_t cap) {
  snprintf(buf, cap,
           "channel %" PRId64 ", %s rank %" PRId64 ": ProxyStep %" PRId64
           " in %s for %.1f s",
           h->channel, h->is_send ? "send to" : "recv from", h->peer, h->step,
           h->state[0] ? h->state : "(no state)", h->idle_s);
}

void hang_culprit_label(const hang_group *g, char *buf, size_t cap) {
  const hang_rank *hr = &g->ranks[g->culprits[0]];
  if (!g->culprit_process) {
    hang_rank_label(hr, buf, cap);
    return;
  }
  int64_t ranks[64];
  size_t n = 0;
  for (size_t i = 0; i < g->nculprits && n < 64; i++)
    ranks[n++] = g->culprits[i];
  for (size_t i = 1; i < n; i++) /* ascending, for hang_ranges */
    for (size_t j = i; j > 0 && ranks[j - 1] > ranks[j]; j--) {
      int64_t t = ranks[j];
      ranks[j] = ranks[j - 1];
      ranks[j - 1] = t;
    }
  char list[96];
  hang_ranges(ranks, n, list, sizeof list);
  snprintf(buf, cap, "the process of ranks %s (%s, pid %" PRId64 ")", list,
           hr->src->hostname[0] ? hr->src->hostname : "?", hr->src->pid);
}

void hang_rank_label(const hang_rank *hr, char *buf, size_t cap) {
  if (hr->src && hr->src->hostname[0])
    snprintf(buf, cap, "rank %" PRId64 " (%s, pid %" PRId64 ")", hr->rank,
             hr->src->hostname, hr->src->pid);
  else
    snprintf(buf, cap, "rank %" PRId64, hr->rank);
}

void hang_ranges(const int64_t *ranks, size_t n, char *buf, size_t cap) {
  hang_text b;
  hang_text_init(&b, buf, cap);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
      j++;
    if (b.len + 24 >= cap) {
      hang_text_add(&b, "%s...", i ? ", " : "");
      return;
    }
    if (j == i)
      hang_text_add(&b, "%s%" PRId64, i ? ", " : "", ranks[i]);
    else
      hang_text_add(&b, "%s%" PRId64 "-%" PRId64, i ? ", " : "", ranks[i],
                    ranks[j]);
    i = j + 1;
  }
}

void hang_what(const hang_group *g, char *buf, size_t cap) {
  if (g->has_seq && g->has_newest)
    snprintf(buf, cap, "%s seqNumber %" PRIu64, g->func, g->newest);
  else
    snprintf(buf, cap, "%s", g->func);
}

/* "seqNumber 40999" or "none" */
static void seq_or_none(bool has, uint64_t seq, char *buf, size_t cap) {
  if (has)
    snprintf(buf, cap, "seqNumber %" PRIu64, seq);
  else
    snprintf(buf, cap, "none");
}

/* Hung operations of the same process in other groups. */
static void elsewhere(const hang_db *db, const hang_group *g,
                      const hang_rank *hr, hang_text *b) {
  if (!hr->m || hr->src->is_trace)
    return;
  int shown = 0;
  for (size_t i = 0; i < db->nmembers && shown < 2; i++) {
    const hang_member *m = &db->members[i];
    if (m->source != hr->m->source)
      continue;
    for (size_t k = 0; k < m->nops && shown < 2; k++) {
      const hang_op *op = &m->ops[k];
      if (!op->hung || op->pxn ||
          (m->comm_id == g->comm_id && strcmp(op->func, g->func) == 0))
        continue;
      hang_text_add(b, "%s %s", shown ? ";" : "",
                    op->func[0] ? op->func : op->type);
      if (op->has_seq)
        hang_text_add(b, " seqNumber %" PRIu64, op->seq);
      hang_text_add(b, " of comm 0x%" PRIx64, m->comm_id);
      if (m->comm_name[0])
        hang_text_add(b, " \"%s\"", m->comm_name);
      hang_text_add(b, " (rank %" PRId64 "), no progress for %.1f s", m->rank,
                    op->idle_s);
      shown++;
    }
  }
}

static void why_never_started(const hang_db *db, const hang_group *g,
                              const hang_rank *hr, hang_text *b) {
  if (!g->has_seq) {
    hang_text_add(
        b,
        "rank %" PRId64 " has no Send or Recv of this communicator in "
        "flight (its snapshot), yet stuck ranks wait on it: it has not "
        "posted the matching receive or send.",
        hr->rank);
    return;
  }
  char last[48], what[96];
  seq_or_none(hr->has_started, hr->last_started, last, sizeof last);
  hang_what(g, what, sizeof what);
  size_t started = 0;
  for (int64_t r = 0; r < g->nranks; r++)
    started += g->ranks[r].has_started && g->has_newest &&
               g->ranks[r].last_started >= g->newest;
  hang_text_add(b,
                "rank %" PRId64
                " never started %s: the last %s it started is %s "
                "(%s), while %zu rank%s did.",
                hr->rank, what, g->func, last,
                hr->src->is_trace ? "from its trace; it has no snapshot"
                                  : "from its snapshot",
                started, started == 1 ? "" : "s");
  size_t before = b->len;
  hang_text_add(b, " Its process is stuck elsewhere:");
  size_t mark = b->len;
  elsewhere(db, g, hr, b);
  if (b->len == mark) {
    b->len = before;
    b->p[before] = '\0';
  } else {
    hang_text_add(b, ".");
  }
}

static void why_silent(const hang_group *g, const hang_rank *hr, int64_t first,
                       hang_text *b) {
  if (!hr->src) {
    hang_text_add(b,
                  "rank %" PRId64
                  " has neither a snapshot nor a trace here: its "
                  "process wrote nothing to this folder (it did not load "
                  "cclscope, wrote elsewhere, or died before its first write), "
                  "so nothing says it ever reached this collective.",
                  hr->rank);
    return;
  }
  char what[96];
  hang_what(g, what, sizeof what);
  hang_text_add(b,
                "rank %" PRId64 " has no snapshot, but its trace says it "
                "enqueued %s and did not finish it.",
                hr->rank, what);
  if (hr->src->last_ts_ns != INT64_MIN && first) {
    double dt = (double)(hr->src->last_ts_ns - first) / 1e9;
    if (dt >= 0)
      hang_text_add(
          b,
          " It was still writing %.1f s after the first snapshot, so "
          "its own watchdog should have reported it: it may be off "
          "there (CCLSCOPE_HANG_TIMEOUT=0), or the rank was progressing.",
          dt);
    else
      hang_text_add(b, " Its trace ends %.1f s before the first snapshot.",
                    -dt);
  }
  if (!hr->src->has_end)
    hang_text_add(b, " The trace has no processEnd: the process was killed, "
                     "crashed or still runs.");
  else if (hr->evidence == HE_SILENT)
    hang_text_add(b, " The trace ends with processEnd: the process finalized.");
}

static void why_own(const hang_group *g, const hang_rank *hr, bool brief,
                    hang_text *b) {
  const hang_head *h = hr->evidence_head;
  char head[160];
  hang_head_text(h, head, sizeof head);
  switch (hr->evidence) {
  case HE_GPU_CONSUME:
    if (h->wait == HW_GPU_FLUSH)
      hang_text_add(b,
                    "rank %" PRId64
                    ": the flush of data that arrived from rank "
                    "%" PRId64 " to its GPU does not complete (%s)",
                    hr->rank, h->peer, head);
    else
      hang_text_add(b,
                    "rank %" PRId64 ": its GPU does not take data that arrived "
                    "from rank %" PRId64 " (%s)",
                    hr->rank, h->peer, head);
    break;
  case HE_NETWORK:
    hang_text_add(b,
                  "rank %" PRId64 ": a send to rank %" PRId64
                  " was handed to the "
                  "network and has not completed (%s)",
                  hr->rank, h->peer, head);
    break;
  default: /* HE_GPU_PRODUCE */
    hang_text_add(b,
                  "rank %" PRId64 ": its GPU has not produced the data to send "
                  "to rank %" PRId64 " (%s)",
                  hr->rank, h->peer, head);
    break;
  }
  hang_text_add(b, ", and it waits on no peer.");
  if (brief)
    return;
  int others = 0;
  for (size_t i = 0; i < hr->nheads && others < 3; i++) {
    const hang_head *o = hr->heads[i];
    if (o == h || o->wait == HW_NONE)
      continue;
    char text[160], meaning[96];
    hang_head_text(o, text, sizeof text);
    hang_head_meaning(o, meaning, sizeof meaning);
    hang_text_add(b, "%s%s (%s)", others ? "; " : " Also: ", text, meaning);
    others++;
  }
  if (others)
    hang_text_add(b, ".");
  if (hr->node_mates && hr->evidence != HE_NETWORK) {
    int64_t mates[64];
    size_t n = 0;
    for (int64_t r = 0; r < g->nranks && n < 64; r++)
      if (r != hr->rank && g->ranks[r].src &&
          strcmp(g->ranks[r].src->hostname, hr->src->hostname) == 0)
        mates[n++] = r;
    char list[256];
    hang_ranges(mates, n, list, sizeof list);
    hang_text_add(
        b,
        " Caveat: rank%s %s share%s its host, and NCCL does not profile "
        "transfers inside a node (NVLink, PCIe, shared memory): its "
        "kernel may be held up by %s.",
        n == 1 ? "" : "s", list, n == 1 ? "s" : "",
        n == 1 ? "that rank" : "one of them");
  }
}

static void add_mismatch(const hang_group *g, const hang_rank *hr, bool brief,
                         hang_text *b) {
  hang_text_add(b,
                "rank %" PRId64 "'s call differs from the others' at the same "
                "point of the communicator's sequence of collectives: %s.",
                hr->rank, g->mismatch);
  if (!brief)
    hang_text_add(b, " NCCL does not compare arguments across ranks: each "
                     "rank's kernel sends and receives the steps its own call "
                     "needs, so ranks wait forever for data that is never "
                     "sent.");
}

static const char *host_or(const hang_group *g, int64_t r) {
  if (r < 0 || r >= g->nranks || !g->ranks[r].src)
    return "?";
  return g->ranks[r].src->hostname;
}

/* Evidence from both ends of a link or from a node (hang_ring.c). */
static void why_ring(const hang_group *g, const hang_rank *hr, hang_text *b) {
  const hang_head *h = hr->evidence_head;
  char head[160] = "";
  if (h)
    hang_head_text(h, head, sizeof head);
  int64_t other = hr->link_peer;
  switch (hr->evidence) {
  case HE_LINK:
    hang_text_add(
        b,
        "the link rank %" PRId64 " -> rank %" PRId64 " (%s -> %s) "
        "stalled: rank %" PRId64 "'s send was handed to the network "
        "and never completed (%s), and rank %" PRId64 " has not "
        "received that step (RecvWait). A stopped proxy on either end "
        "would not look like this: the network lost it.",
        hr->rank, other, host_or(g, hr->rank), host_or(g, other), hr->rank,
        head, other);
    break;
  case HE_PROXY:
    if (h && h->is_send && hr->proxy_for >= 0)
      hang_text_add(b,
                    "rank %" PRId64 ": its process runs rank %" PRId64
                    "'s sends through its NIC (PXN), and the one to rank "
                    "%" PRId64 " (%s) %s: the proxy thread (\"NCCL "
                    "Progress\") that serves rank %" PRId64
                    " is in rank %" PRId64 "'s process, and it no longer "
                    "progresses its transfers.",
                    hr->rank, hr->proxy_for, other, head,
                    h->wait == HW_NETWORK
                        ? "was received, yet it is still in SendWait"
                        : "waits in SendPeerWait for a buffer the receiver "
                          "posted (its receive of that step is in RecvWait)",
                    hr->proxy_for, hr->rank);
    else if (h && h->is_send && h->wait == HW_PEER_BUFFER)
      hang_text_add(b,
                    "rank %" PRId64 ": its send to rank %" PRId64 " waits in "
                    "SendPeerWait (%s) for a buffer rank %" PRId64
                    " posted (its "
                    "receive of that step is in RecvWait): its proxy thread "
                    "(\"NCCL Progress\") no longer polls its transfers.",
                    hr->rank, other, head, other);
    else if (h && h->is_send)
      hang_text_add(
          b,
          "rank %" PRId64 ": its send to rank %" PRId64 " is still in "
          "SendWait (%s) although rank %" PRId64 " received that step: "
          "its proxy thread (\"NCCL Progress\") no longer polls its "
          "transfers.",
          hr->rank, other, head, other);
    else
      hang_text_add(
          b,
          "rank %" PRId64 ": its receive from rank %" PRId64 " is still "
          "in RecvWait (%s) although rank %" PRId64 " completed the "
          "send of that step: its proxy thread (\"NCCL Progress\") no "
          "longer progresses its transfers while its peers' do.",
          hr->rank, other, head, other);
    break;
  case HE_GPU_IDLE:
    hang_text_add(
        b,
        "rank %" PRId64 ": the first data from rank %" PRId64 " arrived "
        "(%s) and its GPU took none of it. A kernel held up by a "
        "node-mate has taken steps first, so %s.",
        hr->rank, h ? h->peer : -1, head,
        hr->proxy_quiet ? "this rank is stuck; but its proxy recorded nothing "
                          "after that arrival, and a proxy thread (\"NCCL "
                          "Progress\") that stopped right after it saw the "
                          "data leaves the same picture as a GPU (or a kernel "
                          "before this one on its stream) that never takes it"
                        : "this GPU itself (or a kernel before this one on its "
                          "stream) is stuck: its proxy went on recording "
                          "transfers after that arrival");
    break;
  default: { /* HE_GPU_HELD */
    int64_t cands[64];
    size_t n = 0;
    for (int64_t r = 0; r < g->nranks && n < 64; r++)
      if (g->ranks[r].evidence == HE_GPU_HELD)
        cands[n++] = r;
    char list[256];
    hang_ranges(cands, n, list, sizeof list);
    hang_text_add(b,
                  "rank %" PRId64 ": on a ring channel its node (%s) received "
                  "data from the previous node and did not pass it on to the "
                  "next one; transfers inside a node are not recorded, and the "
                  "channels through the node leave rank%s %s",
                  hr->rank, host_or(g, hr->rank), n == 1 ? "" : "s", list);
    if (h)
      hang_text_add(b, " (its own send: %s)", head);
    hang_text_add(b, ".");
    break;
  }
  }
}

void hang_why(const hang_db *db, const hang_group *g, const hang_rank *hr,
              bool brief, char *buf, size_t cap) {
  hang_text b;
  hang_text_init(&b, buf, cap);
  char what[96];
  hang_what(g, what, sizeof what);
  switch (hr->evidence) {
  case HE_MISMATCH:
    add_mismatch(g, hr, brief, &b);
    break;
  case HE_NEVER_STARTED:
    why_never_started(db, g, hr, &b);
    break;
  case HE_SILENT:
  case HE_QUIET:
    why_silent(g, hr, db->oldest_ts_ns, &b);
    break;
  case HE_GPU_CONSUME:
  case HE_NETWORK:
  case HE_GPU_PRODUCE:
    why_own(g, hr, brief, &b);
    break;
  case HE_LINK:
  case HE_PROXY:
  case HE_GPU_IDLE:
  case HE_GPU_HELD:
    why_ring(g, hr, &b);
    break;
  case HE_WAITED_DONE:
    hang_text_add(&b,
                  "rank %" PRId64
                  " %s %s, yet other ranks wait on it: the ranks "
                  "may not agree on which collective this is (called in a "
                  "different order or with different arguments), or the data "
                  "was lost.",
                  hr->rank,
                  hr->status == HS_MOVING ? "is still progressing in"
                                          : "finished (or is past)",
                  what);
    break;
  case HE_NO_DETAIL:
    if (hr->stuck && hr->stuck->has_seq)
      hang_text_add(&b, "rank %" PRId64 " is stuck in %s seqNumber %" PRIu64,
                    hr->rank, g->func, hr->stuck->seq);
    else
      hang_text_add(&b, "rank %" PRId64 " is stuck in %s", hr->rank, what);
    if (hr->stuck)
      hang_text_add(&b,
                    " (no progress for %.1f s; %d network operation%s and %d "
                    "kernel channel%s in flight)",
                    hr->stuck->idle_s, hr->stuck->proxy_ops,
                    hr->stuck->proxy_ops == 1 ? "" : "s", hr->stuck->kernel_chs,
                    hr->stuck->kernel_chs == 1 ? "" : "s");
    hang_text_add(&b, ", and no ProxyStep in flight says what it waits for.");
    break;
  default:
    break;
  }
}

void hang_waiters(const hang_group *g, const hang_rank *hr, char *buf,
                  size_t cap) {
  hang_text b;
  hang_text_init(&b, buf, cap);
  size_t shown = 0;
  for (int64_t r = 0; r < g->nranks; r++) {
    const hang_rank *w = &g->ranks[r];
    const hang_head *via = NULL;
    for (size_t i = 0; i < w->nheads && !via; i++) {
      const hang_head *h = w->heads[i];
      if ((h->wait == HW_PEER_DATA || h->wait == HW_PEER_BUFFER) &&
          h->peer == hr->rank && r != hr->rank)
        via = h;
    }
    if (!via)
      continue;
    if (shown == 6) {
      hang_text_add(&b, ", ...");
      break;
    }
    char meaning[96];
    hang_head_meaning(via, meaning, sizeof meaning);
    hang_text_add(&b,
                  "%srank %" PRId64 " waits on rank %" PRId64
                  " (channel %" PRId64 ", %s: %s)",
                  shown ? "; " : "", r, hr->rank, via->channel, via->state,
                  meaning);
    shown++;
  }
  if (hr->reach > hr->waited_by)
    hang_text_add(&b, "%s%zu more stuck rank%s wait%s on it through others",
                  shown ? "; " : "", hr->reach - hr->waited_by,
                  hr->reach - hr->waited_by == 1 ? "" : "s",
                  hr->reach - hr->waited_by == 1 ? "s" : "");
  if (b.len)
    hang_text_add(&b, ".");
}

void hang_advice(const hang_group *g, const hang_rank *hr, char *buf,
                 size_t cap) {
  char where[160] = "its process";
  if (hr->src && hr->src->hostname[0])
    snprintf(where, sizeof where, "pid %" PRId64 " on %s", hr->src->pid,
             hr->src->hostname);
  switch (hr->evidence) {
  case HE_MISMATCH:
    snprintf(buf, cap,
             "Compare the call on %s with the others' (the function, count, "
             "datatype, root and reduction op of this collective): a shape "
             "that differs on one rank (an uneven last batch, a "
             "rank-dependent branch, collectives called in a different "
             "order).",
             where);
    break;
  case HE_NEVER_STARTED:
    snprintf(buf, cap,
             "Look at what %s does instead of this collective (py-spy dump "
             "--pid, gdb -p): compute, data loading, I/O, an exception, or "
             "collectives called in a different order on this rank.",
             where);
    break;
  case HE_SILENT:
  case HE_QUIET:
    snprintf(buf, cap,
             "Find rank %" PRId64 "'s process: is it alive (a process killed "
             "by a signal or the OOM killer leaves its peers waiting "
             "forever), and where is it (py-spy dump --pid, gdb -p)?",
             hr->rank);
    break;
  case HE_PROXY:
    snprintf(buf, cap,
             "Look at the proxy thread (\"NCCL Progress\") of %s: gdb -p "
             "(thread apply all bt) or py-spy dump --native --pid shows where "
             "it blocks (a network plugin call, a lock, a page fault, a "
             "thread starved of CPU).",
             where);
    break;
  case HE_GPU_IDLE:
    if (hr->proxy_quiet) {
      snprintf(buf, cap,
               "Look at both on %s: the GPU (nvidia-smi: a kernel that does "
               "not finish; dmesg | grep -i xid) and the proxy thread "
               "(\"NCCL Progress\"; gdb -p, thread apply all bt, or py-spy "
               "dump --native --pid: blocked in a network plugin call, a "
               "lock, a page fault?).",
               where);
      break;
    }
    /* fall through */
  case HE_GPU_HELD:
  case HE_GPU_CONSUME:
  case HE_GPU_PRODUCE:
    snprintf(buf, cap,
             "Look at the GPU of %s: a kernel queued before this collective "
             "on its stream may not finish (a spinning kernel, a collective "
             "of another communicator), or the GPU faulted (nvidia-smi; "
             "dmesg | grep -i xid); py-spy dump --pid shows where its host "
             "thread is.",
             where);
    break;
  case HE_LINK:
    snprintf(buf, cap,
             "Check the network path from %s to %s (rank %" PRId64
             "): NIC port state and error counters on both ends (ibstat, "
             "perfquery, ethtool -S), link flaps (dmesg), the switch.",
             hr->src ? hr->src->hostname : "its host",
             host_or(g, hr->link_peer), hr->link_peer);
    break;
  case HE_NETWORK:
    snprintf(buf, cap,
             "Check the network path from %s to the host of rank %" PRId64
             ": NIC port state and error counters (ibstat, perfquery, "
             "ethtool -S), link flaps (dmesg), the switch; a proxy thread "
             "(\"NCCL Progress\") of rank %" PRId64 " that stopped looks the "
             "same.",
             hr->src ? hr->src->hostname : "its host",
             hr->evidence_head ? hr->evidence_head->peer : -1, hr->rank);
    break;
  case HE_WAITED_DONE:
    snprintf(buf, cap,
             "Compare the order of collective calls on the ranks (the "
             "function and seqNumber each is in).");
    break;
  case HE_NO_DETAIL:
    snprintf(buf, cap,
             "Record ProxySteps (CCLSCOPE_MASK=default,proxystep) so that the "
             "next snapshot says what each transfer waits for.");
    break;
  default:
    buf[0] = '\0';
    break;
  }
  (void)g;
}

/* Whether the answer is "inside a node": the data stops in a node (its
 * GPUs or the links between them) and nothing there is profiled. */
static bool inside_a_node(const hang_group *g) {
  if (g->nculprits == 0)
    return false;
  return g->top == HE_GPU_HELD || g->ranks[g->culprits[0]].inside_node;
}

/* "No rank stands out: the data stops inside node X (ranks ...) ..." */
static void why_inside_node(const hang_group *g, char *buf, size_t cap) {
  const hang_rank *first = &g->ranks[g->culprits[0]];
  const char *host = first->src ? first->src->hostname : "?";
  int64_t mates[64];
  size_t n = 0;
  for (int64_t r = 0; r < g->nranks && n < 64; r++)
    if (g->ranks[r].src && strcmp(g->ranks[r].src->hostname, host) == 0)
      mates[n++] = r;
  char list[256];
  hang_ranges(mates, n, list, sizeof list);
  const hang_head *h = first->evidence_head;
  char channel[48] = "";
  if (h && first->inside_node)
    snprintf(channel, sizeof channel, ", on channel %" PRId64, h->channel);
  snprintf(
      buf, cap,
      "No rank stands out: the data stops inside node %s (ranks %s%s), "
      "whose transfers NCCL does not profile (NVLink, PCIe, shared memory): "
      "a GPU of that node that stopped and a link between two of its GPUs "
      "that stopped look the same from the ProxySteps at the node's edges. "
      "What would decide it: the node's GPUs and links themselves "
      "(nvidia-smi: one GPU busy in a kernel that does not end, or an Xid "
      "in dmesg, names a GPU; nvidia-smi nvlink --status and its error "
      "counters name a link), or the ring of each channel inside the node "
      "(NCCL_DEBUG=INFO prints them): the GPUs and links shared by the "
      "channels that stopped",
      host, list, channel);
}

/* Whether every stuck rank has kernels in flight and no network operation:
 * all its transfers are inside its node. */
static bool all_inside_nodes(const hang_group *g) {
  size_t stuck = 0;
  for (int64_t r = 0; r < g->nranks; r++) {
    const hang_rank *hr = &g->ranks[r];
    if (hr->status != HS_STUCK || !hr->stuck)
      continue;
    if (hr->stuck->proxy_ops > 0 || hr->stuck->kernel_chs == 0)
      return false;
    stuck++;
  }
  return stuck > 0;
}

void hang_stale_note(const hang_group *g, char *buf, size_t cap) {
  if (g->nstale == 0) {
    if (cap)
      buf[0] = '\0';
    return;
  }
  snprintf(buf, cap,
           "Set aside: %zu pair%s of ProxySteps from both ends of a link "
           "(e.g. rank %" PRId64 " waiting on rank %" PRId64 "), because "
           "the snapshot of the end that waits is older than what the other "
           "end did (snapshots are taken at each rank's own warning; a slow "
           "rank may move after its own): new snapshots would decide it "
           "(the next warning, or cclscope_dump())",
           g->nstale, g->nstale == 1 ? "" : "s", g->stale_rank, g->stale_peer);
}

static void confidence_why(const hang_group *g, char *buf, size_t cap);

void hang_confidence_why(const hang_group *g, char *buf, size_t cap) {
  confidence_why(g, buf, cap);
  size_t len = strlen(buf);
  if (g->nstale == 0 || len + 3 >= cap)
    return;
  snprintf(buf + len, cap - len, ". ");
  hang_stale_note(g, buf + len + 2, cap - len - 2);
}

static void confidence_why(const hang_group *g, char *buf, size_t cap) {
  const hang_rank *first = g->nculprits ? &g->ranks[g->culprits[0]] : NULL;
  switch (g->confidence) {
  case HC_HIGH:
    snprintf(buf, cap, "%s",
             g->top == HE_MISMATCH
                 ? "its call differs from that of the other ranks, which "
                   "all agree, at the same point of the communicator's "
                   "sequence"
             : g->top == HE_NEVER_STARTED && !g->has_seq
                 ? "its own snapshot has nothing of this communicator in "
                   "flight while a peer waits on it"
             : g->top == HE_NEVER_STARTED && g->culprit_process
                 ? "none of its process's ranks reached the collective (by "
                   "its snapshot's counters or its trace): its host stopped "
                   "calling NCCL for all of its GPUs"
             : g->top == HE_NEVER_STARTED
                 ? "its own progress counters say it never reached the "
                   "collective"
             : g->top == HE_LINK
                 ? "both ends of the link say it: the send was handed to the "
                   "network and the receiver never got that step"
             : g->top == HE_GPU_IDLE
                 ? "its GPU took none of the data that arrived, which no "
                   "node-mate can cause, and no other rank shows it"
                 : "the data is there and its GPU does not take it, and no "
                   "other rank shows anything like it");
    break;
  case HC_MEDIUM:
    snprintf(
        buf, cap, "%s",
        g->top == HE_GPU_IDLE
            ? "its GPU took none of the data that arrived, but its proxy "
              "recorded nothing after that arrival, so a proxy thread that "
              "stopped right then looks the same: the rank is sure, what "
              "stopped in it is not (what would decide it: a ProxyStep "
              "its proxy recorded later, or the GPU and the proxy thread "
              "themselves)"
        : g->top == HE_MISMATCH
            ? "ranks of several processes called it differently from the "
              "majority"
        : g->top == HE_NEVER_STARTED && first && first->behind_briefly
            ? "its snapshot, in which nothing of its process hangs, was "
              "taken less than a hang timeout after the others started the "
              "collective: it may only have been slow to get there (a "
              "loaded machine) and have started it since"
        : g->top == HE_NEVER_STARTED
            ? "ranks of several processes never started it: which of them "
              "the others wait on first says little"
        : g->top == HE_SILENT
            ? "without a snapshot the rank says nothing for itself: its "
              "watchdog may also be off"
        : g->top == HE_QUIET
            ? "every stuck rank waits on it and its trace puts it in the "
              "collective, but without a snapshot it says nothing for itself"
        : g->top == HE_NETWORK
            ? "a send the network does not complete points at the link as "
              "much as at the rank"
        : g->top == HE_PROXY
            ? "it rests on two ranks' step counters: over sockets a network "
              "that lost the data looks the same from the receiver's side"
        : g->top == HE_GPU_HELD
            ? "transfers inside a node are not recorded: the rank is deduced "
              "from where the ring channels through its node stop passing "
              "data on"
        : first && first->node_mates
            ? "transfers inside its node are not recorded, so a node-mate "
              "may hold it up"
            : "its GPU may also be waiting for inputs the profiler does not "
              "show");
    break;
  case HC_LOW:
    snprintf(buf, cap, "%s",
             g->top == HE_MISMATCH
                 ? "the ranks split evenly between the calls: nothing says "
                   "which side is wrong"
             : g->nculprits > 1
                 ? "several ranks show the same kind of evidence; they are "
                   "listed by how many stuck ranks wait on each"
                 : "the evidence is indirect");
    break;
  default:
    if (!g->ncycle && inside_a_node(g)) {
      why_inside_node(g, buf, cap);
      break;
    }
    snprintf(
        buf, cap, "%s",
        g->ncycle ? "every stuck rank waits on another rank"
        : all_inside_nodes(g)
            ? "No rank stands out: every transfer of the stuck ranks is "
              "inside a node, which NCCL does not profile (no ProxySteps "
              "even with proxystep in the mask), and every kernel started "
              "and none ended, so the GPU that stopped looks like those "
              "waiting for it. What would decide it: a rank whose KernelCh "
              "never started (its GPU stopped before this collective), or "
              "the GPUs themselves (nvidia-smi, dmesg | grep -i xid) and "
              "the host threads of every rank (py-spy dump --pid)"
            : "No rank stands out: the snapshots have no ProxySteps, "
              "which say what each transfer waits for "
              "(CCLSCOPE_MASK=default,proxystep records them)");
    break;
  }
}
