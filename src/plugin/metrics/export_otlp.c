/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/export_otlp.c — see export_otlp.h.
 *
 * libcurl is reached through function pointers from dlopen. The option and
 * info values below are libcurl's ABI (stable since 7.x); we define them
 * here so that building needs no curl headers either. Each push runs on a
 * multi handle that the thread polls itself, so that a push can be cut at
 * the exit deadline: the stopping thread sets the deadline and wakes the
 * poll (curl_multi_wakeup, libcurl >= 7.68; older ones are polled every
 * 50 ms).
 */
#include "export_otlp.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clock.h"
#include "gzip_body.h"
#include "log.h"
#include "otlp_protobuf.h"

enum {
  CS_CURLOPT_WRITEDATA = 10001,
  CS_CURLOPT_URL = 10002,
  CS_CURLOPT_POSTFIELDS = 10015,
  CS_CURLOPT_HTTPHEADER = 10023,
  CS_CURLOPT_WRITEFUNCTION = 20011,
  CS_CURLOPT_HEADERFUNCTION = 20079,
  CS_CURLOPT_HEADERDATA = 10029,
  CS_CURLOPT_POSTFIELDSIZE = 60,
  CS_CURLOPT_NOSIGNAL = 99,
  CS_CURLOPT_TIMEOUT_MS = 155,
  CS_CURLOPT_CONNECTTIMEOUT_MS = 156,
  CS_CURLINFO_RESPONSE_CODE = 0x200002,
  CS_CURLE_OPERATION_TIMEDOUT = 28,
  CS_CURLMSG_DONE = 1
};

/* libcurl's CURLMsg: what curl_multi_info_read returns. */
typedef struct {
  int msg;
  void *easy_handle;
  union {
    void *whatever;
    int result;
  } data;
} cs_curl_msg;

typedef struct curl_slist curl_slist;
typedef int (*cs_multi_wait_fn)(void *, void *, unsigned, int, int *);
typedef struct {
  void *lib;
  void *(*easy_init)(void);
  int (*easy_setopt)(void *, int, ...);
  int (*easy_getinfo)(void *, int, ...);
  void (*easy_cleanup)(void *);
  const char *(*easy_strerror)(int);
  curl_slist *(*slist_append)(curl_slist *, const char *);
  void (*slist_free_all)(curl_slist *);
  void *(*multi_init)(void);
  int (*multi_add_handle)(void *, void *);
  int (*multi_remove_handle)(void *, void *);
  int (*multi_perform)(void *, int *);
  cs_multi_wait_fn multi_poll; /* curl_multi_poll, else curl_multi_wait */
  int (*multi_wakeup)(void *); /* NULL before libcurl 7.68 */
  cs_curl_msg *(*multi_info_read)(void *, int *);
  int (*multi_cleanup)(void *);
} curl_api;

#define MAX_RETRIES 3
/* A collector's Retry-After is followed up to this many seconds. */
#define MAX_RETRY_AFTER_S 30
#define NO_DEADLINE INT64_MAX
/* Without curl_multi_wakeup, how often a push looks at the deadline. */
#define DEADLINE_POLL_MS 50

/* How one push ended. */
typedef enum {
  PUSH_OK,        /* 2xx */
  PUSH_REFUSED,   /* an HTTP error status: the collector is there */
  PUSH_FAILED,    /* no answer: connection refused, DNS, TLS, ... */
  PUSH_TIMED_OUT, /* no answer within OTEL_EXPORTER_OTLP_TIMEOUT */
  PUSH_CUT        /* cut at the exit deadline */
} push_result;

