/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/timeline.h — the track layout shared by `perfetto` and
 * `otf2`.
 *
 * A track is one lane of one (trace file, communicator context, thread):
 * events of a thread normally nest (GroupApi > CollApi...), and those that
 * overlap without nesting (ProxyOps of several channels, pipelined
 * ProxySteps) go to further lanes of the same thread (lanes.h). Timing
 * records get a pseudo-thread of their own per context ("completion").
 * Names come from the trace: communicator name and rank from ProfilerInit
 * records, thread names from `thread` records.
 */
#ifndef CCLSCOPE_CLI_TIMELINE_H
#define CCLSCOPE_CLI_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "convert/lanes.h"
#include "read/trace_record.h"
#include "util/intern.h"
#include "util/pair_map.h"

#define TL_COMPLETION_TID INT64_MIN /* the pseudo-thread of timing records */
/* GPU activity records (CUPTI kernels of a minimal_profiler file) go to a
 * pseudo-thread per (GPU, stream) of their communicator rank: a "GPU
 * lane". Its id has this bit set, the device in bits 32-47 (0xffff:
 * unknown) and CUPTI's stream id in bits 0-31. */
#define TL_GPU_TID_FLAG (INT64_C(1) << 62)

typedef struct {
  size_t file;
  int64_t ctx; /* -1: no communicator (PXN, unknown) */
  int64_t os_tid;
  int lane;
  uint32_t local_id; /* 1, 2, ... per file in creation order */
  uint64_t events;
} tl_track;

typedef struct {
  lane_group lanes;
  size_t file;
  int64_t ctx;
  int64_t os_tid;
} tl_group;

/* A communicator context of one file. */
typedef struct {
  uint64_t comm_id;
  bool has_comm;
  int64_t rank;
  int64_t nranks;
  uint32_t name; /* intern id of commName, 0 if none */
} tl_ctx;

typedef struct {
  tl_group *groups;
  size_t ngroups, cap_groups;
  pair_map group_index; /* (file << 32 | ctx + 1, tid) -> group + 1 */
  tl_track *tracks;
  size_t ntracks, cap_tracks;
  uint32_t *next_local; /* per file */
  size_t nfiles;
  intern_tab names;
  pair_map thread_names; /* (file, tid) -> intern id */
  tl_ctx *ctxs;
  size_t nctxs, cap_ctxs;
  pair_map ctx_index; /* (file, ctx) -> ctx + 1 */
  uint64_t unplaced;  /* events that found no lane (too many overlaps) */
} timeline;

/* The GPU lane of an activity record (device -1: unknown; its `stream` as
 * written: a number or a "0x…" string). */
int64_t tl_gpu_tid(const rec *r);
bool tl_tid_is_gpu(int64_t os_tid);
/* "GPU 3 · stream 0x3d" */
void tl_gpu_lane_name(int64_t os_tid, char *buf, size_t cap);
/* Display name of a GPU activity: a kernel's name without its C++
 * mangling and arguments ("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
 * other kinds with their kind first ("MEMCPY name"). */
void tl_activity_name(const rec *r, char *buf, size_t cap);

bool tl_init(timeline *t, size_t nfiles);
void tl_free(timeline *t);
/* Learn names from lifecycle and thread records. */
void tl_note(timeline *t, size_t file, const rec *r);
const tl_ctx *tl_ctx_of(const timeline *t, size_t file, int64_t ctx);
/* Place [start, end] on a track of (file, ctx, tid): the track index, or
 * -1 (counted in `unplaced`). `user` is stored in the lane frame and handed
 * to on_leave with the lane (lane->user = track index + 1). */
long tl_place(timeline *t, size_t file, int64_t ctx, int64_t os_tid,
              int64_t start, int64_t end, uint64_t user, lane_leave_fn on_leave,
              void *arg);
void tl_close_all(timeline *t, lane_leave_fn on_leave, void *arg);
/* "gencomm r0 · NCCL Progress 0 (6987) · lane 2" */
void tl_track_name(const timeline *t, const tl_track *k, char *buf, size_t cap);

/* Display name of an event: its function for Coll/P2p/CeColl
 * ("AllReduce"), type and function for API events ("CollApi AllReduce"),
 * type and direction for proxy events ("ProxyStep send"), else its type;
 * with `end_suffix`, " (reclaimed)" / " (in flight)" when not stopped.
 * `scratch` is used to read details. */
void tl_event_name(const rec *r, js_fields *scratch, bool end_suffix, char *buf,
                   size_t cap);

#endif
