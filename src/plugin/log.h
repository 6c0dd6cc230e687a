/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/log.h — every message cclscope prints goes through here.
 * Warnings: stderr, one line each, always (never NCCL's logger: it hides
 * them by default and would overwrite NCCL's last error). Information:
 * NCCL's logger at INFO (ABI v4+), else stderr with NCCL_DEBUG=INFO.
 * No message carries a control character: whatever a message quotes (a
 * user's value, a path, a URL, the host name of the prefix) shows each byte
 * below 0x20, and 0x7F, as '?'. Never called on the hot path.
 */
#ifndef CCLSCOPE_LOG_H
#define CCLSCOPE_LOG_H

#include "nccl/profiler_common.h"

void cs_log_set_logger(ncclDebugLogger_t logger);
void cs_log_forget_logger(void);

/* Tests: receive each warning ("cclscope: text", no newline) instead of
 * stderr; NULL restores stderr. */
typedef void (*cs_log_sink)(const char *text);
void cs_log_set_warning_sink(cs_log_sink sink);

/* Replaces, in place, each control character of `text` (a byte below 0x20,
 * or 0x7F) with '?'. Every message goes through it; callers need it only
 * for text they keep. */
void cs_log_printable(char *text);

/* How a message quotes a value the user gave (an environment variable's):
 * its first CS_LOG_SHOWN_CHARS characters, "..." after them when there are
 * more, each control character as '?'. Returns out->text. */
enum { CS_LOG_SHOWN_CHARS = 64 };
typedef struct {
  char text[CS_LOG_SHOWN_CHARS + sizeof "..."];
} cs_log_shown;
const char *cs_log_show(const char *value, cs_log_shown *out);

void cs_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cs_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Warn only the first time `key` is seen in this process. */
typedef enum {
  CS_ONCE_BAD_ENV = 0,
  CS_ONCE_DIR,
  CS_ONCE_WRITE,
  CS_ONCE_DROPS,
  CS_ONCE_THREAD,
  CS_ONCE_CONTEXTS,
  CS_ONCE_LIVE_CAP,
  CS_ONCE_EXPORTER,
  CS_ONCE_COMPRESS,
  CS_ONCE_COUNT
} cs_once_key;
void cs_log_warn_once(cs_once_key key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Tests: forget which once-keys fired. */
void cs_log_reset_once(void);

#endif
