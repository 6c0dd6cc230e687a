/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_pxn.c — owns the PXN mailboxes: shared-memory rings through
 * which an originating rank hands its network send ops (with its own process's
 * context and parent handle values and its pid) to the proxy of another
 * local rank. Ordering per ring is the originator's plan order, so the
 * receiving proxy merges them deterministically. Also each rank's
 * "finished" flag, which ends the waits on that rank (emu_pxn.h).
 */
#include "nccl/emu_pxn.h"

#include <string.h>
#include <sys/mman.h>

/* mailboxes[g] belongs to rank g: the ring into g, and whether g is done */
typedef struct pxn_mailbox {
  uint64_t head; /* written by the consumer (release) */
  uint64_t tail; /* written by the producer (release) */
  int finished;  /* rank g launches no more plans (release; see
                  * emu_pxn_rank_finished) */
  emu_pxn_record slots[EMU_PXN_RING];
} pxn_mailbox;

static pxn_mailbox *mailboxes;
static int mailbox_count;

void emu_pxn_setup(int nranks) {
  size_t size = (size_t)nranks * sizeof(pxn_mailbox);
  void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    emu_die("cannot map PXN mailboxes: %m");
  mailboxes = m;
  mailbox_count = nranks;
}

static bool is_member(int g, const int *members, int n) {
  for (int i = 0; i < n; i++)
    if (members[i] == g)
      return true;
  return false;
}

int emu_pxn_target(int grank, int ranks_per_node, int ranks_per_process,
                   const int *members, int nmembers) {
  int local = grank % ranks_per_node;
  int step = ranks_per_process < ranks_per_node ? ranks_per_process : 1;
  if ((local / step) % 2 != 0 || local + step >= ranks_per_node)
    return -1;
  int target = grank + step;
  return is_member(target, members, nmembers) ? target : -1;
}

int emu_pxn_origin(int grank, int ranks_per_node, int ranks_per_process,
                   const int *members, int nmembers) {
  int local = grank % ranks_per_node;
  int step = ranks_per_process < ranks_per_node ? ranks_per_process : 1;
  if ((local / step) % 2 != 1)
    return -1;
  int origin = grank - step;
  if (!is_member(origin, members, nmembers))
    return -1;
  return emu_pxn_target(origin, ranks_per_node, ranks_per_process, members,
                        nmembers) == grank
             ? origin
             : -1;
}

void emu_pxn_rank_finished(int grank) {
  if (mailboxes != NULL && grank >= 0 && grank < mailbox_count)
    EMU_STORE_RELEASE(&mailboxes[grank].finished, 1);
}

static bool rank_finished(int grank) {
  return grank >= 0 && grank < mailbox_count &&
         EMU_LOAD_ACQUIRE(&mailboxes[grank].finished);
}

static void backoff(uint64_t *spins) {
  if (++*spins < 64)
    return;
  emu_sleep_ns(*spins < 2000 ? 20000 : 200000);
}

bool emu_pxn_send(int target, const emu_pxn_record *rec,
                  const int *abort_flag) {
  if (mailboxes == NULL || target < 0 || target >= mailbox_count)
    return false;
  pxn_mailbox *mb = &mailboxes[target];
  uint64_t tail = EMU_LOAD_RELAXED(&mb->tail);
  uint64_t spins = 0;
  while (tail - EMU_LOAD_ACQUIRE(&mb->head) >= EMU_PXN_RING) {
    if (EMU_LOAD_RELAXED(abort_flag))
      return false;
    if (rank_finished(target))
      return false;
    backoff(&spins);
  }
  memcpy(&mb->slots[tail % EMU_PXN_RING], rec, sizeof *rec);
  EMU_STORE_RELEASE(&mb->tail, tail + 1);
  return true;
}

bool emu_pxn_receive(int target, int origin, emu_pxn_record *out,
                     const int *abort_flag, uint64_t deadline_ns) {
  if (mailboxes == NULL || target < 0 || target >= mailbox_count)
    return false;
  pxn_mailbox *mb = &mailboxes[target];
  uint64_t head = EMU_LOAD_RELAXED(&mb->head);
  uint64_t spins = 0;
  while (EMU_LOAD_ACQUIRE(&mb->tail) == head) {
    if (EMU_LOAD_RELAXED(abort_flag))
      return false;
    if (deadline_ns != 0 && emu_now_ns() >= deadline_ns)
      return false;
    if (rank_finished(origin) && EMU_LOAD_ACQUIRE(&mb->tail) == head)
      return false;
    backoff(&spins);
  }
  memcpy(out, &mb->slots[head % EMU_PXN_RING], sizeof *out);
  EMU_STORE_RELEASE(&mb->head, head + 1);
  return true;
}
