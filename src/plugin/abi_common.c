/*
 * src/plugin/abi_common.c — entry points that are identical in every ABI
 * version: stopEvent and finalize.
 */
#include "emit.h"

ncclResult_t cs_abi_stop_event(void *eHandle) {
  return cs_emit_stop(eHandle);
}

ncclResult_t cs_abi_finalize(void *context) {
  cs_session_finalize(context);
  return ncclSuccess;
}
