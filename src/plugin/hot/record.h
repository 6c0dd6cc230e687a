/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/record.h — the fixed-size binary records that NCCL's threads
 * copy into their rings (src/plugin/hot/ring.h) and the writer thread decodes.
 *
 * A record is 1 to 5 units of 32 bytes. Every record starts with cs_rec_head.
 * Most callbacks are a STATE or a STOP, one unit each: the smaller the unit,
 * the longer a ring of a given size holds a burst while the writer is off
 * its CPU (32 bytes: about 1.7 times as long as 64 did, docs/benchmarks.md).
 * START records carry the event's descriptor fields, already normalised by
 * the ABI adapter (src/plugin/hot/abi_*.c), so the writer never needs to know
 * which ABI version produced them. Strings are NCCL's static constants (or
 * ours for v1's enums) and are only dereferenced by the writer thread.
 * Transient data (network-plugin descriptors) is copied, never pointed to.
 */
#ifndef CCLSCOPE_RECORD_H
#define CCLSCOPE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_UNIT_BYTES 32

/* Units a record of `bytes` bytes takes (a constant expression). */
#define CS_UNITS_FOR(bytes) (((bytes) + CS_UNIT_BYTES - 1) / CS_UNIT_BYTES)

typedef enum {
  CS_REC_PAD = 0,   /* filler at the end of the ring; skipped */
  CS_REC_START = 1, /* startEvent */
  CS_REC_STATE = 2, /* recordEventState */
  CS_REC_STOP = 3,  /* stopEvent */
  CS_REC_MARK = 4   /* a user mark (runtime control API) */
} cs_rec_kind;

/* cs_rec_head.flags for START records: how the parent and context resolved. */
enum {
  CS_PARENT_NONE = 0,    /* parentObj was NULL */
  CS_PARENT_LOCAL = 1,   /* parent is one of our ids (exact) */
  CS_PARENT_FOREIGN = 2, /* another process's value (PXN): raw kept */
  CS_PARENT_UNKNOWN = 3, /* a value we cannot vouch for: raw kept */
  CS_PARENT_DROPPED = 4, /* the parent's record was dropped (ring full) */
  CS_PARENT_MASK = 7,
  CS_CTX_FOREIGN = 1 << 3,     /* context not ours: never dereferenced */
  CS_CTX_INHERIT = 1 << 4,     /* ignore context; owner comes from the parent */
  CS_PARENT_HINT_ONLY = 1 << 5 /* NCCL's parent is unreliable (socket net) */
};

typedef struct {
  uint8_t kind;  /* cs_rec_kind */
  uint8_t units; /* record length in units, including this one */
  uint8_t etype; /* cs_etype (START) */
  uint8_t flags; /* CS_PARENT_* | CS_CTX_* (START) */
  uint32_t aux;  /* START: context serial; STATE: state value */
  uint64_t ts;   /* raw clock ticks (src/plugin/hot/clock.h) */
  uint64_t id;   /* event id */
} cs_rec_head;

/* ---- START payloads, one per event type (normalised across ABIs) ---- */

typedef struct {
  int32_t group_depth;
  uint8_t graph_captured;
} cs_p_group_api;

typedef struct {
  const char *func;
  const char *datatype;
  uint64_t count;
  uint64_t stream;
  uint64_t user_tag;
  int32_t root;
  uint8_t graph_captured;
  uint8_t has_user_tag;
} cs_p_coll_api; /* also P2pApi (root unused) */

typedef struct {
  uint64_t stream;
} cs_p_kernel_launch;

typedef struct {
  uint64_t seq;
  const char *func;
  const char *datatype;
  const char *algo;
  const char *proto;
  const char *kernel_variant;
  uint64_t send_buff;
  uint64_t recv_buff;
  uint64_t count;
  uint64_t parent_group; /* our id of the legacy Group, 0 if none */
  uint64_t user_tag;
  uint64_t comm_hash;     /* v1..v3 only */
  uint64_t traffic_bytes; /* v1/v2 only */
  int32_t root;
  uint32_t op; /* v1 only */
  uint8_t n_channels;
  uint8_t n_warps;
  uint8_t is_sym_coll;
  uint8_t has_user_tag;
  uint8_t has_kernel_variant;
  uint8_t is_collnet; /* v1 */
  uint8_t is_nvls;    /* v1 */
} cs_p_coll;

typedef struct {
  const char *func;
  const char *datatype;
  uint64_t buff;
  uint64_t count;
  uint64_t parent_group;
  uint64_t user_tag;
  uint64_t comm_hash; /* v1..v3 only */
  int32_t peer;
  uint8_t n_channels;
  uint8_t has_user_tag;
} cs_p_p2p;

/* RCCL's v6 proxyOp fields after isSend (include/nccl/profiler_rccl_v6.h). */
typedef struct {
  uint64_t comm_hash;
  int64_t op_count;
  int32_t trace_func_idx;
  int32_t trace_protocol;
  int32_t trace_pattern;
  uint32_t trace_total_bytes;
  uint32_t proxy_nbytes;
  int32_t raw_proxy_nsteps;
} cs_p_rccl_proxy_op;

/* `rccl` is only in the record (2 units instead of 1) when `has_rccl` is
 * set: under NVIDIA the START record ends before it. */
