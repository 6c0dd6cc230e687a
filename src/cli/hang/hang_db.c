/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_db.c — the arrays of `cclscope hang`'s data model (hang.h):
 * sources, (communicator, rank) members and their progress per function,
 * and the meaning of NCCL's ProxyStep states for a waiting step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"
#include "nccl_names.h"

static bool grow(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 16;
  void *p = realloc(*arr, ncap * size);
  if (!p)
    return false;
  memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
  *arr = p;
  *cap = ncap;
  return true;
}

hang_source *hang_db_add_source(hang_db *db, const char *path) {
  if (!grow((void **)&db->sources, &db->cap_sources, db->nsources,
            sizeof *db->sources))
    return NULL;
  hang_source *s = &db->sources[db->nsources];
  memset(s, 0, sizeof *s);
  if (!(s->path = strdup(path)))
    return NULL;
  s->pid = -1;
  s->last_ts_ns = INT64_MIN;
  db->nsources++;
  return s;
}

hang_member *hang_db_member(hang_db *db, size_t source, uint64_t comm_id,
                            int64_t rank) {
  for (size_t i = db->nmembers; i-- > 0;) {
    hang_member *m = &db->members[i];
    if (m->source != source)
      break; /* members of a source are added together */
    if (m->comm_id == comm_id && m->rank == rank)
      return m;
  }
  if (!grow((void **)&db->members, &db->cap_members, db->nmembers,
            sizeof *db->members))
    return NULL;
  hang_member *m = &db->members[db->nmembers++];
  memset(m, 0, sizeof *m);
  m->source = source;
  m->comm_id = comm_id;
  m->rank = rank;
  return m;
}

hang_progress *hang_member_progress(hang_member *m, const char *func) {
  for (size_t i = 0; i < m->nprogress; i++)
    if (strcmp(m->progress[i].func, func) == 0)
      return &m->progress[i];
  hang_progress *p = realloc(m->progress, (m->nprogress + 1) * sizeof *p);
  if (!p)
    return NULL;
  m->progress = p;
  p = &m->progress[m->nprogress++];
  memset(p, 0, sizeof *p);
  snprintf(p->func, sizeof p->func, "%s", func);
  return p;
}

static void free_ops(hang_op *ops, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(ops[i].heads);
  free(ops);
}

void hang_db_free(hang_db *db) {
  for (size_t i = 0; i < db->nsources; i++) {
    free(db->sources[i].path);
    free_ops(db->sources[i].orphans, db->sources[i].norphans);
  }
  for (size_t i = 0; i < db->nmembers; i++) {
    free(db->members[i].progress);
    free_ops(db->members[i].ops, db->members[i].nops);
  }
  free(db->sources);
  free(db->members);
  memset(db, 0, sizeof *db);
}

/* What a step's last state says it waits for, by NCCL's state number (the
 * trace's state names are the shared vocabulary's, nccl_names.h). */
hang_wait hang_wait_of_state(const char *state) {
  if (!state || !*state)
    return HW_NONE;
  /* step states are numbered alike by every host: any numbering will do */
  switch (nccl_state_from_name(state, strlen(state), NCCL_NUMBERING_NVIDIA)) {
  case NCCL_STATE_STEP_RECV_WAIT:
    return HW_PEER_DATA;
  case NCCL_STATE_STEP_SEND_PEER_WAIT:
    return HW_PEER_BUFFER;
  case NCCL_STATE_STEP_SEND_WAIT:
    return HW_NETWORK;
  case NCCL_STATE_STEP_SEND_GPU_WAIT:
    return HW_GPU_PRODUCE;
  case NCCL_STATE_STEP_RECV_FLUSH_WAIT:
    return HW_GPU_FLUSH;
  case NCCL_STATE_STEP_RECV_GPU_WAIT:
    return HW_GPU_CONSUME;
  default:
    return HW_OTHER;
  }
}

const char *hang_wait_name(hang_wait w) {
  switch (w) {
  case HW_PEER_DATA:
    return "peer-data";
  case HW_PEER_BUFFER:
    return "peer-buffer";
  case HW_NETWORK:
    return "network";
  case HW_GPU_PRODUCE:
    return "gpu-produce";
  case HW_GPU_FLUSH:
    return "gpu-flush";
  case HW_GPU_CONSUME:
    return "gpu-consume";
  case HW_OTHER:
    return "other";
  default:
    return "not-posted";
  }
}
