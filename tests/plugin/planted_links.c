/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/planted_links.c — see planted_links.h.
 */
#include "planted_links.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEPT_MAX 64

void victim_make(victim_t *v, const char *dir, const char *tag) {
  snprintf(v->path, sizeof v->path, "%s/%s", dir, tag);
  snprintf(v->content, sizeof v->content, "victim %s: must never change\n",
           tag);
  v->mode = 0600;
  FILE *f = fopen(v->path, "wx");
  assert_non_null(f);
  assert_int_equal(fputs(v->content, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(chmod(v->path, v->mode), 0);
}

void victim_plant(const victim_t *v, plant_kind kind, const char *where) {
  int rc =
      kind == PLANT_SYMLINK ? symlink(v->path, where) : link(v->path, where);
  if (rc != 0)
    fail_msg("cannot plant a %s at %s: %s",
             kind == PLANT_SYMLINK ? "symlink" : "hard link", where,
             strerror(errno));
}

void victim_assert_intact(const victim_t *v) {
  char now[4096];
  struct stat st;
  if (lstat(v->path, &st) != 0)
    fail_msg("victim %s is gone: %s", v->path, strerror(errno));
  if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != v->mode)
    fail_msg("victim %s: mode %o, was %o", v->path,
             (unsigned)(st.st_mode & 07777), (unsigned)v->mode);
  read_small_file(v->path, now, sizeof now);
  if (strcmp(now, v->content) != 0)
    fail_msg("victim %s was overwritten: now \"%.80s\"", v->path, now);
}

void assert_own_regular_file(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    fail_msg("%s was not written: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail_msg("%s is not a regular file (mode %o)", path, (unsigned)st.st_mode);
  if (st.st_nlink != 1)
    fail_msg("%s has %lu names: it is someone else's file", path,
             (unsigned long)st.st_nlink);
}

void read_small_file(const char *path, char *out, size_t outlen) {
  FILE *f = fopen(path, "r");
  if (!f)
    fail_msg("cannot read %s: %s", path, strerror(errno));
  size_t n = fread(out, 1, outlen - 1, f);
  out[n] = '\0';
  fclose(f);
}

static size_t count_matching(const char *dir, bool temporaries_only) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    size_t len = strlen(e->d_name);
    if (!temporaries_only || (e->d_name[0] == '.' && len > 4 &&
                              strcmp(e->d_name + len - 4, ".tmp") == 0))
      n++;
  }
  closedir(d);
  return n;
}

size_t count_temporaries(const char *dir) {
  return count_matching(dir, true);
}

size_t count_entries(const char *dir) {
  return count_matching(dir, false);
}

/* ---- the logger and the warnings ---- */

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char kept[KEPT_MAX][1024];
static size_t nkept;
static size_t logger_warnings;
static int capture_fd = -1, saved_stderr = -1;
static off_t captured_upto;

void log_keeper(ncclDebugLogLevel level, unsigned long flags, const char *file,
                int line, const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  (void)fmt;
  if (level == NCCL_LOG_WARN) {
    pthread_mutex_lock(&kept_lock);
    logger_warnings++;
    pthread_mutex_unlock(&kept_lock);
  }
}

void log_keeper_keep(const char *text) {
  pthread_mutex_lock(&kept_lock);
  if (nkept < KEPT_MAX)
    snprintf(kept[nkept++], sizeof kept[0], "%s", text);
  pthread_mutex_unlock(&kept_lock);
}

void log_keeper_clear(void) {
  pthread_mutex_lock(&kept_lock);
  nkept = 0;
  logger_warnings = 0;
  pthread_mutex_unlock(&kept_lock);
}

size_t log_keeper_logger_warnings(void) {
  pthread_mutex_lock(&kept_lock);
  size_t n = logger_warnings;
  pthread_mutex_unlock(&kept_lock);
  return n;
}

void log_keeper_capture_stderr(void) {
  if (capture_fd >= 0)
    return;
  char path[] = "/tmp/cclscope-stderr-XXXXXX";
  capture_fd = mkstemp(path);
  assert_true(capture_fd >= 0);
  unlink(path);
  captured_upto = 0;
  fflush(stderr);
  saved_stderr = dup(STDERR_FILENO);
  assert_true(saved_stderr >= 0);
  assert_true(dup2(capture_fd, STDERR_FILENO) >= 0);
}

void log_keeper_release_stderr(void) {
  if (capture_fd < 0)
    return;
  fflush(stderr);
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  close(capture_fd);
  capture_fd = saved_stderr = -1;
}

/* Keep the warning lines written to the captured stderr since the last
 * look, and pass everything on to the real stderr. */
static void collect_captured(void) {
  if (capture_fd < 0)
    return;
  char buf[16384];
  ssize_t n;
  static char partial[2048];
  static size_t npartial;
  while ((n = pread(capture_fd, buf, sizeof buf, captured_upto)) > 0) {
    captured_upto += n;
    ssize_t echoed = write(saved_stderr, buf, (size_t)n);
    (void)echoed;
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] != '\n') {
        if (npartial < sizeof partial - 1)
          partial[npartial++] = buf[i];
        continue;
      }
      partial[npartial] = '\0';
      const char *w = strstr(partial, " NCCL WARN ");
      if (w)
        log_keeper_keep(w + strlen(" NCCL WARN "));
      npartial = 0;
    }
  }
}

size_t log_keeper_count(const char *text) {
  collect_captured();
  size_t n = 0;
  pthread_mutex_lock(&kept_lock);
  for (size_t i = 0; i < nkept; i++)
    if (strstr(kept[i], text))
      n++;
  pthread_mutex_unlock(&kept_lock);
  return n;
}

const char *log_keeper_find(const char *text) {
  collect_captured();
  const char *found = NULL;
  pthread_mutex_lock(&kept_lock);
  for (size_t i = 0; i < nkept && !found; i++)
    if (strstr(kept[i], text))
      found = kept[i];
  pthread_mutex_unlock(&kept_lock);
  return found;
}