typedef struct {
  pthread_mutex_t lock; /* everything below but the thread's own */
  /* Held by the thread while it works on a payload (encoding, libcurl
   * calls), not while it waits (network poll, back-off, next payload):
   * fork() takes it, so a child never finds libcurl's or the encoder's
   * memory half-changed. Taken before `lock`, never under it. */
  pthread_mutex_t busy_lock;
  pthread_cond_t cond;
  bool running;
  bool stopping;
  int64_t stop_deadline_ns; /* CLOCK_MONOTONIC; NO_DEADLINE until stopping */
  char *pending;            /* newest payload not yet sent */
  size_t pending_len;
  char *sending; /* the payload the thread took from pending and pushes */
  char url[1024];
  long timeout_ms;
  cs_otlp_encoding encoding;
  bool gzip;                    /* compression on and zlib loaded */
  cs_otlp_headers user_headers; /* OTEL_EXPORTER_OTLP_[METRICS_]HEADERS */
  cs_bytes proto, gz; /* the payload being sent, encoded / compressed */
  curl_api curl;
  void *multi;       /* the push in progress runs on it */
  bool unresponsive; /* the last push got no answer in time */
  pthread_t thread;
  cs_otlp_counters counters;
} otlp_state;

/* A fork child's copy of its parent's multi handle (with the transfer in
 * progress on it), kept, untouched, never freed: see cs_otlp_atfork_child.
 * Volatile: only ever written, and the compiler must not drop the store,
 * the only reference left. One generation: a grandchild of a child that
 * pushed again forgets its grandparent's. */
static void *volatile parents_multi;

static otlp_state otlp = {.lock = PTHREAD_MUTEX_INITIALIZER,
                          .busy_lock = PTHREAD_MUTEX_INITIALIZER,
                          .cond = PTHREAD_COND_INITIALIZER,
                          .stop_deadline_ns = NO_DEADLINE};

static int64_t mono_ns(void) {
  return (int64_t)cs_clock_monotonic_ns();
}

static int64_t stop_deadline(void) {
  pthread_mutex_lock(&otlp.lock);
  int64_t d = otlp.stop_deadline_ns;
  pthread_mutex_unlock(&otlp.lock);
  return d;
}

/* ---- libcurl, loaded at run time ---- */

static void *need(void *lib, const char *name, bool *ok) {
  void *f = dlsym(lib, name);
  if (!f)
    *ok = false;
  return f;
}

static bool load_curl(curl_api *c) {
  memset(c, 0, sizeof *c);
  c->lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib)
    c->lib = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib)
    return false;
  bool ok = true;
  void *l = c->lib;
  c->easy_init = (void *(*)(void))need(l, "curl_easy_init", &ok);
  c->easy_setopt = (int (*)(void *, int, ...))need(l, "curl_easy_setopt", &ok);
  c->easy_getinfo =
      (int (*)(void *, int, ...))need(l, "curl_easy_getinfo", &ok);
  c->easy_cleanup = (void (*)(void *))need(l, "curl_easy_cleanup", &ok);
  c->easy_strerror = (const char *(*)(int))need(l, "curl_easy_strerror", &ok);
  c->slist_append = (curl_slist * (*)(curl_slist *, const char *))
      need(l, "curl_slist_append", &ok);
  c->slist_free_all =
      (void (*)(curl_slist *))need(l, "curl_slist_free_all", &ok);
  c->multi_init = (void *(*)(void))need(l, "curl_multi_init", &ok);
  c->multi_add_handle =
      (int (*)(void *, void *))need(l, "curl_multi_add_handle", &ok);
  c->multi_remove_handle =
      (int (*)(void *, void *))need(l, "curl_multi_remove_handle", &ok);
  c->multi_perform = (int (*)(void *, int *))need(l, "curl_multi_perform", &ok);
  c->multi_info_read =
      (cs_curl_msg * (*)(void *, int *)) need(l, "curl_multi_info_read", &ok);
  c->multi_cleanup = (int (*)(void *))need(l, "curl_multi_cleanup", &ok);
  c->multi_poll = (cs_multi_wait_fn)dlsym(l, "curl_multi_poll");
  if (!c->multi_poll)
    c->multi_poll = (cs_multi_wait_fn)need(l, "curl_multi_wait", &ok);
  c->multi_wakeup = (int (*)(void *))dlsym(l, "curl_multi_wakeup");
  if (!ok) {
    dlclose(c->lib);
    c->lib = NULL;
  }
  return ok;
}

/* The request's headers: its content type and encoding, then the user's
 * (OTEL_EXPORTER_OTLP_[METRICS_]HEADERS, checked when the exporter
 * started). */
