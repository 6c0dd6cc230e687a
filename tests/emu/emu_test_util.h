/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/emu_test_util.h — helpers shared by the emulator's test
 * drivers: run a command and capture its output and status, read files,
 * find files by prefix, and read fields from the flat JSON lines that
 * ncclemu (truth) and recorder_plugin write.
 */
#ifndef EMU_TEST_UTIL_H
#define EMU_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct run_result {
  int exit_code; /* -1 if killed by a signal */
  int signal;
  char *output; /* stdout + stderr, NUL-terminated */
} run_result;

/* Runs argv (argv[0] is a path) with extra environment entries "K=V"
 * (NULL-terminated list, may be NULL). Output is captured. */
run_result run_command(char *const argv[], char *const env[]);
void run_result_free(run_result *r);

char *read_whole_file(const char *path, size_t *len);
/* Files in `dir` whose name starts with `prefix`, sorted; returns count. */
int list_files(const char *dir, const char *prefix, char ***out);
void free_list(char **list, int n);
/* A fresh temporary directory (mkdtemp). */
char *make_temp_dir(const char *tag);

/* Flat JSON line access: the raw value text of "key" (without quotes for
 * strings) copied into buf; false if absent. */
bool json_get(const char *line, const char *key, char *buf, size_t n);
bool json_get_u64(const char *line, const char *key, uint64_t *out);
bool json_get_i64(const char *line, const char *key, int64_t *out);
bool json_is(const char *line, const char *key, const char *value);

/* Prints a failure message and remembers it (exit status of the driver). */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int failures(void);

#endif
