/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/lanes.h — placing intervals on lanes so that each lane is a
 * properly nested call stack (what Perfetto's complete events and OTF2's
 * enter/leave events require).
 *
 * Events arrive by start time (ordered_reader ORD_START). An event goes on
 * the first lane of its group (a thread of a communicator) where, after
 * closing the frames that ended by its start, it either starts a new stack
 * or nests inside the innermost open frame, and where nothing was written
 * after its start; otherwise on a new lane. Closing a frame calls `on_leave`
 * (OTF2 writes its leave then), in time order per lane.
 */
#ifndef CCLSCOPE_CLI_LANES_H
#define CCLSCOPE_CLI_LANES_H

#include <stdbool.h>
#include <stdint.h>

#define LANE_MAX_DEPTH 32
#define LANE_MAX_PER_GROUP 256

typedef struct {
  int64_t end;
  uint64_t user; /* what the caller needs at leave time (region...) */
} lane_frame;

typedef struct {
  lane_frame stack[LANE_MAX_DEPTH];
  int depth;
  int64_t last_time; /* latest time written on this lane */
  uint64_t user;     /* caller's id for the lane (track, location) */
} lane;

typedef struct {
  lane *lanes;
  int n;
  int cap;
} lane_group;

/* Called for each frame closed, in time order per lane. */
typedef void (*lane_leave_fn)(void *arg, lane *l, const lane_frame *f);

void lane_group_init(lane_group *g);
void lane_group_free(lane_group *g);

/* Place [start, end] (end >= start). Returns the lane index (a new lane's
 * `user` is 0: the caller sets it) and sets *created for a new lane; -1
 * when the group already has LANE_MAX_PER_GROUP lanes (or no memory). */
int lanes_place(lane_group *g, int64_t start, int64_t end, uint64_t user,
                lane_leave_fn on_leave, void *arg, bool *created);

/* Close every open frame (end of input). */
void lanes_close_all(lane_group *g, lane_leave_fn on_leave, void *arg);

#endif