typedef struct {
  int32_t pid;
  int32_t peer;
  int32_t n_steps;
  int32_t chunk_size;
  int32_t is_send;
  uint8_t channel_id;
  uint8_t has_rccl;
  cs_p_rccl_proxy_op rccl;
} cs_p_proxy_op;

typedef struct {
  int32_t step;
} cs_p_proxy_step;

typedef struct {
  uint64_t ptimer;
  uint8_t channel_id;
  uint8_t has_ptimer; /* v4+ */
} cs_p_kernel_ch;

enum { CS_NET_OTHER = 0, CS_NET_IB = 1, CS_NET_SOCK = 2 };

typedef struct {
  int64_t plugin_id;
  uint8_t net_kind; /* CS_NET_* */
  uint8_t descr_type;
  uint8_t has_descr;
  union {
    struct {
      uint64_t wr_id;
      uint64_t length;
      int32_t device;
      int32_t opcode;
      int32_t qp_num;
    } ib;
    struct {
      uint64_t length;
      int32_t fd;
      int32_t op;
    } sock;
  } u;
} cs_p_net_plugin;

typedef struct {
  uint64_t seq;
  const char *func;
  const char *datatype;
  const char *sync_strategy;
  uint64_t send_buff;
  uint64_t recv_buff;
  uint64_t count;
  uint64_t stream;
  uint64_t user_tag;
  int32_t root;
  uint32_t batch_size;
  uint32_t num_batches;
  uint32_t ce_seq_num;
  uint8_t intra_batch_sync;
  uint8_t has_user_tag;
} cs_p_ce_coll;

typedef struct {
  int32_t n_ranks;
  uint8_t is_complete;
} cs_p_ce_sync;

typedef struct {
  uint64_t total_bytes;
  int32_t num_ops;
  uint8_t use_intra_sync;
} cs_p_ce_batch;

typedef struct {
  const char *phase_name;
  uint64_t ptimer;
  uint8_t channel_id;
  uint8_t phase_id;
} cs_p_kernel_phase;

typedef struct {
  uint64_t raw_type;
} cs_p_unknown;

typedef union {
  cs_p_group_api group_api;
  cs_p_coll_api coll_api;
  cs_p_kernel_launch kernel_launch;
  cs_p_coll coll;
  cs_p_p2p p2p;
  cs_p_proxy_op proxy_op;
  cs_p_proxy_step proxy_step;
  cs_p_kernel_ch kernel_ch;
  cs_p_net_plugin net_plugin;
  cs_p_ce_coll ce_coll;
  cs_p_ce_sync ce_sync;
  cs_p_ce_batch ce_batch;
  cs_p_kernel_phase kernel_phase;
  cs_p_unknown unknown;
} cs_payload;

/* START: head.aux holds the context serial (0 = none, foreign or inherited). */
typedef struct {
  cs_rec_head h;   /* 24 bytes */
  uint64_t parent; /* our id (LOCAL) or the raw value (FOREIGN/UNKNOWN) */
  int32_t rank;    /* descriptor rank */
  uint32_t spare;
  cs_payload p; /* starts at byte 40 */
} cs_rec_start;

#define CS_START_FIXED_BYTES offsetof(cs_rec_start, p)

/* Units of a START record whose payload has `payload_bytes` (a constant
 * expression: emit.h's table of them per event type is made with it). */
#define CS_START_UNITS(payload_bytes)                                          \
  CS_UNITS_FOR(CS_START_FIXED_BYTES + (payload_bytes))

/* cs_rec_state.h.flags */
enum {
  CS_STATE_HAS_DIAG = 1 /* RCCL's ProxyDiagUpdate: arg2, arg3 are valid */
};

typedef struct {
  cs_rec_head h;
  uint64_t arg; /* first 8 bytes of the state args (meaning by state) */
  /* RCCL's 24-byte proxyDiag (CS_STATE_HAS_DIAG only, in a second unit;
   * otherwise neither written nor reserved): arg = counterKind |
   * reserved << 8 | flags << 16 (and the padding), arg2 = value, arg3 =
   * value2. */
  uint64_t arg2;
  uint64_t arg3;
} cs_rec_state;

typedef struct {
  cs_rec_head h;
} cs_rec_stop;

typedef union {
  cs_rec_head h;
  uint8_t bytes[CS_UNIT_BYTES];
} cs_unit;

/* The units of each record that is not a START (whose units are
 * cs_start_units_for[] in emit.h). */
enum {
  CS_STATE_UNITS = CS_UNITS_FOR(offsetof(cs_rec_state, arg2)),
  CS_STATE_DIAG_UNITS = CS_UNITS_FOR(sizeof(cs_rec_state)),
  CS_STOP_UNITS = CS_UNITS_FOR(sizeof(cs_rec_stop)),
  CS_START_MAX_UNITS = CS_UNITS_FOR(sizeof(cs_rec_start))
};

_Static_assert(sizeof(cs_rec_head) == 24, "record head");
_Static_assert(sizeof(cs_unit) == CS_UNIT_BYTES, "unit size");
_Static_assert(CS_STATE_UNITS == 1 && CS_STOP_UNITS == 1,
               "a state or a stop is one unit");
_Static_assert(sizeof(cs_rec_start) == CS_START_MAX_UNITS * CS_UNIT_BYTES,
               "the largest START record wastes no byte of its units");

#endif
