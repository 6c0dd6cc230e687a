/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/planted_links.h — the attack on a shared output folder, for
 * tests: a victim file outside the folder, a symbolic or hard link to it
 * planted where the plugin is about to write, and the checks afterwards
 * (the victim unchanged, the plugin's own file a regular file of its own,
 * no temporary left behind). Also a logger that keeps NCCL-style messages,
 * to check the warnings.
 */
#ifndef CCLSCOPE_TEST_PLANTED_LINKS_H
#define CCLSCOPE_TEST_PLANTED_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "nccl/profiler_common.h"

typedef enum { PLANT_SYMLINK, PLANT_HARDLINK } plant_kind;

typedef struct {
  char path[4200];
  char content[160];
  mode_t mode;
} victim_t;

/* A victim `<dir>/<tag>` holding a line that names it, mode 0600. */
void victim_make(victim_t *v, const char *dir, const char *tag);
/* Plant a link of `kind` to the victim at `where` (which must not exist). */
void victim_plant(const victim_t *v, plant_kind kind, const char *where);
/* Fail unless the victim holds what it held and has its mode. */
void victim_assert_intact(const victim_t *v);

/* Fail unless `path` is a regular file (not a link) with a single name:
 * the plugin's own file, not a victim's. */
void assert_own_regular_file(const char *path);
/* Read a small file whole (NUL-terminated); fail if it cannot be read. */
void read_small_file(const char *path, char *out, size_t outlen);
/* Names in `dir` that look like our temporaries (".*.tmp"). */
size_t count_temporaries(const char *dir);
/* Entries in `dir`, "." and ".." aside. */
size_t count_entries(const char *dir);

/* The plugin's warnings, kept to be checked. They reach the keeper from
 * the warning sink (log_keeper_keep, tests linked with the plugin's code)
 * or from stderr, captured (tests that load the plugin library). The
 * logger handed to NCCL-style init only counts WARN-level calls, which
 * the plugin must never make (log_keeper_logger_warnings). */
void log_keeper(ncclDebugLogLevel level, unsigned long flags, const char *file,
                int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void log_keeper_keep(const char *text);
void log_keeper_clear(void);
size_t log_keeper_logger_warnings(void);
/* Send stderr to a file until released; its warning lines are kept. */
void log_keeper_capture_stderr(void);
void log_keeper_release_stderr(void);
size_t log_keeper_count(const char *text);
/* The first kept warning containing `text`, or NULL. */
const char *log_keeper_find(const char *text);

#endif
