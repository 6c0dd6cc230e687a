/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/cpu_stall.c — takes each CPU away from everything else for a fixed
 * time at a fixed period, as a virtual machine's host does when it steals
 * a CPU: so that what a stall of a known length does to the plugin (do the
 * rings outlast it?) can be measured on a quiet machine, the same for two
 * builds.
 *
 *   cpu_stall --ms D --every P [--seconds S]
 *
 * One thread per online CPU, pinned to it, at real-time priority
 * (SCHED_FIFO 1: needs root or CAP_SYS_NICE), spins for D ms every P ms;
 * the CPUs' stalls are spread evenly over the period (CPU i starts i * P /
 * CPUs into it), so that one CPU at a time is taken, as steal usually
 * does. Runs S seconds (default 12), then prints how many stalls each CPU
 * took and how long they lasted. Linux's real-time throttling (950 ms in
 * each second by default) leaves this alone as long as D is well below P.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int cpu;
  double stall_ms, every_ms, first_ms, seconds;
  long stalls;
  double stalled_ms;
  int error; /* errno of a failed setting, 0 when the thread ran */
} staller;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_until_ms(double when) {
  struct timespec ts = {
      .tv_sec = (time_t)(when / 1e3),
      .tv_nsec = (long)((when - (double)(time_t)(when / 1e3) * 1e3) * 1e6)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

static void *stall_one_cpu(void *arg) {
  staller *s = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(s->cpu, &set);
  int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc != 0) {
    s->error = rc;
    return NULL;
  }
  struct sched_param param = {.sched_priority = 1};
  rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  if (rc != 0) {
    s->error = rc;
    return NULL;
  }
  double start = now_ms();
  double end = start + s->seconds * 1e3;
  for (double next = start + s->first_ms; next + s->stall_ms < end;
       next += s->every_ms) {
    sleep_until_ms(next);
    double began = now_ms();
    while (now_ms() - began < s->stall_ms)
      ; /* the CPU is ours: nothing else of this priority or lower runs */
    s->stalls++;
    s->stalled_ms += now_ms() - began;
  }
  return NULL;
}

static int usage(const char *why) {
  if (why)
    fprintf(stderr, "cpu_stall: %s\n", why);
  fprintf(stderr, "usage: cpu_stall --ms D --every P [--seconds S]\n"
                  "  spins at real-time priority for D ms every P ms on "
                  "each CPU in turn, for S seconds (12)\n");
  return 2;
}

int main(int argc, char **argv) {
  double stall_ms = 0, every_ms = 0, seconds = 12;
  for (int i = 1; i < argc; i += 2) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(NULL);
      return 0;
    }
    if (i + 1 >= argc)
      return usage("an option needs a value");
    char *end;
    double v = strtod(argv[i + 1], &end);
    if (*end != '\0' || !(v > 0) || !isfinite(v))
      return usage("values are positive numbers");
    if (strcmp(argv[i], "--ms") == 0)
      stall_ms = v;
    else if (strcmp(argv[i], "--every") == 0)
      every_ms = v;
    else if (strcmp(argv[i], "--seconds") == 0)
      seconds = v;
    else
      return usage("unknown option");
  }
  if (stall_ms <= 0 || every_ms <= 0)
    return usage("--ms and --every are required");
  if (stall_ms * 2 > every_ms)
    return usage("--ms must be at most half of --every (real-time "
                 "throttling would cut longer stalls)");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1 || cpus > 1024)
    return usage("cannot tell how many CPUs are online");
  staller *s = calloc((size_t)cpus, sizeof *s);
  pthread_t *threads = calloc((size_t)cpus, sizeof *threads);
  if (!s || !threads) {
    fprintf(stderr, "cpu_stall: out of memory\n");
    return 1;
  }
  for (long i = 0; i < cpus; i++) {
    s[i] = (staller){.cpu = (int)i,
                     .stall_ms = stall_ms,
                     .every_ms = every_ms,
                     .first_ms = every_ms * (double)i / (double)cpus,
                     .seconds = seconds};
    int rc = pthread_create(&threads[i], NULL, stall_one_cpu, &s[i]);
    if (rc != 0) {
      fprintf(stderr, "cpu_stall: cannot start a thread: %s\n", strerror(rc));
      return 1;
    }
  }
  int failed = 0;
  for (long i = 0; i < cpus; i++) {
    pthread_join(threads[i], NULL);
    if (s[i].error) {
      fprintf(stderr,
              "cpu_stall: CPU %ld: %s (real-time priority needs root or "
              "CAP_SYS_NICE)\n",
              i, strerror(s[i].error));
      failed = 1;
      continue;
    }
    printf("cpu_stall: CPU %ld: %ld stalls of %.1f ms on average\n", i,
           s[i].stalls,
           s[i].stalls ? s[i].stalled_ms / (double)s[i].stalls : 0.0);
  }
  free(s);
  free(threads);
  return failed;
}
