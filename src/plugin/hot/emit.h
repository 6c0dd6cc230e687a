/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/emit.h — the hot path shared by every ABI adapter: turning one
 * startEvent / recordEventState / stopEvent call into one ring record.
 *
 * Per call: find the thread's ring, read the clock once, copy a fixed-size
 * record, publish it. No lock, no allocation, no system call, no formatting.
 * Handles and contexts from NCCL are numbers we decode; nothing NCCL passes
 * is dereferenced except the descriptor and state-args structs themselves
 * (and a network plugin's descriptor, copied here because it is transient).
 */
#ifndef CCLSCOPE_EMIT_H
#define CCLSCOPE_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bridge.h"
#include "clock.h"
#include "context.h"
#include "event_types.h"
#include "handle.h"
#include "mode.h"
#include "nccl/profiler.h"
#include "record.h"
#include "ring.h"

#define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#define CS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Record units needed by each event type's START record: its fixed part
 * and its payload, rounded up to whole units. A type without a payload of
 * its own has room for the raw type number (the adapters' default case
 * writes it for any type they do not name). */
static const uint8_t cs_start_units_for[CS_EV_COUNT] = {
    [CS_EV_GROUP] = CS_START_UNITS(sizeof(cs_p_unknown)),
    [CS_EV_COLL] = CS_START_UNITS(sizeof(cs_p_coll)),
    [CS_EV_P2P] = CS_START_UNITS(sizeof(cs_p_p2p)),
    /* NVIDIA's ProxyOp; RCCL's, with `rccl`, is built in abi_rccl.c */
    [CS_EV_PROXY_OP] = CS_START_UNITS(offsetof(cs_p_proxy_op, rccl)),
    [CS_EV_PROXY_STEP] = CS_START_UNITS(sizeof(cs_p_proxy_step)),
    [CS_EV_PROXY_CTRL] = CS_START_UNITS(sizeof(cs_p_unknown)),
    [CS_EV_KERNEL_CH] = CS_START_UNITS(sizeof(cs_p_kernel_ch)),
    [CS_EV_NET_PLUGIN] = CS_START_UNITS(sizeof(cs_p_net_plugin)),
    [CS_EV_GROUP_API] = CS_START_UNITS(sizeof(cs_p_group_api)),
    [CS_EV_COLL_API] = CS_START_UNITS(sizeof(cs_p_coll_api)),
    [CS_EV_P2P_API] = CS_START_UNITS(sizeof(cs_p_coll_api)),
    [CS_EV_KERNEL_LAUNCH] = CS_START_UNITS(sizeof(cs_p_kernel_launch)),
    [CS_EV_CE_COLL] = CS_START_UNITS(sizeof(cs_p_ce_coll)),
    [CS_EV_CE_SYNC] = CS_START_UNITS(sizeof(cs_p_ce_sync)),
    [CS_EV_CE_BATCH] = CS_START_UNITS(sizeof(cs_p_ce_batch)),
    [CS_EV_KERNEL_PHASE] = CS_START_UNITS(sizeof(cs_p_kernel_phase)),
    [CS_EV_PROXY_DIAG] = CS_START_UNITS(sizeof(cs_p_unknown)),
    [CS_EV_UNKNOWN] = CS_START_UNITS(sizeof(cs_p_unknown)),
};

typedef enum {
  CS_GATE_RECORD, /* go on recording */
  CS_GATE_DONE,   /* the handle is written: return to NCCL */
  CS_GATE_SLOW    /* fast twin only: hand over to the slow twin */
} cs_gate;

/* The first thing every startEvent does, after decoding the type: quiet
 * types get the quiet handle; with a policy for its type the fast twin
 * hands over, and the slow twin leaves out the children of left-out
 * events (before reading the clock). `*policy` tells the caller whether to
 * ask cs_policy_admit after filling the record (always 0 in the fast
 * twin). */
static inline cs_gate cs_start_gate(void **eHandle, cs_etype et,
                                    const void *parent_obj, bool slow_twin,
                                    uint32_t *policy) {
  uint64_t quiet = atomic_load_explicit(&cs_quiet_types, memory_order_relaxed);
  uint64_t bit = UINT64_C(1) << et;
  uint64_t mine = quiet & (bit | (bit << CS_QUIET_POLICY_SHIFT));
  *policy = slow_twin ? (uint32_t)(mine >> CS_QUIET_POLICY_SHIFT) : 0;
  if (CS_LIKELY(!mine))
    return CS_GATE_RECORD;
  if (mine & bit) {
    *eHandle = cs_handle_quiet();
    return CS_GATE_DONE;
  }
  if (!slow_twin)
    return CS_GATE_SLOW;
  if (cs_handle_is_any_sampled_out((uint64_t)(uintptr_t)parent_obj)) {
    *eHandle = cs_handle_sampled_out();
    return CS_GATE_DONE;
  }
  return CS_GATE_RECORD;
}

/* After the record is filled, before it is committed (emit_slow.c):
 * false = leave the event out; the record is not committed and the
 * handle becomes the sampled-out handle. A kept event is handed to the
 * active bridges (bridge.h). */
bool cs_policy_admit(cs_rec_start *rec, cs_ring *r, void **eHandle);

/* Event-type bits each ABI version may carry. */
#define CS_TYPES_V1 0x003Fu
#define CS_TYPES_V3 0x00FFu
#define CS_TYPES_V5 0x0FFFu
#define CS_TYPES_V6 0x7FFFu
#define CS_TYPES_V7 0xFFFFu

/* NCCL's type value -> our type: exactly one known bit, else unknown. */
static inline cs_etype cs_etype_decode(uint64_t type, uint32_t allowed) {
  if (CS_LIKELY(type != 0 && (type & (type - 1)) == 0 && type <= 0xFFFFu &&
                (type & allowed)))
    return (cs_etype)__builtin_ctzll(type);
  return CS_EV_UNKNOWN;
}

/* ---- START ----
 *
 * Each adapter's startEvent is a fast path that needs no call and no saved
 * register (the thread's ring is ready, there is room, the id block has
 * ids): it fills the record directly. Anything else — first callback of a
 * thread, a new session, a full ring, a refill of ids — goes to the
 * adapter's out-of-line slow twin, which does the same with
 * cs_start_slow_begin. */

static inline void cs_start_head(cs_rec_start *rec, cs_etype et, unsigned units,
                                 uint64_t id, uint64_t ts) {
  rec->h.kind = CS_REC_START;
  rec->h.units = (uint8_t)units;
  rec->h.etype = (uint8_t)et;
  rec->h.id = id;
  rec->h.ts = ts;
}

/* Fast half: the record to fill, or NULL (then take the slow twin). The
 * handle is written only when a record is returned. */
static inline cs_rec_start *cs_start_fast_begin(void **eHandle, cs_etype et,
                                                cs_ring **ring) {
  cs_ring *r = cs_ring_fast();
  if (CS_UNLIKELY(!r || r->next_id == r->id_end))
    return NULL;
  unsigned units = cs_start_units_for[et];
  cs_unit *u = cs_ring_reserve_fast(r, units);
  if (CS_UNLIKELY(!u))
    return NULL;
  uint64_t id = r->next_id++;
  *eHandle = cs_handle_from_id(id);
  cs_rec_start *rec = (cs_rec_start *)u;
  cs_start_head(rec, et, units, id, cs_clock_counter());
  *ring = r;
  return rec;
}

/* Slow half (emit_slow.c): attach a ring, refill ids, look at the ring
 * again. Always writes the handle (NULL only without a session); returns
 * NULL when there is nothing to fill (no session, or the ring is full:
 * the drop is counted and the handle is the dropped handle, so that the
 * event's stop and states cost nothing and its children say their parent
 * was dropped). */
cs_rec_start *cs_start_slow_begin(void **eHandle, cs_etype et, cs_ring **ring);
/* The same with a record of `units` units (RCCL's longer ProxyOp). */
cs_rec_start *cs_start_slow_begin_units(void **eHandle, cs_etype et,
                                        unsigned units, cs_ring **ring);

/* Parent, context and rank. `origin_pid` is the ProxyOp's pid, else 0. */
static inline void cs_start_common(cs_rec_start *rec, void *context,
                                   void *parent_obj, int rank, cs_etype et,
                                   int32_t origin_pid) {
  uint64_t parent = (uint64_t)(uintptr_t)parent_obj;
  uint8_t flags;
  bool pxn =
      et == CS_EV_PROXY_OP &&
      origin_pid != atomic_load_explicit(&cs_session_pid, memory_order_relaxed);
  if (parent == 0 || cs_handle_is_quiet(parent)) {
    /* None, or not recorded: deliberately, or dropped (ring full). */
    flags = parent && cs_handle_quiet_is_dropped(parent) ? CS_PARENT_DROPPED
                                                         : CS_PARENT_NONE;
    parent = 0;
  } else if (pxn) {
    /* Another process's Coll/P2p: never ours (maybe dropped there). */
    flags = cs_handle_is_any_dropped(parent) ? CS_PARENT_DROPPED
                                             : CS_PARENT_FOREIGN;
    if (flags == CS_PARENT_DROPPED)
      parent = 0;
  } else if (cs_handle_is_our_event(parent)) {
    flags = CS_PARENT_LOCAL;
    parent &= CS_ID_MASK;
  } else {
    flags = CS_PARENT_UNKNOWN;
  }
  rec->parent = parent;
  rec->rank = rank;
  if (et == CS_EV_PROXY_STEP || et == CS_EV_NET_PLUGIN) {
    /* Under PXN their context is foreign but their parent is ours. */
    flags |= CS_CTX_INHERIT;
    rec->h.aux = 0;
  } else {
    uint32_t serial = pxn ? 0 : cs_ctx_serial_of(context);
    if (!serial)
      flags |= CS_CTX_FOREIGN;
    rec->h.aux = serial;
  }
  rec->h.flags = flags;
}

static inline void cs_start_commit(cs_ring *r, cs_rec_start *rec) {
  cs_ring_commit(r, rec->h.units);
}

/* ---- one startEvent, written once for every ABI version ----
 *
 * The adapters differ only in their descriptor, so that is what they pass:
 *   `allowed`  the event-type bits their ABI may carry (CS_TYPES_Vn);
 *   `abi`      their version, handed on to `fill`;
 *   `read`     reads the descriptor's type (decoded with `allowed`) and
 *              parent, before anything is reserved;
 *   `fill`     copies the descriptor into the START record, whose head
 *              (kind, units, type, id, clock) is already written.
 * Each adapter exports a startEvent that calls cs_start_event with its
 * out-of-line slow twin as `slow_twin` (the fast path: gate, reserve, fill,
 * commit, with no call and no saved register); the slow twin calls it
 * with NULL and takes cs_start_slow_begin and the start policy instead.
 * Pass constants and functions declared always_inline: everything here is
 * inlined into each twin, `read` and `fill` included (check with objdump
 * after changing any of it: the fast twin calls nothing but its slow
 * twin). */
typedef cs_etype (*cs_start_read_fn)(const void *descr, uint32_t allowed,
                                     void **parent_obj);
typedef void (*cs_start_fill_fn)(cs_rec_start *rec, void *context,
                                 const void *descr, cs_etype et, int abi);
typedef ncclResult_t (*cs_start_slow_fn)(void *context, void **eHandle,
                                         const void *descr);

static inline __attribute__((always_inline)) ncclResult_t
cs_start_event(void *context, void **eHandle, const void *descr,
               uint32_t allowed, int abi, cs_start_read_fn read,
               cs_start_fill_fn fill, cs_start_slow_fn slow_twin) {
  if (CS_UNLIKELY(!eHandle))
    return ncclSuccess;
  if (CS_UNLIKELY(!descr)) {
    *eHandle = NULL;
    return ncclSuccess;
  }
  bool is_slow_twin = slow_twin == NULL;
  void *parent_obj;
  cs_etype et = read(descr, allowed, &parent_obj);
  uint32_t policy;
  cs_gate gate = cs_start_gate(eHandle, et, parent_obj, is_slow_twin, &policy);
  if (CS_UNLIKELY(gate != CS_GATE_RECORD))
    return gate == CS_GATE_SLOW ? slow_twin(context, eHandle, descr)
                                : ncclSuccess;
  cs_ring *r;
  cs_rec_start *rec;
  if (!is_slow_twin) {
    rec = cs_start_fast_begin(eHandle, et, &r);
    if (CS_UNLIKELY(!rec))
      return slow_twin(context, eHandle, descr);
  } else {
    rec = cs_start_slow_begin(eHandle, et, &r);
    if (!rec)
      return ncclSuccess;
  }
  fill(rec, context, descr, et, abi);
  if (CS_UNLIKELY(policy) && !cs_policy_admit(rec, r, eHandle))
    return ncclSuccess;
  cs_start_commit(r, rec);
  return ncclSuccess;
}

/* Network-plugin descriptor (transient): decode and copy what we know. */
static inline void cs_fill_net_plugin(cs_rec_start *rec, int64_t plugin_id,
                                      const void *data) {
  cs_p_net_plugin *p = &rec->p.net_plugin;
  uint32_t type = (uint32_t)plugin_id & NCCL_PROFILER_NET_TYPE_MASK;
  uint32_t version = (uint32_t)plugin_id & NCCL_PROFILER_NET_VER_MASK;
  p->plugin_id = plugin_id;
  p->has_descr = 0;
  p->descr_type = 0;
  p->net_kind = CS_NET_OTHER;
  if (type == NCCL_PROFILER_NET_TYPE_IB) {
    p->net_kind = CS_NET_IB;
    if (data && version == NCCL_PROFILER_NET_IB_VER) {
      const ncclProfilerNetIbDescr_v1_t *d = data;
      p->descr_type = d->type;
      p->u.ib.device = d->qp.device;
      p->u.ib.wr_id = d->qp.wr_id;
      p->u.ib.opcode = d->qp.opcode;
      p->u.ib.qp_num = d->qp.qpNum;
      p->u.ib.length = d->qp.length;
      p->has_descr = 1;
    }
  } else if (type == NCCL_PROFILER_NET_TYPE_SOCK) {
    p->net_kind = CS_NET_SOCK;
    /* The socket transport's parent attribution is unreliable
     * (nccl-behaviour §6.12). */
    rec->h.flags |= CS_PARENT_HINT_ONLY;
    if (data && version == NCCL_PROFILER_NET_SOCKET_VER) {
      const ncclProfilerNetSockDescr_v1_t *d = data;
      p->descr_type = d->type;
      p->u.sock.fd = d->sock.fd;
      p->u.sock.op = d->sock.op;
      p->u.sock.length = d->sock.length;
      p->has_descr = 1;
    }
  }
}

/* States whose args carry information (others are stale or zero). */
#define CS_STATES_WITH_ARG                                                     \
  ((UINT64_C(1) << 9) | (UINT64_C(1) << 11) | (UINT64_C(1) << 18) |            \
   (UINT64_C(1) << 22) | (UINT64_C(1) << 31))

/* ---- STATE and STOP: fast path inline, everything else out of line ---- */

void cs_emit_state_slow(void *eHandle, int state, const void *args);
/* The slow half's checks for a state on handle value `v`: NULL and foreign
 * handles, a full ring, each counted on `r`. Returns the `units` reserved
 * (to fill and commit) or NULL. */
cs_unit *cs_state_unit_reserve(cs_ring *r, uint64_t v, unsigned units);
ncclResult_t cs_emit_stop_slow(void *eHandle);

static inline uint64_t cs_state_arg(int state, const void *args) {
  uint64_t arg = 0;
  if (args && (unsigned)state < 64 && ((CS_STATES_WITH_ARG >> state) & 1))
    memcpy(&arg, args, sizeof arg); /* every args union is >= 8 bytes */
  return arg;
}

static inline void cs_fill_state(cs_unit *u, uint64_t v, int state,
                                 uint64_t arg, uint64_t ts) {
  cs_rec_state *rec = (cs_rec_state *)u;
  rec->h.kind = CS_REC_STATE;
  rec->h.units = CS_STATE_UNITS;
  rec->h.etype = 0;
  rec->h.flags = 0;
  rec->h.aux = (uint32_t)state;
  rec->h.ts = ts;
  rec->h.id = v & CS_ID_MASK;
  rec->arg = arg;
}

static inline void cs_fill_stop(cs_unit *u, uint64_t v, uint64_t ts) {
  cs_rec_stop *rec = (cs_rec_stop *)u;
  rec->h.kind = CS_REC_STOP;
  rec->h.units = CS_STOP_UNITS;
  rec->h.etype = 0;
  rec->h.flags = 0;
  rec->h.aux = 0;
  rec->h.ts = ts;
  rec->h.id = v & CS_ID_MASK;
}

static inline void cs_emit_state(void *eHandle, int state, const void *args) {
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if (CS_UNLIKELY(
          (unsigned)state < 64 &&
          ((atomic_load_explicit(&cs_quiet_states, memory_order_relaxed) >>
            state) &
           1u)))
    return;
  if (CS_UNLIKELY(cs_handle_is_quiet(v)))
    return;
  cs_ring *r = cs_ring_fast();
  cs_unit *u;
  /* NULL, foreign handles, no ring yet, full ring: all the slow path. */
  if (CS_UNLIKELY(!r || !cs_handle_is_our_event(v) ||
                  !(u = cs_ring_reserve1_fast(r)))) {
    cs_emit_state_slow(eHandle, state, args);
    return;
  }
  cs_fill_state(u, v, state, cs_state_arg(state, args), cs_clock_counter());
  cs_ring_commit(r, 1);
}

static inline ncclResult_t cs_emit_stop(void *eHandle) {
  uint64_t v = (uint64_t)(uintptr_t)eHandle;
  if (CS_UNLIKELY(cs_handle_is_quiet(v)))
    return ncclSuccess;
  cs_ring *r = cs_ring_fast();
  cs_unit *u;
  /* While a bridge is active (bridge.h), a stop on a thread that has
   * something pushed takes the slow path, which pops it if it is there. */
  if (CS_UNLIKELY(!r ||
                  (atomic_load_explicit(&cs_bridges, memory_order_relaxed) &&
                   (r->bridge.nvtx.depth | r->bridge.cupti.depth |
                    r->bridge.roctx.depth)) ||
                  !cs_handle_is_our_event(v) ||
                  !(u = cs_ring_reserve1_fast(r))))
    return cs_emit_stop_slow(eHandle);
  cs_fill_stop(u, v, cs_clock_counter());
  cs_ring_commit(r, 1);
  return ncclSuccess;
}

/* Shared entry points (src/plugin/hot/abi_common.c). */
ncclResult_t cs_abi_stop_event(void *eHandle);
ncclResult_t cs_abi_finalize(void *context);

#endif