static curl_slist *build_headers(bool protobuf, bool gzip) {
  curl_slist *list = otlp.curl.slist_append(
      NULL, protobuf ? "Content-Type: application/x-protobuf"
                     : "Content-Type: application/json");
  if (gzip && list)
    list = otlp.curl.slist_append(list, "Content-Encoding: gzip");
  const cs_otlp_headers *user = &otlp.user_headers;
  for (const char *line = user->lines; list && line < user->lines + user->used;
       line += strlen(line) + 1)
    list = otlp.curl.slist_append(list, line);
  return list;
}

static size_t discard_body(char *p, size_t size, size_t n, void *arg) {
  (void)p;
  (void)arg;
  return size * n;
}

/* Response headers: remembers Retry-After given in seconds (an HTTP date
 * is ignored: the plain back-off applies). */
static size_t read_header(char *p, size_t size, size_t n, void *arg) {
  long *retry_after_s = arg;
  size_t len = size * n;
  static const char name[] = "retry-after:";
  if (len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
    char digits[16];
    size_t k = 0;
    for (size_t i = sizeof name - 1; i < len && k + 1 < sizeof digits; i++)
      if (p[i] >= '0' && p[i] <= '9')
        digits[k++] = p[i];
      else if (k || (p[i] != ' ' && p[i] != '\t'))
        break;
    digits[k] = '\0';
    if (k)
      *retry_after_s = strtol(digits, NULL, 10);
  }
  return len;
}

/* ---- one push ---- */

/* Run the transfer on the multi handle until it ends or the exit
 * deadline passes. Returns its CURLcode, or -1 when cut. */
static int run_transfer(void *easy) {
  const curl_api *c = &otlp.curl;
  if (c->multi_add_handle(otlp.multi, easy) != 0)
    return -2;
  int code = -2;
  for (;;) {
    int running = 0;
    if (c->multi_perform(otlp.multi, &running) != 0)
      break;
    if (!running) {
      int left;
      cs_curl_msg *m;
      while ((m = c->multi_info_read(otlp.multi, &left)))
        if (m->msg == CS_CURLMSG_DONE && m->easy_handle == easy)
          code = m->data.result;
      break;
    }
    int64_t now = mono_ns(), deadline = stop_deadline();
    if (now >= deadline) {
      code = -1;
      break;
    }
    int64_t wait_ms = 1000;
    if (deadline != NO_DEADLINE && (deadline - now) / 1000000 + 1 < wait_ms)
      wait_ms = (deadline - now) / 1000000 + 1;
    if (!c->multi_wakeup && wait_ms > DEADLINE_POLL_MS)
      wait_ms = DEADLINE_POLL_MS;
    pthread_mutex_unlock(&otlp.busy_lock); /* waiting: a fork may come */
    c->multi_poll(otlp.multi, NULL, 0, (int)wait_ms, NULL);
    pthread_mutex_lock(&otlp.busy_lock);
  }
  c->multi_remove_handle(otlp.multi, easy);
  return code;
}

/* The body as it goes out: its bytes and how they are encoded. */
typedef struct {
  const void *data;
  size_t len;
  bool protobuf, gzip;
} wire_body;

