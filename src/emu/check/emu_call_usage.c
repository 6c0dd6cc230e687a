/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_call_usage.c — owns looking at an emitting thread from the
 * --check watchdog (CPU clock, voluntary switches, run state) and the rule
 * that says whether a call past the wall limit was slow (emu_call_usage.h).
 */
#include "check/emu_call_usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STATUS_TEXT_MAX 8192

uint64_t emu_asleep_between(bool asleep_before, bool asleep_now,
                            uint64_t interval_ns) {
  if (asleep_before && asleep_now)
    return interval_ns;
  if (asleep_before || asleep_now)
    return interval_ns / 2;
  return 0;
}

uint64_t emu_asleep_exact(uint64_t wall_ns, uint64_t cpu_ns, uint64_t runq_ns) {
  uint64_t busy = cpu_ns + runq_ns;
  return wall_ns > busy ? wall_ns - busy : 0;
}

bool emu_parse_task_schedstat(const char *text, uint64_t *cpu_ns,
                              uint64_t *runq_ns) {
  char *end;
  *cpu_ns = strtoull(text, &end, 10);
  if (end == text || *end != ' ')
    return false;
  const char *second = end + 1;
  if (*second < '0' || *second > '9')
    return false;
  *runq_ns = strtoull(second, &end, 10);
  return *end == ' ' || *end == '\n' || *end == '\0';
}

uint64_t emu_foreign_wait_between(const emu_foreign_threads *before,
                                  const emu_foreign_threads *now,
                                  uint64_t interval_ns) {
  uint64_t most = 0;
  for (int i = 0; i < now->count; i++)
    for (int j = 0; j < before->count; j++) {
      if (before->tid[j] != now->tid[i])
        continue;
      uint64_t runq = now->runq_ns[i] > before->runq_ns[j]
                          ? now->runq_ns[i] - before->runq_ns[j]
                          : 0;
      uint64_t ran = now->cpu_ns[i] > before->cpu_ns[j]
                         ? now->cpu_ns[i] - before->cpu_ns[j]
                         : 0;
      uint64_t idle = interval_ns > ran ? interval_ns - ran : 0;
      uint64_t seen = 0;
      if (before->runnable[j] && now->runnable[i])
        seen = idle;
      else if (before->runnable[j] || now->runnable[i])
        seen = idle / 2;
      uint64_t waited = runq > seen ? runq : seen;
      if (waited > most)
        most = waited;
      break;
    }
  return most < interval_ns ? most : interval_ns;
}

emu_call_verdict emu_call_judge(uint64_t cpu_ns, uint64_t asleep_ns,
                                uint64_t limit_ns) {
  if (cpu_ns >= limit_ns)
    return EMU_CALL_SLOW_CPU;
  if (asleep_ns > 0 && cpu_ns + asleep_ns >= limit_ns)
    return EMU_CALL_SLOW_BLOCKED;
  return EMU_CALL_NOT_SLOW;
}

/* The value after "\n<key>" (the key at the start of a line, so that
 * "voluntary_ctxt_switches:" does not match "nonvoluntary_..."), with the
 * blanks after it skipped; NULL if absent. */
static const char *field(const char *text, const char *key) {
  size_t klen = strlen(key);
  const char *line = text;
  while (line != NULL && *line != '\0') {
    if (strncmp(line, key, klen) == 0) {
      const char *v = line + klen;
      while (*v == ' ' || *v == '\t')
        v++;
      return v;
    }
    line = strchr(line, '\n');
    if (line != NULL)
      line++;
  }
  return NULL;
}

bool emu_parse_task_status(const char *text, uint64_t *voluntary_switches,
                           bool *asleep) {
  const char *state = field(text, "State:");
  const char *vol = field(text, "voluntary_ctxt_switches:");
  if (state == NULL || vol == NULL || *vol < '0' || *vol > '9')
    return false;
  /* S: interruptible sleep (nanosleep, futex, poll), D: uninterruptible
   * (disk I/O); R is running or runnable: preempted is not asleep. */
  *asleep = *state == 'S' || *state == 'D';
  *voluntary_switches = strtoull(vol, NULL, 10);
  return true;
}

