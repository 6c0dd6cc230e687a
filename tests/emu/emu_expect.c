/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/emu_expect.c — runs a command and asserts its exit status and
 * output: `emu_expect --exit 1 --has 'crashed' [--lacks RE] [--env K=V]
 * [--file-has FILE RE] [--file-lacks FILE RE] -- ncclemu ...`. Used for the
 * teeth tests (a broken plugin must make ncclemu exit 1 with a specific
 * message) and the loader tests; a test that only expects failure (WILL_FAIL)
 * could pass for the wrong reason.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test_util.h"

#define MAX_PATTERNS 64

static bool matches(const char *text, const char *pattern) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0) {
    fail("bad regex '%s'", pattern);
    return false;
  }
  bool ok = regexec(&re, text, 0, NULL, 0) == 0;
  regfree(&re);
  return ok;
}

int main(int argc, char **argv) {
  int expected_exit = 0;
  const char *has[MAX_PATTERNS], *lacks[MAX_PATTERNS];
  const char *file_path[MAX_PATTERNS], *file_re[MAX_PATTERNS];
  bool file_lacks[MAX_PATTERNS];
  int nfile = 0;
  char *env[MAX_PATTERNS + 1];
  int nhas = 0, nlacks = 0, nenv = 0;
  int i = 1;
  for (; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "emu_expect: %s needs a value\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--exit") == 0)
      expected_exit = atoi(argv[++i]);
    else if (strcmp(argv[i], "--has") == 0 && nhas < MAX_PATTERNS)
      has[nhas++] = argv[++i];
    else if (strcmp(argv[i], "--lacks") == 0 && nlacks < MAX_PATTERNS)
      lacks[nlacks++] = argv[++i];
    else if (strcmp(argv[i], "--env") == 0 && nenv < MAX_PATTERNS)
      env[nenv++] = argv[++i];
    else if ((strcmp(argv[i], "--file-has") == 0 ||
              strcmp(argv[i], "--file-lacks") == 0) &&
             i + 2 < argc && nfile < MAX_PATTERNS) {
      file_lacks[nfile] = strcmp(argv[i], "--file-lacks") == 0;
      file_path[nfile] = argv[++i];
      file_re[nfile++] = argv[++i];
    } else {
      fprintf(stderr, "emu_expect: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  env[nenv] = NULL;
  if (i >= argc) {
    fprintf(stderr, "usage: emu_expect [--exit N] [--has RE] [--lacks RE] "
                    "[--env K=V] -- CMD ARGS...\n");
    return 2;
  }
  run_result r = run_command(argv + i, env);
  if (r.signal != 0)
    fail("command killed by signal %d", r.signal);
  else if (r.exit_code != expected_exit)
    fail("exit status %d, expected %d", r.exit_code, expected_exit);
  for (int k = 0; k < nhas; k++)
    if (!matches(r.output, has[k]))
      fail("output lacks /%s/", has[k]);
  for (int k = 0; k < nlacks; k++)
    if (matches(r.output, lacks[k]))
      fail("output has /%s/", lacks[k]);
  for (int k = 0; k < nfile; k++) {
    char *text = read_whole_file(file_path[k], NULL);
    if (text == NULL)
      fail("cannot read %s", file_path[k]);
    else if (!file_lacks[k] && !matches(text, file_re[k]))
      fail("%s lacks /%s/", file_path[k], file_re[k]);
    else if (file_lacks[k] && matches(text, file_re[k]))
      fail("%s has /%s/", file_path[k], file_re[k]);
    free(text);
  }
  if (failures() > 0) {
    printf("---- output ----\n%s---- end ----\n", r.output);
  }
  run_result_free(&r);
  return failures() > 0 ? 1 : 0;
}
