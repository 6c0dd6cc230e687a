/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/debug_check.h — invariant checks that exist only in
 * CCLSCOPE_DEBUG builds (the sanitizer builds of scripts/test.sh turn it
 * on; -DCCLSCOPE_DEBUG=ON does by hand). A broken invariant stops the
 * process at once, saying which and where, so the suite finds it where it
 * happens instead of in a wrong trace later. Release and default builds
 * compile every check to nothing: the plugin never aborts someone's job.
 *
 * Checks belong on the writer thread (assembler, trace file), never on
 * NCCL's threads.
 */
#ifndef CCLSCOPE_DEBUG_CHECK_H
#define CCLSCOPE_DEBUG_CHECK_H

#include <stdbool.h>

/* True in builds whose checks are live. */
bool cs_debug_checks_live(void);

#if CCLSCOPE_DEBUG
/* Says "cclscope: invariant broken: WHAT (FILE:LINE)" on stderr and
 * aborts. */
_Noreturn void cs_debug_fail(const char *what, const char *file, int line);
#define CS_DEBUG_CHECK(cond)                                                   \
  ((cond) ? (void)0 : cs_debug_fail(#cond, __FILE__, __LINE__))
#else
/* Not evaluated; sizeof keeps the variables it names "used". */
#define CS_DEBUG_CHECK(cond) ((void)sizeof(cond))
#endif

#endif
