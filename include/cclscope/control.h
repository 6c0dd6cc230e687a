/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/cclscope/control.h — cclscope's runtime control API, for
 * frameworks and training scripts (docs/control.md).
 *
 * NCCL loads the plugin with RTLD_LOCAL, so these symbols are not in the
 * global namespace: open the already-loaded library again with RTLD_NOLOAD
 * and look them up, e.g.
 *
 *   void *lib = dlopen("libnccl-profiler-cclscope.so", RTLD_NOW | RTLD_NOLOAD);
 *   int (*step)(int64_t) = lib ? dlsym(lib, "cclscope_step") : NULL;
 *
 * (Python: ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)). Every
 * function is safe to call from any thread at any time, also before NCCL
 * created a communicator and after the last one was destroyed; none of
 * them is meant for NCCL's hot path. Return values: 0 = done,
 * -1 = nothing is being recorded (no communicator yet, CCLSCOPE_MODE=off,
 * or the plugin disabled itself); the call is then remembered where that
 * makes sense (a stop before the first communicator starts it paused).
 */
#ifndef CCLSCOPE_CONTROL_H
#define CCLSCOPE_CONTROL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resume recording (after cclscope_stop or CCLSCOPE_START=paused).
 * Operations enqueued from now on are recorded. */
int cclscope_start(void);

/* Pause recording: NCCL stops calling the plugin for operations enqueued
 * from now on (the activation mask becomes 0); operations in flight are
 * finished and written. Costs nothing while paused. */
int cclscope_stop(void);

/* 1 while recording, 0 while paused or off. */
int cclscope_is_recording(void);

/* Mark the start of training step `step` (a number >= 0; -1 = the
 * previous step + 1). Appears as a `mark` record in the trace, in the
 * metrics (cclscope_step, cclscope_step_duration_seconds) and as a line
 * in the timeline. */
int cclscope_step(int64_t step);

/* A named mark (at most 63 bytes are kept), e.g. "checkpoint". */
int cclscope_mark(const char *label);

/* Write everything recorded so far to disk and a snapshot of what is in
 * flight (inflight_*.json next to the trace); returns 0 once both are
 * written, -1 if not done within `timeout_ms` (<= 0: 5000). */
int cclscope_dump(int timeout_ms);

/* The plugin's version, e.g. "0.1.0". */
const char *cclscope_version(void);

#ifdef __cplusplus
}
#endif

#endif
