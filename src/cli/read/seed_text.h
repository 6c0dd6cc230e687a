/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_text.h — the growing text into which the
 * minimal_profiler conversion (seed_format.c, seed_timing.c) writes the
 * cclscope lines it makes, and the JSON pieces they share: values as they
 * were written, times in the trace's exact microseconds, {ts,pid,tid}
 * points.
 */
#ifndef CCLSCOPE_CLI_SEED_TEXT_H
#define CCLSCOPE_CLI_SEED_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/jsonl_scan.h"
#include "read/trace_record.h"

/* A growing text. `oom` once an allocation failed (the text is then
 * incomplete and its line is dropped by whoever queues it). */
typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} seed_text;

void seed_text_put(seed_text *t, const char *s, size_t n);
void seed_text_str(seed_text *t, const char *s);
void seed_text_fmt(seed_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A value exactly as it was written (strings with their quotes). */
void seed_text_value(seed_text *t, const js_value *v);
/* A C string as a JSON string (quotes, backslashes and control
 * characters escaped). */
void seed_text_json_str(seed_text *t, const char *s);
/* ns -> "1234.567" (µs with three decimals, the trace's own form). */
void seed_text_ts(seed_text *t, int64_t ns);
/* {"ts":…,"pid":…,"tid":…} */
void seed_text_point(seed_text *t, const rec_point *p);
/* ,"start":{…},"stop":{…},"duration":… */
void seed_text_span(seed_text *t, const rec_point *start,
                    const rec_point *stop);

#endif
