/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/progress.h — a progress bar on stderr for long runs.
 *
 * Shown only when stderr is a terminal and the input is large (>= 64 MiB),
 * or when forced with --progress; never with --quiet. Redrawn at most ten
 * times a second; erased when done, so piped output stays clean.
 */
#ifndef CCLSCOPE_CLI_PROGRESS_H
#define CCLSCOPE_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  bool enabled;
  const char *label;
  uint64_t total;
  uint64_t done;
  uint64_t calls;
  double started;
  double last_draw;
} progress;

/* A NULL label: no bar (a pass running beside another that shows one). */
void progress_start(progress *p, const char *label, uint64_t total_bytes);
/* Report bytes done so far (cheap: looks at the clock every 1024 calls). */
void progress_update(progress *p, uint64_t done_bytes);
void progress_finish(progress *p);

/* Seconds on a monotonic clock (also used for throughput messages). */
double progress_now(void);

#endif
