/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_prom.h — the metrics as Prometheus text exposition
 * (version 0.0.4) (metrics_prom.c). Reads a snapshot (metrics_snapshot.h),
 * calls nothing back. Writer thread only.
 */
#ifndef CCLSCOPE_METRICS_PROM_H
#define CCLSCOPE_METRICS_PROM_H

#include <stdint.h>

#include "json_writer.h"
#include "metrics_snapshot.h"

/* Append the text for `snap` to `out`. */
void cs_metrics_render_prometheus(const cs_metrics_snapshot *snap,
                                  cs_jbuf *out);

#endif
