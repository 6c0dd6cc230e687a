/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_debug_check.c — CS_DEBUG_CHECK (src/plugin/
 * debug_check.h): in the sanitizer builds the checks are live and a broken
 * invariant aborts, naming itself; elsewhere a check costs nothing and
 * never stops the process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debug_check.h"

/* Runs a broken check in a child; its status and what it said. */
static int broken_check_in_child(char *said, size_t cap) {
  int out[2];
  assert_int_equal(pipe(out), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    int live_value = 2;
    CS_DEBUG_CHECK(live_value == 3);
    _exit(0);
  }
  close(out[1]);
  size_t n = 0;
  ssize_t got;
  while (n + 1 < cap && (got = read(out[0], said + n, cap - 1 - n)) > 0)
    n += (size_t)got;
  said[n] = '\0';
  close(out[0]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return status;
}

static void test_broken_check(void **state) {
  (void)state;
  char said[512];
  int status = broken_check_in_child(said, sizeof said);
  if (cs_debug_checks_live()) {
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    assert_non_null(
        strstr(said, "cclscope: invariant broken: live_value == 3"));
    assert_non_null(strstr(said, "test_debug_check.c:"));
  } else {
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(said, "");
  }
}

static void test_sanitizer_builds_check(void **state) {
  (void)state;
#if CCLSCOPE_SANITIZER_BUILD || CCLSCOPE_DEBUG
  assert_true(cs_debug_checks_live());
#else
  assert_false(cs_debug_checks_live());
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_broken_check),
      cmocka_unit_test(test_sanitizer_builds_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
