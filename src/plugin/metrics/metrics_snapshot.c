/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_snapshot.c — the size-bucket label the
 * renderers and the summary print (metrics_snapshot.h).
 */
#include "metrics_snapshot.h"

#include <stdio.h>

void cs_metrics_size_label(uint8_t log2, char *out, size_t outlen) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (log2 == 0xFF) {
    snprintf(out, outlen, "0B");
    return;
  }
  unsigned u = log2 / 10;
  if (u > 4)
    u = 4;
  snprintf(out, outlen, "%llu%s", 1ull << (log2 - 10 * u), units[u]);
}