static push_result post_once(const wire_body *body, long *status,
                             long *retry_after_s) {
  const curl_api *c = &otlp.curl;
  void *easy = c->easy_init();
  if (!easy)
    return PUSH_FAILED;
  curl_slist *headers = build_headers(body->protobuf, body->gzip);
  c->easy_setopt(easy, CS_CURLOPT_URL, otlp.url);
  c->easy_setopt(easy, CS_CURLOPT_POSTFIELDS, body->data);
  c->easy_setopt(easy, CS_CURLOPT_POSTFIELDSIZE, (long)body->len);
  c->easy_setopt(easy, CS_CURLOPT_HTTPHEADER, headers);
  *retry_after_s = -1;
  c->easy_setopt(easy, CS_CURLOPT_HEADERFUNCTION, read_header);
  c->easy_setopt(easy, CS_CURLOPT_HEADERDATA, retry_after_s);
  c->easy_setopt(easy, CS_CURLOPT_TIMEOUT_MS, otlp.timeout_ms);
  c->easy_setopt(easy, CS_CURLOPT_CONNECTTIMEOUT_MS, otlp.timeout_ms);
  c->easy_setopt(easy, CS_CURLOPT_NOSIGNAL, 1L);
  c->easy_setopt(easy, CS_CURLOPT_WRITEFUNCTION, discard_body);
  c->easy_setopt(easy, CS_CURLOPT_WRITEDATA, NULL);
  int code = run_transfer(easy);
  *status = 0;
  if (code == 0)
    c->easy_getinfo(easy, CS_CURLINFO_RESPONSE_CODE, status);
  c->easy_cleanup(easy);
  if (headers)
    c->slist_free_all(headers);
  if (code == -1)
    return PUSH_CUT;
  if (code == 0)
    return *status >= 200 && *status < 300 ? PUSH_OK : PUSH_REFUSED;
  if (code == CS_CURLE_OPERATION_TIMEDOUT)
    return PUSH_TIMED_OUT;
  if (code > 0)
    cs_log_warn_once(CS_ONCE_EXPORTER, "OTLP export to %s failed (%s)",
                     otlp.url, c->easy_strerror(code));
  return PUSH_FAILED;
}

/* No answer, or (per the OTLP spec) one of these statuses. */
static bool worth_retrying(push_result r, long status) {
  if (r == PUSH_FAILED || r == PUSH_TIMED_OUT)
    return true;
  return r == PUSH_REFUSED &&
         (status == 429 || status == 502 || status == 503 || status == 504);
}

/* ---- the exporter thread ---- */

/* Wait `seconds` of back-off, the whole of it even when a newer payload
 * comes (the collector asked for the pause; the newer payload goes after
 * it), unless a stop comes. False when the retry is not wanted any more:
 * stopping, or a newer payload is waiting to go instead. */
static bool back_off(int seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += seconds;
  pthread_mutex_lock(&otlp.lock);
  while (!otlp.stopping &&
         pthread_cond_timedwait(&otlp.cond, &otlp.lock, &until) != ETIMEDOUT) {
  }
  bool go_on = !otlp.pending && !otlp.stopping;
  pthread_mutex_unlock(&otlp.lock);
  return go_on;
}

/* Send one payload, retrying with exponential back-off (1 s, 2 s, 4 s,
 * or the collector's Retry-After when longer, up to 30 s) while that makes
 * sense and no newer payload or stop has come: a stop ends the waiting at
 * once, so retries never reach beyond the exit deadline. */
static void send_payload(const wire_body *body) {
  long retry_after_s = -1;
  for (int attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    if (attempt) {
      long wait_s = 1L << (attempt - 1);
      if (retry_after_s > wait_s)
        wait_s = retry_after_s < MAX_RETRY_AFTER_S ? retry_after_s
                                                   : MAX_RETRY_AFTER_S;
      pthread_mutex_unlock(&otlp.busy_lock); /* waiting: a fork may come */
      bool go_on = back_off((int)wait_s);
      pthread_mutex_lock(&otlp.busy_lock);
      if (!go_on)
        return;
    }
    long status = 0;
    push_result r = post_once(body, &status, &retry_after_s);
    pthread_mutex_lock(&otlp.lock);
    otlp.unresponsive = r == PUSH_TIMED_OUT || r == PUSH_CUT;
    if (r == PUSH_OK)
      otlp.counters.posted++;
    else
      otlp.counters.failed++;
    if (r == PUSH_CUT)
      otlp.counters.cut++;
    pthread_mutex_unlock(&otlp.lock);
    if (r == PUSH_OK || r == PUSH_CUT)
      break;
    bool retry = worth_retrying(r, status);
    if (r == PUSH_REFUSED)
      cs_log_warn_once(CS_ONCE_EXPORTER,
                       "OTLP export to %s: HTTP status %ld; will %s", otlp.url,
                       status,
                       retry ? "retry with back-off" : "drop that payload");
    else if (r == PUSH_TIMED_OUT)
      cs_log_warn_once(CS_ONCE_EXPORTER,
                       "OTLP export to %s: no answer within %ld ms; will "
                       "retry with back-off",
                       otlp.url, otlp.timeout_ms);
    if (!retry)
      break;
  }
}

