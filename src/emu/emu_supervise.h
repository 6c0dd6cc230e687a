/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_supervise.h — the supervisor's wait for its worker
 * processes (emulated ranks, replayed traces): each exit reported as it
 * happens, a deadline after which the rest are killed.
 */
#ifndef CCLSCOPE_EMU_SUPERVISE_H
#define CCLSCOPE_EMU_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What the supervisor does when child `index` ended with wait status
 * `status`: say why if it failed, and return true when it did. */
typedef bool (*emu_child_ended_fn)(void *ctx, int index, pid_t pid, int status);
/* Called after each failure, so that the others stop waiting for it. */
typedef void (*emu_child_failed_fn)(void *ctx);

typedef struct {
  pid_t *pids; /* the children; an ended one is stored negated */
  int n;
  uint64_t t0_ns;           /* emu_now_ns() when they started */
  double timeout_s;         /* then every child still running is killed */
  const char *timeout_what; /* "timeout", "replay timeout": the FAIL line */
  emu_child_ended_fn ended;
  emu_child_failed_fn failed;
  void *ctx;
} emu_children;

/* Wait until every child has ended; returns how many failed. */
int emu_supervise(emu_children *c);

#endif
