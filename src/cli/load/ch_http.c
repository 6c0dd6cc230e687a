/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/ch_http.c — ClickHouse's HTTP interface through libcurl
 * (ch_http.h). One easy handle per server: its connection is kept alive
 * from request to request.
 */
#include "load/ch_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

/* How long connecting may take; how long a request may make no progress
 * (a stalled server) before it is given up. */
enum { CONNECT_TIMEOUT_S = 10, STALL_TIMEOUT_S = 300 };

/* An error answer is collected up to this size for the message. */
enum { ERROR_BODY_MAX = 4096 };

typedef struct {
  ch_sink sink; /* the query's result, when the answer is 200 */
  void *ctx;
  char body[ERROR_BODY_MAX]; /* the answer's start, for an error message */
  size_t body_len;
  CURL *curl;
} answer;

static size_t on_data(char *data, size_t size, size_t n, void *arg) {
  answer *a = arg;
  size_t len = size * n;
  long status = 0;
  curl_easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 200 && a->sink) {
    a->sink(a->ctx, data, len);
    return len;
  }
  size_t room = sizeof a->body - 1 - a->body_len;
  size_t take = len < room ? len : room;
  memcpy(a->body + a->body_len, data, take);
  a->body_len += take;
  a->body[a->body_len] = '\0';
  return len;
}

/* The server's words, on one line: line breaks and other control
 * characters as one space, ClickHouse's ", e.what() = ..." tail dropped,
 * cut at `cap` bytes. */
static void sanitized(const char *text, char *out, size_t cap) {
  size_t o = 0;
  bool space = false;
  for (const char *p = text; *p && o + 1 < cap; p++) {
    unsigned char ch = (unsigned char)*p;
    if (strncmp(p, ", e.what() = ", 13) == 0)
      break;
    if (ch < 0x20 || ch == 0x7f) {
      space = o > 0;
      continue;
    }
    if (space && o + 2 < cap)
      out[o++] = ' ';
    space = false;
    out[o++] = (char)ch;
  }
  while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '.'))
    o--;
  out[o] = '\0';
}

/* url without "user:password@" after the scheme. */
static char *without_credentials(const char *url) {
  char *shown = strdup(url);
  if (!shown)
    return NULL;
  char *host = strstr(shown, "://");
  host = host ? host + 3 : shown;
  char *at = strchr(host, '@');
  char *slash = strchr(host, '/');
  if (at && (!slash || at < slash))
    memmove(host, at + 1, strlen(at + 1) + 1);
  return shown;
}

bool ch_open(ch_conn *c, const char *url, const char *user,
             const char *password) {
  memset(c, 0, sizeof *c);
  c->user = user && *user ? user : NULL;
  c->password = password;
  if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
    snprintf(c->error, sizeof c->error,
             "'%s' is not an http:// or https:// URL (ClickHouse's HTTP "
             "interface, port 8123 by default)",
             url);
    return false;
  }
  size_t n = strlen(url);
  c->url = malloc(n + 2);
  if (c->url) {
    memcpy(c->url, url, n + 1);
    if (n == 0 || url[n - 1] != '/')
      strcpy(c->url + n, "/");
  }
  c->shown_url = without_credentials(c->url ? c->url : url);
  static bool global_done;
  if (!global_done) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    global_done = true;
  }
  c->curl = curl_easy_init();
  if (!c->url || !c->shown_url || !c->curl) {
    snprintf(c->error, sizeof c->error, "out of memory setting up libcurl");
    return false;
  }
  return true;
}

void ch_close(ch_conn *c) {
  if (c->curl)
    curl_easy_cleanup(c->curl);
  free(c->url);
  free(c->shown_url);
  memset(c, 0, sizeof *c);
}

/* POST `body` to the server with `query` (when not NULL) as the URL's
 * query parameter. */
static bool request(ch_conn *c, const char *query, const char *body, size_t len,
                    ch_sink sink, void *ctx) {
  CURL *h = c->curl;
  curl_easy_reset(h);
  char *q = query ? curl_easy_escape(h, query, 0) : NULL;
  size_t cap = strlen(c->url) + (q ? strlen(q) : 0) + 64;
  char *full = malloc(cap);
  if (!full || (query && !q)) {
    curl_free(q);
    free(full);
    snprintf(c->error, sizeof c->error, "out of memory");
    return false;
  }
  snprintf(full, cap, "%s?insert_distributed_sync=1%s%s", c->url,
           q ? "&query=" : "", q ? q : "");
  curl_free(q);
  answer a = {.sink = sink, .ctx = ctx, .curl = h};
  char curl_error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(h, CURLOPT_URL, full);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_error);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)STALL_TIMEOUT_S);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  /* no "Expect: 100-continue" round trip before large bodies */
  struct curl_slist *headers = curl_slist_append(NULL, "Expect:");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  if (c->user) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    curl_easy_setopt(h, CURLOPT_USERNAME, c->user);
    curl_easy_setopt(h, CURLOPT_PASSWORD, c->password ? c->password : "");
  }
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  free(full);
  c->http_status = 0;
  if (rc != CURLE_OK) {
    snprintf(c->error, sizeof c->error, "no answer from %s: %s", c->shown_url,
             curl_error[0] ? curl_error : curl_easy_strerror(rc));
    return false;
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->http_status);
  if (c->http_status != 200) {
    char words[400];
    sanitized(a.body, words, sizeof words);
    snprintf(c->error, sizeof c->error, "%s answered HTTP %ld: %s",
             c->shown_url, c->http_status, words[0] ? words : "(no message)");
    return false;
  }
  return true;
}

bool ch_exec(ch_conn *c, const char *sql) {
  return request(c, NULL, sql, strlen(sql), NULL, NULL);
}

bool ch_select(ch_conn *c, const char *sql, ch_sink sink, void *ctx) {
  return request(c, NULL, sql, strlen(sql), sink, ctx);
}

bool ch_insert(ch_conn *c, const char *insert_sql, const char *body,
               size_t len) {
  return request(c, insert_sql, body, len, NULL, NULL);
}

bool ch_quote(const char *text, char *buf, size_t cap) {
  size_t o = 0;
  if (cap < 3)
    return false;
  buf[o++] = '\'';
  for (const char *p = text; *p; p++) {
    if (o + 4 >= cap)
      return false;
    if (*p == '\\' || *p == '\'')
      buf[o++] = '\\';
    buf[o++] = *p;
  }
  buf[o++] = '\'';
  buf[o] = '\0';
  return true;
}
