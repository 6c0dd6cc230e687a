/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/export_http.c — see export_http.h.
 *
 * One thread multiplexes the listening socket and up to MAX_CLIENTS
 * connections with poll(); every socket is non-blocking, so no peer can
 * hold the thread. Each connection has one deadline, counted from its
 * accept: its request head and our whole answer must be through by then,
 * or it is closed. When every slot is taken, a new connection replaces the
 * oldest one still sending its request (a flood of idle or trickling
 * connections cannot keep a scraper out). Stopping closes everything at
 * once: a peer is never waited for.
 *
 * The text served is a reference-counted snapshot: the writer publishes a
 * new one each window, an answer in progress keeps the one it started with.
 */
#include "export_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define MAX_CLIENTS 64
#define REQUEST_HEAD_MAX 2048
#define LISTEN_BACKLOG 128
/* From accept to the last byte of the answer. A scrape of the loopback
 * endpoint takes milliseconds; Prometheus' default scrape timeout is 10 s. */
#define REQUEST_DEADLINE_NS INT64_C(5000000000)

/* ---- data ---- */

/* One published exposition text, shared by the answers that send it. */
typedef struct {
  size_t refs; /* under http_state.lock */
  size_t len;
  char data[];
} http_text;

typedef enum {
  CLIENT_FREE = 0,
  CLIENT_READING, /* waiting for the end of the request head */
  CLIENT_WRITING  /* sending the answer, then closing */
} client_phase;

typedef struct {
  int fd;
  client_phase phase;
  int64_t deadline_ns;   /* CLOCK_MONOTONIC: closed when reached */
  uint64_t accepted_seq; /* the oldest reading client is evicted first */
  char head[REQUEST_HEAD_MAX];
  size_t head_len;
  char reply_head[256]; /* status line and headers */
  size_t reply_head_len;
  const char *body;
  size_t body_len;
  http_text *text; /* the snapshot `body` points into, or NULL */
  size_t sent;     /* bytes of reply_head + body already sent */
} http_client;

typedef struct {
  pthread_mutex_t lock; /* current, every http_text's refs */
  http_text *current;
  int listen_fd;
  int stop_pipe[2];
  pthread_t thread;
  bool running;
  uint64_t next_seq;
  http_client clients[MAX_CLIENTS]; /* the server thread's only */
} http_state;

static http_state http_server = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1, .stop_pipe = {-1, -1}};

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- snapshots ---- */

static http_text *text_acquire(void) {
  pthread_mutex_lock(&http_server.lock);
  http_text *t = http_server.current;
  if (t)
    t->refs++;
  pthread_mutex_unlock(&http_server.lock);
  return t;
}

static void text_release(http_text *t) {
  if (!t)
    return;
  pthread_mutex_lock(&http_server.lock);
  bool last = --t->refs == 0;
  pthread_mutex_unlock(&http_server.lock);
  if (last)
    free(t);
}

/* ---- one connection ---- */

static void client_close(http_client *c) {
  close(c->fd);
  /* Forget the snapshot before releasing it: a process forked meanwhile
   * frees what its connections still name (cs_http_atfork_child), so none
   * may name one already freed. */
  http_text *t = c->text;
  c->text = NULL;
  text_release(t);
  c->fd = -1;
  c->phase = CLIENT_FREE;
}

/* The answer's head, and its body unless `head_only` (a HEAD request:
 * the same headers, Content-Length included, and no body). */
static void client_reply(http_client *c, const char *status, const char *type,
                         const char *body, size_t len, bool head_only) {
  int n = snprintf(c->reply_head, sizeof c->reply_head,
                   "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n",
                   status, type, len);
  c->reply_head_len = n > 0 && (size_t)n < sizeof c->reply_head ? (size_t)n : 0;
  c->body = body;
  c->body_len = head_only ? 0 : len;
  c->sent = 0;
  c->phase = CLIENT_WRITING;
}

/* The request head is complete: choose the answer. */
static void client_answer(http_client *c) {
  static const char page[] = "cclscope: metrics at /metrics\n";
  static const char not_found[] = "not found: try /metrics\n";
  const char *req = c->head;
  bool head_only = strncmp(req, "HEAD ", 5) == 0;
  if (head_only)
    req += 5;
  else if (strncmp(req, "GET ", 4) == 0)
    req += 4;
  else
    req = ""; /* another method: not found */
  if (strncmp(req, "/metrics", 8) == 0 && (req[8] == ' ' || req[8] == '?')) {
    c->text = text_acquire();
    client_reply(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8",
                 c->text ? c->text->data : "", c->text ? c->text->len : 0,
                 head_only);
  } else if (strncmp(req, "/ ", 2) == 0) {
    client_reply(c, "200 OK", "text/plain", page, sizeof page - 1, head_only);
  } else {
    client_reply(c, "404 Not Found", "text/plain", not_found,
                 sizeof not_found - 1, head_only);
  }
}

