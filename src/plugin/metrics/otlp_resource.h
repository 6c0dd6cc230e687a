/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_resource.h — the OTLP resource: who sends the
 * metrics, as OpenTelemetry semantic-convention attributes (docs/metrics.md,
 * "Resource attributes"): service, host, process, the SLURM job and the
 * Kubernetes pod (downward-API variables), cclscope's run, then
 * OTEL_RESOURCE_ATTRIBUTES, which wins over anything detected, and
 * OTEL_SERVICE_NAME, which wins over both. No key appears twice and no
 * value is empty. Writer thread only.
 */
#ifndef CCLSCOPE_OTLP_RESOURCE_H
#define CCLSCOPE_OTLP_RESOURCE_H

#include "json_writer.h"
#include "metrics_snapshot.h"

/* Appends the resource's "attributes" array (the JSON value only). */
void cs_otlp_render_resource(const cs_metrics_snapshot *snap, cs_jbuf *b);

#endif
