/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/inflight.h — the in-flight snapshot: one JSON file per
 * process,
 * `<dir>/inflight_<run>_<host>_pid<PID>.json`, replaced atomically each time
 * it is written (a hang warning, or cclscope_dump()), in the output folder
 * env->out_dir (out_dir.h: a link at that name is replaced, not followed). It
 * lists this process's communicators with how far each got per function, and
 * every operation in flight with its events and what it waits for. `cclscope
 * hang DIR` reads the snapshots of all ranks; the format is in docs/hang.md
 * ("Snapshots"). Writer thread only.
 */
#ifndef CCLSCOPE_INFLIGHT_H
#define CCLSCOPE_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include "trace_jsonl.h"
#include "watchdog.h"

/* The snapshot's path for this process. */
void cs_inflight_path(const cs_trace_env *env, char *out, size_t outlen);

/* Write `pic` (reason: "hang" or "dump"). False if the file could not be
 * written (warned once). */
bool cs_inflight_write(const cs_trace_env *env, const cs_wd_picture *pic,
                       const char *reason);

#endif
