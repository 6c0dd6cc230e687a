/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/watchdog_verdict.c — the local verdict on a hung
 * operation (see watchdog_verdict.h). Runs in the writer thread, on the
 * watchdog's picture, only for operations it reports.
 */
#include "watchdog_verdict.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "nccl_names.h"

/* Pipelines followed per operation; a collective has a few per channel. */
#define MAX_PIPELINES 256

/* The head of one pipeline: its lowest ProxyStep in flight. */
typedef struct {
  uint8_t channel;
  uint8_t is_send;
  int32_t peer;
  const cs_event *head;
} pipeline;

/* What a pipeline's head waits on, by its last state's name (the same
 * name whatever the ABI numbered it), as a verdict kind (NONE: nothing
 * definite, e.g. a receive step not posted yet). A wait on this GPU on a
 * channel whose kernel ended is its proxy's: the GPU is done there. */
static cs_wd_verdict_kind kind_of_head(const char *state, bool gpu_done) {
  if (state == NULL)
    return CS_WD_VERDICT_NONE;
  /* step states are numbered alike by every host: any numbering will do */
  switch (nccl_state_from_name(state, strlen(state), NCCL_NUMBERING_NVIDIA)) {
  case NCCL_STATE_STEP_RECV_GPU_WAIT:
  case NCCL_STATE_STEP_RECV_FLUSH_WAIT:
    return gpu_done ? CS_WD_VERDICT_PROXY : CS_WD_VERDICT_GPU_TAKE;
  case NCCL_STATE_STEP_SEND_WAIT:
    return CS_WD_VERDICT_NETWORK;
  case NCCL_STATE_STEP_RECV_WAIT:
  case NCCL_STATE_STEP_SEND_PEER_WAIT:
    return CS_WD_VERDICT_PEER;
  case NCCL_STATE_STEP_SEND_GPU_WAIT:
    return gpu_done ? CS_WD_VERDICT_PROXY : CS_WD_VERDICT_GPU_PRODUCE;
  default:
    return CS_WD_VERDICT_NONE;
  }
}

static size_t collect_heads(const cs_wd_picture *pic, const cs_wd_root *root,
                            pipeline *pipes) {
  size_t n = 0;
  for (size_t i = 0; i < root->nevents; i++) {
    const cs_event *e = pic->events[root->first_event + i];
    if (e->etype != CS_EV_PROXY_STEP || !e->has_link)
      continue;
    size_t k = 0;
    while (k < n && !(pipes[k].channel == e->link.channel_id &&
                      pipes[k].is_send == e->link.is_send &&
                      pipes[k].peer == e->link.peer))
      k++;
    if (k == n) {
      if (n == MAX_PIPELINES)
        continue;
      pipes[n].channel = e->link.channel_id;
      pipes[n].is_send = e->link.is_send;
      pipes[n].peer = e->link.peer;
      pipes[n].head = e;
      n++;
    } else if (e->p.proxy_step.step < pipes[k].head->p.proxy_step.step) {
      pipes[k].head = e;
    }
  }
  return n;
}

static void add_peer(cs_wd_verdict *v, int32_t peer) {
  for (size_t i = 0; i < v->npeers; i++)
    if (v->peers[i] == peer)
      return;
  if (v->npeers < CS_WD_VERDICT_MAX_PEERS)
    v->peers[v->npeers++] = peer;
}

/* Another active context of the same communicator in this process whose
 * rank never started this collective (by its seqNumber). */
static bool sibling_never_started(const cs_wd_picture *pic, const cs_wd_op *op,
                                  int32_t *rank_out) {
  if (!op->has_seq || op->etype != CS_EV_COLL)
    return false;
  const cs_context *mine = cs_ctx_get(op->ctx);
  if (!mine || !mine->has_comm_info)
    return false;
  for (size_t i = 0; i < pic->nprogress; i++) {
    const cs_wd_progress *p = &pic->progress[i];
    if (p->ctx == op->ctx)
      continue;
    const cs_context *c = cs_ctx_get(p->ctx);
    if (!c || !c->has_comm_info || c->comm_id != mine->comm_id ||
        atomic_load_explicit(&c->state, memory_order_acquire) != CS_CTX_ACTIVE)
      continue;
    /* One entry per (context, function): find this context's entry for the
     * operation's function; none means it never started one. */
    bool started = false;
    for (size_t j = 0; j < pic->nprogress; j++) {
      const cs_wd_progress *q = &pic->progress[j];
      if (q->ctx == p->ctx && strcmp(q->func, op->func ? op->func : "") == 0)
        started = q->has_seq && q->last_started_seq >= op->seq;
    }
    if (!started) {
      *rank_out = c->rank;
      return true;
    }
  }
  return false;
}

