/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_protobuf.h — OTLP/HTTP protobuf bodies, made by
 * transcoding the JSON body metrics_otlp.c renders (the protobuf JSON
 * mapping) into the binary wire format of the same message,
 * opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest.
 * Only the subset of the schema that cclscope emits is known (field
 * numbers and types from the official .proto files); a key outside it
 * makes the transcoding fail, so nothing half-encoded is ever posted.
 * Runs on the OTLP exporter's thread; no protobuf library is needed.
 */
#ifndef CCLSCOPE_OTLP_PROTOBUF_H
#define CCLSCOPE_OTLP_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer (malloc'ed; free `data` when done). */
typedef struct {
  uint8_t *data;
  size_t len, cap;
} cs_bytes;

/* Transcode `json` (len bytes) into `out` (appended). False on a key the
 * subset does not know, malformed JSON or no memory; `out` is then
 * undefined but still owned by the caller. */
bool cs_otlp_json_to_protobuf(const char *json, size_t len, cs_bytes *out);

#endif
