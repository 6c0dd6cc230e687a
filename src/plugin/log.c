/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/log.c — where cclscope's messages go.
 *
 * Warnings are written by us to stderr, one line per write(2), in NCCL's
 * log style ("host:pid:tid NCCL WARN cclscope: ..."), whatever NCCL_DEBUG
 * says. They never go through NCCL's logger, for two reasons seen in
 * NCCL's source and on a GPU: NCCL drops a message whose subsystem flags
 * are not in NCCL_DEBUG_SUBSYS (default INIT,BOOTSTRAP,ENV) and prints
 * nothing at all when NCCL_DEBUG is unset, so a hang warning would not be
 * seen; and every WARN-level call replaces NCCL's "last error"
 * (ncclGetLastError), which PyTorch prints when a collective fails.
 *
 * Information messages go through NCCL's logger (ABI v4+) at INFO level,
 * flagged INIT|PROFILE, so NCCL_DEBUG=INFO shows them with the default
 * subsystems; without a logger they go to stderr when NCCL_DEBUG is INFO
 * or TRACE. Never called on the hot path.
 *
 * Messages quote what users give (values, paths, URLs, header names) and
 * the prefix holds CCLSCOPE_HOSTNAME: a control character there could
 * forge a log line or drive a terminal, so each one is shown as '?' in
 * every message, whatever its caller did.
 */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic(ncclDebugLogger_t) nccl_logger;
static _Atomic(cs_log_sink) warning_sink;
static _Atomic int once_fired[CS_ONCE_COUNT];

void cs_log_set_logger(ncclDebugLogger_t logger) {
  if (logger)
    atomic_store(&nccl_logger, logger);
}

void cs_log_forget_logger(void) {
  atomic_store(&nccl_logger, (ncclDebugLogger_t)NULL);
}

void cs_log_set_warning_sink(cs_log_sink sink) {
  atomic_store(&warning_sink, sink);
}

void cs_log_printable(char *text) {
  for (; *text; text++) {
    unsigned char c = (unsigned char)*text;
    if (c < 0x20 || c == 0x7F)
      *text = '?';
  }
}

const char *cs_log_show(const char *value, cs_log_shown *out) {
  size_t length = strnlen(value, CS_LOG_SHOWN_CHARS + 1);
  bool cut = length > CS_LOG_SHOWN_CHARS;
  size_t kept = cut ? CS_LOG_SHOWN_CHARS : length;
  memcpy(out->text, value, kept);
  out->text[kept] = '\0';
  cs_log_printable(out->text);
  if (cut)
    memcpy(out->text + kept, "...", sizeof "...");
  return out->text;
}

static int stderr_info_wanted(void) {
  const char *d = getenv("NCCL_DEBUG");
  return d && (strcasecmp(d, "INFO") == 0 || strcasecmp(d, "TRACE") == 0);
}

/* The host name of the log prefix: CCLSCOPE_HOSTNAME (as the trace's
 * file names use it), else the kernel's. */
static void host_name(char *out, size_t len) {
  const char *h = getenv("CCLSCOPE_HOSTNAME");
  if (h && *h)
    snprintf(out, len, "%s", h);
  else if (gethostname(out, len) != 0)
    snprintf(out, len, "unknown-host");
  out[len - 1] = '\0';
}

/* One write(2) per line: nothing waits in a stdio buffer when the job is
 * killed, and lines of several threads or processes do not interleave. */
static void write_warning_line(const char *text) {
  char host[256];
  host_name(host, sizeof host);
  char line[1400];
  cs_log_printable(host); /* the message's text is printable already */
  int n = snprintf(line, sizeof line, "%s:%d:%ld NCCL WARN %s\n", host,
                   (int)getpid(), (long)syscall(SYS_gettid), text);
  if (n < 0)
    return;
  size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  if ((size_t)n >= sizeof line)
    line[len - 1] = '\n';
  ssize_t done = write(STDERR_FILENO, line, len);
  (void)done; /* nowhere left to report a failed write to stderr */
}

__attribute__((format(printf, 2, 0))) static void
emit(ncclDebugLogLevel level, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  cs_log_printable(msg);
  char text[1040];
  snprintf(text, sizeof text, "cclscope: %s", msg);
  if (level == NCCL_LOG_WARN) {
    cs_log_sink sink = atomic_load(&warning_sink);
    if (sink)
      sink(text);
    else
      write_warning_line(text);
    return;
  }
  ncclDebugLogger_t logger = atomic_load(&nccl_logger);
  if (logger) {
    logger(NCCL_LOG_INFO, NCCL_LOG_SUBSYS_INIT | NCCL_LOG_SUBSYS_PROFILE,
           __FILE__, __LINE__, "%s", text);
    return;
  }
  if (stderr_info_wanted())
    fprintf(stderr, "cclscope INFO: %s\n", msg);
}

void cs_log_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(NCCL_LOG_WARN, fmt, ap);
  va_end(ap);
}

void cs_log_info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(NCCL_LOG_INFO, fmt, ap);
  va_end(ap);
}

void cs_log_warn_once(cs_once_key key, const char *fmt, ...) {
  if ((unsigned)key >= CS_ONCE_COUNT || atomic_exchange(&once_fired[key], 1))
    return;
  va_list ap;
  va_start(ap, fmt);
  emit(NCCL_LOG_WARN, fmt, ap);
  va_end(ap);
}

void cs_log_reset_once(void) {
  for (int i = 0; i < CS_ONCE_COUNT; i++)
    atomic_store(&once_fired[i], 0);
}
