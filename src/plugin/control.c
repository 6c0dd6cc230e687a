/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/control.c — the runtime control API exported to frameworks
 * (include/cclscope/control.h, docs/control.md). Thin: each function turns
 * into a session call (src/plugin/session.c), which pauses by rewriting
 * NCCL's activation mask and sends marks and dump requests to the writer.
 */
#include <stdint.h>
#include <string.h>

#include "cclscope/control.h"
#include "session.h"

#define CS_EXPORT __attribute__((visibility("default")))

CS_EXPORT int cclscope_start(void) {
  return cs_session_set_paused(false);
}

CS_EXPORT int cclscope_stop(void) {
  return cs_session_set_paused(true);
}

CS_EXPORT int cclscope_is_recording(void) {
  return cs_session_recording() ? 1 : 0;
}

CS_EXPORT int cclscope_step(int64_t step) {
  return cs_session_mark(CS_MARK_STEP, step < 0 ? -1 : step, NULL);
}

CS_EXPORT int cclscope_mark(const char *label) {
  return cs_session_mark(CS_MARK_LABEL, -1, label ? label : "");
}

CS_EXPORT int cclscope_dump(int timeout_ms) {
  return cs_session_dump(timeout_ms);
}

CS_EXPORT const char *cclscope_version(void) {
  return CCLSCOPE_VERSION;
}