/* At the exit deadline's start: is the last payload worth a try? Not when
 * the collector did not answer last time (it would only cost the
 * deadline), nor when the deadline has passed. */
static bool final_push_wanted(void) {
  pthread_mutex_lock(&otlp.lock);
  bool wanted = !otlp.unresponsive && mono_ns() < otlp.stop_deadline_ns;
  pthread_mutex_unlock(&otlp.lock);
  return wanted;
}

/* The JSON payload in the configured encoding and compression. Where the
 * protobuf transcoding or gzip fails (a bug, or no memory) the payload goes
 * as it is, correctly labelled, with one warning. */
static wire_body encode(const char *json, size_t len) {
  wire_body w = {.data = json, .len = len};
  if (otlp.encoding == CS_OTLP_PROTOBUF) {
    otlp.proto.len = 0;
    if (cs_otlp_json_to_protobuf(json, len, &otlp.proto)) {
      w = (wire_body){
          .data = otlp.proto.data, .len = otlp.proto.len, .protobuf = true};
    } else {
      cs_log_warn_once(CS_ONCE_EXPORTER,
                       "OTLP export: a payload could not be encoded as "
                       "protobuf; sending it as JSON");
    }
  }
  if (otlp.gzip) {
    if (cs_gzip(w.data, w.len, &otlp.gz)) {
      w.data = otlp.gz.data;
      w.len = otlp.gz.len;
      w.gzip = true;
    } else {
      cs_log_warn_once(CS_ONCE_EXPORTER, "OTLP export: gzip failed; sending "
                                         "a payload uncompressed");
    }
  }
  return w;
}

static void *otlp_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-otlp");
  for (;;) {
    pthread_mutex_lock(&otlp.lock);
    while (!otlp.pending && !otlp.stopping)
      pthread_cond_wait(&otlp.cond, &otlp.lock);
    char *body = otlp.pending;
    size_t len = otlp.pending_len;
    bool stopping = otlp.stopping;
    otlp.pending = NULL;
    otlp.sending = body; /* reachable while we push, for a fork child */
    pthread_mutex_unlock(&otlp.lock);
    if (!body)
      break; /* stopping and nothing to send */
    pthread_mutex_lock(&otlp.busy_lock);
    if (!stopping || final_push_wanted()) {
      wire_body wire = encode(body, len);
      send_payload(&wire);
    } else {
      pthread_mutex_lock(&otlp.lock);
      otlp.counters.dropped++;
      pthread_mutex_unlock(&otlp.lock);
    }
    pthread_mutex_unlock(&otlp.busy_lock);
    pthread_mutex_lock(&otlp.lock);
    otlp.sending = NULL;
    pthread_mutex_unlock(&otlp.lock);
    free(body);
  }
  return NULL;
}

/* ---- public ---- */

/* OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL, _COMPRESSION and _HEADERS. */
static void wire_settings_from_env(void) {
  cs_otlp_wire wire = cs_otlp_wire_from_env(otlp.url);
  otlp.encoding = wire.encoding;
  otlp.gzip = false;
  if (wire.gzip_var) {
    otlp.gzip = cs_gzip_load();
    if (!otlp.gzip)
      cs_log_warn("%s=gzip: libz.so.1 could not be loaded; pushing "
                  "uncompressed",
                  wire.gzip_var);
  }
  cs_otlp_headers_from_env(&otlp.user_headers);
}

