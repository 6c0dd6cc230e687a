/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/event_types.h — cclscope's internal names for NCCL's event
 * types and states, and their JSON names.
 *
 * The internal event type (cs_etype) equals the bit index of NCCL's type bit
 * for the 17 known types, so decoding a descriptor's `type` is a count of
 * trailing zeros (RCCL's ProxyDiag, 16, is also bit 15 under RCCL v6: the
 * v6 adapter decides by host library). Which bits a given ABI may carry is
 * decided in the adapters (src/plugin/hot/abi_*.c); anything else becomes
 * CS_EV_UNKNOWN and is recorded generically with its raw value.
 */
#ifndef CCLSCOPE_EVENT_TYPES_H
#define CCLSCOPE_EVENT_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  CS_EV_GROUP = 0,
  CS_EV_COLL = 1,
  CS_EV_P2P = 2,
  CS_EV_PROXY_OP = 3,
  CS_EV_PROXY_STEP = 4,
  CS_EV_PROXY_CTRL = 5,
  CS_EV_KERNEL_CH = 6,
  CS_EV_NET_PLUGIN = 7,
  CS_EV_GROUP_API = 8,
  CS_EV_COLL_API = 9,
  CS_EV_P2P_API = 10,
  CS_EV_KERNEL_LAUNCH = 11,
  CS_EV_CE_COLL = 12,
  CS_EV_CE_SYNC = 13,
  CS_EV_CE_BATCH = 14,
  CS_EV_KERNEL_PHASE = 15,
  CS_EV_PROXY_DIAG = 16, /* RCCL: bit 1 << 16, or 1 << 15 under RCCL v6 */
  CS_EV_UNKNOWN = 17,
  CS_EV_COUNT = 18
} cs_etype;

/* "ncclProfileColl" etc.; "unknown" for CS_EV_UNKNOWN. */
const char *cs_etype_json_name(cs_etype t);

/* The type CCLSCOPE_MASK names `s` ("coll", "proxystep", any case), or -1. */
int cs_etype_from_mask_name(const char *s);
/* Its lower-case CCLSCOPE_MASK name into out[cap]. */
void cs_etype_mask_name(cs_etype t, char *out, size_t cap);

/* State name without the "ncclProfiler" prefix ("SendGPUWait", ...), or
 * NULL for a value this build does not know. `abi` and `is_rccl` decide the
 * meaning of 31 (v7 KernelPhaseStop vs RCCL ProxyDiagUpdate). */
const char *cs_state_name(int state, int abi, int is_rccl);

#endif
