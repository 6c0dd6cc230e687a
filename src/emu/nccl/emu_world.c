/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_world.c — owns the run's layout (nodes, ranks, processes,
 * communicators and their hashes) and the cross-process meeting points in
 * shared memory.
 */
#include "nccl/emu_world.h"

#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void emu_layout_init(emu_layout *l, const emu_options *o, int nodes, int rpn,
                     int rpp) {
  /* the header and the world only: the table of a thousand communicator
   * specs is written as splits are added (emu_layout_add_split clears
   * each), so a small run does not touch megabytes it never uses */
  memset(l, 0, offsetof(emu_layout, comms));
  memset(&l->comms[0], 0, sizeof l->comms[0]);
  l->nodes = nodes;
  l->ranks_per_node = rpn;
  l->ranks_per_process = rpp;
  l->nranks = nodes * rpn;
  l->nworkers = l->nranks / rpp;
  emu_comm_spec *w = &l->comms[0];
  w->index = 0;
  w->parent = -1;
  w->nranks = l->nranks;
  for (int i = 0; i < EMU_MAX_RANKS; i++)
    w->comm_rank[i] = -1;
  for (int i = 0; i < l->nranks; i++) {
    w->members[i] = i;
    w->comm_rank[i] = i;
  }
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
  for (int g = 0; g < EMU_MAX_RANKS; g++)
    c->comm_rank[g] = -1;
  for (int i = 0; i < n; i++)
    c->comm_rank[members[i]] = i;
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
  if (g < 0 || g >= EMU_MAX_RANKS)
    return -1;
  return spec->comm_rank[g];
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

/* Wakes every thread asleep on a communicator's arrival count. The word is
 * shared between processes (the region is MAP_SHARED): not FUTEX_PRIVATE. */
static void arrivals_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Sleeps while *word == seen, at most timeout_ns (aborts and deadlines are
 * looked at between sleeps). */
static void arrivals_sleep(uint32_t *word, uint32_t seen, uint64_t timeout_ns) {
  struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000ULL),
                        .tv_nsec = (long)(timeout_ns % 1000000000ULL)};
  syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

void emu_arrive(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                uint64_t launch_mono) {
  emu_rank_progress *p = &sh->progress[comm->index][comm->rank];
  EMU_STORE_RELEASE(&p->arrived_ns[seq % EMU_ARRIVAL_HISTORY], launch_mono);
  EMU_STORE_RELEASE(&p->arrived, seq);
  /* Sequentially consistent, paired with the sleeper's count then look
   * (sleep_until_complete): either the sleeper sees this arrival or this
   * sees the sleeper. */
  emu_comm_arrivals *ca = &sh->comm_arrivals[comm->index];
  uint32_t *word = &ca->arrivals[seq % EMU_ARRIVAL_HISTORY];
  uint32_t n = __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
  if (n % (uint32_t)comm->nranks == 0 &&
      __atomic_load_n(&ca->sleepers, __ATOMIC_SEQ_CST) != 0)
    arrivals_wake(word);
}

void emu_mark_stalled(emu_shared *sh, const emu_comm *comm, uint64_t seq) {
  EMU_STORE_RELEASE(&sh->progress[comm->index][comm->rank].stalled, seq + 1);
}

/* One look at every rank, the verdict: all launched plan `seq` and none
 * but `me` hangs at or before it. *last gets the latest launch time. */
static bool all_arrived_now(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                            uint64_t *last) {
  bool all = true;
  *last = 0;
  for (int r = 0; r < comm->nranks && all; r++) {
    emu_rank_progress *p = &sh->progress[comm->index][r];
    uint64_t stalled = EMU_LOAD_ACQUIRE(&p->stalled);
    if (EMU_LOAD_ACQUIRE(&p->arrived) < seq ||
        (stalled != 0 && stalled - 1 <= seq && r != comm->rank))
      all = false;
    uint64_t at = EMU_LOAD_ACQUIRE(&p->arrived_ns[seq % EMU_ARRIVAL_HISTORY]);
    if (at > *last)
      *last = at;
  }
  return all;
}

/* Whether every rank from *next on launched plan `seq` (ranks below
 * *next did: arrivals only grow, so each rank is read about once while
 * the others arrive). */
static bool arrived_from(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                         int *next) {
  while (*next < comm->nranks &&
         EMU_LOAD_ACQUIRE(&sh->progress[comm->index][*next].arrived) >= seq)
    (*next)++;
  return *next == comm->nranks;
}

/* Sleeps until the arrival that may complete plan `seq` (or timeout_ns),
 * unless every rank has arrived already. */
static void sleep_until_complete(emu_shared *sh, const emu_comm *comm,
                                 uint64_t seq, int *next, uint64_t timeout_ns) {
  emu_comm_arrivals *ca = &sh->comm_arrivals[comm->index];
  uint32_t *word = &ca->arrivals[seq % EMU_ARRIVAL_HISTORY];
  __atomic_add_fetch(&ca->sleepers, 1, __ATOMIC_SEQ_CST);
  uint32_t seen = __atomic_load_n(word, __ATOMIC_SEQ_CST);
  if (!arrived_from(sh, comm, seq, next))
    arrivals_sleep(word, seen, timeout_ns);
  __atomic_sub_fetch(&ca->sleepers, 1, __ATOMIC_SEQ_CST);
}

/* How long one sleep on the arrival count lasts at most: aborts, deadlines
 * and a wake-up the count's hint missed are looked at in between. */
#define EMU_ARRIVAL_SLEEP_NS 10000000ULL

bool emu_wait_all_arrived(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                          uint64_t deadline_ns, uint64_t *last_ns) {
  int next = 0;
  uint64_t looks = 0;
  for (;;) {
    bool all_launched = arrived_from(sh, comm, seq, &next);
    uint64_t last = 0;
    if (all_launched && all_arrived_now(sh, comm, seq, &last)) {
      if (last_ns)
        *last_ns = last;
      return true;
    }
    if (EMU_LOAD_RELAXED(&sh->abort_flag))
      return false;
    if (deadline_ns != 0 && emu_now_ns() >= deadline_ns)
      return false;
    if (++looks < 16)
      continue;
    if (!all_launched)
      sleep_until_complete(sh, comm, seq, &next, EMU_ARRIVAL_SLEEP_NS);
    else /* all arrived but one hangs (the hang scenario): look again */
      emu_sleep_ns(looks < 1000 ? 20000 : 200000);
  }
}