bool cs_otlp_start(const char *url, long timeout_ms) {
  if (otlp.running)
    return true;
  if (!load_curl(&otlp.curl)) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "OTLP export to %s is disabled: libcurl.so.4 could not "
                     "be loaded (install libcurl4)",
                     url);
    return false;
  }
  otlp.multi = otlp.curl.multi_init();
  if (!otlp.multi) {
    dlclose(otlp.curl.lib);
    return false;
  }
  snprintf(otlp.url, sizeof otlp.url, "%s", url);
  otlp.timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
  wire_settings_from_env();
  otlp.stopping = false;
  otlp.stop_deadline_ns = NO_DEADLINE;
  otlp.unresponsive = false;
  otlp.pending = NULL;
  memset(&otlp.counters, 0, sizeof otlp.counters);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&otlp.thread, NULL, otlp_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    cs_gzip_unload();
    otlp.curl.multi_cleanup(otlp.multi);
    dlclose(otlp.curl.lib);
    return false;
  }
  otlp.running = true;
  cs_log_info("pushing metrics to %s (OTLP/HTTP %s%s)", otlp.url,
              otlp.encoding == CS_OTLP_PROTOBUF ? "protobuf" : "JSON",
              otlp.gzip ? ", gzip" : "");
  return true;
}

void cs_otlp_submit(const char *json, size_t len) {
  if (!otlp.running)
    return;
  char *copy = malloc(len + 1);
  if (!copy)
    return;
  memcpy(copy, json, len);
  copy[len] = '\0';
  pthread_mutex_lock(&otlp.lock);
  if (otlp.pending) {
    free(otlp.pending);
    otlp.counters.dropped++;
  }
  otlp.pending = copy;
  otlp.pending_len = len;
  pthread_cond_signal(&otlp.cond);
  pthread_mutex_unlock(&otlp.lock);
}

void cs_otlp_stop(int64_t deadline_ns) {
  if (!otlp.running)
    return;
  pthread_mutex_lock(&otlp.lock);
  otlp.stopping = true;
  otlp.stop_deadline_ns = deadline_ns;
  pthread_cond_signal(&otlp.cond);
  pthread_mutex_unlock(&otlp.lock);
  /* A push in progress sees the deadline at once (or within 50 ms). */
  if (otlp.curl.multi_wakeup)
    otlp.curl.multi_wakeup(otlp.multi);
  pthread_join(otlp.thread, NULL);
  if (otlp.counters.cut)
    cs_log_warn("OTLP export to %s: the last push was cut at the exit "
                "deadline (CCLSCOPE_EXIT_DEADLINE)",
                otlp.url);
  free(otlp.pending);
  otlp.pending = NULL;
  otlp.curl.multi_cleanup(otlp.multi);
  otlp.multi = NULL;
  free(otlp.proto.data);
  free(otlp.gz.data);
  memset(&otlp.proto, 0, sizeof otlp.proto);
  memset(&otlp.gz, 0, sizeof otlp.gz);
  cs_gzip_unload();
  dlclose(otlp.curl.lib);
  otlp.curl.lib = NULL;
  otlp.running = false;
}

cs_otlp_counters cs_otlp_get_counters(void) {
  pthread_mutex_lock(&otlp.lock);
  cs_otlp_counters c = otlp.counters;
  pthread_mutex_unlock(&otlp.lock);
  return c;
}

void cs_otlp_atfork_prepare(void) {
  pthread_mutex_lock(&otlp.busy_lock);
  pthread_mutex_lock(&otlp.lock);
}

void cs_otlp_atfork_parent(void) {
  pthread_mutex_unlock(&otlp.lock);
  pthread_mutex_unlock(&otlp.busy_lock);
}

void cs_otlp_atfork_child(void) {
  pthread_mutex_init(&otlp.lock, NULL);
  pthread_mutex_init(&otlp.busy_lock, NULL);
  pthread_cond_init(&otlp.cond, NULL);
  if (otlp.running) {
    /* Both locks were held across the fork: everything is whole. The
     * payloads (queued, being pushed) and the encode buffers are ours;
     * nobody here sends them. */
    free(otlp.pending);
    otlp.pending = NULL;
    free(otlp.sending);
    otlp.sending = NULL;
    free(otlp.proto.data);
    free(otlp.gz.data);
    memset(&otlp.proto, 0, sizeof otlp.proto);
    memset(&otlp.gz, 0, sizeof otlp.gz);
    /* Cleaning up the multi handle would close the parent's connections
     * on their way (a TLS one with a close_notify written into the
     * parent's stream): it is kept aside instead. A push started again
     * here gets its own. */
    parents_multi = otlp.multi;
    otlp.running = false;
    otlp.multi = NULL;
    otlp.curl.lib = NULL;
  }
}
