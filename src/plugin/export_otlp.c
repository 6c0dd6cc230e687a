/*
 * src/plugin/export_otlp.c — see export_otlp.h.
 *
 * libcurl's easy API is reached through function pointers from dlopen. The
 * option and info values below are libcurl's ABI (stable since 7.x); we
 * define them here so that building needs no curl headers either.
 */
#include "export_otlp.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

enum {
  CS_CURLOPT_WRITEDATA = 10001,
  CS_CURLOPT_URL = 10002,
  CS_CURLOPT_POSTFIELDS = 10015,
  CS_CURLOPT_HTTPHEADER = 10023,
  CS_CURLOPT_WRITEFUNCTION = 20011,
  CS_CURLOPT_POSTFIELDSIZE = 60,
  CS_CURLOPT_NOSIGNAL = 99,
  CS_CURLOPT_TIMEOUT_MS = 155,
  CS_CURLOPT_CONNECTTIMEOUT_MS = 156,
  CS_CURLINFO_RESPONSE_CODE = 0x200002
};

typedef struct curl_slist curl_slist;
typedef struct {
  void *lib;
  void *(*easy_init)(void);
  int (*easy_setopt)(void *, int, ...);
  int (*easy_perform)(void *);
  int (*easy_getinfo)(void *, int, ...);
  void (*easy_cleanup)(void *);
  const char *(*easy_strerror)(int);
  curl_slist *(*slist_append)(curl_slist *, const char *);
  void (*slist_free_all)(curl_slist *);
} curl_api;

#define MAX_RETRIES 3

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool running;
  bool stopping;
  char *pending; /* newest payload not yet sent */
  size_t pending_len;
  char url[1024];
  long timeout_ms;
  curl_slist *headers;
  curl_api curl;
  pthread_t thread;
  cs_otlp_counters counters;
} otlp_state;

static otlp_state o = {.lock = PTHREAD_MUTEX_INITIALIZER,
                       .cond = PTHREAD_COND_INITIALIZER};

const char *cs_otlp_endpoint_from_env(char *buf, size_t buflen) {
  const char *v = getenv("CCLSCOPE_OTLP_ENDPOINT");
  if (!v || !*v)
    v = getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  if (v && *v) {
    snprintf(buf, buflen, "%s", v);
    return buf;
  }
  v = getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (!v || !*v)
    return NULL;
  size_t n = strlen(v);
  snprintf(buf, buflen, "%s%sv1/metrics", v, n && v[n - 1] == '/' ? "" : "/");
  return buf;
}

static bool load_curl(curl_api *c) {
  c->lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib)
    c->lib = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib)
    return false;
  c->easy_init = (void *(*)(void))dlsym(c->lib, "curl_easy_init");
  c->easy_setopt = (int (*)(void *, int, ...))dlsym(c->lib, "curl_easy_setopt");
  c->easy_perform = (int (*)(void *))dlsym(c->lib, "curl_easy_perform");
  c->easy_getinfo =
      (int (*)(void *, int, ...))dlsym(c->lib, "curl_easy_getinfo");
  c->easy_cleanup = (void (*)(void *))dlsym(c->lib, "curl_easy_cleanup");
  c->easy_strerror = (const char *(*)(int))dlsym(c->lib, "curl_easy_strerror");
  c->slist_append = (curl_slist * (*)(curl_slist *, const char *))
      dlsym(c->lib, "curl_slist_append");
  c->slist_free_all =
      (void (*)(curl_slist *))dlsym(c->lib, "curl_slist_free_all");
  if (!c->easy_init || !c->easy_setopt || !c->easy_perform ||
      !c->easy_getinfo || !c->easy_cleanup || !c->easy_strerror ||
      !c->slist_append || !c->slist_free_all) {
    dlclose(c->lib);
    c->lib = NULL;
    return false;
  }
  return true;
}

/* OTEL_EXPORTER_OTLP_HEADERS / _METRICS_HEADERS: "k1=v1,k2=v2". */
static curl_slist *build_headers(void) {
  curl_slist *list =
      o.curl.slist_append(NULL, "Content-Type: application/json");
  const char *v = getenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS");
  if (!v || !*v)
    v = getenv("OTEL_EXPORTER_OTLP_HEADERS");
  char buf[2048];
  if (!v || !*v || strlen(v) >= sizeof buf)
    return list;
  strcpy(buf, v);
  for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv;
       kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq)
      continue;
    *eq = '\0';
    char line[2100];
    snprintf(line, sizeof line, "%s: %s", kv, eq + 1);
    list = o.curl.slist_append(list, line);
  }
  return list;
}

static size_t discard_body(char *p, size_t size, size_t n, void *arg) {
  (void)p;
  (void)arg;
  return size * n;
}

