/*
 * src/plugin/writer/local_verdict.c — the local verdict of a hung operation
 * (see local_verdict.h). Runs on the writer thread, only when a warning is
 * written; looks at no more than MAX_STEPS ProxySteps of the operation.
 */
#include "local_verdict.h"

#include <stdio.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "nccl_names.h"

#define MAX_STEPS 1024 /* ProxySteps looked at per operation */

/* What a pipeline's head waits for, strongest evidence against this rank
 * last (the order of the checks below). */
typedef enum {
  LW_NONE = 0,    /* no telling state */
  LW_PEER,        /* RecvWait, SendPeerWait: the peer */
  LW_GPU_CONSUME, /* RecvGPUWait, RecvFlushWait: this GPU */
  LW_NETWORK,     /* SendWait: the network */
  LW_GPU_PRODUCE  /* SendGPUWait: this GPU (or its inputs) */
} local_wait;

static const char *state_name(const cs_event *e) {
  const cs_context *c = cs_ctx_get(e->ctx);
  return cs_state_name((int)e->states[e->nstates - 1].state, c ? c->abi : 6, 0);
}

/* From the last state (the same numbers for every ABI, nccl_names.h). */
static local_wait wait_of(const cs_event *e) {
  if (e->nstates == 0)
    return LW_NONE;
  switch (e->states[e->nstates - 1].state) {
  case NCCL_STATE_STEP_RECV_WAIT:
  case NCCL_STATE_STEP_SEND_PEER_WAIT:
    return LW_PEER;
  case NCCL_STATE_STEP_RECV_GPU_WAIT:
  case NCCL_STATE_STEP_RECV_FLUSH_WAIT:
    return LW_GPU_CONSUME;
  case NCCL_STATE_STEP_SEND_WAIT:
    return LW_NETWORK;
  case NCCL_STATE_STEP_SEND_GPU_WAIT:
    return LW_GPU_PRODUCE;
  default:
    return LW_NONE;
  }
}

static bool same_pipe(const cs_event *a, const cs_event *b) {
  return a->link.channel_id == b->link.channel_id &&
         a->link.is_send == b->link.is_send && a->link.peer == b->link.peer;
}

/* The lowest step in flight of its pipeline? */
static bool is_head(const cs_event *const *steps, size_t n, size_t i) {
  for (size_t k = 0; k < n; k++)
    if (k != i && same_pipe(steps[k], steps[i]) &&
        (steps[k]->p.proxy_step.step < steps[i]->p.proxy_step.step ||
         (steps[k]->p.proxy_step.step == steps[i]->p.proxy_step.step && k < i)))
      return false;
  return true;
}

bool cs_local_verdict(const cs_wd_picture *pic, const cs_wd_root *r, char *out,
                      size_t outlen) {
  if (outlen)
    out[0] = '\0';
  const cs_event *steps[MAX_STEPS];
  size_t n = 0;
  for (size_t i = 0; i < r->nevents && n < MAX_STEPS; i++) {
    const cs_event *e = pic->events[r->first_event + i];
    if (e->etype == CS_EV_PROXY_STEP && e->has_link)
      steps[n++] = e;
  }
  /* per kind, the head that has waited longest */
  const cs_event *best[LW_GPU_PRODUCE + 1] = {NULL};
  const char *best_state[LW_GPU_PRODUCE + 1] = {NULL};
  int32_t self = r->op ? r->op->rank : -1;
  for (size_t i = 0; i < n; i++) {
    if (!is_head(steps, n, i))
      continue;
    local_wait w = wait_of(steps[i]);
    if (w == LW_NONE || (w == LW_PEER && steps[i]->link.peer == self))
      continue;
    if (!best[w] || steps[i]->activity_raw < best[w]->activity_raw) {
      best[w] = steps[i];
      best_state[w] = state_name(steps[i]);
    }
  }
  const cs_event *e;
  if ((e = best[LW_PEER]))
    snprintf(out, outlen,
             "this rank waits on rank %d (%s: %s) — likely not this rank",
             e->link.peer, best_state[LW_PEER],
             e->link.is_send ? "it has no buffer free"
                             : "its data has not arrived");
  else if ((e = best[LW_GPU_CONSUME]))
    snprintf(out, outlen,
             "this rank's GPU does not take data that arrived from rank %d "
             "(%s) and it waits on no peer — likely this GPU",
             e->link.peer, best_state[LW_GPU_CONSUME]);
  else if ((e = best[LW_NETWORK]))
    snprintf(out, outlen,
             "a send to rank %d handed to the network does not complete "
             "(%s) and it waits on no peer — likely the network path to "
             "rank %d",
             e->link.peer, best_state[LW_NETWORK], e->link.peer);
  else if ((e = best[LW_GPU_PRODUCE]))
    snprintf(out, outlen,
             "this rank's GPU has not produced the data to send to rank %d "
             "(%s): its kernel is behind, stopped or waiting for inputs "
             "from another rank (cclscope hang decides)",
             e->link.peer, best_state[LW_GPU_PRODUCE]);
  return outlen && out[0];
}
