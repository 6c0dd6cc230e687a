/*
 * src/plugin/export_otlp.h — pushing metrics to an OpenTelemetry Collector
 * (OTLP/HTTP, JSON encoding) from a thread of its own. libcurl is loaded
 * with dlopen: where it is missing the exporter says so once and stays off.
 * Each window's payload replaces a payload still waiting (metrics are
 * cumulative: the newest is enough); failed posts are retried with
 * back-off; NCCL's threads and the writer never wait for the network.
 */
#ifndef CCLSCOPE_EXPORT_OTLP_H
#define CCLSCOPE_EXPORT_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t posted;  /* payloads accepted by the collector (2xx) */
  uint64_t failed;  /* attempts that failed */
  uint64_t dropped; /* payloads replaced before they could be sent */
} cs_otlp_counters;

/* The endpoint from CCLSCOPE_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_
 * ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/metrics"; NULL if none. */
const char *cs_otlp_endpoint_from_env(char *buf, size_t buflen);

/* Start the exporter thread for `url`. False if libcurl is missing. */
bool cs_otlp_start(const char *url);

/* Queue a JSON body (copied). */
void cs_otlp_submit(const char *json, size_t len);

/* Stop: one last attempt to send what is queued (bounded by the timeout),
 * then join the thread. */
void cs_otlp_stop(void);

cs_otlp_counters cs_otlp_get_counters(void);

/* In a fork child: the thread is the parent's; forget it. */
void cs_otlp_atfork_child(void);

#endif