/* One POST; true on 2xx. `retry` tells whether trying again makes sense. */
static bool post_once(const char *body, size_t len, bool *retry) {
  void *h = o.curl.easy_init();
  *retry = true;
  if (!h)
    return false;
  /* The last push (at the last finalize or exit) must not hold NCCL up. */
  pthread_mutex_lock(&o.lock);
  long timeout = o.stopping && o.timeout_ms > 2000 ? 2000 : o.timeout_ms;
  pthread_mutex_unlock(&o.lock);
  o.curl.easy_setopt(h, CS_CURLOPT_URL, o.url);
  o.curl.easy_setopt(h, CS_CURLOPT_POSTFIELDS, body);
  o.curl.easy_setopt(h, CS_CURLOPT_POSTFIELDSIZE, (long)len);
  o.curl.easy_setopt(h, CS_CURLOPT_HTTPHEADER, o.headers);
  o.curl.easy_setopt(h, CS_CURLOPT_TIMEOUT_MS, timeout);
  o.curl.easy_setopt(h, CS_CURLOPT_CONNECTTIMEOUT_MS, timeout);
  o.curl.easy_setopt(h, CS_CURLOPT_NOSIGNAL, 1L);
  o.curl.easy_setopt(h, CS_CURLOPT_WRITEFUNCTION, discard_body);
  o.curl.easy_setopt(h, CS_CURLOPT_WRITEDATA, NULL);
  int rc = o.curl.easy_perform(h);
  long status = 0;
  if (rc == 0)
    o.curl.easy_getinfo(h, CS_CURLINFO_RESPONSE_CODE, &status);
  o.curl.easy_cleanup(h);
  if (rc == 0 && status >= 200 && status < 300)
    return true;
  /* Per the OTLP spec only these are worth retrying. */
  *retry = rc != 0 || status == 429 || status == 502 || status == 503 ||
           status == 504;
  cs_log_warn_once(CS_ONCE_EXPORTER, "OTLP export to %s failed (%s); will %s",
                   o.url, rc ? o.curl.easy_strerror(rc) : "HTTP error status",
                   *retry ? "retry with back-off" : "drop that payload");
  return false;
}

static void *otlp_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-otlp");
  pthread_mutex_lock(&o.lock);
  for (;;) {
    while (!o.pending && !o.stopping)
      pthread_cond_wait(&o.cond, &o.lock);
    if (!o.pending)
      break; /* stopping and nothing to send */
    char *body = o.pending;
    size_t len = o.pending_len;
    o.pending = NULL;
    pthread_mutex_unlock(&o.lock);

    bool retry = true, ok = false;
    for (int attempt = 0; attempt <= MAX_RETRIES && !ok && retry; attempt++) {
      if (attempt) {
        /* Back off 1 s, 2 s, 4 s — unless a newer payload or a stop came. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1 << (attempt - 1);
        pthread_mutex_lock(&o.lock);
        while (!o.pending && !o.stopping &&
               pthread_cond_timedwait(&o.cond, &o.lock, &until) != ETIMEDOUT) {
        }
        bool newer = o.pending != NULL, stop = o.stopping;
        pthread_mutex_unlock(&o.lock);
        if (newer || stop)
          break;
      }
      ok = post_once(body, len, &retry);
      pthread_mutex_lock(&o.lock);
      if (ok)
        o.counters.posted++;
      else
        o.counters.failed++;
      pthread_mutex_unlock(&o.lock);
    }
    free(body);
    pthread_mutex_lock(&o.lock);
    if (o.stopping && !o.pending)
      break;
  }
  pthread_mutex_unlock(&o.lock);
  return NULL;
}

bool cs_otlp_start(const char *url) {
  if (o.running)
    return true;
  if (!load_curl(&o.curl)) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "OTLP export to %s is disabled: libcurl.so.4 could not "
                     "be loaded (install libcurl4)",
                     url);
    return false;
  }
  snprintf(o.url, sizeof o.url, "%s", url);
  const char *t = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
  o.timeout_ms = t && atol(t) > 0 ? atol(t) : 10000;
  o.headers = build_headers();
  o.stopping = false;
  o.pending = NULL;
  memset(&o.counters, 0, sizeof o.counters);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&o.thread, NULL, otlp_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    o.curl.slist_free_all(o.headers);
    dlclose(o.curl.lib);
    return false;
  }
  o.running = true;
  cs_log_info("pushing metrics to %s (OTLP/HTTP JSON)", o.url);
  return true;
}

void cs_otlp_submit(const char *json, size_t len) {
  if (!o.running)
    return;
  char *copy = malloc(len + 1);
  if (!copy)
    return;
  memcpy(copy, json, len);
  copy[len] = '\0';
  pthread_mutex_lock(&o.lock);
  if (o.pending) {
    free(o.pending);
    o.counters.dropped++;
  }
  o.pending = copy;
  o.pending_len = len;
  pthread_cond_signal(&o.cond);
  pthread_mutex_unlock(&o.lock);
}

void cs_otlp_stop(void) {
  if (!o.running)
    return;
  pthread_mutex_lock(&o.lock);
  o.stopping = true;
  pthread_cond_signal(&o.cond);
  pthread_mutex_unlock(&o.lock);
  pthread_join(o.thread, NULL);
  free(o.pending);
  o.pending = NULL;
  o.curl.slist_free_all(o.headers);
  o.headers = NULL;
  dlclose(o.curl.lib);
  o.curl.lib = NULL;
  o.running = false;
}

cs_otlp_counters cs_otlp_get_counters(void) {
  pthread_mutex_lock(&o.lock);
  cs_otlp_counters c = o.counters;
  pthread_mutex_unlock(&o.lock);
  return c;
}

void cs_otlp_atfork_child(void) {
  pthread_mutex_init(&o.lock, NULL);
  pthread_cond_init(&o.cond, NULL);
  if (o.running) {
    free(o.pending);
    o.pending = NULL;
    o.running = false; /* its libcurl handle and headers stay with the parent */
    o.headers = NULL;
    o.curl.lib = NULL;
  }
}
