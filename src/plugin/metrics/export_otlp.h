/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/export_otlp.h — pushing metrics to an OpenTelemetry
 * Collector (OTLP/HTTP, protobuf or JSON as OTEL_EXPORTER_OTLP_PROTOCOL
 * says, gzip-compressed when OTEL_EXPORTER_OTLP_COMPRESSION=gzip, with the
 * headers of OTEL_EXPORTER_OTLP_HEADERS: otlp_env.h reads and checks them
 * all) from a thread of its own. libcurl is
 * loaded with dlopen: where it is missing the exporter says so once and stays
 * off. Each window's payload replaces a payload still waiting (metrics are
 * cumulative: the newest is enough); failed posts are retried with
 * back-off; NCCL's threads and the writer never wait for the network, and
 * finalize or exit waits for it at most until the exit deadline
 * (CCLSCOPE_EXIT_DEADLINE): a push still running then is cut.
 */
#ifndef CCLSCOPE_EXPORT_OTLP_H
#define CCLSCOPE_EXPORT_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otlp_env.h" /* its settings, and writer.c's endpoint */

typedef struct {
  uint64_t posted;  /* payloads accepted by the collector (2xx) */
  uint64_t failed;  /* attempts that failed (cut ones included) */
  uint64_t dropped; /* payloads replaced before they could be sent, or not
                       tried at exit (collector unresponsive, deadline) */
  uint64_t cut;     /* pushes cut at the exit deadline */
} cs_otlp_counters;

/* Start the exporter thread for `url`, each push bounded by `timeout_ms`
 * (OTEL_EXPORTER_OTLP_TIMEOUT). False if libcurl is missing. */
bool cs_otlp_start(const char *url, long timeout_ms);

/* Queue a JSON body (copied); the exporter thread encodes and compresses
 * it as configured. */
void cs_otlp_submit(const char *json, size_t len);

/* Stop by `deadline_ns` (CLOCK_MONOTONIC): a push in progress is cut
 * then; the payload still queued gets one attempt within it, unless the
 * collector left the previous push unanswered. Then the thread is joined:
 * this returns by the deadline (+ one 50 ms poll with a libcurl older than
 * 7.68). */
void cs_otlp_stop(int64_t deadline_ns);

cs_otlp_counters cs_otlp_get_counters(void);

/* fork(): the prepare/parent pair holds the exporter still across the
 * fork (a fork waits while the thread encodes or calls libcurl, never
 * while it waits for the network). In the child the thread is the
 * parent's: the payloads (queued, being pushed) and the encode buffers
 * are freed, unsent; the parent's libcurl handle is kept, unused
 * (cleaning it up would close the parent's connections). */
void cs_otlp_atfork_prepare(void);
void cs_otlp_atfork_parent(void);
void cs_otlp_atfork_child(void);

#endif
