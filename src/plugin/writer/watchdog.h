/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/watchdog.h — hang detection, in the writer thread (NCCL's
 * threads pay nothing for it).
 *
 * An operation is a Coll, P2p or CeColl together with everything recorded
 * under it (KernelCh, KernelPhase, ProxyOps, their ProxySteps and network
 * events), or a ProxyOp on its own when its parent belongs to another
 * process (PXN). NCCL's stop of a Coll only means "enqueued"; the operation
 * is in flight while any of its events is. Its last sign of life is the
 * newest start, state or step end among those events (cs_event's
 * activity_raw). An operation with events in flight and no sign of life for
 * CCLSCOPE_HANG_TIMEOUT seconds is reported once through NCCL's logger,
 * naming rank, communicator, function, seqNumber, age and the deepest event
 * it waits in ("channel 3, ProxyStep 17 (recv from peer 5) in RecvWait for
 * 48 s"), and the in-flight snapshot is written (src/plugin/writer/inflight.h).
 * A long operation that keeps progressing is never reported. When a
 * reported operation moves again, that is said once too.
 *
 * ProxyOps of transports that NCCL never profiles (never progressed, no
 * step: CollNet, SHM/P2P memcpy) do not count as being in flight; the
 * assembler reclaims them.
 */
#ifndef CCLSCOPE_WATCHDOG_H
#define CCLSCOPE_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "assembler.h"
#include "clock.h"
#include "completion.h"

/* What the watchdog remembers of each Coll/P2p/CeColl it saw start. */
typedef struct {
  uint64_t id;
  uint8_t etype;
  uint32_t ctx;
  int32_t rank;
  const char *func; /* NCCL's static strings */
  const char *datatype;
  uint64_t seq;
  bool has_seq;
  int32_t peer; /* P2p */
  int32_t root; /* Coll, CeColl */
  uint64_t count;
  int64_t start_ns;
  bool timing_done;  /* its timing record was emitted (maybe timed out) */
  int64_t warned_ns; /* when reported as hung, 0 = never */
  /* Channels (bit c, c < 64) whose KernelCh of this operation ended: the
   * GPU did all its work there (produced every send, took every receive). */
  uint64_t kernel_channels_done;
} cs_wd_op;

/* Per communicator and function: how far this rank got. */
typedef struct {
  uint32_t ctx;
  char func[24];
  uint64_t started;  /* operations seen starting */
  uint64_t finished; /* ... and completing (all their events ended) */
  bool has_seq;
  uint64_t last_started_seq;
  uint64_t last_finished_seq;
  bool any_finished;
} cs_wd_progress;

/* One operation in flight, as found by a scan. */
typedef struct {
  uint64_t root_id;
  const cs_wd_op *op; /* NULL: its Coll/P2p was not seen (PXN, dropped) */
  int64_t first_start_ns;
  int64_t last_activity_ns;
  const cs_event *waiting; /* the deepest, longest-idle event in flight */
  size_t first_event;      /* its events: picture.events[first, first+n) */
  size_t nevents;
  bool counts; /* has events that count as in flight (see above) */
  bool hung;
} cs_wd_root;

/* Everything in flight at one moment (valid until the next scan). */
typedef struct {
  int64_t now_ns;
  double timeout_s;
  cs_wd_root *roots;
  size_t nroots;
  const cs_event **events;
  size_t nevents;
  const cs_wd_progress *progress;
  size_t nprogress;
} cs_wd_picture;

typedef struct cs_watchdog cs_watchdog;

/* timeout_s <= 0: no warnings, but operations are still tracked for
 * snapshots (the control API's dump). */
cs_watchdog *cs_watchdog_create(double timeout_s, const cs_clock_cal *cal);
void cs_watchdog_destroy(cs_watchdog *w);

/* Fed by the writer: every started event (an operation's start is
 * watched), every ended event (a stopped KernelCh marks its channel
 * done), every timing record. The tests of the type are inline: the other
 * events cost no call. */
void cs_watchdog_take_operation(cs_watchdog *w, const cs_event *e);
void cs_watchdog_take_kernel_stop(cs_watchdog *w, const cs_event *e);
void cs_watchdog_timing(cs_watchdog *w, const cs_timing *t);

/* The types whose starts are watched: the operations. */
#define CS_WATCHDOG_START_TYPES                                                \
  ((1u << CS_EV_COLL) | (1u << CS_EV_P2P) | (1u << CS_EV_CE_COLL))

static inline void cs_watchdog_started(cs_watchdog *w, const cs_event *e) {
  if (e->etype < 32 && (CS_WATCHDOG_START_TYPES >> e->etype) & 1u)
    cs_watchdog_take_operation(w, e);
}

/* The types whose ends are watched: a channel's kernel. */
#define CS_WATCHDOG_END_TYPES (1u << CS_EV_KERNEL_CH)

static inline void cs_watchdog_ended(cs_watchdog *w, const cs_event *e) {
  /* only a stop says the GPU finished (a reclaimed one never stopped) */
  if (e->etype < 32 && (CS_WATCHDOG_END_TYPES >> e->etype) & 1u &&
      e->end == CS_END_STOPPED)
    cs_watchdog_take_kernel_stop(w, e);
}

/* Is a scan due? (the writer asks often; scans run every timeout/4,
 * between 0.1 and 1 s). */
bool cs_watchdog_due(const cs_watchdog *w, int64_t now_ns);

/* Scan what is in flight. Reports new hangs and recoveries through
 * `say` (one call per message) and returns how many operations newly
 * count as hung (then the caller writes a snapshot of *picture). */
size_t cs_watchdog_scan(cs_watchdog *w, const cs_assembler *a, int64_t now_ns,
                        void (*say)(void *arg, bool warning, const char *text),
                        void *arg, const cs_wd_picture **picture);

/* A picture without reporting anything (for a dump). */
const cs_wd_picture *cs_watchdog_picture(cs_watchdog *w, const cs_assembler *a,
                                         int64_t now_ns);

/* "channel 3, ProxyStep 17 (recv from peer 5) in RecvWait for 48.0 s". */
void cs_watchdog_describe_wait(const cs_event *e, const cs_clock_cal *cal,
                               int64_t now_ns, char *out, size_t outlen);

/* The NCCL name of an event's last state (as its context's ABI numbers
 * states), NULL when it has none. */
const char *cs_watchdog_last_state(const cs_event *e);

/* Counters: operations reported as hung so far; and how often one of them
 * was said to move again or to be over (the snapshot is then stale). */
uint64_t cs_watchdog_hangs_reported(const cs_watchdog *w);
uint64_t cs_watchdog_recoveries(const cs_watchdog *w);

#endif