void cs_wd_verdict_of(const cs_wd_picture *pic, const cs_wd_root *root,
                      cs_wd_verdict *out) {
  memset(out, 0, sizeof *out);
  out->suspect = -1;
  int32_t never = -1;
  if (root->op && sibling_never_started(pic, root->op, &never)) {
    out->kind = CS_WD_VERDICT_NEVER_CALLED;
    out->suspect = never;
    return;
  }
  pipeline pipes[MAX_PIPELINES];
  size_t n = collect_heads(pic, root, pipes);
  int32_t self = root->op ? root->op->rank : -1;
  /* The strongest kind among the heads decides; PEER gathers its peers. */
  uint64_t gpu_done = root->op ? root->op->kernel_channels_done : 0;
  for (size_t i = 0; i < n; i++) {
    const char *state = cs_watchdog_last_state(pipes[i].head);
    bool done = pipes[i].channel < 64 &&
                (gpu_done >> pipes[i].channel & UINT64_C(1)) != 0;
    cs_wd_verdict_kind k = kind_of_head(state, done);
    if (k == CS_WD_VERDICT_GPU_TAKE && pipes[i].head->p.proxy_step.step > 0)
      k = CS_WD_VERDICT_GPU_HELD;
    if (k == CS_WD_VERDICT_NONE)
      continue;
    if (out->kind == CS_WD_VERDICT_NONE || k < out->kind) {
      out->kind = k;
      out->channel = pipes[i].channel;
      out->step = pipes[i].head->p.proxy_step.step;
      out->state = state;
      out->npeers = 0;
      out->suspect = k == CS_WD_VERDICT_PEER || k == CS_WD_VERDICT_NETWORK
                         ? pipes[i].peer
                         : self;
    }
    if (k == CS_WD_VERDICT_PEER && out->kind == CS_WD_VERDICT_PEER)
      add_peer(out, pipes[i].peer);
  }
  if (out->kind == CS_WD_VERDICT_NETWORK || out->kind == CS_WD_VERDICT_PEER)
    if (out->npeers == 0)
      add_peer(out, out->suspect);
}

const char *cs_wd_verdict_class(const cs_wd_verdict *v) {
  switch (v->kind) {
  case CS_WD_VERDICT_NEVER_CALLED:
    return "never-called";
  case CS_WD_VERDICT_PROXY:
    return "proxy";
  case CS_WD_VERDICT_GPU_TAKE:
  case CS_WD_VERDICT_GPU_HELD:
  case CS_WD_VERDICT_GPU_PRODUCE:
    return "gpu";
  case CS_WD_VERDICT_NETWORK:
    return "network";
  case CS_WD_VERDICT_PEER:
    return "peer";
  case CS_WD_VERDICT_NONE:
    break;
  }
  return NULL;
}

void cs_wd_verdict_text(const cs_wd_verdict *v, char *out, size_t outlen) {
  char peers[64] = "";
  size_t used = 0;
  for (size_t i = 0; i < v->npeers && used < sizeof peers; i++) {
    int w = snprintf(peers + used, sizeof peers - used, "%s%d",
                     i == 0               ? ""
                     : i + 1 == v->npeers ? " and "
                                          : ", ",
                     v->peers[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  switch (v->kind) {
  case CS_WD_VERDICT_NEVER_CALLED:
    snprintf(out, outlen,
             "rank %d of this process never started it (its host thread is "
             "not calling NCCL): likely the cause",
             v->suspect);
    break;
  case CS_WD_VERDICT_PROXY:
    snprintf(out, outlen,
             "this GPU finished its work on channel %u (its KernelCh ended), "
             "yet this rank's proxy still waits for it there (%s on step %d): "
             "this rank's proxy thread (\"NCCL Progress\") no longer "
             "progresses its transfers",
             v->channel, v->state, v->step);
    break;
  case CS_WD_VERDICT_GPU_TAKE:
    snprintf(out, outlen,
             "data arrived on channel %u and this GPU took none of it (%s on "
             "step 0): likely this GPU, or a kernel before this one on its "
             "stream",
             v->channel, v->state);
    break;
  case CS_WD_VERDICT_GPU_HELD:
    snprintf(out, outlen,
             "this GPU stopped taking data that arrived on channel %u at step "
             "%d (%s): this GPU, or a rank of its node that its kernel waits "
             "on (transfers inside a node are not profiled)",
             v->channel, v->step, v->state);
    break;
  case CS_WD_VERDICT_NETWORK:
    snprintf(out, outlen,
             "a send to rank %d on channel %u was handed to the network and "
             "does not complete (%s): the link to rank %d, or rank %d",
             v->suspect, v->channel, v->state, v->suspect, v->suspect);
    break;
  case CS_WD_VERDICT_PEER:
    snprintf(out, outlen, "waits on rank%s %s (%s on channel %u): look there",
             v->npeers > 1 ? "s" : "", peers, v->state, v->channel);
    break;
  case CS_WD_VERDICT_GPU_PRODUCE:
    snprintf(out, outlen,
             "this GPU has not produced data to send on channel %u (%s); it "
             "may itself wait for its inputs",
             v->channel, v->state);
    break;
  case CS_WD_VERDICT_NONE:
    if (outlen)
      out[0] = '\0';
    break;
  }
}