int emu_parse_task_syscall(const char *text) {
  if (text[0] == '-' && text[1] == '1' && (text[2] == ' ' || text[2] == '\n'))
    return -1;
  if (text[0] < '0' || text[0] > '9')
    return -2; /* "running" */
  char *end;
  long nr = strtol(text, &end, 10);
  if (*end != ' ' && *end != '\n' && *end != '\0')
    return -2;
  return nr >= 0 && nr < 100000 ? (int)nr : -2;
}

/* Reads /proc/self/task/TID/<file> into `buf` (NUL-terminated). */
static bool read_task_file(pid_t tid, const char *file, char *buf, size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, file);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  size_t n = 0;
  while (n + 1 < cap) {
    ssize_t got = read(fd, buf + n, cap - 1 - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    n += (size_t)got;
  }
  close(fd);
  buf[n] = '\0';
  return n > 0;
}

bool emu_foreign_threads_sample(bool (*is_own)(pid_t tid),
                                emu_foreign_threads *out) {
  out->count = 0;
  DIR *d = opendir("/proc/self/task");
  if (d == NULL)
    return false;
  bool ok = true;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && out->count < EMU_FOREIGN_MAX) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
    if (is_own(tid))
      continue;
    char text[512];
    int n = out->count;
    if (!read_task_file(tid, "schedstat", text, sizeof text))
      continue; /* it exited meanwhile */
    if (!emu_parse_task_schedstat(text, &out->cpu_ns[n], &out->runq_ns[n])) {
      ok = false;
      break;
    }
    /* /proc/.../stat: "tid (name) S ...", the name may hold spaces */
    const char *state = NULL;
    if (read_task_file(tid, "stat", text, sizeof text)) {
      const char *paren = strrchr(text, ')');
      if (paren != NULL && paren[1] == ' ')
        state = paren + 2;
    }
    if (state == NULL)
      continue; /* it exited meanwhile */
    out->runnable[n] = *state == 'R';
    out->tid[n] = tid;
    out->count++;
  }
  closedir(d);
  return ok;
}

bool emu_thread_usage_sample(pthread_t th, pid_t tid, emu_thread_usage *u,
                             const char **why) {
  clockid_t cid;
  struct timespec ts;
  if (pthread_getcpuclockid(th, &cid) != 0 || clock_gettime(cid, &ts) != 0) {
    *why = "its CPU clock";
    return false;
  }
  u->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
  char text[STATUS_TEXT_MAX];
  if (!read_task_file(tid, "status", text, sizeof text) ||
      !emu_parse_task_status(text, &u->voluntary_switches, &u->asleep)) {
    *why = "/proc/self/task/TID/status";
    return false;
  }
  char sched[256];
  uint64_t on_cpu;
  u->runq_known = read_task_file(tid, "schedstat", sched, sizeof sched) &&
                  emu_parse_task_schedstat(sched, &on_cpu, &u->runq_ns);
  if (!u->runq_known)
    u->runq_ns = 0;
  u->wait_channel[0] = '\0';
  u->syscall_nr = -2;
  if (!u->asleep)
    return true;
  /* Where it sleeps, for the message only: unreadable is not a failure. */
  char where[256];
  if (read_task_file(tid, "wchan", where, sizeof where) &&
      strcmp(where, "0") != 0) {
    where[strcspn(where, "\n")] = '\0';
    size_t n = strlen(where);
    if (n >= sizeof u->wait_channel)
      n = sizeof u->wait_channel - 1;
    memcpy(u->wait_channel, where, n);
    u->wait_channel[n] = '\0';
  }
  if (read_task_file(tid, "syscall", where, sizeof where))
    u->syscall_nr = emu_parse_task_syscall(where);
  return true;
}