static void client_read(http_client *c) {
  for (;;) {
    size_t room = sizeof c->head - 1 - c->head_len;
    if (room == 0) {
      client_close(c); /* no request of ours has a head this long */
      return;
    }
    ssize_t r = recv(c->fd, c->head + c->head_len, room, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    if (r <= 0) {
      client_close(c); /* closed by the peer, or an error */
      return;
    }
    c->head_len += (size_t)r;
    c->head[c->head_len] = '\0';
    if (strstr(c->head, "\r\n\r\n") || strstr(c->head, "\n\n")) {
      client_answer(c);
      return;
    }
  }
}

static void client_write(http_client *c) {
  while (c->sent < c->reply_head_len + c->body_len) {
    const char *p;
    size_t n;
    if (c->sent < c->reply_head_len) {
      p = c->reply_head + c->sent;
      n = c->reply_head_len - c->sent;
    } else {
      p = c->body + (c->sent - c->reply_head_len);
      n = c->body_len - (c->sent - c->reply_head_len);
    }
    ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    if (w <= 0)
      break; /* the peer went away */
    c->sent += (size_t)w;
  }
  client_close(c);
}

/* ---- the server thread ---- */

/* A free slot, or the oldest connection still sending its request. */
static http_client *slot_for_new_client(void) {
  http_client *oldest = NULL;
  for (int i = 0; i < MAX_CLIENTS; i++) {
    http_client *c = &http_server.clients[i];
    if (c->phase == CLIENT_FREE)
      return c;
    if (c->phase == CLIENT_READING &&
        (!oldest || c->accepted_seq < oldest->accepted_seq))
      oldest = c;
  }
  if (oldest)
    client_close(oldest);
  return oldest;
}

static void accept_clients(int64_t now) {
  for (;;) {
    int fd = accept4(http_server.listen_fd, NULL, NULL,
                     SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return; /* EAGAIN: all taken; anything else: try at the next wake */
    }
    http_client *c = slot_for_new_client();
    if (!c) {
      close(fd); /* every slot is answering: this one may retry */
      continue;
    }
    c->fd = fd;
    c->phase = CLIENT_READING;
    c->deadline_ns = now + REQUEST_DEADLINE_NS;
    c->accepted_seq = http_server.next_seq++;
    c->head_len = 0;
    c->head[0] = '\0';
    c->text = NULL;
  }
}

/* The poll() timeout: until the nearest client deadline. */
static int poll_timeout_ms(int64_t now) {
  int64_t nearest = INT64_MAX;
  for (int i = 0; i < MAX_CLIENTS; i++) {
    const http_client *c = &http_server.clients[i];
    if (c->phase != CLIENT_FREE && c->deadline_ns < nearest)
      nearest = c->deadline_ns;
  }
  if (nearest == INT64_MAX)
    return -1;
  if (nearest <= now)
    return 0;
  return (int)((nearest - now + 999999) / 1000000);
}

static void *http_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-http");
  struct pollfd pfd[2 + MAX_CLIENTS];
  http_client *polled[MAX_CLIENTS];
  for (;;) {
    int64_t now = mono_ns();
    pfd[0] = (struct pollfd){http_server.stop_pipe[0], POLLIN, 0};
    pfd[1] = (struct pollfd){http_server.listen_fd, POLLIN, 0};
    nfds_t n = 2;
    for (int i = 0; i < MAX_CLIENTS; i++) {
      http_client *c = &http_server.clients[i];
      if (c->phase == CLIENT_FREE)
        continue;
      short events = c->phase == CLIENT_READING ? POLLIN : POLLOUT;
      polled[n - 2] = c;
      pfd[n++] = (struct pollfd){c->fd, events, 0};
    }
    if (poll(pfd, n, poll_timeout_ms(now)) < 0 && errno != EINTR)
      break;
    if (pfd[0].revents)
      break; /* cs_http_stop */
    now = mono_ns();
    for (nfds_t i = 2; i < n; i++) {
      http_client *c = polled[i - 2];
      if (c->phase == CLIENT_FREE)
        continue;
      short ready = pfd[i].revents;
      if (c->phase == CLIENT_READING && ready)
        client_read(c); /* answers once the head is complete */
      if (c->phase == CLIENT_WRITING && ready)
        client_write(c); /* at once after answering, or when writable */
      if (c->phase != CLIENT_FREE && now >= c->deadline_ns)
        client_close(c); /* too slow, idle or trickling */
    }
    if (pfd[1].revents & POLLIN)
      accept_clients(now);
  }
  for (int i = 0; i < MAX_CLIENTS; i++)
    if (http_server.clients[i].phase != CLIENT_FREE)
      client_close(&http_server.clients[i]);
  return NULL;
}

/* ---- start, publish, stop ---- */

