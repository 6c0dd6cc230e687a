/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_supervise.c — see emu_supervise.h.
 */
#include "emu_supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "emu_common.h"

/* Polling, not blocking in waitpid: the deadline must be noticed even
 * while no child ends. */
#define POLL_NS 5000000

static void kill_the_rest(const emu_children *c) {
  fprintf(stderr,
          "ncclemu: FAIL: %s after %.0f s; killing workers that are still "
          "running\n",
          c->timeout_what, c->timeout_s);
  for (int k = 0; k < c->n; k++)
    if (c->pids[k] > 0)
      kill(c->pids[k], SIGKILL);
}

int emu_supervise(emu_children *c) {
  int remaining = c->n, failed = 0;
  bool timed_out = false;
  while (remaining > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) {
      if (!timed_out &&
          (double)(emu_now_ns() - c->t0_ns) / 1e9 > c->timeout_s) {
        timed_out = true;
        kill_the_rest(c);
      }
      emu_sleep_ns(POLL_NS);
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      break; /* no children left */
    }
    int k = 0;
    while (k < c->n && c->pids[k] != pid)
      k++;
    if (k == c->n)
      continue; /* not one of ours */
    remaining--;
    c->pids[k] = -c->pids[k];
    if (c->ended(c->ctx, k, pid, status)) {
      failed++;
      if (c->failed)
        c->failed(c->ctx);
    }
  }
  return failed;
}
