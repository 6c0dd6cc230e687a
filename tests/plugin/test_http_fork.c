/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_http_fork.c — the /metrics server across fork()
 * (src/plugin/metrics/export_http.c): a child forked while a scraper is
 * half-way through an older snapshot frees every snapshot it inherited,
 * each once, and exits cleanly. The child measures the heap: the bytes in
 * use drop by both snapshots. Under the ASan build a double free aborts
 * the child, and LeakSanitizer runs at its exit().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export_http.h"

#ifdef CCLSCOPE_SANITIZER_BUILD
/* The sanitizers' allocator replaces malloc: ask it (its public API). */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_in_use(void) {
  return __sanitizer_get_current_allocated_bytes();
}
#else
#include <malloc.h>
static size_t heap_in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd; /* small chunks + mmapped ones */
}
#endif

/* Far more than the socket buffers of both ends hold: the server cannot
 * finish sending it while the client does not read. */
#define BIG_TEXT (16u << 20)

/* A connection to 127.0.0.1:port with a small receive buffer, or -1. */
static int connect_small(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Read until `want` bytes came (within 10 s): the answer has begun. */
static size_t read_some(int fd, size_t want) {
  char buf[4096];
  size_t got = 0;
  while (got < want) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 10000) != 1)
      break;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  return got;
}

static void test_fork_frees_every_snapshot_once(void **state) {
  (void)state;
  int port = cs_http_start("127.0.0.1", 20000 + getpid() % 20000, true);
  assert_true(port > 0);
  char *older = malloc(BIG_TEXT);
  assert_non_null(older);
  memset(older, 'a', BIG_TEXT);
  older[BIG_TEXT - 1] = '\n';
  cs_http_publish(older, BIG_TEXT);
  free(older);

  /* A scraper that took the first bytes of the older snapshot and stopped
   * reading: its connection keeps that snapshot. */
  int scraper = connect_small(port);
  assert_true(scraper >= 0);
  static const char get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  assert_int_equal(write(scraper, get, sizeof get - 1),
                   (ssize_t)(sizeof get - 1));
  assert_true(read_some(scraper, 8192) >= 8192);

  /* A newer snapshot: the server's current one, the scraper's is older. */
  static const char newer[] = "cclscope_up 1\n";
  cs_http_publish(newer, sizeof newer - 1);

  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    size_t before = heap_in_use();
    cs_http_atfork_child();
    size_t after = heap_in_use();
    /* both snapshots freed: the older (the scraper's) and the current */
    bool freed_both = after < before && before - after >= BIG_TEXT;
    exit(freed_both ? 0 : 3); /* LeakSanitizer checks here (ASan build) */
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);

  close(scraper);
  cs_http_stop();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fork_frees_every_snapshot_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
