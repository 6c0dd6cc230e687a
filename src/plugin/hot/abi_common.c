/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/abi_common.c — the entry points every ABI version shares:
 * stopEvent (the same in every version) and finalize (the lifecycle).
 */
#include "emit.h"
#include "session.h"

ncclResult_t cs_abi_stop_event(void *eHandle) {
  return cs_emit_stop(eHandle);
}

ncclResult_t cs_abi_finalize(void *context) {
  cs_session_finalize(context);
  return ncclSuccess;
}
