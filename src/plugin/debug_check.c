/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/debug_check.c — the failure path of CS_DEBUG_CHECK
 * (debug_check.h), present only in CCLSCOPE_DEBUG builds.
 */
#include "debug_check.h"

#include <stdio.h>
#include <stdlib.h>

bool cs_debug_checks_live(void) {
#if CCLSCOPE_DEBUG
  return true;
#else
  return false;
#endif
}

#if CCLSCOPE_DEBUG
void cs_debug_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "cclscope: invariant broken: %s (%s:%d)\n", what, file, line);
  fflush(stderr);
  abort();
}
#endif
