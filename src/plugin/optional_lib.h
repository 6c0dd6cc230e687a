/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/optional_lib.h — finding an optional library at run time.
 *
 * Owns: the search the bridges share (CUPTI, ROCTX): an environment
 * variable may name the one library to use; otherwise a library from the
 * list that the process already loaded (the application's, or its
 * profiler's) wins over loading one ourselves. Never a link dependency.
 */
#ifndef CCLSCOPE_OPTIONAL_LIB_H
#define CCLSCOPE_OPTIONAL_LIB_H

#include <stdbool.h>
#include <stddef.h>

/* Looks up what the caller needs in an opened library; true keeps it open
 * (the caller owns the handle), false closes it and the search goes on. */
typedef bool (*cs_optional_lib_resolve)(void *lib, const char *name);

/* Tries `names` (or only getenv(env_var) when it is set and not empty):
 * first those already loaded, then by dlopen(RTLD_NOW | RTLD_LOCAL).
 * Writes the names tried, comma-separated, control characters as '?'
 * (cs_log_printable), into `tried` for the caller's warning. True when
 * `resolve` accepted one. */
bool cs_optional_lib_find(const char *env_var, const char *const *names,
                          size_t n_names, cs_optional_lib_resolve resolve,
                          char *tried, size_t tried_len);

#endif