static int bind_port(const char *addr, int port) {
  struct sockaddr_in6 a6;
  struct sockaddr_in a4;
  memset(&a6, 0, sizeof a6);
  memset(&a4, 0, sizeof a4);
  bool v6 = strchr(addr, ':') != NULL;
  if (v6 ? inet_pton(AF_INET6, addr, &a6.sin6_addr) != 1
         : inet_pton(AF_INET, addr, &a4.sin_addr) != 1) {
    errno = EINVAL; /* not a numeric address */
    return -1;
  }
  int fd = socket(v6 ? AF_INET6 : AF_INET,
                  SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (v6) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons((uint16_t)port);
    rc = bind(fd, (struct sockaddr *)&a6, sizeof a6);
  } else {
    a4.sin_family = AF_INET;
    a4.sin_port = htons((uint16_t)port);
    rc = bind(fd, (struct sockaddr *)&a4, sizeof a4);
  }
  if (rc != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

int cs_http_start(const char *addr, int port, bool search) {
  if (http_server.running || port <= 0)
    return -1;
  int bound = -1;
  for (int p = port; p < (search ? port + 64 : port + 1) && p < 65536; p++) {
    http_server.listen_fd = bind_port(addr, p);
    if (http_server.listen_fd >= 0) {
      bound = p;
      break;
    }
    if (errno == EINVAL)
      break; /* the address itself is wrong: no other port helps */
  }
  if (bound < 0) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "cannot listen for /metrics on %s:%d%s (%s); the HTTP "
                     "endpoint is off",
                     addr, port, search ? "..+63" : "", strerror(errno));
    return -1;
  }
  if (pipe2(http_server.stop_pipe, O_CLOEXEC) != 0) {
    close(http_server.listen_fd);
    http_server.listen_fd = -1;
    return -1;
  }
  for (int i = 0; i < MAX_CLIENTS; i++) {
    http_server.clients[i].phase = CLIENT_FREE;
    http_server.clients[i].fd = -1;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&http_server.thread, NULL, http_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    close(http_server.listen_fd);
    close(http_server.stop_pipe[0]);
    close(http_server.stop_pipe[1]);
    http_server.listen_fd = -1;
    return -1;
  }
  http_server.running = true;
  cs_log_info("serving metrics at http://%s:%d/metrics", addr, bound);
  return bound;
}

void cs_http_publish(const char *text, size_t len) {
  http_text *t = malloc(sizeof *t + len + 1);
  if (!t)
    return;
  t->refs = 1;
  t->len = len;
  memcpy(t->data, text, len);
  t->data[len] = '\0';
  pthread_mutex_lock(&http_server.lock);
  http_text *old = http_server.current;
  http_server.current = t;
  pthread_mutex_unlock(&http_server.lock);
  text_release(old);
}

void cs_http_stop(void) {
  if (http_server.running) {
    if (write(http_server.stop_pipe[1], "x", 1) != 1) {
      /* the pipe cannot be full: nothing else writes it */
    }
    pthread_join(http_server.thread, NULL); /* never waits on a peer */
    close(http_server.listen_fd);
    close(http_server.stop_pipe[0]);
    close(http_server.stop_pipe[1]);
    http_server.listen_fd = -1;
    http_server.running = false;
  }
  pthread_mutex_lock(&http_server.lock);
  http_text *t = http_server.current;
  http_server.current = NULL;
  pthread_mutex_unlock(&http_server.lock);
  text_release(t);
}

/* In a fork child: free the snapshot `t` unless it is NULL or one of
 * `freed` (the n already freed), and add it to them. */
static void child_free_once(http_text *t, http_text **freed, size_t *n) {
  if (!t)
    return;
  for (size_t i = 0; i < *n; i++)
    if (freed[i] == t)
      return;
  freed[(*n)++] = t;
  free(t);
}

void cs_http_atfork_child(void) {
  pthread_mutex_init(&http_server.lock, NULL);
  /* Single-threaded here: every snapshot this copy of the process holds is
   * `current` or a connection's (an answer in progress at the fork keeps
   * an older one). Their counts also counted the parent's references,
   * which stay in the parent: free each snapshot once, whatever its count. */
  http_text *freed[MAX_CLIENTS + 1];
  size_t nfreed = 0;
  if (http_server.running) {
    /* The sockets are the parent's: close our copies, keep theirs open. */
    close(http_server.listen_fd);
    close(http_server.stop_pipe[0]);
    close(http_server.stop_pipe[1]);
    for (int i = 0; i < MAX_CLIENTS; i++) {
      http_client *c = &http_server.clients[i];
      if (c->phase != CLIENT_FREE)
        close(c->fd);
      child_free_once(c->text, freed, &nfreed);
      c->phase = CLIENT_FREE;
      c->fd = -1;
      c->text = NULL;
      c->body = NULL; /* pointed into c->text */
      c->body_len = 0;
    }
    http_server.listen_fd = -1;
    http_server.running = false;
  }
  child_free_once(http_server.current, freed, &nfreed);
  http_server.current = NULL;
}
