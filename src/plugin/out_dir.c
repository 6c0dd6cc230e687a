/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/out_dir.c — see out_dir.h for the guarantees and the policy
 * on a symbolically linked folder.
 */
#include "out_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define CREATE_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
#define FILE_MODE 0644
#define FOLDER_MODE 0755
#define TEMP_NAME_TRIES 16
#define TEMP_NAME_MAX 160 /* "." + 64 of the final name + ".pid.n.r.tmp" */

void cs_out_dir_init(cs_out_dir *d, const char *path, const char *setting) {
  memset(d, 0, sizeof *d);
  d->fd = -1;
  d->setting = setting;
  if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path)
    d->path[0] = '\0'; /* too long: cs_out_dir_open says so */
  /* "out/" would resolve a link at "out" before we could look at it. */
  size_t len = strlen(d->path);
  while (len > 1 && d->path[len - 1] == '/')
    d->path[--len] = '\0';
}

bool cs_out_dir_trusts_link_owner(uid_t owner) {
  return owner == 0 || owner == geteuid();
}

/* mkdir -p. Whether the result is a folder we may use is for the caller to
 * check (an existing file or link at any level makes mkdir say EEXIST). */
static bool make_folders(const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    bool ok = mkdir(path, FOLDER_MODE) == 0 || errno == EEXIST;
    *p = '/';
    if (!ok)
      return false;
  }
  return mkdir(path, FOLDER_MODE) == 0 || errno == EEXIST;
}

static void say_unusable(const cs_out_dir *d, const char *why) {
  cs_log_warn("cannot use %s '%s' (%s); nothing is written there by this "
              "process",
              d->setting, d->path, why);
}

/* Where the open folder really is, for the warning about a link. */
static void resolved_path(const cs_out_dir *d, char *out, size_t outlen) {
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", d->fd);
  ssize_t n = readlink(self, out, outlen - 1);
  if (n <= 0) /* no /proc: what the link says */
    n = readlink(d->path, out, outlen - 1);
  if (n <= 0)
    n = (ssize_t)snprintf(out, outlen, "?");
  out[n] = '\0';
}

/* The last component is a symbolic link: open through it if its owner is
 * trusted, and only if it is still the same link afterwards (a link cannot
 * be rewritten, only replaced, so the same inode leads to the same place).
 * False after a warning. */
static bool open_through_link(cs_out_dir *d, const struct stat *link) {
  if (!cs_out_dir_trusts_link_owner(link->st_uid)) {
    cs_log_warn("%s '%s' is a symbolic link owned by uid %u, neither you nor "
                "root: not followed, nothing is written there by this process "
                "(name the real folder instead)",
                d->setting, d->path, (unsigned)link->st_uid);
    return false;
  }
  d->fd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (d->fd < 0) {
    say_unusable(d, strerror(errno));
    return false;
  }
  struct stat again;
  if (lstat(d->path, &again) != 0 || again.st_dev != link->st_dev ||
      again.st_ino != link->st_ino) {
    say_unusable(d, "the link was replaced while it was being opened");
    return false;
  }
  return true;
}

bool cs_out_dir_open(cs_out_dir *d) {
  if (d->tried)
    return d->fd >= 0;
  d->tried = true;
  if (!d->path[0]) {
    say_unusable(d, "empty or too long a path");
    return false;
  }
  if (!make_folders(d->path)) {
    say_unusable(d, strerror(errno));
    return false;
  }
  struct stat st;
  if (lstat(d->path, &st) != 0) {
    say_unusable(d, strerror(errno));
    return false;
  }
  bool through_link = S_ISLNK(st.st_mode);
  if (through_link) {
    if (!open_through_link(d, &st)) {
      cs_out_dir_close(d);
      return false;
    }
  } else {
    d->fd = open(d->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d->fd < 0) {
      say_unusable(d, errno == ELOOP ? "it became a symbolic link"
                                     : strerror(errno));
      return false;
    }
  }
  if (fstat(d->fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    say_unusable(d, "not a folder");
    cs_out_dir_close(d);
    return false;
  }
  if (through_link) {
    char target[PATH_MAX];
    resolved_path(d, target, sizeof target);
    cs_log_warn("%s '%s' is a symbolic link to '%s'; writing there", d->setting,
                d->path, target);
  }
  return true;
}

int cs_out_dir_create(cs_out_dir *d, const char *name) {
  if (!cs_out_dir_open(d)) {
    errno = ENOENT;
    return -1;
  }
  return openat(d->fd, name, CREATE_FLAGS, FILE_MODE);
}

int cs_out_dir_reopen(cs_out_dir *d, const char *name, int fd, int flags) {
  struct stat have, got;
  if (!cs_out_dir_open(d)) {
    errno = ENOENT;
    return -1;
  }
  if (fstat(fd, &have) != 0)
    return -1;
  /* O_NONBLOCK: a FIFO put in its place must not block us. */
  int again = openat(d->fd, name,
                     flags | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (again < 0)
    return -1;
  if (fstat(again, &got) != 0 || got.st_dev != have.st_dev ||
      got.st_ino != have.st_ino) {
    close(again);
    errno = ESTALE;
    return -1;
  }
  int fl = fcntl(again, F_GETFL);
  if (fl >= 0)
    fcntl(again, F_SETFL, fl & ~O_NONBLOCK);
  return again;
}

/* 64 bits nobody else can guess, from the kernel; the clock and a counter
 * where it cannot answer (then at least not the same twice). */
static uint64_t random_bits(void) {
  uint64_t r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
    return r;
  static _Atomic uint64_t fallback;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t z = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
               atomic_fetch_add(&fallback, 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u; /* splitmix64's finalizer */
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* ".<name>.<pid>.<n>.<random>.tmp": hidden, and not read by anything that
 * looks for *.prom or *.json. */
static void temp_name(char *out, size_t outlen, const char *name) {
  static _Atomic unsigned counter;
  snprintf(out, outlen, ".%.64s.%d.%u.%016llx.tmp", name, (int)getpid(),
           atomic_fetch_add(&counter, 1), (unsigned long long)random_bits());
}

static bool write_fully(int fd, const char *data, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += (size_t)n;
  }
  return true;
}

bool cs_out_dir_replace(cs_out_dir *d, const char *name, const void *data,
                        size_t len) {
  if (!cs_out_dir_open(d)) {
    errno = ENOENT;
    return false;
  }
  char tmp[TEMP_NAME_MAX];
  int fd = -1;
  for (int i = 0; i < TEMP_NAME_TRIES && fd < 0; i++) {
    temp_name(tmp, sizeof tmp, name);
    fd = openat(d->fd, tmp, CREATE_FLAGS, FILE_MODE);
    if (fd < 0 && errno != EEXIST)
      return false;
  }
  if (fd < 0)
    return false; /* EEXIST every time */
  bool ok = write_fully(fd, data, len);
  int saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && renameat(d->fd, tmp, d->fd, name) == 0)
    return true;
  if (ok)
    saved = errno;
  unlinkat(d->fd, tmp, 0);
  errno = saved;
  return false;
}

void cs_out_dir_close(cs_out_dir *d) {
  if (d->fd >= 0)
    close(d->fd);
  d->fd = -1;
}
