/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_launch.h — how a minimal_profiler file's GPU activity
 * records (CUPTI) meet its NCCL events (docs/trace-format.md "Reading
 * minimal_profiler traces").
 *
 * The format's profiler pushes an external correlation id around each
 * kernel launch: the KernelLaunch event carries it as `extCorrId`, and the
 * CUPTI record of the kernel that launch started carries the same value
 * (with CUPTI's own `corrId`). So:
 *   - a CUPTI record names its KernelLaunch by extCorrId, hence that
 *     launch's communicator rank; its `deviceId` is then that rank's GPU
 *     (the record's own `gpuUuid` is that of whichever profiler instance
 *     collected the activity buffer, not the kernel's);
 *   - a Coll/P2p belongs to the KernelLaunch of the same communicator rank
 *     that started last at or before it and that shares its GroupApi (the
 *     GroupApi that is the parent of both the launch and the operation's
 *     CollApi/P2pApi; NCCL starts a plan's operations right after its
 *     launch, nccl-behaviour.md §6.5); when either has no GroupApi in the
 *     file, the last launch of that rank before it.
 * Pass 1 of the conversion notes every launch and every activity's device
 * (so that a communicator's ProfilerInit, which comes first, can name its
 * GPU); pass 2 notes launches and API events as they are converted and
 * asks which launch an operation belongs to.
 *
 * Memory: 40 bytes per KernelLaunch with an extCorrId, 24 per CUPTI
 * record, 24 per CollApi/P2pApi.
 */
#ifndef CCLSCOPE_CLI_SEED_LAUNCH_H
#define CCLSCOPE_CLI_SEED_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "util/pair_map.h"

typedef struct sl_launch sl_launch;

typedef struct {
  sl_launch *launches;
  uint32_t nlaunches, cap_launches;
  pair_map by_ext;    /* extCorrId -> launch index + 1 */
  pair_map device_of; /* pass 1: extCorrId -> device + 1; then
                         (commId, rank + 1) -> device + 1 */
  pair_map last_of;   /* pass 2: ctx -> launch index + 1 */
  pair_map group_of;  /* pass 2: API event ordinal -> GroupApi ordinal + 1 */
  bool oom;
} seed_launches;

void sl_init(seed_launches *l);
void sl_free(seed_launches *l);

/* ---- pass 1 ---- */
/* A KernelLaunch record (its position `ordinal`) with extCorrId `ext`. */
void sl_note_launch(seed_launches *l, int64_t ext, uint32_t ordinal,
                    uint64_t comm_id, int64_t rank);
/* A GPU activity record of `device` with extCorrId `ext`. */
void sl_note_activity(seed_launches *l, int64_t ext, int64_t device);
/* Pass 1 is over: each communicator rank's device from its launches. */
void sl_end_pass1(seed_launches *l);
/* The GPU of (commId, rank), from its kernels' activity records. */
bool sl_device(const seed_launches *l, uint64_t comm_id, int64_t rank,
               int64_t *device);

/* ---- pass 2 ---- */
/* A KernelLaunch converted: at `ordinal`, of communicator context `ctx`,
 * started at `start`, its GroupApi `group` (ordinal + 1, 0 none). */
void sl_launch_converted(seed_launches *l, uint32_t ordinal, uint32_t ctx,
                         uint32_t group, int64_t start);
/* A CollApi/P2pApi converted, its GroupApi `group` (ordinal + 1, 0 none). */
void sl_api_converted(seed_launches *l, uint32_t ordinal, uint32_t group);
/* The extCorrId of the launch of a Coll/P2p of context `ctx` that started
 * at `start`, whose CollApi/P2pApi is `api` (ordinal + 1, 0 none). */
bool sl_launch_of_op(seed_launches *l, uint32_t ctx, uint32_t api,
                     int64_t start, int64_t *ext);
/* The launch that extCorrId `ext` names: its position, communicator rank
 * and (once converted) context, 0 before. */
bool sl_launch_by_ext(const seed_launches *l, int64_t ext, uint32_t *ordinal,
                      uint64_t *comm_id, int64_t *rank, uint32_t *ctx);

#endif
