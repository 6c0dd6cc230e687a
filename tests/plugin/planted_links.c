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

/* ---- the logger ---- */

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char kept[KEPT_MAX][1024];
static size_t nkept;

void log_keeper(ncclDebugLogLevel level, unsigned long flags, const char *file,
                int line, const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NCCL_LOG_WARN)
    return;
  pthread_mutex_lock(&kept_lock);
  if (nkept < KEPT_MAX) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kept[nkept++], sizeof kept[0], fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&kept_lock);
}

void log_keeper_clear(void) {
  pthread_mutex_lock(&kept_lock);
  nkept = 0;
  pthread_mutex_unlock(&kept_lock);
}

size_t log_keeper_count(const char *text) {
  size_t n = 0;
  pthread_mutex_lock(&kept_lock);
  for (size_t i = 0; i < nkept; i++)
    if (strstr(kept[i], text))
      n++;
  pthread_mutex_unlock(&kept_lock);
  return n;
}

const char *log_keeper_find(const char *text) {
  const char *found = NULL;
  pthread_mutex_lock(&kept_lock);
  for (size_t i = 0; i < nkept && !found; i++)
    if (strstr(kept[i], text))
      found = kept[i];
  pthread_mutex_unlock(&kept_lock);
  return found;
}
