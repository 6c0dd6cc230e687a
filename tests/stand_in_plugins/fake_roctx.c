/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/fake_roctx.c — a stand-in libroctx64.so for tests
 * of the ROCTX bridge (src/plugin/hot/bridge_roctx.c). It exports the three
 * functions the bridge uses, with ROCTX's signatures, keeps ROCTX's
 * per-thread nesting level (push returns the 0-based level of the new
 * range, pop the level of the range it closed, -1 when none is open), and
 * writes one JSON object per call to $FAKE_ROCTX_FILE.<pid>:
 *
 *   {"tid":..,"call":"push","msg":"AllReduce","rc":0}
 *   {"tid":..,"call":"pop","rc":0}
 *   {"tid":..,"call":"mark","msg":"step 3"}
 *
 * FAKE_ROCTX_FAIL=1 makes every push fail (-1, nothing pushed), as a
 * misbehaving tool might.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Thread_local int depth;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;

/* `msg` as a JSON string body: quotes, backslashes and control characters
 * escaped (labels come from the application). */
static void escape(const char *msg, char *out, size_t len) {
  size_t n = 0;
  for (; *msg && n + 7 < len; msg++) {
    unsigned char ch = (unsigned char)*msg;
    if (ch == '"' || ch == '\\') {
      out[n++] = '\\';
      out[n++] = (char)ch;
    } else if (ch < 0x20) {
      n += (size_t)snprintf(out + n, len - n, "\\u%04x", ch);
    } else {
      out[n++] = (char)ch;
    }
  }
  out[n] = '\0';
}

/* One line: the call, the message (NULL: none), the return code (`has_rc`). */
static void record(const char *call, const char *msg, int has_rc, int rc) {
  char text[512] = "";
  if (msg)
    escape(msg, text, sizeof text);
  pthread_mutex_lock(&lock);
  if (out_fd < 0) {
    const char *base = getenv("FAKE_ROCTX_FILE");
    if (base && base[0]) {
      char path[4096];
      snprintf(path, sizeof path, "%s.%ld", base, (long)getpid());
      out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
  }
  if (out_fd >= 0) {
    char line[768];
    int n = snprintf(line, sizeof line, "{\"tid\":%ld,\"call\":\"%s\"",
                     (long)syscall(SYS_gettid), call);
    if (msg)
      n += snprintf(line + n, sizeof line - (size_t)n, ",\"msg\":\"%s\"", text);
    if (has_rc)
      n += snprintf(line + n, sizeof line - (size_t)n, ",\"rc\":%d", rc);
    n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
    ssize_t w = write(out_fd, line, (size_t)n);
    (void)w;
  }
  pthread_mutex_unlock(&lock);
}

#define EXPORT __attribute__((visibility("default")))
EXPORT int roctxRangePushA(const char *message);
EXPORT int roctxRangePop(void);
EXPORT void roctxMarkA(const char *message);

static int failing(void) {
  const char *f = getenv("FAKE_ROCTX_FAIL");
  return f && strcmp(f, "1") == 0;
}

int roctxRangePushA(const char *message) {
  int rc = failing() ? -1 : depth++;
  record("push", message ? message : "(null)", 1, rc);
  return rc;
}

int roctxRangePop(void) {
  int rc = depth > 0 ? --depth : -1;
  record("pop", NULL, 1, rc);
  return rc;
}

void roctxMarkA(const char *message) {
  record("mark", message ? message : "(null)", 0, 0);
}
