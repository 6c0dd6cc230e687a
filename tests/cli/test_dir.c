/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_dir.c — the temporary folder of a cmocka test group
 * (test_dir.h).
 */
#include "test_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[256];

char *test_dir_make(const char *name) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/cclscope-%s-XXXXXX", tmp ? tmp : "/tmp", name);
  return mkdtemp(dir);
}

int test_dir_remove(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}
