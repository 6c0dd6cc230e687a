/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/expect_run.c — run a command and check its exit status and
 * output precisely (ctest's PASS_REGULAR_EXPRESSION ignores the status).
 *
 *   expect_run [--rc N] [--match RE]... [--no-match RE]... [--count RE=N]...
 *              [--absent PATH]... [--out FILE] -- COMMAND [ARGS...]
 *
 * stdout and stderr are captured together. Each --match must find the
 * POSIX extended regex somewhere (lines are separate: ^ and $ match at
 * line ends), each --no-match must not, --count RE=N wants exactly N
 * matching lines. --absent PATH: the command must leave no PATH behind
 * (PATH existing before the command fails at once: the check would be
 * void). --out also writes the captured output to FILE. On any
 * failure the output is printed with the reason; exit 0 when all checks
 * pass, 1 otherwise.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHECKS 64
#define MAX_ABSENT 8

typedef struct {
  const char *re;
  int kind; /* 0 match, 1 no-match, 2 count */
  long count;
} check;

static char *read_all(int fd, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (!buf)
      return NULL;
    if (n == cap) {
      cap *= 2;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    n += (size_t)got;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static long count_lines(const regex_t *re, char *text) {
  long n = 0;
  char *line = text;
  while (line && *line) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (regexec(re, line, 0, NULL, 0) == 0)
      n++;
    if (nl)
      *nl = '\n';
    line = nl ? nl + 1 : NULL;
  }
  return n;
}

int main(int argc, char **argv) {
  check checks[MAX_CHECKS];
  int nchecks = 0, want_rc = 0, i = 1;
  const char *out_file = NULL;
  const char *absent[MAX_ABSENT];
  int nabsent = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (i + 1 >= argc || nchecks == MAX_CHECKS) {
      fprintf(stderr, "expect_run: bad arguments\n");
      return 2;
    }
    const char *opt = argv[i], *val = argv[++i];
    if (!strcmp(opt, "--rc")) {
      want_rc = atoi(val);
    } else if (!strcmp(opt, "--out")) {
      out_file = val;
    } else if (!strcmp(opt, "--absent") && nabsent < MAX_ABSENT) {
      absent[nabsent++] = val;
    } else if (!strcmp(opt, "--match") || !strcmp(opt, "--no-match")) {
      checks[nchecks].re = val;
      checks[nchecks].kind = opt[2] == 'm' ? 0 : 1;
      nchecks++;
    } else if (!strcmp(opt, "--count")) {
      char *eq = strrchr(val, '=');
      if (!eq) {
        fprintf(stderr, "expect_run: --count wants RE=N\n");
        return 2;
      }
      *eq = '\0';
      checks[nchecks].re = val;
      checks[nchecks].kind = 2;
      checks[nchecks].count = atol(eq + 1);
      nchecks++;
    } else {
      fprintf(stderr, "expect_run: unknown option %s\n", opt);
      return 2;
    }
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "expect_run: no command after --\n");
    return 2;
  }
  char **cmd = argv + i + 1;
  struct stat st;
  for (int a = 0; a < nabsent; a++)
    if (lstat(absent[a], &st) == 0) {
      fprintf(stderr, "expect_run: '%s' exists before the command: remove it\n",
              absent[a]);
      return 1;
    }
  int fds[2];
  if (pipe(fds) != 0) {
    perror("expect_run: pipe");
    return 1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execvp(cmd[0], cmd);
    fprintf(stderr, "expect_run: cannot run %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  size_t len = 0;
  char *out = read_all(fds[0], &len);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!out) {
    fprintf(stderr, "expect_run: out of memory\n");
    return 1;
  }
  if (out_file) {
    FILE *f = fopen(out_file, "w");
    if (f) {
      fwrite(out, 1, len, f);
      fclose(f);
    }
  }
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  int failed = 0;
  if (rc != want_rc) {
    fprintf(stderr, "FAIL: exit status %d, expected %d\n", rc, want_rc);
    failed = 1;
  }
  for (int a = 0; a < nabsent; a++)
    if (lstat(absent[a], &st) == 0) {
      fprintf(stderr, "FAIL: the command left '%s' behind\n", absent[a]);
      failed = 1;
    }
  for (int c = 0; c < nchecks; c++) {
    regex_t re;
    if (regcomp(&re, checks[c].re, REG_EXTENDED | REG_NEWLINE) != 0) {
      fprintf(stderr, "FAIL: bad regex %s\n", checks[c].re);
      failed = 1;
      continue;
    }
    if (checks[c].kind == 2) {
      long n = count_lines(&re, out);
      if (n != checks[c].count) {
        fprintf(stderr, "FAIL: %ld lines match /%s/, expected %ld\n", n,
                checks[c].re, checks[c].count);
        failed = 1;
      }
    } else {
      int found = regexec(&re, out, 0, NULL, 0) == 0;
      if (found != (checks[c].kind == 0)) {
        fprintf(stderr, "FAIL: /%s/ %s\n", checks[c].re,
                found ? "found but must not be" : "not found");
        failed = 1;
      }
    }
    regfree(&re);
  }
  if (failed) {
    fprintf(stderr, "---- command:");
    for (char **a = cmd; *a; a++)
      fprintf(stderr, " %s", *a);
    fprintf(stderr, "\n---- output (%zu bytes):\n%s\n----\n", len, out);
  } else {
    printf("ok: exit %d, %d checks\n", rc, nchecks);
  }
  free(out);
  return failed;
}
