/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/progress.c — see progress.h.
 */
#include "util/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_MIN_BYTES (64ull << 20)

double progress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_start(progress *p, const char *label, uint64_t total_bytes) {
  memset(p, 0, sizeof *p);
  p->label = label;
  p->total = total_bytes;
  p->started = progress_now();
  if (cli_globals.quiet || !label)
    return;
  p->enabled = cli_globals.progress ||
               (isatty(STDERR_FILENO) && total_bytes >= PROGRESS_MIN_BYTES);
}

static void draw(progress *p, double now) {
  double frac = p->total ? (double)p->done / (double)p->total : 0.0;
  if (frac > 1.0)
    frac = 1.0;
  int filled = (int)(frac * 30.0);
  char bar[31];
  for (int i = 0; i < 30; i++)
    bar[i] = i < filled ? '#' : '-';
  bar[30] = '\0';
  double secs = now - p->started;
  double mbps = secs > 0 ? (double)p->done / 1e6 / secs : 0.0;
  fprintf(stderr, "\r%s [%s] %3.0f%%  %.0f MB/s ", p->label, bar, frac * 100.0,
          mbps);
  fflush(stderr);
  p->last_draw = now;
}

void progress_update(progress *p, uint64_t done_bytes) {
  p->done = done_bytes;
  if (!p->enabled || (++p->calls & 1023) != 0)
    return;
  double now = progress_now();
  if (now - p->last_draw >= 0.1)
    draw(p, now);
}

void progress_finish(progress *p) {
  if (!p->enabled || p->last_draw == 0.0)
    return;
  fprintf(stderr, "\r%*s\r", 72, "");
  fflush(stderr);
}
