/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/event_types.c — the plugin's names for event types and states,
 * read from the shared vocabulary (src/common/nccl_names.h). Cold code:
 * used by the writer thread and by configuration parsing.
 */
#include "event_types.h"

#include "nccl_names.h"

const char *cs_etype_json_name(cs_etype t) {
  const char *name = nccl_event_json_name((int)t);
  return name ? name : "unknown";
}

int cs_etype_from_mask_name(const char *s) {
  return nccl_event_from_mask_name(s);
}

void cs_etype_mask_name(cs_etype t, char *out, size_t cap) {
  nccl_event_mask_name((int)t, out, cap);
}

const char *cs_state_name(int state, int abi, int is_rccl) {
  return nccl_state_name(state, abi, is_rccl != 0);
}
