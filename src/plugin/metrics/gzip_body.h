/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/gzip_body.h — gzip-compressing a request body
 * (OTEL_EXPORTER_OTLP_COMPRESSION=gzip) with zlib loaded at run time
 * (libz.so.1, present on every Linux distribution): no link dependency and
 * no zlib headers needed to build. Exporter thread only.
 */
#ifndef CCLSCOPE_GZIP_BODY_H
#define CCLSCOPE_GZIP_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include "otlp_protobuf.h" /* cs_bytes */

/* Load zlib; false (and nothing loaded) when libz.so.1 is missing. */
bool cs_gzip_load(void);
void cs_gzip_unload(void);

/* `in` as one gzip member (RFC 1952) in `out` (replaced). False when zlib
 * is not loaded or fails. */
bool cs_gzip(const void *in, size_t len, cs_bytes *out);

#endif
