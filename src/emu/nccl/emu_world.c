/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_world.c — owns the run's layout (nodes, ranks, processes,
 * communicators and their hashes) and the cross-process meeting points in
 * shared memory.
 */
#include "nccl/emu_world.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void emu_layout_init(emu_layout *l, const emu_options *o, int nodes, int rpn,
                     int rpp) {
  memset(l, 0, sizeof *l);
  l->nodes = nodes;
  l->ranks_per_node = rpn;
  l->ranks_per_process = rpp;
  l->nranks = nodes * rpn;
  l->nworkers = l->nranks / rpp;
  emu_comm_spec *w = &l->comms[0];
  w->index = 0;
  w->parent = -1;
  w->nranks = l->nranks;
  for (int i = 0; i < l->nranks; i++)
    w->members[i] = i;
  w->nnodes = nodes;
  /* NCCL hashes the unique id; here --unique-id, else the seed. */
  w->hash =
      emu_mix64((o->unique_id_set ? o->unique_id : o->seed) ^ 0x776F726C64ULL);
  snprintf(w->name, sizeof w->name, "world");
  w->blocking = true;
  w->share_proxy = false;
  l->ncomms = 1;
}

int emu_layout_add_split(emu_layout *l, int parent, const int *members, int n,
                         const char *name, bool share_proxy, uint64_t color) {
  if (l->ncomms >= EMU_MAX_COMMS)
    emu_die("too many communicators (max %d)", EMU_MAX_COMMS);
  emu_comm_spec *c = &l->comms[l->ncomms];
  memset(c, 0, sizeof *c);
  c->index = l->ncomms;
  c->parent = parent;
  c->nranks = n;
  memcpy(c->members, members, (size_t)n * sizeof *members);
  bool seen[EMU_MAX_RANKS] = {false};
  for (int i = 0; i < n; i++) {
    int node = members[i] / l->ranks_per_node;
    if (!seen[node]) {
      seen[node] = true;
      c->nnodes++;
    }
  }
  /* init.cc derives a split's hash from the parent hash and the color. */
  c->hash = emu_mix64(l->comms[parent].hash ^ emu_mix64(color + 1));
  snprintf(c->name, sizeof c->name, "%s", name ? name : "");
  c->blocking = true;
  c->share_proxy = share_proxy;
  return l->ncomms++;
}

int emu_comm_rank_of(const emu_comm_spec *spec, int g) {
  for (int i = 0; i < spec->nranks; i++)
    if (spec->members[i] == g)
      return i;
  return -1;
}

emu_shared *emu_shared_create(void) {
  void *m = mmap(NULL, sizeof(emu_shared), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    emu_die("cannot map shared memory: %m");
  emu_shared *sh = m;
  sh->stop_iter = INT_MAX;
  return sh;
}

void emu_arrive(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                uint64_t launch_mono) {
  emu_rank_progress *p = &sh->progress[comm->index][comm->rank];
  EMU_STORE_RELEASE(&p->arrived_ns[seq % EMU_ARRIVAL_HISTORY], launch_mono);
  EMU_STORE_RELEASE(&p->arrived, seq);
}

void emu_mark_stalled(emu_shared *sh, const emu_comm *comm, uint64_t seq) {
  EMU_STORE_RELEASE(&sh->progress[comm->index][comm->rank].stalled, seq + 1);
}

bool emu_wait_all_arrived(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                          uint64_t deadline_ns, uint64_t *last_ns) {
  uint64_t spins = 0;
  for (;;) {
    bool all = true;
    uint64_t last = 0;
    for (int r = 0; r < comm->nranks && all; r++) {
      emu_rank_progress *p = &sh->progress[comm->index][r];
      uint64_t stalled = EMU_LOAD_ACQUIRE(&p->stalled);
      if (EMU_LOAD_ACQUIRE(&p->arrived) < seq ||
          (stalled != 0 && stalled - 1 <= seq && r != comm->rank))
        all = false;
      uint64_t at = EMU_LOAD_ACQUIRE(&p->arrived_ns[seq % EMU_ARRIVAL_HISTORY]);
      if (at > last)
        last = at;
    }
    if (all) {
      if (last_ns)
        *last_ns = last;
      return true;
    }
    if (EMU_LOAD_RELAXED(&sh->abort_flag))
      return false;
    if (deadline_ns != 0 && emu_now_ns() >= deadline_ns)
      return false;
    if (++spins < 64)
      continue;
    emu_sleep_ns(spins < 1000 ? 20000 : 200000);
  }
}
