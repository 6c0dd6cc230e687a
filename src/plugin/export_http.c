/*
 * src/plugin/export_http.c — see export_http.h.
 */
#include "export_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"

#define CLIENT_TIMEOUT_MS 1000

typedef struct {
  pthread_mutex_t lock; /* text */
  char *text;
  size_t len;
  int listen_fd;
  int stop_pipe[2];
  pthread_t thread;
  bool running;
} http_state;

static http_state h = {.lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1};

static bool send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    struct pollfd pfd = {fd, POLLOUT, 0};
    if (poll(&pfd, 1, CLIENT_TIMEOUT_MS) <= 0)
      return false;
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

static void respond(int fd, const char *status, const char *type,
                    const char *body, size_t len) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n",
                   status, type, len);
  if (send_all(fd, head, (size_t)n))
    send_all(fd, body, len);
}

static void serve(int fd) {
  char req[2048];
  size_t got = 0;
  /* Read the request head (we only need its first line). */
  while (got < sizeof req - 1) {
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, CLIENT_TIMEOUT_MS) <= 0)
      return;
    ssize_t r = recv(fd, req + got, sizeof req - 1 - got, 0);
    if (r <= 0)
      return;
    got += (size_t)r;
    req[got] = '\0';
    if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
      break;
  }
  if (strncmp(req, "GET /metrics", 12) == 0 &&
      (req[12] == ' ' || req[12] == '?')) {
    pthread_mutex_lock(&h.lock);
    respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8",
            h.text ? h.text : "", h.text ? h.len : 0);
    pthread_mutex_unlock(&h.lock);
  } else if (strncmp(req, "GET / ", 6) == 0) {
    static const char page[] = "cclscope: metrics at /metrics\n";
    respond(fd, "200 OK", "text/plain", page, sizeof page - 1);
  } else {
    static const char nf[] = "not found: try /metrics\n";
    respond(fd, "404 Not Found", "text/plain", nf, sizeof nf - 1);
  }
}

static void *http_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-http");
  for (;;) {
    struct pollfd pfd[2] = {{h.listen_fd, POLLIN, 0},
                            {h.stop_pipe[0], POLLIN, 0}};
    if (poll(pfd, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (pfd[1].revents)
      break;
    if (!(pfd[0].revents & POLLIN))
      continue;
    int fd = accept4(h.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    serve(fd);
    close(fd);
  }
  return NULL;
}

static int bind_port(const char *addr, int port) {
  struct sockaddr_in6 a6;
  struct sockaddr_in a4;
  memset(&a6, 0, sizeof a6);
  memset(&a4, 0, sizeof a4);
  bool v6 = strchr(addr, ':') != NULL;
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (v6) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons((uint16_t)port);
    rc = inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1
             ? bind(fd, (struct sockaddr *)&a6, sizeof a6)
             : -1;
  } else {
    a4.sin_family = AF_INET;
    a4.sin_port = htons((uint16_t)port);
    rc = inet_pton(AF_INET, addr, &a4.sin_addr) == 1
             ? bind(fd, (struct sockaddr *)&a4, sizeof a4)
             : -1;
  }
  if (rc != 0 || listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int cs_http_start(const char *addr, int port, bool search) {
  if (h.running || port <= 0)
    return -1;
  int bound = -1;
  for (int p = port; p < (search ? port + 64 : port + 1) && p < 65536; p++) {
    h.listen_fd = bind_port(addr, p);
    if (h.listen_fd >= 0) {
      bound = p;
      break;
    }
  }
  if (bound < 0) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "cannot listen for /metrics on %s:%d%s (%s); the HTTP "
                     "endpoint is off",
                     addr, port, search ? "..+63" : "", strerror(errno));
    return -1;
  }
  if (pipe2(h.stop_pipe, O_CLOEXEC) != 0) {
    close(h.listen_fd);
    h.listen_fd = -1;
    return -1;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&h.thread, NULL, http_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    close(h.listen_fd);
    close(h.stop_pipe[0]);
    close(h.stop_pipe[1]);
    h.listen_fd = -1;
    return -1;
  }
  h.running = true;
  cs_log_info("serving metrics at http://%s:%d/metrics", addr, bound);
  return bound;
}

void cs_http_publish(const char *text, size_t len) {
  char *copy = malloc(len + 1);
  if (!copy)
    return;
  memcpy(copy, text, len);
  copy[len] = '\0';
  pthread_mutex_lock(&h.lock);
  free(h.text);
  h.text = copy;
  h.len = len;
  pthread_mutex_unlock(&h.lock);
}

void cs_http_stop(void) {
  if (h.running) {
    if (write(h.stop_pipe[1], "x", 1) != 1) {
      /* the pipe cannot be full: nothing else writes it */
    }
    pthread_join(h.thread, NULL);
    close(h.listen_fd);
    close(h.stop_pipe[0]);
    close(h.stop_pipe[1]);
    h.listen_fd = -1;
    h.running = false;
  }
  pthread_mutex_lock(&h.lock);
  free(h.text);
  h.text = NULL;
  h.len = 0;
  pthread_mutex_unlock(&h.lock);
}

void cs_http_atfork_child(void) {
  pthread_mutex_init(&h.lock, NULL);
  if (h.running) {
    close(h.listen_fd);
    close(h.stop_pipe[0]);
    close(h.stop_pipe[1]);
    h.listen_fd = -1;
    h.running = false;
  }
  free(h.text);
  h.text = NULL;
  h.len = 0;
}
