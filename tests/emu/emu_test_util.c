/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/emu_test_util.c — the helpers of emu_test_util.h.
 */
#include "emu_test_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failure_count;

void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
  failure_count++;
}

int failures(void) {
  return failure_count;
}

run_result run_command(char *const argv[], char *const env[]) {
  run_result r = {-1, 0, NULL};
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(2);
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    for (int i = 0; env != NULL && env[i] != NULL; i++)
      putenv(env[i]);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 4096 > cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
    ssize_t n = read(fds[0], buf + len, cap - len - 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    len += (size_t)n;
  }
  buf[len] = '\0';
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.signal = WTERMSIG(status);
  r.output = buf;
  return r;
}

void run_result_free(run_result *r) {
  free(r->output);
  r->output = NULL;
}

char *read_whole_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  fclose(f);
  buf[got] = '\0';
  if (len)
    *len = got;
  return buf;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_files(const char *dir, const char *prefix, char ***out) {
  DIR *d = opendir(dir);
  int n = 0, cap = 16;
  char **list = malloc((size_t)cap * sizeof *list);
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    if (n == cap) {
      cap *= 2;
      list = realloc(list, (size_t)cap * sizeof *list);
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    list[n] = malloc(len);
    snprintf(list[n], len, "%s/%s", dir, e->d_name);
    n++;
  }
  if (d != NULL)
    closedir(d);
  qsort(list, (size_t)n, sizeof *list, compare_names);
  *out = list;
  return n;
}

void free_list(char **list, int n) {
  for (int i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

char *make_temp_dir(const char *tag) {
  const char *base = getenv("TMPDIR");
  char tmpl[512];
  snprintf(tmpl, sizeof tmpl, "%s/emu-%s-XXXXXX", base ? base : "/tmp", tag);
  char *dir = mkdtemp(tmpl);
  if (dir == NULL) {
    perror("mkdtemp");
    exit(2);
  }
  return strdup(dir);
}

bool json_get(const char *line, const char *key, char *buf, size_t n) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = strstr(line, pattern);
  if (p == NULL)
    return false;
  p += strlen(pattern);
  size_t i = 0;
  if (*p == '"') {
    p++;
    while (*p && *p != '"' && i + 1 < n) {
      if (*p == '\\' && p[1])
        p++;
      buf[i++] = *p++;
    }
  } else {
    while (*p && *p != ',' && *p != '}' && i + 1 < n)
      buf[i++] = *p++;
  }
  buf[i] = '\0';
  return true;
}

bool json_get_u64(const char *line, const char *key, uint64_t *out) {
  char buf[64];
  if (!json_get(line, key, buf, sizeof buf) || strcmp(buf, "null") == 0)
    return false;
  *out = strtoull(buf, NULL, 0);
  return true;
}

bool json_get_i64(const char *line, const char *key, int64_t *out) {
  char buf[64];
  if (!json_get(line, key, buf, sizeof buf) || strcmp(buf, "null") == 0)
    return false;
  *out = strtoll(buf, NULL, 0);
  return true;
}

bool json_is(const char *line, const char *key, const char *value) {
  char buf[256];
  return json_get(line, key, buf, sizeof buf) && strcmp(buf, value) == 0;
}
