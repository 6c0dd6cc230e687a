/*
 * src/plugin/log.c — routing messages to NCCL's logger or stderr.
 */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic(ncclDebugLogger_t) nccl_logger;
static _Atomic int once_fired[CS_ONCE_COUNT];

void cs_log_set_logger(ncclDebugLogger_t logger) {
  if (logger)
    atomic_store(&nccl_logger, logger);
}

void cs_log_forget_logger(void) {
  atomic_store(&nccl_logger, (ncclDebugLogger_t)NULL);
}

static int stderr_info_wanted(void) {
  const char *d = getenv("NCCL_DEBUG");
  return d && (strcasecmp(d, "INFO") == 0 || strcasecmp(d, "TRACE") == 0);
}

__attribute__((format(printf, 2, 0))) static void
emit(ncclDebugLogLevel level, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  ncclDebugLogger_t logger = atomic_load(&nccl_logger);
  if (logger) {
    logger(level, NCCL_LOG_SUBSYS_PROFILE, __FILE__, __LINE__, "cclscope: %s",
           msg);
    return;
  }
  if (level == NCCL_LOG_WARN || stderr_info_wanted())
    fprintf(stderr, "cclscope %s: %s\n",
            level == NCCL_LOG_WARN ? "WARN" : "INFO", msg);
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
