/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/common/trace_read.h — loading cclscope JSONL traces in tests.
 *
 * A trace is read whole (tests produce small ones) and every line parsed
 * with cJSON; a line that is not a JSON object is a test failure reported
 * by the caller. Helpers find events by id and count them by type.
 */
#ifndef CCLSCOPE_TEST_TRACE_READ_H
#define CCLSCOPE_TEST_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

typedef struct {
  cJSON **lines; /* parsed records, `pad` records skipped */
  size_t count;
  size_t bad_lines;      /* lines that are not JSON objects */
  size_t crossing_lines; /* lines (<= 4 KiB) that cross a 4 KiB boundary */
  bool ends_with_newline;
  char path[4096];
} trace_t;

/* Read one file. Returns false if it cannot be opened. */
bool trace_load(trace_t *t, const char *path);
void trace_free(trace_t *t);

/* The only trace file in `dir` (asserts there is exactly `expected`),
 * copied into `path`; returns how many trace files exist. */
size_t trace_find_files(const char *dir, char paths[][4096], size_t max);

/* Records of a given recordType / event type. */
size_t trace_count_record(const trace_t *t, const char *record_type);
size_t trace_count_events(const trace_t *t, const char *type);
const cJSON *trace_find_event(const trace_t *t, uint64_t id);
const cJSON *trace_find_record(const trace_t *t, const char *record_type);
const cJSON *trace_find_lifecycle(const trace_t *t, const char *func, int ctx);

/* Field access. */
const char *json_str(const cJSON *o, const char *key); /* NULL if absent */
double json_num(const cJSON *o, const char *key);      /* NAN if absent */
uint64_t json_hex(const cJSON *o, const char *key);    /* 0 if absent/null */
bool json_is_null(const cJSON *o, const char *key);
const cJSON *json_obj(const cJSON *o, const char *key);

/* A fresh empty folder under $TMPDIR (or /tmp): "<tmp>/cclscope-test-XXXXXX".
 */
void test_make_tmpdir(char *out, size_t outlen);
/* Does `dir` take 4 KiB-aligned O_DIRECT writes, and is it not tmpfs?
 * (Asked without the plugin, to check the plugin's own verdict.) */
bool test_dir_takes_direct_io(const char *dir);
/* rm -rf a folder made by test_make_tmpdir. */
void test_remove_tree(const char *dir);

#endif
