/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_otlp.h — the metrics as one OTLP/HTTP JSON request
 * body (metrics_otlp.c). Reads a snapshot (metrics_snapshot.h), calls nothing
 * back. Writer thread only.
 */
#ifndef CCLSCOPE_METRICS_OTLP_H
#define CCLSCOPE_METRICS_OTLP_H

#include <stdint.h>

#include "json_writer.h"
#include "metrics_snapshot.h"

/* Append the text for `snap` to `out`. `now_ns` is the time of the points. */
void cs_metrics_render_otlp(const cs_metrics_snapshot *snap, int64_t now_ns,
                            cs_jbuf *out);

#endif
