/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/export_http.h — a minimal HTTP server for Prometheus to
 * scrape: GET /metrics returns the latest exposition text. One thread serves up
 * to 64 connections at once, each with a 5 s deadline from accept to the end of
 * the answer; bound to loopback unless told otherwise. It never touches NCCL's
 * threads (the writer hands it a copy of the text) and never waits for a
 * client: stopping closes every connection at once.
 */
#ifndef CCLSCOPE_EXPORT_HTTP_H
#define CCLSCOPE_EXPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* Start listening on addr:port (port 0 = off). With `search`, the ports
 * port..port+63 are tried in turn (several processes per node). Returns
 * the port bound, or -1 (warned). */
int cs_http_start(const char *addr, int port, bool search);

/* Replace the text served (copied). */
void cs_http_publish(const char *text, size_t len);

/* Stop and join the thread (no-op when not running): immediate, whatever
 * the clients do. */
void cs_http_stop(void);

/* In a fork child: the thread is the parent's; drop its state, close the
 * inherited sockets (the port stays the parent's), free each snapshot this
 * copy holds (the current one, those of answers in progress) once. */
void cs_http_atfork_child(void);

#endif
